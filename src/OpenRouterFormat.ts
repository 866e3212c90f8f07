/**
 * The OpenRouter format: OpenRouter's chat completions `messages` list, and back.
 *
 * OpenRouter speaks the OpenAI Chat Completions shape, and with default options this format is
 * exactly {@link OpenAiFormat} (as the reference SDK's `convert_messages(messages, "openrouter")`
 * is), except that errors name `openrouter`: the wire schemas are OpenAiFormat's, re-exported here.
 * What differs is declared here: the request parameters a body may hold ({@link requestKeys}), and
 * two options that serve OpenRouter's own conventions:
 *
 * - `reasoningField: "reasoning"` writes reasoning where OpenRouter documents it (the default,
 *   `reasoning_content`, is the reference's choice);
 * - `toolResultImages: "tool-message"` keeps images inside tool results as `image_url` parts of the
 *   tool message, which OpenRouter's schema accepts (whether the model sees them depends on the
 *   upstream provider).
 *
 * Decoding is {@link OpenAiFormat.decode}'s, which also reads OpenRouter's `reasoning` and
 * `reasoning_details` (a signed `reasoning.text` entry keeps its signature on the reasoning block).
 *
 * @example
 * ```ts
 * import { Block, Message, OpenRouterFormat } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as assert from "node:assert"
 *
 * const conversation = [
 *   Message.assistant([Block.reasoning("Check the carrier."), Block.toolCall("tc_1", "lookup_order", { id: "4411" })]),
 *   Message.user([Block.toolResult("tc_1", [Block.text("label:"), Block.image("iVBORw0KGgo=", "image/png")])])
 * ]
 * const messages = Either.getOrThrow(
 *   OpenRouterFormat.encode(conversation, { reasoningField: "reasoning", toolResultImages: "tool-message" })
 * )
 * assert.strictEqual(messages[0]?.role === "assistant" && messages[0].reasoning, "Check the carrier.")
 * console.dir(messages[1], { depth: null })
 * assert.deepStrictEqual(Either.getOrThrow(OpenRouterFormat.decode(messages)), conversation)
 * ```
 *
 * ```text output
 * {
 *   role: 'tool',
 *   tool_call_id: 'tc_1',
 *   content: [
 *     { type: 'text', text: 'label:' },
 *     {
 *       type: 'image_url',
 *       image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' }
 *     }
 *   ]
 * }
 * ```
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Stream from "effect/Stream"
import * as Codec from "./Codec.js"
import type * as Conversation from "./Conversation.js"
import * as losses from "./internal/encodeLosses.js"
import * as decoder from "./internal/openai/decode.js"
import * as encoder from "./internal/openai/encode.js"
import * as responseDecoder from "./internal/openai/response.js"
import * as streamDecoder from "./internal/openai/stream.js"
import * as internal from "./internal/openrouter/schema.js"
import * as Report from "./internal/report.js"
import type * as ModelResponse from "./ModelResponse.js"
import * as OpenAiFormat from "./OpenAiFormat.js"

/**
 * The provider this module speaks.
 *
 * @category constants
 * @since 0.1.0
 */
export const name = internal.name

// -----------------------------------------------------------------------------
// wire: what encode produces (OpenAiFormat's shapes)
// -----------------------------------------------------------------------------

/**
 * A text content part.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TextPart: typeof OpenAiFormat.TextPart = OpenAiFormat.TextPart

/**
 * @category models
 * @since 0.1.0
 */
export interface TextPart extends OpenAiFormat.TextPart {}

/**
 * An image content part, always an inline `data:<mime>;base64,<data>` URL.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImageUrlPart: typeof OpenAiFormat.ImageUrlPart = OpenAiFormat.ImageUrlPart

/**
 * @category models
 * @since 0.1.0
 */
export interface ImageUrlPart extends OpenAiFormat.ImageUrlPart {}

/**
 * A content part encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentPart: typeof OpenAiFormat.ContentPart = OpenAiFormat.ContentPart

/**
 * @category models
 * @since 0.1.0
 */
export type ContentPart = OpenAiFormat.ContentPart

/**
 * Message content: a plain string when the canonical message is exactly one text block, a list of
 * parts otherwise (possibly empty).
 *
 * @category schemas
 * @since 0.1.0
 */
export const Content: typeof OpenAiFormat.Content = OpenAiFormat.Content

