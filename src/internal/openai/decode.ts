/**
 * A Chat Completions message list (or a request body holding one) to a canonical conversation, for
 * the `openai` and `openrouter` formats (docs/formats/openai.md): they read the same shapes, and
 * differ only in the format name errors carry and in the request parameters a body may hold (each
 * format's `requestKeys`, passed in). `response.ts` reads a completion's message through here.
 *
 * A list the guard (compiled from `OpenAiFormat.InputMessage`) passes is converted in one plain
 * pass; anything else goes through the Schema decode, which builds the exact `MalformedInput`.
 *
 * @internal
 */
import type * as Brand from "effect/Brand"
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import * as Schema from "effect/Schema"
import * as Block from "../../Block.js"
import type * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import type * as OpenAi from "../../OpenAiFormat.js"
import type * as OpenRouterFormat from "../../OpenRouterFormat.js"
import { standard } from "../base64.js"
import * as Decoder from "../decoder.js"
import * as Guard from "../guard.js"
import * as OpenRouter from "../openrouter/schema.js"
import { isRecord } from "../plain.js"
import type * as RequestBody from "../requestBody.js"
import * as Input from "../wireInput.js"
import * as Wire from "./schema.js"

/** The formats that speak Chat Completions. */
export type Format = typeof OpenAi.name | typeof OpenRouterFormat.name

type DecodeOptions = OpenAi.DecodeOptions

type DecodeError = OpenAi.DecodeError

// An entry of a type decoding does not convert (`OpenAiFormat.knownTypes`), read only to report it.
type Other = { readonly type: string & Brand.Brand<"OtherType"> }

const isOther = <A extends { readonly type?: string | undefined }>(
  value: A | Other,
  known: ReadonlySet<string>
): value is Other => value.type !== undefined && !known.has(value.type)

const known = {
  part: new Set<string>(Wire.knownTypes.part),
  assistantPart: new Set<string>(Wire.knownTypes.assistantPart),
  toolCall: new Set<string>(Wire.knownTypes.toolCall),
  reasoningDetail: new Set<string>(Wire.knownTypes.reasoningDetail)
}

/**
 * Where in the input a value is. The path is kept as a chain (`parent` plus the keys it adds) and
 * made into an array only when an error needs it: a valid conversation, the common case, builds none.
 */
interface Where {
  readonly format: Format
  readonly parent: Where | ConversionError.Path
  readonly keys: ReadonlyArray<string | number>
  readonly messageIndex: number
  readonly blockIndex?: number | undefined
}

const at = (where: Where, key: string, blockIndex?: number): Where => ({
  format: where.format,
  parent: where,
  keys: blockIndex === undefined ? [key] : [key, blockIndex],
  messageIndex: where.messageIndex,
  blockIndex: blockIndex ?? where.blockIndex
})

const pathOf = (where: Where): ConversionError.Path => {
  const chain: Array<Where> = []
  let node: Where | ConversionError.Path = where
  while (!Array.isArray(node)) {
    const w = node as Where
    chain.push(w)
    node = w.parent
  }
  const path: Array<PropertyKey> = [...(node as ConversionError.Path)]
  for (let i = chain.length - 1; i >= 0; i--) path.push(...chain[i]!.keys)
  return path as unknown as ConversionError.Path
}

const located = (where: Where): Input.Located => ({
  format: where.format,
  path: pathOf(where),
  messageIndex: where.messageIndex,
  blockIndex: where.blockIndex
})

const unsupported = (where: Where, contentType: string, reason: string) =>
  Input.unsupportedContent(located(where), contentType, reason)

// `data:<mime>;base64,<data>`; the media type is everything up to the first `;base64,`.
const base64DataUrl = /^data:(.*?);base64,/is

/** The image of a base64 data URL, or `undefined` for any other URL. */
const dataUrlImage = (url: string): Block.ImageBlock | undefined => {
  const match = base64DataUrl.exec(url)
  return match === null ? undefined : Block.image(standard(url.slice(match[0].length)), match[1] ?? "")
}

