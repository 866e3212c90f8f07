/**
 * Deterministic conversations for the codec benchmark.
 *
 * A "turn" is one canonical message. Conversations of `n > 1` turns open with a system message and
 * then repeat an agent-transcript cycle of four messages:
 *
 * | cycle step | role        | blocks                                                                    |
 * | ---------- | ----------- | ------------------------------------------------------------------------- |
 * | 0          | `user`      | text (plus an image every fifth cycle)                                    |
 * | 1          | `assistant` | reasoning (signed, when the format can carry it), text, 1-2 tool calls    |
 * | 2          | `user`      | one tool result per call (text only), then a text block every other cycle |
 * | 3          | `assistant` | text                                                                      |
 *
 * A one-turn conversation is a single plain user message. Content is built from a seeded generator
 * so every run (and every variant within a run) converts exactly the same data, and only content
 * that every compared converter can represent is used: images never sit inside tool results (the
 * chat-completions and Gemini formats reject them there) and reasoning is left out for Google,
 * which has no input representation for unencrypted reasoning.
 */
import * as Block from "../../src/Block.js"
import type * as Conversation from "../../src/Conversation.js"
import type * as Json from "../../src/Json.js"
import * as Message from "../../src/Message.js"

/** What the generated conversation may contain. */
export interface Shape {
  readonly reasoning: boolean
}

const words = [
  "order",
  "carrier",
  "refund",
  "warehouse",
  "status",
  "delayed",
  "customer",
  "tracking",
  "package",
  "address",
  "schedule",
  "invoice",
  "quantity",
  "update",
  "\"quoted\"",
  "naïve",
  "line\nbreak",
  "tab\tseparated"
]

/** A small, fast, seeded PRNG (mulberry32) so the data is identical across runs. */
const prng = (seed: number) => {
  let a = seed >>> 0
  return (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// A 1x1 PNG, repeated to a realistic thumbnail-sized base64 payload (~2 KB).
const imageData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
  .repeat(22)

/**
 * A conversation of exactly `turns` messages.
 */
export const conversation = (turns: number, shape: Shape): Conversation.Conversation => {
  const random = prng(0x5eed + turns)
  const sentence = (min: number, max: number): string => {
    const count = min + Math.floor(random() * (max - min + 1))
    const out: Array<string> = []
    for (let i = 0; i < count; i++) out.push(words[Math.floor(random() * words.length)] ?? "word")
    return out.join(" ")
  }
  const input = (k: number): Json.JsonObject => ({
    order_id: `A-${1000 + k}`,
    query: sentence(3, 8),
    limit: 1 + (k % 20),
    verbose: k % 2 === 0,
    filters: { region: k % 3 === 0 ? "eu" : "us", tags: ["priority", sentence(1, 2)], since: null },
    ratio: 0.25 + (k % 4) / 8
  })

  if (turns === 1) return [Message.user(sentence(12, 30))]

  const messages: Array<Message.Message> = [Message.system(`You are a support agent. ${sentence(20, 40)}`)]
  let cycle = 0
  let callIds: Array<string> = []
  while (messages.length < turns) {
    const step = (messages.length - 1) % 4
    if (step === 0) {
      cycle++
      messages.push(
        Message.user(
          cycle % 5 === 0
            ? [Block.text(sentence(10, 40)), Block.image(imageData, "image/png")]
            : [Block.text(sentence(10, 40))]
        )
      )
    } else if (step === 1) {
      const calls = cycle % 3 === 0 ? 2 : 1
      callIds = []
      const blocks: Array<Message.AssistantBlock> = []
      if (shape.reasoning) {
        blocks.push(Block.reasoning(sentence(20, 60), { signature: `sig-${cycle}-${"Eq".repeat(40)}` }))
      }
      blocks.push(Block.text(sentence(8, 30)))
      for (let c = 0; c < calls; c++) {
        const id = `call_${cycle}_${c}`
        callIds.push(id)
        blocks.push(Block.toolCall(id, c === 0 ? "lookup_order" : "search_kb", input(cycle * 2 + c)))
      }
      messages.push(Message.assistant(blocks))
    } else if (step === 2) {
      const blocks: Array<Message.UserBlock> = callIds.map((id, c) =>
        Block.toolResult(id, `{"status": "${sentence(1, 3)}", "eta_days": ${(cycle + c) % 9}}`, {
          isError: (cycle + c) % 7 === 0
        })
      )
      if (cycle % 2 === 0) blocks.push(Block.text(sentence(4, 12)))
      messages.push(Message.user(blocks))
    } else {
      messages.push(Message.assistant(sentence(15, 50)))
    }
  }
  return messages
}

/** Number of blocks, tool-result content included: a size measure for reports. */
export const blockCount = (conversation: Conversation.Conversation): number => {
  let count = 0
  for (const message of conversation) {
    for (const block of message.blocks) {
      count += block.type === "tool_result" ? 1 + block.blocks.length : 1
    }
  }
  return count
}
