/**
 * What `decode(encode(c, options))` must give back for the Chat Completions formats (`openai`,
 * `openrouter`): `c` with exactly the losses listed in docs/formats/openai.md ("What a round trip
 * loses") applied, and nothing else. The numbers below are that list's.
 */
import type * as FastCheck from "effect/FastCheck"
import { Block, type Conversation, Message } from "openreward-effect"
import { standardImages } from "./base64.js"

/** `normalize` as the format's page lists it, then image data as every decode reads it (utils/base64.ts). */
export function normalize(
  conversation: Conversation.Conversation,
  options?: NormalizeOptions
): Conversation.Conversation {
  return standardImages(normalizeAsWritten(conversation, options))
}

export interface NormalizeOptions {
  readonly reasoningField?: "reasoning_content" | "reasoning" | "omit" | undefined
  readonly reasoningOnToolCalls?: boolean | undefined
  readonly toolResultImages?: "error" | "user-message" | "tool-message" | undefined
}

// Loss 7: the media type is read back up to the first ";base64," of the data URL.
export const image = (block: Block.ImageBlock): Block.ImageBlock => {
  const url = `data:${block.mimeType};base64,${block.data}`
  const match = /^data:(.*?);base64,/is.exec(url)!
  return Block.image(url.slice(match[0].length), match[1]!)
}

// Loss 1: `detail` is not sent.
export const content = (block: Block.ContentBlock): Block.ContentBlock =>
  block.type === "text" ? Block.text(block.text) : image(block)

const assistant = (message: Message.AssistantMessage, options: NormalizeOptions): Message.AssistantMessage => {
  const texts = message.blocks.flatMap((b) => b.type === "reasoning" ? [b.text] : [])
  const calls = message.blocks.flatMap((b) => b.type === "tool_call" ? [Block.toolCall(b.id, b.name, b.input)] : [])
  const visible = message.blocks.flatMap((b) => b.type === "text" || b.type === "image" ? [content(b)] : [])
  // Loss 2: one reasoning block, texts joined with "\n\n", no signature (none with "omit", an
  // empty one on tool-call turns with reasoningOnToolCalls).
  const reasoning = (options.reasoningField ?? "reasoning_content") === "omit"
    ? []
    : texts.length > 0
    ? [Block.reasoning(texts.join("\n\n"))]
    : options.reasoningOnToolCalls === true && calls.length > 0
    ? [Block.reasoning("")]
    : []
  // Loss 3: reasoning, then text and images, then tool calls.
  return Message.assistant([...reasoning, ...visible, ...calls])
}

// Loss 4: no `is_error`; the texts joined with "\n" as one text block (kept as they are, images
// included, when openrouter's "tool-message" sends an image-holding result as parts).
const toolResult = (
  block: Block.ToolResultBlock,
  options: NormalizeOptions,
  moved: Array<Block.ContentBlock>
): Block.ToolResultBlock => {
  const images = block.blocks.filter((b) => b.type === "image")
  if (images.length > 0 && options.toolResultImages === "tool-message") {
    return Block.toolResult(block.tool_call_id, block.blocks.map(content))
  }
  // Loss 6: with "user-message", the images move to the turn's user content.
  moved.push(...images.map(content))
  const texts = block.blocks.flatMap((b) => b.type === "text" ? [b.text] : [])
  return Block.toolResult(block.tool_call_id, [Block.text(texts.join("\n"))])
}

/** `conversation` as a Chat Completions round trip returns it. */
const normalizeAsWritten = (
  conversation: Conversation.Conversation,
  options: NormalizeOptions = {}
): Conversation.Conversation => {
  const out: Array<Message.Message> = []
  // Loss 5: tool results lead their turn; a turn of only tool results joins the next user turn
  // (unless a system or assistant message comes first); an empty user turn disappears.
  let results: Array<Block.ToolResultBlock> = []
  const flush = () => {
    if (results.length > 0) out.push(Message.user(results))
    results = []
  }
  for (const message of conversation) {
    switch (message.role) {
      case "system":
        flush()
        out.push(Message.system(message.blocks.map(content)))
        break
      case "assistant":
        flush()
        out.push(assistant(message, options))
        break
      case "user": {
        const moved: Array<Block.ContentBlock> = []
        const rest: Array<Block.ContentBlock> = []
        for (const block of message.blocks) {
          if (block.type === "tool_result") results.push(toolResult(block, options, moved))
          // a provider block of another format is never encoded (the conversations here encoded)
          else if (block.type !== "provider") rest.push(content(block))
        }
        const blocks = [...moved, ...rest]
        if (blocks.length > 0) {
          out.push(Message.user([...results, ...blocks]))
          results = []
        }
        break
      }
    }
  }
  flush()
  return out
}

/**
 * Chat-message-like values, valid or not, for fuzzing decoding deeper than `fc.anything()` reaches:
 * every role, every part type, tool calls and reasoning details, with arbitrary values in between.
 */
export const chatLike = (fc: typeof FastCheck): FastCheck.Arbitrary<unknown> => {
  const loose = fc.oneof(fc.anything(), fc.string(), fc.constant(null))
  const url = fc.oneof(fc.string(), fc.constant("data:image/png;base64,AAAA"), fc.constant("https://x.test/a.png"))
  const part = fc.record({
    type: fc.oneof(fc.constantFrom("text", "image_url", "refusal", "input_audio", "file"), loose),
    text: fc.oneof(fc.string(), loose),
    refusal: fc.oneof(fc.string(), loose),
    image_url: fc.oneof(fc.record({ url }), loose)
  }, { requiredKeys: ["type"] })
  const content = fc.oneof(fc.string(), fc.array(part, { maxLength: 3 }), fc.constant(null), loose)
  const args = fc.oneof(fc.constantFrom("", "{}", "{\"a\": 1}", "[1]", "null", "{", "{\"n\": 1e999}"), fc.json(), loose)
  const toolCall = fc.record({
    id: fc.oneof(fc.string(), loose),
    type: fc.oneof(fc.constantFrom("function", "custom"), loose),
    function: fc.oneof(fc.record({ name: fc.oneof(fc.string(), loose), arguments: args }), loose)
  }, { requiredKeys: [] })
  const detail = fc.record({
    type: fc.oneof(fc.constantFrom("reasoning.text", "reasoning.summary", "reasoning.encrypted", "other"), loose),
    text: fc.oneof(fc.string(), loose),
    summary: fc.oneof(fc.string(), loose),
    signature: fc.oneof(fc.string(), loose)
  }, { requiredKeys: ["type"] })
  const message = fc.record({
    role: fc.oneof(fc.constantFrom("system", "developer", "user", "assistant", "tool", "function"), loose),
    content,
    tool_call_id: fc.oneof(fc.string(), loose),
    tool_calls: fc.oneof(fc.array(toolCall, { maxLength: 3 }), loose),
    reasoning_content: fc.oneof(fc.string(), loose),
    reasoning: fc.oneof(fc.string(), loose),
    reasoning_details: fc.oneof(fc.array(detail, { maxLength: 3 }), loose),
    refusal: fc.oneof(fc.string(), loose)
  }, { requiredKeys: ["role"] })
  const messages = fc.array(message, { maxLength: 5 })
  return fc.oneof(messages, fc.record({ model: fc.string(), messages }))
}
