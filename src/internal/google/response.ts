/**
 * A Gemini answer (`GenerateContentResponse`, or one of its `candidates`) to a {@link ModelResponse}.
 *
 * The R.envelope (candidates, `finishReason`, `promptFeedback`, `usageMetadata`, `responseId`,
 * `modelVersion`) is read here; the candidate's `content.parts` go through the Gemini transcript
 * decoder as one model turn, so a part reads exactly as it does in a transcript (thought
 * signatures included), errors included (paths moved to the candidate). Function calls without an
 * id get one made from the response id (or, without one, from a hash of the parts), so the ids
 * of two turns of one conversation do not collide.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import type * as ModelResponse from "../../ModelResponse.js"
import * as Decoder from "../decoder.js"
import * as Plain from "../plain.js"
import * as R from "../response.js"
import * as Input from "../wireInput.js"
import * as decoder from "./decode.js"

export interface ResponseOptions {
  readonly candidate?: number | undefined
  readonly toolCallIdPrefix?: string | undefined
}

const format = "google" as const

/** `usageMetadata` (the counts read; other keys ignored). */
export const Usage = Schema.Struct({
  promptTokenCount: R.Count,
  candidatesTokenCount: R.Count,
  thoughtsTokenCount: R.Count,
  totalTokenCount: R.Count,
  cachedContentTokenCount: R.Count
})

/** One of the `candidates`. */
export const Candidate = Schema.Struct({
  index: R.optional(Schema.Number),
  content: R.optional(Schema.Struct({ parts: R.optional(Schema.Array(Schema.Unknown)) })),
  finishReason: R.optional(Schema.String),
  finishMessage: R.optional(Schema.String),
  citationMetadata: Schema.optionalWith(Schema.Unknown, { exact: true }),
  groundingMetadata: Schema.optionalWith(Schema.Unknown, { exact: true })
})

/** A `GenerateContentResponse` R.envelope. */
export const Envelope = Schema.Struct({
  candidates: R.optional(Schema.Array(Candidate)),
  promptFeedback: R.optional(Schema.Struct({
    blockReason: R.optional(Schema.String),
    blockReasonMessage: R.optional(Schema.String)
  })),
  usageMetadata: R.optional(Usage),
  modelVersion: R.optional(Schema.String),
  responseId: R.optional(Schema.String)
})

const decodeEnvelope = Decoder.shape(Envelope, { onExcessProperty: "ignore" }).decode
const decodeCandidate = Decoder.shape(Candidate, { onExcessProperty: "ignore" }).decode

const finishReasons: Record<string, ModelResponse.StopReason> = {
  STOP: "stop",
  MAX_TOKENS: "max_tokens",
  CONTINUATION: "max_tokens",
  SAFETY: "content_filter",
  RECITATION: "content_filter",
  BLOCKLIST: "content_filter",
  PROHIBITED_CONTENT: "content_filter",
  SPII: "content_filter",
  IMAGE_SAFETY: "content_filter",
  IMAGE_PROHIBITED_CONTENT: "content_filter",
  IMAGE_RECITATION: "content_filter"
}

const readUsage = (usage: typeof Usage.Type | null | undefined): ModelResponse.Usage =>
  usage === null || usage === undefined ? {} : R.usage({
    inputTokens: usage.promptTokenCount,
    // candidatesTokenCount leaves out the thoughts; outputTokens counts them, as OpenAI does
    outputTokens: R.sum(usage.candidatesTokenCount, usage.thoughtsTokenCount),
    totalTokens: usage.totalTokenCount,
    reasoningTokens: usage.thoughtsTokenCount,
    cachedInputTokens: usage.cachedContentTokenCount
  })

// FNV-1a, 32 bits, as 8 hex digits: a stable tag for parts that came without a response id
const hash = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, "0")
}

const describe = (input: unknown): string => input === null ? "null" : Array.isArray(input) ? "an array" : typeof input

