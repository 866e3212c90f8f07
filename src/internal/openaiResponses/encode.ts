/**
 * Canonical conversation to OpenAI Responses `input` items (docs/formats/openai-responses.md).
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
import type * as Format from "../../OpenAiResponsesFormat.js"
import * as BlockError from "../blockError.js"
import * as ProviderContent from "../providerContent.js"
import { dumps } from "../pythonJson.js"

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const format = "openai-responses" as const

/** The `detail.openai` of a block, as far as it is well formed; `undefined` when there is none. */
export const itemDetail = (detail: Json.JsonObject | null): Format.ItemDetail | undefined => {
  const meta = detail === null ? undefined : detail["openai"]
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) return undefined
  const record = meta as Json.JsonObject
  const out: Mutable<Format.ItemDetail> = {}
  if (typeof record["id"] === "string") out.id = record["id"]
  if (record["phase"] === "commentary" || record["phase"] === "final_answer") out.phase = record["phase"]
  if (record["part"] === "refusal" || record["part"] === "reasoning_text") out.part = record["part"]
  const item = record["item"]
  if (typeof item === "object" && item !== null && !Array.isArray(item)) out.item = item as Json.JsonObject
  return out
}

const statuses: ReadonlySet<unknown> = new Set(["in_progress", "completed", "incomplete"])

/** The `status` an item was read with, when it is one the API takes back. */
const statusOf = (meta: Format.ItemDetail | undefined): Format.FunctionCall["status"] | undefined => {
  const status = meta?.item?.["status"]
  return statuses.has(status) ? status as Format.FunctionCall["status"] : undefined
}

/**
 * What a function call item was read with beside its block's fields, sent back with it: its
 * `status`, the `caller` of a call made by a program (programmatic tool calling: the call must go
 * back with it to be paired with the program) and its `namespace` (tool search).
 */
const callRest = (
  meta: Format.ItemDetail | undefined
): Pick<Mutable<Format.FunctionCall>, "status" | "caller" | "namespace"> => {
  const out: Pick<Mutable<Format.FunctionCall>, "status" | "caller" | "namespace"> = {}
  const status = statusOf(meta)
  if (status !== undefined) out.status = status
  const value = meta?.item?.["caller"]
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const caller = value as Json.JsonObject
    if (caller["type"] === "direct") out.caller = { type: "direct" }
    else if (caller["type"] === "program" && typeof caller["caller_id"] === "string") {
      out.caller = { type: "program", caller_id: caller["caller_id"] }
    }
  }
  const namespace = meta?.item?.["namespace"]
  if (typeof namespace === "string") out.namespace = namespace
  return out
}

const dataUrl = (image: Block.ImageBlock): string => "data:" + image.mimeType + ";base64," + image.data

const part = (block: Block.ContentBlock): Format.InputContent =>
  block.type === "text"
    ? { type: "input_text", text: block.text }
    : { type: "input_image", image_url: dataUrl(block), detail: "auto" }

const content = (blocks: ReadonlyArray<Block.ContentBlock>): Format.Content =>
  blocks.length === 1 && blocks[0]!.type === "text" ? blocks[0]!.text : blocks.map(part)

const misplaced = (message: Message.Message, messageIndex: number, blockIndex: number) =>
  new ConversionError.MisplacedBlock({
    path: [messageIndex, "blocks", blockIndex],
    messageIndex,
    blockIndex,
    role: message.role,
    blockType: message.blocks[blockIndex]!.type
  })

const unsupported = (messageIndex: number, blockIndex: number, blockType: string, reason: string) =>
  BlockError.unsupported(format, messageIndex, blockIndex, blockType, reason)

type Item = Format.Item
type OpenMessage = Mutable<Format.OutputMessage> & { content: Array<Format.OutputText | Format.OutputRefusal> }
type OpenReasoning = Mutable<Format.Reasoning> & {
  summary: Array<Format.SummaryText>
  content?: Array<Format.ReasoningText>
}

/** A reasoning item whose only entry is an empty summary stood for an item with no entries. */
const close = (item: Item | undefined): void => {
  if (item?.type !== "reasoning") return
  const open = item as OpenReasoning
  if (open.content === undefined && open.summary.length === 1 && open.summary[0]!.text === "") open.summary = []
}

