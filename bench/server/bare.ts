/**
 * The floor of `npm run bench:server`: a bare `node:http` server answering `/messages` and `/call`
 * with the bytes our server answers them with (captured from it by the benchmark and handed over
 * in `--responses`), and nothing else: no routing beyond two paths, no sessions, no validation. For
 * `/call` it reads the request body, as any server must, and writes the same SSE frames with a
 * fresh task id (`uuid4().hex`), so every answer is as long as ours.
 *
 * ```sh
 * node --import tsx bench/server/bare.ts --port 8123 --responses '<json of Responses>'
 * ```
 *
 * The process exits as soon as its standard input closes, so it never outlives the benchmark that
 * started it.
 */
import { createServer } from "node:http"
import { exitWithParent, portArgument } from "./child.js"

/** What the bare server answers, as captured from our server. */
export interface Responses {
  readonly messages: { readonly path: string; readonly headers: Record<string, string>; readonly body: string }
  readonly call: {
    readonly path: string
    readonly headers: Record<string, string>
    /** The body before and after the task id. */
    readonly before: string
    readonly after: string
  }
}

const main = (): void => {
  exitWithParent()
  const at = process.argv.indexOf("--responses")
  const responses = JSON.parse(process.argv[at + 1] ?? "") as Responses

  const messagesBody = Buffer.from(responses.messages.body)
  const messagesHeaders = { ...responses.messages.headers, "content-length": String(messagesBody.length) }
  const before = responses.call.before
  const after = responses.call.after
  const callLength = String(Buffer.byteLength(before) + 32 + Buffer.byteLength(after))
  const callHeaders = { ...responses.call.headers, "content-length": callLength }

  createServer((request, response) => {
    if (request.method === "GET" && request.url === responses.messages.path) {
      response.writeHead(200, messagesHeaders).end(messagesBody)
    } else if (request.method === "POST" && request.url === responses.call.path) {
      request.on("data", () => {})
      request.on("end", () => {
        const id = globalThis.crypto.randomUUID().replaceAll("-", "")
        response.writeHead(200, callHeaders).end(before + id + after)
      })
    } else {
      response.writeHead(404).end()
    }
  }).listen(portArgument(), "127.0.0.1")
}

main()
