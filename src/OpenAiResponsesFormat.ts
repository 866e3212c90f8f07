/**
 * The OpenAI Responses API format (`openai-responses`): a conversation as the `input` items of a
 * `responses.create` request, and back; and the model's answer (a `Response` object, or the events
 * of a streamed one) as a canonical assistant turn.
 *
 * The reference SDK has no such format (its `get_messages` speaks Chat Completions, Anthropic and
 * Gemini only); this library converts on the client side, so `session.getMessages({ format:
 * "openai-responses" })` works against every server. Its tool shape is the one
 * `listTools({ format: "openai" })` already returns (pass `strict: false`, see
 * docs/formats/openai-responses.md).
 *
 * **Encoding** writes one item per piece of the conversation, in order:
 *
 * - system and user text and images: `{type: "message", role, content}`, `content` a plain string
 *   when the message is exactly one text block, a list of `input_text` / `input_image` (data URL)
 *   parts otherwise;
 * - a tool result: `{type: "function_call_output", call_id, output}`, before the rest of its user
 *   turn; `output` is a string when the result is one text block, a list of parts otherwise (images
 *   included: the Responses API takes them);
 * - assistant text: `{type: "message", role: "assistant", content: "..."}`, or, when the block
 *   came from a Responses item (its `detail.openai.id`), that item again with `output_text` parts;
 * - a tool call: `{type: "function_call", call_id, name, arguments, id?}`;
 * - reasoning that came from a Responses reasoning item (it has the item's id):
 *   `{type: "reasoning", id, summary, encrypted_content?}`. Other reasoning cannot be sent (the API
 *   needs the item id): an `UnsupportedBlock` error unless {@link EncodeOptions} says otherwise.
 *
 * **Decoding** reads an item list or a request body `{input, instructions?}`, and groups items
 * into canonical turns: a run of assistant items (messages, reasoning, function calls) is one
 * assistant turn, function call outputs join the user turn that follows. Item ids, `phase`,
 * refusals and reasoning grouping go into the blocks' `detail.openai`, so that the turn is sent
 * back as it came. Items with no canonical form (`item_reference`, built-in tool calls, custom tool
 * calls, files, ...) are `UnsupportedContent` errors, never dropped.
 *
 * @example
 * ```ts
 * import { Block, Message, OpenAiResponsesFormat } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as assert from "node:assert"
 *
 * const conversation = [
 *   Message.system("Be terse."),
 *   Message.user("Where is order 4411?"),
 *   Message.assistant([Block.toolCall("call_1", "lookup_order", { id: "4411" })]),
 *   Message.user([Block.toolResult("call_1", "stalled at hub")])
 * ]
 * const input = Either.getOrThrow(OpenAiResponsesFormat.encode(conversation))
 * assert.deepStrictEqual(input, [
 *   { type: "message", role: "system", content: "Be terse." },
 *   { type: "message", role: "user", content: "Where is order 4411?" },
 *   { type: "function_call", call_id: "call_1", name: "lookup_order", arguments: "{\"id\": \"4411\"}" },
 *   { type: "function_call_output", call_id: "call_1", output: "stalled at hub" }
 * ])
 * assert.deepStrictEqual(Either.getOrThrow(OpenAiResponsesFormat.decode(input)), conversation)
 * ```
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import * as Codec from "./Codec.js"
import type * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import * as losses from "./internal/encodeLosses.js"
import * as decoder from "./internal/openaiResponses/decode.js"
import * as encoder from "./internal/openaiResponses/encode.js"
import * as responseDecoder from "./internal/openaiResponses/response.js"
import * as internal from "./internal/openaiResponses/schema.js"
import * as streamDecoder from "./internal/openaiResponses/stream.js"
import * as Report from "./internal/report.js"
import type * as ModelResponse from "./ModelResponse.js"

/**
 * The format this module speaks.
 *
 * @category constants
 * @since 0.2.0
 */
export const name = internal.name

// -----------------------------------------------------------------------------
// wire: what encode produces
// -----------------------------------------------------------------------------

/**
 * A text part of a system, user or tool-output content list.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputText = internal.InputText

/**
 * @category models
 * @since 0.2.0
 */
export interface InputText extends Schema.Schema.Type<typeof InputText> {}

/**
 * An image part. Encoding writes the image inline, as a `data:<mime>;base64,<data>` URL, with
 * `detail: "auto"`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputImage = internal.InputImage

/**
 * @category models
 * @since 0.2.0
 */
export interface InputImage extends Schema.Schema.Type<typeof InputImage> {}

/**
 * A part of an input content list.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputContent = internal.InputContent

/**
 * @category models
 * @since 0.2.0
 */
export type InputContent = InputText | InputImage

