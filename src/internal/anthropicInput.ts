/**
 * Turning a Schema `ParseError` from reading provider wire JSON into one `MalformedInput` that names
 * the most specific place the input went wrong.
 *
 * A wire schema is full of unions (`content: string | Array<Block>`, block unions keyed on `type`),
 * and a failed union reports one issue per member it tried. The member that matched the input's
 * shape fails deepest, so the deepest issue (the first of them, on a tie) is the one to report: for
 * `{"type": "text", "text": 5}` that is `["text"]: Expected string, actual 5`, not the shallower
 * "Expected string" of the `content: string` member.
 *
 * Written for the Anthropic format; nothing in it is specific to Anthropic except where the message
 * and block indices sit in a path, which the caller describes with {@link Locator}.
 *
 * @internal
 */
import * as ParseResult from "effect/ParseResult"
import * as ConversionError from "../ConversionError.js"
import type * as Provider from "../Provider.js"

/**
 * Where messages live in the decoded input: the path prefix of the messages array (`["messages"]`
 * for a request body, `[]` for a bare array) and the key of a message's block list (`"content"`).
 */
export interface Locator {
  readonly messages: ConversionError.Path
  readonly blocks: string
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
  return key === locator.blocks && typeof blockIndex === "number" ? { messageIndex, blockIndex } : { messageIndex }
}

/** The deepest issue of a parse error (the first one on a tie), as a `MalformedInput`. */
export const malformed = (
  error: ParseResult.ParseError,
  format: Provider.Provider,
  locator: Locator
): ConversionError.MalformedInput => {
  let best: { readonly path: ConversionError.Path; readonly message: string } | undefined
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const path = issue.path.filter((p): p is string | number => typeof p !== "symbol")
    if (best === undefined || path.length > best.path.length) best = { path, message: issue.message }
  }
  const path = best?.path ?? []
  return new ConversionError.MalformedInput({
    format,
    path,
    reason: best?.message ?? error.message,
    ...locate(path, locator)
  })
}
