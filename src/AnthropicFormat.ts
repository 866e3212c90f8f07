/**
 * The Anthropic Messages format: a conversation as `{system, messages}`, ready to spread into a
 * `messages.create` request, and back.
 *
 * **Encoding** reproduces the reference SDK's `convert_messages(messages, "anthropic")` (openreward
 * 0.1.167) key for key:
 *
 * - the leading system messages are hoisted into `system`: their text blocks joined with `"\n\n"`,
 *   or `null` when there is no text; an image there, or a system message after the first
 *   non-system turn, is an error;
 * - every other message becomes `{role, content: [...]}`, one to one (consecutive same-role turns are
 *   not merged; the API combines them);
 * - text → `text`, image → `image` with a base64 `source`, reasoning → `thinking` (`signature` only
 *   when non-empty), tool call → `tool_use`, tool result → `tool_result` (`is_error` only when true),
 *   with the tool results moved to the front of their user message, as the API requires.
 *
 * **Decoding** reads what Anthropic clients really send and store: the reference's `{system,
 * messages}`, a whole request body (its request parameters, `model`, `max_tokens`, `tools`, ..., listed in `requestKeys`, are ignored; any other key is left out and reported as lost (`Codec.decodeReport`), except a key of another format's conversation, a `MalformedInput` naming it) or a bare
 * `messages` array; string or block content; `system` as a string or text blocks; mid-conversation
 * `role: "system"` messages; `redacted_thinking` as a reasoning block with empty text, its data as
 * the signature and `detail: {anthropic: {redacted: true}}` (encoded back as `redacted_thinking`).
 * Content with no canonical form (URL and file images, documents, citations, server-tool blocks) is
 * an `UnsupportedContent` error, never dropped.
 *
 * @example
 * ```ts
 * import { AnthropicFormat, Block, Message } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as assert from "node:assert"
 *
 * const wire = AnthropicFormat.encode([
 *   Message.system("You are a support agent for Acme."),
 *   Message.user("My order hasn't arrived."),
 *   Message.assistant([Block.toolCall("tc_1", "lookup_order", { id: "4411" })]),
 *   Message.user([Block.text("Thanks."), Block.toolResult("tc_1", "stalled at hub")])
 * ])
 * console.dir(Either.getOrThrow(wire).messages[2], { depth: null })
 * ```
 *
 * ```text output
 * {
 *   role: 'user',
 *   content: [
 *     {
 *       type: 'tool_result',
 *       tool_use_id: 'tc_1',
 *       content: [ { type: 'text', text: 'stalled at hub' } ]
 *     },
 *     { type: 'text', text: 'Thanks.' }
 *   ]
 * }
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import * as Codec from "./Codec.js"
import type * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import * as decoder from "./internal/anthropic/decode.js"
import * as encoder from "./internal/anthropic/encode.js"
import * as responseDecoder from "./internal/anthropic/response.js"
import * as internal from "./internal/anthropic/schema.js"
import * as streamDecoder from "./internal/anthropic/stream.js"
import * as losses from "./internal/encodeLosses.js"
import * as Report from "./internal/report.js"
import type * as ModelResponse from "./ModelResponse.js"

/**
 * The provider this module speaks.
 *
 * @category constants
 * @since 0.1.0
 */
export const name = internal.name

// -----------------------------------------------------------------------------
// wire: what encode produces
// -----------------------------------------------------------------------------

/**
 * A text block.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TextBlock = internal.TextBlock

/**
 * @category models
 * @since 0.1.0
 */
export interface TextBlock extends Schema.Schema.Type<typeof TextBlock> {}

/**
 * Inline image data: bare base64 `data` and its `media_type`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Base64ImageSource = internal.Base64ImageSource

/**
 * @category models
 * @since 0.1.0
 */
export interface Base64ImageSource extends Schema.Schema.Type<typeof Base64ImageSource> {}

/**
 * An image block with inline (base64) data: the only image source encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImageBlock = internal.ImageBlock

/**
 * @category models
 * @since 0.1.0
 */
export interface ImageBlock extends Schema.Schema.Type<typeof ImageBlock> {}

