/**
 * A Gemini answer (`GenerateContentResponse`, or one of its `candidates`) to a {@link ModelResponse}.
 *
 * The envelope (candidates, `finishReason`, `promptFeedback`, `usageMetadata`, `responseId`,
 * `modelVersion`) is read here; the candidate's `content.parts` go through the Gemini transcript
 * decoder as one model turn, so a part reads exactly as it does in a transcript (thought
 * signatures included), errors included (paths moved to the candidate). Function calls without an
 * id get one made from the response id (or, without one, from a hash of the parts), so the ids
 * of two turns of one conversation do not collide.
 *
 * Nothing Gemini sends is dropped (docs/formats/google.md, "What an answer keeps"): a part's fields
 * that its block does not hold go to that block's `detail.google`, the candidate's fields other
 * than `content`, `finishReason` and `index` to the message's `detail.google`, and the response's
 * fields other than `candidates`, `responseId` and `modelVersion` to the response's
 * `detail.google` (`usageMetadata` as sent, beside the counts read from it).
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
import * as Wire from "./schema.js"

export interface ResponseOptions {
  readonly candidate?: number | undefined
  readonly toolCallIdPrefix?: string | undefined
  readonly providerContent?: "refuse" | "keep" | undefined
}

const format = "google" as const

/** `usageMetadata` (the counts read; the whole record is kept in the response's detail). */
export const Usage = Schema.Struct({
  promptTokenCount: R.Count,
  toolUsePromptTokenCount: R.Count,
  candidatesTokenCount: R.Count,
  thoughtsTokenCount: R.Count,
  totalTokenCount: R.Count,
  cachedContentTokenCount: R.Count
})

/** One of the `candidates`. */
export const Candidate = Schema.Struct({
  index: R.optional(Schema.Number),
  content: R.optional(Schema.Struct({ parts: R.optional(Schema.Array(Schema.Unknown)) })),
  finishReason: R.optional(Schema.String)
})

/** A `GenerateContentResponse` envelope. */
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
    // what server-side tools put in the prompt (search results, ...) is input too: with it the
    // input and output add up to totalTokenCount
    inputTokens: R.sum(usage.promptTokenCount, usage.toolUsePromptTokenCount),
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

/** A copy of a JSON value (an SDK class instance as its JSON), or `undefined` for a value that is no JSON. */
const json = (value: unknown): Json.JsonValue | undefined => {
  const copied = Input.copyJson(value, 0)
  if (copied !== undefined || Plain.tooDeep(value) !== undefined) return copied
  const text = JSON.stringify(value)
  return text === undefined ? undefined : Input.copyJson(JSON.parse(text), 0)
}

/**
 * The fields of `record` other than `read` (unset ones left out), copied, or the key of one that
 * is no JSON.
 */
const rest = (
  record: { readonly [key: string]: unknown },
  read: ReadonlySet<string>
): { readonly fields: Record<string, Json.JsonValue> } | { readonly bad: string } => {
  const fields: Record<string, Json.JsonValue> = {}
  for (const key of Object.keys(record)) {
    const value = record[key]
    if (read.has(key) || value === undefined || value === null) continue
    const copied = json(value)
    if (copied === undefined) return { bad: key }
    Object.defineProperty(fields, key, { value: copied, enumerable: true, writable: true, configurable: true })
  }
  return { fields }
}

const isEmpty = (fields: Record<string, unknown>): boolean => Object.keys(fields).length === 0

/** The keys of a part that its block holds, and of the data values a block is read from. */
const partKeys: ReadonlySet<string> = new Set(Object.keys(Wire.InputPart.fields))
const dataKeys: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["functionCall", new Set(Object.keys(Wire.InputFunctionCall.fields))],
  ["function_call", new Set(Object.keys(Wire.InputFunctionCall.fields))],
  ["inlineData", new Set(Object.keys(Wire.InputBlob.fields))],
  ["inline_data", new Set(Object.keys(Wire.InputBlob.fields))]
])
/** The candidate's fields a message holds; the others go to its detail. */
const candidateKeys: ReadonlySet<string> = new Set(["content", "finishReason", "index"])
const contentKeys: ReadonlySet<string> = new Set(["parts", "role"])
/**
 * The response's fields the `ModelResponse` holds, and what the JS SDK adds to the JSON it was
 * given (its record of the HTTP exchange, and the history of calls it ran itself): not Gemini's.
 */
const responseKeys: ReadonlySet<string> = new Set([
  "candidates",
  "responseId",
  "modelVersion",
  "sdkHttpResponse",
  "automaticFunctionCallingHistory"
])

