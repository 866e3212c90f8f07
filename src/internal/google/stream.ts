/**
 * Gemini streaming (`generateContentStream`, `:streamGenerateContent?alt=sse`): each chunk is a
 * whole `GenerateContentResponse` holding only the new parts. The chunks are folded back into the
 * response they stand for, then read by {@link decodeResponse}, so a streamed answer decodes
 * exactly as the same answer sent whole.
 *
 * Per candidate (keyed by `index`, `0` when absent):
 *
 * - parts are appended, and a text part continues the text part before it when both are thoughts or
 *   both are not and at most one of them carries a `thoughtSignature` (the signature is kept: Gemini
 *   often sends it last, on an empty text part); an empty text part with nothing else in it (which
 *   Gemini sends beside the `finishReason`) is left out: it holds nothing;
 * - a function call arrives whole, or in fragments (`partialArgs`, `willContinue`: Vertex AI and
 *   Gemini 3 streaming function-call arguments), which streamedCall.ts assembles into one whole call
 *   in the place of its first fragment;
 * - every other field of the candidate (`finishReason`, `finishMessage`, `groundingMetadata`,
 *   `citationMetadata`, `safetyRatings`, ...) is merged over the chunks: a later value replaces an
 *   earlier one, except that an empty object or array leaves the earlier value, objects merge key by
 *   key, and a later array that does not start with the earlier one is appended to it (so metadata
 *   sent as running snapshots keeps the last snapshot, and metadata sent piece by piece keeps every
 *   piece).
 *
 * Every top-level field comes from the last chunk that has it (`usageMetadata` holds running
 * totals).
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Stream from "effect/Stream"
import * as ConversionError from "../../ConversionError.js"
import type * as ModelResponse from "../../ModelResponse.js"
import * as Plain from "../plain.js"
import * as R from "../response.js"
import { decodeResponse, type ResponseOptions } from "./response.js"
import * as Streamed from "./streamedCall.js"

const format = "google" as const

type Json = Record<string, unknown>

interface CandidateState extends Streamed.Parts {
  readonly index: number
  readonly fields: Json
}

interface State {
  events: number
  readonly candidates: Map<number, CandidateState>
  readonly top: Json
}

const isText = (part: Json): boolean =>
  typeof part["text"] === "string" &&
  Object.keys(part).every((k) => k === "text" || k === "thought" || k === "thoughtSignature")

const appendText = (parts: Array<Json>, part: Json): void => {
  // an empty text part with nothing else (Gemini ends a stream with one, beside the finishReason)
  // holds nothing; kept, it would be an empty text block, which Gemini refuses when it is sent back
  if (isText(part) && part["text"] === "" && part["thoughtSignature"] === undefined) return
  const last = parts[parts.length - 1]
  if (
    last !== undefined && isText(last) && isText(part) && (last["thought"] === true) === (part["thought"] === true) &&
    !(last["thoughtSignature"] !== undefined && part["thoughtSignature"] !== undefined)
  ) {
    last["text"] = (last["text"] as string) + (part["text"] as string)
    if (part["thoughtSignature"] !== undefined) last["thoughtSignature"] = part["thoughtSignature"]
    return
  }
  parts.push({ ...part })
}

const appendPart = (
  entry: CandidateState,
  part: Json,
  where: Streamed.Where
): ConversionError.ResponseError | undefined => {
  const call = Streamed.functionCallOf(part)
  if (call !== undefined && "reason" in call) return R.malformedAt(format, [...where.path, call.key], call.reason)
  if (call !== undefined && Streamed.isFragment(call.value)) return Streamed.read(entry, part, call, where)
  appendText(entry.parts, part)
  return undefined
}

const isEmpty = (value: unknown): boolean =>
  Array.isArray(value) ? value.length === 0 : R.isRecord(value) && Object.keys(value).length === 0

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** One candidate field over two chunks: the rule in the module's documentation. */
const merge = (earlier: unknown, later: unknown): unknown => {
  if (earlier === undefined) return later
  if (isEmpty(later)) return earlier
  if (Array.isArray(earlier) && Array.isArray(later)) {
    const snapshot = earlier.length <= later.length && earlier.every((item, i) => sameJson(item, later[i]))
    return snapshot ? later : [...earlier, ...later]
  }
  if (R.isRecord(earlier) && R.isRecord(later)) {
    const out: Json = { ...earlier }
    for (const key of Object.keys(later)) {
      // defined, not assigned: a key such as "__proto__" is data
      Object.defineProperty(out, key, {
        value: merge(Object.hasOwn(earlier, key) ? earlier[key] : undefined, later[key]),
        enumerable: true,
        writable: true,
        configurable: true
      })
    }
    return out
  }
  return later
}

