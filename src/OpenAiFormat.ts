/**
 * The OpenAI Chat Completions format: a conversation as the `messages` list of a
 * `chat.completions.create` request, and back.
 *
 * **Encoding** reproduces the reference SDK's `convert_messages(messages, "openai")` (openreward
 * 0.1.167) key for key:
 *
 * - a system message becomes `{role: "system", content}`; content is a plain string when the
 *   message is exactly one text block, and a list of parts otherwise (`text`, and `image_url` with a
 *   `data:<mime>;base64,` URL);
 * - a user message becomes one `{role: "tool", tool_call_id, content}` per tool result (its texts
 *   joined with `"\n"`), then one user message with the remaining blocks, if any;
 * - an assistant message becomes `{role: "assistant", content, reasoning_content?, tool_calls?}`:
 *   its text and image blocks as content (`null` when there are none), its reasoning texts joined
 *   with `"\n\n"`, its tool calls with `arguments` serialized exactly as Python's `json.dumps`
 *   (or, with the `toolArguments: "json"` option, as `JSON.stringify`).
 *
 * An image inside a tool result cannot be carried by a tool message: it is an `UnsupportedBlock`
 * error unless {@link EncodeOptions} says to move it into a user message.
 *
 * **Decoding** reads what OpenAI-compatible servers and clients really store: a bare message list
 * or a whole request body (its request parameters, `model`, `tools`, ..., listed in `requestKeys`, are ignored; any other key is left out and reported as lost (`Codec.decodeReport`), except a key of another format's conversation, a `MalformedInput` naming it), `developer` messages, string or part
 * content, `null` assistant content, refusals, `reasoning_content` / `reasoning` /
 * `reasoning_details`, tool calls with JSON-string arguments, and `tool` messages, which are
 * regrouped into canonical user turns so that `decode(encode(c))` gives `c` back up to the losses
 * listed in docs/formats/openai.md. Content with no canonical form (image URLs, audio, files,
 * custom tool calls) is an `UnsupportedContent` error, never dropped.
 *
 * @example
 * ```ts
 * import { Block, Message, OpenAiFormat } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as assert from "node:assert"
 *
 * const conversation = [
 *   Message.user("My order #4411 hasn't arrived."),
 *   Message.assistant([
 *     Block.reasoning("Two weeks late — check the carrier first."),
 *     Block.toolCall("tc_1", "lookup_order", { id: "4411" })
 *   ]),
 *   Message.user([Block.toolResult("tc_1", "stalled at hub")])
 * ]
 * const messages = Either.getOrThrow(OpenAiFormat.encode(conversation))
 * console.dir(messages[1], { depth: null })
 * console.dir(messages[2], { depth: null })
 * assert.deepStrictEqual(Either.getOrThrow(OpenAiFormat.decode(messages)), conversation)
 * ```
 *
 * ```text output
 * {
 *   role: 'assistant',
 *   content: null,
 *   reasoning_content: 'Two weeks late — check the carrier first.',
 *   tool_calls: [
 *     {
 *       id: 'tc_1',
 *       type: 'function',
 *       function: { name: 'lookup_order', arguments: '{"id": "4411"}' }
 *     }
 *   ]
 * }
 * { role: 'tool', tool_call_id: 'tc_1', content: 'stalled at hub' }
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
import * as losses from "./internal/encodeLosses.js"
import * as decoder from "./internal/openai/decode.js"
import * as encoder from "./internal/openai/encode.js"
import * as responseDecoder from "./internal/openai/response.js"
import * as internal from "./internal/openai/schema.js"
import * as streamDecoder from "./internal/openai/stream.js"
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
 * A text content part.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TextPart = internal.TextPart

/**
 * @category models
 * @since 0.1.0
 */
export interface TextPart extends Schema.Schema.Type<typeof TextPart> {}

/**
 * An image content part. Encoding always writes the image inline, as a `data:<mime>;base64,<data>`
 * URL.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImageUrlPart = internal.ImageUrlPart

/**
 * @category models
 * @since 0.1.0
 */
export interface ImageUrlPart extends Schema.Schema.Type<typeof ImageUrlPart> {}

/**
 * A content part encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentPart = internal.ContentPart

/**
 * @category models
 * @since 0.1.0
 */
export type ContentPart = TextPart | ImageUrlPart

