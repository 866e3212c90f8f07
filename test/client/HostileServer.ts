/**
 * A hostile environment server on loopback, written on plain `node:http` so that it can do what no
 * well-behaved server does: answer `200` with a captive portal's HTML page, a body that never
 * ends, a `Content-Length` it does not keep, an event stream that only pings, drips a byte at a
 * time, sends chunk events forever or is cut after its `task_id` every time; redirect to another
 * origin.
 *
 * Without a script for a route it speaks the protocol as the reference server does (one
 * environment, `main`, the default: bare environment paths are redirected under it with a 308), so
 * that a test can break exactly one route. It listens on `::` with IPv4 mapped in, so that
 * `127.0.0.1`, `127.0.0.2`, `[::1]` and `localhost` all reach it: a client that followed a
 * redirect to one of those other origins would show up here, with that `Host` header. Bytes that
 * are not HTTP (a TLS handshake, after a redirect to `https:`) are counted in `notHttp`.
 */
import * as Http from "node:http"
import type * as net from "node:net"

export interface Hit {
  readonly method: string
  readonly path: string
  readonly host: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

/** Answers one request; `body` is the request's body, already read. */
export type Handler = (request: Http.IncomingMessage, response: Http.ServerResponse, body: string) => void

const rootRoutes = new Set([
  "health",
  "list_environments",
  "ping",
  "create",
  "delete",
  "create_session",
  "delete_session"
])

export const json = (response: Http.ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  response.end(text)
}

/** One event, framed as sse-starlette frames it (CRLF). */
export const event = (name: string, data: string): string => `event: ${name}\r\ndata: ${data}\r\n\r\n`

/** An event stream's status and headers, sent at once. */
export const sseHeaders = (response: Http.ServerResponse): void => {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  response.flushHeaders()
}

/** Write `next()` again and again, as fast as the client reads, until it goes away (or `limit` bytes). */
export const flood = (response: Http.ServerResponse, next: () => string, limit = 512 * 1024 * 1024): void => {
  let written = 0
  const pump = () => {
    while (!response.destroyed && written < limit) {
      const piece = next()
      written += piece.length
      if (!response.write(piece)) return void response.once("drain", pump)
    }
    if (!response.destroyed) response.end()
  }
  response.on("close", () => response.removeAllListeners("drain"))
  pump()
}

/** Write `piece` every `ms` until the client goes away. */
export const every = (response: Http.ServerResponse, ms: number, piece: string): void => {
  const timer = setInterval(() => {
    if (response.destroyed) clearInterval(timer)
    else response.write(piece)
  }, ms)
  response.on("close", () => clearInterval(timer))
}

/** The task id of a `/call`: the one being resumed, or a new one. */
export const taskIdOf = (body: string): string => {
  try {
    const parsed = JSON.parse(body) as { readonly task_id?: unknown }
    if (typeof parsed.task_id === "string") return parsed.task_id
  } catch {
    // a new call
  }
  return `task-${Math.random().toString(16).slice(2)}`
}

export const toolResult = JSON.stringify({
  ok: true,
  output: { blocks: [{ type: "text", text: "done", detail: null }], metadata: null, reward: 1, finished: false }
})

export class HostileServer {
  readonly hits: Array<Hit> = []
  /** Connections that spoke something other than HTTP (a TLS handshake). */
  notHttp = 0
  /** What `/list_environments` answers. */
  environments: unknown = ["main"]
  private readonly scripts = new Map<string, Handler>()
  private readonly sockets = new Set<net.Socket>()
  private next = 0

  private constructor(readonly server: Http.Server, readonly port: number) {}

  static start(): Promise<HostileServer> {
    return new Promise((resolve, reject) => {
      let self: HostileServer | undefined
      const server = Http.createServer((request, response) => self!.handle(request, response))
      server.on("connection", (socket) => {
        self?.sockets.add(socket)
        socket.on("close", () => self?.sockets.delete(socket))
      })
      server.on("clientError", (_error, socket) => {
        if (self !== undefined) self.notHttp++
        socket.destroy()
      })
      server.once("error", reject)
      server.listen({ port: 0, host: "::", ipv6Only: false }, () => {
        self = new HostileServer(server, (server.address() as net.AddressInfo).port)
        resolve(self)
      })
    })
  }

  /** The base URL clients are configured with. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`
  }

  /** Answer `METHOD /path` with `handler` from now on. */
  on(route: string, handler: Handler): this {
    this.scripts.set(route, handler)
    return this
  }

  /** Requests to `METHOD /path`. */
  count(route: string): number {
    return this.hits.filter((h) => `${h.method} ${h.path}` === route).length
  }

  /** Requests that arrived under another `Host` than the configured origin's. */
  strangers(): ReadonlyArray<Hit> {
    return this.hits.filter((h) => h.host !== `127.0.0.1:${this.port}`)
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }

  private handle(request: Http.IncomingMessage, response: Http.ServerResponse): void {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      const path = new URL(request.url ?? "/", "http://x").pathname
      this.hits.push({
        method: request.method ?? "",
        path,
        host: request.headers.host ?? "",
        headers: request.headers,
        body
      })
      const script = this.scripts.get(`${request.method} ${path}`)
      if (script !== undefined) return script(request, response, body)
      this.protocol(request, response, path, body)
    })
  }

  /** The protocol, as the reference server answers it, for one environment `main`. */
  private protocol(request: Http.IncomingMessage, response: Http.ServerResponse, path: string, body: string): void {
    const [first = "", ...rest] = path.slice(1).split("/")
    if (!rootRoutes.has(first) && first !== "main") {
      response.writeHead(308, { location: `/main${path}` })
      return void response.end()
    }
    const sid = request.headers["x-session-id"]
    switch (`${request.method} ${first === "main" ? rest.join("/") : first}`) {
      case "GET list_environments":
        return json(response, 200, this.environments)
      case "POST create_session":
        sseHeaders(response)
        return void response.end(event("task_id", `sid-${++this.next}`) + event("end", ""))
      case "POST create":
        return json(response, 200, { sid })
      case "POST ping":
        return json(response, 200, { status: "ok" })
      case "POST delete":
      case "POST delete_session":
        return json(response, 200, { sid })
      case "GET splits":
        return json(response, 200, [{ name: "train", type: "train" }])
      case "POST tasks":
      case "POST task_range":
        return json(response, 200, { tasks: [{ id: "t0" }], env_name: "main" })
      case "POST num_tasks":
        return json(response, 200, { num_tasks: 1 })
      case "POST task":
        return json(response, 200, { task: { id: "t0" }, env_name: "main" })
      case "GET tools":
      case "GET task_tools":
        return json(response, 200, { tools: [{ name: "answer", description: "", input_schema: null }] })
      case "GET prompt":
        return json(response, 200, [{ type: "text", text: "hi", detail: null }])
      case "GET messages":
        return json(response, 200, [{
          role: "user",
          blocks: [{ type: "text", text: "hi", detail: null }],
          detail: null
        }])
      case "POST call":
        sseHeaders(response)
        return void response.end(event("task_id", taskIdOf(body)) + event("end", toolResult))
    }
    json(response, 404, { detail: "Not Found" })
  }
}
