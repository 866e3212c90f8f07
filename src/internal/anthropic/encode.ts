/**
 * Canonical conversation to Anthropic's `{system, messages}` (docs/formats/anthropic.md): the whole
 * encoder behind `AnthropicFormat.encode`.
 *
 * Encoding is one pass over the conversation that checks block placement as it goes, in the loop
 * that encodes each block, from `Message.allowedBlockTypes`: a separate `Conversation.validate`
 * pass cost about a quarter of encode (docs/performance.md, "What changed", encoders). The reference
 * reports a misplaced block before any other error, wherever it is, so when the pass fails,
 * `Conversation.validate` runs and its error, if it finds one, is the one returned.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import type * as Format from "../../AnthropicFormat.js"
import type * as Block from "../../Block.js"
import * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import * as Message from "../../Message.js"
import * as BlockError from "../blockError.js"
import * as ProviderContent from "../providerContent.js"
import * as ToolCallIds from "../toolCallIds.js"
import * as Detail from "./detail.js"
import * as Reasoning from "./reasoning.js"
import * as Redacted from "./redacted.js"

const format = "anthropic" as const

// a text block, with the citations decoding kept in its detail
const encodeText = (block: Block.TextBlock): Format.TextBlock => {
  const citations = Detail.citations(block.detail)
  return citations === undefined
    ? { type: "text", text: block.text }
    : { type: "text", text: block.text, citations }
}

const encodeContent = (block: Block.ContentBlock): Format.ToolResultContent => {
  switch (block.type) {
    case "text":
      return encodeText(block)
    case "image":
      return { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } }
    default:
      return absurd(block)
  }
}

const encodeToolResult = (block: Block.ToolResultBlock): Format.ToolResultBlock => {
  const content = block.blocks.map(encodeContent)
  return block.is_error
    ? { type: "tool_result", tool_use_id: block.tool_call_id, content, is_error: true }
    : { type: "tool_result", tool_use_id: block.tool_call_id, content }
}

// The error `Conversation.validate` reports for this block.
const misplacedBlock = (
  role: Message.Role,
  messageIndex: number,
  blockIndex: number,
  blockType: Block.BlockType
): ConversionError.MisplacedBlock =>
  new ConversionError.MisplacedBlock({
    path: [messageIndex, "blocks", blockIndex],
    messageIndex,
    blockIndex,
    role,
    blockType
  })

// `Message.allowedBlockTypes` as one record per role, read on every block: a property of a record
// of constant shape, each entry read by name, costs less in this loop than a `Set` lookup (or a
// keyed read) per block.
type Allows = { readonly [T in Block.BlockType]: boolean }
const allows = (role: Message.Role): Allows => {
  const set = Message.allowedBlockTypes[role]
  return {
    text: set.has("text"),
    image: set.has("image"),
    reasoning: set.has("reasoning"),
    tool_call: set.has("tool_call"),
    tool_result: set.has("tool_result"),
    provider: set.has("provider")
  }
}
const systemAllows = allows("system")
const userAllows = allows("user")
const assistantAllows = allows("assistant")

/**
 * Encode `blocks` of a `role` message into `content`, or return the error for the first block that
 * role may not hold (`Message.allowedBlockTypes`). `blocks` may be reordered (see
 * {@link toolResultsFirst}); `original` is the message's own block list, where a misplaced block is
 * located.
 */
const encodeBlocks = (
  role: Message.Role,
  blocks: ReadonlyArray<Block.Block>,
  original: ReadonlyArray<Block.Block>,
  messageIndex: number,
  content: Array<Format.ContentBlock>,
  providerContent: ProviderContent.EncodePolicy | undefined
): ConversionError.MisplacedBlock | ConversionError.UnsupportedBlock | undefined => {
  const allowed = role === "assistant" ? assistantAllows : role === "user" ? userAllows : systemAllows
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    // one case per block type, each reading its own entry of the role's record
    switch (block.type) {
      case "text":
        if (!allowed.text) break
        content.push(encodeText(block))
        continue
      case "image":
        if (!allowed.image) break
        content.push(encodeContent(block))
        continue
      case "reasoning": {
        if (!allowed.reasoning) break
        const redacted = Redacted.dataOf(block)
        content.push(
          redacted !== undefined
            ? { type: "redacted_thinking", data: redacted }
            : block.signature
            ? { type: "thinking", thinking: block.text, signature: block.signature }
            : { type: "thinking", thinking: block.text }
        )
        continue
      }
      case "tool_call": {
        if (!allowed.tool_call) break
        const caller = Detail.caller(block.detail)
        content.push(
          caller === undefined
            ? { type: "tool_use", id: block.id, name: block.name, input: block.input }
            : { type: "tool_use", id: block.id, name: block.name, input: block.input, caller }
        )
        continue
      }
      case "tool_result":
        if (!allowed.tool_result) break
        content.push(encodeToolResult(block))
        continue
      case "provider": {
        if (!allowed.provider) break
        const index = original.indexOf(block)
        if (block.provider === format) {
          // written back as Anthropic sent it: a block of a type this format does not read, or a
          // `tool_use` its code execution made
          if (typeof block.item["type"] !== "string") {
            return BlockError.unsupported(
              format,
              messageIndex,
              index,
              "provider",
              "an Anthropic provider block's item is a content block, with a string type"
            )
          }
          content.push(block.item as Format.ContentBlock)
          continue
        }
        const other = ProviderContent.foreign(format, block, messageIndex, index, providerContent)
        if (other instanceof ConversionError.UnsupportedBlock) return other
        if (other._tag === "text") content.push({ type: "text", text: other.block.text })
        continue
      }
      default:
        return absurd(block)
    }
    // a reordering keeps the other blocks in order, so the first misplaced block met is the first
    // of the message, and the first occurrence of its object is where it is
    return misplacedBlock(role, messageIndex, original.indexOf(block), block.type)
  }
  return undefined
}

