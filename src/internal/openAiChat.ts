/**
 * The Chat Completions message list, shared by the `openai` and `openrouter` formats: the wire
 * schemas, encoding and decoding. Everything here takes the format name, which every error carries.
 *
 * Encoding follows the reference SDK's `convert_messages(messages, "openai" | "openrouter")`
 * (openreward 0.1.167); decoding reads what OpenAI-compatible servers and their clients store.
 *
 * @internal
 */
import type * as Brand from "effect/Brand"
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Block from "../Block.js"
import * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"
import * as Json from "../Json.js"
import * as Message from "../Message.js"
import * as Guard from "./guard.js"
import { issueOf } from "./parseIssue.js"
import { dumps } from "./pythonJson.js"
import * as RequestBody from "./requestBody.js"
import { maxDepth, tooDeep, total } from "./wireInput.js"

/** The tags of every error the Chat Completions encoder can fail with (OpenAI and OpenRouter). */
export const encodeErrors = ["MisplacedBlock", "UnsupportedBlock"] as const
type ChatEncodeError = ConversionError.Tagged<typeof encodeErrors[number]>

/** The tags of every error the Chat Completions decoder can fail with (OpenAI and OpenRouter). */
export const decodeErrors = ["MalformedInput", "InvalidToolArguments", "UnsupportedContent"] as const
type ChatDecodeError = ConversionError.Tagged<typeof decodeErrors[number]>

/** The formats that speak Chat Completions. */
export type Format = "openai" | "openrouter"

// -----------------------------------------------------------------------------
// wire: what encode produces
// -----------------------------------------------------------------------------

/** A text content part. */
export const TextPart = Schema.Struct({
  type: Schema.tag("text"),
  text: Schema.String
}).annotations({ identifier: "ChatTextPart" })

export interface TextPart extends Schema.Schema.Type<typeof TextPart> {}

/** An image content part; encoding always writes a base64 data URL. */
export const ImageUrlPart = Schema.Struct({
  type: Schema.tag("image_url"),
  image_url: Schema.Struct({ url: Schema.String })
}).annotations({ identifier: "ChatImageUrlPart" })

export interface ImageUrlPart extends Schema.Schema.Type<typeof ImageUrlPart> {}

/** A content part encoding produces. */
export const ContentPart = Schema.Union(TextPart, ImageUrlPart).annotations({ identifier: "ChatContentPart" })

export type ContentPart = TextPart | ImageUrlPart

/** Message content: a plain string for exactly one text block, parts otherwise. */
export const Content = Schema.Union(Schema.String, Schema.Array(ContentPart)).annotations({
  identifier: "ChatContent"
})

export type Content = string | ReadonlyArray<ContentPart>

/** A function tool call; `arguments` is the input as a JSON string. */
export const ToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.tag("function"),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String })
}).annotations({ identifier: "ChatToolCall" })

export interface ToolCall extends Schema.Schema.Type<typeof ToolCall> {}

export const SystemMessage = Schema.Struct({
  role: Schema.tag("system"),
  content: Content
}).annotations({ identifier: "ChatSystemMessage" })

export interface SystemMessage extends Schema.Schema.Type<typeof SystemMessage> {}

export const UserMessage = Schema.Struct({
  role: Schema.tag("user"),
  content: Content
}).annotations({ identifier: "ChatUserMessage" })

export interface UserMessage extends Schema.Schema.Type<typeof UserMessage> {}

export const AssistantMessage = Schema.Struct({
  role: Schema.tag("assistant"),
  content: Schema.NullOr(Content),
  reasoning_content: Schema.optionalWith(Schema.String, { exact: true }),
  reasoning: Schema.optionalWith(Schema.String, { exact: true }),
  tool_calls: Schema.optionalWith(Schema.Array(ToolCall), { exact: true })
}).annotations({ identifier: "ChatAssistantMessage" })

export interface AssistantMessage extends Schema.Schema.Type<typeof AssistantMessage> {}

export const ToolMessage = Schema.Struct({
  role: Schema.tag("tool"),
  tool_call_id: Schema.String,
  content: Content
}).annotations({ identifier: "ChatToolMessage" })

export interface ToolMessage extends Schema.Schema.Type<typeof ToolMessage> {}

export const ChatMessage = Schema.Union(SystemMessage, UserMessage, AssistantMessage, ToolMessage).annotations({
  identifier: "ChatMessage"
})

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage

