/**
 * Server-sent events as the protocol uses them: `task_id`, then `chunk`* and `end` (or `error`),
 * with `:` keep-alive comments while a result is pending.
 *
 * Frames are written with `@effect/experimental`'s `Sse.encoder` (LF line endings; the reference's
 * sse-starlette writes CRLF, and every SSE reader accepts both). One case is written by hand: an
 * event with empty data. `Sse.encoder` leaves the `data:` line out then, and SSE readers (the WHATWG
 * algorithm, and `Sse.makeParser`) drop an event without data, so the empty `end` of
 * `/create_session` would never arrive; it is written `data: ` as the reference writes it.
 *
 * @internal
 */
import * as Sse from "@effect/experimental/Sse"

const CR = /\r\n?/g

/**
 * One event.
 *
 * @internal
 */
export const frame = (event: string, data: string): string =>
  data === ""
    ? `event: ${event}\ndata: \n\n`
    : Sse.encoder.write({
      _tag: "Event",
      event,
      id: undefined,
      data: data.includes("\r") ? data.replace(CR, "\n") : data
    })

/**
 * A keep-alive comment, as sse-starlette writes them (`: ping - <timestamp>`).
 *
 * @internal
 */
export const ping = (now: Date): string => `: ping - ${now.toISOString()}\n\n`

/**
 * The frames of a result: pieces of `size` code points (never splitting a surrogate pair), each a
 * `chunk` event but the last, which is the `end` event. A result that fits is one `end` event.
 *
 * @internal
 */
export const result = (json: string, size: number): string => {
  if (json.length <= size) return frame("end", json)
  let out = ""
  let start = 0
  let points = 0
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < json.length) {
      const d = json.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
    points++
    if (points === size && i + 1 < json.length) {
      out += frame("chunk", json.slice(start, i + 1))
      start = i + 1
      points = 0
    }
  }
  return out + frame("end", json.slice(start))
}

const keepAliveHeaders: Readonly<Record<string, string>> = {
  "cache-control": "no-cache",
  "connection": "keep-alive",
  "x-accel-buffering": "no"
}

const closingHeaders: Readonly<Record<string, string>> = {
  "cache-control": "no-cache",
  "x-accel-buffering": "no"
}

const closeToken = /(^|,)\s*close\s*(,|$)/i
const keepAliveToken = /(^|,)\s*keep-alive\s*(,|$)/i

/**
 * Whether the connection closes after this request's answer: the request says `Connection: close`,
 * or it is HTTP/1.0 without `Connection: keep-alive`.
 *
 * @internal
 */
export const closes = (request: {
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly source: unknown
}): boolean => {
  const connection = request.headers["connection"]
  if (connection !== undefined && closeToken.test(connection)) return true
  const source = request.source as { readonly httpVersion?: unknown } | null
  return typeof source === "object" && source !== null && source.httpVersion === "1.0" &&
    (connection === undefined || !keepAliveToken.test(connection))
}

/**
 * The response headers of an SSE route, as the reference (uvicorn) sends them: `connection:
 * keep-alive` only on a connection that stays open. On one that closes the HTTP server writes its
 * own `Connection: close`, and a second, contradicting header would make a client that trusts the
 * first reuse a closing connection.
 *
 * @internal
 */
export const headers = (request: {
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly source: unknown
}): Readonly<Record<string, string>> => closes(request) ? closingHeaders : keepAliveHeaders

/**
 * The content type of an SSE response.
 *
 * @internal
 */
export const contentType = "text/event-stream; charset=utf-8"
