/**
 * An Anthropic Messages answer (`Message`) to a {@link ModelResponse}.
 *
 * The envelope (`stop_reason`, `stop_details`, `usage`, `id`, `model`) is read here; the content
 * blocks go through the Anthropic transcript decoder as one assistant message, so a block reads
 * exactly as it does in a transcript, errors and `providerContent` included (paths moved to the
 * response's `content`). Every other field of the envelope (`container`, `context_management`,
 * `stop_sequence`, the whole `usage`, ...) is kept in the response's `detail.anthropic`. Block types
 * the caller chose to leave out (`omit`) are left out.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Format from "../../AnthropicFormat.js"
import type * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import type * as ModelResponse from "../../ModelResponse.js"
import * as Decoder from "../decoder.js"
import * as Plain from "../plain.js"
import * as R from "../response.js"
import * as Input from "../wireInput.js"
import * as decoder from "./decode.js"

export type ResponseOptions = Format.ResponseOptions

const format = "anthropic" as const

/** `usage` of a message (the counts read; other keys ignored). */
export const Usage = Schema.Struct({
  input_tokens: R.Count,
  output_tokens: R.Count,
  cache_creation_input_tokens: R.Count,
  cache_read_input_tokens: R.Count,
  output_tokens_details: R.optional(Schema.Struct({ thinking_tokens: R.Count }))
})

/** A `Message` R.envelope. */
export const Envelope = Schema.Struct({
  id: R.optional(Schema.String),
  model: R.optional(Schema.String),
  role: Schema.optionalWith(Schema.Literal("assistant"), { exact: true }),
  content: Schema.Array(Schema.Unknown),
  stop_reason: R.optional(Schema.String),
  stop_details: R.optional(
    Schema.Struct({ explanation: R.optional(Schema.String), category: R.optional(Schema.String) })
  ),
  usage: R.optional(Usage)
})

const decodeEnvelope = Decoder.shape(Envelope, { onExcessProperty: "ignore" }).decode

const stopReasons: Record<string, ModelResponse.StopReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "max_tokens",
  model_context_window_exceeded: "max_tokens",
  refusal: "refusal",
  pause_turn: "pause"
}

const readUsage = (usage: typeof Usage.Type | null | undefined): ModelResponse.Usage => {
  if (usage === null || usage === undefined) return {}
  // Anthropic's input_tokens leaves out cached tokens; inputTokens counts them, as OpenAI and Gemini do
  const input = R.sum(usage.input_tokens, usage.cache_creation_input_tokens, usage.cache_read_input_tokens)
  return R.usage({
    inputTokens: input,
    outputTokens: usage.output_tokens,
    totalTokens: R.sum(input, usage.output_tokens),
    reasoningTokens: usage.output_tokens_details?.thinking_tokens,
    cachedInputTokens: usage.cache_read_input_tokens
  })
}

/** Decode a `Message`. */
export const decodeResponse = (
  input: unknown,
  options: ResponseOptions = {}
): Either.Either<ModelResponse.ModelResponse, ConversionError.ResponseError> =>
  Input.total(format, (): Either.Either<ModelResponse.ModelResponse, ConversionError.ResponseError> => {
    if (!R.isRecord(input)) {
      return Either.left(
        R.malformedAt(
          format,
          [],
          `expected a message {type: "message", content: [...]}, actual ${
            input === null ? "null" : Array.isArray(input) ? "an array" : typeof input
          }`
        )
      )
    }
    const deep = Plain.tooDeep(input)
    if (deep !== undefined) {
      return Either.left(R.malformedAt(format, deep, `nested more than ${Plain.maxDepth} levels deep (or cyclic)`))
    }
    const decoded = decodeEnvelope(input)
    if (Either.isLeft(decoded)) return Either.left(Input.malformed(decoded.left, format, R.envelope))
    const response = decoded.right
    const omit = new Set(options.omit ?? [])
    const kept: Array<unknown> = []
    const positions: Array<number> = []
    for (const [j, block] of response.content.entries()) {
      const type = R.isRecord(block) ? block["type"] : undefined
      if (typeof type === "string" && omit.has(type)) continue
      kept.push(block)
      positions.push(j)
    }
    const conversation = decoder.decode([{ role: "assistant", content: kept }], {
      providerContent: options.providerContent
    })
    if (Either.isLeft(conversation)) {
      const error = conversation.left
      const k = "blockIndex" in error ? error.blockIndex : undefined
      return Either.left(
        k === undefined
          ? R.rebase(error, 1, [])
          : R.rebase(error, 3, ["content", positions[k] ?? k], (b) => positions[b] ?? b)
      )
    }
    const [message] = conversation.right
    if (conversation.right.length !== 1 || message?.role !== "assistant") {
      return Either.left(R.malformedAt(format, ["content"], "expected the content of one assistant message"))
    }
    const stop = response.stop_reason ?? undefined
    const normalised = stop === undefined ? "other" : R.lookup(stopReasons, stop) ?? "other"
    const refusal = stop === "refusal" ? response.stop_details?.explanation ?? "" : undefined
    const detail = envelopeDetail(input)
    if (detail === undefined) {
      return Either.left(R.malformedAt(format, [], "expected the message's fields to be JSON"))
    }
    return Either.right({
      message,
      stopReason: R.stopReason(normalised, message),
      usage: readUsage(response.usage),
      ...R.optionalStrings({ providerStopReason: stop, refusal, id: response.id, model: response.model }),
      ...(detail === null ? {} : { detail })
    })
  })

// the envelope fields the response holds elsewhere: the content, the constants and what is read
const readElsewhere: ReadonlySet<string> = new Set(["content", "type", "role", "id", "model", "stop_reason"])

/**
 * Every other field of the message (`null` ones left out), copied, as `{anthropic: {...}}`: `null`
 * when there is none, `undefined` when one is not JSON.
 */
const envelopeDetail = (input: { readonly [key: string]: unknown }): Json.JsonObject | null | undefined => {
  const fields: { [key: string]: Json.JsonValue } = {}
  let any = false
  for (const key of Object.keys(input)) {
    const value = input[key]
    if (readElsewhere.has(key) || value === null || value === undefined) continue
    const copied = Input.copyJson(value, 1)
    if (copied === undefined) return undefined
    // an own `__proto__` key stays a data key, as copyJson keeps it
    Object.defineProperty(fields, key, { value: copied, writable: true, enumerable: true, configurable: true })
    any = true
  }
  return any ? { anthropic: fields } : null
}
