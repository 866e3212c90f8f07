/**
 * An Anthropic Messages answer (`Message`) to a {@link ModelResponse}.
 *
 * The R.envelope (`stop_reason`, `stop_details`, `usage`, `id`, `model`) is read here; the content
 * blocks go through the Anthropic transcript decoder as one assistant message, so a block reads
 * exactly as it does in a transcript, errors included (paths moved to the response's `content`).
 * What a response has and a transcript does not: `citations` on text blocks, kept in the text
 * block's `detail`; block types the caller chose to leave out (`omit`).
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import type * as ModelResponse from "../../ModelResponse.js"
import * as Decoder from "../decoder.js"
import * as Plain from "../plain.js"
import * as R from "../response.js"
import * as Input from "../wireInput.js"
import * as decoder from "./decode.js"

export interface ResponseOptions {
  readonly omit?: ReadonlyArray<string> | undefined
  readonly invalidToolArguments?: Input.InvalidArguments
}

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
    const citations = new Map<number, Json.JsonValue>()
    for (const [j, block] of response.content.entries()) {
      const type = R.isRecord(block) ? block["type"] : undefined
      if (typeof type === "string" && omit.has(type)) continue
      if (R.isRecord(block) && type === "text" && Array.isArray(block["citations"]) && block["citations"].length > 0) {
        const copied = Input.copyJson(block["citations"], 0)
        if (copied === undefined) {
          return Either.left(R.malformedAt(format, ["content", j, "citations"], "expected JSON citations"))
        }
        citations.set(kept.length, copied)
        const { citations: _, ...rest } = block
        kept.push(rest)
      } else {
        kept.push(block)
      }
      positions.push(j)
    }
    const conversation = decoder.decode([{ role: "assistant", content: kept }])
    if (Either.isLeft(conversation)) {
      const error = conversation.left
      const k = "blockIndex" in error ? error.blockIndex : undefined
      return Either.left(
        k === undefined
          ? R.rebase(error, 1, [])
          : R.rebase(error, 3, ["content", positions[k] ?? k], (b) => positions[b] ?? b)
      )
    }
    const [only] = conversation.right
    if (conversation.right.length !== 1 || only?.role !== "assistant") {
      return Either.left(R.malformedAt(format, ["content"], "expected the content of one assistant message"))
    }
    const blocks = citations.size === 0
      ? only.blocks
      : only.blocks.map((b, k) => {
        const found = citations.get(k)
        return found === undefined ? b : { ...b, detail: { ...b.detail, citations: found } }
      })
    const message = Message.assistant(blocks)
    const stop = response.stop_reason ?? undefined
    const normalised = stop === undefined ? "other" : R.lookup(stopReasons, stop) ?? "other"
    const refusal = stop === "refusal" ? response.stop_details?.explanation ?? "" : undefined
    return Either.right({
      message,
      stopReason: R.stopReason(normalised, message),
      usage: readUsage(response.usage),
      ...R.optionalStrings({ providerStopReason: stop, refusal, id: response.id, model: response.model })
    })
  })
