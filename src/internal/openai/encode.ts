/**
 * Canonical conversation to a Chat Completions message list, for the `openai` and `openrouter`
 * formats (docs/formats/openai.md, docs/formats/openrouter.md): the reference SDK's
 * `convert_messages(messages, "openai" | "openrouter")` (openreward 0.1.167). The two differ only
 * in the format name errors carry and in OpenRouter's `toolResultImages: "tool-message"`.
 *
 * Encoding builds each message directly: optional keys assigned, strings concatenated, arrays made
 * only when needed (docs/performance.md, "What changed", encoders). Which block may stand in which
 * role is `Message.allowedBlockTypes`'s to say, not this module's: each role's switch has a case
 * for every block it has an encoding for, and stops at any other; only then does `encode` ask
 * `Conversation.validate`, which reads `Message`, so a valid conversation pays no placement check
 * per block (one measured 15-30% of a short conversation's encode). What a Chat Completions
 * message cannot hold where the canonical form can (an image inside a tool result) is decided here.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import type * as Block from "../../Block.js"
import * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import type * as Message from "../../Message.js"
import type * as OpenAiFormat from "../../OpenAiFormat.js"
import type * as OpenRouterFormat from "../../OpenRouterFormat.js"
import * as BlockError from "../blockError.js"
import * as ProviderContent from "../providerContent.js"
import { dumps } from "../pythonJson.js"
import type { Format } from "./decode.js"

/** The options of both formats: OpenRouter's are OpenAI's with one more `toolResultImages` choice. */
type EncodeOptions = OpenAiFormat.EncodeOptions | OpenRouterFormat.EncodeOptions

type ToolResultImages = NonNullable<OpenRouterFormat.EncodeOptions["toolResultImages"]>

type ReasoningField = NonNullable<OpenAiFormat.EncodeOptions["reasoningField"]>

type EncodeError = OpenAiFormat.EncodeError

type ChatMessage = OpenAiFormat.ChatMessage

const dataUrl = (image: Block.ImageBlock): string => "data:" + image.mimeType + ";base64," + image.data

/** What a message's `content` is made of: text and images, and this format's own provider blocks. */
type ContentItem = Block.ContentBlock | Block.ProviderBlock

const encodePart = (block: ContentItem): OpenAiFormat.ContentPart => {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text }
    case "image":
      return { type: "image_url", image_url: { url: dataUrl(block) } }
    case "provider":
      // a content part as the provider sent it, written back as it came
      return block.item as unknown as OpenAiFormat.ContentPart
    default:
      return absurd(block)
  }
}

const encodeContent = (blocks: ReadonlyArray<ContentItem>): OpenAiFormat.Content => {
  if (blocks.length === 1 && blocks[0]!.type === "text") return blocks[0]!.text
  const parts: Array<OpenAiFormat.ContentPart> = new Array(blocks.length)
  for (let k = 0; k < blocks.length; k++) parts[k] = encodePart(blocks[k]!)
  return parts
}

/** The index of the first block a system message's content cannot hold (text and images), or -1. */
const firstNotContent = (blocks: ReadonlyArray<Block.Block>): number => {
  for (let j = 0; j < blocks.length; j++) {
    const type = blocks[j]!.type
    if (type !== "text" && type !== "image") return j
  }
  return -1
}

const imageReason = (format: Format): string =>
  format === "openrouter"
    ? "tool messages carry text only by default; set toolResultImages to \"user-message\" to send the images " +
      "in a user message after the tool messages, or to \"tool-message\" to send them as image parts of the " +
      "tool message"
    : "tool messages carry text only; set toolResultImages to \"user-message\" to send the images in a user " +
      "message after the tool messages"

/** Push the tool message of a tool result: its texts joined with "\n" (images as `policy` says). */
const encodeToolResult = (
  format: Format,
  block: Block.ToolResultBlock,
  messageIndex: number,
  blockIndex: number,
  policy: ToolResultImages,
  moved: Array<Block.ImageBlock> | undefined,
  out: Array<ChatMessage>
): ConversionError.UnsupportedBlock | undefined => {
  const inner = block.blocks
  let text: string | undefined
  let inline = false
  for (let k = 0; k < inner.length; k++) {
    const b = inner[k]!
    switch (b.type) {
      case "text":
        text = text === undefined ? b.text : text + "\n" + b.text
        break
      case "image":
        switch (policy) {
          case "error":
            return new ConversionError.UnsupportedBlock({
              format,
              path: [messageIndex, "blocks", blockIndex, "blocks", k],
              messageIndex,
              blockIndex,
              blockType: "image",
              reason: imageReason(format)
            })
          case "user-message":
            moved!.push(b)
            break
          case "tool-message":
            inline = true
            break
          default:
            return absurd(policy)
        }
        break
      default:
        return absurd(b)
    }
  }
  out.push({
    role: "tool",
    tool_call_id: block.tool_call_id,
    content: inline ? inner.map(encodePart) : text ?? ""
  })
  return undefined
}

