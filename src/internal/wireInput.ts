/**
 * Reading untrusted provider JSON safely: the mapping of a Schema `ParseError` to one
 * `MalformedInput` that names the most specific place the input went wrong, the wrapper that keeps
 * a decoder from throwing, and the pieces the conversions share (JSON copies, tool arguments).
 *
 * A wire schema is full of unions (`content: string | Array<Block>`, block unions keyed on `type`),
 * and a failed union reports one issue per member it tried. The member that matched the input's
 * shape fails deepest, so the deepest issue (the first of them, on a tie) is the one to report: for
 * `{"type": "text", "text": 5}` that is `["text"]: Expected string, actual 5`, not the shallower
 * "Expected string" of the `content: string` member.
 *
 * Shared by the provider decoders; nothing in it is specific to one format except where the message
 * and block indices sit in a path, which the caller describes with {@link Locator}.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Block from "../Block.js"
import * as ConversionError from "../ConversionError.js"
import * as Json from "../Json.js"
import type * as Provider from "../Provider.js"
import { issueOf } from "./parseIssue.js"
import { isPlainObject, maxDepth, tooDeep } from "./plain.js"

/**
 * Where messages live in the decoded input: the path prefix of the messages array (`["messages"]`
 * for a request body, `[]` for a bare array) and the keys of a message's block lists (`"content"`).
 */
export interface Locator {
  readonly messages: ConversionError.Path
  readonly blocks: ReadonlyArray<string>
}

const startsWith = (path: ConversionError.Path, prefix: ConversionError.Path): boolean =>
  prefix.length <= path.length && prefix.every((p, i) => path[i] === p)

/** The message and block index a path points into, if any. */
export const locate = (
  path: ConversionError.Path,
  locator: Locator
): { readonly messageIndex?: number; readonly blockIndex?: number } => {
  if (!startsWith(path, locator.messages)) return {}
  const [messageIndex, key, blockIndex] = path.slice(locator.messages.length)
  if (typeof messageIndex !== "number") return {}
  return typeof key === "string" && locator.blocks.includes(key) && typeof blockIndex === "number"
    ? { messageIndex, blockIndex }
    : { messageIndex }
}

/** The deepest issue of a parse error (the first one on a tie), as a `MalformedInput`. */
export const malformed = (
  error: ParseResult.ParseError,
  format: Provider.Format,
  locator: Locator
): ConversionError.MalformedInput => {
  const { message, path } = issueOf(error, "deepest")
  return new ConversionError.MalformedInput({ format, path, reason: message, ...locate(path, locator) })
}

/** A thrown value as text, without trusting it (a null-prototype object has no `toString`). */
const describeThrown = (thrown: unknown): string => {
  try {
    return thrown instanceof Error ? thrown.message : String(thrown)
  } catch {
    return "an unprintable value"
  }
}

/**
 * Run a decoder so that it cannot throw, whatever the input: untrusted input can hold what no JSON
 * parser makes and what Schema's error formatting cannot print (a `BigInt`, a null-prototype object
 * where a string belongs, a throwing getter, a revoked `Proxy`). Such input is a `MalformedInput` at
 * the root, whose reason quotes what was thrown. Every decoder's public entry goes through this.
 */
export const total = <A, E>(
  format: ConversionError.FormatName,
  decode: () => Either.Either<A, E>
): Either.Either<A, E | ConversionError.MalformedInput> => {
  // a plain try/catch, not `Either.try`: this runs on every decode, and `Either.try`'s options object
  // would allocate its named `try`/`catch` closures per call (docs/performance.md, "Fixed cost per call")
  try {
    return decode()
  } catch (thrown) {
    return Either.left(
      new ConversionError.MalformedInput({
        format,
        path: [],
        reason: `the input could not be read: ${describeThrown(thrown)}`
      })
    )
  }
}

// -----------------------------------------------------------------------------
// the fast decoders' shared pieces (docs/performance.md, "What changed", decoders)
// -----------------------------------------------------------------------------

const hasOwnProperty = Object.prototype.hasOwnProperty

/**
 * A copy of a JSON value found at `depth`, as the Schema decode of `Json.JsonValue` makes it: new
 * arrays and objects, keys in the same order. `undefined` means "leave this input to the Schema
 * decode": the value is not JSON made of arrays and plain objects, or nests deeper than
 * {@link maxDepth} (or is cyclic). An own `__proto__` key (which `JSON.parse` makes) stays an own data
 * key of the copy, as `Json.JsonValue`'s decode keeps it; no prototype is changed.
 */
