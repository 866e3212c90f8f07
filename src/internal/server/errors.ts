/**
 * Turning failures of environment code into the texts the reference sends: `"Type: message"` in a
 * 500's detail (or nothing, or a stack trace, as configured), the bare message in an SSE `error`
 * event. Every text passes through the session's redactor, so a secret that leaked into an error
 * message is never sent or logged.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Encoding from "effect/Encoding"
import * as Option from "effect/Option"
import { reprString } from "./python.js"

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

const encoder = new TextEncoder()

/** JSON's escaping of a string's inside, with every character past ASCII as `\uXXXX` (Python's `json.dumps`). */
const asciiJson = (text: string): string =>
  JSON.stringify(text).slice(1, -1).replace(
    /[^\x00-\x7f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  )

const tryEncode = (encode: (text: string) => string, text: string): string => {
  try {
    return encode(text)
  } catch {
    return "" // a lone surrogate, which URI encoding refuses
  }
}

const base64Url = (text: string): string => text.replace(/\+/g, "-").replace(/\//g, "_")

/**
 * Base64 writes three bytes as four characters, so a secret inside longer encoded text is spelled
 * one of three ways, by where it starts within a group of three bytes; each way, the characters
 * that encode only the secret's bytes (the "core") appear whatever surrounds it. A core shorter
 * than this is left out: it would match text that has nothing to do with the secret.
 */
const minimumCore = 8

const base64Forms = (secret: string): Array<string> => {
  const bytes = encoder.encode(secret)
  const forms: Array<string> = []
  for (let offset = 0; offset < 3; offset++) {
    const shifted = new Uint8Array(offset + bytes.length)
    shifted.set(bytes, offset)
    const encoded = Encoding.encodeBase64(shifted)
    if (offset === 0) forms.push(encoded, encoded.replace(/=+$/, ""))
    const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 4
    const core = encoded.slice(offset === 0 ? 0 : 4, end)
    if (core.length >= minimumCore) forms.push(core)
  }
  return [...forms, ...forms.map(base64Url)]
}

/**
 * Every spelling a secret takes in text the server writes or logs: as it is, JSON-escaped (once,
 * twice, and ASCII-only as Python writes it), as a Python string literal writes it, URL-encoded
 * (by component, as a URI, as a form, with upper- or lower-case hex), and base64 (standard and
 * URL-safe, padded or not, at each of the three places it can start within a base64 group).
 *
 * @internal
 */
export const spellings = (secret: string): Array<string> => {
  const json = JSON.stringify(secret).slice(1, -1)
  const component = tryEncode(encodeURIComponent, secret)
  const forms = [
    secret,
    json,
    JSON.stringify(json).slice(1, -1),
    asciiJson(secret),
    reprString(secret).slice(1, -1),
    component,
    component.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    tryEncode(encodeURI, secret),
    new URLSearchParams([["", secret]]).toString().slice(1),
    ...base64Forms(secret)
  ]
  return [...new Set(forms)].filter((form) => form !== "")
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A redactor that replaces every spelling of each secret value ({@link spellings}) with
 * `[REDACTED]`, longest first.
 *
 * @internal
 */
export const redactor = (values: ReadonlyArray<string>): Redact => {
  const forms = [...new Set(values.filter((v) => v !== "").flatMap(spellings))].sort((a, b) => b.length - a.length)
  if (forms.length === 0) return noRedaction
  const pattern = new RegExp(forms.map(escapeRegExp).join("|"), "g")
  return (text) => text.replace(pattern, "[REDACTED]")
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
