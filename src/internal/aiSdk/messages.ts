/**
 * Canonical conversations to and from the Vercel AI SDK 6 `ModelMessage[]`.
 *
 * @internal
 */
import type {
  AssistantModelMessage,
  FilePart,
  ImagePart,
  ModelMessage,
  TextPart,
  ToolCallPart,
  ToolModelMessage,
  ToolResultPart,
  UserModelMessage
} from "ai"
import * as Either from "effect/Either"
import * as Block from "../../Block.js"
import type * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import type * as Message from "../../Message.js"
import * as Redacted from "../anthropic/redacted.js"
import * as BlockError from "../blockError.js"
import * as Bridge from "../bridge.js"
import { isPlainObject } from "../plain.js"

const format = "ai-sdk" as const

export type SignatureTarget = Bridge.SignatureTarget

export interface EncodeOptions extends Bridge.EncodeOptions {}

type ProviderOptions = { [provider: string]: Json.JsonObject }
type AiProviderOptions = NonNullable<TextPart["providerOptions"]>
type ReasoningPart = Extract<Exclude<AssistantModelMessage["content"], string>[number], { type: "reasoning" }>
type Output = ToolResultPart["output"]
type ContentItem = Extract<Output, { type: "content" }>["value"][number]

/** `providerOptions` with the marks, or nothing (the field is left out when it would be empty). */
const options = (
  marks: Bridge.MarksInput,
  extra?: ProviderOptions
): { providerOptions?: AiProviderOptions } => {
  const entry = Bridge.marksEntry(marks)
  const out: ProviderOptions = { ...extra }
  if (entry !== undefined) out[Bridge.optionsKey] = entry
  // canonical JSON is readonly; the AI SDK's JSON types are mutable but not mutated
  return Object.keys(out).length === 0 ? {} : { providerOptions: out as unknown as AiProviderOptions }
}

const signatureOptions = (block: Block.ReasoningBlock, target: SignatureTarget): ProviderOptions => {
  const signature = block.signature
  if (signature === null) return {}
  switch (target) {
    case "anthropic": {
      const redacted = Redacted.dataOf(block)
      return redacted === undefined ? { anthropic: { signature } } : { anthropic: { redactedData: redacted } }
    }
    case "google":
      return { google: { thoughtSignature: signature } }
    case "none":
      return {}
  }
}

const unsupported = (messageIndex: number, blockIndex: number, blockType: string, reason: string) =>
  BlockError.unsupported(format, messageIndex, blockIndex, blockType, reason)

const checkImage = (
  block: Block.ImageBlock,
  messageIndex: number,
  blockIndex: number
): ConversionError.UnsupportedBlock | undefined => {
  if (!block.mimeType.startsWith("image/")) {
    return unsupported(messageIndex, blockIndex, "image", Bridge.notImageType(block.mimeType))
  }
  if (Bridge.bytesOf(block.data) === undefined) {
    return unsupported(
      messageIndex,
      blockIndex,
      "image",
      "the image data is not canonical base64 (padded, no whitespace), which AI SDK data content must be"
    )
  }
  return undefined
}

/** A tool result's content as an AI SDK output. */
export const output = (blocks: ReadonlyArray<Block.ContentBlock>, isError: boolean): Output => {
  const [first] = blocks
  if (blocks.length === 1 && first !== undefined && first.type === "text" && first.detail === null) {
    return { type: isError ? "error-text" : "text", value: first.text }
  }
  if (isError) return { type: "error-json", value: blocks.map(Bridge.encodeContent) as unknown as Array<never> }
  return {
    type: "content",
    value: blocks.map((b): ContentItem =>
      b.type === "text"
        ? { type: "text", text: b.text, ...options({ detail: b.detail }) }
        : { type: "image-data", data: b.data, mediaType: b.mimeType, ...options({ detail: b.detail }) }
    )
  }
}

/** An image part made by `make`, once the image is one the AI SDK carries; its `detail` in the marks. */
const imagePart = <P>(make: (block: Block.ImageBlock) => P) =>
(
  block: Block.ImageBlock,
  messageIndex: number,
  blockIndex: number
): Either.Either<P, ConversionError.UnsupportedBlock> => {
  const error = checkImage(block, messageIndex, blockIndex)
  return error !== undefined
    ? Either.left(error)
    : Either.right({ ...make(block), ...options({ detail: block.detail }) })
}