const decodeImage = (
  url: string,
  where: Where,
  k: number
): Either.Either<Block.ImageBlock, ConversionError.UnsupportedContent> => {
  const image = dataUrlImage(url)
  return image === undefined
    ? unsupported(
      at(at(at(where, "content", k), "image_url"), "url"),
      "image_url",
      "only a base64 data URL (data:<mime>;base64,<data>) has a canonical form; fetch the image and inline it"
    )
    : Either.right(image)
}

const otherPart = (part: Other, where: Where, k: number) =>
  unsupported(at(where, "content", k), part.type, "a canonical message holds text and images (base64 data URLs) only")

/** `detail` holding `fields` under the format's name (`{openai: {...}}`), or `null` when there are none. */
export const detailOf = (format: Format, fields: { readonly [key: string]: Json.JsonValue }): Json.JsonObject | null =>
  Object.keys(fields).length === 0 ? null : { [format]: fields }

/**
 * A Mistral `thinking` part as a reasoning block: its text chunks joined. A part holding any other
 * chunk (a `reference` to a tool result, ...) keeps the whole `thinking` list in the block's detail.
 */
const decodeThinking = (part: OpenAi.ThinkingPart, format: Format): Block.ReasoningBlock => {
  let text = ""
  let onlyText = true
  for (const chunk of part.thinking) {
    if (chunk.type === "text" && "text" in chunk) text += chunk.text
    else onlyText = false
  }
  if (onlyText) return Block.reasoning(text)
  const copied = Input.copyJson(part.thinking, 0)
  return Block.reasoning(text, { detail: copied === undefined ? null : detailOf(format, { thinking: copied }) })
}

/**
 * A content part's decoder, for the part types `known` lists (an assistant's include refusals and
 * Mistral's thinking parts, read as reasoning). A part is read with its message's `where` and its
 * index `k` in the content: its own path is made only for an error.
 */
const partDecoder = <P extends OpenAi.InputAssistantPart>(known: ReadonlySet<string>) =>
(
  part: P,
  where: Where,
  k: number
): Either.Either<Block.ContentBlock | Block.ReasoningBlock, ConversionError.UnsupportedContent> => {
  const read = part as OpenAi.InputAssistantPart
  if (isOther(read, known)) return otherPart(read, where, k)
  switch (read.type) {
    case "text":
      return Either.right(Block.text(read.text))
    case "image_url":
      return decodeImage(read.image_url.url, where, k)
    case "refusal":
      return Either.right(Block.text(read.refusal))
    case "thinking":
      return Either.right(decodeThinking(read, where.format))
    default:
      return absurd(read)
  }
}

// a thinking part is not in `known.part`, so this decoder never makes a reasoning block
const decodePart = partDecoder<OpenAi.InputPart>(known.part) as (
  part: OpenAi.InputPart,
  where: Where,
  k: number
) => Either.Either<Block.ContentBlock, ConversionError.UnsupportedContent>
const decodeAssistantPart = partDecoder<OpenAi.InputAssistantPart>(known.assistantPart)

const decodeContent = <P, B extends Message.AssistantBlock>(
  content: string | ReadonlyArray<P>,
  where: Where,
  decodeOne: (part: P, where: Where, k: number) => Either.Either<B, ConversionError.UnsupportedContent>
): Either.Either<Array<B | Block.TextBlock>, ConversionError.UnsupportedContent> => {
  if (typeof content === "string") return Either.right([Block.text(content)])
  const blocks: Array<B | Block.TextBlock> = []
  for (let k = 0; k < content.length; k++) {
    const part = content[k]!
    const block = decodeOne(part, where, k)
    if (Either.isLeft(block)) return Either.left(block.left)
    blocks.push(block.right)
  }
  return Either.right(blocks)
}

const invalidArguments = (where: Where, raw: string, reason: string) =>
  Input.invalidToolArguments(located(where), raw, reason)