/** Push a user message's tool messages, then a user message with the rest of its blocks, if any. */
const encodeUser = (
  format: Format,
  message: Message.UserMessage,
  messageIndex: number,
  policy: ToolResultImages,
  providerContent: ProviderContent.EncodePolicy | undefined,
  out: Array<ChatMessage>
): ConversionError.UnsupportedBlock | BlockError.NoEncoding | undefined => {
  const blocks = message.blocks
  // images moved out of tool results (toolResultImages: "user-message") lead the user message
  const moved: Array<Block.ImageBlock> | undefined = policy === "user-message" ? [] : undefined
  let rest: Array<ContentItem> | undefined
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    switch (block.type) {
      case "text":
      case "image":
        ;(rest ??= []).push(block)
        break
      case "tool_result": {
        const error = encodeToolResult(format, block, messageIndex, j, policy, moved, out)
        if (error !== undefined) return error
        break
      }
      case "provider": {
        const item = providerItem(format, block, messageIndex, j, providerContent)
        if (item instanceof ConversionError.UnsupportedBlock) return item
        if (item !== undefined) (rest ??= []).push(item)
        break
      }
      default:
        return new BlockError.NoEncoding(messageIndex, j)
    }
  }
  const content = moved === undefined || moved.length === 0
    ? rest
    : rest === undefined
    ? moved
    : [...moved, ...rest]
  if (content !== undefined) out.push({ role: "user", content: encodeContent(content) })
  return undefined
}

// `toolArguments: "json"`: compact JSON, for servers that parse the arguments back (the text is not
// the reference's, but the value is the same); about 1.3 times faster than `dumps` on tool inputs.
const jsonArguments = (input: Json.JsonObject): string => JSON.stringify(input)

type MutableAssistantMessage = {
  -readonly [K in keyof OpenAiFormat.AssistantMessage]: OpenAiFormat.AssistantMessage[K]
}

/**
 * What a block or message's detail keeps under the format's name (`detail.openai`), when it is an
 * object: what decoding read from this format and encoding sends back.
 */
const formatDetail = (detail: Json.JsonObject | null, format: Format): Json.JsonObject | undefined => {
  const value = detail === null ? undefined : detail[format]
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Json.JsonObject : undefined
}

const isObject = (value: Json.JsonValue | undefined): value is Json.JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The `reasoning_details` entry a reasoning block was read from (its detail kept the rest), if any. */
const entryOf = (block: Block.ReasoningBlock, format: Format): Json.JsonObject | undefined => {
  const entry = formatDetail(block.detail, format)?.["reasoning_detail"]
  return isObject(entry) &&
      (entry["type"] === "reasoning.text" || entry["type"] === "reasoning.summary" ||
        entry["type"] === "reasoning.encrypted")
    ? entry
    : undefined
}

/** A reasoning block as a `reasoning_details` entry: its own entry's keys, with the block's content. */
const encodeEntry = (
  block: Block.ReasoningBlock,
  entry: Json.JsonObject | undefined
): OpenAiFormat.ReasoningDetailEntry => {
  const { type, ...rest } = entry ?? { type: "reasoning.text" }
  switch (type) {
    case "reasoning.summary":
      return { type, summary: block.text, ...rest }
    case "reasoning.encrypted":
      return { type, data: block.signature ?? "", ...rest }
    default:
      return {
        type: "reasoning.text",
        text: block.text,
        ...(block.signature === null ? {} : { signature: block.signature }),
        ...rest
      }
  }
}

/**
 * A provider block in a message's content: its item, in place, when it is this format's own (a
 * content part as the provider sent it); another provider's as `providerContent` says.
 */
const providerItem = (
  format: Format,
  block: Block.ProviderBlock,
  messageIndex: number,
  blockIndex: number,
  providerContent: ProviderContent.EncodePolicy | undefined
): ContentItem | ConversionError.UnsupportedBlock | undefined => {
  if (block.provider === format) return block
  const other = ProviderContent.foreign(format, block, messageIndex, blockIndex, providerContent)
  return other instanceof ConversionError.UnsupportedBlock ? other : other._tag === "text" ? other.block : undefined
}

/**
 * Push an assistant message: visible blocks as content (provider blocks in place), reasoning texts
 * joined with "\n\n", tool calls; and what decoding kept of this format under `detail.<format>`:
 * Gemini's `extra_content` (on the message and on each tool call) and, when a reasoning block was
 * read from one, the `reasoning_details` entries (every reasoning block then has one; an encrypted
 * entry's block adds nothing to the joined text).
 */
