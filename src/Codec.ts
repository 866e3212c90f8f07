/**
 * Codecs and the pipelines made of them: the shape every format module shares (`XFormat.codec`,
 * `Conversation.codec`, `Prompt.encoder`), and the two ways to put two of them together, as pure
 * functions ({@link compose}) and as one Effect Schema ({@link toTransformation}).
 *
 * A {@link Decoder} reads untrusted input into a canonical conversation, an {@link Encoder} writes a
 * conversation in its format, and a {@link Codec} does both. Decoding is partial and never throws;
 * encoding is partial too (a format cannot hold every block), and both fail with tagged errors, each
 * format with its own closed union (`XFormat.DecodeError`, `XFormat.EncodeError`). A pipeline keeps
 * those unions: its error is exactly the source's decode errors and the target's encode errors, so
 * `Match.tagsExhaustive` over it names those tags and no others.
 *
 * Laws (checked by property tests for every format, test/utils/codecLaws.ts):
 * 1. `encode(c)` succeeds, or fails with one of the format's encode errors, pointing at an existing
 *    message (and block) of `c`.
 * 2. When `encode(c)` succeeds, `decode(encode(c))` succeeds and equals `c` up to the losses the
 *    format documents (see docs/formats.md); what `encode` writes is the format's `input`.
 * 3. `decode` never throws: it answers a conversation or one of the format's decode errors.
 * 4. The Schema forms ({@link toSchema}, {@link toTransformation}) answer as the functions do: the
 *    same value, or a failure that carries the same tagged error ({@link errorOf}).
 *
 * @example
 * ```ts
 * import { AnthropicFormat, Codec, OpenAiFormat } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as Match from "effect/Match"
 *
 * // decode as OpenAI Chat Completions, encode as Anthropic Messages
 * const toAnthropic = Codec.compose(OpenAiFormat.codec, AnthropicFormat.codec, {
 *   encode: { unsignedReasoning: "text" }
 * })
 *
 * const result = toAnthropic.convert([
 *   { role: "system", content: "Be terse." },
 *   { role: "user", content: "Hi" },
 *   { role: "system", content: "Answer in French." }
 * ])
 *
 * const explain = Match.type<Codec.Pipeline.Error<typeof toAnthropic>>().pipe(
 *   Match.tagsExhaustive({
 *     // OpenAiFormat.DecodeError
 *     MalformedInput: (e) => `not an OpenAI transcript: ${e.message}`,
 *     InvalidToolArguments: (e) => `bad tool arguments: ${e.raw}`,
 *     UnsupportedContent: (e) => `no canonical form: ${e.contentType}`,
 *     // AnthropicFormat.EncodeError
 *     MisplacedBlock: (e) => `misplaced ${e.blockType}`,
 *     UnsupportedBlock: (e) => `anthropic cannot hold ${e.blockType}`,
 *     UnsupportedMessage: (e) => `anthropic cannot hold message ${e.messageIndex}`
 *   })
 * )
 * console.log(Either.match(result, { onLeft: explain, onRight: (wire) => JSON.stringify(wire) }))
 * ```
 *
 * ```text output
 * anthropic cannot hold message 2
 * ```
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as Conversation from "./Conversation.js"
import * as ConversionError from "./ConversionError.js"
import * as Guard from "./internal/guard.js"
import * as Plain from "./internal/plain.js"

// -----------------------------------------------------------------------------
// models
// -----------------------------------------------------------------------------

/**
 * Reads a transcript in one format (untrusted input) into a canonical conversation. Never throws.
 *
 * `input` is everything `decode` reads, as a Schema that only validates (`XFormat.Input`): the
 * encoded side of the Schema forms, and what `JSONSchema.make` of them describes.
 *
 * @category models
 * @since 0.2.0
 */
export interface Decoder<
  Input,
  DecodeOptions = {},
  DecodeError extends ConversionError.ConversionError = ConversionError.DecodeError,
  Name extends string = string
