/**
 * The shape every provider format module shares, and the adapter that turns a pair of pure
 * conversion functions into an Effect Schema.
 *
 * Laws (checked by property tests for every format):
 * 1. `encode(c)` succeeds, or fails with an {@link ConversionError.EncodeError} that points at an
 *    existing message (and block) of `c`.
 * 2. When `encode(c)` succeeds, `decode(encode(c))` succeeds and equals `c` up to the losses the
 *    format documents (see docs/formats.md).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import * as Plain from "./internal/plain.js"
import type * as Provider from "./Provider.js"

/**
 * A provider format: pure, total functions both ways, returning `Either`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Codec<
  Wire,
  EncodeOptions = {},
  DecodeOptions = {},
  EncodeError extends ConversionError.EncodeError = ConversionError.EncodeError,
  DecodeError extends ConversionError.DecodeError = ConversionError.DecodeError
> {
  /** The format this codec speaks. */
  readonly name: Provider.Format
  /** Canonical messages to the provider's request shape. */
  readonly encode: (
    conversation: Conversation.Conversation,
    options?: EncodeOptions
  ) => Either.Either<Wire, EncodeError>
  /** A provider transcript (untrusted JSON) to canonical messages. Never throws. */
  readonly decode: (
    input: unknown,
    options?: DecodeOptions
  ) => Either.Either<Conversation.Conversation, DecodeError>
}

/**
 * Any codec, whatever its options.
 *
 * @category models
 * @since 0.1.0
 */
export type Any = Codec<unknown, any, any>

/**
 * An Effect Schema whose `Type` is a canonical conversation and whose `Encoded` side is the
 * provider's wire shape as the format reads it, `input` (its `XFormat.Input`), so a format composes
 * in Schema pipelines (`Schema.parseJson`, HTTP bodies, ...) and `Schema.encodedSchema` and
 * `JSONSchema.make` describe the wire.
 *
 * `input` only validates. Decoding runs its Schema decode first, then `codec.decode` on the value as
 * it came in (so a key the format reports, such as an unknown request-body key, is never stripped
 * before `decode` sees it); encoding runs `codec.encode`, then the Schema encode of `input` on what
 * it wrote, which leaves every key in place and in order (except a key named `__proto__` inside
 * user data such as tool-call input: Effect's Schema encode rebuilds objects, and that key does not
 * survive it; `codec.encode` keeps it). So for input that is structurally wrong, the answer is
 * `input`'s parse issue; for input that is well formed but cannot be converted, and for any encoding
 * failure, the parse issue's message is the tagged error's message. Use the codec functions directly
 * when you need the tagged error itself, or for untrusted input: a Schema decode recurses once per
 * level of nesting and overflows the stack (a `RangeError`) on a JSON value nested about a thousand
 * levels deep where `input` walks one (tool-call input), where `decode` first rejects input nested
 * more than 512 levels as a `MalformedInput`.
 *
 * The compiler checks that what the codec writes (`Wire`) is what `input` accepts.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toSchema = <A, I, Wire extends A, EncodeOptions, DecodeOptions>(
  codec: Codec<Wire, EncodeOptions, DecodeOptions, ConversionError.EncodeError, ConversionError.DecodeError>,
  input: Schema.Schema<A, I>,
  options?: { readonly encode?: EncodeOptions; readonly decode?: DecodeOptions }
): Schema.Schema<Conversation.Conversation, I> =>
  Schema.transformOrFail(
    bounded(input),
    Schema.typeSchema(Conversation.Conversation),
    {
      strict: true,
      decode: (_, __, ast, wire) =>
        Either.mapLeft(codec.decode(wire, options?.decode), (e) => new ParseResult.Type(ast, wire, e.message)),
      encode: (conversation, _, ast) =>
        Either.mapLeft(
          codec.encode(conversation, options?.encode),
          (e) => new ParseResult.Forbidden(ast, conversation, e.message)
        )
    }
    // what encode wrote goes out as it is (its Schema encode leaves no key out and moves none)
  ).annotations({ parseOptions: { onExcessProperty: "preserve", propertyOrder: "original" } })

/**
 * `input`, read only once the value is known to nest no deeper than `maxDepth` (512) levels, the
 * limit every decoder applies. Effect's parser and its error formatter both recurse into a value, so
 * on one nested thousands deep (`JSON.parse` builds it without complaint) they would overflow the
 * stack; here such a value fails at once with a message, as `decode` answers it. Everything that
 * reads a schema's structure (JSON Schema, arbitraries, ...) reads `input` (the surrogate).
 */