/** A canonical conversation as `ModelMessage[]`: the bridges' one fold (`Bridge.encodeWith`) into AI SDK parts. */
export const encode: (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
) => Either.Either<Array<ModelMessage>, ConversionError.EncodeError> = Bridge.encodeWith<
  Array<ModelMessage>,
  ModelMessage,
  TextPart | ImagePart,
  ToolResultPart,
  TextPart | FilePart | ReasoningPart | ToolCallPart
>({
  format,
  name: "AI SDK",
  system: (content, marks) => ({ role: "system", content, ...options(marks) }),
  user: (content, marks) => ({ role: "user", content, ...options(marks) }),
  tool: (content, marks) => ({ role: "tool", content, ...options(marks) }),
  assistant: (content, marks) => ({ role: "assistant", content, ...options(marks) }),
  text: (block) => ({ type: "text", text: block.text, ...options({ detail: block.detail }) }),
  userImage: imagePart((block) => ({ type: "image", image: block.data, mediaType: block.mimeType })),
  assistantImage: imagePart((block) => ({ type: "file", data: block.data, mediaType: block.mimeType })),
  reasoning: (block, signatures) => ({
    type: "reasoning",
    text: block.text,
    ...options({ detail: block.detail, signature: block.signature }, signatureOptions(block, signatures))
  }),
  toolCall: (block) => ({
    type: "tool-call",
    toolCallId: block.id,
    toolName: block.name,
    input: block.input,
    ...options({ detail: block.detail })
  }),
  toolResult: (block, name) => ({
    type: "tool-result",
    toolCallId: block.tool_call_id,
    toolName: name,
    output: output(block.blocks, block.is_error),
    ...options({ detail: block.detail })
  }),
  finish: (messages) => messages
})

// -----------------------------------------------------------------------------
// decoding
// -----------------------------------------------------------------------------

type Path = ConversionError.Path
type Record = { readonly [key: string]: unknown }

class Failure {
  constructor(readonly error: ConversionError.DecodeError) {}
}

/** Decoding state: the path and indices errors report. */
interface At {
  readonly path: Path
  readonly messageIndex: number
  readonly blockIndex?: number
}

const fail = (error: ConversionError.DecodeError): never => {
  throw new Failure(error)
}

const malformed = (at: At, reason: string, key?: string | number): never =>
  fail(
    new ConversionError.MalformedInput({
      format,
      path: key === undefined ? at.path : [...at.path, key],
      messageIndex: at.messageIndex,
      ...(at.blockIndex === undefined ? {} : { blockIndex: at.blockIndex }),
      reason
    })
  )

const noCanonicalForm = (at: At, contentType: string, reason: string): never =>
  fail(
    new ConversionError.UnsupportedContent({
      format,
      path: at.path,
      messageIndex: at.messageIndex,
      ...(at.blockIndex === undefined ? {} : { blockIndex: at.blockIndex }),
      contentType,
      reason
    })
  )

const object = (value: unknown, at: At): Record => isPlainObject(value) ? value : malformed(at, "expected an object")

const string = (record: Record, key: string, at: At): string =>
  typeof record[key] === "string" ? record[key] : malformed(at, "expected a string", key)

const marksOf = (record: Record, at: At): Bridge.Marks => {
  const marks = Bridge.readMarks(
    format,
    record.providerOptions,
    [...at.path, "providerOptions"],
    at.messageIndex,
    at.blockIndex
  )
  return Either.isLeft(marks) ? fail(marks.left) : marks.right
}

/** AI SDK data content (base64 string, data URL, bytes) as bare base64 and the media type it names. */
export const imageData = (data: unknown, at: At): { readonly data: string; readonly mediaType?: string } => {
  if (data instanceof URL) return noCanonicalForm(at, "image URL", "canonical images are inline base64 data")
  if (data instanceof Uint8Array) return { data: Bridge.base64Of(data) }
  if (data instanceof ArrayBuffer) return { data: Bridge.base64Of(new Uint8Array(data)) }
  if (typeof data !== "string") return malformed(at, "expected base64 data, bytes or a URL")
  if (Bridge.isRemoteUrl(data)) return noCanonicalForm(at, "image URL", "canonical images are inline base64 data")
  return Bridge.base64OfString(data) ??
    noCanonicalForm(at, "data URL", "only base64 data URLs have a canonical form")
}

const image = (
  data: unknown,
  mediaType: unknown,
  detail: Json.JsonObject | null,
  at: At,
  what: string
): Block.ImageBlock => {
  const inline = imageData(data, at)
  const type = typeof mediaType === "string" ? mediaType : inline.mediaType
  if (type === undefined) return noCanonicalForm(at, what, "an image without a mediaType has no canonical form")
  if (!type.startsWith("image/")) return noCanonicalForm(at, `${what} ${type}`, "canonical content holds images only")
  return Block.image(inline.data, type, { detail })
}

