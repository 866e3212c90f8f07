/**
 * Canonical conversation to a ShareGPT record (docs/formats/sharegpt.md). A turn holds one string:
 *
 * - a system message is a `system` turn (the first message, when it is a system message, goes in the
 *   record's `system`, as LLaMA-Factory writes it, unless `systemPrompt: "turn"`);
 * - a user message is one `observation` turn per tool result (its texts joined with `"\n"`), then a
 *   `human` turn with its texts joined with `"\n"` (written also when the message holds nothing else);
 * - an assistant message is a `gpt` turn with its texts joined with `"\n"` (written also when the
 *   message holds nothing else), then, if it makes tool calls, one `function_call` turn: the JSON of
 *   `{name, arguments}`, or of a list of them for several calls.
 *
 * What a turn cannot hold is an error, never dropped: an image (`UnsupportedBlock`), reasoning
 * (`UnsupportedBlock`, unless `reasoning: "omit"`), a provider block (no provider writes ShareGPT:
 * `UnsupportedBlock`, unless `providerContent` leaves it out or writes its text into the turn), a tool result that does not answer the earliest
 * call not answered yet (`UnmatchedToolResult`: ShareGPT pairs them by position, with no ids). Which
 * block may stand in which role is `Message`'s to say: a block with no case here is checked against
 * `Conversation.validate` first (a `MisplacedBlock`), as the other encoders do.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import type * as Message from "../../Message.js"
import type * as ShareGptFormat from "../../ShareGptFormat.js"
import * as BlockError from "../blockError.js"
import * as ProviderContent from "../providerContent.js"
import * as Wire from "./schema.js"

type EncodeOptions = ShareGptFormat.EncodeOptions

type EncodeError = ShareGptFormat.EncodeError

type Turn = ShareGptFormat.Turn

const format = Wire.name

type Stop = EncodeError | BlockError.NoEncoding

const textOnly = "a ShareGPT turn holds one string: text only"

const imageError = (messageIndex: number, blockIndex: number, inner?: number): ConversionError.UnsupportedBlock =>
  new ConversionError.UnsupportedBlock({
    format,
    path: inner === undefined
      ? [messageIndex, "blocks", blockIndex]
      : [messageIndex, "blocks", blockIndex, "blocks", inner],
    messageIndex,
    blockIndex,
    blockType: "image",
    reason: `${textOnly}; a LLaMA-Factory record refers to images by file path, which a canonical image is not`
  })

/** Push a user message's observations, then its `human` turn. */
const encodeUser = (
  message: Message.UserMessage,
  i: number,
  pending: Array<string>,
  providerContent: ProviderContent.EncodePolicy | undefined,
  out: Array<Turn>
): Stop | undefined => {
  let text: string | undefined
  let results = 0
  const blocks = message.blocks
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    switch (block.type) {
      case "text":
        text = text === undefined ? block.text : text + "\n" + block.text
        break
      case "image":
        return imageError(i, j)
      case "tool_result": {
        if (pending[0] !== block.tool_call_id) {
          return new ConversionError.UnmatchedToolResult({
            format,
            path: [i, "blocks", j],
            messageIndex: i,
            blockIndex: j,
            toolCallId: block.tool_call_id,
            reason: pending.length === 0
              ? "every tool call before it is answered; ShareGPT pairs an observation with the earliest call not " +
                "answered yet"
              : `ShareGPT pairs an observation with the earliest call not answered yet, ${
                JSON.stringify(pending[0])
              }: results must answer the calls in the order they were made`
          })
        }
        pending.shift()
        let value: string | undefined
        for (let k = 0; k < block.blocks.length; k++) {
          const inner = block.blocks[k]!
          if (inner.type !== "text") return imageError(i, j, k)
          value = value === undefined ? inner.text : value + "\n" + inner.text
        }
        out.push({ from: "observation", value: value ?? "" })
        results++
        break
      }
      case "provider": {
        // no provider writes ShareGPT: every provider block is another provider's
        const other = ProviderContent.foreign(format, block, i, j, providerContent)
        if (other instanceof ConversionError.UnsupportedBlock) return other
        if (other._tag === "text") text = text === undefined ? other.block.text : text + "\n" + other.block.text
        break
      }
      default:
        return new BlockError.NoEncoding(i, j)
    }
  }
  if (text !== undefined || results === 0) out.push({ from: "human", value: text ?? "" })
  return undefined
}