// A tool call is read with its message's `where` and its index `k` in `tool_calls`: its own path
// is made only for an error.
const decodeToolCall = (
  call: OpenAi.InputToolCall,
  where: Where,
  k: number,
  options: DecodeOptions
): Either.Either<Block.ToolCallBlock, ConversionError.InvalidToolArguments | ConversionError.UnsupportedContent> => {
  if (isOther(call, known.toolCall)) {
    return unsupported(
      at(at(where, "tool_calls", k), "type"),
      `${call.type} tool call`,
      "only function tool calls have a canonical form"
    )
  }
  // Gemini's `extra_content` (its thought signature) is kept, to be sent back with the call
  const extra = call.extra_content
  const blockOptions = extra === undefined || extra === null
    ? undefined
    : { detail: detailOf(where.format, { extra_content: Guard.copyJsonObject(extra) }) }
  const raw = call.function.arguments
  // no `arguments` (OpenRouter, for a tool whose parameters are all optional) is no input
  if (raw === undefined) return Either.right(Block.toolCall(call.id, call.function.name, {}, blockOptions))
  if (typeof raw !== "string") {
    // a copy, so that the conversation shares no mutable object with the input
    return Either.right(Block.toolCall(call.id, call.function.name, Guard.copyJsonObject(raw), blockOptions))
  }
  const input = Input.parseToolArguments(raw)
  if (Either.isRight(input)) return Either.right(Block.toolCall(call.id, call.function.name, input.right, blockOptions))
  return options.invalidToolArguments === "keep"
    ? Either.right(
      Block.toolCallWithInvalidArguments(call.id, call.function.name, { raw, reason: input.left }, blockOptions)
    )
    : invalidArguments(at(at(at(where, "tool_calls", k), "function"), "arguments"), raw, input.left)
}

// what a reasoning block holds of a `reasoning_details` entry itself: the rest of the entry (`type`,
// `format`, `index`, `id`, ...) is kept in its detail, so that encoding can send the entry back
const entryContent: ReadonlySet<string> = new Set(["text", "summary", "data", "signature"])

/** The entry of a reasoning block read from `reasoning_details`, in its detail. */
const entryDetail = (entry: unknown, format: Format): Json.JsonObject | null => {
  const rest: { [key: string]: Json.JsonValue } = {}
  if (isRecord(entry)) {
    for (const key of Object.keys(entry)) {
      if (entryContent.has(key)) continue
      const value = Input.copyJson(entry[key], 1)
      if (value !== undefined) rest[key] = value
    }
  }
  return detailOf(format, { reasoning_detail: rest })
}

/**
 * The reasoning of an assistant message. OpenRouter's `reasoning_details` entries, when there are
 * any it reads, are the reasoning (one block each: text or summary, signature kept; an encrypted
 * entry's data as the signature of a block with no text; the entry's other keys in the detail):
 * `reasoning` is OpenRouter's flattened copy of them, and neither it nor `reasoning_content` is read
 * then. Otherwise `reasoning_content` and `reasoning` are read, once each, and once when they are
 * equal.
 */
const decodeReasoning = (
  message: OpenAi.InputAssistantMessage,
  where: Where,
  options: DecodeOptions
): Either.Either<Array<Block.ReasoningBlock>, ConversionError.UnsupportedContent> => {
  const fromDetails: Array<Block.ReasoningBlock> = []
  const details = message.reasoning_details ?? []
  const format = where.format
  for (let k = 0; k < details.length; k++) {
    const detail = details[k]!
    if (isOther(detail, known.reasoningDetail)) {
      return unsupported(
        at(where, "reasoning_details", k),
        detail.type,
        "a canonical reasoning block holds text and a signature only"
      )
    }
    switch (detail.type) {
      case "reasoning.text":
        fromDetails.push(
          Block.reasoning(detail.text ?? "", {
            signature: detail.signature ?? null,
            detail: entryDetail(detail, format)
          })
        )
        break
      case "reasoning.summary":
        fromDetails.push(Block.reasoning(detail.summary, { detail: entryDetail(detail, format) }))
        break
      case "reasoning.encrypted":
        switch (options.encryptedReasoning ?? "keep") {
          case "keep":
            fromDetails.push(
              Block.reasoning("", { signature: detail.data ?? null, detail: entryDetail(detail, format) })
            )
            break
          case "error":
            return unsupported(
              at(where, "reasoning_details", k),
              detail.type,
              "encrypted reasoning is opaque data and encryptedReasoning is \"error\"; set it to \"keep\" " +
                "(the default) to keep it as the signature of a reasoning block with no text, or to \"drop\" " +
                "to leave it out"
            )
          case "drop":
            break
        }
        break
      default:
        return absurd(detail)
    }
  }
  if (fromDetails.length > 0) return Either.right(fromDetails)
  const { reasoning, reasoning_content: content } = message
  const blocks: Array<Block.ReasoningBlock> = []
  if (typeof content === "string") blocks.push(Block.reasoning(content))
  if (typeof reasoning === "string" && reasoning !== content) blocks.push(Block.reasoning(reasoning))
  return Either.right(blocks)
}

