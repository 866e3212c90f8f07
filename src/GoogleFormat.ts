/**
 * The Google Gemini format: a conversation as `{system_instruction, contents}`, ready for a
 * `generateContent` call, and back.
 *
 * **Encoding** reproduces the reference SDK's `convert_messages(messages, "google")` (openreward
 * 0.1.167) key for key:
 *
 * - the leading system messages become `system_instruction`: their text blocks joined with
 *   `"\n\n"`, or `null` when there is none; an image there, or a system message after the first
 *   non-system turn, is an error;
 * - every other message becomes one `{role, parts}` content, `"model"` for assistant turns and
 *   `"user"` otherwise (consecutive same-role turns are not merged);
 * - text → `{text}`, image → `{inline_data: {mime_type, data}}`, tool call →
 *   `{function_call: {name, args}}` (no id), tool result → `{function_response: {name, response:
 *   {output}}}` where `name` is the name of the tool call with that id anywhere in the conversation
 *   and `output` is the result's text blocks joined with `"\n"`;
 * - reasoning, an image inside a tool result and a tool result whose id no tool call has are
 *   errors.
 *
 * Options (all off by default) send camelCase keys for the JS SDK, the system instruction as a
 * `Content`, tool-call ids, error results under `response.error`, reasoning as thought parts, and
 * later system messages as user turns.
 *
 * **Decoding** reads what Gemini clients really send and store: the reference's shape, a full
 * request body (its request parameters, `generationConfig`, `tools`, ..., listed in `requestKeys`, are ignored; any other key is left out and reported as lost (`Codec.decodeReport`), except a key of another format's conversation, a `MalformedInput` naming it) or a bare `contents` array; snake_case
 * or camelCase keys; `null` as "not set" (Python `model_dump()` output); `system_instruction` as a
 * string or a `Content`, also inside an SDK `config`. Function calls without ids get deterministic
 * ids (`call_<content>_<part>`), and responses are paired with calls by id, else by name. Thought
 * parts and thought signatures become reasoning blocks. Content with no canonical form (`file_data`,
 * code execution, server-side tools) is an `UnsupportedContent` error, never dropped.
 *
 * @example
 * ```ts
 * import { Block, GoogleFormat, Message } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as assert from "node:assert"
 *
 * const wire = GoogleFormat.encode([
 *   Message.system("You are a support agent for Acme."),
 *   Message.user("My order #4411 hasn't arrived."),
 *   Message.assistant([Block.toolCall("tc_1", "lookup_order", { id: "4411" })]),
 *   Message.user([Block.toolResult("tc_1", "stalled at hub")])
 * ])
 * console.dir(Either.getOrThrow(wire), { depth: null })
 * ```
 *
 * ```text output
 * {
 *   system_instruction: 'You are a support agent for Acme.',
 *   contents: [
 *     {
 *       role: 'user',
 *       parts: [ { text: "My order #4411 hasn't arrived." } ]
 *     },
 *     {
 *       role: 'model',
 *       parts: [
 *         {
 *           function_call: { name: 'lookup_order', args: { id: '4411' } }
 *         }
 *       ]
 *     },
 *     {
 *       role: 'user',
 *       parts: [
 *         {
 *           function_response: {
 *             name: 'lookup_order',
 *             response: { output: 'stalled at hub' }
 *           }
 *         }
 *       ]
 *     }
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
import * as losses from "./internal/encodeLosses.js"
import * as decoder from "./internal/google/decode.js"
import * as encoder from "./internal/google/encode.js"
import * as responseDecoder from "./internal/google/response.js"
import * as internal from "./internal/google/schema.js"
import * as streamDecoder from "./internal/google/stream.js"
import * as Report from "./internal/report.js"
import type * as Json from "./Json.js"
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
 * The spelling of keys. `"snake"` is the reference SDK's (and the Python SDK's); `"camel"` is the
 * REST API's canonical spelling and the only one the JS SDK (`@google/genai`) reads.
 *
 * @category models
 * @since 0.1.0
 */
export type Casing = "snake" | "camel"

/**
 * Base64 bytes with their MIME type.
 *
 * @category models
 * @since 0.1.0
 */
export type Blob<C extends Casing = "snake"> = C extends "camel" ? {
    readonly mimeType: string
    readonly data: string
  } :
  {
    readonly mime_type: string
    readonly data: string
  }

/**
 * A function call. `id` is sent only with the `toolCallIds` option.
 *
 * @category models
 * @since 0.1.0
 */
export interface FunctionCall {
  readonly id?: string
  readonly name: string
  readonly args: Json.JsonObject
}

/**
 * The `response` of a function response: the result's text under `output`, or under `error` for an
 * error result with the `toolErrors: "error"` option.
 *
 * @category models
 * @since 0.1.0
 */