const encodeAssistant = (
  message: Message.AssistantMessage,
  i: number,
  options: Format.EncodeOptions,
  out: Array<Item>
): Format.EncodeError | undefined => {
  const serialize = options.toolArguments === "json" ? JSON.stringify : dumps
  const policy = options.reasoningWithoutId ?? "fail"
  const start = out.length
  const last = (): Item | undefined => out.length > start ? out[out.length - 1] : undefined
  const push = (item: Item) => {
    close(last())
    out.push(item)
  }
  for (let j = 0; j < message.blocks.length; j++) {
    const block = message.blocks[j]!
    switch (block.type) {
      case "text": {
        const meta = itemDetail(block.detail)
        if (meta?.id === undefined) {
          push({
            type: "message",
            role: "assistant",
            content: block.text,
            ...(meta?.phase === undefined ? {} : { phase: meta.phase })
          })
          break
        }
        const previous = last()
        const entry = meta.part === "refusal"
          ? { type: "refusal" as const, refusal: block.text }
          : { type: "output_text" as const, text: block.text, annotations: [] as const }
        if (
          previous?.type === "message" && "id" in previous && previous.id === meta.id && previous.phase === meta.phase
        ) {
          ;(previous as OpenMessage).content.push(entry)
        } else {
          const item: OpenMessage = {
            type: "message",
            id: meta.id,
            role: "assistant",
            status: statusOf(meta) ?? "completed",
            content: [entry]
          }
          if (meta.phase !== undefined) item.phase = meta.phase
          push(item)
        }
        break
      }
      case "image":
        return unsupported(
          i,
          j,
          "image",
          "an assistant message of the Responses API holds output_text and refusal parts only"
        )
      case "reasoning": {
        const meta = itemDetail(block.detail)
        if (meta?.id === undefined) {
          switch (policy) {
            case "fail":
              return unsupported(
                i,
                j,
                "reasoning",
                "the Responses API takes reasoning only as the reasoning item it came from, by its id " +
                  "(detail.openai.id), and this block has none; set reasoningWithoutId to \"omit\" to leave it " +
                  "out, or to \"text\" to send it as assistant text"
              )
            case "omit":
              break
            case "text":
              push({ type: "message", role: "assistant", content: block.text })
              break
            default:
              return absurd(policy)
          }
          break
        }
        const previous = last()
        const entry = { type: meta.part === "reasoning_text" ? "reasoning_text" : "summary_text", text: block.text }
        let item: OpenReasoning
        if (
          previous?.type === "reasoning" && previous.id === meta.id &&
          (previous.encrypted_content ?? null) === block.signature
        ) {
          item = previous as OpenReasoning
        } else {
          item = { type: "reasoning", id: meta.id, summary: [] }
          if (block.signature !== null) item.encrypted_content = block.signature
          const status = statusOf(meta)
          if (status !== undefined) item.status = status
          push(item)
        }
        if (entry.type === "reasoning_text") (item.content ??= []).push({ type: "reasoning_text", text: entry.text })
        else item.summary.push({ type: "summary_text", text: entry.text })
        break
      }
      case "tool_call": {
        const meta = itemDetail(block.detail)
        push({
          type: "function_call",
          call_id: block.id,
          name: block.name,
          arguments: serialize(block.input),
          ...(meta?.id === undefined ? {} : { id: meta.id }),
          ...callRest(meta)
        })
        break
      }
      case "provider": {
        if (block.provider === format) {
          // an output item as the API sent it, written back in its place as it came
          push(block.item as unknown as Item)
          break
        }
        const other = ProviderContent.foreign(format, block, i, j, options.providerContent)
        if (other instanceof ConversionError.UnsupportedBlock) return other
        if (other._tag === "text") push({ type: "message", role: "assistant", content: other.block.text })
        break
      }
      default:
        return misplaced(message, i, j)
    }
  }
  close(last())
  return undefined
}

const encodeMessages = (
  conversation: Conversation.Conversation,
  options: Format.EncodeOptions,
  out: Array<Item>
): Format.EncodeError | undefined => {
  const systemRole = options.systemRole ?? "system"
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    switch (message.role) {
      case "system": {
        const j = message.blocks.findIndex((b) => b.type !== "text" && b.type !== "image")
        if (j !== -1) return misplaced(message, i, j)
        out.push({ type: "message", role: systemRole, content: content(message.blocks) })
        break
      }
      case "user": {
        const rest: Array<Block.ContentBlock> = []
        for (let j = 0; j < message.blocks.length; j++) {
          const block = message.blocks[j]!
          switch (block.type) {
            case "text":
            case "image":
              rest.push(block)
              break
            case "tool_result":
              out.push({
                type: "function_call_output",
                call_id: block.tool_call_id,
                output: block.blocks.length === 0 ? "" : content(block.blocks)
              })
              break
            case "provider": {
              if (block.provider === format) {
                // an input item the client sends back (an MCP approval, ...), in its place
                out.push(block.item as unknown as Item)
                break
              }
              const other = ProviderContent.foreign(format, block, i, j, options.providerContent)
              if (other instanceof ConversionError.UnsupportedBlock) return other
              if (other._tag === "text") rest.push(other.block)
              break
            }
            default:
              return misplaced(message, i, j)
          }
        }
        if (rest.length > 0) out.push({ type: "message", role: "user", content: content(rest) })
        break
      }
      case "assistant": {
        const error = encodeAssistant(message, i, options, out)
        if (error !== undefined) return error
        break
      }
      default:
        return absurd(message)
    }
  }
  return undefined
}

export const encode = (
  conversation: Conversation.Conversation,
  options: Format.EncodeOptions = {}
): Either.Either<Format.Wire, Format.EncodeError> => {
  const out: Array<Item> = []
  const error = encodeMessages(conversation, options, out)
  if (error === undefined) return Either.right(out)
  // As for the other formats, a misplaced block anywhere is reported before any other error.
  const placed = Conversation.validate(conversation)
  return Either.left(Either.isLeft(placed) ? placed.left : error)
}
