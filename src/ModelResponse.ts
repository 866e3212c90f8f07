/**
 * What a model answered, in canonical form: the assistant turn it wrote and what a harness needs
 * beside it (why it stopped, what it cost, whether it refused). Every provider's `decodeResponse`
 * and stream accumulator produces this one shape, so a harness loop is written once for all of them.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import type * as Json from "./Json.js"
import type * as Message from "./Message.js"

/**
 * Why the model stopped, normalised across providers. The provider's own value is kept beside it in
 * {@link ModelResponse.providerStopReason}.
 *
 * - `stop`: the model finished its turn (OpenAI `stop`, Anthropic `end_turn` / `stop_sequence`,
 *   Gemini `STOP`).
 * - `tool_calls`: the turn ends with tool calls the harness must run.
 * - `max_tokens`: the output was cut at the token limit.
 * - `content_filter`: the provider filtered the output (OpenAI `content_filter`, Gemini `SAFETY`, ...).
 * - `refusal`: the model refused (Anthropic `refusal`, an OpenAI refusal).
 * - `pause`: the provider paused a long turn (Anthropic `pause_turn`); send the turn back to continue.
 * - `other`: any other value; read `providerStopReason`.
 *
 * @category models
 * @since 0.2.0
 */
export const StopReason = Schema.Literal(
  "stop",
  "tool_calls",
  "max_tokens",
  "content_filter",
  "refusal",
  "pause",
  "other"
).annotations({ identifier: "StopReason" })

/**
 * @category models
 * @since 0.2.0
 */
export type StopReason = typeof StopReason.Type

/**
 * Token usage as the provider reported it; a count the provider did not report is absent.
 *
 * @category models
 * @since 0.2.0
 */
export interface Usage {
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly totalTokens?: number
  readonly reasoningTokens?: number
  readonly cachedInputTokens?: number
}

/**
 * One model answer in canonical form.
 *
 * @category models
 * @since 0.2.0
 */
export interface ModelResponse {
  /** The assistant turn, ready to append to the conversation. */
  readonly message: Message.AssistantMessage
  /** Why the model stopped, normalised. */
  readonly stopReason: StopReason
  /** The provider's own stop value (`finish_reason`, `stop_reason`, `finishReason`, ...), if it sent one. */
  readonly providerStopReason?: string
  /** Token usage, as far as the provider reported it. */
  readonly usage: Usage
  /** The refusal text, when the model refused (OpenAI `refusal`, ...). */
  readonly refusal?: string
  /** The provider's response id, if it sent one. */
  readonly id?: string
  /** The model that answered, if the provider said. */
  readonly model?: string
  /**
   * What the provider sent about the answer as a whole that the fields above do not hold, as the
   * provider sent it, under the provider's name: Anthropic `{ anthropic: { usage, container,
   * context_management, stop_sequence, stop_details, ... } }` (every field of the `Message` but its
   * content, `id`, `model`, `type`, `role` and `stop_reason`; `null` ones left out), Gemini
   * `{ google: { usageMetadata, createTime, ... } }` (the usage record as sent beside the counts read
   * from it). Absent when there is nothing more. What belongs to the turn itself is in the message's
   * and its blocks' `detail`.
   *
   * @since 0.2.0
   */
  readonly detail?: Json.JsonObject
}
