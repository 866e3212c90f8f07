/**
 * The provider message formats a conversation converts to and from.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * `openai` and `openrouter` are Chat Completions message lists, `anthropic` is the Messages API's
 * `{system, messages}`, `google` is Gemini's `{system_instruction, contents}`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Provider = Schema.Literal("openai", "openrouter", "anthropic", "google").annotations({
  identifier: "Provider"
})

/**
 * @category models
 * @since 0.1.0
 */
export type Provider = typeof Provider.Type

/**
 * Every provider, in a stable order.
 *
 * @category constants
 * @since 0.1.0
 */
export const all: ReadonlyArray<Provider> = ["openai", "openrouter", "anthropic", "google"]

/**
 * @category guards
 * @since 0.1.0
 */
export const isProvider: (u: unknown) => u is Provider = Schema.is(Provider)
