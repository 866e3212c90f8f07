/**
 * Canonical conversations to and from `@effect/ai` 0.37 `Prompt.Prompt`.
 *
 * @internal
 */
import * as Prompt from "@effect/ai/Prompt"
import * as Either from "effect/Either"
import * as Block from "../../Block.js"
import type * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import type * as Message from "../../Message.js"
import * as Redacted from "../anthropic/redacted.js"
import * as BlockError from "../blockError.js"
import * as Bridge from "../bridge.js"
import * as Decoder from "../decoder.js"
import { isPlainObject } from "../plain.js"

const format = "effect-ai" as const

/** Where a reasoning signature is written besides the `openreward` key. */
export type SignatureTarget = Bridge.SignatureTarget

export interface EncodeOptions extends Bridge.EncodeOptions {}

type Options = { [provider: string]: { [key: string]: unknown } }

const withMarks = (marks: Bridge.MarksInput, extra?: Options): Options => {
  const entry = Bridge.marksEntry(marks)
  const options: Options = { ...extra }
  if (entry !== undefined) options[Bridge.optionsKey] = entry
  return options
}

const signatureOptions = (block: Block.ReasoningBlock, target: SignatureTarget): Options => {
  const signature = block.signature
  if (signature === null) return {}
  switch (target) {
    case "anthropic": {
      const redacted = Redacted.dataOf(block)
      return redacted === undefined
        ? { anthropic: { type: "thinking", signature } }
        : { anthropic: { type: "redacted_thinking", redactedData: redacted } }
    }
    case "google":
      return { google: { thoughtSignature: signature } }
    case "none":
      return {}
  }
}

const filePart = (
  block: Block.ImageBlock,
  messageIndex: number,
  blockIndex: number
): Either.Either<Prompt.FilePart, ConversionError.UnsupportedBlock> => {
  if (!block.mimeType.startsWith("image/")) {
    return Either.left(
      BlockError.unsupported(format, messageIndex, blockIndex, "image", Bridge.notImageType(block.mimeType))
    )
  }
  const bytes = Bridge.bytesOf(block.data)
  if (bytes === undefined) {
    return Either.left(
      BlockError.unsupported(
        format,
        messageIndex,
        blockIndex,
        "image",
        "the image data is not canonical base64 (padded, no whitespace); @effect/ai providers need the bytes"
      )
    )
  }
  return Either.right(
    Prompt.makePart("file", { mediaType: block.mimeType, data: bytes, options: withMarks({ detail: block.detail }) })
  )
}

/** A canonical conversation as a `Prompt`: the bridges' one fold (`Bridge.encodeWith`) into `@effect/ai` parts. */
export const encode: (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
) => Either.Either<Prompt.Prompt, ConversionError.EncodeError> = Bridge.encodeWith<
  Prompt.Prompt,
  Prompt.Message,
  Prompt.UserMessagePart,
  Prompt.ToolResultPart,
  Prompt.AssistantMessagePart
>({
  format,
  name: "@effect/ai",
  system: (content, marks) => Prompt.makeMessage("system", { content, options: withMarks(marks) }),
  user: (content, marks) => Prompt.makeMessage("user", { content, options: withMarks(marks) }),
  tool: (content, marks) => Prompt.makeMessage("tool", { content, options: withMarks(marks) }),
  assistant: (content, marks) => Prompt.makeMessage("assistant", { content, options: withMarks(marks) }),
  text: (block) => Prompt.makePart("text", { text: block.text, options: withMarks({ detail: block.detail }) }),
  userImage: filePart,
  assistantImage: filePart,
  reasoning: (block, signatures) =>
    Prompt.makePart("reasoning", {
      text: block.text,
      options: withMarks({ detail: block.detail, signature: block.signature }, signatureOptions(block, signatures))
    }),
  toolCall: (block) =>
    Prompt.makePart("tool-call", {
      id: block.id,
      name: block.name,
      params: block.input,
      providerExecuted: false,
      options: withMarks({ detail: block.detail })
    }),
  toolResult: (block, name) =>
    Prompt.makePart("tool-result", {
      id: block.tool_call_id,
      name,
      isFailure: block.is_error,
      result: Bridge.resultJson(block.blocks),
      providerExecuted: false,
      options: withMarks({ detail: block.detail })
    }),
  finish: Prompt.fromMessages
})

// -----------------------------------------------------------------------------
// decoding
// -----------------------------------------------------------------------------

type Path = ConversionError.Path

/**
 * A reasoning part as canonical reasoning: the signature from our key first, then the providers'
 * keys; Anthropic's `redacted_thinking` (no signature mark) in the library's canonical form of it
 * (its data as the signature, `detail: {anthropic: {redacted: true}}`).
 */
