/**
 * Every way a conversion can fail, as one closed union of tagged errors.
 *
 * Each error names where it happened (`messageIndex`, `blockIndex` where a block is involved, and the
 * full `path` into the input) and carries a readable `reason`. Match them exhaustively:
 *
 * @example
 * ```ts
 * import { Block, ConversionError, Format, Message } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as Match from "effect/Match"
 *
 * const explain = Match.type<ConversionError.ConversionError>().pipe(
 *   Match.tagsExhaustive({
 *     MalformedInput: (e) => `bad input at ${e.path.join(".")}`,
 *     UnknownBlockType: (e) => `unknown block ${e.blockType}`,
 *     MisplacedBlock: (e) => `${e.blockType} cannot sit in a ${e.role} turn`,
 *     UnsupportedBlock: (e) => `${e.format} cannot hold a ${e.blockType} block`,
 *     UnsupportedMessage: (e) => `${e.format} cannot hold this ${e.role} message`,
 *     UnmatchedToolResult: (e) => `no tool call ${e.toolCallId}`,
 *     InvalidToolArguments: (e) => `arguments are not a JSON object: ${e.raw}`,
 *     UnsupportedContent: (e) => `${e.format} ${e.contentType} has no canonical form`
 *   })
 * )
 *
 * const result = Format.encode("google", [Message.assistant([Block.reasoning("Check the carrier.")])])
 * if (Either.isLeft(result)) console.log(explain(result.left))
 * ```
 *
 * ```text output
 * google cannot hold a reasoning block
 * ```
 *
 * All errors are `Schema.TaggedError`s, so they encode to JSON and decode back (for example across
 * an HTTP boundary) with {@link ConversionError}.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { withArticle } from "./internal/article.js"
import * as Json from "./Json.js"
import * as Provider from "./Provider.js"

const TypeIdKey = "~openreward-effect/ConversionError"

/**
 * @category symbols
 * @since 0.1.0
 */
export const TypeId: typeof TypeIdKey = TypeIdKey

/**
 * @category symbols
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

/**
 * Where an error happened: the keys and indices from the root of the input.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Path = Schema.Array(Schema.Union(Schema.String, Schema.Number))

/**
 * @category models
 * @since 0.1.0
 */
export type Path = typeof Path.Type

/**
 * The TypeScript LLM toolkits this library bridges to: `effect-ai` (`@effect/ai`'s `Prompt`, the
 * `openreward-effect/EffectAi` module) and `ai-sdk` (the Vercel AI SDK's `ModelMessage[]`, the
 * `openreward-effect/AiSdk` module).
 *
 * @category schemas
 * @since 0.2.0
 */
export const Bridge = Schema.Literal("effect-ai", "ai-sdk").annotations({ identifier: "Bridge" })

/**
 * @category models
 * @since 0.2.0
 */
export type Bridge = typeof Bridge.Type

/**
 * A format conversions go to and come from: a provider's wire shape (`openai-responses` included) or a
 * toolkit's messages.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Target = Schema.Union(Provider.Format, Bridge)

/**
 * @category models
 * @since 0.2.0
 */
export type Target = typeof Target.Type

/**
 * The format an error is about: a provider, a toolkit ({@link Bridge}), or `canonical` for the
 * library's own wire shape.
 *
 * @category schemas
 * @since 0.1.0
 */
export const FormatName = Schema.Union(Provider.Format, Bridge, Schema.Literal("canonical"))

/**
 * @category models
 * @since 0.1.0
 */
export type FormatName = typeof FormatName.Type

const where = (messageIndex: number | undefined, blockIndex: number | undefined): string =>
  messageIndex === undefined
    ? ""
    : blockIndex === undefined
    ? `message ${messageIndex}: `
    : `message ${messageIndex}, block ${blockIndex}: `

const formatPath = (path: Path): string =>
  path.length === 0 ? "$" : "$" + path.map((p) => typeof p === "number" ? `[${p}]` : `.${p}`).join("")

/**
 * The input does not have the expected shape: a missing or mistyped field, an unexpected key, or text
 * that is not JSON. `format` says which wire shape was expected.
 *
 * @category errors
 * @since 0.1.0
 */
