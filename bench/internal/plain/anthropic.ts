/**
 * Hand-written canonical <-> Anthropic conversion: the same mapping as `src/AnthropicFormat.ts`
 * with default options, written as one would without a library: plain loops over plain objects,
 * indexed `for` loops, no intermediate arrays, errors thrown as plain `Error`s.
 *
 * It does the same checks (placement, system rules, the shape of untrusted input) so that the
 * comparison is between two converters doing the same job, but reports failures without the
 * structured location our tagged errors carry.
 */
import type * as AnthropicFormat from "../../../src/AnthropicFormat.js"
import type * as Block from "../../../src/Block.js"
import type * as Conversation from "../../../src/Conversation.js"
import type * as Message from "../../../src/Message.js"
import { base64, fail, isRecord, jsonObject, optionalString, string } from "./check.js"

type Wire = AnthropicFormat.Wire
type WireMessage = AnthropicFormat.WireMessage
type WireBlock = AnthropicFormat.ContentBlock
type ToolResultContent = AnthropicFormat.ToolResultContent

const content = (block: Block.ContentBlock): ToolResultContent =>
  block.type === "text"
    ? { type: "text", text: block.text }
    : { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } }

const toolResult = (block: Block.ToolResultBlock): WireBlock => {
  const inner = block.blocks
  const out: Array<ToolResultContent> = new Array(inner.length)
  for (let k = 0; k < inner.length; k++) out[k] = content(inner[k]!)
  return block.is_error
    ? { type: "tool_result", tool_use_id: block.tool_call_id, content: out, is_error: true }
    : { type: "tool_result", tool_use_id: block.tool_call_id, content: out }
}

/** Canonical conversation to `{system, messages}`. Throws on what the codec rejects. */
export const encode = (conversation: Conversation.Conversation): Wire => {
  let system: string | null = null
  const messages: Array<WireMessage> = []
  let leading = true
  // tool_use ids must be unique in a request, as our encoder requires (reusedToolCallIds)
  const ids = new Set<string>()
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    const blocks = message.blocks
    const out: Array<WireBlock> = []
    switch (message.role) {
      case "system":
        if (!leading) fail(`message ${i}: system message after the first non-system turn`)
        for (let j = 0; j < blocks.length; j++) {
          const block = blocks[j]!
          if (block.type !== "text") fail(`message ${i}, block ${j}: the system parameter holds text only`)
          system = system === null ? block.text : system + "\n\n" + block.text
        }
        continue
      case "user":
        leading = false
        // Tool results first, as the API requires; then the rest in order.
        for (let j = 0; j < blocks.length; j++) {
          const block = blocks[j]!
          if (block.type === "tool_result") out.push(toolResult(block))
        }
        for (let j = 0; j < blocks.length; j++) {
          const block = blocks[j]!
          if (block.type === "text" || block.type === "image") out.push(content(block))
          else if (block.type !== "tool_result") fail(`message ${i}, block ${j}: misplaced ${block.type}`)
        }
        messages.push({ role: "user", content: out })
        break
      case "assistant":
        leading = false
        for (let j = 0; j < blocks.length; j++) {
          const block = blocks[j]!
          switch (block.type) {
            case "text":
            case "image":
              out.push(content(block))
              break
            case "reasoning":
              out.push(
                block.signature
                  ? { type: "thinking", thinking: block.text, signature: block.signature }
                  : { type: "thinking", thinking: block.text }
              )
              break
            case "tool_call":
              if (ids.has(block.id)) fail(`message ${i}, block ${j}: tool_use id ${block.id} used again`)
              ids.add(block.id)
              out.push({ type: "tool_use", id: block.id, name: block.name, input: block.input })
              break
            default:
              fail(`message ${i}, block ${j}: misplaced ${(block as Block.Block).type}`)
          }
        }
        messages.push({ role: "assistant", content: out })
        break
    }
  }
  return { system, messages }
}

// -----------------------------------------------------------------------------
// decode
// -----------------------------------------------------------------------------

const text = (value: string): Block.TextBlock => ({ text: value, detail: null, type: "text" })