/**
 * Extended-thinking text, with the `signature` Anthropic needs to accept it back (absent when the
 * canonical reasoning has none).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ThinkingBlock = internal.ThinkingBlock

/**
 * @category models
 * @since 0.1.0
 */
export interface ThinkingBlock extends Schema.Schema.Type<typeof ThinkingBlock> {}

/**
 * A client tool call.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolUseBlock = internal.ToolUseBlock

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolUseBlock extends Schema.Schema.Type<typeof ToolUseBlock> {}

/**
 * What a tool result holds: text and images.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolResultContent = internal.ToolResultContent

/**
 * @category models
 * @since 0.1.0
 */
export type ToolResultContent = TextBlock | ImageBlock

/**
 * The result of a tool call, answering the `tool_use` with the same id. `is_error` is present only
 * when true.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolResultBlock = internal.ToolResultBlock

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolResultBlock extends Schema.Schema.Type<typeof ToolResultBlock> {}

/**
 * Encrypted thinking: opaque `data` with no text. Read as a reasoning block with empty text, the
 * data as its signature and `detail: {anthropic: {redacted: true}}`, and encoded back from that.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RedactedThinkingBlock = internal.RedactedThinkingBlock

/**
 * Any block encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentBlock = internal.ContentBlock

/**
 * @category models
 * @since 0.1.0
 */
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | ThinkingBlock
  | typeof RedactedThinkingBlock.Type
  | ToolUseBlock
  | ToolResultBlock

/**
 * One entry of `messages`. Encoding emits `role: "system"` only with `laterSystem: "inline"`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const WireMessage = internal.WireMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface WireMessage extends Schema.Schema.Type<typeof WireMessage> {}

/**
 * The encoded conversation: the `system` parameter (a string, or text blocks with `system:
 * "blocks"`; `null` when the conversation has no leading system text) and the `messages`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Wire = internal.Wire

/**
 * @category models
 * @since 0.1.0
 */
export interface Wire extends Schema.Schema.Type<typeof Wire> {}

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

/**
 * A text block as decoding reads it. `citations` are accepted so that non-empty ones can be
 * reported (they have no canonical form); `cache_control` and other keys are ignored.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputTextBlock = internal.InputTextBlock

/**
 * @category models
 * @since 0.1.0
 */
export interface InputTextBlock extends Schema.Schema.Type<typeof InputTextBlock> {}

/**
 * An image by URL (no canonical form).
 *
 * @category schemas
 * @since 0.1.0
 */
export const UrlImageSource = internal.UrlImageSource

/**
 * An image uploaded with the Files API (no canonical form).
 *
 * @category schemas
 * @since 0.1.0
 */
export const FileImageSource = internal.FileImageSource

/**
 * Every image source the API accepts.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImageSource = internal.ImageSource

/**
 * An image block as decoding reads it: any source.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputImageBlock = internal.InputImageBlock

/**
 * @category models
 * @since 0.1.0
 */
export interface InputImageBlock extends Schema.Schema.Type<typeof InputImageBlock> {}

/**
 * A thinking block as decoding reads it: the signature may be absent or `null`, and the thinking
 * text may be empty (adaptive thinking returns `""` with a signature).
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputThinkingBlock = internal.InputThinkingBlock

/**
 * Any other block (`document`, `search_result`, `server_tool_use`, `web_search_tool_result`, ...):
 * only its `type` is read, to report it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const OtherBlock = internal.OtherBlock

/**
 * A tool result as decoding reads it: `content` may be absent, a string, or blocks; `is_error` may
 * be absent or `null`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputToolResultBlock = internal.InputToolResultBlock

/**
 * @category models
 * @since 0.1.0
 */
export interface InputToolResultBlock extends Schema.Schema.Type<typeof InputToolResultBlock> {}

/**
 * Any block decoding reads.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputBlock = internal.InputBlock

/**
 * @category models
 * @since 0.1.0
 */
export type InputBlock = typeof InputBlock.Type

