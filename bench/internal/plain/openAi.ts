/**
 * Hand-written canonical <-> Chat Completions conversion: the same mapping as
 * `src/OpenAiFormat.ts` with default options, as plain loops over plain objects.
 */
import type * as Block from "../../../src/Block.js"
import type * as Conversation from "../../../src/Conversation.js"
import { fail } from "./check.js"
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
