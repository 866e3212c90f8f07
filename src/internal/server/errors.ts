/**
 * Turning failures of environment code into the texts the reference sends: `"Type: message"` in a
 * 500's detail (or nothing, or a stack trace, as configured), the bare message in an SSE `error`
 * event. Every text passes through the session's redactor, so a secret that leaked into an error
 * message is never sent or logged.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Option from "effect/Option"

/**
 * How much of an unexpected failure a 500 response reveals (the reference's `return_errors`).
 *
 * @internal
 */
export type Mode = "none" | "exception" | "stacktrace"

/**
 * @internal
 */
export type Redact = (text: string) => string

/**
 * @internal
 */
export const noRedaction: Redact = (text) => text

/**
 * A redactor that replaces every occurrence of each secret value with `[REDACTED]`, longest first.
 *
 * @internal
 */
export const redactor = (values: ReadonlyArray<string>): Redact => {
  const secrets = values.filter((v) => v !== "").sort((a, b) => b.length - a.length)
  if (secrets.length === 0) return noRedaction
  return (text) => {
    let out = text
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join("[REDACTED]")
    return out
  }
}

const nameOf = (u: unknown): string => {
  if (typeof u === "object" && u !== null) {
    const tag = (u as { _tag?: unknown })._tag
    if (typeof tag === "string") return tag
    if (u instanceof Error) return u.name
    return u.constructor?.name ?? "Error"
  }
  return "Error"
}

const messageOf = (u: unknown): string => {
  if (u instanceof Error) return u.message
  if (typeof u === "string") return u
  if (typeof u === "object" && u !== null) {
    const message = (u as { message?: unknown }).message
    if (typeof message === "string") return message
    try {
      return JSON.stringify(u)
    } catch {
      return String(u)
    }
  }
  return String(u)
}

const first = (cause: Cause.Cause<unknown>): Option.Option<unknown> =>
  Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause))

/** What is said of a cause with no failure or defect in it. */
const nothing = (cause: Cause.Cause<unknown>): string =>
  Cause.isInterruptedOnly(cause) ? "Interrupted" : "Internal Server Error"

/** `Type: message` of an error, then of each error it was caused by: names and messages, never frames. */
const chain = (error: unknown): Array<string> => {
  const lines: Array<string> = []
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current !== undefined && current !== null && !seen.has(current) && lines.length < 16) {
    seen.add(current)
    lines.push(`${lines.length === 0 ? "" : "Caused by: "}${nameOf(current)}: ${messageOf(current)}`)
    current = typeof current === "object" ? (current as { readonly cause?: unknown }).cause : undefined
  }
  return lines
}

/**
 * What Python's `str(exc)` gives for the failure: its message (its name when the message is empty).
 * Never a stack trace: messages and logs do not show where the server's code lives.
 *
 * @internal
 */
export const message = (cause: Cause.Cause<unknown>, redact: Redact): string =>
  redact(Option.match(first(cause), {
    onNone: () => nothing(cause),
    onSome: (error) => messageOf(error) || nameOf(error)
  }))

/**
 * The detail of a 500 for the failure. `"stacktrace"` gives every failure and defect of the cause
 * with the chain of errors that caused each, by type and message: stack frames (file paths of the
 * server) are never sent.
 *
 * @internal
 */
export const detail = (cause: Cause.Cause<unknown>, mode: Mode, redact: Redact): string => {
  switch (mode) {
    case "none":
      return "Internal Server Error"
    case "stacktrace": {
      const errors = [...Cause.failures(cause), ...Cause.defects(cause)]
      return redact(errors.length === 0 ? nothing(cause) : errors.flatMap(chain).join("\n"))
    }
    case "exception":
      return redact(Option.match(first(cause), {
        onNone: () => nothing(cause),
        onSome: (error) => `${nameOf(error)}: ${messageOf(error)}`
      }))
  }
}
