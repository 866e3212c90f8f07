/**
 * A Responses API `Response` object to a canonical `ModelResponse`.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import type * as ModelResponse from "../../ModelResponse.js"
import type * as Format from "../../OpenAiResponsesFormat.js"
import * as Decoder from "../decoder.js"
import { isRecord, maxDepth, tooDeep } from "../plain.js"
import * as R from "../response.js"
import { copyJson, malformed, total } from "../wireInput.js"
import { decodeAssistantItem, unsupported } from "./decode.js"
import * as Wire from "./schema.js"

const format = "openai-responses" as const

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })
const optionalNull = <S extends Schema.Schema.Any>(schema: S) => optional(Schema.NullOr(schema))

/** The parts of a `Response` that decoding reads; other keys are ignored. */
export const ResponseSchema = Schema.Struct({
  id: optional(Schema.String),
  model: optional(Schema.String),
  status: optionalNull(Schema.String),
  output: Schema.Array(Schema.Unknown),
  incomplete_details: optionalNull(Schema.Struct({ reason: optionalNull(Schema.String) })),
  usage: optionalNull(Schema.Struct({
    input_tokens: optional(Schema.Number),
    output_tokens: optional(Schema.Number),
    total_tokens: optional(Schema.Number),
    input_tokens_details: optionalNull(Schema.Struct({ cached_tokens: optionalNull(Schema.Number) })),
    output_tokens_details: optionalNull(Schema.Struct({ reasoning_tokens: optionalNull(Schema.Number) }))
  }))
})

const decodeShape = Decoder.shape(ResponseSchema, { onExcessProperty: "ignore" }).decode
const decodeItem = Decoder.shape(Wire.InputItem, { onExcessProperty: "ignore" }).decode

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

const usageOf = (usage: typeof ResponseSchema.Type["usage"]): ModelResponse.Usage => {
  const out: Mutable<ModelResponse.Usage> = {}
  if (usage === undefined || usage === null) return out
  if (usage.input_tokens !== undefined) out.inputTokens = usage.input_tokens
  if (usage.output_tokens !== undefined) out.outputTokens = usage.output_tokens
  if (usage.total_tokens !== undefined) out.totalTokens = usage.total_tokens
  const reasoning = usage.output_tokens_details?.reasoning_tokens
  if (typeof reasoning === "number") out.reasoningTokens = reasoning
  const cached = usage.input_tokens_details?.cached_tokens
  if (typeof cached === "number") out.cachedInputTokens = cached
  return out
}

/** The Responses API has no finish reason: it follows from `status`, `incomplete_details` and the items. */
const stopReasonOf = (
  status: string | null | undefined,
  incomplete: string | null | undefined,
  hasCalls: boolean,
  refused: boolean
): ModelResponse.StopReason => {
  switch (status ?? "completed") {
    case "completed":
      return hasCalls ? "tool_calls" : refused ? "refusal" : "stop"
    case "incomplete":
      return incomplete === "max_output_tokens"
        ? "max_tokens"
        : incomplete === "content_filter"
        ? "content_filter"
        : "other"
    default:
      return "other"
  }
}

// the keys of a Response read into the ModelResponse itself; the others are its detail.openai.
// `output_text` is not the API's: the `openai` SDK adds it to the Response it returns (the texts
// of the output joined), and the turn holds them already
const responseKeys: ReadonlySet<string> = new Set(["id", "model", "output", "error", "output_text"])

/** The Response's keys outside `responseKeys`, with something in them, as JSON. */
const metadataOf = (response: Record<string, unknown>): Json.JsonObject | undefined => {
  const out: { [key: string]: Json.JsonValue } = {}
  for (const key of Object.keys(response)) {
    if (responseKeys.has(key)) continue
    const value = response[key]
    if (value === undefined || value === null || Array.isArray(value) && value.length === 0) continue
    const copied = copyJson(value, 1)
    if (copied !== undefined) out[key] = copied
  }
  return Object.keys(out).length === 0 ? undefined : out
}

