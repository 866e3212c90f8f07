/**
 * What a judge is shown: candidates and the task context rendered to text and image blocks by the
 * library's flattening rules (`Prompt.flattenMessage`), delimited by XML-like tags the judges'
 * prompts refer to. Matches the reference's judging toolkit block for block (test/Judge.test.ts
 * holds it to fixtures the reference wrote).
 *
 * @internal
 */
import * as Block from "../../Block.js"
import type * as Conversation from "../../Conversation.js"
import * as Prompt from "../../Prompt.js"

/**
 * @internal
 */
export type View = "output" | "trajectory"

/**
 * @internal
 */
export type Candidate = string | Conversation.Conversation

/**
 * A candidate's blocks. A string is one text block whatever the view. A transcript in the `output`
 * view is the visible content (text and images) of its last assistant turn, or one empty text block
 * when that turn shows nothing or there is none; in the `trajectory` view every message, flattened.
 *
 * @internal
 */
export const candidate = (candidate: Candidate, view: View): Prompt.Prompt => {
  if (typeof candidate === "string") return [Block.text(candidate)]
  if (view === "output") {
    for (let i = candidate.length - 1; i >= 0; i--) {
      const message = candidate[i]!
      if (message.role !== "assistant") continue
      const visible = message.blocks.filter(Block.isContentBlock)
      if (visible.length > 0) return visible
      break
    }
    return [Block.text("")]
  }
  return candidate.flatMap(Prompt.flattenMessage)
}

/**
 * A candidate between `<tag>` and `</tag>` blocks.
 *
 * @internal
 */
export const tagged = (tag: string, value: Candidate, view: View): Prompt.Prompt => [
  Block.text(`<${tag}>`),
  ...candidate(value, view),
  Block.text(`</${tag}>`)
]

/**
 * The task conversation, in full (every turn, whatever the view), between `<task>` and `</task>`;
 * nothing when there is none.
 *
 * @internal
 */
export const context = (conversation: Conversation.Conversation | undefined): Prompt.Prompt =>
  conversation === undefined || conversation.length === 0
    ? []
    : [Block.text("<task>"), ...conversation.flatMap(Prompt.flattenMessage), Block.text("</task>")]
