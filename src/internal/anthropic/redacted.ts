/**
 * Anthropic's `redacted_thinking` in canonical form: a reasoning block with empty text, the
 * block's opaque `data` as its signature, and `detail: {anthropic: {redacted: true}}` to say so.
 * Decoding (a transcript or a response) makes it; the Anthropic encoder sends it back as the
 * `redacted_thinking` block it came from, as the API requires in a tool loop. Any other reasoning
 * block, with that detail or not, is a `thinking` block as before.
 *
 * @internal
 */
import * as Block from "../../Block.js"

/** The canonical form of `{type: "redacted_thinking", data}`. */
export const block = (data: string): Block.ReasoningBlock =>
  Block.reasoning("", { signature: data, detail: { anthropic: { redacted: true } } })

/** Is this reasoning block a redacted_thinking block's canonical form? Then its data. */
export const dataOf = (reasoning: Block.ReasoningBlock): string | undefined => {
  if (reasoning.text !== "" || typeof reasoning.signature !== "string") return undefined
  const anthropic = reasoning.detail?.["anthropic"]
  return typeof anthropic === "object" && anthropic !== null && !Array.isArray(anthropic) &&
      (anthropic as { readonly [key: string]: unknown })["redacted"] === true
    ? reasoning.signature
    : undefined
}
