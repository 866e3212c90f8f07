/**
 * The conversions of `Format`, for code that does not use Effect: each returns the value, or throws
 * the library's tagged error itself (an `EncodeError`, a `DecodeError` or another
 * `ConversionError`), so `error._tag`, `error.message` and `ConversionError.isConversionError` work
 * on what you catch. Like the index, this module needs only `effect`; `openreward-effect/Promise`
 * re-exports the same functions.
 *
 * ```ts
 * import * as assert from "node:assert"
 * import { ConversionError, Message } from "openreward-effect"
 * import * as Throwing from "openreward-effect/Throwing"
 *
 * const messages = Throwing.encodeOrThrow("openai", [Message.system("Be brief."), Message.user("Hi")])
 * console.log(messages)
 *
 * try {
 *   Throwing.decodeOrThrow("anthropic", { messages: [{ role: "user", content: 42 }] })
 *   assert.fail("unreachable")
 * } catch (error) {
 *   if (!ConversionError.isConversionError(error)) throw error
 *   console.log(error._tag, error.message)
 * }
 * ```
 *
 * ```text output
 * [
 *   { role: 'system', content: 'Be brief.' },
 *   { role: 'user', content: 'Hi' }
 * ]
 * MalformedInput anthropic: message 0: malformed input at $.messages[0].content: Expected a string or an array of content blocks, actual 42
 * ```
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import type * as Conversation from "./Conversation.js"
import * as Format from "./Format.js"
import type * as Provider from "./Provider.js"

/**
 * A conversation in a provider's request shape (`Format.encode`); throws the tagged `EncodeError`
 * where the format cannot hold it.
 *
 * @category encoding
 * @since 0.2.0
 */
export const encodeOrThrow = <P extends Provider.Format>(
  provider: P,
  conversation: Conversation.Conversation
): Format.Wire[P] => Either.getOrThrowWith(Format.encode(provider, conversation), (e) => e)

/**
 * A provider transcript (untrusted JSON) as a canonical conversation (`Format.decode`); throws the
 * tagged `DecodeError`.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeOrThrow = (provider: Provider.Format, input: unknown): Conversation.Conversation =>
  Either.getOrThrowWith(Format.decode(provider, input), (e) => e)

/**
 * Read any source format, `canonical` strictly (`Format.read`); throws the tagged error.
 *
 * @category decoding
 * @since 0.2.0
 */
export const readOrThrow = (source: Format.Source, input: unknown): Conversation.Conversation =>
  Either.getOrThrowWith(Format.read(source, input), (e) => e)

/**
 * Write to any target format: a provider, `canonical`, `prompt` (`Format.write`); throws the tagged
 * error.
 *
 * @category encoding
 * @since 0.2.0
 */
export const writeOrThrow = <T extends Format.Target>(
  target: T,
  conversation: Conversation.Conversation
): Format.Wire[T] => Either.getOrThrowWith(Format.write(target, conversation), (e) => e)

/**
 * Convert between any two formats, `read` then `write` (`Format.convert`); throws the tagged error.
 * The result is what `to` writes (`Format.Wire[T]`).
 *
 * @category conversions
 * @since 0.2.0
 */
export const convertOrThrow = <F extends Format.Source, T extends Format.Target>(
  input: unknown,
  options: { readonly from: F; readonly to: T }
): Format.Wire[T] => Either.getOrThrowWith(Format.convert(input, options), (e) => e)