export const reasoningOf = (text: string, marks: Bridge.Marks, options: unknown): Block.ReasoningBlock => {
  const detail = Bridge.detailOf(marks.detail)
  if (marks.signature !== undefined) return Block.reasoning(text, { signature: marks.signature, detail })
  const anthropic = isPlainObject(options) ? options.anthropic : undefined
  if (
    isPlainObject(anthropic) && anthropic.type === "redacted_thinking" && typeof anthropic.redactedData === "string"
  ) {
    const redacted = Redacted.block(anthropic.redactedData)
    return Block.reasoning(text, { signature: redacted.signature, detail: marks.detail ?? redacted.detail })
  }
  if (isPlainObject(anthropic) && typeof anthropic.signature === "string") {
    return Block.reasoning(text, { signature: anthropic.signature, detail })
  }
  const google = isPlainObject(options) ? options.google : undefined
  if (isPlainObject(google) && typeof google.thoughtSignature === "string") {
    return Block.reasoning(text, { signature: google.thoughtSignature, detail })
  }
  const openai = isPlainObject(options) ? options.openai : undefined
  if (isPlainObject(openai) && typeof openai.encryptedContent === "string") {
    return Block.reasoning(text, { signature: openai.encryptedContent, detail })
  }
  return Block.reasoning(text, { signature: null, detail })
}

/** An `@effect/ai` file part (prompt or response) as a canonical image. */
export const imageOf = (
  part: {
    readonly mediaType: string
    readonly data: string | Uint8Array | URL
    readonly fileName?: string | undefined
  },
  detail: Json.JsonObject | null,
  path: Path,
  messageIndex: number,
  blockIndex: number
): Either.Either<Block.ImageBlock, ConversionError.UnsupportedContent> => {
  const fail = (contentType: string, reason: string) =>
    Either.left(new ConversionError.UnsupportedContent({ format, path, messageIndex, blockIndex, contentType, reason }))
  if (!part.mediaType.startsWith("image/")) {
    return fail(`file ${part.mediaType}`, "canonical content holds images only")
  }
  if (part.fileName !== undefined) return fail("file name", "a canonical image has no file name")
  if (part.data instanceof URL) return fail("image URL", "canonical images are inline base64 data")
  if (part.data instanceof Uint8Array) {
    return Either.right(Block.image(Bridge.base64Of(part.data), part.mediaType, { detail }))
  }
  if (Bridge.isRemoteUrl(part.data)) return fail("image URL", "canonical images are inline base64 data")
  const inline = Bridge.base64OfString(part.data)
  if (inline === undefined) return fail("data URL", "only base64 data URLs have a canonical form")
  return Either.right(Block.image(inline.data, part.mediaType, { detail }))
}

/** A tool call's params as canonical input. */
export const inputOf = (
  params: unknown,
  path: Path,
  messageIndex: number,
  blockIndex: number
): Either.Either<Json.JsonObject, ConversionError.InvalidToolArguments> => {
  const input = Bridge.inputObject(params)
  return input === undefined
    ? Either.left(
      new ConversionError.InvalidToolArguments({
        format,
        path: [...path, "params"],
        messageIndex,
        blockIndex,
        raw: Bridge.show(params),
        reason: "canonical tool input is a JSON object"
      })
    )
    : Either.right(input)
}

/** A tool result's JSON as canonical content. */
export const contentOf = (
  result: unknown,
  path: Path,
  messageIndex: number,
  blockIndex: number
): Either.Either<ReadonlyArray<Block.ContentBlock>, ConversionError.MalformedInput> => {
  const blocks = Bridge.resultBlocks(result)
  return blocks === undefined
    ? Either.left(
      new ConversionError.MalformedInput({
        format,
        path,
        messageIndex,
        blockIndex,
        reason: `the tool result is not a JSON value: ${Bridge.show(result)}`
      })
    )
    : Either.right(blocks)
}

const providerExecuted = (path: Path, messageIndex: number, blockIndex: number, what: string) =>
  new ConversionError.UnsupportedContent({
    format,
    path,
    messageIndex,
    blockIndex,
    contentType: `provider-executed ${what}`,
    reason: "canonical conversations hold only the calls the harness runs"
  })

const decodePrompt = Decoder.shape(Prompt.Prompt, { onExcessProperty: "ignore" }).decode