/**
 * Message content: a plain string when the canonical message is exactly one text block, a list of
 * parts otherwise (possibly empty).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Content = internal.Content

/**
 * @category models
 * @since 0.1.0
 */
export type Content = string | ReadonlyArray<ContentPart>

/**
 * A function tool call: `arguments` is the input serialized as Python's `json.dumps` does (as
 * `JSON.stringify` does with the `toolArguments: "json"` option).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolCall = internal.ToolCall

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolCall extends Schema.Schema.Type<typeof ToolCall> {}

/**
 * A `reasoning_details` entry as encoding sends it back (OpenRouter's field): written only for the
 * reasoning blocks that were read from such an entry, whose `detail.<format>.reasoning_detail` kept
 * the entry's other keys (`format`, `index`, `id`, ...). The block's text is the entry's `text`
 * (or `summary`), its signature the `signature` (or an encrypted entry's `data`).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ReasoningDetailEntry = internal.ReasoningDetailEntry

/**
 * @category models
 * @since 0.2.0
 */
export type ReasoningDetailEntry = typeof ReasoningDetailEntry.Type

/**
 * @category schemas
 * @since 0.1.0
 */
export const SystemMessage = internal.SystemMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface SystemMessage extends Schema.Schema.Type<typeof SystemMessage> {}

/**
 * @category schemas
 * @since 0.1.0
 */
export const UserMessage = internal.UserMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface UserMessage extends Schema.Schema.Type<typeof UserMessage> {}

/**
 * An assistant message. `content` is `null` when the canonical message has no text or image. The
 * reasoning goes in `reasoning_content` (default), in `reasoning`, or nowhere, as
 * {@link EncodeOptions} `reasoningField` says.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AssistantMessage = internal.AssistantMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface AssistantMessage extends Schema.Schema.Type<typeof AssistantMessage> {}

/**
 * A tool result. Encoding for `openai` always writes a string `content`: the result's texts joined
 * with `"\n"` (OpenRouter's `toolResultImages: "tool-message"` writes parts).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolMessage = internal.ToolMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolMessage extends Schema.Schema.Type<typeof ToolMessage> {}

/**
 * Any message encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ChatMessage = internal.ChatMessage

/**
 * @category models
 * @since 0.1.0
 */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

/**
 * The encoded conversation: the `messages` of a Chat Completions request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Wire = internal.Wire

/**
 * @category models
 * @since 0.1.0
 */
export type Wire = ReadonlyArray<ChatMessage>

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

/**
 * The types decoding converts, per kind of entry; an entry of any other type is read only to report
 * it (an `UnsupportedContent` error).
 *
 * @category constants
 * @since 0.2.0
 */
export const knownTypes = internal.knownTypes

/**
 * An image part as decoding reads it (`detail` and other keys are ignored).
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputImageUrlPart = internal.InputImageUrlPart

/**
 * An assistant's refusal part, read as text.
 *
 * @category schemas
 * @since 0.2.0
 */
export const RefusalPart = internal.RefusalPart

/**
 * @category models
 * @since 0.2.0
 */
export interface RefusalPart extends Schema.Schema.Type<typeof RefusalPart> {}

/**
 * A text chunk of a {@link ThinkingPart}.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ThinkingTextChunk = internal.ThinkingTextChunk

/**
 * Mistral's reasoning part of an assistant message (`magistral` models):
 * `{type: "thinking", thinking: [{type: "text", text}, ...], closed?}`, read as a reasoning block
 * holding its text chunks joined. A part that holds any other chunk (a `reference`) keeps the whole
 * `thinking` list in the block's `detail.<format>.thinking`; `closed` (Mistral uses it for prefixing)
 * is not kept.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ThinkingPart = internal.ThinkingPart

/**
 * @category models
 * @since 0.2.0
 */
export interface ThinkingPart extends Schema.Schema.Type<typeof ThinkingPart> {}

/**
 * A content part of a system, developer, user or tool message as decoding reads it: text, an image,
 * or any other type (`input_audio`, `file`, `video_url`, ...), read only to report it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputPart = internal.InputPart

/**
 * @category models
 * @since 0.2.0
 */
export type InputPart = typeof InputPart.Type

/**
 * A content part of an assistant message as decoding reads it: {@link InputPart}'s, refusals, and
 * Mistral's {@link ThinkingPart}s.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputAssistantPart = internal.InputAssistantPart

/**
 * @category models
 * @since 0.2.0
 */
