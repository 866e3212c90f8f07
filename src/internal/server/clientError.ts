/**
 * A Node HTTP server held to what a client leaves behind (`Server.withClientErrors`).
 *
 * **Requests Node's parser refuses** (a `Content-Length` shorter than the body sent, so that the
 * rest reads as a malformed request; a bad request line; headers or chunk extensions too large; a
 * request that outlives `requestTimeout`) are answered in the server's JSON shape,
 * `{"detail": ...}`, as uvicorn answers them with its "Invalid HTTP request received." (Node's own
 * answer is a bare status with no body, written over any answer still in flight on the connection).
 * Which request the error belongs to decides what happens:
 *
 * - the request in flight was read whole, and the bad bytes come after it: its answer is finished
 *   first, so it gets that answer, as it does from uvicorn; then the refusal, and the connection
 *   is closed;
 * - the request in flight was not read whole (its body was cut off, timed out, or is malformed):
 *   its answer can never come, so the refusal is written at once and the connection closed (the
 *   application's pending read of the body ends with the connection). A body cut off because the
 *   client went away closes the connection at once, with nothing written.
 *
 * A listener that waited for the answer of a request whose body never completes (as this one once
 * did) kept the connection, its descriptor and the application's pending read alive for good: the
 * request timeout fired into the same wait, and `close` never finished.
 *
 * **Closing** (`server.close`, as the platform calls it once serving has stopped): Node closes the
 * idle connections once and stops enforcing its request timeouts, so a connection still sending a
 * request, or one that goes idle only later, would keep `close` from ever finishing. Here, while
 * closing, idle connections are closed as they go idle, a request still arriving is answered
 * 503 and its connection closed, and after `closeTimeout` every connection left is closed.
 *
 * @internal
 */
import type * as Http from "node:http"
import type * as Net from "node:net"
import type * as Stream from "node:stream"

/**
 * A raw HTTP/1.1 answer in the server's JSON shape, closing the connection.
 *
 * @internal
 */