export const Wire = Schema.Array(ChatMessage).annotations({ identifier: "ChatMessages" })

export type Wire = ReadonlyArray<ChatMessage>

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

const describe = (u: unknown): string =>
  u === null
    ? "null"
    : u === undefined
    ? "undefined"
    : Array.isArray(u)
    ? "an array"
    : typeof u === "object"
    ? "an object"
    : typeof u === "string"
    ? JSON.stringify(u)
    : typeof u === "number" || typeof u === "boolean" || typeof u === "bigint"
    ? String(u)
    : typeof u

// One clear issue when a list entry is not even an object; an object reports its own issues.
const objectExpected = (what: string) => (issue: ParseResult.ParseIssue) =>
  typeof issue.actual === "object" && issue.actual !== null && !Array.isArray(issue.actual)
    ? { message: "", override: false }
    : { message: `Expected ${what} object, actual ${describe(issue.actual)}`, override: true }

// `string | Array<P>` (and `null` where allowed), reporting one clear issue when the input is none
// of them; an array with a bad part reports the part.
const contentMessage = (nullable: boolean) => (issue: ParseResult.ParseIssue) =>
  typeof issue.actual === "string" || Array.isArray(issue.actual) || (nullable && issue.actual === null)
    ? { message: "", override: false }
    : {
      message: `Expected ${
        nullable ? "a string, an array of content parts or null" : "a string or an array of content parts"
      }, actual ${describe(issue.actual)}`,
      override: true
    }

const contentOf = <P extends Schema.Schema.Any>(parts: P) =>
  Schema.Union(Schema.String, Schema.Array(parts)).annotations({ message: contentMessage(false) })

const nullableContentOf = <P extends Schema.Schema.Any>(parts: P) =>
  Schema.Union(Schema.String, Schema.Array(parts), Schema.Null).annotations({ message: contentMessage(true) })

// Any `type` outside `known`: content this library reads only to report. The brand keeps the known
// members apart from this one when narrowing.
const otherThan = (known: ReadonlyArray<string>, identifier: string) => {
  const set: ReadonlySet<string> = new Set(known)
  return Schema.Struct({
    type: Schema.String.pipe(
      Schema.filter((type) => !set.has(type), { message: () => "an entry of a known type must match its schema" }),
      Schema.brand("OtherType")
    )
  }).annotations({ identifier })
}

type Other = { readonly type: string & Brand.Brand<"OtherType"> }

const isOther = <A extends { readonly type?: string | undefined }>(
  value: A | Other,
  known: ReadonlySet<string>
): value is Other => value.type !== undefined && !known.has(value.type)

/** An image part as decoding reads it (`detail` and other keys are ignored). */
export const InputImageUrlPart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String })
}).annotations({ identifier: "ChatInputImageUrlPart" })

/** An assistant's refusal, read as text. */
export const RefusalPart = Schema.Struct({
  type: Schema.Literal("refusal"),
  refusal: Schema.String
}).annotations({ identifier: "ChatRefusalPart" })

export interface RefusalPart extends Schema.Schema.Type<typeof RefusalPart> {}

/** A part of any other type (`input_audio`, `file`, `video_url`, ...): read only to report it. */
export const OtherPart = otherThan(["text", "image_url"], "ChatOtherPart")

const OtherAssistantPart = otherThan(["text", "image_url", "refusal"], "ChatOtherPart")

/** A content part of a system, developer, user or tool message. */
export const InputPart = Schema.Union(TextPart, InputImageUrlPart, OtherPart).annotations({
  message: objectExpected("a content part")
})

export type InputPart = typeof InputPart.Type

/** A content part of an assistant message. */
export const InputAssistantPart = Schema.Union(TextPart, InputImageUrlPart, RefusalPart, OtherAssistantPart)
  .annotations({ message: objectExpected("a content part") })

export type InputAssistantPart = typeof InputAssistantPart.Type

const Arguments = Schema.Union(Schema.String, Json.JsonObject).annotations({
  message: (issue) =>
    typeof issue.actual === "string" ||
      (typeof issue.actual === "object" && issue.actual !== null && !Array.isArray(issue.actual))
      ? { message: "", override: false }
      : { message: `Expected a JSON string or a JSON object, actual ${describe(issue.actual)}`, override: true }
})