export type InputAssistantPart = typeof InputAssistantPart.Type

/**
 * A function tool call as decoding reads it: `type` may be absent, and `arguments` may be a JSON
 * object instead of a JSON string.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputFunctionToolCall = internal.InputFunctionToolCall

/**
 * @category models
 * @since 0.2.0
 */
export interface InputFunctionToolCall extends Schema.Schema.Type<typeof InputFunctionToolCall> {}

/**
 * A tool call as decoding reads it: a function call, or one of another type (`custom`), read only to
 * report it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputToolCall = internal.InputToolCall

/**
 * @category models
 * @since 0.2.0
 */
export type InputToolCall = typeof InputToolCall.Type

/**
 * OpenRouter's `reasoning.text` detail: reasoning text, maybe signed.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ReasoningTextDetail = internal.ReasoningTextDetail

/**
 * OpenRouter's `reasoning.summary` detail: a summary of the reasoning.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ReasoningSummaryDetail = internal.ReasoningSummaryDetail

/**
 * OpenRouter's `reasoning.encrypted` detail: opaque data (no canonical form).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ReasoningEncryptedDetail = internal.ReasoningEncryptedDetail

/**
 * An OpenRouter `reasoning_details` entry, as decoding reads it (any other type is read only to
 * report it).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ReasoningDetail = internal.ReasoningDetail

/**
 * @category models
 * @since 0.2.0
 */
export type ReasoningDetail = typeof ReasoningDetail.Type

/**
 * A system message as decoding reads it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputSystemMessage = internal.InputSystemMessage

/**
 * @category models
 * @since 0.2.0
 */
export interface InputSystemMessage extends Schema.Schema.Type<typeof InputSystemMessage> {}

/**
 * A developer message: what newer OpenAI models call the system message.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputDeveloperMessage = internal.InputDeveloperMessage

/**
 * @category models
 * @since 0.2.0
 */
export interface InputDeveloperMessage extends Schema.Schema.Type<typeof InputDeveloperMessage> {}

/**
 * A user message as decoding reads it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputUserMessage = internal.InputUserMessage

/**
 * @category models
 * @since 0.2.0
 */
export interface InputUserMessage extends Schema.Schema.Type<typeof InputUserMessage> {}

/**
 * An assistant message as decoding reads it: content may be absent or null, reasoning may come as
 * `reasoning_content`, `reasoning` or OpenRouter's `reasoning_details`. `function_call` and `audio`
 * are read only to report them.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputAssistantMessage = internal.InputAssistantMessage

/**
 * @category models
 * @since 0.2.0
 */
export interface InputAssistantMessage extends Schema.Schema.Type<typeof InputAssistantMessage> {}

/**
 * A tool message as decoding reads it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputToolMessage = internal.InputToolMessage

/**
 * @category models
 * @since 0.2.0
 */
export interface InputToolMessage extends Schema.Schema.Type<typeof InputToolMessage> {}

/**
 * A message of the deprecated `function` role: read only to report it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputFunctionMessage = internal.InputFunctionMessage

/**
 * One message as decoding reads it: roles `system`, `developer`, `user`, `assistant` and `tool`
 * (and the deprecated `function`, read only to report it). Keys decoding does not use (`name`,
 * image `detail`, `annotations`, ...) are ignored.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputMessage = internal.InputMessage

/**
 * @category models
 * @since 0.1.0
 */
export type InputMessage = typeof InputMessage.Type

/**
 * The keys of a request body: where the conversation is and the Chat Completions request parameters (`model`, `tools`, `temperature`, ...), which decoding accepts and
 * ignores. Any other key is left out and reported as lost (`Codec.decodeReport`), except a
 * key of another format's conversation: a `MalformedInput` naming it (another provider's body read
 * with this format says so).
 *
 * @category schemas
 * @since 0.1.0
 */
export const requestKeys: { readonly conversation: ReadonlyArray<string>; readonly parameters: ReadonlyArray<string> } =
  internal.requestKeys

