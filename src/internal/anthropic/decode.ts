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
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import { withArticle } from "../article.js"
import { standard } from "../base64.js"
import * as Decoder from "../decoder.js"
import * as Guard from "../guard.js"
import { isRecord } from "../plain.js"
import * as ProviderContent from "../providerContent.js"
import * as Input from "../wireInput.js"
import * as Detail from "./detail.js"
import * as Redacted from "./redacted.js"
import * as Wire from "./schema.js"

const format = "anthropic" as const

const canonicalBlocks = "text, image, reasoning (thinking), tool_call (tool_use) and tool_result"

const keepHint = "decode with providerContent: \"keep\" to keep the block as a provider block, which encode writes back"

// Where a block sits: its message and block index, and the prefix of the messages array in the
// input. Paths are built only for an error.
// One cursor per message, moved from block to block: an error copies what it needs at once.
interface Where {
  readonly prefix: ConversionError.Path
  readonly messageIndex: number
  blockIndex: number
  /** Keep content with no canonical form as provider blocks (`providerContent: "keep"`)? */
  readonly keep: boolean
  /**
   * The ids of the server tool calls whose results the message holds (any block but `tool_result`
   * with a `tool_use_id`), built when a `tool_use` with a caller asks: a call made by code whose
   * result is here ran on Anthropic's side.
   */
  finished: ReadonlySet<string> | undefined
  readonly content: ReadonlyArray<Format.InputBlock>
}

type Failed = ConversionError.UnsupportedContent | ConversionError.MalformedInput

const failed = (u: object): u is Failed =>
  u instanceof ConversionError.UnsupportedContent || u instanceof ConversionError.MalformedInput

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

/**
 * A block kept whole as a provider block: a copy of it (the conversation shares no object with the
 * input), every key in its order, under its own `type`.
 */
const kept = (block: object, type: string, where: Where): Block.ProviderBlock | Failed => {
  const item = Input.copyJsonObject(block, 0)
  if (item === undefined) {
    return new ConversionError.MalformedInput({
      format,
      path: blockPath(where),
      messageIndex: where.messageIndex,
      blockIndex: where.blockIndex,
      reason: "expected a content block of JSON values"
    })
  }
  return Block.provider(format, type, item)
}

/** A block with no canonical form: kept, or reported with `reason` and the hint to keep it. */
const keptOrUnsupported = (
  block: object,
  type: string,
  where: Where,
  reason: string,
  contentType: string = type,
  path?: ConversionError.Path
): Block.ProviderBlock | Failed =>
  where.keep ? kept(block, type, where) : unsupported(where, contentType, `${reason}; ${keepHint}`, path)

const stringField = (block: { readonly [key: string]: unknown }, key: string): string | undefined =>
  typeof block[key] === "string" ? block[key] as string : undefined

/** What a block of no canonical form is, in words: the item an error names. */
const describeOther = (block: { readonly type: string; readonly [key: string]: unknown }): string => {
  const id = stringField(block, "id")
  const name = stringField(block, "name")
  const result = stringField(block, "tool_use_id")
  switch (block.type) {
    case "server_tool_use":
      return `a call of Anthropic's server tool ${JSON.stringify(name ?? "")}${id === undefined ? "" : ` (${id})`}, ` +
        "which Anthropic ran"
    case "mcp_tool_use":
      return `a call of the tool ${JSON.stringify(name ?? "")} of the MCP server ${
        JSON.stringify(stringField(block, "server_name") ?? "")
      }${id === undefined ? "" : ` (${id})`}, which Anthropic made`
    case "compaction":
      return "the summary Anthropic wrote of the conversation before it (context compaction)"
    case "fallback":
      return "Anthropic's note that another model answered (a model fallback)"
    case "container_upload":
      return "a file for the code execution container"
    default:
      return result !== undefined
        ? `the result of the server-side call ${result}`
        : `${withArticle(JSON.stringify(block.type))} block`
  }
}

type InputContent = typeof Format.InputTextBlock.Type | typeof Format.InputImageBlock.Type

type ToolResultItem = Format.InputToolResultBlock["content"] extends infer C
  ? C extends ReadonlyArray<infer B> ? B : never
  : never
const isOtherContent = (block: ToolResultItem): block is Exclude<ToolResultItem, InputContent> =>
  block.type !== "text" && block.type !== "image"

const contentPath = (where: Where, inner: number | undefined, key: string): ConversionError.Path =>
  inner === undefined ? [...blockPath(where), key] : [...blockPath(where), "content", inner, key]

/** A text block, with its non-empty `citations` (web search, documents) in `detail.anthropic`. */
const decodeText = (block: typeof Format.InputTextBlock.Type): Block.TextBlock => {
  const citations = block.citations
  if (citations === undefined || citations === null || citations.length === 0) return Block.text(block.text)
  const copied: Array<Json.JsonObject> = new Array(citations.length)
  for (let k = 0; k < citations.length; k++) copied[k] = Guard.copyJsonObject(citations[k]!)
  return Block.text(block.text, { detail: Detail.of({ citations: copied }) })
}

/** An image with no canonical form (a URL or Files API source): why, for the error. */
const imageSourceReason = (type: "url" | "file"): string =>
  type === "url"
    ? "canonical images carry base64 data; fetch the image and send it as a base64 source"
    : "canonical images carry base64 data; download the file and send it as a base64 source"