> {
  /** The format's name, as `Format` knows it. */
  readonly name: Name
  /** Everything `decode` reads, as a Schema that only validates. */
  readonly input: Schema.Schema<any, Input>
  /** A transcript (untrusted input) to canonical messages. Never throws. */
  readonly decode: (
    input: unknown,
    options?: DecodeOptions
  ) => Either.Either<Conversation.Conversation, DecodeError>
}

/**
 * Writes a canonical conversation in one format.
 *
 * @category models
 * @since 0.2.0
 */
export interface Encoder<
  Wire,
  EncodeOptions = {},
  EncodeError extends ConversionError.ConversionError = ConversionError.EncodeError,
  Name extends string = string
> {
  /** The format's name, as `Format` knows it. */
  readonly name: Name
  /** Canonical messages to the format's shape. */
  readonly encode: (
    conversation: Conversation.Conversation,
    options?: EncodeOptions
  ) => Either.Either<Wire, EncodeError>
}

/**
 * A format both ways: pure functions returning `Either`, and the Schema of what it reads. `Wire` is
 * what `encode` writes, `Input` what `decode` reads (`Wire` is one of them).
 *
 * @category models
 * @since 0.1.0
 */
export interface Codec<
  Wire,
  EncodeOptions = {},
  DecodeOptions = {},
  EncodeError extends ConversionError.ConversionError = ConversionError.EncodeError,
  DecodeError extends ConversionError.ConversionError = ConversionError.DecodeError,
  Input = Wire,
  Name extends string = string
> extends Encoder<Wire, EncodeOptions, EncodeError, Name>, Decoder<Input, DecodeOptions, DecodeError, Name> {}

/**
 * Any codec, whatever its options: for code that picks one by name at run time (a CLI flag, a
 * record's shape), where the options are checked at run time too.
 *
 * @category models
 * @since 0.1.0
 */
export type Any = Codec<any, any, any, ConversionError.ConversionError, ConversionError.ConversionError, any>

/**
 * Any decoder, whatever its options (see {@link Any}).
 *
 * @category models
 * @since 0.2.0
 */
export type AnyDecoder = Decoder<any, any, ConversionError.ConversionError>

/**
 * Any encoder, whatever its options (see {@link Any}).
 *
 * @category models
 * @since 0.2.0
 */
export type AnyEncoder = Encoder<any, any, ConversionError.ConversionError>

/**
 * What an encoder writes.
 *
 * @category type-level
 * @since 0.2.0
 */
export type WireOf<C> = C extends Encoder<infer W, any, any, any> ? W : never

/**
 * What a decoder reads (the encoded side of its Schema forms).
 *
 * @category type-level
 * @since 0.2.0
 */
export type InputOf<C> = C extends Decoder<infer I, any, any, any> ? I : never

/**
 * The errors an encoder fails with.
 *
 * @category type-level
 * @since 0.2.0
 */
export type EncodeErrorOf<C> = C extends Encoder<any, any, infer E, any> ? E : never

/**
 * The errors a decoder fails with.
 *
 * @category type-level
 * @since 0.2.0
 */
export type DecodeErrorOf<C> = C extends Decoder<any, any, infer E, any> ? E : never

/**
 * An encoder's options.
 *
 * @category type-level
 * @since 0.2.0
 */
export type EncodeOptionsOf<C> = C extends Encoder<any, infer O, any, any> ? O : never

/**
 * A decoder's options.
 *
 * @category type-level
 * @since 0.2.0
 */
export type DecodeOptionsOf<C> = C extends Decoder<any, infer O, any, any> ? O : never

// -----------------------------------------------------------------------------
// constructors
// -----------------------------------------------------------------------------