/**
 * Everything {@link decode} reads, as one Schema that only validates: a request body (`messages`,
 * and the request parameters of {@link requestKeys}, accepted and ignored) or a bare message list.
 * It is the encoded side of {@link schema}, so `JSONSchema.make` and `Schema.encodedSchema` of that
 * describe the wire.
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
   * Which assistant-message field carries the reasoning. `"reasoning_content"` (default): the
   * DeepSeek / SGLang / vLLM chat-template convention. `"reasoning"`: the field vLLM now returns
   * and OpenRouter documents. `"omit"`: send no reasoning, for servers that reject unknown fields.
   */
  readonly reasoningField?: "reasoning_content" | "reasoning" | "omit" | undefined
  /**
   * Write the reasoning field on every assistant message that has tool calls, as `""` when the turn
   * has no reasoning: DeepSeek's thinking mode rejects a tool-call turn without it. Default `false`;
   * no effect with `reasoningField: "omit"`.
   */
  readonly reasoningOnToolCalls?: boolean | undefined
  /**
   * What to do with an image inside a tool result, which a tool message cannot carry. `"error"`
   * (default): an `UnsupportedBlock` error. `"user-message"`: the tool message keeps the texts, and
   * the images go first in the user message that follows the turn's tool messages (created if the
   * turn has no other content).
   */
  readonly toolResultImages?: "error" | "user-message" | undefined
  /**
   * How tool-call `arguments` are written. `"python"` (default): exactly as Python's `json.dumps`
   * writes them, byte for byte the reference's text. `"json"`: `JSON.stringify`, compact and with
   * non-ASCII characters as they are. The servers parse the arguments back to the same value, and
   * the encode is faster (docs/performance.md).
   */
  readonly toolArguments?: "python" | "json" | undefined
  /**
   * A provider block (`Block.ProviderBlock`) of another provider: `"error"` (default): an
   * `UnsupportedBlock` error; `"omit"`: left out; `"text"`: a text part of what `Prompt.flatten`
   * renders for it. This format's own provider blocks are content parts, written back in place as
   * they came.
   */
  readonly providerContent?: "error" | "omit" | "text" | undefined
}

/**
 * Decoding options.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecodeOptions extends Codec.Reporting {
  /**
   * What to do with a `reasoning.encrypted` entry of OpenRouter's `reasoning_details` (opaque data:
   * OpenAI's encrypted reasoning, Anthropic's redacted thinking, Gemini's signatures). `"keep"`
   * (default): a reasoning block with no text, the data as its `signature` and the entry's other
   * keys in its detail, which encoding sends back as the entry. `"error"`: an `UnsupportedContent`
   * error. `"drop"`: leave it out.
   */
  readonly encryptedReasoning?: "keep" | "error" | "drop" | undefined
  /**
   * Content the canonical model has no block for: `"refuse"` (default): an `UnsupportedContent`
   * error naming it; `"keep"`: a provider block holding it as it came, where the format defines
   * one.
   */
  readonly providerContent?: "refuse" | "keep" | undefined
  /**
   * Tool-call `arguments` that are not a JSON object (a model's turn cut at the token limit, a stray
   * quote). `"error"` (default): an `InvalidToolArguments` error. `"keep"`: the call is kept, with
   * input `{}` and the text and the reason under `detail.invalid_arguments`
   * (`Block.invalidArguments`), so that a harness can answer it and the model correct itself
   * (`ModelStep`'s steps keep them; `Episode.run` answers them).
   */
  readonly invalidToolArguments?: "error" | "keep" | undefined
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
export const encodeErrors = ["MisplacedBlock", "UnsupportedBlock"] as const

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
export const decodeErrors = ["MalformedInput", "InvalidToolArguments", "UnsupportedContent"] as const

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
    encoder.encode(name, conversation, options),
  losses.chat(name)
)

/**
 * Convert a canonical conversation to a Chat Completions message list. With default options the
 * result is, key order included, what the reference SDK's `convert_messages(messages, "openai")`
 * returns.
 *
 * Fails with `MisplacedBlock` (a block in a role that may not hold it; checked first, for the whole
 * conversation, as the reference does) or `UnsupportedBlock` (an image inside a tool result, unless
 * `toolResultImages` says otherwise).
 *
 * @category encoding
 * @since 0.1.0
 */