/** What reading a Response can fail with. */
export type Error = ConversionError.DecodeError | ConversionError.NoAnswer | ConversionError.ProviderError

export const decodeResponse = (
  response: unknown,
  options?: Format.DecodeOptions
): Either.Either<ModelResponse.ModelResponse, Error> =>
  total(format, (): Either.Either<ModelResponse.ModelResponse, Error> => {
    const deep = tooDeep(response)
    if (deep !== undefined) {
      return Either.left(
        new ConversionError.MalformedInput({ format, path: deep, reason: `nested more than ${maxDepth} levels deep` })
      )
    }
    // an error body (`{error: {message, type, param, code}}`, what the API sends with a failed
    // status), or a Response that failed (`status: "failed"`, its `error`): the provider's error
    if (isRecord(response)) {
      const error = response["error"]
      if (error !== undefined && error !== null) return Either.left(R.providerError(format, error, ["error"]))
      if (response["status"] === "failed") {
        return Either.left(R.providerError(format, "the response failed, and gave no error", ["status"]))
      }
      // a background response retrieved before it finished holds no answer yet, not an empty one
      const status = response["status"]
      if (status === "queued" || status === "in_progress") {
        return Either.left(
          new ConversionError.NoAnswer({
            format,
            path: ["status"],
            reason: `the response is ${status}: it holds no answer yet (a background response: retrieve it again ` +
              "once its status is completed)"
          })
        )
      }
    }
    const shape = decodeShape(response)
    if (Either.isLeft(shape)) {
      return Either.left(malformed(shape.left, format, { messages: ["output"], blocks: ["content"] }))
    }
    const r = shape.right
    const blocks: Array<Message.AssistantBlock> = []
    const refusals: Array<string> = []
    let hasCalls = false
    for (let k = 0; k < r.output.length; k++) {
      const where = { path: ["output", k], messageIndex: k }
      const item = decodeItem(r.output[k])
      if (Either.isLeft(item)) {
        const error = malformed(item.left, format, { messages: [], blocks: ["content"] })
        return Either.left(
          new ConversionError.MalformedInput({
            format,
            path: ["output", k, ...error.path],
            messageIndex: k,
            reason: error.reason,
            ...(error.blockIndex === undefined ? {} : { blockIndex: error.blockIndex })
          })
        )
      }
      const value = item.right
      if ("role" in value && value.role !== "assistant") {
        return unsupported(
          { ...where, path: [...where.path, "role"] },
          `${value.role} message`,
          "a response's output holds the assistant's items only"
        )
      }
      if (value.type === "function_call_output") {
        return unsupported(
          { ...where, path: [...where.path, "type"] },
          "function_call_output",
          "a tool output in a response's output was run by the provider, and an assistant turn cannot hold it"
        )
      }
      if (value.type === "function_call") hasCalls = true
      if ((value.type === "message" || value.type === undefined) && "role" in value && Array.isArray(value.content)) {
        for (const part of value.content) if (part.type === "refusal") refusals.push(part.refusal)
      }
      const decoded = decodeAssistantItem(value, where, options, r.output[k])
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
      blocks.push(...decoded.right)
    }
    const refused = refusals.length > 0
    const providerStopReason = r.incomplete_details?.reason ?? r.status ?? undefined
    const out: Mutable<ModelResponse.ModelResponse> = {
      message: Message.assistant(blocks),
      stopReason: stopReasonOf(r.status, r.incomplete_details?.reason, hasCalls, refused),
      usage: usageOf(r.usage)
    }
    if (providerStopReason !== undefined && providerStopReason !== null) out.providerStopReason = providerStopReason
    if (refused) out.refusal = refusals.join("\n")
    if (r.id !== undefined) out.id = r.id
    if (r.model !== undefined) out.model = r.model
    const metadata = metadataOf(response as Record<string, unknown>)
    if (metadata !== undefined) out.detail = { [Wire.detailKey]: metadata }
    return Either.right(out)
  })
