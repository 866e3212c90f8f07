/**
 * The ShareGPT format: a conversation as the record `{"conversations": [{"from", "value"}, ...]}`
 * that ShareGPT dumps, FastChat and LLaMA-Factory store, and back.
 *
 * **Encoding** writes a record: the first message, when it is a system message, as the record's
 * `system` (LLaMA-Factory's place for it; `systemPrompt: "turn"` writes a `system` turn instead), then one
 * turn per message (`system`, `human`, `gpt`, each holding the message's texts joined with `"\n"`),
 * with LLaMA-Factory's tool turns: an assistant's tool calls as one `function_call` turn (the JSON of
 * `{"name", "arguments"}`, or of a list of them for several calls) after its `gpt` turn, if it has
 * text, and each tool result as an `observation` turn (its texts joined with `"\n"`) before the user's
 * `human` turn, if it has text. ShareGPT has no tool-call ids: the ids are left out (reported to
 * `onLoss`) and results must answer the calls in the order they were made (`UnmatchedToolResult`
 * otherwise). A turn holds text only: an image is an `UnsupportedBlock`, and so is reasoning unless
 * {@link EncodeOptions} says to leave it out.
 *
 * **Decoding** reads a record or a bare list of turns, with every role name ShareGPT data is found
 * with ({@link roles}: `human` or `user`; `gpt`, `assistant`, `chatgpt`, `bing`, `bard` or `model`;
 * `system`; `function_call` and `observation`), and the record's `system`. Tool calls get the ids
 * `call_<turn>_<k>`, and each observation answers the earliest call not answered yet. The record's
 * `tools` (a JSON string of tool definitions) and any other key are left out of the conversation and
 * reported as lost (`Codec.decodeReport`); media lists (`images`, ...) and preference records
 * (`chosen`, `rejected`) are errors, never dropped.
 *
 * @example
 * ```ts
 * import { Block, Message, ShareGptFormat } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as assert from "node:assert"
 *
 * const conversation = [
 *   Message.system("You track orders."),
 *   Message.user("Where is order 4411?"),
 *   Message.assistant([Block.toolCall("call_1_0", "lookup_order", { id: "4411" })]),
 *   Message.user([Block.toolResult("call_1_0", "stalled at hub")]),
 *   Message.assistant("It is stalled at the hub.")
 * ]
 * const record = Either.getOrThrow(ShareGptFormat.encode(conversation))
 * console.dir(record, { depth: null })
 * assert.deepStrictEqual(Either.getOrThrow(ShareGptFormat.decode(record)), conversation)
 * ```
 *
 * ```text output
 * {
 *   system: 'You track orders.',
 *   conversations: [
 *     { from: 'human', value: 'Where is order 4411?' },
 *     {
 *       from: 'function_call',
 *       value: '{"name":"lookup_order","arguments":{"id":"4411"}}'
 *     },
 *     { from: 'observation', value: 'stalled at hub' },
 *     { from: 'gpt', value: 'It is stalled at the hub.' }
 *   ]
 * }
 * ```
 *
 * @since 0.2.0
 */
import type * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import * as Codec from "./Codec.js"
import type * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import * as losses from "./internal/encodeLosses.js"
import * as Report from "./internal/report.js"
import * as decoder from "./internal/sharegpt/decode.js"
import * as encoder from "./internal/sharegpt/encode.js"
import * as internal from "./internal/sharegpt/schema.js"

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
 * The roles encoding writes.
 *
 * @category schemas
 * @since 0.2.0
 */
export const From = internal.From

/**
 * @category models
 * @since 0.2.0
 */
export type From = typeof From.Type

/**
 * One turn: who speaks, and what (one string).
 *
 * @category schemas
 * @since 0.2.0
 */
export const Turn = internal.Turn

/**
 * @category models
 * @since 0.2.0
 */
export interface Turn extends Schema.Schema.Type<typeof Turn> {}

/**
 * The encoded conversation: a ShareGPT record, its `system` when the conversation starts with a
 * system message (and {@link EncodeOptions} `systemPrompt` is not `"turn"`).
 *
 * @category schemas
 * @since 0.2.0
 */
export const Wire = internal.Wire

/**
 * @category models
 * @since 0.2.0
 */
export interface Wire extends Schema.Schema.Type<typeof Wire> {}

/**
 * A function call as a `function_call` turn's value holds it, as JSON text (one, or a list for
 * several calls). Decoding reads `arguments` as a JSON object, or as JSON text of one.
 *
 * @category schemas
 * @since 0.2.0
 */
export const FunctionCall = internal.FunctionCall

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

/**
 * Every `from` decoding reads, by what it stands for: `system`, `user` and `assistant` messages,
 * LLaMA-Factory's `function_call` (tool calls) and `observation` (a tool result). Any other is a
 * `MalformedInput`.
 *
 * @category constants
 * @since 0.2.0
 */
export const roles = internal.roles

/**
 * A turn as decoding reads it: any role of {@link roles}. Keys other than `from` and `value`
 * (`weight`, `markdown`, ...) are left out and reported as lost.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputTurn = internal.InputTurn

/**
 * @category models
 * @since 0.2.0
 */