/**
 * One message as decoding reads it: `content` is a string or blocks; `role: "system"` is a
 * mid-conversation system message.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputMessage = internal.InputMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface InputMessage extends Schema.Schema.Type<typeof InputMessage> {}

/**
 * A text block of the `system` parameter. A system prompt does not cite, so `citations` must be
 * absent, `null` or empty.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SystemTextBlock = internal.SystemTextBlock

/**
 * A request body as decoding reads it: `system` (a string or text blocks) and `messages`. Every
 * request parameter ({@link requestKeys}: `model`, `max_tokens`, `tools`, `thinking`, ...) is ignored; a
 * key that is neither is a `MalformedInput`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Request = internal.Request

/**
 * @category models
 * @since 0.1.0
 */
export interface Request extends Schema.Schema.Type<typeof Request> {}

/**
 * The keys of a request body: where the conversation is (`system`, `messages`) and the Messages
 * API's other request parameters (`MessageCreateParams` of `@anthropic-ai/sdk` 1.16, with
 * `temperature`, `top_k`, `top_p`, `mcp_servers` and `betas` of earlier versions and the beta API),
 * which decoding accepts and ignores. Any other key is left out and reported as lost
 * (`Codec.decodeReport`), except a key of another format's conversation: a `MalformedInput` naming
 * it (an OpenAI body read as Anthropic says so, instead of losing its system prompt).
 *
 * @category schemas
 * @since 0.1.0
 */
export const requestKeys: { readonly conversation: ReadonlyArray<string>; readonly parameters: ReadonlyArray<string> } =
  internal.requestKeys

/**
 * Everything {@link decode} reads, as one Schema that only validates: a request body (`system`,
 * `messages`, and the request parameters of {@link requestKeys}, accepted and ignored) or a bare
 * `messages` array. It is the encoded side of {@link schema}, so `JSONSchema.make` and
 * `Schema.encodedSchema` of that describe the wire. `Input` is its type too.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Input = internal.Input

/**
 * @category models
 * @since 0.2.0
 */
export type Input = typeof Input.Type

// -----------------------------------------------------------------------------
// options
// -----------------------------------------------------------------------------

/**
 * Encoding options. Every default reproduces the reference SDK.
 *
 * @category models
 * @since 0.1.0
 */
export interface EncodeOptions extends Codec.Reporting {
  /**
   * The shape of the hoisted system prompt. `"string"` (default): the text blocks of the leading
   * system messages joined with `"\n\n"`. `"blocks"`: one text block per canonical text block, so
   * that a `cache_control` breakpoint can be put on one of them.
   */
  readonly system?: "string" | "blocks" | undefined
  /**
   * What to do with a system message after the first non-system turn. `"error"` (default): an
   * `UnsupportedMessage` error. `"user"`: send it in place as a user turn with the same content.
   * `"inline"`: send it in place as a `role: "system"` message (mid-conversation system messages,
   * Claude Opus 4.8 and later; text only).
   */
  readonly laterSystem?: "error" | "user" | "inline" | undefined
  /**
   * What to do with an assistant reasoning block without a signature, which the Messages API rejects
   * (400) as a `thinking` block: `"send"` (default, as the reference): a `thinking` block without
   * `signature`, for servers that accept it. `"text"`: a text block. `"omit"`: leave it out (a turn
   * of only such blocks is then empty). `"fail"`: an `UnsupportedBlock` error.
   */
  readonly unsignedReasoning?: "send" | "text" | "omit" | "fail" | undefined
  /**
   * What to do with a provider block (`Block.ProviderBlock`) of another provider: `"error"`
   * (default): an `UnsupportedBlock` error; `"omit"`: leave it out; `"text"`: a text block of what
   * `Prompt.flatten` renders for it. Anthropic's own provider blocks are always written back as
   * they came.
   */
  readonly providerContent?: "error" | "omit" | "text" | undefined
  /**
   * A tool-call id that an earlier call already has (long agent trajectories reuse them), which
   * the Messages API rejects (`tool_use` ids must be unique). `"error"` (default): an `UnsupportedBlock` error at the second call. `"rename"`: every reused
   * call is sent as `<id>~<n>` (n = 2, 3, ...; a name no call has), and each result with the name of
   * the call it pairs with by position (the first earlier call with its id that is unanswered, else
   * the last), so calls and results stay paired.
   */
  readonly reusedToolCallIds?: "error" | "rename" | undefined
}