const decodeContent = (raw: unknown): Block.ContentBlock => {
  if (!isRecord(raw)) return fail("a content block must be an object")
  switch (raw.type) {
    case "text":
      if (Array.isArray(raw.citations) && raw.citations.length > 0) fail("citations have no canonical form")
      return text(string(raw.text, "text"))
    case "image": {
      const source = raw.source
      if (!isRecord(source) || source.type !== "base64") return fail("only base64 image sources are canonical")
      return {
        data: base64(string(source.data, "data")),
        mimeType: string(source.media_type, "media_type"),
        detail: null,
        type: "image"
      }
    }
    default:
      return fail(`unsupported content block ${String(raw.type)}`)
  }
}

const decodeBlock = (raw: unknown, role: string): Block.Block => {
  if (!isRecord(raw)) return fail("a block must be an object")
  switch (raw.type) {
    case "text":
    case "image":
      return decodeContent(raw)
    case "thinking":
      if (role !== "assistant") fail("misplaced thinking")
      return {
        text: string(raw.thinking, "thinking"),
        signature: optionalString(raw.signature, "signature"),
        detail: null,
        type: "reasoning"
      }
    case "tool_use":
      if (role !== "assistant") fail("misplaced tool_use")
      return {
        id: string(raw.id, "id"),
        name: string(raw.name, "name"),
        input: jsonObject(raw.input, "input"),
        detail: null,
        type: "tool_call"
      }
    case "tool_result": {
      if (role !== "user") fail("misplaced tool_result")
      const inner = raw.content
      let blocks: Array<Block.ContentBlock>
      if (inner === undefined) blocks = []
      else if (typeof inner === "string") blocks = [text(inner)]
      else if (Array.isArray(inner)) {
        blocks = new Array(inner.length)
        for (let k = 0; k < inner.length; k++) blocks[k] = decodeContent(inner[k])
      } else return fail("tool_result content must be a string or blocks")
      const isError = raw.is_error
      if (isError !== undefined && isError !== null && typeof isError !== "boolean") fail("is_error must be a boolean")
      return {
        tool_call_id: string(raw.tool_use_id, "tool_use_id"),
        blocks,
        is_error: isError === true,
        detail: null,
        type: "tool_result"
      }
    }
    default:
      return fail(`unsupported block ${String(raw.type)}`)
  }
}

const decodeMessage = (raw: unknown): Message.Message => {
  if (!isRecord(raw)) return fail("a message must be an object")
  const role = raw.role
  if (role !== "user" && role !== "assistant" && role !== "system") return fail("bad role")
  const rawContent = raw.content
  let blocks: Array<Block.Block>
  if (typeof rawContent === "string") blocks = [text(rawContent)]
  else if (Array.isArray(rawContent)) {
    blocks = new Array(rawContent.length)
    for (let j = 0; j < rawContent.length; j++) blocks[j] = decodeBlock(rawContent[j], role)
  } else return fail("content must be a string or blocks")
  return { role, blocks, detail: null } as Message.Message
}

/** `{system?, messages}` or a bare messages array to a canonical conversation. Throws on bad input. */
export const decode = (input: unknown): Conversation.Conversation => {
  let rawMessages: unknown
  const out: Array<Message.Message> = []
  if (Array.isArray(input)) rawMessages = input
  else if (isRecord(input)) {
    rawMessages = input.messages
    const system = input.system
    if (typeof system === "string") out.push({ role: "system", blocks: [text(system)], detail: null })
    else if (Array.isArray(system)) {
      if (system.length > 0) {
        const blocks: Array<Block.TextBlock> = new Array(system.length)
        for (let k = 0; k < system.length; k++) {
          const block = system[k]
          if (!isRecord(block) || block.type !== "text") fail("system blocks must be text")
          blocks[k] = text(string((block as { text?: unknown }).text, "text"))
        }
        out.push({ role: "system", blocks, detail: null })
      }
    } else if (system !== undefined && system !== null) fail("system must be a string or text blocks")
  } else return fail("expected {system?, messages} or an array of messages")
  if (!Array.isArray(rawMessages)) return fail("messages must be an array")
  for (let i = 0; i < rawMessages.length; i++) out.push(decodeMessage(rawMessages[i]))
  return out
}