/**
 * Message content: a plain string when the canonical message is exactly one text block, a list of
 * parts otherwise.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Content = internal.Content

/**
 * @category models
 * @since 0.2.0
 */
export type Content = string | ReadonlyArray<InputContent>

/**
 * `phase` of an assistant message, kept as the model wrote it (OpenAI: dropping it can degrade
 * newer models).
 *
 * @category schemas
 * @since 0.2.0
 */
export const Phase = internal.Phase

/**
 * @category models
 * @since 0.2.0
 */
export type Phase = typeof Phase.Type

/**
 * A system, developer or user message (the SDK's `EasyInputMessage`).
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputMessage = internal.InputMessage

/**
 * @category models
 * @since 0.2.0
 */
export interface InputMessage extends Schema.Schema.Type<typeof InputMessage> {}

/**
 * Assistant text that did not come from a Responses item: an `EasyInputMessage` with string
 * content, one per text block.
 *
 * @category schemas
 * @since 0.2.0
 */
export const AssistantMessage = internal.AssistantMessage

/**
 * @category models
 * @since 0.2.0
 */
export interface AssistantMessage extends Schema.Schema.Type<typeof AssistantMessage> {}

/**
 * An `output_text` part of an output message. Annotations (citations) are not kept: `[]`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const OutputText = internal.OutputText

/**
 * @category models
 * @since 0.2.0
 */
export interface OutputText extends Schema.Schema.Type<typeof OutputText> {}

/**
 * A refusal part of an output message.
 *
 * @category schemas
 * @since 0.2.0
 */
export const OutputRefusal = internal.OutputRefusal

/**
 * @category models
 * @since 0.2.0
 */
export interface OutputRefusal extends Schema.Schema.Type<typeof OutputRefusal> {}

/**
 * An assistant message sent back as the output item it came from (its id, `output_text` and
 * `refusal` parts, `phase`): the SDK's `ResponseOutputMessage`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const OutputMessage = internal.OutputMessage

/**
 * @category models
 * @since 0.2.0
 */
export interface OutputMessage extends Schema.Schema.Type<typeof OutputMessage> {}

/**
 * A reasoning summary entry.
 *
 * @category schemas
 * @since 0.2.0
 */
export const SummaryText = internal.SummaryText

/**
 * @category models
 * @since 0.2.0
 */
export interface SummaryText extends Schema.Schema.Type<typeof SummaryText> {}

/**
 * Raw reasoning text (open-weight models served behind the Responses API expose it).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ReasoningText = internal.ReasoningText

/**
 * @category models
 * @since 0.2.0
 */
export interface ReasoningText extends Schema.Schema.Type<typeof ReasoningText> {}

/**
 * A reasoning item, sent back as it came: its id, its summary entries (one per canonical reasoning
 * block), its raw `content` if it had any, and its `encrypted_content` (the canonical signature),
 * which stateless requests (`store: false`) need.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Reasoning = internal.Reasoning

/**
 * @category models
 * @since 0.2.0
 */
export interface Reasoning extends Schema.Schema.Type<typeof Reasoning> {}

/**
 * A function tool call. `call_id` is the canonical tool-call id; `id` (the `fc_...` item id) is
 * written when the block came from a Responses item. `arguments` is the input serialized as
 * Python's `json.dumps` does (as `JSON.stringify` does with `toolArguments: "json"`).
 *
 * @category schemas
 * @since 0.2.0
 */
export const FunctionCall = internal.FunctionCall

/**
 * @category models
 * @since 0.2.0
 */
export interface FunctionCall extends Schema.Schema.Type<typeof FunctionCall> {}

/**
 * A tool result. There is no error flag in the Responses API: `is_error` is not sent.
 *
 * @category schemas
 * @since 0.2.0
 */
export const FunctionCallOutput = internal.FunctionCallOutput

/**
 * @category models
 * @since 0.2.0
 */
export interface FunctionCallOutput extends Schema.Schema.Type<typeof FunctionCallOutput> {}

/**
 * Any item encoding produces.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Item = internal.Item

/**
 * @category models
 * @since 0.2.0
 */
export type Item = InputMessage | AssistantMessage | OutputMessage | Reasoning | FunctionCall | FunctionCallOutput

/**
 * The encoded conversation: the `input` of a Responses request.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Wire = internal.Wire

/**
 * @category models
 * @since 0.2.0
 */
export type Wire = ReadonlyArray<Item>

// -----------------------------------------------------------------------------
// the provider metadata blocks carry
// -----------------------------------------------------------------------------

/**
 * What a block decoded from a Responses item keeps of it, under `detail.openai`, so that it is sent
 * back as the same item: the item `id` (`msg_...`, `rs_...`, `fc_...`), an assistant message's
 * `phase`, and which part the block was (`refusal` of a message, `reasoning_text` of a reasoning
 * item's raw `content`; absent for `output_text` and `summary_text`).
 *
 * @category schemas
 * @since 0.2.0
 */
