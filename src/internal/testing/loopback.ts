/**
 * The HTTP plumbing of the loopback stand-ins (`openreward-effect/Testing`): a `node:http` server on
 * 127.0.0.1 and a free port that records every request and answers each with what a route says, as
 * JSON, as server-sent events, or as text.
 *
 * @internal
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import type * as Testing from "../../Testing.js"

const readBody = (req: Http.IncomingMessage): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("error", reject)
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      if (text.length === 0) return resolve(undefined)
      try {
        resolve(JSON.parse(text))
      } catch {
        resolve(text)
      }
    })
  })

const messageOf = (e: unknown): string => e instanceof Error ? e.message : String(e)

const write = (res: Http.ServerResponse, answer: Testing.Answer): void => {
  switch (answer._tag) {
    case "json":
      res.writeHead(answer.status ?? 200, { "content-type": "application/json" })
      res.end(JSON.stringify(answer.body))
      return
    case "text":
      res.writeHead(answer.status ?? 200, { "content-type": answer.contentType })
      res.end(answer.body)
      return
    case "sse":
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      for (const e of answer.events) {
        const data = typeof e.data === "string" ? e.data : JSON.stringify(e.data)
        res.write((e.event === undefined ? "" : `event: ${e.event}\n`) + `data: ${data}\n\n`)
      }
      res.end()
  }
}

/** Start a stand-in answering with `route` on 127.0.0.1, on a free port. */
export const start = (route: Testing.Route): Promise<Testing.StandIn> => {
  const requests: Array<Testing.Request> = []
  const server = Http.createServer((req, res) => {
    readBody(req).then((body) => {
      const target = req.url ?? "/"
      const q = target.indexOf("?")
      const request: Testing.Request = {
        method: req.method ?? "GET",
        path: q === -1 ? target : target.slice(0, q),
        query: q === -1 ? "" : target.slice(q),
        headers: req.headers,
        body
      }
      const index = requests.length
      requests.push(request)
      let answer: Testing.Answer
      try {
        answer = route(request, index)
      } catch (e) {
        answer = {
          _tag: "json",
          status: 500,
          body: { error: { message: `the stand-in's route threw: ${messageOf(e)}` } }
        }
      }
      write(res, answer)
    }, () => {
      res.writeHead(400)
      res.end()
    })
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject)
      const { port } = server.address() as AddressInfo
      let closed: Promise<void> | undefined
      const close = (): Promise<void> =>
        closed ??= new Promise<void>((done) => {
          server.closeAllConnections()
          server.close(() => done())
        })
      resolve({ url: `http://127.0.0.1:${port}`, requests, close, [Symbol.asyncDispose]: close })
    })
  })
}