/**
 * A codec from its parts, with every type read from them. The compiler checks that what `encode`
 * writes is what `input` reads.
 *
 * @example
 * ```ts
 * import { Codec, Conversation, ConversionError, Message } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as Schema from "effect/Schema"
 *
 * // a house format: the canonical wire JSON under a "turns" key
 * const House = Schema.Struct({ turns: Schema.Array(Schema.Unknown) })
 * const house = Codec.make({
 *   name: "house",
 *   input: House,
 *   encode: (conversation: Conversation.Conversation) => Either.right({ turns: Conversation.encode(conversation) }),
 *   decode: (input: unknown) =>
 *     Schema.is(House)(input)
 *       ? Conversation.decode(input.turns)
 *       : Either.left(new ConversionError.MalformedInput({ format: "canonical", path: [], reason: "expected {turns}" }))
 * })
 * console.log(JSON.stringify(Either.getOrThrow(house.encode([Message.user("Hi")]))))
 * ```
 *
 * ```text output
 * {"turns":[{"role":"user","blocks":[{"text":"Hi","detail":null,"type":"text"}],"detail":null}]}
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = <
  const Name extends string,
  Input,
  Wire extends Input,
  EncodeOptions,
  DecodeOptions,
  EncodeError extends ConversionError.ConversionError,
  DecodeError extends ConversionError.ConversionError
>(codec: {
  readonly name: Name
  readonly input: Schema.Schema<any, Input>
  readonly encode: (
    conversation: Conversation.Conversation,
    options?: EncodeOptions
  ) => Either.Either<Wire, EncodeError>
  readonly decode: (
    input: unknown,
    options?: DecodeOptions
  ) => Either.Either<Conversation.Conversation, DecodeError>
}): Codec<Wire, EncodeOptions, DecodeOptions, EncodeError, DecodeError, Input, Name> => ({
  name: codec.name,
  input: codec.input,
  encode: codec.encode,
  decode: codec.decode
})

// -----------------------------------------------------------------------------
// pipelines
// -----------------------------------------------------------------------------

/**
 * Two formats put together: decode with one, encode with the other, the options of both bound.
 * `convert` runs both; `decode` and `encode` are the halves, for code that works on the
 * conversation in between (a dataset's records, tool settings beside the messages).
 *
 * @category models
 * @since 0.2.0
 */
export interface Pipeline<Wire, DecodeError, EncodeError> {
  /** The source format's name. */
  readonly from: string
  /** The target format's name. */
  readonly to: string
  /** The source's `decode`, with its options. */
  readonly decode: (input: unknown) => Either.Either<Conversation.Conversation, DecodeError>
  /** The target's `encode`, with its options. */
  readonly encode: (conversation: Conversation.Conversation) => Either.Either<Wire, EncodeError>
  /** Read in the source format, write in the target's. Never throws. */
  readonly convert: (input: unknown) => Either.Either<Wire, DecodeError | EncodeError>
}

/**
 * @category models
 * @since 0.2.0
 */
export declare namespace Pipeline {
  /**
   * Every error a pipeline's `convert` can fail with: the source's decode errors and the target's
   * encode errors.
   *
   * @category type-level
   * @since 0.2.0
   */
  export type Error<P> = P extends Pipeline<any, infer D, infer E> ? D | E : never

  /**
   * What a pipeline writes.
   *
   * @category type-level
   * @since 0.2.0
   */
  export type Wire<P> = P extends Pipeline<infer W, any, any> ? W : never
}

/**
 * The options of a pipeline: the source's decode options and the target's encode options.
 *
 * @category models
 * @since 0.2.0
 */
export interface PipelineOptions<D, E> {
  readonly decode?: DecodeOptionsOf<D> | undefined
  readonly encode?: EncodeOptionsOf<E> | undefined
}

/**
 * A pipeline: decode with `from`, encode with `to`, each with its options. Its error is exactly
 * `from`'s decode errors and `to`'s encode errors.
 *
 * @example
 * ```ts
 * import { Codec, GoogleFormat, OpenAiFormat } from "openreward-effect"
 * import * as Either from "effect/Either"
 *
 * const toGemini = Codec.compose(OpenAiFormat.codec, GoogleFormat.codec, { encode: { casing: "camel" } })
 * console.log(JSON.stringify(Either.getOrThrow(toGemini.convert([{ role: "user", content: "Hi" }]))))
 * ```
 *
 * ```text output
 * {"systemInstruction":null,"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}
 * ```
 *
 * @category combinators
 * @since 0.2.0
 */