export class MalformedInput extends Schema.TaggedError<MalformedInput>(
  "openreward-effect/ConversionError/MalformedInput"
)("MalformedInput", {
  format: FormatName,
  path: Path,
  messageIndex: Schema.optional(Schema.Number),
  blockIndex: Schema.optional(Schema.Number),
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${where(this.messageIndex, this.blockIndex)}malformed input at ${
      formatPath(this.path)
    }: ${this.reason}`
  }
}

/**
 * A block whose `type` this library does not know (strict decoding only; lenient decoding skips it).
 *
 * @category errors
 * @since 0.1.0
 */
export class UnknownBlockType extends Schema.TaggedError<UnknownBlockType>(
  "openreward-effect/ConversionError/UnknownBlockType"
)("UnknownBlockType", {
  path: Path,
  messageIndex: Schema.Number,
  blockIndex: Schema.Number,
  blockType: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  get reason(): string {
    return `unknown block type ${JSON.stringify(this.blockType)}`
  }
  override get message(): string {
    return `canonical: ${where(this.messageIndex, this.blockIndex)}${this.reason} at ${formatPath(this.path)}`
  }
}

/**
 * A block in a message whose role may not carry it: reasoning and tool calls belong in assistant
 * turns, tool results in user turns, provider blocks in either, and system turns hold only text and
 * images.
 *
 * @category errors
 * @since 0.1.0
 */
export class MisplacedBlock extends Schema.TaggedError<MisplacedBlock>(
  "openreward-effect/ConversionError/MisplacedBlock"
)("MisplacedBlock", {
  /** The transcript format the block was read from; absent for canonical input. */
  format: Schema.optional(FormatName),
  path: Path,
  messageIndex: Schema.Number,
  blockIndex: Schema.Number,
  role: Schema.String,
  blockType: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  get reason(): string {
    return `${withArticle(JSON.stringify(this.blockType))} block is not valid in ${
      withArticle(JSON.stringify(this.role))
    } message: ${
      this.blockType === "provider"
        ? "provider blocks belong in user and assistant turns"
        : "reasoning and tool_call blocks belong in assistant turns, tool_result blocks in user turns"
    }`
  }
  override get message(): string {
    return `${this.format ?? "canonical"}: ${where(this.messageIndex, this.blockIndex)}${this.reason}`
  }
}

/**
 * A canonical block the target format cannot represent, such as reasoning for `google` or an image
 * inside a tool result for `openai`.
 *
 * @category errors
 * @since 0.1.0
 */
export class UnsupportedBlock extends Schema.TaggedError<UnsupportedBlock>(
  "openreward-effect/ConversionError/UnsupportedBlock"
)("UnsupportedBlock", {
  format: Target,
  path: Path,
  messageIndex: Schema.Number,
  blockIndex: Schema.Number,
  blockType: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${where(this.messageIndex, this.blockIndex)}cannot represent ${
      withArticle(JSON.stringify(this.blockType))
    } block: ${this.reason}`
  }
}

/**
 * A whole message the target format cannot represent, such as a system turn after the conversation
 * has started, for formats that hoist the system prompt.
 *
 * @category errors
 * @since 0.1.0
 */
export class UnsupportedMessage extends Schema.TaggedError<UnsupportedMessage>(
  "openreward-effect/ConversionError/UnsupportedMessage"
)("UnsupportedMessage", {
  format: Target,
  path: Path,
  messageIndex: Schema.Number,
  role: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${where(this.messageIndex, undefined)}cannot represent this ${
      JSON.stringify(this.role)
    } message: ${this.reason}`
  }
}

/**
 * A tool result that no tool call in the conversation answers, where the format needs the pairing
 * (Google addresses results by function name).
 *
 * @category errors
 * @since 0.1.0
 */
export class UnmatchedToolResult extends Schema.TaggedError<UnmatchedToolResult>(
  "openreward-effect/ConversionError/UnmatchedToolResult"
)("UnmatchedToolResult", {
  /** The provider format, or `canonical` when `Conversation.append` checks the pairing. */
  format: FormatName,
  path: Path,
  messageIndex: Schema.Number,
  blockIndex: Schema.Number,
  toolCallId: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${where(this.messageIndex, this.blockIndex)}tool result ${
      JSON.stringify(this.toolCallId)
    } has no matching tool call: ${this.reason}`
  }
}

/**
 * Tool-call arguments in a provider transcript that are not a JSON object (OpenAI sends them as a
 * JSON string, which models sometimes get wrong). The raw text is kept.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidToolArguments extends Schema.TaggedError<InvalidToolArguments>(
  "openreward-effect/ConversionError/InvalidToolArguments"
)("InvalidToolArguments", {
  format: Target,
  path: Path,
  messageIndex: Schema.Number,
  blockIndex: Schema.Number,
  raw: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${where(this.messageIndex, this.blockIndex)}invalid tool arguments ${
      JSON.stringify(this.raw)
    }: ${this.reason}`
  }
}

/**
 * Provider content with no canonical form, such as audio, files, image URLs or redacted thinking.
 *
 * @category errors
 * @since 0.1.0
 */
