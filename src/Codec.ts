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
import * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
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
 * provider's wire shape, so a format composes in Schema pipelines (`Schema.parseJson`, HTTP
 * bodies, ...). Conversion errors become parse issues whose message is the tagged error's message;
 * use the codec functions directly when you need the tagged error itself.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toSchema = <Wire, EncodeOptions, DecodeOptions>(
  codec: Codec<Wire, EncodeOptions, DecodeOptions, ConversionError.EncodeError, ConversionError.DecodeError>,
  options?: { readonly encode?: EncodeOptions; readonly decode?: DecodeOptions }
): Schema.Schema<Conversation.Conversation, Wire> =>
  Schema.transformOrFail(
    Schema.Unknown as unknown as Schema.Schema<Wire>,
    Schema.typeSchema(Conversation.Conversation),
    {
      strict: true,
      decode: (wire, _, ast) =>
        Either.mapLeft(codec.decode(wire, options?.decode), (e) => new ParseResult.Type(ast, wire, e.message)),
      encode: (conversation, _, ast) =>
        Either.mapLeft(
          codec.encode(conversation, options?.encode),
          (e) => new ParseResult.Forbidden(ast, conversation, e.message)
        )
    }
  ).annotations({ identifier: `${codec.name}Conversation` })