export const compose = <D extends AnyDecoder, E extends AnyEncoder>(
  from: D,
  to: E,
  options?: PipelineOptions<D, E>
): Pipeline<WireOf<E>, DecodeErrorOf<D>, EncodeErrorOf<E>> => {
  const decodeOptions = options?.decode
  const encodeOptions = options?.encode
  const decode = (input: unknown) => from.decode(input, decodeOptions)
  const encode = (conversation: Conversation.Conversation) => to.encode(conversation, encodeOptions)
  return {
    from: from.name,
    to: to.name,
    decode,
    encode,
    convert: (input) => {
      const conversation = decode(input)
      return Either.isLeft(conversation) ? conversation : encode(conversation.right)
    }
  } as Pipeline<WireOf<E>, DecodeErrorOf<D>, EncodeErrorOf<E>>
}

// -----------------------------------------------------------------------------
// schemas
// -----------------------------------------------------------------------------

/**
 * An Effect Schema made of codecs. Its decode and encode fail only with a `ParseError` whose issue
 * carries the codec's tagged error (its message is the error's message); `decodeError` and
 * `encodeError` give that error back, typed: exactly the errors of each direction.
 *
 * `decodeError` and `encodeError` are members of this schema only: `.annotations(...)` and the
 * combinators (`Schema.parseJson`, ...) return a plain Schema. They read any `ParseError` that
 * holds one of this library's errors, so call them on a larger schema's error too (the first one
 * found is answered); a `ParseError` with none (a JSON syntax error from `Schema.parseJson`, a
 * sibling field of a struct) is answered as it is.
 *
 * @category models
 * @since 0.2.0
 */
export interface Transformation<A, I, DecodeError, EncodeError> extends Schema.Schema<A, I> {
  /** The tagged error a failed decode holds, or the `ParseError` itself when it holds none. */
  readonly decodeError: (error: ParseResult.ParseError) => DecodeError | ParseResult.ParseError
  /** The tagged error a failed encode holds, or the `ParseError` itself when it holds none. */
  readonly encodeError: (error: ParseResult.ParseError) => EncodeError | ParseResult.ParseError
}

/**
 * The annotation key under which a failed codec schema's issue holds the tagged error (on the
 * issue's `ast`): what {@link errorOf} reads.
 *
 * @category annotations
 * @since 0.2.0
 */
export const ErrorAnnotationId: unique symbol = Symbol.for("openreward-effect/Codec/Error")

const withError = (ast: AST.AST, error: ConversionError.ConversionError): AST.AST =>
  AST.annotations(ast, { [ErrorAnnotationId]: error })

/** A decode failure carrying `error`: a `Type` issue at `ast`, its message the error's. */
const decodeIssue = (ast: AST.AST, actual: unknown, error: ConversionError.ConversionError): ParseResult.ParseIssue =>
  new ParseResult.Type(withError(ast, error), actual, error.message)

/** An encode failure carrying `error`: a `Forbidden` issue at `ast`, its message the error's. */
const encodeIssue = (ast: AST.AST, actual: unknown, error: ConversionError.ConversionError): ParseResult.ParseIssue =>
  new ParseResult.Forbidden(withError(ast, error), actual, error.message)

const findError = (issue: ParseResult.ParseIssue): ConversionError.ConversionError | undefined => {
  switch (issue._tag) {
    case "Type":
    case "Forbidden": {
      const found = issue.ast.annotations[ErrorAnnotationId]
      return ConversionError.isConversionError(found) ? found : undefined
    }
    case "Pointer":
    case "Refinement":
    case "Transformation":
      return findError(issue.issue)
    case "Composite": {
      const issues: ReadonlyArray<ParseResult.ParseIssue> = Array.isArray(issue.issues)
        ? issue.issues
        : [issue.issues as ParseResult.ParseIssue]
      for (const inner of issues) {
        const found = findError(inner)
        if (found !== undefined) return found
      }
      return undefined
    }
    case "Missing":
    case "Unexpected":
      return undefined
  }
}