/** What a part holds that its block does not: its other fields, and those of its data value. */
const partRest = (
  part: unknown,
  at: ConversionError.Path
): Either.Either<Record<string, Json.JsonValue>, ConversionError.MalformedInput> => {
  if (!R.isRecord(part)) return Either.right({})
  const found = rest(part, partKeys)
  if ("bad" in found) return Either.left(R.malformedAt(format, [...at, found.bad], "expected JSON"))
  const fields = found.fields
  for (const [key, read] of dataKeys) {
    const value = part[key]
    if (!R.isRecord(value)) continue
    const inner = rest(value, read)
    if ("bad" in inner) return Either.left(R.malformedAt(format, [...at, key, inner.bad], "expected JSON"))
    if (!isEmpty(inner.fields)) fields[key] = inner.fields
  }
  return Either.right(fields)
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
    let raw: { readonly [key: string]: unknown }
    let prefix: ConversionError.Path
    let response: typeof Envelope.Type | undefined
    const isCandidate = !("candidates" in input) && ("content" in input || "finishReason" in input)
    if (isCandidate) {
      const decoded = decodeCandidate(input)
      if (Either.isLeft(decoded)) return Either.left(Input.malformed(decoded.left, format, R.envelope))
      candidate = decoded.right
      raw = input
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
      raw = (input["candidates"] as ReadonlyArray<{ readonly [key: string]: unknown }>)[picked.right.position]!
    }
    const parts = candidate.content?.parts ?? []
    const decoded = decoder.decodeTracked(
      { contents: [{ role: "model", parts }] },
      options.providerContent === undefined ? undefined : { providerContent: options.providerContent }
    )
    if (Either.isLeft(decoded)) {
      return Either.left(R.rebase(decoded.left, 3, [...prefix, "content", "parts"]))
    }
    const [only] = decoded.right.conversation
    const origins = decoded.right.origins[0] ?? []
    if (decoded.right.conversation.length !== 1 || only?.role !== "assistant") {
      return Either.left(R.malformedAt(format, [...prefix, "content"], "expected one model turn"))
    }
    // a function call without an id gets a tag of its own and the index of its part
    const tag = options.toolCallIdPrefix ??
      `call_${response?.responseId ?? hash(JSON.stringify(parts))}`
    const blocks: Array<Message.AssistantBlock> = []
    for (let k = 0; k < only.blocks.length; k++) {
      let block = only.blocks[k]!
      const p = origins[k]!
      const part = parts[p]
      if (block.type === "tool_call") {
        const call = R.isRecord(part) ? part["functionCall"] ?? part["function_call"] : undefined
        if (!(R.isRecord(call) && typeof call["id"] === "string")) block = { ...block, id: `${tag}_${p}` }
      }
      // what else the part holds goes on its last block (a signature's reasoning block comes first);
      // a provider block holds its whole part already
      if (origins[k + 1] !== p && block.type !== "provider") {
        const extra = partRest(part, [...prefix, "content", "parts", p])
        if (Either.isLeft(extra)) return Either.left(extra.left)
        if (!isEmpty(extra.right)) block = { ...block, detail: { google: extra.right } }
      }
      blocks.push(block)
    }
    const kept = rest(raw, candidateKeys)
    if ("bad" in kept) return Either.left(R.malformedAt(format, [...prefix, kept.bad], "expected JSON"))
    const detail = kept.fields
    const content = raw["content"]
    if (R.isRecord(content)) {
      const more = rest(content, contentKeys)
      if ("bad" in more) return Either.left(R.malformedAt(format, [...prefix, "content", more.bad], "expected JSON"))
      if (!isEmpty(more.fields)) detail["content"] = more.fields
    }
    const message = Message.assistant(blocks, isEmpty(detail) ? undefined : { detail: { google: detail } })
    let top: Record<string, Json.JsonValue> = {}
    if (!isCandidate) {
      const found = rest(input, responseKeys)
      if ("bad" in found) return Either.left(R.malformedAt(format, [found.bad], "expected JSON"))
      top = found.fields
    }
    const finish = candidate.finishReason ?? undefined
    const normalised = finish === undefined ? "other" : R.lookup(finishReasons, finish) ?? "other"
    return Either.right({
      message,
      stopReason: R.stopReason(normalised, message),
      usage: readUsage(response?.usageMetadata),
      ...R.optionalStrings({ providerStopReason: finish, id: response?.responseId, model: response?.modelVersion }),
      ...(isEmpty(top) ? {} : { detail: { google: top } })
    })
  })