// `inner` is the index of the content inside a tool result, when the block is one
const decodeContent = (
  block: InputContent,
  where: Where,
  inner?: number
): Block.ContentBlock | Failed | "other" => {
  switch (block.type) {
    case "text":
      return decodeText(block)
    case "image": {
      const source = block.source
      switch (source.type) {
        case "base64":
          return Block.image(standard(source.data), source.media_type)
        case "url":
        case "file":
          // kept, when asked, as the block it is (inside a tool result: the whole result)
          return where.keep
            ? "other"
            : unsupported(
              where,
              `${source.type} image source`,
              `${imageSourceReason(source.type)}, or ${keepHint}`,
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
): Block.ToolResultBlock | Block.ProviderBlock | Failed => {
  const content = block.content ?? []
  let inner: Array<Block.ContentBlock>
  if (typeof content === "string") {
    inner = [Block.text(content)]
  } else {
    inner = new Array(content.length)
    for (let k = 0; k < content.length; k++) {
      const item = content[k]!
      if (isOtherContent(item)) {
        // a canonical tool result holds text and images: kept, the whole result is a provider block
        return keptOrUnsupported(
          block,
          "tool_result",
          where,
          "a canonical tool result holds only text and image content",
          item.type,
          [...blockPath(where), "content", k]
        )
      }
      const decoded = decodeContent(item, where, k)
      if (decoded === "other") return kept(block, "tool_result", where)
      if (failed(decoded)) return decoded
      inner[k] = decoded
    }
  }
  return Block.toolResult(block.tool_use_id, inner, { isError: block.is_error ?? false })
}

/** The ids of the server tool calls whose results `content` holds (see {@link Where.finished}). */
const finishedCalls = (content: ReadonlyArray<Format.InputBlock>): ReadonlySet<string> => {
  const ids = new Set<string>()
  for (const block of content) {
    const id = (block as { readonly tool_use_id?: unknown }).tool_use_id
    if (block.type !== "tool_result" && typeof id === "string") ids.add(id)
  }
  return ids
}

const isDirect = (caller: Json.JsonObject): boolean => {
  const keys = Object.keys(caller)
  return keys.length === 1 && caller["type"] === "direct"
}

/**
 * A `tool_use`. One with a `caller` other than `{type: "direct"}` was made by code Anthropic's code
 * execution ran (programmatic tool calling): while that code waits for the result (its own result
 * is not in the message), it is a call for the client to run, with its caller in
 * `detail.anthropic.caller` so that it goes back as it came; once the code has finished in the same
 * message, the call already ran, and running it again would repeat it: it is kept as a provider
 * block, or reported.
 */
const decodeToolUse = (
  block: Format.ToolUseBlock,
  where: Where
): Block.ToolCallBlock | Block.ProviderBlock | Failed => {
  // a copy, so that the conversation shares no mutable object with the input
  const input = Guard.copyJsonObject(block.input)
  const caller = block.caller
  if (caller === undefined || isDirect(caller)) return Block.toolCall(block.id, block.name, input)
  const by = caller["tool_id"]
  where.finished ??= finishedCalls(where.content)
  if (typeof by === "string" && where.finished.has(by)) {
    return keptOrUnsupported(
      block,
      "tool_use",
      where,
      `a call of ${JSON.stringify(block.name)} (${block.id}) that Anthropic's code execution (${by}) made and ` +
        "that already ran: its code's result is in the same turn, so it is no call for the client to run"
    )
  }
  return Block.toolCall(block.id, block.name, input, { detail: Detail.of({ caller: Guard.copyJsonObject(caller) }) })
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
    case "image": {
      const decoded = decodeContent(known, where)
      return decoded === "other" ? kept(known, known.type, where) : decoded
    }
    case "thinking":
      return Block.reasoning(known.thinking, { signature: known.signature ?? null })
    case "redacted_thinking":
      return Redacted.block(known.data)
    case "tool_use":
      return decodeToolUse(known, where)
    case "tool_result":
      return decodeToolResult(known, where)
    default: {
      const other = block as typeof Format.OtherBlock.Type
      return keptOrUnsupported(
        other,
        other.type,
        where,
        `it is ${describeOther(other)}, and the canonical blocks are ${canonicalBlocks}`
      )
    }
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
  prefix: ConversionError.Path,
  keep: boolean
): Either.Either<Message.Message, Format.DecodeError> => {
  const role = message.role
  const content = message.content
  if (typeof content === "string") return Either.right(withBlocks(role, [Block.text(content)]))
  const blocks: Array<Block.Block> = new Array(content.length)
  const where: Where = { prefix, messageIndex, blockIndex: 0, keep, finished: undefined, content }
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
  out: Array<Message.Message>,
  keep: boolean
): Either.Either<Conversation.Conversation, Format.DecodeError> => {
  for (let i = 0; i < messages.length; i++) {
    const decoded = decodeMessage(messages[i]!, i, prefix, keep)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    out.push(decoded.right)
  }
  return Either.right(out)
}

// the conversion of a request body or messages array that decodes
const convert = (
  input: Format.Request | ReadonlyArray<Format.InputMessage>,
  options: Format.DecodeOptions | undefined
): Either.Either<Conversation.Conversation, Format.DecodeError> => {
  const keep = ProviderContent.keeps(options)
  if (Array.isArray(input)) return decodeMessages(input as ReadonlyArray<Format.InputMessage>, [], [], keep)
  const { messages, system } = input as Format.Request
  const out: Array<Message.Message> = []
  if (typeof system === "string") out.push(Message.system(system))
  else if (system !== undefined && system !== null && system.length > 0) {
    out.push(Message.system(system.map((block) => Block.text(block.text))))
  }
  return decodeMessages(messages, ["messages"], out, keep)
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
  convert: (value, _target, options) => convert(value, options)
})
