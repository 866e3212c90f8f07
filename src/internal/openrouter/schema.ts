/**
 * What OpenRouter declares beyond the Chat Completions shapes it shares with OpenAI
 * (internal/openai/schema.ts): its name, the keys of its request body and `Input`. `OpenRouterFormat`
 * re-exports each with its documentation; its conversions are OpenAI's (internal/openai/*), run with
 * this format's name and keys.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as OpenAi from "../openai/schema.js"
import * as RequestBody from "../requestBody.js"

export const name = "openrouter" as const

export const requestKeys: RequestBody.Keys = {
  conversation: OpenAi.requestKeys.conversation,
  parameters: [
    ...OpenAi.requestKeys.parameters,
    // what OpenRouter's chat request adds to OpenAI's (its API reference)
    "debug",
    "image_config",
    "include_reasoning",
    "min_p",
    "models",
    "plugins",
    "prompt",
    "provider",
    "reasoning",
    "repetition_penalty",
    "route",
    "session_id",
    "top_a",
    "top_k",
    "trace",
    "transforms",
    "usage"
  ]
}

export const Input = Schema.Union(
  RequestBody.schema({ messages: Schema.Array(OpenAi.InputMessage) }, requestKeys.parameters).annotations({
    identifier: "OpenRouterInputRequest"
  }),
  Schema.Array(OpenAi.InputMessage)
).annotations({ identifier: "OpenRouterInput" })