export const ItemDetail = internal.ItemDetail

/**
 * @category models
 * @since 0.2.0
 */
export interface ItemDetail extends Schema.Schema.Type<typeof ItemDetail> {}

/**
 * The key of a block's `detail` that holds its {@link ItemDetail}.
 *
 * @category constants
 * @since 0.2.0
 */
export const detailKey = internal.detailKey

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

/**
 * An image part as decoding reads it: only a base64 data URL has a canonical form (`file_id` and
 * other URLs are reported).
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputImagePart = internal.InputImagePart

/**
 * Any content part decoding reads: `input_text`, `input_image`, `output_text`, `refusal`, and any
 * other type (`input_file`, `input_audio`, ...), read only to report it.
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
 * A message item as decoding reads it (`type` may be absent, as in the SDK's `EasyInputMessage`).
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputMessageItem = internal.InputMessageItem

/**
 * A reasoning item as decoding reads it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputReasoningItem = internal.InputReasoningItem

/**
 * A function call item as decoding reads it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputFunctionCallItem = internal.InputFunctionCallItem

/**
 * A function call output item as decoding reads it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputFunctionCallOutputItem = internal.InputFunctionCallOutputItem

/**
 * An item of any other type (`item_reference`, `web_search_call`, `custom_tool_call`, ...): read
 * only to report it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputOtherItem = internal.InputOtherItem

/**
 * Any input item decoding reads.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputItem = internal.InputItem

/**
 * @category models
 * @since 0.2.0
 */
export type InputItem = typeof InputItem.Type

/**
 * The keys of a request body: the conversation (`input`, `instructions`) and the Responses API's
 * request parameters (`model`, `tools`, `reasoning`, ...), which decoding accepts and ignores. Any
 * other key is left out and reported as lost (`Codec.decodeReport`), except a key of another
 * format's conversation: a `MalformedInput` naming it (another provider's body read with this
 * format says so).
 *
 * @category schemas
 * @since 0.1.0
 */
export const requestKeys: { readonly conversation: ReadonlyArray<string>; readonly parameters: ReadonlyArray<string> } =
  internal.requestKeys

/**
 * Everything {@link decode} reads, as one Schema that only validates: a request body (`input`, a
 * string or items; `instructions`, a string or `null`; and the request parameters of
 * {@link requestKeys}, accepted and ignored) or a bare item list. It is the encoded side of
 * {@link schema}, so `JSONSchema.make` and `Schema.encodedSchema` of that describe the wire.
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
 * Encoding options.
 *
 * @category models
 * @since 0.2.0
 */
export interface EncodeOptions extends Codec.Reporting {
  /**
   * What to do with a reasoning block that did not come from a Responses reasoning item (it has no
   * `detail.openai.id`: reasoning written by another provider or by hand), which the API cannot
   * take (a reasoning item needs its id). `"fail"` (default): an `UnsupportedBlock` error. `"omit"`:
   * leave it out. `"text"`: send its text as assistant text.
   */
  readonly reasoningWithoutId?: "fail" | "omit" | "text" | undefined
  /** The role system turns are sent with. Default `"system"`; newer models also read `"developer"`. */
  readonly systemRole?: "system" | "developer" | undefined
  /**
   * How tool-call `arguments` are written. `"python"` (default): as Python's `json.dumps` writes
   * them, the same text the `openai` format sends. `"json"`: `JSON.stringify`.
   */
  readonly toolArguments?: "python" | "json" | undefined
  /**
   * A provider block (`Block.ProviderBlock`) of another provider: `"error"` (default): an
   * `UnsupportedBlock` error; `"omit"`: left out; `"text"`: assistant (or user) text of what
   * `Prompt.flatten` renders for it. The Responses API's own provider blocks are input items,
   * written back in their place as they came.
   */
  readonly providerContent?: "error" | "omit" | "text" | undefined
}

/**
 * Decoding options (of {@link decode}, {@link decodeResponse} and {@link decodeStream}).
 *
 * @category models
 * @since 0.2.0
 */