export type ResponsePayload = { readonly output: string } | { readonly error: string }

/**
 * A function response, addressed to its call by the function's `name`. `id` is sent only with the
 * `toolCallIds` option.
 *
 * @category models
 * @since 0.1.0
 */
export interface FunctionResponse {
  readonly id?: string
  readonly name: string
  readonly response: ResponsePayload
}

/**
 * A text part; `thought: true` marks reasoning sent as a thought (the `reasoning: "thought"` option).
 *
 * @category models
 * @since 0.1.0
 */
export type TextPart<C extends Casing = "snake"> = C extends "camel" ? {
    readonly text: string
    readonly thought?: true
    readonly thoughtSignature?: string
  } :
  {
    readonly text: string
    readonly thought?: true
    readonly thought_signature?: string
  }

/**
 * An inline image.
 *
 * @category models
 * @since 0.1.0
 */
export type InlineDataPart<C extends Casing = "snake"> = C extends "camel" ? {
    readonly inlineData: Blob<"camel">
    readonly thoughtSignature?: string
  } :
  {
    readonly inline_data: Blob<"snake">
    readonly thought_signature?: string
  }

/**
 * A tool call.
 *
 * @category models
 * @since 0.1.0
 */
export type FunctionCallPart<C extends Casing = "snake"> = C extends "camel" ? {
    readonly functionCall: FunctionCall
    readonly thoughtSignature?: string
  } :
  {
    readonly function_call: FunctionCall
    readonly thought_signature?: string
  }

/**
 * A tool result.
 *
 * @category models
 * @since 0.1.0
 */
export type FunctionResponsePart<C extends Casing = "snake"> = C extends "camel" ? {
    readonly functionResponse: FunctionResponse
  } :
  {
    readonly function_response: FunctionResponse
  }

/**
 * Any part encode produces.
 *
 * @category models
 * @since 0.1.0
 */
export type Part<C extends Casing = "snake"> =
  | TextPart<C>
  | InlineDataPart<C>
  | FunctionCallPart<C>
  | FunctionResponsePart<C>

/**
 * One turn: `"model"` for assistant messages, `"user"` for the others.
 *
 * @category models
 * @since 0.1.0
 */
export interface Content<C extends Casing = "snake"> {
  readonly role: "user" | "model"
  readonly parts: ReadonlyArray<Part<C>>
}

/**
 * The system instruction: a string (the reference SDK's shape, which the SDKs accept), a `Content`
 * with one text part (the `systemInstruction: "content"` option, the REST API's shape), or `null`.
 *
 * @category models
 * @since 0.1.0
 */
export type SystemInstruction = string | { readonly parts: ReadonlyArray<{ readonly text: string }> } | null

/**
 * A request in one spelling.
 *
 * @category models
 * @since 0.1.0
 */
export type Request<C extends Casing = "snake"> = C extends "camel" ? {
    readonly systemInstruction: SystemInstruction
    readonly contents: ReadonlyArray<Content<"camel">>
  } :
  {
    readonly system_instruction: SystemInstruction
    readonly contents: ReadonlyArray<Content<"snake">>
  }

/**
 * What encode produces, in either spelling.
 *
 * @category models
 * @since 0.1.0
 */
export type Wire = Request<"snake"> | Request<"camel">

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

/**
 * Inline bytes as decode reads them: `mime_type` or `mimeType`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputBlob = internal.InputBlob

/**
 * @category models
 * @since 0.1.0
 */
export interface InputBlob extends Schema.Schema.Type<typeof InputBlob> {}

/**
 * A function call as decode reads it: `id` optional, `args` any JSON (a non-object is an
 * `InvalidToolArguments` error, a missing one means `{}`). `partialArgs` holding arguments, or
 * `willContinue: true`, make it a fragment of a call streamed in parts, a `MalformedInput` here:
 * {@link decodeStream} assembles fragments into whole calls.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputFunctionCall = internal.InputFunctionCall

/**
 * @category models
 * @since 0.1.0
 */
export interface InputFunctionCall extends Schema.Schema.Type<typeof InputFunctionCall> {}

/**
 * One part of a multimodal function response (Gemini 3): inline images are read, `file_data` is
 * unsupported.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputFunctionResponsePart = internal.InputFunctionResponsePart

/**
 * @category models
 * @since 0.1.0
 */
export interface InputFunctionResponsePart extends Schema.Schema.Type<typeof InputFunctionResponsePart> {}

/**
 * A function response as decode reads it: `id` optional, `response` a JSON object (a protobuf
 * `Struct`), `parts` optional.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputFunctionResponse = internal.InputFunctionResponse

/**
 * @category models
 * @since 0.1.0
 */
export interface InputFunctionResponse extends Schema.Schema.Type<typeof InputFunctionResponse> {}

