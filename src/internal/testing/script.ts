/**
 * What a scripted stand-in answers (`openreward-effect/Testing`): every stand-in plays the same
 * two-step agent, a tool call and then a final answer, in its provider's shapes.
 *
 * @internal
 */
import type * as Testing from "../../Testing.js"

/** The script of a stand-in (`Testing.Script`). */
export type Script = Testing.Script

/** The final answer's text. */
export const finalText = (script: Script, toolOutput: string): string =>
  script.answer?.(toolOutput) ?? `The tool said: ${toolOutput}`

/** The tool call's input. */
export const toolInput = (script: Script, toolName: string): Record<string, unknown> =>
  script.toolInput?.(toolName) ?? {}

/** A JSON object, as the stand-ins read request bodies. */
export type Json = { readonly [key: string]: unknown }

/** Whether `u` is a JSON object. */
export const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** `text` in pieces of `size` characters. */
export const split = (text: string, size: number): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}