/**
 * A reasoning part as canonical reasoning: the signature from our key first, then the providers'
 * keys; Anthropic's redacted thinking (no signature mark) in the library's canonical form of it.
 */
const reasoning = (text: string, record: Record, marks: Bridge.Marks): Block.ReasoningBlock => {
  const detail = Bridge.detailOf(marks.detail)
  if (marks.signature !== undefined) return Block.reasoning(text, { signature: marks.signature, detail })
  const providerOptions = isPlainObject(record.providerOptions) ? record.providerOptions : {}
  const anthropic = isPlainObject(providerOptions.anthropic) ? providerOptions.anthropic : {}
  if (typeof anthropic.redactedData === "string") {
    const redacted = Redacted.block(anthropic.redactedData)
    return Block.reasoning(text, { signature: redacted.signature, detail: marks.detail ?? redacted.detail })
  }
  if (typeof anthropic.signature === "string") return Block.reasoning(text, { signature: anthropic.signature, detail })
  for (const key of ["google", "vertex", "googleVertex"]) {
    const google = providerOptions[key]
    if (isPlainObject(google) && typeof google.thoughtSignature === "string") {
      return Block.reasoning(text, { signature: google.thoughtSignature, detail })
    }
  }
  const openai = providerOptions.openai
  if (isPlainObject(openai) && typeof openai.reasoningEncryptedContent === "string") {
    return Block.reasoning(text, { signature: openai.reasoningEncryptedContent, detail })
  }
  return Block.reasoning(text, { signature: null, detail })
}

/** The canonical content of an AI SDK tool output, and whether it is an error. */
export const fromOutput = (
  value: unknown,
  at: At
): { readonly blocks: ReadonlyArray<Block.ContentBlock>; readonly isError: boolean } => {
  const out = object(value, at)
  const json = (v: unknown) => Bridge.jsonBlocks(v) ?? malformed(at, "expected a JSON value", "value")
  switch (out.type) {
    case "text":
    case "error-text":
      return { blocks: [Block.text(string(out, "value", at))], isError: out.type === "error-text" }
    case "json":
    case "error-json":
      return { blocks: json(out.value), isError: out.type === "error-json" }
    case "content": {
      if (!Array.isArray(out.value)) return malformed(at, "expected an array", "value")
      const items: ReadonlyArray<unknown> = out.value
      const blocks = items.map((item, k): Block.ContentBlock => {
        const itemAt: At = { ...at, path: [...at.path, "value", k] }
        const part = object(item, itemAt)
        const detail = Bridge.detailOf(marksOf(part, itemAt).detail)
        switch (part.type) {
          case "text":
            return Block.text(string(part, "text", itemAt), { detail })
          case "image-data":
          case "file-data":
          case "media":
            return image(part.data, part.mediaType, detail, itemAt, String(part.type))
          default:
            return noCanonicalForm(
              itemAt,
              `tool output ${String(part.type)}`,
              "canonical tool results hold text and inline images"
            )
        }
      })
      return { blocks, isError: false }
    }
    case "execution-denied":
      return noCanonicalForm(at, "execution-denied", "a denied tool execution has no canonical form")
    default:
      return malformed(at, `unknown tool output type ${Bridge.show(out.type)}`, "type")
  }
}

const toolInput = (part: Record, at: At): Json.JsonObject =>
  Bridge.inputObject(part.input) ??
    fail(
      new ConversionError.InvalidToolArguments({
        format,
        path: [...at.path, "input"],
        messageIndex: at.messageIndex,
        blockIndex: at.blockIndex ?? 0,
        raw: Bridge.show(part.input),
        reason: "canonical tool input is a JSON object"
      })
    )

const contentArray = (message: Record, at: At): ReadonlyArray<unknown> =>
  Array.isArray(message.content) ? message.content : malformed(at, "expected an array", "content")

