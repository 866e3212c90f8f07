/**
 * Two more floors for `npm run bench:server -- --targets=...,platform,fiber`, between bare
 * `node:http` and our server, to tell where a server's time goes. Each answers `/messages` and
 * `/call` with the bytes our server answers them with (captured by the benchmark, as for
 * `bare.ts`), and does nothing else:
 *
 * - `fiber`: `node:http`, with each request answered by an Effect fiber of its own
 *   (`Runtime.runFork`), which writes the response and waits for it to be flushed; the cost of a
 *   fiber per request.
 * - `platform`: `@effect/platform`'s `HttpServer` on `@effect/platform-node` (as ours runs), with an
 *   `HttpApp` that answers from the captured bytes without a router (`/call` reads its body first
 *   through `request.arrayBuffer`, as ours does); the cost of the platform's request handling.
 *
 * ```sh
 * node --import tsx bench/server/floor.ts fiber --port 8123 --responses '<json of Responses>'
 * ```
 *
 * The process exits as soon as its standard input closes, so it never outlives the benchmark that
 * started it.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { createServer, type ServerResponse } from "node:http"
import type { Responses } from "./bare.js"
import { exitWithParent, portArgument } from "./child.js"

const taskId = (): string => globalThis.crypto.randomUUID().replaceAll("-", "")

const fiber = (responses: Responses, port: number): void => {
  const runFork = Runtime.runFork(Runtime.defaultRuntime)
  const messagesBody = Buffer.from(responses.messages.body)
  const messagesHeaders = { ...responses.messages.headers, "content-length": String(messagesBody.length) }
  const { after, before } = responses.call
  const callHeaders = {
    ...responses.call.headers,
    "content-length": String(Buffer.byteLength(before) + 32 + Buffer.byteLength(after))
  }
  const answer = (response: ServerResponse, headers: Record<string, string>, body: () => string | Buffer) =>
    runFork(Effect.async<void>((resume) => {
      response.writeHead(200, headers).end(body(), () => resume(Effect.void))
    }))
  createServer((request, response) => {
    if (request.method === "GET" && request.url === responses.messages.path) {
      answer(response, messagesHeaders, () => messagesBody)
    } else if (request.method === "POST" && request.url === responses.call.path) {
      request.on("data", () => {})
      request.on("end", () => answer(response, callHeaders, () => before + taskId() + after))
    } else {
      response.writeHead(404).end()
    }
  }).listen(port, "127.0.0.1")
}

const platform = (responses: Responses, port: number): void => {
  const messages = HttpServerResponse.uint8Array(new TextEncoder().encode(responses.messages.body), {
    contentType: responses.messages.headers["content-type"]!
  })
  const { "content-type": contentType, ...headers } = responses.call.headers
  const notFound = HttpServerResponse.empty({ status: 404 })
  const app: HttpApp.Default = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    if (request.method === "GET" && request.url === responses.messages.path) return Effect.succeed(messages)
    if (request.method === "POST" && request.url === responses.call.path) {
      return Effect.map(
        Effect.orDie(request.arrayBuffer),
        () =>
          HttpServerResponse.text(responses.call.before + taskId() + responses.call.after, {
            headers,
            ...(contentType === undefined ? {} : { contentType })
          })
      )
    }
    return Effect.succeed(notFound)
  })
  // Tracing off, as `Server.layer` has it by default.
  Layer.scopedDiscard(HttpMiddleware.withTracerDisabledWhenEffect(HttpServer.serveEffect(app), () => true)).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
    Layer.launch,
    NodeRuntime.runMain
  )
}

const main = (): void => {
  exitWithParent()
  const variant = process.argv[2]
  const at = process.argv.indexOf("--responses")
  const responses = JSON.parse(process.argv[at + 1] ?? "") as Responses
  if (variant === "fiber") fiber(responses, portArgument())
  else if (variant === "platform") platform(responses, portArgument())
  else throw new Error(`unknown variant ${variant}; expected fiber or platform`)
}

main()