/**
 * The tagged error a `ParseError` (or a parse issue) from one of this library's codec schemas
 * holds: `XFormat.schema`, {@link toSchema}, {@link toTransformation}, and any Schema built on them
 * (`Schema.parseJson(...)`, a struct with one as a field). `None` when it holds none, such as a JSON
 * syntax error. Use a {@link Transformation}'s `decodeError` / `encodeError` for the typed error.
 *
 * @example
 * ```ts
 * import { AnthropicFormat, Codec } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as Option from "effect/Option"
 * import * as Schema from "effect/Schema"
 *
 * const read = Schema.decodeUnknownEither(Schema.parseJson(AnthropicFormat.schema))
 * const result = read(`{"messages": [{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]}`)
 * if (Either.isLeft(result)) {
 *   const error = Option.getOrThrow(Codec.errorOf(result.left))
 *   console.log(error._tag, JSON.stringify(error.path))
 * }
 * ```
 *
 * ```text output
 * MisplacedBlock ["messages",0,"content",0]
 * ```
 *
 * @category getters
 * @since 0.2.0
 */
export const errorOf = (
  error: ParseResult.ParseError | ParseResult.ParseIssue
): Option.Option<ConversionError.ConversionError> =>
  Option.fromNullable(findError(error._tag === "ParseError" ? error.issue : error))

const recover = <E>(error: ParseResult.ParseError): E | ParseResult.ParseError =>
  (findError(error.issue) as E | undefined) ?? error

/** A guard for "`schema` decodes `u`": the compiled guard, then the Schema for what it leaves (never throws). */
const decodes = (schema: Schema.Schema<any, any>): (u: unknown) => boolean => {
  let guard: Guard.Guard | undefined
  let slow: ((u: unknown) => boolean) | undefined
  return (u) => {
    guard ??= (() => {
      try {
        return Guard.compile(schema, { onExcessProperty: "ignore" })
      } catch {
        return () => false
      }
    })()
    if (guard(u)) return true
    slow ??= (() => {
      const decode = ParseResult.decodeUnknownEither(schema)
      return (u: unknown) => Either.isRight(decode(u))
    })()
    try {
      return Plain.withinDepth(u, 0) && slow(u)
    } catch {
      return false
    }
  }
}

/**
 * The encoded side of a codec's Schema forms: `codec.input`, answered with `codec.decode`'s tagged
 * error when it does not hold (so that every failure carries one). Encoding passes on what the
 * encoder wrote, as it is: no key is moved or dropped.
 */
const inputSide = (codec: AnyDecoder): Schema.Schema<any, any> => {
  const holds = decodes(codec.input)
  return Schema.declare([], {
    decode: () => (u, _, ast) => {
      if (holds(u)) return ParseResult.succeed(u)
      const decoded = codec.decode(u)
      // `decode` fails on whatever `input` refuses (law 4); `input`'s own issue is the fallback
      return Either.isLeft(decoded)
        ? ParseResult.fail(decodeIssue(ast, u, decoded.left))
        : ParseResult.decodeUnknown(codec.input)(u)
    },
    encode: () => (u) => ParseResult.succeed(u)
  }, {
    title: `${codec.name} input`,
    [AST.SurrogateAnnotationId]: codec.input.ast,
    // what the encoder wrote goes out as it is
    parseOptions: { onExcessProperty: "preserve", propertyOrder: "original" }
  })
}

/**
 * The type side of a pipeline's Schema: what the target reads (its `input`, which holds what it
 * writes). A value it does not hold (given to `Schema.encode`) fails with `codec.decode`'s tagged
 * error, as the encoded side does, so that every failure carries one.
 */
