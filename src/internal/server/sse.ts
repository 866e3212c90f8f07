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

/**
 * The response headers of an SSE route, as the reference sends them.
 *
 * @internal
 */
export const headers: Readonly<Record<string, string>> = {
  "cache-control": "no-cache",
  "connection": "keep-alive",
  "x-accel-buffering": "no"
}

/**
 * The content type of an SSE response.
 *
 * @internal
 */
export const contentType = "text/event-stream; charset=utf-8"