const bounded = <A, I>(input: Schema.Schema<A, I>): Schema.Schema<A, I> =>
  Schema.declare([], {
    decode: () => (u, options, ast) =>
      Plain.withinDepth(u, 0)
        ? ParseResult.decodeUnknown(input)(u, options)
        : ParseResult.fail(new ParseResult.Type(ast, u, `nested more than ${Plain.maxDepth} levels deep (or cyclic)`)),
    encode: () => (u, options, ast) =>
      Plain.withinDepth(u, 0)
        ? ParseResult.encodeUnknown(input)(u, options)
        : ParseResult.fail(new ParseResult.Type(ast, u, `nested more than ${Plain.maxDepth} levels deep (or cyclic)`))
  }, { [AST.SurrogateAnnotationId]: input.ast }) as unknown as Schema.Schema<A, I>

// -----------------------------------------------------------------------------
// losses
// -----------------------------------------------------------------------------

/**
 * The option every format's `EncodeOptions` and `DecodeOptions` take: `onLoss` is told, once the
 * conversion has succeeded, each thing it left out by the format's documented rules (a
 * {@link ConversionError.Lost}: an ignored request parameter or key, a message's `name`, a tool
 * result's `is_error` a format has no flag for, a reasoning signature, a `detail`, ...). Without it
 * a conversion reports nothing and costs nothing more; a conversion that fails reports nothing.
 *
 * @category models
 * @since 0.3.0
 */
export interface Reporting {
  readonly onLoss?: ((loss: ConversionError.Lost) => void) | undefined
}

/**
 * A conversion's result and what it lost.
 *
 * @category models
 * @since 0.3.0
 */
export interface Reported<A> {
  readonly value: A
  readonly losses: ReadonlyArray<ConversionError.Lost>
}

/**
 * `codec.encode`, with what it lost: the pure encode, `Either` as always, its losses collected
 * through `onLoss` (see {@link Reporting}).
 *
 * @example
 * ```ts
 * import { Block, Codec, Message, OpenAiFormat } from "openreward-effect"
 * import * as Either from "effect/Either"
 *
 * const conversation = [
 *   Message.assistant([Block.toolCall("c1", "lookup", { id: 7 })]),
 *   Message.user([Block.toolResult("c1", "not found", { isError: true })])
 * ]
 * const { losses } = Either.getOrThrow(Codec.encodeReport(OpenAiFormat.codec, conversation))
 * for (const loss of losses) console.log(loss.message)
 * ```
 *
 * ```text output
 * openai: message 1, block 0: is_error is lost at $[1].blocks[0].is_error (encode): a Chat Completions tool message has no error flag (put the error in the text)
 * ```
 *
 * @category losses
 * @since 0.3.0
 */
export const encodeReport = <
  Wire,
  EncodeOptions extends Reporting,
  DecodeOptions,
  EE extends ConversionError.EncodeError,
  DE extends ConversionError.DecodeError
>(
  codec: Codec<Wire, EncodeOptions, DecodeOptions, EE, DE>,
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Reported<Wire>, EE> => {
  const losses: Array<ConversionError.Lost> = []
  return Either.map(
    codec.encode(
      conversation,
      { ...options, onLoss: (loss: ConversionError.Lost) => losses.push(loss) } as unknown as EncodeOptions
    ),
    (value) => ({ value, losses })
  )
}

/**
 * `codec.decode`, with what it lost (see {@link Reporting}): keys of the input the canonical form
 * has no place for, each at its path in the input.
 *
 * @example
 * ```ts
 * import { Codec, OpenAiFormat } from "openreward-effect"
 * import * as Either from "effect/Either"
 *
 * const line = { model: "gpt-4o", messages: [{ role: "user", content: "Hi", name: "ada" }] }
 * const { losses } = Either.getOrThrow(Codec.decodeReport(OpenAiFormat.codec, line))
 * for (const loss of losses) console.log(loss.message)
 * ```
 *
 * ```text output
 * openai: model is lost at $.model (decode): a request parameter of the Chat Completions API, not part of the conversation
 * openai: message 0: name is lost at $.messages[0].name (decode): a canonical message has no speaker name
 * ```
 *
 * @category losses
 * @since 0.3.0
 */
export const decodeReport = <
  Wire,
  EncodeOptions,
  DecodeOptions extends Reporting,
  EE extends ConversionError.EncodeError,
  DE extends ConversionError.DecodeError
>(
  codec: Codec<Wire, EncodeOptions, DecodeOptions, EE, DE>,
  input: unknown,
  options?: DecodeOptions
): Either.Either<Reported<Conversation.Conversation>, DE> => {
  const losses: Array<ConversionError.Lost> = []
  return Either.map(
    codec.decode(
      input,
      { ...options, onLoss: (loss: ConversionError.Lost) => losses.push(loss) } as unknown as DecodeOptions
    ),
    (value) => ({ value, losses })
  )
}