const wireSide = (codec: AnyDecoder): Schema.Schema<any, any> => {
  const holds = decodes(codec.input)
  const check = (u: unknown, ast: AST.AST): Either.Either<unknown, ParseResult.ParseIssue> => {
    if (holds(u)) return ParseResult.succeed(u)
    const decoded = codec.decode(u)
    return ParseResult.fail(
      Either.isLeft(decoded) ? decodeIssue(ast, u, decoded.left) : new ParseResult.Type(ast, u)
    )
  }
  return Schema.declare([], {
    decode: () => (u, _, ast) => check(u, ast),
    encode: () => (u, _, ast) => check(u, ast)
  }, { title: `${codec.name} wire`, [AST.SurrogateAnnotationId]: codec.input.ast })
}

const withRecovery = <A, I, DE, EE>(schema: Schema.Schema<A, I>): Transformation<A, I, DE, EE> =>
  Object.assign(schema, { decodeError: recover<DE>, encodeError: recover<EE> }) as Transformation<A, I, DE, EE>

/**
 * A codec as an Effect Schema whose `Type` is a canonical conversation and whose `Encoded` side is
 * what the codec reads (`codec.input`, `XFormat.Input`), so a format composes in Schema pipelines
 * (`Schema.parseJson`, HTTP bodies, ...) and `Schema.encodedSchema` and `JSONSchema.make` describe
 * the wire. This is `XFormat.schema` (with default options).
 *
 * Decoding runs `codec.decode` on the input as it came (so a key the format reports, such as an
 * unknown request-body key, is never stripped before `decode` sees it); encoding runs
 * `codec.encode` and passes on what it wrote as it is (every key in place and in order: exactly
 * `encode`'s output). Every failure carries `decode`'s or `encode`'s tagged error, which
 * `decodeError` / `encodeError` (or {@link errorOf}) give back; its message is the error's message.
 * Input nested more than 512 levels deep (or cyclic) fails as `decode` answers it, before Effect's
 * parser (which recurses once per level) could overflow the stack.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toSchema = <C extends Codec<any, any, any, any, any, any>>(
  codec: C,
  options?: { readonly encode?: EncodeOptionsOf<C> | undefined; readonly decode?: DecodeOptionsOf<C> | undefined }
): Transformation<Conversation.Conversation, InputOf<C>, DecodeErrorOf<C>, EncodeErrorOf<C>> =>
  withRecovery(
    Schema.transformOrFail(
      inputSide(codec),
      Schema.typeSchema(Conversation.Conversation),
      {
        strict: true,
        decode: (wire, _, ast) => Either.mapLeft(codec.decode(wire, options?.decode), (e) => decodeIssue(ast, wire, e)),
        encode: (conversation, _, ast) =>
          Either.mapLeft(codec.encode(conversation, options?.encode), (e) => encodeIssue(ast, conversation, e))
      }
    ).annotations({ parseOptions: { onExcessProperty: "preserve", propertyOrder: "original" } })
  )

/**
 * A pipeline as one Effect Schema: its `Encoded` side is what `from` reads (`from.input`), its
 * `Type` side what `to` writes. Decoding reads with `from` and writes with `to`, so
 * `Schema.parseJson(Codec.toTransformation(OpenAiFormat.codec, AnthropicFormat.codec))` turns the
 * JSON text of a stored OpenAI transcript into an Anthropic request, as a Schema: in
 * `Stream.mapEffect(Schema.decode(...))`, an HTTP body (`HttpServerRequest.schemaBodyJson`), or a
 * field of a larger Schema. Encoding goes back: reads with `to`, writes with `from`.
 *
 * Every failure carries the codecs' tagged error: `decodeError` gives it back typed as `from`'s
 * decode errors or `to`'s encode errors, `encodeError` as `to`'s decode errors or `from`'s encode
 * errors. The `Type` side is checked as `to` reads it (`to.input`, which holds whatever `to`
 * writes), and `JSONSchema.make` of either side describes that format's wire.
 *
 * @example
 * ```ts
 * import { AnthropicFormat, Codec, OpenAiFormat } from "openreward-effect"
 * import * as Schema from "effect/Schema"
 *
 * const OpenAiToAnthropic = Codec.toTransformation(OpenAiFormat.codec, AnthropicFormat.codec)
 * const request = Schema.decodeUnknownSync(Schema.parseJson(OpenAiToAnthropic))(
 *   `[{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Hi"}]`
 * )
 * console.log(JSON.stringify(request))
 * // and back
 * console.log(JSON.stringify(Schema.encodeSync(OpenAiToAnthropic)(request)))
 * ```
 *
 * ```text output
 * {"system":"Be terse.","messages":[{"role":"user","content":[{"type":"text","text":"Hi"}]}]}
 * [{"role":"system","content":"Be terse."},{"role":"user","content":"Hi"}]
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const toTransformation = <
  F extends Codec<any, any, any, any, any, any>,
  T extends Codec<any, any, any, any, any, any>
>(
  from: F,
  to: T,
  options?: {
    /** `from`'s decode options and `to`'s encode options (decoding). */
    readonly decode?: PipelineOptions<F, T> | undefined
    /** `to`'s decode options and `from`'s encode options (encoding). */
    readonly encode?: PipelineOptions<T, F> | undefined
  }
): Transformation<
  WireOf<T>,
  InputOf<F>,
  DecodeErrorOf<F> | EncodeErrorOf<T>,
  DecodeErrorOf<T> | EncodeErrorOf<F>