const encodeAssistant = (
  format: Format,
  message: Message.AssistantMessage,
  messageIndex: number,
  reasoningField: ReasoningField,
  reasoningOnToolCalls: boolean,
  serializeArguments: (input: Json.JsonObject) => string,
  providerContent: ProviderContent.EncodePolicy | undefined,
  out: Array<ChatMessage>
): ConversionError.UnsupportedBlock | BlockError.NoEncoding | undefined => {
  const blocks = message.blocks
  let visible: Array<ContentItem> | undefined
  let reasoning: string | undefined
  let reasoningBlocks: Array<Block.ReasoningBlock> | undefined
  let hasEntry = false
  let toolCalls: Array<OpenAiFormat.ToolCall> | undefined
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    switch (block.type) {
      case "text":
      case "image":
        ;(visible ??= []).push(block)
        break
      case "reasoning": {
        ;(reasoningBlocks ??= []).push(block)
        const entry = block.detail === null ? undefined : entryOf(block, format)
        if (entry !== undefined) hasEntry = true
        if (entry?.["type"] === "reasoning.encrypted") break
        reasoning = reasoning === undefined ? block.text : reasoning + "\n\n" + block.text
        break
      }
      case "tool_call": {
        const extra = block.detail === null ? undefined : formatDetail(block.detail, format)?.["extra_content"]
        const call: OpenAiFormat.ToolCall = {
          id: block.id,
          type: "function",
          function: { name: block.name, arguments: serializeArguments(block.input) }
        }
        ;(toolCalls ??= []).push(isObject(extra) ? { ...call, extra_content: extra } : call)
        break
      }
      case "provider": {
        const item = providerItem(format, block, messageIndex, j, providerContent)
        if (item instanceof ConversionError.UnsupportedBlock) return item
        if (item !== undefined) (visible ??= []).push(item)
        break
      }
      default:
        return new BlockError.NoEncoding(messageIndex, j)
    }
  }
  const entry: MutableAssistantMessage = {
    role: "assistant",
    content: visible === undefined ? null : encodeContent(visible)
  }
  const text = reasoning ?? (reasoningOnToolCalls && toolCalls !== undefined ? "" : undefined)
  if (text !== undefined) {
    if (reasoningField === "reasoning_content") entry.reasoning_content = text
    else if (reasoningField === "reasoning") entry.reasoning = text
  }
  if (hasEntry && reasoningField !== "omit") {
    entry.reasoning_details = reasoningBlocks!.map((b) => encodeEntry(b, entryOf(b, format)))
  }
  if (toolCalls !== undefined) entry.tool_calls = toolCalls
  const extra = message.detail === null ? undefined : formatDetail(message.detail, format)?.["extra_content"]
  if (isObject(extra)) entry.extra_content = extra
  out.push(entry)
  return undefined
}

/** Push every message's encoding; the first error stops it. */
const encodeMessages = (
  format: Format,
  conversation: Conversation.Conversation,
  options: EncodeOptions,
  out: Array<ChatMessage>
): ConversionError.UnsupportedBlock | BlockError.NoEncoding | undefined => {
  const policy = options.toolResultImages ?? "error"
  const reasoningField = options.reasoningField ?? "reasoning_content"
  const reasoningOnToolCalls = options.reasoningOnToolCalls === true
  const serializeArguments = options.toolArguments === "json" ? jsonArguments : dumps
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    let error: ConversionError.UnsupportedBlock | BlockError.NoEncoding | undefined
    switch (message.role) {
      case "system": {
        const j = firstNotContent(message.blocks)
        if (j !== -1) return new BlockError.NoEncoding(i, j)
        out.push({ role: "system", content: encodeContent(message.blocks) })
        break
      }
      case "user":
        error = encodeUser(format, message, i, policy, options.providerContent, out)
        break
      case "assistant":
        error = encodeAssistant(
          format,
          message,
          i,
          reasoningField,
          reasoningOnToolCalls,
          serializeArguments,
          options.providerContent,
          out
        )
        break
      default:
        return absurd(message)
    }
    if (error !== undefined) return error
  }
  return undefined
}

/** Canonical messages to a Chat Completions message list. */
export const encode = (
  format: Format,
  conversation: Conversation.Conversation,
  options: EncodeOptions = {}
): Either.Either<OpenAiFormat.Wire, EncodeError> => {
  const out: Array<ChatMessage> = []
  const error = encodeMessages(format, conversation, options, out)
  if (error === undefined) return Either.right(out)
  // The reference checks placement first, for the whole conversation: a misplaced block anywhere is
  // reported before any other error. Checking only once encoding has failed gives the same errors.
  const placed = Conversation.validate(conversation)
  if (Either.isLeft(placed)) return Either.left(placed.left)
  return Either.left(
    error instanceof BlockError.NoEncoding ? BlockError.noEncoding(format, conversation, error) : error
  )
}
