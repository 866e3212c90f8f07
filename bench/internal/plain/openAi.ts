/**
 * Hand-written canonical <-> Chat Completions conversion: the same mapping as
 * `src/OpenAiFormat.ts` with default options, as plain loops over plain objects.
 */
import type * as Block from "../../../src/Block.js"
import type * as Conversation from "../../../src/Conversation.js"
import type * as Json from "../../../src/Json.js"
import type * as Message from "../../../src/Message.js"
import { base64, fail, isRecord, jsonObject, optionalString, string } from "./check.js"
import { dumps } from "./pythonJson.js"

/** A Chat Completions message, loosely typed: the benchmark compares values, not types. */
export type ChatMessage = { readonly [key: string]: unknown }

type Part =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image_url"; readonly image_url: { readonly url: string } }

const part = (block: Block.ContentBlock): Part =>
  block.type === "text"
    ? { type: "text", text: block.text }
    : { type: "image_url", image_url: { url: "data:" + block.mimeType + ";base64," + block.data } }

// A lone text block is sent as a plain string; anything else as content parts.
const content = (blocks: ReadonlyArray<Block.ContentBlock>): string | Array<Part> => {
  if (blocks.length === 1 && blocks[0]!.type === "text") return blocks[0]!.text
  const parts: Array<Part> = new Array(blocks.length)
  for (let k = 0; k < blocks.length; k++) parts[k] = part(blocks[k]!)
  return parts
}

const toolText = (block: Block.ToolResultBlock): string => {
  const inner = block.blocks
  let out = ""
  for (let k = 0; k < inner.length; k++) {
    const b = inner[k]!
    if (b.type !== "text") fail("tool messages are text-only")
    out = k === 0 ? b.text : out + "\n" + b.text
  }
  return out
}

/** Canonical conversation to a Chat Completions message list. Throws on what the codec rejects. */
export const encode = (conversation: Conversation.Conversation): Array<ChatMessage> => {
  const out: Array<ChatMessage> = []
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: content(message.blocks) })
        break
      case "user": {
        const blocks = message.blocks
        let rest: Array<Block.ContentBlock> | undefined
        for (let j = 0; j < blocks.length; j++) {
          const block = blocks[j]!
          if (block.type === "tool_result") {
            out.push({ role: "tool", tool_call_id: block.tool_call_id, content: toolText(block) })
          } else if (block.type === "text" || block.type === "image") {
            ;(rest ??= []).push(block)
          } else fail(`message ${i}, block ${j}: misplaced ${(block as Block.Block).type}`)
        }
        if (rest !== undefined) out.push({ role: "user", content: content(rest) })
        break
      }
      case "assistant": {
        const blocks = message.blocks
        let visible: Array<Block.ContentBlock> | undefined
        let reasoning: string | undefined
        let calls: Array<unknown> | undefined
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
              ;(calls ??= []).push({
                id: block.id,
                type: "function",
                function: { name: block.name, arguments: dumps(block.input) }
              })
              break
            default:
              fail(`message ${i}, block ${j}: misplaced ${(block as Block.Block).type}`)
          }
        }
        const entry: { [key: string]: unknown } = {
          role: "assistant",
          content: visible === undefined ? null : content(visible)
        }
        if (reasoning !== undefined) entry.reasoning_content = reasoning
        if (calls !== undefined) entry.tool_calls = calls
        out.push(entry)
        break
      }
    }
  }
  return out
}

// -----------------------------------------------------------------------------
// decode
// -----------------------------------------------------------------------------

const text = (value: string): Block.TextBlock => ({ text: value, detail: null, type: "text" })

const dataUrl = /^data:(.*?);base64,/is

const decodePart = (raw: unknown, assistant: boolean): Block.ContentBlock => {
  if (!isRecord(raw)) return fail("a content part must be an object")
  switch (raw.type) {
    case "text":
      return text(string(raw.text, "text"))
    case "image_url": {
      const image = raw.image_url
      if (!isRecord(image)) return fail("image_url must be an object")
      const url = string(image.url, "url")
      const match = dataUrl.exec(url)
      if (match === null) return fail("only base64 data URLs are canonical")
      return { data: base64(url.slice(match[0].length)), mimeType: match[1] ?? "", detail: null, type: "image" }
    }
    case "refusal":
      if (assistant) return text(string(raw.refusal, "refusal"))
      return fail("unsupported part refusal")
    default:
      return fail(`unsupported part ${String(raw.type)}`)
  }
}

const decodeContent = (raw: unknown, assistant: boolean, into: Array<Block.Block>): void => {
  if (typeof raw === "string") into.push(text(raw))
  else if (Array.isArray(raw)) { for (let k = 0; k < raw.length; k++) into.push(decodePart(raw[k], assistant)) }
  else fail("content must be a string or parts")
}

const nullableString = (u: unknown, what: string): string | undefined =>
  u === undefined || u === null ? undefined : string(u, what)

const parseArguments = (raw: unknown): Json.JsonObject => {
  if (typeof raw !== "string") return jsonObject(raw, "arguments")
  if (raw === "") return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return fail("arguments are not valid JSON")
  }
  return jsonObject(parsed, "arguments")
}

const reasoningBlock = (
  value: string,
  signature: string | null,
  detail: Block.ReasoningBlock["detail"] = null
): Block.ReasoningBlock => ({
  text: value,
  signature,
  detail,
  type: "reasoning"
})