/**
 * @category models
 * @since 0.1.0
 */
export type Content = OpenAiFormat.Content

/**
 * A function tool call: `arguments` is the input serialized as Python's `json.dumps` does (as
 * `JSON.stringify` does with the `toolArguments: "json"` option).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolCall: typeof OpenAiFormat.ToolCall = OpenAiFormat.ToolCall

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolCall extends OpenAiFormat.ToolCall {}

/**
 * @category schemas
 * @since 0.1.0
 */
export const SystemMessage: typeof OpenAiFormat.SystemMessage = OpenAiFormat.SystemMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface SystemMessage extends OpenAiFormat.SystemMessage {}

/**
 * @category schemas
 * @since 0.1.0
 */
export const UserMessage: typeof OpenAiFormat.UserMessage = OpenAiFormat.UserMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface UserMessage extends OpenAiFormat.UserMessage {}

/**
 * An assistant message; the reasoning goes in `reasoning_content` (default), `reasoning`, or
 * nowhere, as {@link EncodeOptions} `reasoningField` says.
 *
 * @category schemas
 * @since 0.1.0
 */
export const AssistantMessage: typeof OpenAiFormat.AssistantMessage = OpenAiFormat.AssistantMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface AssistantMessage extends OpenAiFormat.AssistantMessage {}

/**
 * A tool result: its texts joined with `"\n"`, or, with `toolResultImages: "tool-message"` and an
 * image in the result, one part per block.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolMessage: typeof OpenAiFormat.ToolMessage = OpenAiFormat.ToolMessage

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolMessage extends OpenAiFormat.ToolMessage {}

/**
 * Any message encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ChatMessage: typeof OpenAiFormat.ChatMessage = OpenAiFormat.ChatMessage

/**
 * @category models
 * @since 0.1.0
 */
export type ChatMessage = OpenAiFormat.ChatMessage

/**
 * The encoded conversation: the `messages` of an OpenRouter chat completions request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Wire: typeof OpenAiFormat.Wire = OpenAiFormat.Wire

/**
 * @category models
 * @since 0.1.0
 */
export type Wire = OpenAiFormat.Wire

// -----------------------------------------------------------------------------
// input: what decode accepts (OpenAiFormat's shapes)
// -----------------------------------------------------------------------------

/**
 * One message as decoding reads it (`OpenAiFormat.InputMessage`); an assistant message's
 * `reasoning_details` entries are `reasoning.text` (maybe signed), `reasoning.summary` and
 * `reasoning.encrypted`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputMessage: typeof OpenAiFormat.InputMessage = OpenAiFormat.InputMessage

/**
 * @category models
 * @since 0.1.0
 */
export type InputMessage = OpenAiFormat.InputMessage

/**
 * The keys of a request body: where the conversation is and OpenAI's request parameters with OpenRouter's (`models`, `provider`, `reasoning`, ...), which decoding accepts and
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
 * and the request parameters of {@link requestKeys}, OpenAI's and OpenRouter's own, accepted and
 * ignored) or a bare message list. It is the encoded side of {@link schema}, so `JSONSchema.make`
 * and `Schema.encodedSchema` of that describe the wire.
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
 * Encoding options: {@link OpenAiFormat.EncodeOptions}, with one more choice for images inside tool
 * results. Every default reproduces the reference SDK.
 *
 * @category models
 * @since 0.1.0
 */
export interface EncodeOptions extends Omit<OpenAiFormat.EncodeOptions, "toolResultImages"> {
  /**
   * What to do with an image inside a tool result. `"error"` (default): an `UnsupportedBlock` error.
   * `"user-message"`: the images go first in the user message that follows the turn's tool
   * messages. `"tool-message"`: a tool result holding an image is sent as parts (`text` and
   * `image_url`, in order) in its tool message.
   */
  readonly toolResultImages?: "error" | "user-message" | "tool-message" | undefined
}

/**
 * Decoding options ({@link OpenAiFormat.DecodeOptions}): `encryptedReasoning` says what to do with a
 * `reasoning.encrypted` entry of `reasoning_details` (opaque data a canonical reasoning block cannot
 * hold): `"error"` (default), an `UnsupportedContent` error, or `"drop"`, leave it out.
 *
 * @category models
 * @since 0.1.0
 */
