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
 * | `ProviderBlock`  | `provider`    | user and assistant messages |
 *
 * The first five are the reference SDK's blocks, and what a server advertises. `ProviderBlock` is
 * this library's own: content a provider's API produced that has no provider-neutral form (a server
 * tool's call and result, code execution, an MCP call, a compaction summary), kept as the provider
 * sent it so that it can be sent back to that provider unchanged. Decoders make one only when asked
 * (`providerContent: "keep"`); docs/formats.md ("Provider-hosted content") says why it is a block.
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
import type * as Provider from "./Provider.js"

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
 * Content a provider's API produced that has no provider-neutral form, kept as the provider sent
 * it: Anthropic's `server_tool_use` and `web_search_tool_result`, a Responses `web_search_call`, a
 * Gemini `executableCode` part, ...
 *
 * - `provider`: the format that read it (`"anthropic"`, `"openai-responses"`, `"google"`,
 *   `"openai"`, `"openrouter"`). Any string on the wire, so that a provider added later does not
 *   change the wire shape.
 * - `kind`: the provider's own name for the item (an Anthropic block's `type`, a Responses item's
 *   `type`, a Gemini part's data key), to match on without reading `item`.
 * - `item`: the provider's JSON, exactly as it came (key order kept). The same provider's encoder
 *   writes it back in its place, byte for byte; other encoders follow their `providerContent`
 *   option (an `UnsupportedBlock` error by default, or left out, or rendered as text).
 *
 * It may stand in user and assistant messages, never in a system message.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ProviderBlock = Schema.Struct({
  provider: Schema.String,
  kind: Schema.String,
  item: Json.JsonObject,
  detail,
  type: Schema.tag("provider")
}).annotations({ identifier: "ProviderBlock", parseOptions: exact })

/**
 * @category models
 * @since 0.2.0
 */
export interface ProviderBlock extends Schema.Schema.Type<typeof ProviderBlock> {}

/**
 * Any message block.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Block = Schema.Union(TextBlock, ImageBlock, ReasoningBlock, ToolCallBlock, ToolResultBlock, ProviderBlock)
  .annotations({ identifier: "Block" })

/**
 * Any message block. The union is closed and grows on purpose: an exhaustive `Match` (or `switch`
 * with `absurd`) over it stops compiling when a block type is added, rather than skip it.
 *
 * @category models
 * @since 0.1.0
 */
export type Block = TextBlock | ImageBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock | ProviderBlock

/**
 * The wire `type` of a block.
 *
 * @category models
 * @since 0.1.0
 */
export type BlockType = Block["type"]

/**
 * Every block type this library reads and writes, {@link supportedTypes} and then `provider`.
 *
 * @category constants
 * @since 0.2.0
 */
export const types: ReadonlyArray<BlockType> = ["text", "image", "reasoning", "tool_call", "tool_result", "provider"]

/**
 * The reference SDK's block types, in the order it advertises them as `message_block_types` in a
 * server's tool list: what a server of this library advertises too, unless an environment serves
 * provider blocks (`Environment.make({ providerContent: "keep" })`), which adds `provider`.
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
 * Is `type` one of the reference's block types ({@link supportedTypes})?
 *
 * @category guards
 * @since 0.1.0
 */
export const isSupportedType = (type: unknown): type is Exclude<BlockType, "provider"> =>
  type === "text" || type === "image" || type === "reasoning" || type === "tool_call" || type === "tool_result"

/**
 * Is `type` a block type this library knows ({@link types}: the reference's and `provider`)?
 *
 * @category guards
 * @since 0.2.0
 */
export const isType = (type: unknown): type is BlockType => type === "provider" || isSupportedType(type)

/**
 * Is this block a {@link ProviderBlock}?
 *
 * @category guards
 * @since 0.2.0
 */
export const isProvider = (block: Block): block is ProviderBlock => block.type === "provider"

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

/**
 * A {@link ProviderBlock}: `item` as `provider` sent it, `kind` its own name for it (for an
 * Anthropic block or a Responses item, its `type`).
 *
 * @example
 * ```ts
 * import { Block } from "openreward-effect"
 *
 * const search = Block.provider("anthropic", "server_tool_use", {
 *   type: "server_tool_use",
 *   id: "srvtoolu_01",
 *   name: "web_search",
 *   input: { query: "weather in Paris" }
 * })
 * console.log(search.type, search.provider, search.kind)
 * ```
 *
 * ```text output
 * provider anthropic server_tool_use
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const provider = (
  provider: Provider.Format | (string & {}),
  kind: string,
  item: Json.JsonObject,
  options?: Options
): ProviderBlock => ({
  provider,
  kind,
  item,
  detail: options?.detail ?? null,
  type: "provider"
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
 * @since 0.2.0
 */
export const invalidArgumentsKey = "invalid_arguments"

/**
 * What {@link invalidArgumentsKey} holds.
 *
 * @category invalid arguments
 * @since 0.2.0
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
 * @since 0.2.0
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
 * @since 0.2.0
 */
export const invalidArguments = (block: ToolCallBlock): InvalidArguments | undefined => {
  const held = block.detail?.[invalidArgumentsKey]
  if (typeof held !== "object" || held === null || Array.isArray(held)) return undefined
  const { raw, reason } = held as { readonly raw?: unknown; readonly reason?: unknown }
  return typeof raw === "string"
    ? { raw, reason: typeof reason === "string" ? reason : "not a JSON object" }
    : undefined
}
