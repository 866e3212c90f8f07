/**
 * Content blocks: the canonical, provider-neutral pieces a message is made of.
 *
 * The encoded form of every schema here is byte-for-byte the JSON the OpenReward reference SDK
 * (Python, `openreward` 0.1.167) emits: the same field names (`mimeType`, `tool_call_id`,
 * `is_error`), the same defaults (`detail: null`, `signature: null`, `is_error: false`) and the same
 * key order (data fields, then `detail`, then `type`). Decoding accepts input that omits the
 * defaulted fields and rejects unknown keys, like the reference's pydantic models (`extra="forbid"`):
 * the schemas say so themselves (a `parseOptions` annotation), so any Schema decode of them, whatever
 * its options, rejects a block with a key it does not declare.
 *
 * | block         | wire `type`   | lives in             |
 * | ------------- | ------------- | -------------------- |
 * | `TextBlock`      | `text`        | any message          |
 * | `ImageBlock`     | `image`       | any message          |
 * | `ReasoningBlock` | `reasoning`   | assistant messages   |
 * | `ToolCallBlock`  | `tool_call`   | assistant messages   |
 * | `ToolResultBlock`| `tool_result` | user messages        |
 *
 * @example
 * ```ts
 * import { Block } from "openreward-effect"
 * import * as Schema from "effect/Schema"
 *
 * const block = Block.text("hello")
 * console.log(JSON.stringify(Schema.encodeSync(Block.Block)(block)))
 * // {"text":"hello","detail":null,"type":"text"}
 * ```
 *
 * ```text output
 * {"text":"hello","detail":null,"type":"text"}
 * ```
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Json from "./Json.js"

// Unknown keys are errors in every reading of these schemas, as in the reference's pydantic models
// (`extra="forbid"`): `Schema.decodeUnknownEither(Block)` agrees with `Conversation.decode`.
const exact = { onExcessProperty: "error" } as const

const detail = Schema.optionalWith(Schema.NullOr(Json.JsonObject), { default: () => null, exact: true })

/**
 * Plain text.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TextBlock = Schema.Struct({
  text: Schema.String,
  detail,
  type: Schema.tag("text")
}).annotations({ identifier: "TextBlock", parseOptions: exact })

/**
 * @category models
 * @since 0.1.0
 */
export interface TextBlock extends Schema.Schema.Type<typeof TextBlock> {}

/**
 * An image as bare base64 `data` (no `data:` prefix) and its `mimeType`. The wire has no URL form.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImageBlock = Schema.Struct({
  data: Schema.String,
  mimeType: Schema.String,
  detail,
  type: Schema.tag("image")
}).annotations({ identifier: "ImageBlock", parseOptions: exact })

/**
 * @category models
 * @since 0.1.0
 */
export interface ImageBlock extends Schema.Schema.Type<typeof ImageBlock> {}

/**
 * Plain-text reasoning from an assistant turn, with an optional provider `signature` that is passed
 * through untouched (Anthropic needs it to replay thinking).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ReasoningBlock = Schema.Struct({
  text: Schema.String,
  signature: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null, exact: true }),
  detail,
  type: Schema.tag("reasoning")
}).annotations({ identifier: "ReasoningBlock", parseOptions: exact })

/**
 * @category models
 * @since 0.1.0
 */
export interface ReasoningBlock extends Schema.Schema.Type<typeof ReasoningBlock> {}

/**
 * A tool invocation in an assistant turn: an `id` that results refer to, the tool `name`, and its
 * JSON-object `input`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolCallBlock = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  input: Json.JsonObject,
  detail,
  type: Schema.tag("tool_call")
}).annotations({ identifier: "ToolCallBlock", parseOptions: exact })

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolCallBlock extends Schema.Schema.Type<typeof ToolCallBlock> {}

/**
 * The content a tool result may carry: text and images.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentBlock = Schema.Union(TextBlock, ImageBlock).annotations({ identifier: "ContentBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export type ContentBlock = TextBlock | ImageBlock

/**
 * The result of a tool call, in a user turn, matched to its call by `tool_call_id`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolResultBlock = Schema.Struct({
  tool_call_id: Schema.String,
  blocks: Schema.Array(ContentBlock),
  is_error: Schema.optionalWith(Schema.Boolean, { default: () => false, exact: true }),
  detail,
  type: Schema.tag("tool_result")
}).annotations({ identifier: "ToolResultBlock", parseOptions: exact })

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolResultBlock extends Schema.Schema.Type<typeof ToolResultBlock> {}

/**
 * Any message block.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Block = Schema.Union(TextBlock, ImageBlock, ReasoningBlock, ToolCallBlock, ToolResultBlock)
  .annotations({ identifier: "Block" })

/**
 * @category models
 * @since 0.1.0
 */
export type Block = TextBlock | ImageBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock

/**
 * The wire `type` of a block.
 *
 * @category models
 * @since 0.1.0
 */
export type BlockType = Block["type"]

/**
 * The block types this library supports, in the order the reference SDK advertises them as
 * `message_block_types` in a server's tool list.
 *
 * @category constants
 * @since 0.1.0
 */