// The API wants a user message's tool results first; everything else keeps its order. Most user
// messages already have them first (or have none), and are returned as they are.
const toolResultsFirst = (blocks: ReadonlyArray<Message.UserBlock>): ReadonlyArray<Message.UserBlock> => {
  let other = false
  for (let j = 0; j < blocks.length; j++) {
    if (blocks[j]!.type !== "tool_result") other = true
    else if (other) return partition(blocks)
  }
  return blocks
}

const partition = (blocks: ReadonlyArray<Message.UserBlock>): ReadonlyArray<Message.UserBlock> => {
  const results: Array<Message.UserBlock> = []
  const rest: Array<Message.UserBlock> = []
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    if (block.type === "tool_result") results.push(block)
    else rest.push(block)
  }
  return results.concat(rest)
}

const textOnly = (
  message: Message.SystemMessage,
  messageIndex: number,
  reason: string,
  texts: Array<Block.TextBlock>
): ConversionError.UnsupportedBlock | undefined => {
  const blocks = message.blocks
  for (let blockIndex = 0; blockIndex < blocks.length; blockIndex++) {
    const block = blocks[blockIndex]!
    if (block.type !== "text") {
      return new ConversionError.UnsupportedBlock({
        format,
        path: [messageIndex, "blocks", blockIndex],
        messageIndex,
        blockIndex,
        blockType: block.type,
        reason
      })
    }
    texts.push(block)
  }
  return undefined
}

const encodeLaterSystem = (
  message: Message.SystemMessage,
  messageIndex: number,
  policy: "error" | "user" | "inline"
): Either.Either<Format.WireMessage, Format.EncodeError> => {
  switch (policy) {
    case "error":
      return Either.left(
        new ConversionError.UnsupportedMessage({
          format,
          path: [messageIndex],
          messageIndex,
          role: "system",
          reason: "a system message after the first non-system turn cannot be hoisted into the system parameter; " +
            "move it to the start of the conversation, or set laterSystem to \"user\" or \"inline\""
        })
      )
    case "user": {
      const content: Array<Format.ContentBlock> = []
      const error = encodeBlocks("system", message.blocks, message.blocks, messageIndex, content, undefined)
      return error === undefined ? Either.right({ role: "user", content }) : Either.left(error)
    }
    case "inline": {
      const texts: Array<Block.TextBlock> = []
      const error = textOnly(message, messageIndex, "a mid-conversation system message holds text only", texts)
      return error === undefined ? Either.right({ role: "system", content: texts.map(encodeText) }) : Either.left(error)
    }
    default:
      return absurd(policy)
  }
}

const encodeConversation = (
  conversation: Conversation.Conversation,
  options: Format.EncodeOptions | undefined
): Either.Either<Format.Wire, Format.EncodeError> => {
  const laterSystem = options?.laterSystem ?? "error"
  const system: Array<Block.TextBlock> = []
  const messages: Array<Format.WireMessage> = []
  let leading = true
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    switch (message.role) {
      case "system": {
        if (leading) {
          const error = textOnly(message, i, "the system parameter holds text only", system)
          if (error !== undefined) return Either.left(error)
        } else {
          const encoded = encodeLaterSystem(message, i, laterSystem)
          if (Either.isLeft(encoded)) return Either.left(encoded.left)
          messages.push(encoded.right)
        }
        break
      }
      case "user":
      case "assistant": {
        leading = false
        const blocks = message.role === "user" ? toolResultsFirst(message.blocks) : message.blocks
        const content: Array<Format.ContentBlock> = []
        const error = encodeBlocks(message.role, blocks, message.blocks, i, content, options?.providerContent)
        if (error !== undefined) return Either.left(error)
        messages.push({ role: message.role, content })
        break
      }
      default:
        return absurd(message)
    }
  }
  return Either.right({
    system: system.length === 0
      ? null
      : options?.system === "blocks"
      ? system.map((block): Format.TextBlock => ({ type: "text", text: block.text }))
      : system.map((block) => block.text).join("\n\n"),
    messages
  })
}

/** `AnthropicFormat.encode`: the unsigned-reasoning pass, then the encoding pass. */
export const encode = (
  conversation: Conversation.Conversation,
  options?: Format.EncodeOptions
): Either.Either<Format.Wire, Format.EncodeError> => {
  const prepared = Reasoning.prepare(conversation, options?.unsignedReasoning)
  const encoded: Either.Either<Format.Wire, Format.EncodeError> = Either.isLeft(prepared)
    ? Either.left(prepared.left)
    : encodeConversation(prepared.right, options)
  if (Either.isRight(encoded)) {
    // tool_use ids must be unique: checked once the rest encodes (the other errors come first)
    const reused = ToolCallIds.firstReused(conversation)
    if (reused === undefined) return encoded
    if (options?.reusedToolCallIds !== "rename") {
      return Either.left(ToolCallIds.reusedError("anthropic", reused, "the Messages API"))
    }
    return encode(ToolCallIds.unique(conversation), options)
  }
  const placed = Conversation.validate(conversation)
  return Either.isLeft(placed) ? Either.left(placed.left) : encoded
}