export interface InputTurn extends Schema.Schema.Type<typeof InputTurn> {}

/**
 * A record as decoding reads it: the turns and the `system` LLaMA-Factory writes beside them.
 *
 * @category schemas
 * @since 0.2.0
 */
export const InputRecord = internal.Record

/**
 * @category models
 * @since 0.2.0
 */
export interface InputRecord extends Schema.Schema.Type<typeof InputRecord> {}

/**
 * The keys of a record: where the conversation is (`conversations`, `system`) and the keys
 * LLaMA-Factory reads beside it (`tools`, left out and reported as lost; `images`, `videos`,
 * `audios`, an `UnsupportedContent` error when not empty). Any other key (`id`, ...) is left out and
 * reported as lost, except a key of another format's conversation: a `MalformedInput` naming it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const requestKeys: { readonly conversation: ReadonlyArray<string>; readonly parameters: ReadonlyArray<string> } =
  internal.requestKeys

/**
 * Everything {@link decode} reads, as one Schema that only validates: a record or a bare list of
 * turns. It is the encoded side of {@link schema}.
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
   * Where a leading system message goes. `"field"` (default): the record's `system`, as
   * LLaMA-Factory writes it. `"turn"`: a `system` turn, as FastChat writes it. A system message
   * after the first is a `system` turn either way.
   */
  readonly systemPrompt?: "field" | "turn" | undefined
  /**
   * What to do with a reasoning block, which a turn has no place for. `"error"` (default): an
   * `UnsupportedBlock` error. `"omit"`: leave it out (reported to `onLoss`).
   */
  readonly reasoning?: "error" | "omit" | undefined
  /**
   * A provider block (`Block.ProviderBlock`): no provider writes ShareGPT, so every one is another
   * provider's. `"error"` (default): an `UnsupportedBlock` error; `"omit"`: left out (reported to
   * `onLoss`); `"text"`: its text, as `Prompt.flatten` renders it, joined into the turn's value.
   */
  readonly providerContent?: "error" | "omit" | "text" | undefined
}

/**
 * Decoding options.
 *
 * @category models
 * @since 0.2.0
 */
export interface DecodeOptions extends Codec.Reporting {
  /**
   * A function call whose `arguments` are not a JSON object (nor JSON text of one). `"error"`
   * (default): an `InvalidToolArguments` error. `"keep"`: the call is kept with input `{}` and the
   * text and the reason under `detail.invalid_arguments` (`Block.invalidArguments`).
   */
  readonly invalidToolArguments?: "error" | "keep" | undefined
  /**
   * The option every format's `decode` has (`Format.DecodeOptions`): ShareGPT holds no content a
   * provider's API hosts, so it changes nothing here.
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
 * @since 0.2.0
 */
export const encodeErrors = ["MisplacedBlock", "UnsupportedBlock", "UnmatchedToolResult"] as const

/**
 * What {@link encode} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.2.0
 */
export type EncodeError = ConversionError.Tagged<typeof encodeErrors[number]>

/**
 * The tag of every error {@link decode} can fail with: {@link DecodeError} is exactly these.
 *
 * @category errors
 * @since 0.2.0
 */
export const decodeErrors = [
  "MalformedInput",
  "InvalidToolArguments",
  "UnmatchedToolResult",
  "UnsupportedContent"
] as const

/**
 * What {@link decode} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.2.0
 */
export type DecodeError = ConversionError.Tagged<typeof decodeErrors[number]>

/** `encode` with what it loses, by the format's documented rules, reported to `onLoss`. */
const reporting = Report.encoding(
  (conversation: Conversation.Conversation, options: EncodeOptions | undefined) =>
    encoder.encode(conversation, options),
  losses.sharegpt
)

/**
 * Convert a canonical conversation to a ShareGPT record.
 *
 * Fails with `MisplacedBlock` (a block in a role that may not hold it; checked first, for the whole
 * conversation), `UnsupportedBlock` (an image, or reasoning unless `reasoning: "omit"`) or
 * `UnmatchedToolResult` (a tool result that does not answer the earliest call not answered yet), and
 * `UnsupportedBlock` for a provider block unless `providerContent` says otherwise.
 *
 * @category encoding
 * @since 0.2.0
 */
export const encode = (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Wire, EncodeError> => reporting(conversation, options)

/**
 * Read a ShareGPT record (or a bare list of turns) into a canonical conversation.
 *
 * Errors locate the input: `path` is the full path into it and `messageIndex` indexes the turns.
 * Fails with `MalformedInput` (not the ShareGPT shape, an unknown role, a `function_call` value that
 * is not JSON of `{name, arguments}`, a preference record), `InvalidToolArguments`,
 * `UnmatchedToolResult` (an observation with no call left to answer) or `UnsupportedContent` (a
 * record with media files). Never throws.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decode = (
  input: unknown,
  options?: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => decoder.decode(input, options)

/**
 * The ShareGPT format as a {@link Codec.Codec}.
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
 * A Schema from a ShareGPT record to a canonical conversation (default options), for Schema
 * pipelines such as `Schema.parseJson(ShareGptFormat.schema)`. Its encoded side is {@link Input}.
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
