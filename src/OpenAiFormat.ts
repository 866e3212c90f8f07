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
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import * as Codec from "./Codec.js"
import type * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import * as decoder from "./internal/openai/decode.js"
import * as encoder from "./internal/openai/encode.js"
import * as responseDecoder from "./internal/openai/response.js"
import * as streamDecoder from "./internal/openai/stream.js"
import * as Json from "./Json.js"
import type * as ModelResponse from "./ModelResponse.js"

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
export const TextPart = Schema.Struct({
  type: Schema.tag("text"),
  text: Schema.String
}).annotations({ identifier: "ChatTextPart" })

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
export const ImageUrlPart = Schema.Struct({
  type: Schema.tag("image_url"),
  image_url: Schema.Struct({ url: Schema.String })
}).annotations({ identifier: "ChatImageUrlPart" })

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
export const ContentPart = Schema.Union(TextPart, ImageUrlPart).annotations({ identifier: "ChatContentPart" })

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
export const Content = Schema.Union(Schema.String, Schema.Array(ContentPart)).annotations({
  identifier: "ChatContent"
})

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
export const ToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.tag("function"),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
}).annotations({ identifier: "ChatToolCall" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolCall extends Schema.Schema.Type<typeof ToolCall> {}

/**
 * @category schemas
 * @since 0.1.0
 */
export const SystemMessage = Schema.Struct({
  role: Schema.tag("system"),
  content: Content
}).annotations({ identifier: "ChatSystemMessage" })

/**
 * @category models
 * @since 0.1.0
 */
export interface SystemMessage extends Schema.Schema.Type<typeof SystemMessage> {}

/**
 * @category schemas
 * @since 0.1.0
 */
export const UserMessage = Schema.Struct({
  role: Schema.tag("user"),
  content: Content
}).annotations({ identifier: "ChatUserMessage" })

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
export const AssistantMessage = Schema.Struct({
  role: Schema.tag("assistant"),
  content: Schema.NullOr(Content),
  reasoning_content: Schema.optionalWith(Schema.String, { exact: true }),
  reasoning: Schema.optionalWith(Schema.String, { exact: true }),
  tool_calls: Schema.optionalWith(Schema.Array(ToolCall), { exact: true })
}).annotations({ identifier: "ChatAssistantMessage" })

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
export const ToolMessage = Schema.Struct({
  role: Schema.tag("tool"),
  tool_call_id: Schema.String,
  content: Content
}).annotations({ identifier: "ChatToolMessage" })

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
export const ChatMessage = Schema.Union(SystemMessage, UserMessage, AssistantMessage, ToolMessage).annotations({
  identifier: "ChatMessage"
})

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
export const Wire = Schema.Array(ChatMessage).annotations({ identifier: "ChatMessages" })

/**
 * @category models
 * @since 0.1.0
 */
export type Wire = ReadonlyArray<ChatMessage>

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

// How an unexpected value is named in an error message (`describe`) is declared once, in the
// decoder; the messages below call it only when an issue is reported, once every module is loaded.
// One clear issue when a list entry is not even an object; an object reports its own issues.
const objectExpected = (what: string) => (issue: ParseResult.ParseIssue) =>
  typeof issue.actual === "object" && issue.actual !== null && !Array.isArray(issue.actual)
    ? { message: "", override: false }
    : { message: `Expected ${what} object, actual ${decoder.describe(issue.actual)}`, override: true }

// `string | Array<P>` (and `null` where allowed), reporting one clear issue when the input is none
// of them; an array with a bad part reports the part.
const contentMessage = (nullable: boolean) => (issue: ParseResult.ParseIssue) =>
  typeof issue.actual === "string" || Array.isArray(issue.actual) || (nullable && issue.actual === null)
    ? { message: "", override: false }
    : {
      message: `Expected ${
        nullable ? "a string, an array of content parts or null" : "a string or an array of content parts"
      }, actual ${decoder.describe(issue.actual)}`,
      override: true
    }

const contentOf = <P extends Schema.Schema.Any>(parts: P) =>
  Schema.Union(Schema.String, Schema.Array(parts)).annotations({ message: contentMessage(false) })

const nullableContentOf = <P extends Schema.Schema.Any>(parts: P) =>
  Schema.Union(Schema.String, Schema.Array(parts), Schema.Null).annotations({ message: contentMessage(true) })

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

// Any `type` outside `known`: content this library reads only to report. The brand keeps the known
// members apart from this one when narrowing.
const otherThan = (known: ReadonlyArray<string>, identifier: string) => {
  const set: ReadonlySet<string> = new Set(known)
  return Schema.Struct({
    type: Schema.String.pipe(
      Schema.filter((type) => !set.has(type), { message: () => "an entry of a known type must match its schema" }),
      Schema.brand("OtherType")
    )
  }).annotations({ identifier })
}

/**
 * The types decoding converts, per kind of entry; an entry of any other type is read only to report
 * it (an `UnsupportedContent` error).
 *
 * @category constants
 * @since 0.2.0
 */
export const knownTypes = {
  /** the parts of a system, developer, user or tool message */
  part: ["text", "image_url"],
  /** the parts of an assistant message */
  assistantPart: ["text", "image_url", "refusal"],
  /** tool calls */
  toolCall: ["function"],
  /** OpenRouter's `reasoning_details` entries */
  reasoningDetail: ["reasoning.text", "reasoning.summary", "reasoning.encrypted"]
} as const

/**
 * An image part as decoding reads it (`detail` and other keys are ignored).
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputImageUrlPart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String })
}).annotations({ identifier: "ChatInputImageUrlPart" })

/**
 * An assistant's refusal part, read as text.
 *
 * @category schemas
 * @since 0.2.0
 */
export const RefusalPart = Schema.Struct({
  type: Schema.Literal("refusal"),
  refusal: Schema.String
}).annotations({ identifier: "ChatRefusalPart" })

/**
 * @category models
 * @since 0.2.0
 */
export interface RefusalPart extends Schema.Schema.Type<typeof RefusalPart> {}

/**
 * A content part of a system, developer, user or tool message as decoding reads it: text, an image,
 * or any other type (`input_audio`, `file`, `video_url`, ...), read only to report it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputPart = Schema.Union(TextPart, InputImageUrlPart, otherThan(knownTypes.part, "ChatOtherPart"))
  .annotations({ message: objectExpected("a content part") })

/**
 * @category models
 * @since 0.2.0
 */
export type InputPart = typeof InputPart.Type

/**
 * A content part of an assistant message as decoding reads it: {@link InputPart}'s, and refusals.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputAssistantPart = Schema.Union(
  TextPart,
  InputImageUrlPart,
  RefusalPart,
  otherThan(knownTypes.assistantPart, "ChatOtherPart")
).annotations({ message: objectExpected("a content part") })

/**
 * @category models
 * @since 0.2.0
 */
export type InputAssistantPart = typeof InputAssistantPart.Type

const Arguments = Schema.Union(Schema.String, Json.JsonObject).annotations({
  message: (issue) =>
    typeof issue.actual === "string" ||
      (typeof issue.actual === "object" && issue.actual !== null && !Array.isArray(issue.actual))
      ? { message: "", override: false }
      : { message: `Expected a JSON string or a JSON object, actual ${decoder.describe(issue.actual)}`, override: true }
})

/**
 * A function tool call as decoding reads it: `type` may be absent, and `arguments` may be a JSON
 * object instead of a JSON string.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputFunctionToolCall = Schema.Struct({
  id: Schema.String,
  type: optional(Schema.Literal("function")),
  function: Schema.Struct({ name: Schema.String, arguments: Arguments })
}).annotations({ identifier: "ChatInputFunctionToolCall" })

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
export const InputToolCall = Schema.Union(InputFunctionToolCall, otherThan(knownTypes.toolCall, "ChatOtherToolCall"))
  .annotations({ message: objectExpected("a tool call") })

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
export const ReasoningTextDetail = Schema.Struct({
  type: Schema.Literal("reasoning.text"),
  text: optional(Schema.NullOr(Schema.String)),
  signature: optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "ReasoningTextDetail" })

/**
 * OpenRouter's `reasoning.summary` detail: a summary of the reasoning.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ReasoningSummaryDetail = Schema.Struct({
  type: Schema.Literal("reasoning.summary"),
  summary: Schema.String
}).annotations({ identifier: "ReasoningSummaryDetail" })

/**
 * OpenRouter's `reasoning.encrypted` detail: opaque data (no canonical form).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ReasoningEncryptedDetail = Schema.Struct({
  type: Schema.Literal("reasoning.encrypted")
}).annotations({ identifier: "ReasoningEncryptedDetail" })

/**
 * An OpenRouter `reasoning_details` entry, as decoding reads it (any other type is read only to
 * report it).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ReasoningDetail = Schema.Union(
  ReasoningTextDetail,
  ReasoningSummaryDetail,
  ReasoningEncryptedDetail,
  otherThan(knownTypes.reasoningDetail, "OtherReasoningDetail")
).annotations({ message: objectExpected("a reasoning detail") })

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
export const InputSystemMessage = Schema.Struct({
  role: Schema.Literal("system"),
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputSystemMessage" })

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
export const InputDeveloperMessage = Schema.Struct({
  role: Schema.Literal("developer"),
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputDeveloperMessage" })

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
export const InputUserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputUserMessage" })

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
export const InputAssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: optional(nullableContentOf(InputAssistantPart)),
  refusal: optional(Schema.NullOr(Schema.String)),
  reasoning_content: optional(Schema.NullOr(Schema.String)),
  reasoning: optional(Schema.NullOr(Schema.String)),
  reasoning_details: optional(Schema.NullOr(Schema.Array(ReasoningDetail))),
  tool_calls: optional(Schema.NullOr(Schema.Array(InputToolCall))),
  function_call: optional(Schema.Unknown),
  audio: optional(Schema.Unknown)
}).annotations({ identifier: "ChatInputAssistantMessage" })

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
export const InputToolMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  tool_call_id: Schema.String,
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputToolMessage" })

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
export const InputFunctionMessage = Schema.Struct({
  role: Schema.Literal("function")
}).annotations({ identifier: "ChatInputFunctionMessage" })

/**
 * One message as decoding reads it: roles `system`, `developer`, `user`, `assistant` and `tool`
 * (and the deprecated `function`, read only to report it). Keys decoding does not use (`name`,
 * image `detail`, `annotations`, ...) are ignored.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputMessage = Schema.Union(
  InputSystemMessage,
  InputDeveloperMessage,
  InputUserMessage,
  InputAssistantMessage,
  InputToolMessage,
  InputFunctionMessage
).annotations({ identifier: "ChatInputMessage", message: objectExpected("a chat message") })

/**
 * @category models
 * @since 0.1.0
 */
export type InputMessage = typeof InputMessage.Type

/**
 * The keys of a request body: where the conversation is and the Chat Completions request parameters (`model`, `tools`, `temperature`, ...), which decoding accepts and
 * ignores. Any other key is a `MalformedInput` naming it (nothing is dropped unseen; another
 * provider's body read with this format says so).
 *
 * @category schemas
 * @since 0.1.0
 */
export const requestKeys: { readonly conversation: ReadonlyArray<string>; readonly parameters: ReadonlyArray<string> } =
  {
    conversation: ["messages"],
    // `ChatCompletionCreateParams` of the `openai` SDK 6.49, the deprecated `functions` and
    // `function_call` included
    parameters: [
      "model",
      "audio",
      "frequency_penalty",
      "function_call",
      "functions",
      "logit_bias",
      "logprobs",
      "max_completion_tokens",
      "max_tokens",
      "metadata",
      "modalities",
      "moderation",
      "n",
      "parallel_tool_calls",
      "prediction",
      "presence_penalty",
      "prompt_cache_key",
      "prompt_cache_options",
      "prompt_cache_retention",
      "reasoning_effort",
      "response_format",
      "safety_identifier",
      "seed",
      "service_tier",
      "stop",
      "store",
      "stream",
      "stream_options",
      "temperature",
      "tool_choice",
      "tools",
      "top_logprobs",
      "top_p",
      "user",
      "verbosity",
      "web_search_options"
    ]
  }

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
  Codec.requestBody({ messages: Schema.Array(InputMessage) }, requestKeys.parameters).annotations({
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
): Either.Either<Wire, EncodeError> => encoder.encode(name, conversation, options)

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
): Either.Either<Conversation.Conversation, DecodeError> => decoder.decode(name, requestKeys, input, options)

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
export interface ResponseOptions extends DecodeOptions {
  /** The `index` of the choice to read, when the completion holds several. */
  readonly choice?: number | undefined
}

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
  responseDecoder.decodeResponse(name, input, options)

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
  streamDecoder.decodeStream(name, events, options)