/**
 * A part as decode reads it: every field in either spelling, `null` as unset. Exactly one data field
 * must be set; `file_data`, `executable_code`, `code_execution_result`, `tool_call` and
 * `tool_response` are read only to be reported as unsupported.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputPart = internal.InputPart

/**
 * @category models
 * @since 0.1.0
 */
export interface InputPart extends Schema.Schema.Type<typeof InputPart> {}

/**
 * A content as decode reads it: `role` `"user"` (also when unset), `"model"` or the legacy
 * `"function"` (read as user); missing `parts` mean none.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputContent = internal.InputContent

/**
 * @category models
 * @since 0.1.0
 */
export interface InputContent extends Schema.Schema.Type<typeof InputContent> {}

/**
 * A bare `contents` list, the second transcript shape decode reads.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputContents = internal.InputContents

/**
 * @category models
 * @since 0.2.0
 */
export type InputContents = typeof InputContents.Type

/**
 * A system instruction as decode reads it: a string (as the reference SDK emits it) or a `Content`
 * of text (and inline image) parts, whatever its role.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputSystemInstruction = internal.InputSystemInstruction

/**
 * @category models
 * @since 0.1.0
 */
export type InputSystemInstruction = typeof InputSystemInstruction.Type

/**
 * A request body as decode reads it: `contents`, and the system instruction at the top level or in
 * an SDK `config` (in one place, in one spelling). The request parameters ({@link requestKeys}) are ignored; any
 * other key is left out and reported as lost, except a key of another format's conversation (a
 * `MalformedInput`).
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputRequest = internal.InputRequest

/**
 * @category models
 * @since 0.1.0
 */
export interface InputRequest extends Schema.Schema.Type<typeof InputRequest> {}

/**
 * The keys of a request body: where the conversation is and the API's request parameters (`generationConfig`, `tools`, `safetySettings`, ..., in either spelling; an SDK `config` is read for its system instruction), which decoding accepts and
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
 * Everything {@link decode} reads, as one Schema that only validates: a request body
 * ({@link InputRequest}, with the request parameters of {@link requestKeys}, accepted and ignored) or
 * a bare `contents` array. It is the encoded side of {@link schema}, so `JSONSchema.make` and
 * `Schema.encodedSchema` of that describe the wire.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Input = internal.Input

/**
 * @category models
 * @since 0.1.0
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
   * The spelling of keys. `"snake"` (default) as the reference SDK and the Python SDK write them;
   * `"camel"` for the JS SDK (`@google/genai`), which does not read snake_case parts.
   */
  readonly casing?: Casing | undefined
  /**
   * The shape of the system instruction. `"string"` (default): the joined text, as the SDKs accept
   * it in their config. `"content"`: `{parts: [{text}]}`, as the REST API requires it.
   */
  readonly systemInstruction?: "string" | "content" | undefined
  /**
   * Send each tool call's id on its `function_call` and `function_response` (default `false`, as
   * the reference). The Gemini API accepts ids and uses them to pair parallel calls; Vertex AI
   * rejects them.
   */
  readonly toolCallIds?: boolean | undefined
  /**
   * Where the text of a tool result with `is_error: true` goes. `"output"` (default, as the
   * reference, which loses the error flag): `response.output`. `"error"`: `response.error`, the key
   * Gemini documents for error details.
   */
  readonly toolErrors?: "output" | "error" | undefined
  /**
   * Reasoning blocks. `"error"` (default, as the reference): an `UnsupportedBlock` error.
   * `"thought"`: a `{text, thought: true}` part with the signature as `thought_signature`; a
   * reasoning block with empty text and a signature followed by a text, image or tool call block
   * instead puts its signature on that block's part (where Gemini puts signatures).
   */
  readonly reasoning?: "error" | "thought" | undefined
  /**
   * A system message after the first non-system turn. `"error"` (default, as the reference): an
   * `UnsupportedMessage` error. `"user"`: sent in place as a user turn with the same content.
   */
  readonly laterSystem?: "error" | "user" | undefined
  /**
   * A provider block (`Block.ProviderBlock`) of another provider: `"error"` (default): an
   * `UnsupportedBlock` error; `"omit"`: left out; `"text"`: a text part of what `Prompt.flatten`
   * renders for it. Google's own provider blocks are written back as the parts they came as.
   */
  readonly providerContent?: "error" | "omit" | "text" | undefined
  /**
   * A tool-call id that an earlier call already has (long agent trajectories reuse them), which
   * Gemini cannot pair by when `toolCallIds` sends the ids (without `toolCallIds`, responses are always named after the call they pair with by position). `"error"` (default): an `UnsupportedBlock` error at the second call. `"rename"`: every reused
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
   * Content Gemini hosts that the canonical model has no block for: `"refuse"` (default): an
   * `UnsupportedContent` error naming it; `"keep"`: a provider block holding the part as it came.
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
export const encodeErrors = ["MisplacedBlock", "UnsupportedBlock", "UnsupportedMessage", "UnmatchedToolResult"] as const

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
export const decodeErrors = [
  "MalformedInput",
  "MisplacedBlock",
  "UnmatchedToolResult",
  "InvalidToolArguments",
  "UnsupportedContent"
] as const

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
  losses.google
)

/**
 * A canonical conversation as a Gemini request. With default options the result equals, key order
 * included, the reference SDK's `convert_messages(messages, "google")`; every case where the
 * reference raises is a tagged error, and when there are several the one the reference raises is
 * reported: misplaced blocks first, then system messages in order, then the other blocks in order
 * (for a tool result, its missing call before an image inside it).
 *
 * @category encoding
 * @since 0.1.0
 */