/**
 * A function tool call as decoding reads it: `type` may be absent, and `arguments` may be a JSON
 * object instead of a JSON string.
 */
export const InputFunctionToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.optionalWith(Schema.Literal("function"), { exact: true }),
  function: Schema.Struct({ name: Schema.String, arguments: Arguments })
}).annotations({ identifier: "ChatInputFunctionToolCall" })

export interface InputFunctionToolCall extends Schema.Schema.Type<typeof InputFunctionToolCall> {}

/** A tool call of another type (`custom`): read only to report it. */
export const OtherToolCall = otherThan(["function"], "ChatOtherToolCall")

export const InputToolCall = Schema.Union(InputFunctionToolCall, OtherToolCall).annotations({
  message: objectExpected("a tool call")
})

export type InputToolCall = typeof InputToolCall.Type

/** OpenRouter's `reasoning.text` detail: reasoning text, maybe signed. */
export const ReasoningTextDetail = Schema.Struct({
  type: Schema.Literal("reasoning.text"),
  text: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  signature: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })
}).annotations({ identifier: "ReasoningTextDetail" })

/** OpenRouter's `reasoning.summary` detail: a summary of the reasoning. */
export const ReasoningSummaryDetail = Schema.Struct({
  type: Schema.Literal("reasoning.summary"),
  summary: Schema.String
}).annotations({ identifier: "ReasoningSummaryDetail" })

/** OpenRouter's `reasoning.encrypted` detail: opaque data (no canonical form). */
export const ReasoningEncryptedDetail = Schema.Struct({
  type: Schema.Literal("reasoning.encrypted")
}).annotations({ identifier: "ReasoningEncryptedDetail" })

const knownDetails = ["reasoning.text", "reasoning.summary", "reasoning.encrypted"]

/** An OpenRouter `reasoning_details` entry. */
export const ReasoningDetail = Schema.Union(
  ReasoningTextDetail,
  ReasoningSummaryDetail,
  ReasoningEncryptedDetail,
  otherThan(knownDetails, "OtherReasoningDetail")
).annotations({ message: objectExpected("a reasoning detail") })

export type ReasoningDetail = typeof ReasoningDetail.Type

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** A system message. */
export const InputSystemMessage = Schema.Struct({
  role: Schema.Literal("system"),
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputSystemMessage" })

export interface InputSystemMessage extends Schema.Schema.Type<typeof InputSystemMessage> {}

/** A developer message: what newer OpenAI models call the system message. */
export const InputDeveloperMessage = Schema.Struct({
  role: Schema.Literal("developer"),
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputDeveloperMessage" })

export interface InputDeveloperMessage extends Schema.Schema.Type<typeof InputDeveloperMessage> {}

export const InputUserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputUserMessage" })

export interface InputUserMessage extends Schema.Schema.Type<typeof InputUserMessage> {}

/**
 * An assistant message as decoding reads it: content may be absent or null, reasoning may come as
 * `reasoning_content`, `reasoning` or OpenRouter's `reasoning_details`. `function_call` and `audio`
 * are read only to report them.
 */
export const InputAssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: optional(nullableContentOf(InputAssistantPart)),
  refusal: optional(Schema.NullOr(Schema.String)),
  reasoning_content: optional(Schema.NullOr(Schema.String)),
  reasoning: optional(Schema.NullOr(Schema.String)),
  reasoning_details: optional(Schema.NullOr(Schema.Array(ReasoningDetail))),
  tool_calls: optional(Schema.NullOr(Schema.Array(InputToolCall))),
  function_call: optional(Schema.Unknown),
  audio: optional(Schema.Unknown)
}).annotations({ identifier: "ChatInputAssistantMessage" })

export interface InputAssistantMessage extends Schema.Schema.Type<typeof InputAssistantMessage> {}

export const InputToolMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  tool_call_id: Schema.String,
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputToolMessage" })

export interface InputToolMessage extends Schema.Schema.Type<typeof InputToolMessage> {}

/** The deprecated `function` role: read only to report it. */
export const InputFunctionMessage = Schema.Struct({
  role: Schema.Literal("function")
}).annotations({ identifier: "ChatInputFunctionMessage" })

export const InputMessage = Schema.Union(
  InputSystemMessage,
  InputDeveloperMessage,
  InputUserMessage,
  InputAssistantMessage,
  InputToolMessage,
  InputFunctionMessage
).annotations({ identifier: "ChatInputMessage", message: objectExpected("a chat message") })

export type InputMessage = typeof InputMessage.Type

// -----------------------------------------------------------------------------
// options
// -----------------------------------------------------------------------------

/** Where assistant reasoning goes. */
export type ReasoningField = "reasoning_content" | "reasoning" | "omit"

/** What happens to images inside tool results. */
export type ToolResultImages = "error" | "user-message" | "tool-message"

/** How tool-call `arguments` are written. */
export type ToolArguments = "python" | "json"

export interface EncodeOptions {
  readonly reasoningField?: ReasoningField | undefined
  readonly reasoningOnToolCalls?: boolean | undefined
  readonly toolResultImages?: ToolResultImages | undefined
  readonly toolArguments?: ToolArguments | undefined
}

export interface DecodeOptions {
  readonly encryptedReasoning?: "error" | "drop" | undefined
}

// -----------------------------------------------------------------------------
// encoding
// -----------------------------------------------------------------------------

// Encoding builds each message directly: optional keys assigned, strings concatenated, arrays made
// only when needed, and placement checked only when encoding fails (docs/performance.md, "What
// changed", encoders).

const dataUrl = (image: Block.ImageBlock): string => "data:" + image.mimeType + ";base64," + image.data

const encodePart = (block: Block.ContentBlock): ContentPart => {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text }
    case "image":
      return { type: "image_url", image_url: { url: dataUrl(block) } }
    default:
      return absurd(block)
  }
}