const decodeAssistant = (
  message: OpenAi.InputAssistantMessage,
  where: Where,
  options: DecodeOptions
): Either.Either<Message.AssistantMessage, DecodeError> => {
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
  const blocks: Array<Message.AssistantBlock> = reasoning.right
  if (message.content !== undefined && message.content !== null) {
    const content = decodeContent(message.content, where, decodeAssistantPart)
    if (Either.isLeft(content)) return Either.left(content.left)
    for (let k = 0; k < content.right.length; k++) blocks.push(content.right[k]!)
  }
  // an empty refusal (`""`, which some servers send for none) is no refusal
  if (typeof message.refusal === "string" && message.refusal !== "") blocks.push(Block.text(message.refusal))
  const calls = message.tool_calls ?? []
  for (let k = 0; k < calls.length; k++) {
    const call = calls[k]!
    const block = decodeToolCall(call, where, k, options)
    if (Either.isLeft(block)) return Either.left(block.left)
    blocks.push(block.right)
  }
  // Gemini's `extra_content` on the message (a thought signature of a turn without calls) is kept
  const extra = message.extra_content
  return Either.right(
    extra === undefined || extra === null
      ? Message.assistant(blocks)
      : Message.assistant(blocks, { detail: detailOf(where.format, { extra_content: Guard.copyJsonObject(extra) }) })
  )
}

/**
 * Canonical messages from decoded wire messages. Consecutive tool messages, with the user message
 * right after them, become one user turn: the tool results, then that message's content.
 */
const toConversation = (
  format: Format,
  messages: ReadonlyArray<OpenAi.InputMessage>,
  prefix: ConversionError.Path,
  options: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => {
  const out: Array<Message.Message> = []
  let results: Array<Block.ToolResultBlock> = []
  const flush = () => {
    if (results.length > 0) out.push(Message.user(results))
    results = []
  }
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!
    const where: Where = { format, parent: prefix, keys: [i], messageIndex: i }
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

const messageList = Decoder.shape(Schema.Array(Wire.InputMessage), { onExcessProperty: "ignore" })

// a message's block lists, which a `blockIndex` indexes
const blocks = ["content", "tool_calls", "reasoning_details"]
const atList = { messages: [], blocks }
const atRequest = { messages: ["messages"], blocks }

/**
 * The decoder of one of the formats: a message list, or a request body holding one (its other keys
 * checked against `keys`, the format's `requestKeys`: requestBody.ts), read by the one decode
 * sequence (internal/decoder.ts).
 */
const decoderOf = (format: Format, keys: RequestBody.Keys) =>
  Decoder.make({
    format,
    requestKeys: keys,
    api: format === "openai" ? "Chat Completions API" : "OpenRouter API",
    issue: "deepest",
    depthLimit: true,
    target: (
      input: unknown,
      _options: DecodeOptions | undefined
    ): Decoder.Target<ReadonlyArray<OpenAi.InputMessage>> | Decoder.Result<never, never> =>
      Array.isArray(input)
        ? { shape: messageList, value: input, path: atList.messages, locator: atList }
        : isRecord(input) && "messages" in input
        ? { shape: messageList, value: input["messages"], path: atRequest.messages, locator: atRequest }
        : Either.left(
          new ConversionError.MalformedInput({
            format,
            path: [],
            reason: `expected an array of chat messages or a request body {messages: [...]}, actual ${
              isRecord(input) ? "an object without messages" : Input.describe(input)
            }`
          })
        ),
    convert: (messages, target, options): Either.Either<Conversation.Conversation, DecodeError> =>
      toConversation(format, messages, target.path, options ?? {})
  })

const decoders = {
  openai: decoderOf("openai", Wire.requestKeys),
  openrouter: decoderOf("openrouter", OpenRouter.requestKeys)
}

/** A Chat Completions message list, or a request body holding one, to canonical messages. */
export const decode = (
  format: Format,
  input: unknown,
  options?: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => decoders[format](input, options)
