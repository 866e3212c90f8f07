/**
 * Every conversation format by name, for code that picks a format at run time (a CLI flag, an HTTP
 * parameter): the four provider codecs and `openai-responses`, plus `canonical` (the library's own
 * wire JSON) and `prompt` (the `/prompt` flattening, encode only).
 *
 * @example
 * ```ts
 * import { Format, Message } from "openreward-effect"
 * import * as Either from "effect/Either"
 *
 * const conversation = [Message.system("Be terse."), Message.user("Hi")]
 * for (const name of Format.providers) {
 *   const result = Format.encode(name, conversation)
 *   console.log(name, Either.isRight(result) ? JSON.stringify(result.right) : result.left.message)
 * }
 * ```
 *
 * ```text output
 * openai [{"role":"system","content":"Be terse."},{"role":"user","content":"Hi"}]
 * openrouter [{"role":"system","content":"Be terse."},{"role":"user","content":"Hi"}]
 * anthropic {"system":"Be terse.","messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}
 * google {"system_instruction":"Be terse.","contents":[{"role":"user","parts":[{"text":"Hi"}]}]}
 * ```
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as AnthropicFormat from "./AnthropicFormat.js"
import type * as Codec from "./Codec.js"
import * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import * as GoogleFormat from "./GoogleFormat.js"
import * as OpenAiFormat from "./OpenAiFormat.js"
import * as OpenAiResponsesFormat from "./OpenAiResponsesFormat.js"
import * as OpenRouterFormat from "./OpenRouterFormat.js"
import * as Prompt from "./Prompt.js"
import * as Provider from "./Provider.js"

/**
 * The wire shape each format produces.
 *
 * @category models
 * @since 0.1.0
 */
export interface Wire {
  readonly openai: OpenAiFormat.Wire
  readonly openrouter: OpenRouterFormat.Wire
  readonly anthropic: AnthropicFormat.Wire
  readonly google: GoogleFormat.Wire
  readonly "openai-responses": OpenAiResponsesFormat.Wire
}

/**
 * The codec of every format.
 *
 * @category constants
 * @since 0.1.0
 */
export const codecs: { readonly [P in Provider.Format]: Codec.Codec<Wire[P], any, any> } = {
  openai: OpenAiFormat.codec,
  openrouter: OpenRouterFormat.codec,
  anthropic: AnthropicFormat.codec,
  google: GoogleFormat.codec,
  "openai-responses": OpenAiResponsesFormat.codec
}

/**
 * The provider names, in a stable order.
 *
 * @category constants
 * @since 0.1.0
 */
export const providers: ReadonlyArray<Provider.Provider> = Provider.all

/**
 * A format to read a conversation from.
 *
 * @category models
 * @since 0.1.0
 */
export type Source = Provider.Format | "canonical"

/**
 * A format to write a conversation to.
 *
 * @category models
 * @since 0.1.0
 */
export type Target = Provider.Format | "canonical" | "prompt"

/**
 * @category constants
 * @since 0.1.0
 */
export const sources: ReadonlyArray<Source> = ["canonical", ...Provider.formats]

/**
 * @category constants
 * @since 0.1.0
 */
export const targets: ReadonlyArray<Target> = [...Provider.formats, "prompt", "canonical"]

/**
 * The options every format's `encode` has, and what {@link encode} passes on: `providerContent`,
 * what to do with a provider block (`Block.ProviderBlock`) of another provider (an `UnsupportedBlock`
 * error by default, `"omit"` to leave it out, `"text"` for its text as `Prompt.flatten` renders it).
 *
 * @category models
 * @since 0.2.0
 */
export interface EncodeOptions {
  readonly providerContent?: "error" | "omit" | "text" | undefined
}

/**
 * The options every format's `decode` has, and what {@link decode} passes on: `providerContent`,
 * what to do with content a provider's API hosts that the canonical model has no block for (an
 * `UnsupportedContent` error by default, `"keep"` to keep it as a provider block).
 *
 * @category models
 * @since 0.2.0
 */
export interface DecodeOptions {
  readonly providerContent?: "refuse" | "keep" | undefined
}

/**
 * Convert a canonical conversation to a provider's wire shape, with that format's default options
 * but for `options`.
 *
 * @category encoding
 * @since 0.1.0
 */
export const encode = <P extends Provider.Format>(
  provider: P,
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Wire[P], ConversionError.EncodeError> => codecs[provider].encode(conversation, options)

/**
 * Read a provider transcript (untrusted JSON) into a canonical conversation.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (
  provider: Provider.Format,
  input: unknown,
  options?: DecodeOptions
): Either.Either<Conversation.Conversation, ConversionError.DecodeError> => codecs[provider].decode(input, options)

/**
 * Read a conversation from any source format: `canonical` decodes strictly (unknown block types are
 * errors; provider blocks are canonical blocks, read whatever `options` say).
 *
 * @category decoding
 * @since 0.1.0
 */
export const read = (
  source: Source,
  input: unknown,
  options?: DecodeOptions
): Either.Either<Conversation.Conversation, ConversionError.ConversionError> =>
  source === "canonical" ? Conversation.decode(input) : decode(source, input, options)

/**
 * Write a conversation to any target format as JSON-ready data: a provider's wire shape, the
 * canonical wire JSON, or the flattened `/prompt` blocks (`options` are the provider's).
 *
 * @category encoding
 * @since 0.1.0
 */
export const write = (
  target: Target,
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<unknown, ConversionError.ConversionError> => {
  switch (target) {
    case "canonical":
      return Either.right(Conversation.encode(conversation))
    case "prompt":
      return Either.right(Prompt.encode(Prompt.flatten(conversation)))
    default:
      return encode(target, conversation, options)
  }
}

/**
 * Convert between any two formats: `read` then `write`.
 *
 * @category conversions
 * @since 0.1.0
 */
export const convert = (
  input: unknown,
  options: {
    readonly from: Source
    readonly to: Target
    readonly decode?: DecodeOptions | undefined
    readonly encode?: EncodeOptions | undefined
  }
): Either.Either<unknown, ConversionError.ConversionError> =>
  Either.flatMap(
    read(options.from, input, options.decode),
    (conversation) => write(options.to, conversation, options.encode)
  )