export interface DecodeOptions extends Codec.Reporting {
  /**
   * Items the Responses API hosts that the canonical model has no block for (`web_search_call`,
   * `file_search_call`, `code_interpreter_call`, `image_generation_call`, `local_shell_call`,
   * `shell_call`, `apply_patch_call`, `mcp_list_tools`, `mcp_call`, `mcp_approval_request`,
   * `custom_tool_call`, `tool_search_call`, `compaction`, their `*_output` items, ...: every item
   * type but `message`, `reasoning`, `function_call` and `function_call_output`): `"refuse"`
   * (default): an `UnsupportedContent` error naming the item; `"keep"`: a provider block of kind
   * the item's `type` holding the item as it came, which {@link encode} writes back in its place.
   * In a transcript, an `mcp_approval_response` or `*_output` item goes in a user turn (what the
   * client sends back), any other in an assistant turn; in an answer, every item is the assistant's.
   */
  readonly providerContent?: "refuse" | "keep" | undefined
  /**
   * A `function_call`'s `arguments` that are not a JSON object (a model's turn cut at the token
   * limit, a stray quote). `"error"` (default): an `InvalidToolArguments` error. `"keep"`: the call
   * is kept, with input `{}` and the text and the reason under `detail.invalid_arguments`
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
    encoder.encode(conversation, options),
  losses.openaiResponses
)

/**
 * Convert a canonical conversation to Responses `input` items.
 *
 * Fails with `MisplacedBlock` (a block in a role that may not hold it; checked first, for the whole
 * conversation) or `UnsupportedBlock` (an image in an assistant turn, which the API takes only as
 * `output_text`; a reasoning block without a Responses item id, unless `reasoningWithoutId` says
 * otherwise).
 *
 * @category encoding
 * @since 0.2.0
 */
export const encode = (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Wire, EncodeError> => reporting(conversation, options)

/**
 * Read Responses `input` items (an array, or a request body `{input, instructions?}`; a string
 * `input` is one user message, `instructions` a leading system turn) into a canonical conversation.
 *
 * Errors locate the input: `messageIndex` indexes the item list, `blockIndex` an item's `content`
 * or `summary` entries. Fails with `MalformedInput`, `UnsupportedContent` (items and parts with no
 * canonical form) or `InvalidToolArguments`. Never throws.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => decoder.decode(input, options)

/**
 * The OpenAI Responses format as a {@link Codec.Codec}.
 *
 * @category codecs
 * @since 0.2.0
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
 * A Schema from Responses `input` items (or a request body) to a canonical conversation (default
 * options), for Schema pipelines such as `Schema.parseJson(OpenAiResponsesFormat.schema)`. Its
 * encoded side is {@link Input}: `Schema.encodedSchema` and `JSONSchema.make` of it describe the
 * wire.
 * Its encode writes exactly what {@link encode} writes; every failure carries the tagged error of
 * {@link decode} or {@link encode} (its message the error's), which `schema.decodeError` /
 * `schema.encodeError` give back.
 *
 * @category schemas
 * @since 0.2.0
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
 * A Responses API `Response` object as `decodeResponse` reads it: what `client.responses.create`
 * returns (the SDK's `Response` type is assignable to it), or its JSON.
 *
 * @category models
 * @since 0.2.0
 */
export interface ResponseObject {
  readonly output: ReadonlyArray<unknown>
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
 * Read a Responses API answer into a canonical assistant turn, with its stop reason, usage and
 * refusal. Output items in order: `message` (`output_text` → text, `refusal` → text and
 * `refusal`; a part's `annotations` and `logprobs` kept in the block's `detail.openai`),
 * `reasoning` (one block per summary entry, `encrypted_content` as the signature), `function_call`
 * (a tool call; `call_id` is its id; `caller`, `namespace` and `status` kept in
 * `detail.openai.item` and sent back). Every other item type (the hosted tools' items) is an
 * `UnsupportedContent` error naming it, or with `providerContent: "keep"` a provider block holding
 * the item as it came ({@link DecodeOptions}). An error body (`{error: {...}}`) or a `failed`
 * response is a `ProviderError` with the provider's code and message; a background response still
 * `queued` or `in_progress` is a `NoAnswer`. The Response's other keys are the answer's
 * `detail.openai`.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeResponse = (
  response: ResponseObject | unknown,
  options?: DecodeOptions
): Either.Either<ModelResponse.ModelResponse, ResponseError> =>
  // the internal decoder is typed with the wide union; the test holds it to `responseErrors`
  responseDecoder.decodeResponse(response, options) as Either.Either<ModelResponse.ModelResponse, ResponseError>

/**
 * Fold the events of a streamed response (`client.responses.create({ stream: true })`, or its
 * server-sent events parsed as JSON) into the same result as {@link decodeResponse}. The final turn
 * is built from the finished output items (`response.output_item.done`), so the deltas need not be
 * complete; a stream that ends without `response.completed` (or `.incomplete`), or goes on after it
 * (a second response), is an `IncompleteStream`; an `error` event is a `ProviderError` (its
 * `error.code` and `error.message`, or the same fields at the top of the event) at that event, and
 * `response.failed` is the failed response's.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeStream = <E, R>(
  events: Stream.Stream<unknown, E, R>,
  options?: DecodeOptions
): Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R> =>
  streamDecoder.decodeStream(events, options) as Effect.Effect<ModelResponse.ModelResponse, E | StreamError, R>