const toJson = (value: unknown): unknown => {
  if (Plain.tooDeep(value) !== undefined) return undefined
  const text = JSON.stringify(value)
  return text === undefined ? undefined : JSON.parse(text)
}

const step = (state: State, event: unknown, index: number): ConversionError.ResponseError | undefined => {
  state.events++
  // the SDK yields class instances (with an sdkHttpResponse beside the JSON fields): their JSON
  const chunk = toJson(event)
  if (!R.isRecord(chunk)) {
    return R.malformedAt(format, [index], "expected a GenerateContentResponse chunk (a JSON object)")
  }
  for (const key of Object.keys(chunk)) {
    if (key !== "candidates" && chunk[key] !== undefined && chunk[key] !== null) {
      Object.defineProperty(state.top, key, { value: chunk[key], enumerable: true, writable: true, configurable: true })
    }
  }
  const candidates = chunk["candidates"]
  if (candidates === undefined || candidates === null) return undefined
  if (!Array.isArray(candidates)) return R.malformedAt(format, [index, "candidates"], "expected an array")
  for (const [position, candidate] of candidates.entries()) {
    if (!R.isRecord(candidate)) {
      return R.malformedAt(format, [index, "candidates", position], "expected a candidate object")
    }
    const at = typeof candidate["index"] === "number" ? candidate["index"] : 0
    let entry = state.candidates.get(at)
    if (entry === undefined) {
      entry = { index: at, parts: [], open: undefined, fields: {} }
      state.candidates.set(at, entry)
    }
    if (entry.fields["finishReason"] !== undefined) {
      return new ConversionError.IncompleteStream({
        format,
        eventIndex: index,
        reason: `candidate ${at} goes on after its finishReason`
      })
    }
    for (const [key, value] of Object.entries(candidate)) {
      if (key === "content" || value === undefined || value === null) continue
      Object.defineProperty(entry.fields, key, {
        value: merge(Object.hasOwn(entry.fields, key) ? entry.fields[key] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true
      })
    }
    const content = candidate["content"]
    if (content === undefined || content === null) continue
    const parts = R.isRecord(content) ? content["parts"] : undefined
    if (parts === undefined || parts === null) continue
    if (!Array.isArray(parts)) {
      return R.malformedAt(format, [index, "candidates", position, "content", "parts"], "expected an array")
    }
    for (const [j, part] of parts.entries()) {
      if (!R.isRecord(part)) {
        return R.malformedAt(format, [index, "candidates", position, "content", "parts", j], "expected a part object")
      }
      const error = appendPart(entry, part, {
        event: index,
        path: [index, "candidates", position, "content", "parts", j],
        candidate: at
      })
      if (error !== undefined) return error
    }
  }
  return undefined
}

/** The `GenerateContentResponse` the chunks stand for, or why there is none. */
export const assemble = (state: State): Either.Either<Json, ConversionError.IncompleteStream> => {
  if (state.events === 0) {
    return Either.left(new ConversionError.IncompleteStream({ format, reason: "the stream holds no chunk" }))
  }
  const candidates: Array<Json> = []
  for (const entry of [...state.candidates.values()].sort((a, b) => a.index - b.index)) {
    if (entry.open !== undefined) return Either.left(Streamed.unfinished(entry.open, entry.index))
    if (entry.fields["finishReason"] === undefined) {
      return Either.left(
        new ConversionError.IncompleteStream({
          format,
          reason: `the stream ended before candidate ${entry.index} finished (no finishReason): it was interrupted`
        })
      )
    }
    candidates.push({ ...entry.fields, content: { role: "model", parts: entry.parts } })
  }
  return Either.right({ ...state.top, candidates })
}

/** Fold a stream of `GenerateContentResponse` chunks into one response. */
export const decodeStream = <E, R>(
  events: Stream.Stream<unknown, E, R>,
  options: ResponseOptions = {}
): Effect.Effect<ModelResponse.ModelResponse, E | ConversionError.ResponseError, R> =>
  R.fold(
    format,
    events,
    (): State => ({ events: 0, candidates: new Map(), top: {} }),
    step,
    (state) => {
      const response = assemble(state)
      return Either.isLeft(response) ? Either.left(response.left) : decodeResponse(response.right, options)
    }
  )