export class UnsupportedContent extends Schema.TaggedError<UnsupportedContent>(
  "openreward-effect/ConversionError/UnsupportedContent"
)("UnsupportedContent", {
  format: Target,
  path: Path,
  messageIndex: Schema.Number,
  blockIndex: Schema.optional(Schema.Number),
  contentType: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${where(this.messageIndex, this.blockIndex)}${
      JSON.stringify(this.contentType)
    } content has no canonical form: ${this.reason}`
  }
}

/**
 * Something a conversion left out, by its format's documented rules: a key decoding ignores (a
 * request parameter, a message's `name`, a fine-tuning `weight`, a key the format does not have), a
 * field encoding has no place for (`is_error` in a Chat Completions tool message, a reasoning
 * signature, a block's `detail`). It is not an error: a conversion reports its losses only when
 * asked (`onLoss`, or `Codec.encodeReport` / `Codec.decodeReport`), and succeeds. It is a
 * `Schema.TaggedError` so that a caller who wants no loss at all (`convert --strict`) can fail
 * with it as it is.
 *
 * `direction` says what `path` is a path into: the input (`decode`), or the canonical conversation
 * (`encode`). `field` names what was lost (a key, such as `"is_error"` or `"model"`).
 *
 * @category models
 * @since 0.2.0
 */
export class Lost extends Schema.TaggedError<Lost>("openreward-effect/ConversionError/Lost")("Lost", {
  format: FormatName,
  direction: Schema.Literal("decode", "encode"),
  path: Path,
  messageIndex: Schema.optional(Schema.Number),
  blockIndex: Schema.optional(Schema.Number),
  field: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${where(this.messageIndex, this.blockIndex)}${this.field} is lost at ${
      formatPath(this.path)
    } (${this.direction}): ${this.reason}`
  }
}

/**
 * The conversion errors with the given tags: what a format's `EncodeError`, `DecodeError`,
 * `ResponseError` and `StreamError` are made of, from its lists of tags
 * (`AnthropicFormat.encodeErrors`, `AnthropicFormat.responseErrors`, ...).
 *
 * @category models
 * @since 0.1.0
 */
export type Tagged<Tag extends (ConversionError | ResponseError)["_tag"]> = Extract<
  ConversionError | ResponseError,
  { readonly _tag: Tag }
>

/**
 * Errors from reading canonical input.
 *
 * @category models
 * @since 0.1.0
 */
export type ValidationError = MalformedInput | UnknownBlockType | MisplacedBlock

/**
 * Errors from converting canonical messages to a provider format.
 *
 * @category models
 * @since 0.1.0
 */
export type EncodeError = MisplacedBlock | UnsupportedBlock | UnsupportedMessage | UnmatchedToolResult

/**
 * Errors from reading a provider transcript into canonical messages.
 *
 * @category models
 * @since 0.1.0
 */
export type DecodeError =
  | MalformedInput
  | MisplacedBlock
  | UnmatchedToolResult
  | InvalidToolArguments
  | UnsupportedContent

/**
 * The closed union of every conversion error.
 *
 * @category models
 * @since 0.1.0
 */
export type ConversionError =
  | MalformedInput
  | UnknownBlockType
  | MisplacedBlock
  | UnsupportedBlock
  | UnsupportedMessage
  | UnmatchedToolResult
  | InvalidToolArguments
  | UnsupportedContent

/**
 * Schema of the union, for sending errors over the wire.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ConversionError = Schema.Union(
  MalformedInput,
  UnknownBlockType,
  MisplacedBlock,
  UnsupportedBlock,
  UnsupportedMessage,
  UnmatchedToolResult,
  InvalidToolArguments,
  UnsupportedContent
)

/**
 * Every tag of the union.
 *
 * @category constants
 * @since 0.1.0
 */
export const tags: ReadonlyArray<ConversionError["_tag"]> = [
  "MalformedInput",
  "UnknownBlockType",
  "MisplacedBlock",
  "UnsupportedBlock",
  "UnsupportedMessage",
  "UnmatchedToolResult",
  "InvalidToolArguments",
  "UnsupportedContent"
]

/**
 * Is `u` one of this library's conversion errors?
 *
 * @category guards
 * @since 0.1.0
 */
export const isConversionError = (u: unknown): u is ConversionError =>
  typeof u === "object" && u !== null && TypeId in u

/**
 * The readable reason of any conversion error, without the location prefix.
 *
 * @category getters
 * @since 0.1.0
 */
export const reason = (error: ConversionError): string => error.reason

// -----------------------------------------------------------------------------
// reading model responses
// -----------------------------------------------------------------------------

