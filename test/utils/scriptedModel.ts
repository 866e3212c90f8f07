/**
 * A scripted `@effect/ai` `LanguageModel` for judge tests: each call's reply comes from a function of
 * the call's index and prompt, and every prompt is recorded. `toOpenAi` shows a prompt as OpenAI chat
 * messages (what the reference's judges send), so prompts can be held to the reference's.
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Effect from "effect/Effect"

export interface Scripted {
  readonly model: Effect.Effect<LanguageModel.Service>
  readonly prompts: Array<Prompt.Prompt>
}

/** The reply to call `index` (0-based): text, or an effect (a failure, a delay). */
export type Script = (index: number, prompt: Prompt.Prompt) => string | Effect.Effect<string, AiError.AiError>

export const scripted = (script: Script): Scripted => {
  const prompts: Array<Prompt.Prompt> = []
  const model = LanguageModel.make({
    generateText: (options) =>
      Effect.suspend(() => {
        const index = prompts.length
        prompts.push(options.prompt)
        const reply = script(index, options.prompt)
        return Effect.map(
          typeof reply === "string" ? Effect.succeed(reply) : reply,
          (text): Array<Response.PartEncoded> => [{ type: "text", text }]
        )
      }),
    streamText: () => {
      throw new Error("streamText is not scripted")
    }
  })
  return { model, prompts }
}

/** Replies in order; the empty string after the last. */
export const replies = (...texts: ReadonlyArray<string>): Scripted => scripted((i) => texts[i] ?? "")

const base64 = (data: string | Uint8Array | URL): string =>
  typeof data === "string" ? data : data instanceof URL ? data.href : Buffer.from(data).toString("base64")

/** A prompt as OpenAI chat messages: a system string, user parts, assistant text. */
export const toOpenAi = (prompt: Prompt.Prompt): ReadonlyArray<unknown> =>
  prompt.content.map((message) => {
    switch (message.role) {
      case "system":
        return { role: "system", content: message.content }
      case "user":
        return {
          role: "user",
          content: message.content.map((part) =>
            part.type === "text"
              ? { type: "text", text: part.text }
              : { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${base64(part.data)}` } }
          )
        }
      case "assistant":
        return {
          role: "assistant",
          content: message.content.map((part) => part.type === "text" ? part.text : `<${part.type}>`).join("")
        }
      case "tool":
        return { role: "tool" }
    }
  })