> => {
  const forward = compose(from, to, options?.decode)
  const back = compose(to, from, options?.encode)
  return withRecovery(
    Schema.transformOrFail(inputSide(from), wireSide(to), {
      strict: true,
      decode: (input, _, ast) => {
        const conversation = forward.decode(input)
        if (Either.isLeft(conversation)) return ParseResult.fail(decodeIssue(ast, input, conversation.left))
        return Either.mapLeft(forward.encode(conversation.right), (e) => encodeIssue(ast, conversation.right, e))
      },
      encode: (wire, _, ast) => {
        const conversation = back.decode(wire)
        if (Either.isLeft(conversation)) return ParseResult.fail(decodeIssue(ast, wire, conversation.left))
        return Either.mapLeft(back.encode(conversation.right), (e) => encodeIssue(ast, conversation.right, e))
      }
    }).annotations({ parseOptions: { onExcessProperty: "preserve", propertyOrder: "original" } })
  )
}

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
 * @since 0.2.0
 */
export interface Reporting {
  readonly onLoss?: ((loss: ConversionError.Lost) => void) | undefined
}

/**
 * A conversion's result and what it lost.
 *
 * @category models
 * @since 0.2.0
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
 * @since 0.2.0
 */
export const encodeReport = <C extends Codec<any, any, any, any, any, any>>(
  codec: C,
  conversation: Conversation.Conversation,
  options?: EncodeOptionsOf<C>
): Either.Either<Reported<WireOf<C>>, EncodeErrorOf<C>> => {
  const losses: Array<ConversionError.Lost> = []
  return Either.map(
    codec.encode(
      conversation,
      { ...options, onLoss: (loss: ConversionError.Lost) => losses.push(loss) }
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
 * @since 0.2.0
 */
export const decodeReport = <C extends Codec<any, any, any, any, any, any>>(
  codec: C,
  input: unknown,
  options?: DecodeOptionsOf<C>
): Either.Either<Reported<Conversation.Conversation>, DecodeErrorOf<C>> => {
  const losses: Array<ConversionError.Lost> = []
  return Either.map(
    codec.decode(
      input,
      { ...options, onLoss: (loss: ConversionError.Lost) => losses.push(loss) }
    ),
    (value) => ({ value, losses })
  )
}