export interface DecodeOptions extends OpenAiFormat.DecodeOptions {}

// -----------------------------------------------------------------------------
// conversions
// -----------------------------------------------------------------------------

/**
 * The tag of every error {@link encode} can fail with: {@link EncodeError} is exactly these.
 *
 * @category errors
 * @since 0.1.0
 */
export const encodeErrors: typeof OpenAiFormat.encodeErrors = OpenAiFormat.encodeErrors

/**
 * What {@link encode} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.1.0
 */
export type EncodeError = OpenAiFormat.EncodeError

/**
 * The tag of every error {@link decode} can fail with: {@link DecodeError} is exactly these.
 *
 * @category errors
 * @since 0.1.0
 */
export const decodeErrors: typeof OpenAiFormat.decodeErrors = OpenAiFormat.decodeErrors

/**
 * What {@link decode} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.1.0
 */
export type DecodeError = OpenAiFormat.DecodeError

/** `encode` with what it loses, by the format's documented rules, reported to `onLoss`. */
const reporting = Report.encoding(
  (conversation: Conversation.Conversation, options: EncodeOptions | undefined) =>
    encoder.encode(name, conversation, options),
  losses.chat(name)
)

/**
 * Convert a canonical conversation to an OpenRouter message list. With default options the result
 * is, key order included, what the reference SDK's `convert_messages(messages, "openrouter")`
 * returns.
 *
 * Fails with `MisplacedBlock` (checked first, for the whole conversation) or `UnsupportedBlock` (an
 * image inside a tool result, unless `toolResultImages` says otherwise).
 *
 * @category encoding
 * @since 0.1.0
 */
export const encode = (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Wire, EncodeError> => reporting(conversation, options)

/**
 * Read an OpenRouter (or any Chat Completions) transcript into a canonical conversation: a message
 * list, or a request body `{messages: [...]}` whose request parameters ({@link requestKeys}) are ignored
 * (any other key is left out and reported as lost, except a key of another format's conversation,
 * a `MalformedInput`). Errors are located as in
 * `OpenAiFormat.decode` and name `openrouter`. Never throws.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => decoder.decode(name, input, options)

/**
 * The OpenRouter format as a {@link Codec.Codec}.
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
 * A Schema from the OpenRouter message list to a canonical conversation (default options), for
 * Schema pipelines such as `Schema.parseJson(OpenRouterFormat.schema)`. Its encoded side is
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
 * message is read with (`encryptedReasoning` included), and `choice`, the `index` of the choice to
 * read when the completion holds several; without it such a completion is a `MultipleChoices`
 * error.
 *
 * @category models
 * @since 0.2.0
 */
export interface ResponseOptions extends OpenAiFormat.ResponseOptions {}

/**
 * The tag of every error {@link decodeResponse} can fail with: {@link ResponseError} is exactly
 * these (test/ResponseErrors.test.ts holds the list to what the decoder answers).
 *
 * @category errors
 * @since 0.2.0
 */
export const responseErrors: typeof OpenAiFormat.responseErrors = OpenAiFormat.responseErrors

/**
 * What {@link decodeResponse} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.2.0
 */
export type ResponseError = OpenAiFormat.ResponseError

/**
 * The tag of every error {@link decodeStream} can fail with (besides the stream's own): {@link
 * StreamError} is exactly these.
 *
 * @category errors
 * @since 0.2.0
 */
export const streamErrors: typeof OpenAiFormat.streamErrors = OpenAiFormat.streamErrors

/**
 * What {@link decodeStream} can fail with (besides the stream's own errors), and nothing else.
 *
 * @category errors
 * @since 0.2.0
 */
export type StreamError = OpenAiFormat.StreamError

/**
 * Read an OpenRouter chat completion (the OpenAI shape, with `reasoning` / `reasoning_details`),
 * or one of its choices, into a {@link ModelResponse.ModelResponse}, as
 * `OpenAiFormat.decodeResponse` does; errors name `openrouter`. Never throws.
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
 * Fold a stream of OpenRouter chat completion chunks into the response {@link decodeResponse}
 * gives for the same answer sent whole (`reasoning_details` fragments merged by `index`).
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeStream = <E, R>(
  events: Stream.Stream<unknown, E, R>,
  options?: ResponseOptions
): Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R> =>
  streamDecoder.decodeStream(name, events, options) as Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R>
