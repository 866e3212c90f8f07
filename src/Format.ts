/**
 * Every conversation format by name, for code that picks a format at run time (a CLI flag, an HTTP
 * parameter): the four provider codecs, `openai-responses` and `sharegpt`, plus `canonical` (the library's own
 * wire JSON) and `prompt` (the `/prompt` flattening, encode only). Each function is typed by the
 * names it is given: `Format.convert(input, { from: "openai", to: "anthropic" })` is an
 * `Either<AnthropicFormat.Wire, OpenAiFormat.DecodeError | AnthropicFormat.EncodeError>`.
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
import type * as Either from "effect/Either"
import * as AnthropicFormat from "./AnthropicFormat.js"
import * as Codec from "./Codec.js"
import * as Conversation from "./Conversation.js"
import * as GoogleFormat from "./GoogleFormat.js"
import * as Registry from "./internal/formats.js"
import * as OpenAiFormat from "./OpenAiFormat.js"
import * as OpenAiResponsesFormat from "./OpenAiResponsesFormat.js"
import * as OpenRouterFormat from "./OpenRouterFormat.js"
import * as Prompt from "./Prompt.js"
import * as Provider from "./Provider.js"
import * as ShareGptFormat from "./ShareGptFormat.js"

// -----------------------------------------------------------------------------
// the registry
// -----------------------------------------------------------------------------

/**
 * The codec of every provider format, by name.
 *
 * @category models
 * @since 0.2.0
 */
export interface Codecs {
  readonly openai: typeof OpenAiFormat.codec
  readonly openrouter: typeof OpenRouterFormat.codec
  readonly anthropic: typeof AnthropicFormat.codec
  readonly google: typeof GoogleFormat.codec
  readonly "openai-responses": typeof OpenAiResponsesFormat.codec
  readonly sharegpt: typeof ShareGptFormat.codec
}

/**
 * Every format a conversation can be read from ({@link Source}), by name: the provider codecs and
 * `canonical` (`Conversation.codec`).
 *
 * @category models
 * @since 0.2.0
 */
export interface Decoders extends Codecs {
  readonly canonical: typeof Conversation.codec
}

/**
 * Every format a conversation can be written to ({@link Target}), by name: the provider codecs,
 * `canonical` (`Conversation.codec`) and `prompt` (`Prompt.encoder`).
 *
 * @category models
 * @since 0.2.0
 */
export interface Encoders extends Decoders {
  readonly prompt: typeof Prompt.encoder
}

/**
 * A format to read a conversation from.
 *
 * @category models
 * @since 0.1.0
 */
export type Source = keyof Decoders

/**
 * A format to write a conversation to.
 *
 * @category models
 * @since 0.1.0
 */
export type Target = keyof Encoders

/**
 * What each format writes: a provider's wire shape, the canonical wire JSON, or the `/prompt` blocks.
 *
 * @category models
 * @since 0.1.0
 */
export type Wire = { readonly [T in Target]: Codec.WireOf<Encoders[T]> }

/**
 * The errors reading `F` can fail with (`XFormat.DecodeError`, or `ConversionError.ValidationError`
 * for `canonical`).
 *
 * @category type-level
 * @since 0.2.0
 */
export type DecodeErrorOf<F extends Source> = Codec.DecodeErrorOf<Decoders[F]>

/**
 * The errors writing `T` can fail with (`XFormat.EncodeError`; none for `canonical` and `prompt`).
 *
 * @category type-level
 * @since 0.2.0
 */
export type EncodeErrorOf<T extends Target> = Codec.EncodeErrorOf<Encoders[T]>

/**
 * The options of reading `F` (`XFormat.DecodeOptions`).
 *
 * @category type-level
 * @since 0.2.0
 */
export type DecodeOptionsOf<F extends Source> = Codec.DecodeOptionsOf<Decoders[F]>

/**
 * The options of writing `T` (`XFormat.EncodeOptions`).
 *
 * @category type-level
 * @since 0.2.0
 */
export type EncodeOptionsOf<T extends Target> = Codec.EncodeOptionsOf<Encoders[T]>

/**
 * The codec of every provider format.
 *
 * @category constants
 * @since 0.1.0
 */
export const codecs: Codecs = {
  openai: OpenAiFormat.codec,
  openrouter: OpenRouterFormat.codec,
  anthropic: AnthropicFormat.codec,
  google: GoogleFormat.codec,
  "openai-responses": OpenAiResponsesFormat.codec,
  sharegpt: ShareGptFormat.codec
}

/**
 * The decoder of every {@link Source}.
 *
 * @category constants
 * @since 0.2.0
 */
export const decoders: Decoders = { ...codecs, canonical: Conversation.codec }

/**
 * The encoder of every {@link Target}.
 *
 * @category constants
 * @since 0.2.0
 */
export const encoders: Encoders = { ...decoders, prompt: Prompt.encoder }

/**
 * The codec of a format, imported when it is first asked for: the same value as
 * {@link encoders}`[name]`, for code that should load only the formats it uses (the command line
 * imports only the codecs a command names, through this table). Importing `Format` itself loads every
 * format; this function is also exported alone by the internal registry the CLI reads, so that one
 * table names where every codec is.
 *
 * @category constructors
 * @since 0.2.0
 */
