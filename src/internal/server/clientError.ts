/**
 * Requests Node's HTTP parser refuses before the application sees them (a `Content-Length` shorter
 * than the body sent, so that the rest reads as a malformed request; a bad request line; headers
 * too large): answered in the server's JSON shape, `{"detail": ...}`, as uvicorn answers them with
 * its "Invalid HTTP request received." (Node's own answer is a bare 400 with no body, written over
 * any answer still in flight on the connection).
 *
 * An answer in flight is finished first, so the request before the bad bytes gets its answer, as
 * it does from uvicorn; then the refusal is written and the connection closed.
 *
 * @internal
 */
import type * as Http from "node:http"
import type * as Stream from "node:stream"

const refusal = (code: string | undefined): readonly [status: number, reason: string, detail: string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "Request Header Fields Too Large", "Request header fields too large."]
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [413, "Payload Too Large", "Content Too Large"]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "Request Timeout", "Request timeout."]
    default:
      return [400, "Bad Request", "Invalid HTTP request received."]
  }
}

/**
 * The raw answer to a refused request.
 *
 * @internal
 */
export const answer = (code: string | undefined): string => {
  const [status, reason, detail] = refusal(code)
  const body = JSON.stringify({ detail })
  return `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${
    Buffer.byteLength(body)
  }\r\nconnection: close\r\n\r\n${body}`
}

/**
 * A `clientError` listener for a Node HTTP server.
 *
 * @internal
 */
export const listener = (error: Error & { readonly code?: string }, socket: Stream.Duplex): void => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const text = answer(error.code)
  const pending = (socket as { readonly _httpMessage?: Http.ServerResponse | null })._httpMessage
  if (pending !== undefined && pending !== null && !pending.writableFinished) {
    pending.once("finish", () => {
      if (socket.writable) socket.end(text)
      else socket.destroy()
    })
    pending.once("close", () => {
      if (!pending.writableFinished) socket.destroy()
    })
    return
  }
  socket.end(text)
}
