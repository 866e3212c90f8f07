/**
 * Messages: one role-tagged turn of a conversation.
 *
 * The wire shape is the reference SDK's `{"role", "blocks", "detail"}`. Block placement follows
 * Anthropic semantics, as the reference enforces it:
 *
 * | role        | may hold                                  |
 * | ----------- | ----------------------------------------- |
 * | `system`    | text, image                               |
 * | `user`      | text, image, tool_result, provider        |
 * | `assistant` | text, image, reasoning, tool_call, provider |
 *
 * A `provider` block (content a provider's API produced, with no neutral form) stands where the
 * provider put it: in the assistant turn it answered (a server tool's call and result), or in a
 * user turn (an item the client sends back, such as a Responses `mcp_approval_response`).
 *
 * Placement is part of the type: a `ToolResultBlock` inside an `AssistantMessage` does not compile,
 * and decoding such a message fails. An empty `blocks` array and empty text are allowed, as in the
 * reference.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Block from "./Block.js"
import * as Json from "./Json.js"

/**
 * @category schemas
 * @since 0.1.0
 */
export const Role = Schema.Literal("system", "user", "assistant").annotations({ identifier: "Role" })

/**
 * @category models
 * @since 0.1.0
 */
export type Role = typeof Role.Type

// unknown keys are errors in every reading, as for the blocks (Block.ts)
const exact = { onExcessProperty: "error" } as const

const detail = Schema.optionalWith(Schema.NullOr(Json.JsonObject), { default: () => null, exact: true })

/**
 * The block types each role may carry.
 *
 * @category constants
 * @since 0.1.0
 */
export const allowedBlockTypes: { readonly [R in Role]: ReadonlySet<Block.BlockType> } = {
  system: new Set(["text", "image"]),
  user: new Set(["text", "image", "tool_result", "provider"]),
  assistant: new Set(["text", "image", "reasoning", "tool_call", "provider"])
}

/**
 * Is a block of type `blockType` allowed in a message of role `role`?
 *
 * @category guards
 * @since 0.1.0
 */
export const isAllowed = (role: Role, blockType: Block.BlockType): boolean => allowedBlockTypes[role].has(blockType)

/**
 * @category schemas
 * @since 0.1.0
 */
export const SystemBlock = Schema.Union(Block.TextBlock, Block.ImageBlock).annotations({ identifier: "SystemBlock" })

/**
 * @category schemas
 * @since 0.1.0
 */
export const UserBlock = Schema.Union(Block.TextBlock, Block.ImageBlock, Block.ToolResultBlock, Block.ProviderBlock)
  .annotations({ identifier: "UserBlock" })

/**
 * @category schemas
 * @since 0.1.0
 */
export const AssistantBlock = Schema.Union(
  Block.TextBlock,
  Block.ImageBlock,
  Block.ReasoningBlock,
  Block.ToolCallBlock,
  Block.ProviderBlock
).annotations({ identifier: "AssistantBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export type SystemBlock = Block.TextBlock | Block.ImageBlock

/**
 * @category models
 * @since 0.1.0
 */
export type UserBlock = Block.TextBlock | Block.ImageBlock | Block.ToolResultBlock | Block.ProviderBlock

/**
 * @category models
 * @since 0.1.0
 */
export type AssistantBlock =
  | Block.TextBlock
  | Block.ImageBlock
  | Block.ReasoningBlock
  | Block.ToolCallBlock
  | Block.ProviderBlock

/**
 * @category schemas
 * @since 0.1.0
 */
export const SystemMessage = Schema.Struct({
  role: Schema.Literal("system"),
  blocks: Schema.Array(SystemBlock),
  detail
}).annotations({ identifier: "SystemMessage", parseOptions: exact })

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
  role: Schema.Literal("user"),
  blocks: Schema.Array(UserBlock),
  detail
}).annotations({ identifier: "UserMessage", parseOptions: exact })

/**
 * @category models
 * @since 0.1.0
 */
export interface UserMessage extends Schema.Schema.Type<typeof UserMessage> {}

/**
 * @category schemas
 * @since 0.1.0
 */
export const AssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  blocks: Schema.Array(AssistantBlock),
  detail
}).annotations({ identifier: "AssistantMessage", parseOptions: exact })

/**
 * @category models
 * @since 0.1.0
 */
export interface AssistantMessage extends Schema.Schema.Type<typeof AssistantMessage> {}

/**
 * A message of any role, placement rules included.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Message = Schema.Union(SystemMessage, UserMessage, AssistantMessage).annotations({ identifier: "Message" })

/**
 * @category models
 * @since 0.1.0
 */
export type Message = SystemMessage | UserMessage | AssistantMessage

/**
 * The wire (encoded) form of a {@link Message}.
 *
 * @category models
 * @since 0.1.0
 */
export type Encoded = typeof Message.Encoded

// -----------------------------------------------------------------------------
// constructors
// -----------------------------------------------------------------------------

type Content<B> = string | B | ReadonlyArray<B>

const toBlocks = <B>(content: Content<B>): ReadonlyArray<B | Block.TextBlock> =>
  typeof content === "string" ? [Block.text(content)] : Array.isArray(content) ? content : [content as B]

/**
 * Optional fields accepted by the message constructors.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly detail?: Json.JsonObject | null | undefined
}

/**
 * A system message. A string is shorthand for one text block.
 *
 * @category constructors
 * @since 0.1.0
 */
export const system = (content: Content<SystemBlock>, options?: Options): SystemMessage => ({
  role: "system",
  blocks: toBlocks(content),
  detail: options?.detail ?? null
})

/**
 * A user message. A string is shorthand for one text block.
 *
 * @category constructors
 * @since 0.1.0
 */
export const user = (content: Content<UserBlock>, options?: Options): UserMessage => ({
  role: "user",
  blocks: toBlocks(content),
  detail: options?.detail ?? null
})

/**
 * An assistant message. A string is shorthand for one text block.
 *
 * @category constructors
 * @since 0.1.0
 */
export const assistant = (content: Content<AssistantBlock>, options?: Options): AssistantMessage => ({
  role: "assistant",
  blocks: toBlocks(content),
  detail: options?.detail ?? null
})