export function encode(
  conversation: Conversation.Conversation,
  options?: EncodeOptions & { readonly casing?: "snake" | undefined }
): Either.Either<Request<"snake">, EncodeError>
export function encode(
  conversation: Conversation.Conversation,
  options: EncodeOptions & { readonly casing: "camel" }
): Either.Either<Request<"camel">, EncodeError>
export function encode(
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Wire, EncodeError>
export function encode(
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Wire, EncodeError> {
  return reporting(conversation, options)
}

/**
 * A Gemini transcript (untrusted input: a request body or a bare `contents` array) as a canonical
 * conversation. Never throws.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => decoder.decode(input, options)

/**
 * The Google codec.
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
 * A Schema from the Gemini wire shape to a canonical conversation (default options), for Schema
 * pipelines such as `Schema.parseJson(GoogleFormat.schema)`. Its encoded side is {@link Input}:
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
 * Options of {@link decodeResponse} and {@link decodeStream}. `candidate`: the `index` of the
 * candidate to read when the response holds several (`candidateCount > 1`); without it such a
 * response is a `MultipleChoices` error. `toolCallIdPrefix`: how the ids of function calls that
 * came without one begin (default `call_<responseId>`, or `call_<hash of the parts>` without a
 * response id); the part's index follows. `providerContent`: as {@link DecodeOptions} says.
 *
 * @category models
 * @since 0.2.0
 */
export interface ResponseOptions extends responseDecoder.ResponseOptions, DecodeOptions {}

/**
 * The tag of every error {@link decodeResponse} can fail with: {@link ResponseError} is exactly
 * these (test/ResponseErrors.test.ts holds the list to what the decoder answers).
 *
 * @category errors
 * @since 0.2.0
 */
export const responseErrors = [
  "MalformedInput",
  "MisplacedBlock",
  "InvalidToolArguments",
  "UnsupportedContent",
  "MultipleChoices",
  "NoAnswer"
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
 * Read a Gemini `GenerateContentResponse`, as `models.generateContent` returns it, or one of its
 * candidates, into a {@link ModelResponse.ModelResponse}: the assistant turn (its parts read as
 * {@link decode} reads a model turn), the stop reason (`STOP` → `stop`, or `tool_calls` when the
 * turn calls functions; `MAX_TOKENS` / `CONTINUATION` → `max_tokens`; `SAFETY`, `RECITATION`,
 * `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`, `IMAGE_*` filters → `content_filter`; anything else
 * `other`) and the usage (`inputTokens` counts the tool-use prompt, `outputTokens` the thoughts).
 * Nothing Gemini sends is dropped: a part's other fields go to its block's `detail.google`, the
 * candidate's (`groundingMetadata`, `citationMetadata`, `urlContextMetadata`, `safetyRatings`,
 * `finishMessage`, ...) to the message's `detail.google`, the response's (`usageMetadata` as sent,
 * `createTime`, `promptFeedback`, ...) to the response's `detail.google` (docs/formats/google.md,
 * "What an answer keeps"). A blocked prompt (no candidates, `promptFeedback.blockReason`) is a
 * `NoAnswer` error carrying the block reason. Never throws.
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
 * Fold a stream of `GenerateContentResponse` chunks (what `models.generateContentStream` yields;
 * from the SDK's async generator with `Stream.fromAsyncIterable`) into the response
 * {@link decodeResponse} gives for the same answer sent whole (adjacent text of the same kind
 * joined, the candidate's metadata merged over the chunks). Function-call arguments streamed in
 * parts (`partialArgs`, `willContinue`: Vertex AI and Gemini 3 with `streamFunctionCallArguments`)
 * are assembled into one tool call. A stream that ends before a candidate's `finishReason`, or
 * while a call's arguments are still coming, fails with `IncompleteStream` (naming the call).
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeStream = <E, R>(
  events: Stream.Stream<unknown, E, R>,
  options?: ResponseOptions
): Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R> =>
  streamDecoder.decodeStream(events, options) as Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R>
