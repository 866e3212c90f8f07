/**
 * Server-sent events from a byte stream, on top of `@effect/experimental`'s parser.
 *
 * The parser already accepts CRLF, LF and CR line ends, ignores `:` comment lines (the server's
 * keep-alive pings), joins multi-line data and strips exactly one leading space from a value. It
 * loses track of a CRLF that is split across two network chunks, though: the `\n` at the start of
 * the next chunk reads as an empty line, which dispatches the event early and drops its name. So
 * when a chunk ends in `\r`, a `\n` that starts the next chunk is dropped: it is the second half of
 * that line end.
 *
 * @internal
 */
import * as Sse from "@effect/experimental/Sse"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

/** One event. `data` is the joined data lines (empty string for `data: ` alone). */
export interface Event {
  readonly event: string
  readonly data: string
}

/** The stream is not valid SSE: an event (or a line) larger than `maxEventSize` characters. */
export interface Invalid {
  readonly _tag: "Invalid"
  readonly reason: string
}

/** Decode a byte stream into events, holding at most `maxEventSize` characters of one pending event. */
export const events = <E, R>(
  bytes: Stream.Stream<Uint8Array, E, R>,
  options: { readonly maxEventSize: number }
): Stream.Stream<Event, E | Invalid, R> =>
  Stream.suspend(() => {
    let parsed: Array<Event> = []
    const parser = Sse.makeParser((event) => {
      if (event._tag === "Event") parsed.push({ event: event.event, data: event.data })
    }, { maxEventSize: options.maxEventSize })
    let afterCr = false
    const feed = (text: string): Array<Event> | Invalid => {
      const chunk = afterCr && text.startsWith("\n") ? text.slice(1) : text
      if (text.length > 0) afterCr = text.endsWith("\r")
      const error = chunk.length > 0 ? parser.feed(chunk) : undefined
      const out = parsed
      parsed = []
      return error === undefined ? out : { _tag: "Invalid", reason: error.message }
    }
    return bytes.pipe(
      Stream.decodeText(),
      Stream.mapConcatEffect((text) => {
        const out = feed(text)
        return Array.isArray(out) ? Effect.succeed(out) : Effect.fail(out)
      })
    )
  })