/**
 * Decoding options.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecodeOptions extends Codec.Reporting {
  /**
   * What to do with content the canonical model has no block for: server tools' calls and results
   * (`server_tool_use`, `web_search_tool_result`, `code_execution_tool_result`, ...), MCP calls,
   * `compaction`, `fallback`, a `tool_use` that Anthropic's code execution made and ran, documents,
   * images by URL or file: `"refuse"` (default): an `UnsupportedContent` error naming it; `"keep"`:
   * a provider block (`Block.provider("anthropic", type, block)`) holding the block as it came,
   * which `encode` writes back unchanged.
   */
  readonly providerContent?: "refuse" | "keep" | undefined
}

// -----------------------------------------------------------------------------
// conversions
// -----------------------------------------------------------------------------

/**
 * The tag of every error {@link encode} can fail with: {@link EncodeError} is exactly these.
 *
 * @category errors
 * @since 0.1.0
 */
export const encodeErrors = ["MisplacedBlock", "UnsupportedBlock", "UnsupportedMessage"] as const

/**
 * What {@link encode} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.1.0
 */
export type EncodeError = ConversionError.Tagged<typeof encodeErrors[number]>

/**
 * The tag of every error {@link decode} can fail with: {@link DecodeError} is exactly these.
 *
 * @category errors
 * @since 0.1.0
 */
export const decodeErrors = ["MalformedInput", "MisplacedBlock", "UnsupportedContent"] as const

/**
 * What {@link decode} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.1.0
 */
export type DecodeError = ConversionError.Tagged<typeof decodeErrors[number]>

/** `encode` with what it loses, by the format's documented rules, reported to `onLoss`. */
const reporting = Report.encoding(
  (conversation: Conversation.Conversation, options: EncodeOptions | undefined) =>
    encoder.encode(conversation, options),
  losses.anthropic
)

/**
 * Convert a canonical conversation to Anthropic's `{system, messages}`. With default options the
 * result is, key order included, what the reference SDK's `convert_messages(messages, "anthropic")`
 * returns.
 *
 * Fails with `MisplacedBlock` (a block in a role that may not hold it), `UnsupportedBlock` (an image
 * in a hoisted system message) or `UnsupportedMessage` (a system message after the first
 * non-system turn, unless `laterSystem` says otherwise).
 *
 * @category encoding
 * @since 0.1.0
 */
