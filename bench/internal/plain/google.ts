/**
 * Hand-written canonical <-> Gemini conversion: the same mapping as `src/GoogleFormat.ts` with
 * default options, as plain loops over plain objects.
 */
import type * as Block from "../../../src/Block.js"
import type * as Conversation from "../../../src/Conversation.js"
import { fail } from "./check.js"

type Part = { readonly [key: string]: unknown }

/** A Gemini request's conversation, loosely typed: the benchmark compares values, not types. */
export interface Wire {
  readonly system_instruction: string | null
  readonly contents: Array<{ readonly role: "user" | "model"; readonly parts: Array<Part> }>
}

const toolText = (block: Block.ToolResultBlock): string => {
  const inner = block.blocks
  let out = ""
  for (let k = 0; k < inner.length; k++) {
    const b = inner[k]!
    if (b.type !== "text") fail("function responses are text-only")
    out = k === 0 ? b.text : out + "\n" + b.text
  }
  return out
}

/** Canonical conversation to `{system_instruction, contents}`. Throws on what the codec rejects. */
export const encode = (conversation: Conversation.Conversation): Wire => {
  // Function responses are addressed by name: index the calls first.
  const names = new Map<string, string>()
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (message.role !== "assistant") continue
    const blocks = message.blocks
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      if (block.type === "tool_call") names.set(block.id, block.name)
    }
  }
  let system: string | null = null
  const contents: Array<{ readonly role: "user" | "model"; readonly parts: Array<Part> }> = []
  let leading = true
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    const blocks = message.blocks
    if (message.role === "system") {
      if (!leading) fail(`message ${i}: system message after the first non-system turn`)
      for (let j = 0; j < blocks.length; j++) {
        const block = blocks[j]!
        if (block.type !== "text") fail(`message ${i}, block ${j}: system instructions hold text only`)
        system = system === null ? block.text : system + "\n\n" + block.text
      }
      continue
    }
    leading = false
    const parts: Array<Part> = new Array(blocks.length)
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      switch (block.type) {
        case "text":
          parts[j] = { text: block.text }
          break
        case "image":
          parts[j] = { inline_data: { mime_type: block.mimeType, data: block.data } }
          break
        case "reasoning":
          return fail(`message ${i}, block ${j}: no input representation for reasoning`)
        case "tool_call":
          if (message.role !== "assistant") fail(`message ${i}, block ${j}: misplaced tool_call`)
          parts[j] = { function_call: { name: block.name, args: block.input } }
          break
        case "tool_result": {
          if (message.role !== "user") fail(`message ${i}, block ${j}: misplaced tool_result`)
          const name = names.get(block.tool_call_id)
          if (name === undefined) fail(`message ${i}, block ${j}: no tool_call ${block.tool_call_id}`)
          parts[j] = { function_response: { name, response: { output: toolText(block) } } }
          break
        }
      }
    }
    contents.push({ role: message.role === "assistant" ? "model" : "user", parts })
  }
  return { system_instruction: system, contents }
}
