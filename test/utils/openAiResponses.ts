/**
 * What `decode(encode(c, options))` must give back for the `openai-responses` format: `c` with
 * exactly the losses listed in docs/formats/openai-responses.md ("What a round trip loses") applied.
 * The numbers below are that list's. Conversations here carry no Responses item ids (generated
 * `detail`s never hold an `openai` key), so every reasoning block goes by `reasoningWithoutId`.
 */
import type * as FastCheck from "effect/FastCheck"
import { Block, type Conversation, Message } from "openreward-effect"
import { standardImages } from "./base64.js"
import { content } from "./openAiChat.js"

/** `normalize` as the format's page lists it, then image data as every decode reads it (utils/base64.ts). */
export function normalize(
  conversation: Conversation.Conversation,
  options?: NormalizeOptions
): Conversation.Conversation {
  return standardImages(normalizeAsWritten(conversation, options))
}

export interface NormalizeOptions {
  readonly reasoningWithoutId?: "fail" | "omit" | "text" | undefined
}

// Loss 3: `is_error` is not sent; loss 4: an empty result reads back as one empty text block.
const toolResult = (block: Block.ToolResultBlock): Block.ToolResultBlock =>
  Block.toolResult(block.tool_call_id, block.blocks.length === 0 ? [Block.text("")] : block.blocks.map(content))

// Loss 1 (`detail` of messages and blocks without an `openai` key) and loss 7 (the image media type,
// as for `openai`) are in `content`.
const assistantBlocks = (
  message: Message.AssistantMessage,
  options: NormalizeOptions
): Array<Message.AssistantBlock> =>
  message.blocks.flatMap((block): Array<Message.AssistantBlock> => {
    switch (block.type) {
      case "text":
      case "image":
        return [content(block)]
      case "tool_call":
        return [Block.toolCall(block.id, block.name, block.input)]
      case "reasoning":
        // Loss 6: reasoning without an item id is left out, or read back as text.
        return options.reasoningWithoutId === "text" ? [Block.text(block.text)] : []
      case "provider":
        // its own: the item goes back as it came (its detail is not sent: loss 1); another
        // format's provider block is never encoded (the conversations here encoded)
        return block.provider === "openai-responses" ? [Block.provider(block.provider, block.kind, block.item)] : []
    }
  })

/** `conversation` as a Responses round trip returns it. */
const normalizeAsWritten = (
  conversation: Conversation.Conversation,
  options: NormalizeOptions = {}
): Conversation.Conversation => {
  const out: Array<Message.Message> = []
  let results: Array<Block.ToolResultBlock> = []
  let assistant: Array<Message.AssistantBlock> | undefined
  const flushResults = () => {
    if (results.length > 0) out.push(Message.user(results))
    results = []
  }
  const flushAssistant = () => {
    if (assistant !== undefined) out.push(Message.assistant(assistant))
    assistant = undefined
  }
  for (const message of conversation) {
    switch (message.role) {
      case "system":
        flushAssistant()
        flushResults()
        out.push(Message.system(message.blocks.map(content)))
        break
      case "assistant": {
        // Loss 5: consecutive assistant turns are one run of items, read back as one turn; a turn
        // that sends nothing disappears.
        const blocks = assistantBlocks(message, options)
        if (blocks.length === 0) break
        flushResults()
        ;(assistant ??= []).push(...blocks)
        break
      }
      case "user": {
        // Loss 2: tool results lead their turn; a turn of only tool results joins the next user turn
        // (unless a system or assistant message comes first); an empty user turn disappears.
        const rest: Array<Block.ContentBlock> = []
        for (const block of message.blocks) {
          if (block.type === "tool_result") {
            flushAssistant()
            results.push(toolResult(block))
          } else if (block.type !== "provider") rest.push(content(block))
        }
        if (rest.length > 0) {
          flushAssistant()
          out.push(Message.user([...results, ...rest]))
          results = []
        }
        break
      }
    }
  }
  flushAssistant()
  flushResults()
  return out
}

/**
 * Responses-item-like values, valid or not, for fuzzing decoding deeper than `fc.anything()` reaches.
 */
export const itemLike = (fc: typeof FastCheck): FastCheck.Arbitrary<unknown> => {
  const loose = fc.oneof(fc.anything(), fc.string(), fc.constant(null))
  const part = fc.record({
    type: fc.oneof(
      fc.constantFrom("input_text", "output_text", "input_image", "refusal", "input_file", "input_audio"),
      loose
    ),
    text: fc.oneof(fc.string(), loose),
    refusal: fc.oneof(fc.string(), loose),
    image_url: fc.oneof(fc.constantFrom("data:image/png;base64,AAAA", "https://x.test/a.png"), loose),
    file_id: fc.oneof(fc.string(), loose)
  }, { requiredKeys: ["type"] })
  const content = fc.oneof(fc.string(), fc.array(part, { maxLength: 3 }), loose)
  const item = fc.record({
    type: fc.oneof(
      fc.constantFrom(
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "item_reference",
        "web_search_call"
      ),
      loose
    ),
    role: fc.oneof(fc.constantFrom("system", "developer", "user", "assistant", "tool"), loose),
    content,
    id: fc.oneof(fc.string(), loose),
    phase: fc.oneof(fc.constantFrom("commentary", "final_answer"), loose),
    summary: fc.oneof(fc.array(fc.record({ type: fc.constant("summary_text"), text: fc.string() })), loose),
    encrypted_content: fc.oneof(fc.string(), loose),
    call_id: fc.oneof(fc.string(), loose),
    name: fc.oneof(fc.string(), loose),
    arguments: fc.oneof(fc.constantFrom("", "{}", "{\"a\": 1}", "[1]", "{"), loose),
    output: content
  }, { requiredKeys: [] })
  const items = fc.array(item, { maxLength: 5 })
  return fc.oneof(items, fc.record({ instructions: fc.oneof(fc.string(), loose), input: fc.oneof(items, fc.string()) }))
}