/** A `reasoning_details` entry's keys other than its content, kept so that it can be sent back. */
const entryDetail = (entry: { readonly [key: string]: unknown }, format: string): Block.ReasoningBlock["detail"] => {
  const rest: { [key: string]: unknown } = {}
  for (const key of Object.keys(entry)) {
    if (key === "text" || key === "summary" || key === "data" || key === "signature") continue
    if (entry[key] !== undefined) rest[key] = entry[key]
  }
  return { [format]: { reasoning_detail: rest } } as Block.ReasoningBlock["detail"]
}

const decodeAssistant = (raw: { readonly [key: string]: unknown }, format: string): Message.AssistantMessage => {
  if (raw.function_call !== undefined && raw.function_call !== null) fail("function_call is not canonical")
  if (raw.audio !== undefined && raw.audio !== null) fail("audio is not canonical")
  const blocks: Array<Block.Block> = []
  const details = raw.reasoning_details
  if (details !== undefined && details !== null) {
    if (!Array.isArray(details)) fail("reasoning_details must be an array")
    for (let k = 0; k < details.length; k++) {
      const detail = details[k]
      if (!isRecord(detail)) return fail("a reasoning detail must be an object")
      switch (detail.type) {
        case "reasoning.text":
          blocks.push(
            reasoningBlock(
              optionalString(detail.text, "text") ?? "",
              optionalString(detail.signature, "signature"),
              entryDetail(detail, format)
            )
          )
          break
        case "reasoning.summary":
          blocks.push(reasoningBlock(string(detail.summary, "summary"), null, entryDetail(detail, format)))
          break
        case "reasoning.encrypted":
          blocks.push(reasoningBlock("", optionalString(detail.data, "data"), entryDetail(detail, format)))
          break
        default:
          fail(`unsupported reasoning detail ${String(detail.type)}`)
      }
    }
  }
  const reasoningContent = nullableString(raw.reasoning_content, "reasoning_content")
  const reasoning = nullableString(raw.reasoning, "reasoning")
  if (blocks.length === 0) {
    if (reasoningContent !== undefined) blocks.push(reasoningBlock(reasoningContent, null))
    if (reasoning !== undefined && reasoning !== reasoningContent) blocks.push(reasoningBlock(reasoning, null))
  }
  if (raw.content !== undefined && raw.content !== null) decodeContent(raw.content, true, blocks)
  const refusal = nullableString(raw.refusal, "refusal")
  if (refusal !== undefined && refusal !== "") blocks.push(text(refusal))
  const calls = raw.tool_calls
  if (calls !== undefined && calls !== null) {
    if (!Array.isArray(calls)) fail("tool_calls must be an array")
    for (let k = 0; k < calls.length; k++) {
      const call = calls[k]
      if (!isRecord(call)) return fail("a tool call must be an object")
      if (call.type !== undefined && call.type !== "function") fail(`unsupported tool call ${String(call.type)}`)
      const fn = call.function
      if (!isRecord(fn)) return fail("function must be an object")
      blocks.push({
        id: string(call.id, "id"),
        name: string(fn.name, "name"),
        input: parseArguments(fn.arguments),
        detail: null,
        type: "tool_call"
      })
    }
  }
  return { role: "assistant", blocks: blocks as Array<Message.AssistantBlock>, detail: null }
}

const userMessage = (blocks: Array<Block.Block>): Message.UserMessage => ({
  role: "user",
  blocks: blocks as Array<Message.UserBlock>,
  detail: null
})

/** A message list or `{messages}` to a canonical conversation. Throws on bad input. */
export const decode = (input: unknown, format: "openai" | "openrouter" = "openai"): Conversation.Conversation => {
  const messages = Array.isArray(input) ? input : isRecord(input) ? input.messages : undefined
  if (!Array.isArray(messages)) return fail("expected an array of chat messages or {messages}")
  const out: Array<Message.Message> = []
  // Tool messages wait here for the user message they belong to.
  let results: Array<Block.Block> | undefined
  for (let i = 0; i < messages.length; i++) {
    const raw = messages[i]
    if (!isRecord(raw)) return fail("a message must be an object")
    switch (raw.role) {
      case "system":
      case "developer": {
        const blocks: Array<Block.Block> = []
        decodeContent(raw.content, false, blocks)
        if (results !== undefined) out.push(userMessage(results))
        results = undefined
        out.push({ role: "system", blocks: blocks as Array<Message.SystemBlock>, detail: null })
        break
      }
      case "user": {
        const blocks: Array<Block.Block> = results ?? []
        decodeContent(raw.content, false, blocks)
        results = undefined
        out.push(userMessage(blocks))
        break
      }
      case "tool": {
        const inner: Array<Block.Block> = []
        decodeContent(raw.content, false, inner)
        ;(results ??= []).push({
          tool_call_id: string(raw.tool_call_id, "tool_call_id"),
          blocks: inner as Array<Block.ContentBlock>,
          is_error: false,
          detail: null,
          type: "tool_result"
        })
        break
      }
      case "assistant": {
        const message = decodeAssistant(raw, format)
        if (results !== undefined) out.push(userMessage(results))
        results = undefined
        out.push(message)
        break
      }
      default:
        return fail(`unsupported role ${String(raw.role)}`)
    }
  }
  if (results !== undefined) out.push(userMessage(results))
  return out
}