/** Decode a `GenerateContentResponse` or one candidate. */
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
          `expected a GenerateContentResponse or one of its candidates, actual ${describe(input)}`
        )
      )
    }
    const deep = Plain.tooDeep(input)
    if (deep !== undefined) {
      return Either.left(R.malformedAt(format, deep, `nested more than ${Plain.maxDepth} levels deep (or cyclic)`))
    }
    let candidate: typeof Candidate.Type
    let prefix: ConversionError.Path
    let response: typeof Envelope.Type | undefined
    const isCandidate = !("candidates" in input) && ("content" in input || "finishReason" in input)
    if (isCandidate) {
      const decoded = decodeCandidate(input)
      if (Either.isLeft(decoded)) return Either.left(Input.malformed(decoded.left, format, R.envelope))
      candidate = decoded.right
      prefix = []
      const index = candidate.index ?? undefined
      if (options.candidate !== undefined && index !== undefined && index !== options.candidate) {
        return Either.left(
          new ConversionError.NoAnswer({
            format,
            path: ["index"],
            reason: `the candidate has index ${index}, not ${options.candidate} (candidate option)`
          })
        )
      }
    } else {
      const decoded = decodeEnvelope(input)
      if (Either.isLeft(decoded)) return Either.left(Input.malformed(decoded.left, format, R.envelope))
      response = decoded.right
      const candidates = response.candidates ?? []
      const blockReason = response.promptFeedback?.blockReason ?? undefined
      if (candidates.length === 0 && blockReason !== undefined) {
        const message = response.promptFeedback?.blockReasonMessage
        return Either.left(
          new ConversionError.NoAnswer({
            format,
            path: ["promptFeedback", "blockReason"],
            blockReason,
            reason: `the prompt was blocked (${blockReason})${message ? `: ${message}` : ""}; there is no candidate`
          })
        )
      }
      const picked = R.pick(
        format,
        candidates,
        (c, position) => c.index ?? position,
        options.candidate,
        ["candidates"],
        { one: "candidate", option: "candidate" }
      )
      if (Either.isLeft(picked)) return Either.left(picked.left)
      candidate = picked.right.item
      prefix = ["candidates", picked.right.position]
    }
    const parts = candidate.content?.parts ?? []
    const decoded = decoder.decode({ contents: [{ role: "model", parts }] })
    if (Either.isLeft(decoded)) {
      return Either.left(R.rebase(decoded.left, 3, [...prefix, "content", "parts"]))
    }
    const [only] = decoded.right
    if (decoded.right.length !== 1 || only?.role !== "assistant") {
      return Either.left(R.malformedAt(format, [...prefix, "content"], "expected one model turn"))
    }
    // the k-th tool call comes from the k-th function-call part; one without an id gets a tag of its own
    const generated: Array<number | undefined> = []
    for (const [j, part] of parts.entries()) {
      if (R.isRecord(part) && R.isRecord(part["functionCall"])) {
        generated.push(typeof part["functionCall"]["id"] === "string" ? undefined : j)
      }
    }
    const tag = options.toolCallIdPrefix ??
      `call_${response?.responseId ?? hash(JSON.stringify(parts))}`
    let k = 0
    const blocks = only.blocks.map((b) => {
      if (b.type !== "tool_call") return b
      const j = generated[k++]
      return j === undefined ? b : { ...b, id: `${tag}_${j}` }
    })
    const detail: Record<string, Json.JsonValue> = {}
    for (const key of ["citationMetadata", "groundingMetadata", "finishMessage"] as const) {
      const value = candidate[key]
      if (value === undefined || value === null) continue
      const copied = Input.copyJson(value, 0)
      if (copied === undefined) return Either.left(R.malformedAt(format, [...prefix, key], "expected JSON"))
      detail[key] = copied
    }
    const message = Message.assistant(blocks, Object.keys(detail).length === 0 ? undefined : { detail })
    const finish = candidate.finishReason ?? undefined
    const normalised = finish === undefined ? "other" : R.lookup(finishReasons, finish) ?? "other"
    return Either.right({
      message,
      stopReason: R.stopReason(normalised, message),
      usage: readUsage(response?.usageMetadata),
      ...R.optionalStrings({ providerStopReason: finish, id: response?.responseId, model: response?.modelVersion })
    })
  })