/**
 * A model response with several choices (OpenAI `n > 1`) or candidates (Gemini `candidateCount`)
 * and no `choice` / `candidate` option to say which one to read: `decodeResponse` never picks one
 * silently.
 *
 * @category errors
 * @since 0.2.0
 */
export class MultipleChoices extends Schema.TaggedError<MultipleChoices>(
  "openreward-effect/ConversionError/MultipleChoices"
)("MultipleChoices", {
  format: Provider.Provider,
  path: Path,
  /** The `index` of every choice or candidate the response holds. */
  indices: Schema.Array(Schema.Number),
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${this.reason}`
  }
}

/**
 * A model response with no answer to read: no choice or candidate at all, or none with the index
 * asked for, a prompt the provider blocked (Gemini `promptFeedback.blockReason`, which comes with
 * no candidates; `blockReason` holds it), or a Responses API response that is not finished yet
 * (`status` `queued` or `in_progress`: a background response).
 *
 * @category errors
 * @since 0.2.0
 */
export class NoAnswer extends Schema.TaggedError<NoAnswer>(
  "openreward-effect/ConversionError/NoAnswer"
)("NoAnswer", {
  format: Provider.Format,
  path: Path,
  blockReason: Schema.optional(Schema.String),
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${this.reason}`
  }
}

/**
 * A stream of response events that does not make one answer: it ended before the provider's final
 * event (an interrupted stream), or an event does not fit what came before it (a delta for a block
 * that was never started). `eventIndex` is the event's position in the stream.
 *
 * @category errors
 * @since 0.2.0
 */
export class IncompleteStream extends Schema.TaggedError<IncompleteStream>(
  "openreward-effect/ConversionError/IncompleteStream"
)("IncompleteStream", {
  format: Provider.Format,
  eventIndex: Schema.optional(Schema.Number),
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${this.eventIndex === undefined ? "" : `event ${this.eventIndex}: `}${this.reason}`
  }
}

/**
 * The provider answered with an error instead of a model turn: an error body (`{error: {...}}`, what
 * the APIs send with a failed status, and gateways also with 200), a stream's error event or chunk,
 * or a response whose `status` is `failed`. `code` is the provider's error code as it sent it (a
 * string such as `insufficient_quota`, or a number such as OpenRouter's `502`), `reason` its message,
 * and `body` the provider's error object as sent. `eventIndex` is the event's position in a stream.
 *
 * @category errors
 * @since 0.2.0
 */
export class ProviderError extends Schema.TaggedError<ProviderError>(
  "openreward-effect/ConversionError/ProviderError"
)("ProviderError", {
  format: Provider.Format,
  path: Path,
  eventIndex: Schema.optional(Schema.Number),
  code: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
  body: Schema.optional(Json.JsonValue),
  reason: Schema.String
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.format}: ${this.eventIndex === undefined ? "" : `event ${this.eventIndex}: `}the provider ` +
      `answered with an error${this.code === undefined ? "" : ` (${this.code})`}: ${this.reason}`
  }
}

/**
 * Errors from reading a model response (`decodeResponse`) or its stream: everything a transcript
 * decode can report, plus a response with several answers and none chosen, one with no answer, a
 * stream that does not make one answer, and the provider's own error.
 *
 * @category models
 * @since 0.2.0
 */
export type ResponseError = DecodeError | MultipleChoices | NoAnswer | IncompleteStream | ProviderError

/**
 * Schema of {@link ResponseError}, for sending errors over the wire.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ResponseError = Schema.Union(
  MalformedInput,
  MisplacedBlock,
  UnmatchedToolResult,
  InvalidToolArguments,
  UnsupportedContent,
  MultipleChoices,
  NoAnswer,
  IncompleteStream,
  ProviderError
)

/**
 * A turn appended after an assistant turn with tool calls that does not answer every one of them
 * (`Conversation.append`): the providers reject a request where a tool call has no result in the
 * next turn.
 *
 * @category errors
 * @since 0.2.0
 */
export class UnansweredToolCall extends Schema.TaggedError<UnansweredToolCall>(
  "openreward-effect/ConversionError/UnansweredToolCall"
)("UnansweredToolCall", {
  path: Path,
  messageIndex: Schema.Number,
  /** The ids of the calls with no result. */
  toolCallIds: Schema.Array(Schema.String),
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `canonical: ${where(this.messageIndex, undefined)}${this.reason}`
  }
}

/**
 * Errors from `Conversation.append`.
 *
 * @category models
 * @since 0.2.0
 */
export type AppendError = MisplacedBlock | UnmatchedToolResult | UnansweredToolCall
