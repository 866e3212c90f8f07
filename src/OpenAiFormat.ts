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
 * or a whole request body (its request parameters, `model`, `tools`, ..., listed in `requestKeys`, are ignored; any other key is an error), `developer` messages, string or part
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
import type * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Codec from "./Codec.js"
import type * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import * as Chat from "./internal/openAiChat.js"

/**
 * The provider this module speaks.
 *
 * @category constants
 * @since 0.1.0
 */
export const name = "openai" as const

// -----------------------------------------------------------------------------
// wire: what encode produces
// -----------------------------------------------------------------------------

/**
 * A text content part.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TextPart: typeof Chat.TextPart = Chat.TextPart

/**
 * @category models
 * @since 0.1.0
 */
export interface TextPart extends Chat.TextPart {}

/**
 * An image content part. Encoding always writes the image inline, as a `data:<mime>;base64,<data>`
 * URL.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImageUrlPart: typeof Chat.ImageUrlPart = Chat.ImageUrlPart

/**
 * @category models
 * @since 0.1.0
 */
export interface ImageUrlPart extends Chat.ImageUrlPart {}

/**
 * A content part encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentPart: typeof Chat.ContentPart = Chat.ContentPart

/**
 * @category models
 * @since 0.1.0
 */
export type ContentPart = Chat.ContentPart

/**
 * Message content: a plain string when the canonical message is exactly one text block, a list of
 * parts otherwise (possibly empty).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Content: typeof Chat.Content = Chat.Content

/**
 * @category models
 * @since 0.1.0
 */
export type Content = Chat.Content

/**
 * A function tool call: `arguments` is the input serialized as Python's `json.dumps` does (as
 * `JSON.stringify` does with the `toolArguments: "json"` option).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolCall: typeof Chat.ToolCall = Chat.ToolCall

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolCall extends Chat.ToolCall {}

/**
 * @category schemas
 * @since 0.1.0
 */
export const SystemMessage: typeof Chat.SystemMessage = Chat.SystemMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface SystemMessage extends Chat.SystemMessage {}

/**
 * @category schemas
 * @since 0.1.0
 */
export const UserMessage: typeof Chat.UserMessage = Chat.UserMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface UserMessage extends Chat.UserMessage {}

/**
 * An assistant message. `content` is `null` when the canonical message has no text or image. The
 * reasoning goes in `reasoning_content` (default), in `reasoning`, or nowhere, as
 * {@link EncodeOptions} `reasoningField` says.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AssistantMessage: typeof Chat.AssistantMessage = Chat.AssistantMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface AssistantMessage extends Chat.AssistantMessage {}

/**
 * A tool result. Encoding for `openai` always writes a string `content`: the result's texts joined
 * with `"\n"`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolMessage: typeof Chat.ToolMessage = Chat.ToolMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolMessage extends Chat.ToolMessage {}

/**
 * Any message encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ChatMessage: typeof Chat.ChatMessage = Chat.ChatMessage

/**
 * @category models
 * @since 0.1.0
 */
export type ChatMessage = Chat.ChatMessage

/**
 * The encoded conversation: the `messages` of a Chat Completions request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Wire: typeof Chat.Wire = Chat.Wire

/**
 * @category models
 * @since 0.1.0
 */
export type Wire = Chat.Wire

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

/**
 * One message as decoding reads it: roles `system`, `developer`, `user`, `assistant` and `tool`
 * (and the deprecated `function`, read only to report it). Keys decoding does not use (`name`,
 * image `detail`, `annotations`, ...) are ignored.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputMessage: typeof Chat.InputMessage = Chat.InputMessage

/**
 * @category models
 * @since 0.1.0
 */
export type InputMessage = Chat.InputMessage