const decodeMessage = (raw: unknown, i: number, out: Bridge.ConversationBuilder, prefix: Path): void => {
  const at: At = { path: [...prefix, i], messageIndex: i }
  const message = object(raw, at)
  const marks = marksOf(message, at)
  const detail = Bridge.detailOf(marks.detail)
  const continues = marks.continues ?? false
  const parts = <B>(decodePart: (part: Record, at: At) => B): ReadonlyArray<B> =>
    contentArray(message, at).map((item, j) => {
      const partAt: At = { path: [...prefix, i, "content", j], messageIndex: i, blockIndex: j }
      return decodePart(object(item, partAt), partAt)
    })
  switch (message.role) {
    case "system": {
      const text = string(message, "content", at)
      const blocks = marks.empty === true && text === ""
        ? []
        : [Block.text(text, { detail: Bridge.detailOf(marks.blockDetail) })]
      return out.push("system", blocks, detail, continues)
    }
    case "user": {
      if (typeof message.content === "string") return out.push("user", [Block.text(message.content)], detail, continues)
      const blocks = parts((part, partAt): Message.UserBlock => {
        const partDetail = Bridge.detailOf(marksOf(part, partAt).detail)
        switch (part.type) {
          case "text":
            return Block.text(string(part, "text", partAt), { detail: partDetail })
          case "image":
            return image(part.image, part.mediaType, partDetail, partAt, "image")
          case "file":
            return image(part.data, part.mediaType, partDetail, partAt, "file")
          default:
            return malformed(partAt, `unknown user part type ${Bridge.show(part.type)}`, "type")
        }
      })
      return out.push("user", blocks, detail, continues)
    }
    case "assistant": {
      if (typeof message.content === "string") {
        return out.push("assistant", [Block.text(message.content)], detail, continues)
      }
      const blocks = parts((part, partAt): Message.AssistantBlock => {
        const partMarks = marksOf(part, partAt)
        const partDetail = Bridge.detailOf(partMarks.detail)
        switch (part.type) {
          case "text":
            return Block.text(string(part, "text", partAt), { detail: partDetail })
          case "file":
            return image(part.data, part.mediaType, partDetail, partAt, "file")
          case "reasoning":
            return reasoning(string(part, "text", partAt), part, partMarks)
          case "tool-call":
            if (part.providerExecuted === true) {
              return noCanonicalForm(
                partAt,
                "provider-executed tool call",
                "canonical conversations hold only the calls the harness runs"
              )
            }
            return Block.toolCall(
              string(part, "toolCallId", partAt),
              string(part, "toolName", partAt),
              toolInput(part, partAt),
              {
                detail: partDetail
              }
            )
          case "tool-result":
            return noCanonicalForm(
              partAt,
              "provider-executed tool result",
              "canonical conversations hold only the calls the harness runs"
            )
          case "tool-approval-request":
            return noCanonicalForm(partAt, "tool-approval-request", "canonical conversations have no tool approvals")
          default:
            return malformed(partAt, `unknown assistant part type ${Bridge.show(part.type)}`, "type")
        }
      })
      return out.push("assistant", blocks, detail, continues)
    }
    case "tool": {
      const blocks = parts((part, partAt): Block.ToolResultBlock => {
        if (part.type === "tool-approval-response") {
          return noCanonicalForm(partAt, "tool-approval-response", "canonical conversations have no tool approvals")
        }
        if (part.type !== "tool-result") {
          return malformed(partAt, `unknown tool part type ${Bridge.show(part.type)}`, "type")
        }
        const result = fromOutput(part.output, { ...partAt, path: [...partAt.path, "output"] })
        return Block.toolResult(string(part, "toolCallId", partAt), result.blocks, {
          isError: result.isError,
          detail: Bridge.detailOf(marksOf(part, partAt).detail)
        })
      })
      return out.push("user", blocks, detail, continues)
    }
    default:
      return malformed(at, `unknown role ${Bridge.show(message.role)}`, "role")
  }
}

/** `ModelMessage[]` (untrusted) as a canonical conversation; `prefix` is where the array sits. Never throws. */
export const decode = (
  input: unknown,
  prefix: Path = []
): Either.Either<Conversation.Conversation, ConversionError.DecodeError> => {
  try {
    if (!Array.isArray(input)) {
      return Either.left(
        new ConversionError.MalformedInput({ format, path: prefix, reason: "expected an array of messages" })
      )
    }
    const out = new Bridge.ConversationBuilder()
    const messages: ReadonlyArray<unknown> = input
    messages.forEach((message, i) => decodeMessage(message, i, out, prefix))
    return Either.right(out.result())
  } catch (thrown) {
    if (thrown instanceof Failure) return Either.left(thrown.error)
    return Either.left(
      new ConversionError.MalformedInput({
        format,
        path: prefix,
        reason: `the input could not be read: ${thrown instanceof Error ? thrown.message : "an unprintable value"}`
      })
    )
  }
}

export type { AssistantModelMessage, ModelMessage, ToolModelMessage, UserModelMessage }