export const raw = (
  status: number,
  reason: string,
  detail: string,
  headers: Readonly<Record<string, string>> = {}
): string => {
  const body = JSON.stringify({ detail })
  let head = `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${
    Buffer.byteLength(body)
  }\r\n`
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`
  return `${head}connection: close\r\n\r\n${body}`
}

/**
 * The raw answer to a request Node's parser refused, by the error's code.
 *
 * @internal
 */
export const answer = (code: string | undefined): string => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return raw(431, "Request Header Fields Too Large", "Request header fields too large.")
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return raw(413, "Payload Too Large", "Content Too Large")
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return raw(408, "Request Timeout", "Request timeout.")
    default:
      return raw(400, "Bad Request", "Invalid HTTP request received.")
  }
}

/**
 * The answer to a request still arriving when the server closes.
 *
 * @internal
 */
export const shuttingDown: string = raw(503, "Service Unavailable", "Server is shutting down", { "retry-after": "1" })

/**
 * How long a connection that was answered and ended is given to read the answer and close its
 * side, before it is closed regardless (a client that never reads, or keeps sending).
 *
 * @internal
 */
export const linger = 1000

/** Connections being refused: the parser fails again on every later chunk, which changes nothing. */
const refusing = new WeakSet<Stream.Duplex>()

/** The answer in flight on a connection (Node's own field; `null` between requests). */
const inFlight = (socket: Stream.Duplex): Http.ServerResponse | null | undefined =>
  (socket as { readonly _httpMessage?: Http.ServerResponse | null })._httpMessage

/**
 * Write `text`, end the connection, and close it once the client has closed its side, or after
 * {@link linger} ms.
 *
 * @internal
 */
export const refuse = (socket: Stream.Duplex, text: string): void => {
  refusing.add(socket)
  if (socket.destroyed) return
  if (!socket.writable) {
    socket.destroy()
    return
  }
  socket.end(text)
  const timer = setTimeout(() => socket.destroy(), linger)
  timer.unref()
  socket.once("close", () => clearTimeout(timer))
}

/**
 * A `clientError` listener for a Node HTTP server. Node leaves the connection to it: every path
 * ends in the connection being closed.
 *
 * @internal
 */
export const listener = (error: Error & { readonly code?: string }, socket: Stream.Duplex): void => {
  if (socket.destroyed) return
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  if (refusing.has(socket)) return
  const pending = inFlight(socket)
  if (pending === undefined || pending === null || pending.writableFinished) {
    refuse(socket, answer(error.code))
    return
  }
  if (pending.req?.complete === true) {
    // The request in flight was read whole: the bad bytes came after it. Its answer first.
    refusing.add(socket)
    pending.once("finish", () => refuse(socket, answer(error.code)))
    pending.once("close", () => {
      if (!pending.writableFinished) socket.destroy()
    })
    return
  }
  // The request in flight will never be read whole. A client that went away is gone; otherwise,
  // unless its answer has begun, it is told why.
  if (error.code === "HPE_INVALID_EOF_STATE" || pending.headersSent) socket.destroy()
  else refuse(socket, answer(error.code))
}

/**
 * Settings of {@link harden}.
 *
 * @internal
 */
export interface Options {
  /** How long `close` lets answers in flight finish before closing every connection left, in ms. */
  readonly closeTimeout: number
}

const sweepInterval = 50

/**
 * Hold a Node HTTP server to what its clients leave behind: the `clientError` listener above, a
 * 503 for a request that arrives when nothing serves (after serving stopped, on a connection kept
 * alive from before), and a `close` that finishes whatever the clients do.
 *
 * @internal
 */
export const harden = <S extends Http.Server>(server: S, options: Options): S => {
  const sockets = new Set<Net.Socket>()
  server.on("connection", (socket: Net.Socket) => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  })
  server.on("clientError", listener)
  server.on("request", (_request: Http.IncomingMessage, response: Http.ServerResponse) => {
    if (server.listenerCount("request") > 1) return
    const body = "{\"detail\":\"Server is shutting down\"}"
    response.writeHead(503, {
      "content-type": "application/json",
      "content-length": body.length,
      "retry-after": "1",
      connection: "close"
    })
    response.end(body)
  })
  // A connection taken over by an upgrade leaves Node's HTTP handling and its timeouts: once its
  // answer is written and the connection ended (nothing here takes an upgrade), the client has
  // `linger` ms to close its side.
  server.on("upgrade", (_request: Http.IncomingMessage, socket: Stream.Duplex) => {
    if (server.listenerCount("upgrade") === 1) {
      refuse(socket, shuttingDown)
      return
    }
    socket.once("finish", () => {
      const timer = setTimeout(() => socket.destroy(), linger)
      timer.unref()
      socket.once("close", () => clearTimeout(timer))
    })
  })

  let closing = false
  const sweep = () => {
    // closes the connections between requests, and those whose answer has been written
    server.closeIdleConnections()
    for (const socket of sockets) {
      if (socket.destroyed || refusing.has(socket)) continue
      const pending = inFlight(socket)
      if (pending === undefined || pending === null) {
        // not idle, and no request handed over: a request's head is still arriving
        refuse(socket, shuttingDown)
      } else if (pending.writableFinished) {
        // answered, and not handed back to Node (an upgraded connection)
        socket.destroy()
      } else if (!pending.headersSent && pending.req?.complete === false) {
        // a body still arriving: the application is waiting for it, and the answer is a refusal
        refuse(socket, shuttingDown)
      }
    }
  }
  const target: Http.Server = server
  const close = target.close
  target.close = function(this: Http.Server, callback?: (error?: Error) => void) {
    close.call(this, callback)
    if (closing) return this
    closing = true
    sweep()
    const sweeping = setInterval(sweep, sweepInterval)
    const deadline = setTimeout(() => {
      for (const socket of sockets) socket.destroy()
    }, options.closeTimeout)
    server.once("close", () => {
      clearInterval(sweeping)
      clearTimeout(deadline)
    })
    return this
  }
  return server
}
