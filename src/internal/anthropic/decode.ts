/**
 * Anthropic `{system?, messages}`, a whole request body or a bare `messages` array to a canonical
 * conversation (docs/formats/anthropic.md): the decoder behind `AnthropicFormat.decode`, the one
 * decode sequence (internal/decoder.ts) with this format's shapes and conversion.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import * as Schema from "effect/Schema"
import type * as Format from "../../AnthropicFormat.js"
import * as Block from "../../Block.js"
import type * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import * as Message from "../../Message.js"
import { standard } from "../base64.js"
import * as Decoder from "../decoder.js"
import * as Guard from "../guard.js"
import { isRecord } from "../plain.js"
import * as Input from "../wireInput.js"
import * as Redacted from "./redacted.js"
import * as Wire from "./schema.js"

const format = "anthropic" as const

const canonicalBlocks = "text, image, reasoning (thinking), tool_call (tool_use) and tool_result"

// Where a block sits: its message and block index, and the prefix of the messages array in the
// input. Paths are built only for an error.
// One cursor per message, moved from block to block: an error copies what it needs at once.
interface Where {
  readonly prefix: ConversionError.Path
  readonly messageIndex: number
  blockIndex: number
}

type Failed = ConversionError.UnsupportedContent

const failed = (u: object): u is Failed => u instanceof ConversionError.UnsupportedContent

const blockPath = (where: Where): ConversionError.Path => [
  ...where.prefix,
  where.messageIndex,
  "content",
  where.blockIndex
]

const unsupported = (
  where: Where,
  contentType: string,
  reason: string,
  path: ConversionError.Path = blockPath(where)
) =>
  new ConversionError.UnsupportedContent({
    format,
    path,
    messageIndex: where.messageIndex,
    blockIndex: where.blockIndex,
    contentType,
    reason
  })

type InputContent = typeof Format.InputTextBlock.Type | typeof Format.InputImageBlock.Type

type ToolResultItem = Format.InputToolResultBlock["content"] extends infer C
  ? C extends ReadonlyArray<infer B> ? B : never
  : never
const isOtherContent = (block: ToolResultItem): block is Exclude<ToolResultItem, InputContent> =>
  block.type !== "text" && block.type !== "image"

const contentPath = (where: Where, inner: number | undefined, key: string): ConversionError.Path =>
  inner === undefined ? [...blockPath(where), key] : [...blockPath(where), "content", inner, key]

// `inner` is the index of the content inside a tool result, when the block is one
const decodeContent = (
  block: InputContent,
  where: Where,
  inner?: number
): Block.ContentBlock | Failed => {
  switch (block.type) {
    case "text":
      return block.citations !== undefined && block.citations !== null && block.citations.length > 0
        ? unsupported(
          where,
          "citations",
          "a canonical text block has no place for its sources; strip them to keep the text alone",
          contentPath(where, inner, "citations")
        )
        : Block.text(block.text)
    case "image": {
      const source = block.source
      switch (source.type) {
        case "base64":
          return Block.image(standard(source.data), source.media_type)
        case "url":
          return unsupported(
            where,
            "url image source",
            "canonical images carry base64 data; fetch the image and send it as a base64 source",
            contentPath(where, inner, "source")
          )
        case "file":
          return unsupported(
            where,
            "file image source",
            "canonical images carry base64 data; download the file and send it as a base64 source",
            contentPath(where, inner, "source")
          )
        default:
          return absurd(source)
      }
    }
    default:
      return absurd(block)
  }
}

const decodeToolResult = (
  block: Format.InputToolResultBlock,
  where: Where
): Block.ToolResultBlock | Failed => {
  const content = block.content ?? []
  let inner: Array<Block.ContentBlock>
  if (typeof content === "string") {
    inner = [Block.text(content)]
  } else {
    inner = new Array(content.length)
    for (let k = 0; k < content.length; k++) {
      const item = content[k]!
      if (isOtherContent(item)) {
        return unsupported(
          where,
          item.type,
          "a canonical tool result holds only text and image content",
          [...blockPath(where), "content", k]
        )
      }
      const decoded = decodeContent(item, where, k)
      if (failed(decoded)) return decoded
      inner[k] = decoded
    }
  }
  return Block.toolResult(block.tool_use_id, inner, { isError: block.is_error ?? false })
}

const decodeBlock = (
  block: Format.InputBlock,
  where: Where
): Block.Block | Failed => {
  // a block of a type none of the cases name is the `OtherBlock` member (its schema's filter says
  // so): the default case
  const known = block as Exclude<Format.InputBlock, typeof Format.OtherBlock.Type>
  switch (known.type) {
    case "text":
    case "image":
      return decodeContent(known, where)
    case "thinking":
      return Block.reasoning(known.thinking, { signature: known.signature ?? null })
    case "redacted_thinking":
      return Redacted.block(known.data)
    case "tool_use":
      // a copy, so that the conversation shares no mutable object with the input
      return Block.toolCall(known.id, known.name, Guard.copyJsonObject(known.input))
    case "tool_result":
      return decodeToolResult(known, where)
    default:
      return unsupported(where, block.type, `the canonical blocks are ${canonicalBlocks}`)
  }
}

const withBlocks = (role: Message.Role, blocks: ReadonlyArray<Block.Block>): Message.Message =>
  role === "system"
    ? Message.system(blocks as ReadonlyArray<Message.SystemBlock>)
    : role === "user"
    ? Message.user(blocks as ReadonlyArray<Message.UserBlock>)
    : Message.assistant(blocks as ReadonlyArray<Message.AssistantBlock>)

const decodeMessage = (
  message: Format.InputMessage,
  messageIndex: number,
  prefix: ConversionError.Path
): Either.Either<Message.Message, Format.DecodeError> => {
  const role = message.role
  const content = message.content
  if (typeof content === "string") return Either.right(withBlocks(role, [Block.text(content)]))
  const blocks: Array<Block.Block> = new Array(content.length)
  const where: Where = { prefix, messageIndex, blockIndex: 0 }
  for (let blockIndex = 0; blockIndex < content.length; blockIndex++) {
    where.blockIndex = blockIndex
    const decoded = decodeBlock(content[blockIndex]!, where)
    if (failed(decoded)) return Either.left(decoded)
    blocks[blockIndex] = decoded
  }
  // placement after every block decoded: content with no canonical form is reported first
  for (let blockIndex = 0; blockIndex < blocks.length; blockIndex++) {
    const type = blocks[blockIndex]!.type
    if (!Message.isAllowed(role, type)) {
      return Either.left(
        new ConversionError.MisplacedBlock({
          format: "anthropic",
          path: [...prefix, messageIndex, "content", blockIndex],
          messageIndex,
          blockIndex,
          role,
          blockType: type
        })
      )
    }
  }
  return Either.right(withBlocks(role, blocks))
}

const decodeMessages = (
  messages: ReadonlyArray<Format.InputMessage>,
  prefix: ConversionError.Path,
  out: Array<Message.Message>
): Either.Either<Conversation.Conversation, Format.DecodeError> => {
  for (let i = 0; i < messages.length; i++) {
    const decoded = decodeMessage(messages[i]!, i, prefix)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    out.push(decoded.right)
  }
  return Either.right(out)
}

// the conversion of a request body or messages array that decodes
const convert = (
  input: Format.Request | ReadonlyArray<Format.InputMessage>
): Either.Either<Conversation.Conversation, Format.DecodeError> => {
  if (Array.isArray(input)) return decodeMessages(input as ReadonlyArray<Format.InputMessage>, [], [])
  const { messages, system } = input as Format.Request
  const out: Array<Message.Message> = []
  if (typeof system === "string") out.push(Message.system(system))
  else if (system !== undefined && system !== null && system.length > 0) {
    out.push(Message.system(system.map((block) => Block.text(block.text))))
  }
  return decodeMessages(messages, ["messages"], out)
}

const request = Decoder.shape(Wire.Request, { onExcessProperty: "ignore" })
const atRequest = { messages: ["messages"], blocks: ["content"] }
const atList = { messages: [], blocks: ["content"] }

// only what is read is held to the depth limit: a request body's `tools` and the like are ignored
const readOfRequest = (body: unknown) => {
  const { messages, system } = body as { readonly system?: unknown; readonly messages?: unknown }
  return { system, messages }
}
const messageList = Decoder.shape(Schema.Array(Wire.InputMessage), { onExcessProperty: "ignore" })

/** `AnthropicFormat.decode`: a request body or a bare `messages` array. */
export const decode: Decoder.Decode<Format.DecodeOptions, Format.DecodeError> = Decoder.make({
  format,
  requestKeys: Wire.requestKeys,
  api: "Messages API",
  issue: "deepest",
  depthLimit: true,
  target: (input): Decoder.Target<Format.Request | ReadonlyArray<Format.InputMessage>> | Decoder.Result<never, never> =>
    Array.isArray(input)
      ? { shape: messageList, value: input, path: [], locator: atList }
      : isRecord(input)
      ? {
        shape: request,
        value: input,
        path: [],
        locator: atRequest,
        read: readOfRequest
      }
      : Either.left(
        new ConversionError.MalformedInput({
          format,
          path: [],
          reason: `expected a request body {system?, messages} or an array of messages, actual ${Input.describe(input)}`
        })
      ),
  convert
})