export const encode = (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Wire, EncodeError> => reporting(conversation, options)

/**
 * Read an Anthropic transcript into a canonical conversation. Accepts a `{system?, messages}` object
 * (the reference's output, or a whole request body whose request parameters are ignored) or a bare
 * `messages` array. A `system` string, or a list of text blocks, becomes one leading system message
 * (none when it is `null`, absent or an empty list).
 *
 * Errors locate the input: `path` is the full path into it and `messageIndex` / `blockIndex` index
 * its `messages` and their `content`. Fails with `MalformedInput` (not the Anthropic shape: checked
 * first, for the whole input), `UnsupportedContent` (content with no canonical form) or
 * `MisplacedBlock` (for example a `tool_use` in a user message). Never throws.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => decoder.decode(input, options)

/**
 * The Anthropic format as a {@link Codec.Codec}.
 *
 * @category codecs
 * @since 0.1.0
 */
export const codec: Codec.Codec<
  Wire,
  EncodeOptions,
  DecodeOptions,
  EncodeError,
  DecodeError,
  typeof Input.Encoded,
  typeof name
> = Codec.make({ name, input: Input, encode, decode })

/**
 * A Schema from the Anthropic wire shape to a canonical conversation (default options), for Schema
 * pipelines such as `Schema.parseJson(AnthropicFormat.schema)`. Its encoded side is {@link Input}:
 * `Schema.encodedSchema` and `JSONSchema.make` of it describe the wire.
 * Its encode writes exactly what {@link encode} writes; every failure carries the tagged error of
 * {@link decode} or {@link encode} (its message the error's), which `schema.decodeError` /
 * `schema.encodeError` give back.
 *
 * @category schemas
 * @since 0.1.0
 */
export const schema: Codec.Transformation<
  Conversation.Conversation,
  typeof Input.Encoded,
  DecodeError,
  EncodeError
> = Codec.toSchema(codec)

// -----------------------------------------------------------------------------
// model responses
// -----------------------------------------------------------------------------

/**
 * Options of {@link decodeResponse} and {@link decodeStream}: `providerContent` as
 * {@link DecodeOptions} says (keep the server-tool blocks as provider blocks, which the API needs
 * back on the next turn), and the fields below.
 *
 * @category models
 * @since 0.2.0
 */
export interface ResponseOptions extends DecodeOptions {
  /**
   * Content block types to leave out of the assistant turn instead of reading them (a
   * `redacted_thinking`, say). Prefer `providerContent: "keep"` for server-tool blocks: the API
   * needs them back on the next turn.
   */
  readonly omit?: ReadonlyArray<string> | undefined
  /**
   * {@link decodeStream} only: which message to read, by position, when the stream holds several
   * one after another (a recording of several requests' streams). Without it such a stream is a
   * `MultipleChoices` error: each message is a separate answer, never folded into one turn.
   */
  readonly message?: number | undefined
  /**
   * What {@link decodeStream} does with a `tool_use` whose `input_json_delta` pieces do not join
   * into a JSON object (a turn cut at the token limit): `"error"` (default) an
   * `InvalidToolArguments` error; `"keep"` the call, with input `{}` and the text and the reason
   * under `detail.invalid_arguments` (`Block.invalidArguments`), so that a harness can answer it
   * (`ModelStep`'s steps keep them; `Episode.run` answers them). A whole message's `input` is
   * already an object.
   */
  readonly invalidToolArguments?: "error" | "keep" | undefined
}

/**
 * The tag of every error {@link decodeResponse} can fail with: {@link ResponseError} is exactly
 * these (test/ResponseErrors.test.ts holds the list to what the decoder answers).
 *
 * @category errors
 * @since 0.2.0
 */
export const responseErrors = ["MalformedInput", "MisplacedBlock", "UnsupportedContent"] as const

/**
 * What {@link decodeResponse} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.2.0
 */
export type ResponseError = ConversionError.Tagged<typeof responseErrors[number]>

/**
 * The tag of every error {@link decodeStream} can fail with (besides the stream's own): {@link
 * StreamError} is exactly these. `MultipleChoices`: the stream holds several messages one after
 * another and the `message` option picks none; `NoAnswer`: it picks one the stream does not hold.
 *
 * @category errors
 * @since 0.2.0
 */
export const streamErrors = [
  ...responseErrors,
  "InvalidToolArguments",
  "IncompleteStream",
  "MultipleChoices",
  "NoAnswer"
] as const

/**
 * What {@link decodeStream} can fail with (besides the stream's own errors), and nothing else.
 *
 * @category errors
 * @since 0.2.0
 */
export type StreamError = ConversionError.Tagged<typeof streamErrors[number]>

/**
 * Read an Anthropic `Message`, as `messages.create` returns it, into a
 * {@link ModelResponse.ModelResponse}: the assistant turn (its content read as {@link decode}
 * reads an assistant message; a text block's `citations` kept in that block's `detail`), the stop
 * reason (`end_turn` / `stop_sequence` → `stop`, `tool_use` → `tool_calls`, `max_tokens` /
 * `model_context_window_exceeded` → `max_tokens`, `refusal` → `refusal` with
 * `stop_details.explanation` as the refusal text, `pause_turn` → `pause`) and the usage
 * (`inputTokens` counts cache reads and writes). Never throws.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeResponse = (
  input: unknown,
  options?: ResponseOptions
): Either.Either<ModelResponse.ModelResponse, ResponseError> =>
  // the internal decoder is typed with the wide union; the test holds it to `responseErrors`
  responseDecoder.decodeResponse(input, options) as Either.Either<ModelResponse.ModelResponse, ResponseError>

/**
 * Fold a stream of `MessageStreamEvent`s (what `messages.create({ stream: true })` yields; from the
 * SDK's async iterable with `Stream.fromAsyncIterable`) into the response {@link decodeResponse}
 * gives for the same message sent whole. A stream that ends before `message_stop` fails with
 * `IncompleteStream`.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeStream = <E, R>(
  events: Stream.Stream<unknown, E, R>,
  options?: ResponseOptions
): Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R> =>
  streamDecoder.decodeStream(events, options) as Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R>