/** The prompt itself, or the decoded form of an encoded prompt's messages. */
const toPrompt = (input: unknown): Either.Either<Prompt.Prompt, ConversionError.MalformedInput> => {
  if (Prompt.isPrompt(input)) return Either.right(input)
  const content = Array.isArray(input) ? input : isPlainObject(input) ? input.content : undefined
  return Either.mapLeft(
    decodePrompt({ content }),
    (error) => new ConversionError.MalformedInput({ format, path: [], reason: error.message.split("\n")[0] ?? "" })
  )
}

/** Decode the parts of an assistant message (or a response's assistant parts). */
export const decodeAssistantPart = (
  part: Prompt.AssistantMessagePart,
  path: Path,
  messageIndex: number,
  blockIndex: number
): Either.Either<Message.AssistantBlock, ConversionError.DecodeError> =>
  Either.flatMap(
    Bridge.readMarks(format, part.options, path, messageIndex, blockIndex),
    (marks): Either.Either<Message.AssistantBlock, ConversionError.DecodeError> => {
      const detail = Bridge.detailOf(marks.detail)
      switch (part.type) {
        case "text":
          return Either.right(Block.text(part.text, { detail }))
        case "file":
          return imageOf(part, detail, path, messageIndex, blockIndex)
        case "reasoning":
          return Either.right(reasoningOf(part.text, marks, part.options))
        case "tool-call":
          if (part.providerExecuted) return Either.left(providerExecuted(path, messageIndex, blockIndex, "tool call"))
          return Either.map(
            inputOf(part.params, path, messageIndex, blockIndex),
            (input) => Block.toolCall(part.id, part.name, input, { detail })
          )
        case "tool-result":
          return Either.left(providerExecuted(path, messageIndex, blockIndex, "tool result"))
      }
    }
  )

/** A `Prompt` (or its encoded messages) as a canonical conversation. */
export const decode = (input: unknown): Either.Either<Conversation.Conversation, ConversionError.DecodeError> =>
  Either.flatMap(toPrompt(input), (prompt) => {
    const out = new Bridge.ConversationBuilder()
    for (let i = 0; i < prompt.content.length; i++) {
      const message = prompt.content[i]!
      const path: Path = ["content", i]
      const marks = Bridge.readMarks(format, message.options, path, i)
      if (Either.isLeft(marks)) return Either.left(marks.left)
      const { blockDetail, continues = false, detail, empty } = marks.right
      const messageDetail = Bridge.detailOf(detail)
      switch (message.role) {
        case "system": {
          const blocks = empty === true && message.content === ""
            ? []
            : [Block.text(message.content, { detail: Bridge.detailOf(blockDetail) })]
          out.push("system", blocks, messageDetail, continues)
          break
        }
        case "user": {
          const blocks: Array<Message.UserBlock> = []
          for (let j = 0; j < message.content.length; j++) {
            const part = message.content[j]!
            const partPath: Path = [...path, "content", j]
            const partMarks = Bridge.readMarks(format, part.options, partPath, i, j)
            if (Either.isLeft(partMarks)) return Either.left(partMarks.left)
            const partDetail = Bridge.detailOf(partMarks.right.detail)
            if (part.type === "text") {
              blocks.push(Block.text(part.text, { detail: partDetail }))
            } else {
              const image = imageOf(part, partDetail, partPath, i, j)
              if (Either.isLeft(image)) return Either.left(image.left)
              blocks.push(image.right)
            }
          }
          out.push("user", blocks, messageDetail, continues)
          break
        }
        case "tool": {
          const blocks: Array<Block.ToolResultBlock> = []
          for (let j = 0; j < message.content.length; j++) {
            const part = message.content[j]!
            const partPath: Path = [...path, "content", j]
            if (part.providerExecuted) return Either.left(providerExecuted(partPath, i, j, "tool result"))
            const partMarks = Bridge.readMarks(format, part.options, partPath, i, j)
            if (Either.isLeft(partMarks)) return Either.left(partMarks.left)
            const content = contentOf(part.result, [...partPath, "result"], i, j)
            if (Either.isLeft(content)) return Either.left(content.left)
            blocks.push(
              Block.toolResult(part.id, content.right, {
                isError: part.isFailure,
                detail: Bridge.detailOf(partMarks.right.detail)
              })
            )
          }
          out.push("user", blocks, messageDetail, continues)
          break
        }
        case "assistant": {
          const blocks: Array<Message.AssistantBlock> = []
          for (let j = 0; j < message.content.length; j++) {
            const block = decodeAssistantPart(message.content[j]!, [...path, "content", j], i, j)
            if (Either.isLeft(block)) return Either.left(block.left)
            blocks.push(block.right)
          }
          out.push("assistant", blocks, messageDetail, continues)
          break
        }
      }
    }
    return Either.right(out.result())
  })
