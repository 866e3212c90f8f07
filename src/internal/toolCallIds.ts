/**
 * Tool-call ids that a conversation reuses. Long agent trajectories (tau-bench: 49 of 200 ids) give
 * a later call the id of an earlier one. The canonical model keeps them as they are; a result is
 * paired with a call **by position**: the first call before it with that id that no result has
 * answered yet, else the last call before it with that id (a result before any such call pairs, as
 * the reference pairs every result, with the last call with that id).
 *
 * An encoder that sends ids to an API that needs them unique (Anthropic's `tool_use.id`, Gemini's
 * `function_call.id`) either fails with {@link reusedError} or, with the option that renames, sends
 * {@link unique}: every reused call renamed `<id>~<n>` (n = 2, 3, ...; a name no other call has), and
 * each result renamed as the call it pairs with, so calls and results stay paired.
 *
 * @internal
 */
import type * as Block from "../Block.js"
import type * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"

/** Where the first reused id is: the message and block of the second call with it. */
export interface Reused {
  readonly id: string
  readonly messageIndex: number
  readonly blockIndex: number
}

/** The first tool call whose id an earlier call already has, or `undefined`. */
export const firstReused = (conversation: Conversation.Conversation): Reused | undefined => {
  const seen = new Set<string>()
  for (let i = 0; i < conversation.length; i++) {
    const blocks: ReadonlyArray<Block.Block> = conversation[i]!.blocks
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      if (block.type !== "tool_call") continue
      if (seen.has(block.id)) return { id: block.id, messageIndex: i, blockIndex: j }
      seen.add(block.id)
    }
  }
  return undefined
}

/**
 * The conversation with every tool-call id unique, results renamed as the calls they pair with (by
 * position, as above); the conversation itself when no id is reused.
 */
export const unique = (conversation: Conversation.Conversation): Conversation.Conversation => {
  if (firstReused(conversation) === undefined) return conversation
  const taken = new Set<string>()
  for (const message of conversation) {
    for (const block of message.blocks as ReadonlyArray<Block.Block>) {
      if (block.type === "tool_call") taken.add(block.id)
    }
  }
  const fresh = (id: string): string => {
    for (let n = 2;; n++) {
      const name = `${id}~${n}`
      if (!taken.has(name)) {
        taken.add(name)
        return name
      }
    }
  }
  // first pass: every call's name, in order (the first call with an id keeps it)
  const names: Array<string> = []
  const last = new Map<string, string>()
  for (const message of conversation) {
    for (const block of message.blocks as ReadonlyArray<Block.Block>) {
      if (block.type !== "tool_call") continue
      const name = last.has(block.id) ? fresh(block.id) : block.id
      names.push(name)
      last.set(block.id, name)
    }
  }
  // second pass: calls renamed; each result after the call it pairs with by position
  const calls = new Map<string, Array<{ readonly name: string; answered: boolean }>>()
  let k = 0
  return conversation.map((message) => {
    let changed = false
    const blocks = (message.blocks as ReadonlyArray<Block.Block>).map((block) => {
      if (block.type === "tool_call") {
        const name = names[k++]!
        const list = calls.get(block.id)
        if (list === undefined) calls.set(block.id, [{ name, answered: false }])
        else list.push({ name, answered: false })
        if (name === block.id) return block
        changed = true
        return { ...block, id: name }
      }
      if (block.type === "tool_result") {
        const list = calls.get(block.tool_call_id)
        let name: string | undefined
        if (list === undefined) name = last.get(block.tool_call_id)
        else {
          const open = list.find((call) => !call.answered) ?? list[list.length - 1]!
          open.answered = true
          name = open.name
        }
        if (name === undefined || name === block.tool_call_id) return block
        changed = true
        return { ...block, tool_call_id: name }
      }
      return block
    })
    return changed ? { ...message, blocks } : message
  }) as unknown as Conversation.Conversation
}

/** The error of an encoder whose API needs unique ids, for the first reused one. */
export const reusedError = (
  format: "anthropic" | "google",
  reused: Reused,
  api: string
): ConversionError.UnsupportedBlock =>
  new ConversionError.UnsupportedBlock({
    format,
    path: [reused.messageIndex, "blocks", reused.blockIndex],
    messageIndex: reused.messageIndex,
    blockIndex: reused.blockIndex,
    blockType: "tool_call",
    reason: `tool call id ${
      JSON.stringify(reused.id)
    } is used by an earlier tool call, and ${api} needs unique ids; set reusedToolCallIds to "rename" to rename reused ids (calls and the results paired with them by position)`
  })