export const encode = (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Wire, EncodeError> => reporting(conversation, options)

/**
 * Read a Chat Completions transcript into a canonical conversation: a message list, or a request
 * body `{messages: [...]}` whose request parameters ({@link requestKeys}) are ignored; any other key
 * is left out and reported as lost, except a key of another format's conversation (a
 * `MalformedInput`).
 *
 * Errors locate the input: `path` is the full path into it, `messageIndex` indexes the message list,
 * and `blockIndex` the message's `content` parts, `tool_calls` or `reasoning_details`. Fails with
 * `MalformedInput` (not the Chat Completions shape; checked first, for the whole input),
 * `UnsupportedContent` (content with no canonical form) or `InvalidToolArguments` (tool-call
 * arguments that are not a JSON object). Never throws.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => decoder.decode(name, input, options)

/**
 * The OpenAI format as a {@link Codec.Codec}.
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
 * A Schema from the Chat Completions message list to a canonical conversation (default options),
 * for Schema pipelines such as `Schema.parseJson(OpenAiFormat.schema)`. Its encoded side is
 * {@link Input}: `Schema.encodedSchema` and `JSONSchema.make` of it describe the wire.
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
 * Options of {@link decodeResponse} and {@link decodeStream}: the {@link DecodeOptions} the
 * message is read with; `choice`, the `index` of the choice to read when the completion holds
 * several (`n > 1`), without which such a completion is a `MultipleChoices` error; and
 * `toolCallIdPrefix`, how the ids made for tool calls that came with an empty id or none (Gemini's
 * OpenAI-compatible endpoint sends `""`) begin: `call_<completion id>` by default (or
 * `call_<hash of the message>` without one); the call's index in `tool_calls` follows.
 *
 * @category models
 * @since 0.2.0
 */
export interface ResponseOptions extends DecodeOptions {
  /** The `index` of the choice to read, when the completion holds several. */
  readonly choice?: number | undefined
  /** How made tool-call ids begin (default `call_<completion id>`); the call's index follows. */
  readonly toolCallIdPrefix?: string | undefined
}

/**
 * The tag of every error {@link decodeResponse} can fail with: {@link ResponseError} is exactly
 * these (test/ResponseErrors.test.ts holds the list to what the decoder answers).
 *
 * @category errors
 * @since 0.2.0
 */
export const responseErrors = [
  "MalformedInput",
  "InvalidToolArguments",
  "UnsupportedContent",
  "MultipleChoices",
  "NoAnswer",
  "ProviderError"
] as const

/**
 * What {@link decodeResponse} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.2.0
 */
export type ResponseError = ConversionError.Tagged<typeof responseErrors[number]>

/**
 * The tag of every error {@link decodeStream} can fail with (besides the stream's own): {@link
 * StreamError} is exactly these.
 *
 * @category errors
 * @since 0.2.0
 */
export const streamErrors = [...responseErrors, "IncompleteStream"] as const

/**
 * What {@link decodeStream} can fail with (besides the stream's own errors), and nothing else.
 *
 * @category errors
 * @since 0.2.0
 */
export type StreamError = ConversionError.Tagged<typeof streamErrors[number]>

/**
 * Read a Chat Completions answer, a `ChatCompletion` as the `openai` SDK returns it or one of its
 * `choices`, into a {@link ModelResponse.ModelResponse}: the assistant turn (content, refusal,
 * reasoning fields and tool calls read as {@link decode} reads an assistant message; an empty
 * `content` string is no text; `annotations` kept in the message's `detail`), the stop reason
 * (`stop`, `length` → `max_tokens`, `tool_calls`, `content_filter`, anything else `other`; a
 * `refusal` makes it `refusal`; `stop` with tool calls is `tool_calls`) and the usage. Never throws.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeResponse = (
  input: unknown,
  options?: ResponseOptions
): Either.Either<ModelResponse.ModelResponse, ResponseError> =>
  // the internal decoder is typed with the wide union; the test holds it to `responseErrors`
  responseDecoder.decodeResponse(name, input, options) as Either.Either<ModelResponse.ModelResponse, ResponseError>

/**
 * Fold a stream of `ChatCompletionChunk`s (what `chat.completions.create({ stream: true })`
 * yields; from the SDK's async iterable with `Stream.fromAsyncIterable`) into the response
 * {@link decodeResponse} gives for the same answer sent whole. A stream that ends before its
 * `finish_reason` fails with `IncompleteStream`.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeStream = <E, R>(
  events: Stream.Stream<unknown, E, R>,
  options?: ResponseOptions
): Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R> =>
  streamDecoder.decodeStream(name, events, options) as Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R>