/**
 * Everything {@link decode} reads, as one Schema that only validates: a request body (`messages`,
 * and the request parameters of {@link requestKeys}, accepted and ignored) or a bare message list.
 * It is the encoded side of {@link schema}, so `JSONSchema.make` and `Schema.encodedSchema` of that
 * describe the wire.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Input = Schema.Union(
  Codec.requestBody({ messages: Schema.Array(InputMessage) }, Chat.requestKeys.openai.parameters).annotations({
    identifier: "OpenAiInputRequest"
  }),
  Schema.Array(InputMessage)
).annotations({ identifier: "OpenAiInput" })

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
export interface EncodeOptions {
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
}

/**
 * Decoding options.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecodeOptions {
  /**
   * What to do with a `reasoning.encrypted` entry of OpenRouter's `reasoning_details`: opaque data
   * that a canonical reasoning block cannot hold. `"error"` (default): an `UnsupportedContent`
   * error. `"drop"`: leave it out.
   */
  readonly encryptedReasoning?: "error" | "drop" | undefined
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
export const encodeErrors = Chat.encodeErrors

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
export const decodeErrors = Chat.decodeErrors

/**
 * What {@link decode} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.1.0
 */
export type DecodeError = ConversionError.Tagged<typeof decodeErrors[number]>

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
): Either.Either<Wire, EncodeError> => Chat.encode(name, conversation, options)

/**
 * Read a Chat Completions transcript into a canonical conversation: a message list, or a request
 * body `{messages: [...]}` whose request parameters ({@link requestKeys}) are ignored; any other key
 * is a `MalformedInput`.
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
): Either.Either<Conversation.Conversation, DecodeError> => Chat.decode(name, input, options)

/**
 * The keys of a request body: where the conversation is and the Chat Completions request parameters (`model`, `tools`, `temperature`, ...), which decoding accepts and
 * ignores. Any other key is a `MalformedInput` naming it (nothing is dropped unseen; another
 * provider's body read with this format says so).
 *
 * @category schemas
 * @since 0.1.0
 */
export const requestKeys: { readonly conversation: ReadonlyArray<string>; readonly parameters: ReadonlyArray<string> } =
  Chat.requestKeys.openai

/**
 * The OpenAI format as a {@link Codec.Codec}.
 *
 * @category codecs
 * @since 0.1.0
 */
export const codec: Codec.Codec<Wire, EncodeOptions, DecodeOptions, EncodeError, DecodeError> = { name, encode, decode }

/**
 * A Schema from the Chat Completions message list to a canonical conversation (default options),
 * for Schema pipelines such as `Schema.parseJson(OpenAiFormat.schema)`. Its encoded side is
 * {@link Input}: `Schema.encodedSchema` and `JSONSchema.make` of it describe the wire. Input that
 * is not of that shape fails with `Input`'s parse issue; conversion errors become parse issues
 * carrying the tagged error's message.
 *
 * @category schemas
 * @since 0.1.0
 */
export const schema: Schema.Schema<Conversation.Conversation, typeof Input.Encoded> = Codec.toSchema(codec, Input)

// -----------------------------------------------------------------------------
// model responses
// -----------------------------------------------------------------------------

/**
 * Options of {@link decodeResponse} and {@link decodeStream}: the {@link DecodeOptions} the
 * message is read with, and `choice`, the `index` of the choice to read when the completion holds
 * several (`n > 1`); without it such a completion is a `MultipleChoices` error.
 *
 * @category models
 * @since 0.2.0
 */
export interface ResponseOptions extends ChatResponse.ResponseOptions {}

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
): Either.Either<ModelResponse.ModelResponse, ConversionError.ResponseError> =>
  ChatResponse.decodeResponse(name, input, options)

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
): Effect.Effect<ModelResponse.ModelResponse, E | ConversionError.ResponseError, R> =>
  ChatStream.decodeStream(name, events, options)

import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import * as ChatResponse from "./internal/openai/response.js"
import * as ChatStream from "./internal/openai/stream.js"
import type * as ModelResponse from "./ModelResponse.js"
