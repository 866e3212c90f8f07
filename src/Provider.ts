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

/**
 * Every conversation format a codec speaks: the providers the reference SDK converts to, plus
 * `openai-responses` (the OpenAI Responses API `input` items), which this library converts on the
 * client side only (the reference's `get_messages` does not accept it), and `sharegpt` (the
 * `{conversations: [{from, value}]}` records of ShareGPT dumps and LLaMA-Factory datasets; since 0.2.0),
 * a dataset format no API speaks.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Format = Schema.Literal("openai", "openrouter", "anthropic", "google", "openai-responses", "sharegpt")
  .annotations({ identifier: "FormatName" })

/**
 * @category models
 * @since 0.2.0
 */
export type Format = typeof Format.Type

/**
 * Every format, in a stable order: the providers, then `openai-responses` and `sharegpt`.
 *
 * @category constants
 * @since 0.2.0
 */
export const formats: ReadonlyArray<Format> = [...all, "openai-responses", "sharegpt"]

/**
 * @category guards
 * @since 0.2.0
 */
export const isFormat: (u: unknown) => u is Format = Schema.is(Format)
