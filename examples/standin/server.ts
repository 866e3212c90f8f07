/**
 * A loopback stand-in for a model provider's HTTP API, so the agent examples and the tests run the
 * providers' official SDKs offline. Each provider's stand-in (beside this file) supplies a `route`
 * that answers one request, as JSON or as a server-sent event stream shaped as that provider's docs
 * and SDK types show; this file owns the HTTP plumbing and records every request it was sent.
 *
 * It binds 127.0.0.1 on a free port and nothing else.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** A request as the stand-in saw it. */
export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: unknown
}

/** What a route answers: a JSON body, or a stream of server-sent events. */
export type Answer =
  | { readonly _tag: "json"; readonly status?: number; readonly body: unknown }
  | {
    readonly _tag: "sse"
    /** Each event: its optional `event:` name and its `data:` payload (JSON-encoded unless a string). */
    readonly events: ReadonlyArray<{ readonly event?: string; readonly data: unknown }>
  }

/** Answers one request; `index` counts the requests this stand-in has answered so far. */
export type Route = (request: Recorded, index: number) => Answer

/** A running stand-in. */
export interface StandIn {
  /** `http://127.0.0.1:PORT`, the base URL to hand the SDK. */
  readonly url: string
  /** Every request received, in order. */
  readonly requests: ReadonlyArray<Recorded>
  readonly close: () => Promise<void>
}

const readBody = (req: Http.IncomingMessage): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("error", reject)
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      try {
        resolve(text.length === 0 ? undefined : JSON.parse(text))
      } catch {
        resolve(text)
      }
    })
  })

/** Start a stand-in on a free loopback port. */
export const start = (route: Route): Promise<StandIn> => {
  const requests: Array<Recorded> = []
  const server = Http.createServer((req, res) => {
    readBody(req).then((body) => {
      const recorded: Recorded = {
        method: req.method ?? "GET",
        path: (req.url ?? "/").split("?")[0]!,
        headers: req.headers,
        body
      }
      const index = requests.length
      requests.push(recorded)
      let answer: Answer
      try {
        answer = route(recorded, index)
      } catch (e) {
        answer = { _tag: "json", status: 500, body: { error: { message: String(e) } } }
      }
      if (answer._tag === "json") {
        res.writeHead(answer.status ?? 200, { "content-type": "application/json" })
        res.end(JSON.stringify(answer.body))
        return
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      for (const e of answer.events) {
        const data = typeof e.data === "string" ? e.data : JSON.stringify(e.data)
        res.write((e.event === undefined ? "" : `event: ${e.event}\n`) + `data: ${data}\n\n`)
      }
      res.end()
    }, () => {
      res.writeHead(400)
      res.end()
    })
  })
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}