export const copyJson = (value: unknown, depth: number): Json.JsonValue | undefined => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value
    case "number":
      return Number.isFinite(value) ? value : undefined
    case "object": {
      if (value === null) return null
      if (!Array.isArray(value)) return copyJsonObject(value, depth)
      if (depth > maxDepth) return undefined
      const items: ReadonlyArray<unknown> = value
      const copy: Array<Json.JsonValue> = new Array(items.length)
      for (let i = 0; i < items.length; i++) {
        const item = copyJson(items[i], depth + 1)
        if (item === undefined) return undefined
        copy[i] = item
      }
      return copy
    }
    default:
      return undefined
  }
}

/** A copy of a JSON object found at `depth`, as {@link copyJson} makes it. */
export const copyJsonObject = (value: unknown, depth: number): Json.JsonObject | undefined => {
  if (!isPlainObject(value) || depth > maxDepth) return undefined
  const copy: { [key: string]: Json.JsonValue } = {}
  // the own keys, in `Object.keys` order, without allocating their array
  for (const key in value) {
    if (!hasOwnProperty.call(value, key)) continue
    const item = copyJson(value[key], depth + 1)
    if (item === undefined) return undefined
    if (key === "__proto__") {
      Object.defineProperty(copy, key, { value: item, writable: true, enumerable: true, configurable: true })
    } else copy[key] = item
  }
  return copy
}

/** Where in a transcript a conversion error is: the full path, and the message and block it is in. */
export interface Located {
  readonly format: ConversionError.UnsupportedContent["format"]
  readonly path: ConversionError.Path
  readonly messageIndex: number
  readonly blockIndex?: number | undefined
}

/** Content with no canonical form, at `at`. */
export const unsupportedContent = (
  at: Located,
  contentType: string,
  reason: string
): Either.Either<never, ConversionError.UnsupportedContent> =>
  Either.left(
    new ConversionError.UnsupportedContent({
      format: at.format,
      path: at.path,
      messageIndex: at.messageIndex,
      ...(at.blockIndex === undefined ? {} : { blockIndex: at.blockIndex }),
      contentType,
      reason
    })
  )

/** Tool-call arguments that are no JSON object, at `at` (block 0 when the call has no index). */
export const invalidToolArguments = (
  at: Located,
  raw: string,
  reason: string
): Either.Either<never, ConversionError.InvalidToolArguments> =>
  Either.left(
    new ConversionError.InvalidToolArguments({
      format: at.format,
      path: at.path,
      messageIndex: at.messageIndex,
      blockIndex: at.blockIndex ?? 0,
      raw,
      reason
    })
  )

/** How an unexpected input value is named in an error message. */
export const describe = (u: unknown): string =>
  u === null
    ? "null"
    : Array.isArray(u)
    ? "an array"
    : typeof u === "object"
    ? "an object"
    : typeof u === "string"
    ? JSON.stringify(u)
    : typeof u === "number" || typeof u === "boolean" || typeof u === "bigint"
    ? String(u)
    : typeof u

const isJsonObject = Schema.is(Json.JsonObject)

/**
 * Tool-call arguments sent as a JSON string (`""` is `{}`), as a JSON object, or why they are not
 * one (the reason of an `InvalidToolArguments`). A valid object is checked in one depth-bounded
 * walk; the deep walk runs only to say why a value failed.
 */
export const parseToolArguments = (raw: string): Either.Either<Json.JsonObject, string> => {
  if (raw === "") return Either.right({})
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return Either.left("not valid JSON")
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return Either.left(`expected a JSON object, actual ${describe(parsed)}`)
  }
  if (isJsonObject(parsed)) return Either.right(parsed)
  // the rest of a conversation is limited to this depth too
  return Either.left(
    tooDeep(parsed) !== undefined ? `nested more than ${maxDepth} levels deep` : "a number is too large to represent"
  )
}

/**
 * What a decoder does with tool-call arguments that are not a JSON object (the formats'
 * `invalidToolArguments` option): `"error"` (or absent) an `InvalidToolArguments`, `"keep"` the call
 * with input `{}` and the text under `detail.invalid_arguments` ({@link Block.toolCallWithInvalidArguments}).
 */
export type InvalidArguments = "error" | "keep" | undefined

/**
 * A tool call from arguments sent as a JSON string (`""` is `{}`): the call, or by `policy` the
 * call kept with its invalid arguments, or an `InvalidToolArguments` at `at()` (made only then).
 */
export const toolCallOfArguments = (
  at: () => Located,
  call: { readonly id: string; readonly name: string; readonly raw: string },
  policy: InvalidArguments,
  options?: Block.Options
): Either.Either<Block.ToolCallBlock, ConversionError.InvalidToolArguments> => {
  const input = parseToolArguments(call.raw)
  if (Either.isRight(input)) return Either.right(Block.toolCall(call.id, call.name, input.right, options))
  return policy === "keep"
    ? Either.right(
      Block.toolCallWithInvalidArguments(call.id, call.name, { raw: call.raw, reason: input.left }, options)
    )
    : invalidToolArguments(at(), call.raw, input.left)
}