export const load: <N extends Target>(name: N) => Promise<Encoders[N]> = Registry.load

/**
 * The provider names, in a stable order.
 *
 * @category constants
 * @since 0.1.0
 */
export const providers: ReadonlyArray<Provider.Provider> = Provider.all

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

// -----------------------------------------------------------------------------
// converting
// -----------------------------------------------------------------------------

const decodeWith = <D extends Codec.AnyDecoder>(
  decoder: D,
  input: unknown,
  options?: Codec.DecodeOptionsOf<D>
): Either.Either<Conversation.Conversation, Codec.DecodeErrorOf<D>> =>
  Codec.compose(decoder, Prompt.encoder, { decode: options }).decode(input)

const encodeWith = <E extends Codec.AnyEncoder>(
  encoder: E,
  conversation: Conversation.Conversation,
  options?: Codec.EncodeOptionsOf<E>
): Either.Either<Codec.WireOf<E>, Codec.EncodeErrorOf<E>> =>
  Codec.compose(Conversation.codec, encoder, { encode: options }).encode(conversation)

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
 * `Codec.WireOf<Encoders[T]>` is `Wire[T]` for every name (test/types/Compose.test-d.ts), which the
 * compiler does not see for a generic `T`.
 */
const exactly = <W, E, T extends Target>(
  result: Either.Either<W, E>
): Either.Either<Wire[T], E> => result as unknown as Either.Either<Wire[T], E>

/**
 * Convert a canonical conversation to a provider's wire shape.
 *
 * @category encoding
 * @since 0.1.0
 */
export const encode = <P extends Provider.Format>(
  provider: P,
  conversation: Conversation.Conversation,
  options?: EncodeOptionsOf<P>
): Either.Either<Wire[P], EncodeErrorOf<P>> => exactly(encodeWith(encoders[provider], conversation, options))

/**
 * Read a provider transcript (untrusted JSON) into a canonical conversation.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = <P extends Provider.Format>(
  provider: P,
  input: unknown,
  options?: DecodeOptionsOf<P>
): Either.Either<Conversation.Conversation, DecodeErrorOf<P>> => decodeWith(decoders[provider], input, options)

/**
 * Read a conversation from any source format: `canonical` decodes strictly (unknown block types are
 * errors; provider blocks are canonical blocks, read whatever `options` say).
 *
 * @category decoding
 * @since 0.1.0
 */
export const read = <F extends Source>(
  source: F,
  input: unknown,
  options?: DecodeOptionsOf<F>
): Either.Either<Conversation.Conversation, DecodeErrorOf<F>> => decodeWith(decoders[source], input, options)

/**
 * Write a conversation to any target format as JSON-ready data: a provider's wire shape, the
 * canonical wire JSON, or the flattened `/prompt` blocks (`options` are the provider's).
 *
 * @category encoding
 * @since 0.1.0
 */
export const write = <T extends Target>(
  target: T,
  conversation: Conversation.Conversation,
  options?: EncodeOptionsOf<T>
): Either.Either<Wire[T], EncodeErrorOf<T>> => exactly(encodeWith(encoders[target], conversation, options))

/**
 * Convert between any two formats: `read` then `write`, typed by the two names. The result is what
 * `to` writes, and the error exactly `from`'s decode errors and `to`'s encode errors
 * (`Codec.compose(Format.decoders[from], Format.encoders[to])` as one call).
 *
 * @example
 * ```ts
 * import { Format } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as Match from "effect/Match"
 *
 * const result = Format.convert(
 *   [{ role: "user", content: "Hi" }, { role: "assistant", content: null, reasoning_content: "Easy." }],
 *   { from: "openai", to: "google" }
 * )
 * // Either<GoogleFormat.Wire, OpenAiFormat.DecodeError | GoogleFormat.EncodeError>
 * const message = Either.match(result, {
 *   onRight: (wire) => JSON.stringify(wire.contents),
 *   onLeft: Match.typeTags<Format.DecodeErrorOf<"openai"> | Format.EncodeErrorOf<"google">>()({
 *     MalformedInput: (e) => e.message,
 *     InvalidToolArguments: (e) => e.message,
 *     UnsupportedContent: (e) => e.message,
 *     MisplacedBlock: (e) => e.message,
 *     UnsupportedBlock: (e) => `google has no place for ${e.blockType}: ${e.reason}`,
 *     UnsupportedMessage: (e) => e.message,
 *     UnmatchedToolResult: (e) => e.message
 *   })
 * })
 * console.log(message)
 * ```
 *
 * ```text output
 * google has no place for reasoning: Gemini has no input form for plain-text reasoning; encode with { reasoning: "thought" } to send it as thought parts, or use the anthropic format
 * ```
 *
 * @category conversions
 * @since 0.1.0
 */
export const convert = <F extends Source, T extends Target>(
  input: unknown,
  options: {
    readonly from: F
    readonly to: T
    readonly decode?: DecodeOptionsOf<F> | undefined
    readonly encode?: EncodeOptionsOf<T> | undefined
  }
): Either.Either<Wire[T], DecodeErrorOf<F> | EncodeErrorOf<T>> =>
  exactly(Codec.compose(decoders[options.from], encoders[options.to], options).convert(input))