export const supportedTypes: ReadonlyArray<BlockType> = ["text", "image", "reasoning", "tool_call", "tool_result"]

/**
 * The block set a server that does not advertise `message_block_types` understands (servers before
 * reference SDK 0.1.157).
 *
 * @category constants
 * @since 0.1.0
 */
export const legacyTypes: ReadonlyArray<BlockType> = ["text", "image"]

/**
 * Is `type` one of the {@link supportedTypes}?
 *
 * @category guards
 * @since 0.1.0
 */
export const isSupportedType = (type: unknown): type is BlockType =>
  type === "text" || type === "image" || type === "reasoning" || type === "tool_call" || type === "tool_result"

/**
 * @category guards
 * @since 0.1.0
 */
export const isContentBlock = (block: Block): block is ContentBlock => block.type === "text" || block.type === "image"

// -----------------------------------------------------------------------------
// constructors
// -----------------------------------------------------------------------------

/**
 * Optional fields accepted by every constructor.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly detail?: Json.JsonObject | null | undefined
}

/**
 * A {@link TextBlock}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const text = (text: string, options?: Options): TextBlock => ({
  text,
  detail: options?.detail ?? null,
  type: "text"
})

/**
 * An {@link ImageBlock} from bare base64 data.
 *
 * @category constructors
 * @since 0.1.0
 */
export const image = (data: string, mimeType: string, options?: Options): ImageBlock => ({
  data,
  mimeType,
  detail: options?.detail ?? null,
  type: "image"
})

/**
 * A {@link ReasoningBlock}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const reasoning = (
  text: string,
  options?: Options & { readonly signature?: string | null | undefined }
): ReasoningBlock => ({
  text,
  signature: options?.signature ?? null,
  detail: options?.detail ?? null,
  type: "reasoning"
})

/**
 * A {@link ToolCallBlock}.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toolCall = (id: string, name: string, input: Json.JsonObject = {}, options?: Options): ToolCallBlock => ({
  id,
  name,
  input,
  detail: options?.detail ?? null,
  type: "tool_call"
})

/**
 * A {@link ToolResultBlock}. A string is shorthand for one text block.
 *
 * @category constructors
 * @since 0.1.0
 */
export const toolResult = (
  toolCallId: string,
  content: string | ReadonlyArray<ContentBlock>,
  options?: Options & { readonly isError?: boolean | undefined }
): ToolResultBlock => ({
  tool_call_id: toolCallId,
  blocks: typeof content === "string" ? [text(content)] : content,
  is_error: options?.isError ?? false,
  detail: options?.detail ?? null,
  type: "tool_result"
})

// -----------------------------------------------------------------------------
// tool calls whose arguments are not JSON
// -----------------------------------------------------------------------------

/**
 * The key of a {@link ToolCallBlock}'s `detail` that marks a call whose arguments the model wrote
 * are not a JSON object (cut off at the token limit, a stray quote): `{"raw": "...", "reason":
 * "..."}`, the text as the model wrote it and why it is not one. The block's `input` is then `{}`,
 * so the turn stays a valid canonical conversation that every format can encode; the raw text rides
 * in `detail` (which no provider format writes), and a harness answers the call with an error
 * result quoting it (see `Episode.run`).
 *
 * @category invalid arguments
 * @since 0.3.0
 */
export const invalidArgumentsKey = "invalid_arguments"

/**
 * What {@link invalidArgumentsKey} holds.
 *
 * @category invalid arguments
 * @since 0.3.0
 */
export interface InvalidArguments {
  /** The arguments as the model wrote them. */
  readonly raw: string
  /** Why they are not a JSON object (`not valid JSON`, `expected a JSON object, actual an array`, ...). */
  readonly reason: string
}

/**
 * A tool call whose arguments are not a JSON object: `input` `{}`, and the raw text and the reason
 * under `detail.invalid_arguments` (beside any other `detail` given).
 *
 * @category invalid arguments
 * @since 0.3.0
 */
export const toolCallWithInvalidArguments = (
  id: string,
  name: string,
  invalid: InvalidArguments,
  options?: Options
): ToolCallBlock =>
  toolCall(id, name, {}, {
    detail: { ...options?.detail, [invalidArgumentsKey]: { raw: invalid.raw, reason: invalid.reason } }
  })

/**
 * The invalid arguments a tool call carries (see {@link invalidArgumentsKey}), or `undefined` for a
 * call whose input is the model's own JSON object.
 *
 * @category invalid arguments
 * @since 0.3.0
 */
export const invalidArguments = (block: ToolCallBlock): InvalidArguments | undefined => {
  const held = block.detail?.[invalidArgumentsKey]
  if (typeof held !== "object" || held === null || Array.isArray(held)) return undefined
  const { raw, reason } = held as { readonly raw?: unknown; readonly reason?: unknown }
  return typeof raw === "string"
    ? { raw, reason: typeof reason === "string" ? reason : "not a JSON object" }
    : undefined
}