const encodeContent = (blocks: ReadonlyArray<Block.ContentBlock>): Content => {
  if (blocks.length === 1 && blocks[0]!.type === "text") return blocks[0]!.text
  const parts: Array<ContentPart> = new Array(blocks.length)
  for (let k = 0; k < blocks.length; k++) parts[k] = encodePart(blocks[k]!)
  return parts
}

/** The error `Conversation.validate` gives for this block, which `encode` reports unless an earlier one is misplaced. */
const misplaced = (
  message: Message.Message,
  messageIndex: number,
  blockIndex: number
): ConversionError.MisplacedBlock =>
  new ConversionError.MisplacedBlock({
    path: [messageIndex, "blocks", blockIndex],
    messageIndex,
    blockIndex,
    role: message.role,
    blockType: message.blocks[blockIndex]!.type
  })

/** The index of the first block that is not text or an image, or -1. */
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
  out: Array<ChatMessage>
): ChatEncodeError | undefined => {
  const blocks = message.blocks
  // images moved out of tool results (toolResultImages: "user-message") lead the user message
  const moved: Array<Block.ImageBlock> | undefined = policy === "user-message" ? [] : undefined
  let rest: Array<Block.ContentBlock> | undefined
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
      default:
        return misplaced(message, messageIndex, j)
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

type MutableAssistantMessage = { -readonly [K in keyof AssistantMessage]: AssistantMessage[K] }

/** Push an assistant message: visible blocks as content, reasoning texts joined with "\n\n", tool calls. */
const encodeAssistant = (
  message: Message.AssistantMessage,
  messageIndex: number,
  reasoningField: ReasoningField,
  reasoningOnToolCalls: boolean,
  serializeArguments: (input: Json.JsonObject) => string,
  out: Array<ChatMessage>
): ConversionError.MisplacedBlock | undefined => {
  const blocks = message.blocks
  let visible: Array<Block.ContentBlock> | undefined
  let reasoning: string | undefined
  let toolCalls: Array<ToolCall> | undefined
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    switch (block.type) {
      case "text":
      case "image":
        ;(visible ??= []).push(block)
        break
      case "reasoning":
        reasoning = reasoning === undefined ? block.text : reasoning + "\n\n" + block.text
        break
      case "tool_call":
        ;(toolCalls ??= []).push({
          id: block.id,
          type: "function",
          function: { name: block.name, arguments: serializeArguments(block.input) }
        })
        break
      default:
        return misplaced(message, messageIndex, j)
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
  if (toolCalls !== undefined) entry.tool_calls = toolCalls
  out.push(entry)
  return undefined
}

/** Push every message's encoding; the first error stops it. */
const encodeMessages = (
  format: Format,
  conversation: Conversation.Conversation,
  options: EncodeOptions,
  out: Array<ChatMessage>
): ChatEncodeError | undefined => {
  const policy = options.toolResultImages ?? "error"
  const reasoningField = options.reasoningField ?? "reasoning_content"
  const reasoningOnToolCalls = options.reasoningOnToolCalls === true
  const serializeArguments = options.toolArguments === "json" ? jsonArguments : dumps
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    let error: ChatEncodeError | undefined
    switch (message.role) {
      case "system": {
        const j = firstNotContent(message.blocks)
        if (j !== -1) return misplaced(message, i, j)
        out.push({ role: "system", content: encodeContent(message.blocks) })
        break
      }
      case "user":
        error = encodeUser(format, message, i, policy, out)
        break
      case "assistant":
        error = encodeAssistant(message, i, reasoningField, reasoningOnToolCalls, serializeArguments, out)
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
): Either.Either<Wire, ChatEncodeError> => {
  const out: Array<ChatMessage> = []
  const error = encodeMessages(format, conversation, options, out)
  if (error === undefined) return Either.right(out)
  // The reference checks placement first, for the whole conversation: a misplaced block anywhere is
  // reported before any other error. Checking only once encoding has failed gives the same errors.
  const placed = Conversation.validate(conversation)
  return Either.left(Either.isLeft(placed) ? placed.left : error)
}

// -----------------------------------------------------------------------------
// decoding
// -----------------------------------------------------------------------------

const decodeMessages = Schema.decodeUnknownEither(Schema.Array(InputMessage), { onExcessProperty: "ignore" })
const isMessageList = Guard.compile(Schema.Array(InputMessage), { onExcessProperty: "ignore" })

const blockKeys: ReadonlySet<string | number> = new Set(["content", "tool_calls", "reasoning_details"])

/** A `MalformedInput` at `path`, which starts with `prefix` (where the message list sits). */
const malformedAt = (
  format: Format,
  path: ConversionError.Path,
  prefix: ConversionError.Path,
  reason: string
): ConversionError.MalformedInput => {
  const [messageIndex, key, blockIndex] = path.slice(prefix.length)
  return new ConversionError.MalformedInput({
    format,
    path,
    reason,
    ...(typeof messageIndex === "number" ? { messageIndex } : {}),
    ...(typeof messageIndex === "number" && key !== undefined && blockKeys.has(key) && typeof blockIndex === "number"
      ? { blockIndex }
      : {})
  })
}

/**
 * The deepest issue of a parse error (the first one on a tie) as a `MalformedInput`: a failed
 * union reports every member it tried, and the member matching the input's shape fails deepest.
 */
const malformed = (
  format: Format,
  error: ParseResult.ParseError,
  prefix: ConversionError.Path
): ConversionError.MalformedInput => {
  const { message, path } = issueOf(error, "deepest")
  return malformedAt(format, [...prefix, ...path], prefix, message)
}

interface Where {
  readonly format: Format
  readonly path: ConversionError.Path
  readonly messageIndex: number
  readonly blockIndex?: number | undefined
}

const at = (where: Where, key: string, blockIndex?: number): Where =>
  blockIndex === undefined
    ? { ...where, path: [...where.path, key] }
    : { ...where, path: [...where.path, key, blockIndex], blockIndex }

const unsupported = (
  where: Where,
  contentType: string,
  reason: string
): Either.Either<never, ConversionError.UnsupportedContent> =>
  Either.left(
    new ConversionError.UnsupportedContent({
      format: where.format,
      path: where.path,
      messageIndex: where.messageIndex,
      ...(where.blockIndex === undefined ? {} : { blockIndex: where.blockIndex }),
      contentType,
      reason
    })
  )

// `data:<mime>;base64,<data>`; the media type is everything up to the first `;base64,`.
const base64DataUrl = /^data:(.*?);base64,/is

/** The image of a base64 data URL, or `undefined` for any other URL. */
const dataUrlImage = (url: string): Block.ImageBlock | undefined => {
  const match = base64DataUrl.exec(url)
  return match === null ? undefined : Block.image(url.slice(match[0].length), match[1] ?? "")
}

const decodeImage = (
  url: string,
  where: Where
): Either.Either<Block.ImageBlock, ConversionError.UnsupportedContent> => {
  const image = dataUrlImage(url)
  return image === undefined
    ? unsupported(
      at(at(where, "image_url"), "url"),
      "image_url",
      "only a base64 data URL (data:<mime>;base64,<data>) has a canonical form; fetch the image and inline it"
    )
    : Either.right(image)
}

const partTypes: ReadonlySet<string> = new Set(["text", "image_url"])
const assistantPartTypes: ReadonlySet<string> = new Set(["text", "image_url", "refusal"])

const otherPart = (part: Other, where: Where) =>
  unsupported(where, part.type, "a canonical message holds text and images (base64 data URLs) only")

const decodePart = (
  part: InputPart,
  where: Where
): Either.Either<Block.ContentBlock, ConversionError.UnsupportedContent> => {
  if (isOther(part, partTypes)) return otherPart(part, where)
  switch (part.type) {
    case "text":
      return Either.right(Block.text(part.text))
    case "image_url":
      return decodeImage(part.image_url.url, where)
    default:
      return absurd(part)
  }
}

const decodeAssistantPart = (
  part: InputAssistantPart,
  where: Where
): Either.Either<Block.ContentBlock, ConversionError.UnsupportedContent> => {
  if (isOther(part, assistantPartTypes)) return otherPart(part, where)
  switch (part.type) {
    case "text":
      return Either.right(Block.text(part.text))
    case "image_url":
      return decodeImage(part.image_url.url, where)
    case "refusal":
      return Either.right(Block.text(part.refusal))
    default:
      return absurd(part)
  }
}

const decodeContent = <P>(
  content: string | ReadonlyArray<P>,
  where: Where,
  decodeOne: (part: P, where: Where) => Either.Either<Block.ContentBlock, ConversionError.UnsupportedContent>
): Either.Either<Array<Block.ContentBlock>, ConversionError.UnsupportedContent> => {
  if (typeof content === "string") return Either.right([Block.text(content)])
  const blocks: Array<Block.ContentBlock> = []
  for (const [k, part] of content.entries()) {
    const block = decodeOne(part, at(where, "content", k))
    if (Either.isLeft(block)) return Either.left(block.left)
    blocks.push(block.right)
  }
  return Either.right(blocks)
}

const invalidArguments = (where: Where, raw: string, reason: string) =>
  Either.left(
    new ConversionError.InvalidToolArguments({
      format: where.format,
      path: where.path,
      messageIndex: where.messageIndex,
      blockIndex: where.blockIndex ?? 0,
      raw,
      reason
    })
  )

const isJsonObject = Schema.is(Json.JsonObject)

const parseArguments = (
  raw: string | Json.JsonObject,
  where: Where
): Either.Either<Json.JsonObject, ConversionError.InvalidToolArguments> => {
  if (typeof raw !== "string") return Either.right(raw)
  if (raw === "") return Either.right({})
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return invalidArguments(where, raw, "not valid JSON")
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return invalidArguments(where, raw, `expected a JSON object, actual ${describe(parsed)}`)
  }
  // the rest of the conversation is limited to this depth too (see `decode`)
  if (tooDeep(parsed) !== undefined) return invalidArguments(where, raw, `nested more than ${maxDepth} levels deep`)
  return isJsonObject(parsed)
    ? Either.right(parsed)
    : invalidArguments(where, raw, "a number is too large to represent")
}

const toolCallTypes: ReadonlySet<string> = new Set(["function"])

const decodeToolCall = (
  call: InputToolCall,
  where: Where
): Either.Either<Block.ToolCallBlock, ConversionError.InvalidToolArguments | ConversionError.UnsupportedContent> => {
  if (isOther(call, toolCallTypes)) {
    return unsupported(
      at(where, "type"),
      `${call.type} tool call`,
      "only function tool calls have a canonical form"
    )
  }
  return Either.map(
    parseArguments(call.function.arguments, at(at(where, "function"), "arguments")),
    (input) => Block.toolCall(call.id, call.function.name, input)
  )
}

const detailTypes: ReadonlySet<string> = new Set(knownDetails)

/**
 * The reasoning of an assistant message. OpenRouter's `reasoning_details` text and summary entries,
 * when there are any, are the reasoning (one block each, signature kept): `reasoning` is OpenRouter's
 * flattened copy of them, and neither it nor `reasoning_content` is read then. Otherwise
 * `reasoning_content` and `reasoning` are read, once each, and once when they are equal.
 */
const decodeReasoning = (
  message: InputAssistantMessage,
  where: Where,
  options: DecodeOptions
): Either.Either<Array<Block.ReasoningBlock>, ConversionError.UnsupportedContent> => {
  const fromDetails: Array<Block.ReasoningBlock> = []
  for (const [k, detail] of (message.reasoning_details ?? []).entries()) {
    const here = at(where, "reasoning_details", k)
    if (isOther(detail, detailTypes)) {
      return unsupported(here, detail.type, "a canonical reasoning block holds text and a signature only")
    }
    switch (detail.type) {
      case "reasoning.text":
        fromDetails.push(Block.reasoning(detail.text ?? "", { signature: detail.signature ?? null }))
        break
      case "reasoning.summary":
        fromDetails.push(Block.reasoning(detail.summary))
        break
      case "reasoning.encrypted":
        if (options.encryptedReasoning !== "drop") {
          return unsupported(
            here,
            detail.type,
            "encrypted reasoning is opaque data and a canonical reasoning block holds text; set " +
              "encryptedReasoning to \"drop\" to leave it out"
          )
        }
        break
      default:
        return absurd(detail)
    }
  }
  if (fromDetails.length > 0) return Either.right(fromDetails)
  const texts: Array<string> = []
  for (const text of [message.reasoning_content, message.reasoning]) {
    if (typeof text === "string" && !texts.includes(text)) texts.push(text)
  }
  return Either.right(texts.map((text) => Block.reasoning(text)))
}

const decodeAssistant = (
  message: InputAssistantMessage,
  where: Where,
  options: DecodeOptions
): Either.Either<Message.AssistantMessage, ChatDecodeError> => {
  if (message.function_call !== undefined && message.function_call !== null) {
    return unsupported(
      at(where, "function_call"),
      "function_call",
      "the deprecated function_call has no id to pair with a result; use tool_calls"
    )
  }
  if (message.audio !== undefined && message.audio !== null) {
    return unsupported(at(where, "audio"), "audio", "a canonical message holds text and images only")
  }
  const reasoning = decodeReasoning(message, where, options)
  if (Either.isLeft(reasoning)) return Either.left(reasoning.left)
  const blocks: Array<Message.AssistantBlock> = [...reasoning.right]
  if (message.content !== undefined && message.content !== null) {
    const content = decodeContent(message.content, where, decodeAssistantPart)
    if (Either.isLeft(content)) return Either.left(content.left)
    blocks.push(...content.right)
  }
  if (typeof message.refusal === "string") blocks.push(Block.text(message.refusal))
  for (const [k, call] of (message.tool_calls ?? []).entries()) {
    const block = decodeToolCall(call, at(where, "tool_calls", k))
    if (Either.isLeft(block)) return Either.left(block.left)
    blocks.push(block.right)
  }
  return Either.right(Message.assistant(blocks))
}

/**
 * Canonical messages from decoded wire messages. Consecutive tool messages, with the user message
 * right after them, become one user turn: the tool results, then that message's content.
 */
const toConversation = (
  format: Format,
  messages: ReadonlyArray<InputMessage>,
  prefix: ConversionError.Path,
  options: DecodeOptions
): Either.Either<Conversation.Conversation, ChatDecodeError> => {
  const out: Array<Message.Message> = []
  let results: Array<Block.ToolResultBlock> = []
  const flush = () => {
    if (results.length > 0) out.push(Message.user(results))
    results = []
  }
  for (const [i, message] of messages.entries()) {
    const where: Where = { format, path: [...prefix, i], messageIndex: i }
    switch (message.role) {
      case "system":
      case "developer": {
        const content = decodeContent(message.content, where, decodePart)
        if (Either.isLeft(content)) return Either.left(content.left)
        flush()
        out.push(Message.system(content.right))
        break
      }
      case "user": {
        const content = decodeContent(message.content, where, decodePart)
        if (Either.isLeft(content)) return Either.left(content.left)
        out.push(Message.user([...results, ...content.right]))
        results = []
        break
      }
      case "tool": {
        const content = decodeContent(message.content, where, decodePart)
        if (Either.isLeft(content)) return Either.left(content.left)
        results.push(Block.toolResult(message.tool_call_id, content.right))
        break
      }
      case "assistant": {
        const assistant = decodeAssistant(message, where, options)
        if (Either.isLeft(assistant)) return Either.left(assistant.left)
        flush()
        out.push(assistant.right)
        break
      }
      case "function":
        return unsupported(
          at(where, "role"),
          "function message",
          "the deprecated function role has no tool_call_id to pair with a tool call; use tool messages"
        )
      default:
        return absurd(message)
    }
  }
  flush()
  return Either.right(out)
}

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * `decode` without its guard: the Schema decode of the whole message list, then the conversion.
 * Every error comes from it.
 */
export const decodeWithSchema = (
  format: Format,
  input: unknown,
  options: DecodeOptions = {}
): Either.Either<Conversation.Conversation, ChatDecodeError> => {
  const [messages, prefix]: readonly [unknown, ConversionError.Path] = Array.isArray(input)
    ? [input, []]
    : isRecord(input) && "messages" in input
    ? [input["messages"], ["messages"]]
    : [undefined, []]
  if (prefix.length === 0 && !Array.isArray(messages)) {
    return Either.left(
      new ConversionError.MalformedInput({
        format,
        path: [],
        reason: `expected an array of chat messages or a request body {messages: [...]}, actual ${
          isRecord(input) ? "an object without messages" : describe(input)
        }`
      })
    )
  }
  // Decoding recurses once per level of nesting: input nested deeper than any transcript (or cyclic)
  // is reported before it can overflow the stack. Every value under the message list is walked,
  // whether decoding reads it or not.
  const deep = tooDeep(messages)
  if (deep !== undefined) {
    return Either.left(
      malformedAt(format, [...prefix, ...deep], prefix, `nested more than ${maxDepth} levels deep (or cyclic)`)
    )
  }
  const decoded = decodeMessages(messages)
  return Either.isLeft(decoded)
    ? Either.left(malformed(format, decoded.left, prefix))
    : toConversation(format, decoded.right, prefix, options)
}

/**
 * The Chat Completions request parameters (`ChatCompletionCreateParams` of the `openai` SDK 6.49, the
 * deprecated `functions` and `function_call` included): a request body may hold them beside
 * `messages`; decoding ignores them.
 */
const chatParameters = [
  "model",
  "audio",
  "frequency_penalty",
  "function_call",
  "functions",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "metadata",
  "modalities",
  "moderation",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "reasoning_effort",
  "response_format",
  "safety_identifier",
  "seed",
  "service_tier",
  "stop",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "user",
  "verbosity",
  "web_search_options"
]

/** What OpenRouter's chat request adds to OpenAI's (its API reference). */
const openRouterParameters = [
  "debug",
  "image_config",
  "include_reasoning",
  "min_p",
  "models",
  "plugins",
  "prompt",
  "provider",
  "reasoning",
  "repetition_penalty",
  "route",
  "session_id",
  "top_a",
  "top_k",
  "trace",
  "transforms",
  "usage"
]

/** The keys of a request body, per format: `messages`, and the request parameters decoding ignores. */
export const requestKeys: { readonly [F in Format]: RequestBody.Keys } = {
  openai: { conversation: ["messages"], parameters: chatParameters },
  openrouter: { conversation: ["messages"], parameters: [...chatParameters, ...openRouterParameters] }
}

const unknownKey = {
  openai: RequestBody.checker("openai", requestKeys.openai),
  openrouter: RequestBody.checker("openrouter", requestKeys.openrouter)
}

/** A Chat Completions message list, or a request body holding one, to canonical messages. */
export const decode = (
  format: Format,
  input: unknown,
  options: DecodeOptions = {}
): Either.Either<Conversation.Conversation, ChatDecodeError> =>
  total(format, () => {
    const messages = Array.isArray(input)
      ? input
      : isRecord(input) && "messages" in input
      ? input["messages"]
      : undefined
    if (isRecord(input)) {
      const unknown = unknownKey[format](input as { readonly [key: string]: unknown })
      if (unknown !== undefined) return Either.left(unknown)
    }
    // a list the guard passes is converted as it is; anything else, errors included, is the
    // Schema decode's to answer (guard.ts)
    if (Array.isArray(messages) && isMessageList(messages)) {
      return toConversation(
        format,
        messages as ReadonlyArray<InputMessage>,
        Array.isArray(input) ? [] : ["messages"],
        options
      )
    }
    return decodeWithSchema(format, input, options)
  })