/** Push an assistant message's `gpt` turn, then its `function_call` turn. */
const encodeAssistant = (
  message: Message.AssistantMessage,
  i: number,
  omitReasoning: boolean,
  pending: Array<string>,
  providerContent: ProviderContent.EncodePolicy | undefined,
  out: Array<Turn>
): Stop | undefined => {
  let text: string | undefined
  const calls: Array<{ readonly name: string; readonly arguments: unknown }> = []
  const blocks = message.blocks
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    switch (block.type) {
      case "text":
        text = text === undefined ? block.text : text + "\n" + block.text
        break
      case "image":
        return imageError(i, j)
      case "reasoning":
        if (!omitReasoning) {
          return BlockError.unsupported(
            format,
            i,
            j,
            "reasoning",
            `${textOnly}, with no place for reasoning; encode with { reasoning: "omit" } to leave it out`
          )
        }
        break
      case "tool_call":
        calls.push({ name: block.name, arguments: block.input })
        pending.push(block.id)
        break
      case "provider": {
        const other = ProviderContent.foreign(format, block, i, j, providerContent)
        if (other instanceof ConversionError.UnsupportedBlock) return other
        if (other._tag === "text") text = text === undefined ? other.block.text : text + "\n" + other.block.text
        break
      }
      default:
        return new BlockError.NoEncoding(i, j)
    }
  }
  if (text !== undefined || calls.length === 0) out.push({ from: "gpt", value: text ?? "" })
  if (calls.length > 0) {
    out.push({ from: "function_call", value: JSON.stringify(calls.length === 1 ? calls[0] : calls) })
  }
  return undefined
}

const encodeTurns = (
  conversation: Conversation.Conversation,
  options: EncodeOptions,
  record: { conversations: Array<Turn>; system?: string }
): Stop | undefined => {
  const omitReasoning = options.reasoning === "omit"
  const out = record.conversations
  const pending: Array<string> = []
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    let stop: Stop | undefined
    switch (message.role) {
      case "system": {
        let text: string | undefined
        const blocks = message.blocks
        for (let j = 0; j < blocks.length; j++) {
          const block = blocks[j]!
          if (block.type === "image") return imageError(i, j)
          if (block.type !== "text") return new BlockError.NoEncoding(i, j)
          text = text === undefined ? block.text : text + "\n" + block.text
        }
        if (i === 0 && options.systemPrompt !== "turn") record.system = text ?? ""
        else out.push({ from: "system", value: text ?? "" })
        break
      }
      case "user":
        stop = encodeUser(message, i, pending, options.providerContent, out)
        break
      case "assistant":
        stop = encodeAssistant(message, i, omitReasoning, pending, options.providerContent, out)
        break
      default: {
        const role: never = message
        return new BlockError.NoEncoding(i, (role as Message.Message).blocks.length)
      }
    }
    if (stop !== undefined) return stop
  }
  return undefined
}

/** Canonical messages to a ShareGPT record. */
export const encode = (
  conversation: Conversation.Conversation,
  options: EncodeOptions = {}
): Either.Either<ShareGptFormat.Wire, EncodeError> => {
  const record: { conversations: Array<Turn>; system?: string } = { conversations: [] }
  const stop = encodeTurns(conversation, options, record)
  if (stop === undefined) {
    // `system` first, as LLaMA-Factory's own files have it
    return Either.right(
      record.system === undefined ? record : { system: record.system, conversations: record.conversations }
    )
  }
  // a misplaced block anywhere is reported before any other error, as every encoder does
  const placed = Conversation.validate(conversation)
  if (Either.isLeft(placed)) return Either.left(placed.left)
  return Either.left(stop instanceof BlockError.NoEncoding ? BlockError.noEncoding(format, conversation, stop) : stop)
}
