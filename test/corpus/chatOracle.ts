/**
 * What a recorded Chat Completions answer says, read straight from its JSON, without the library:
 * the oracle test/corpus/OpenAi.test.ts and OpenRouter.test.ts hold `decodeResponse` and
 * `decodeStream` to. It reads the answer the plain way a person checking it by hand would (texts
 * concatenated, calls grouped by `index`, or by `id` where there is none), and checks what a decoded
 * turn must keep: the text, the reasoning and its signatures, every tool call's id, name and
 * arguments, the citations, Gemini's `extra_content`, the stop reason and the usage; or, when the
 * answer is the provider's error, that it is a `ProviderError` with its code and message.
 */
import { assert } from "@effect/vitest"
import * as Either from "effect/Either"
import type * as Block from "../../src/Block.js"
import type * as ConversionError from "../../src/ConversionError.js"
import * as Message from "../../src/Message.js"
import type * as ModelResponse from "../../src/ModelResponse.js"
import * as OpenAiFormat from "../../src/OpenAiFormat.js"
import * as OpenRouterFormat from "../../src/OpenRouterFormat.js"
import type * as Corpus from "../utils/corpus.js"

type Json = Record<string, any>

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** What a turn must keep. */
export interface Expected {
  readonly text: string
  readonly reasoning: string
  readonly signatures: ReadonlyArray<string>
  readonly calls: ReadonlyArray<
    { readonly id: string; readonly name: string; readonly input: unknown; readonly extra?: unknown }
  >
  readonly annotations: ReadonlyArray<unknown>
  readonly answerKeys: Json
  readonly extraContent?: unknown
  readonly finish: string | undefined
  readonly refused: boolean
  readonly promptTokens: number | undefined
}

/** The provider's error an answer is, if it is one. */
export interface ExpectedError {
  readonly eventIndex?: number
  readonly code: string | number | undefined
  readonly message: string
}

const errorOf = (error: unknown): ExpectedError => {
  const e = isRecord(error) ? error : {}
  const code = [e["code"], e["type"], e["status"]].find((c) =>
    typeof c === "string" && c !== "" || typeof c === "number"
  )
  return { code, message: typeof error === "string" ? error : String(e["message"]) }
}

const parse = (args: unknown): unknown =>
  args === undefined || args === "" ? {} : typeof args === "string" ? JSON.parse(args) : args

const answerKeyNames = ["citations", "search_results", "images", "related_questions", "videos"]

const reasoningOfDetails = (details: ReadonlyArray<Json>) => {
  let reasoning = ""
  let any = false
  const signatures: Array<string> = []
  for (const d of details) {
    if (d["type"] === "reasoning.text") {
      any = true
      reasoning += d["text"] ?? ""
      if (typeof d["signature"] === "string") signatures.push(d["signature"])
    } else if (d["type"] === "reasoning.summary") {
      any = true
      reasoning += d["summary"]
    } else if (d["type"] === "reasoning.encrypted") {
      any = true
      signatures.push(d["data"])
    }
  }
  return { any, reasoning, signatures }
}

/** A whole completion's first choice, read plainly. */
const fromWhole = (body: Json): Expected | ExpectedError => {
  if ((body["error"] !== undefined && body["error"] !== null) || body["object"] === "error") {
    return errorOf(body["error"] ?? body)
  }
  const choice = (body["choices"] as Array<Json>)[0]!
  const message = choice["message"] as Json
  let text = ""
  let thinking = ""
  const content = message["content"]
  if (typeof content === "string") text += content
  else if (Array.isArray(content)) {
    for (const part of content) {
      if (part.type === "text") text += part.text
      else if (part.type === "refusal") text += part.refusal
      else if (part.type === "thinking") {
        for (const c of part.thinking) if (c.type === "text") thinking += c.text
      }
    }
  }
  if (typeof message["refusal"] === "string") text += message["refusal"]
  const details = reasoningOfDetails(message["reasoning_details"] ?? [])
  const flat = [message["reasoning_content"], message["reasoning"]].filter((r): r is string => typeof r === "string")
  const reasoning = thinking +
    (details.any ? details.reasoning : flat.length === 2 && flat[0] === flat[1] ? flat[0]! : flat.join(""))
  const calls = ((message["tool_calls"] ?? []) as Array<Json>).map((c) => ({
    id: c["id"] ?? "",
    name: c["function"].name,
    input: parse(c["function"].arguments),
    ...(c["extra_content"] === undefined ? {} : { extra: c["extra_content"] })
  }))
  const answerKeys: Json = {}
  for (const key of answerKeyNames) {
    if (body[key] !== undefined && body[key] !== null && !(Array.isArray(body[key]) && body[key].length === 0)) {
      answerKeys[key] = body[key]
    }
  }
  return {
    text,
    reasoning,
    signatures: details.signatures,
    calls,
    annotations: message["annotations"] ?? [],
    answerKeys,
    ...(message["extra_content"] === undefined ? {} : { extraContent: message["extra_content"] }),
    finish: choice["finish_reason"] ?? undefined,
    refused: typeof message["refusal"] === "string" && message["refusal"] !== "",
    promptTokens: body["usage"]?.prompt_tokens
  }
}

/** A stream's chunks, read plainly: fragments concatenated, calls grouped. */
const fromStream = (events: ReadonlyArray<unknown>): Expected | ExpectedError => {
  let text = ""
  let thinking = ""
  let reasoningContent = ""
  let reasoningField = ""
  const details: Array<Json> = []
  const calls: Array<{ id: string; name: string; args: string; extra?: unknown }> = []
  const byIndex = new Map<number, (typeof calls)[number]>()
  const annotations: Array<unknown> = []
  const answerKeys: Json = {}
  let finish: string | undefined
  let refused = false
  let promptTokens: number | undefined
  for (const [i, event] of events.entries()) {
    const e = event as Json
    if (e["error"] !== undefined && e["error"] !== null) return { ...errorOf(e["error"]), eventIndex: i }
    if (isRecord(e["usage"])) promptTokens = e["usage"].prompt_tokens
    for (const key of answerKeyNames) if (e[key] !== undefined && e[key] !== null) answerKeys[key] = e[key]
    for (const c of (e["choices"] ?? []) as Array<Json>) {
      const d = (c["delta"] ?? {}) as Json
      if (typeof d["content"] === "string") text += d["content"]
      else if (Array.isArray(d["content"])) {
        for (const part of d["content"]) {
          if (part.type === "text") text += part.text
          else if (part.type === "thinking") {
            for (const t of part.thinking) if (t.type === "text") thinking += t.text
          }
        }
      }
      if (typeof d["refusal"] === "string") text += d["refusal"]
      if (typeof d["refusal"] === "string" && d["refusal"] !== "") refused = true
      if (typeof d["reasoning_content"] === "string") reasoningContent += d["reasoning_content"]
      if (typeof d["reasoning"] === "string") reasoningField += d["reasoning"]
      for (const r of d["reasoning_details"] ?? []) {
        const last = details[details.length - 1]
        if (last !== undefined && last["type"] === r.type && last["index"] === r.index) {
          for (const key of ["text", "summary", "data"]) {
            if (typeof r[key] === "string") last[key] = (last[key] ?? "") + r[key]
          }
          if (typeof r.signature === "string") last["signature"] = r.signature
        } else details.push({ ...r })
      }
      for (const a of d["annotations"] ?? []) annotations.push(a)
      for (const t of (d["tool_calls"] ?? []) as Array<Json>) {
        let call = typeof t["index"] === "number" ? byIndex.get(t["index"]) : undefined
        if (call === undefined && t["index"] === undefined && t["id"]) call = calls.find((k) => k.id === t["id"])
        if (call !== undefined && t["id"] && call.id && call.id !== t["id"]) call = undefined
        if (call === undefined) {
          call = { id: "", name: "", args: "" }
          calls.push(call)
        }
        if (typeof t["index"] === "number") byIndex.set(t["index"], call)
        if (t["id"]) call.id = t["id"]
        if (t["function"]?.name) call.name = t["function"].name
        call.args += t["function"]?.arguments ?? ""
        if (t["extra_content"] !== undefined) call.extra = t["extra_content"]
      }
      if (typeof c["finish_reason"] === "string") finish = c["finish_reason"]
    }
  }
  const fromDetails = reasoningOfDetails(details)
  const flat = reasoningContent !== "" && reasoningContent === reasoningField
    ? reasoningContent
    : reasoningContent + reasoningField
  return {
    text,
    reasoning: thinking + (fromDetails.any ? fromDetails.reasoning : flat),
    signatures: fromDetails.signatures,
    calls: calls.map((c) => ({
      id: c.id,
      name: c.name,
      input: parse(c.args),
      ...(c.extra === undefined ? {} : { extra: c.extra })
    })),
    annotations,
    answerKeys,
    finish,
    refused,
    promptTokens
  }
}

/** What the recorded answer says. */
export const expected = (answer: Corpus.Answer): Expected | ExpectedError =>
  answer.kind === "response" ? fromWhole(answer.body as Json) : fromStream(answer.events!)

const isError = (e: Expected | ExpectedError): e is ExpectedError => "message" in e

/** Hold a decoded answer to what the recording says. */
export const check = (
  format: "openai" | "openrouter",
  answer: Corpus.Answer,
  result: Either.Either<ModelResponse.ModelResponse, ConversionError.ResponseError>
): void => {
  const want = expected(answer)
  if (isError(want)) {
    assert.isTrue(Either.isLeft(result), "the provider's error is a Left")
    const e = (result as Either.Left<ConversionError.ResponseError, never>).left
    assert.strictEqual(e._tag, "ProviderError", e.message)
    if (e._tag !== "ProviderError") return
    assert.strictEqual(e.code, want.code)
    assert.strictEqual(e.reason, want.message)
    assert.strictEqual(e.eventIndex, want.eventIndex)
    return
  }
  if (Either.isLeft(result)) assert.fail(`${answer.file}: ${result.left.message}`)
  const r = result.right
  const blocks = r.message.blocks
  const texts = blocks.filter((b): b is Block.TextBlock => b.type === "text")
  const reasoning = blocks.filter((b): b is Block.ReasoningBlock => b.type === "reasoning")
  const calls = blocks.filter((b): b is Block.ToolCallBlock => b.type === "tool_call")
  assert.strictEqual(texts.map((b) => b.text).join(""), want.text, "text")
  assert.strictEqual(reasoning.map((b) => b.text).join(""), want.reasoning, "reasoning")
  assert.deepStrictEqual(
    reasoning.flatMap((b) => b.signature === null ? [] : [b.signature]),
    want.signatures,
    "signatures"
  )
  assert.strictEqual(calls.length, want.calls.length, "tool calls")
  for (const [k, call] of calls.entries()) {
    const w = want.calls[k]!
    // an empty id (Gemini) gets one made: `call_<completion id>_<k>`
    if (w.id === "") assert.strictEqual(call.id, `call_${r.id}_${k}`, "made id")
    else assert.strictEqual(call.id, w.id, "id")
    assert.strictEqual(call.name, w.name, "name")
    assert.deepStrictEqual(call.input, w.input, "arguments")
    assert.deepStrictEqual(
      (call.detail?.[format] as Json | undefined)?.["extra_content"],
      w.extra,
      "extra_content of the call"
    )
  }
  const kept = (r.message.detail?.[format] ?? {}) as Json
  assert.deepStrictEqual(kept["annotations"] ?? [], want.annotations, "annotations")
  for (const [key, value] of Object.entries(want.answerKeys)) assert.deepStrictEqual(kept[key], value, key)
  assert.deepStrictEqual(kept["extra_content"], want.extraContent, "extra_content of the message")
  assert.strictEqual(r.providerStopReason, want.finish, "finish_reason")
  assert.strictEqual(r.refusal !== undefined, want.refused, "refusal")
  const stop = want.refused
    ? "refusal"
    : want.finish === "tool_calls" || want.finish === "stop" && calls.length > 0
    ? "tool_calls"
    : want.finish === "stop"
    ? "stop"
    : want.finish === "length"
    ? "max_tokens"
    : want.finish === "content_filter"
    ? "content_filter"
    : "other"
  assert.strictEqual(r.stopReason, stop, "stop reason")
  assert.strictEqual(r.usage.inputTokens, want.promptTokens, "usage")
  // sent back to the same API, the turn is what came: every call with its id, name, arguments and
  // extra_content (Gemini's signature), the message's extra_content, and OpenRouter's
  // reasoning_details entries as the answer sent them
  const Format = format === "openai" ? OpenAiFormat : OpenRouterFormat
  const replay = Format.encode([Message.user("Go on."), r.message], { reasoningField: "reasoning" })
  if (Either.isLeft(replay)) return assert.fail(`the turn encodes again: ${replay.left.message}`)
  const sent = replay.right[1] as Json
  assert.deepStrictEqual(
    ((sent["tool_calls"] ?? []) as Array<Json>).map((c) => [
      c["id"],
      c["function"].name,
      JSON.parse(c["function"].arguments),
      c["extra_content"]
    ]),
    calls.map((c, k) => [c.id, want.calls[k]!.name, want.calls[k]!.input, want.calls[k]!.extra]),
    "the calls go back"
  )
  assert.deepStrictEqual(sent["extra_content"], want.extraContent, "the message's extra_content goes back")
  if (answer.kind === "response") {
    const raw = (answer.body as Json)["choices"][0]["message"]["reasoning_details"] as Array<Json> | undefined
    if (raw !== undefined && raw !== null && raw.length > 0) {
      // an entry sent without text goes back with an empty one
      const withText = raw.map((e) =>
        e["type"] === "reasoning.text" && e["text"] === undefined ? { ...e, text: "" } : e
      )
      assert.deepStrictEqual(sent["reasoning_details"], withText, "the reasoning_details go back")
    }
  }
  if (answer.kind === "stream") {
    // nothing dropped: each chunk key beside the turn, by its last value, in the answer's detail
    const kept = (r.detail?.[format] ?? {}) as Json
    for (const [key, value] of Object.entries(streamRest(answer.events!))) {
      assert.deepStrictEqual(kept[key], value, `the stream's ${key}`)
    }
    const firstId = answer.events!.map((e) => (e as Json)["id"]).find((id) => typeof id === "string" && id !== "")
    assert.strictEqual(r.id, firstId, "the completion's id")
    const firstModel = answer.events!.map((e) => (e as Json)["model"]).find((m) => typeof m === "string" && m !== "")
    assert.strictEqual(r.model, firstModel, "the model")
  }
  if (answer.kind === "response") {
    // nothing dropped: the message's keys not read are in its detail, the completion's and the
    // choice's in the answer's
    const body = answer.body as Json
    assert.deepStrictEqual([r.id, r.model], [body["id"] || undefined, body["model"] || undefined], "id, model")
    const choice = (body["choices"] as Array<Json>)[0]!
    for (const [key, value] of Object.entries(restOf(choice["message"], messageKeys) ?? {})) {
      assert.deepStrictEqual(kept[key], value, `the message's ${key}`)
    }
    const rawCalls = (choice["message"]["tool_calls"] ?? []) as Array<Json>
    for (const [k, raw] of rawCalls.entries()) {
      for (
        const [key, value] of Object.entries(restOf(raw, ["id", "type", "function", "extra_content", "index"]) ?? {})
      ) {
        assert.deepStrictEqual((calls[k]!.detail?.[format] as Json | undefined)?.[key], value, `call ${k}'s ${key}`)
      }
    }
    const choiceRest = restOf(choice, ["index", "finish_reason", "message", "error"])
    const answerRest = { ...restOf(body, envelopeKeys), ...(choiceRest === undefined ? {} : { choice: choiceRest }) }
    assert.deepStrictEqual(
      r.detail?.[format],
      Object.keys(answerRest).length === 0 ? undefined : answerRest,
      "the completion's other keys"
    )
  }
}

/**
 * A stream's chunks, read plainly for what the answer keeps beside the turn: each key of a chunk
 * (other than what the turn is made of, and OpenAI's per-chunk `obfuscation` padding) by its last
 * value that holds something (objects by every key sent), the usage record included.
 */
const streamRest = (events: ReadonlyArray<unknown>): Json => {
  const out: Json = {}
  for (const event of events) {
    if (!isRecord(event)) continue
    for (const [key, value] of Object.entries(restOf(event, [...envelopeKeys, "obfuscation", "object"]) ?? {})) {
      // an object sent again adds its keys to what came before (Groq's x_groq: seed, then usage)
      out[key] = isRecord(out[key]) && isRecord(value) ? { ...out[key], ...value } : value
    }
  }
  return out
}

/** The keys of `record` outside `known` that hold something (not `null` or `[]`), if any. */
const restOf = (record: Json, known: ReadonlyArray<string>): Json | undefined => {
  const out: Json = {}
  for (const [key, value] of Object.entries(record)) {
    if (known.includes(key) || value === null || value === undefined) continue
    if (Array.isArray(value) && value.length === 0) continue
    out[key] = value
  }
  return Object.keys(out).length === 0 ? undefined : out
}

/** A message's keys that hold the turn itself: content, refusal, reasoning, calls (and the role). */
const messageKeys = [
  "role",
  "content",
  "refusal",
  "reasoning_content",
  "reasoning",
  "reasoning_details",
  "tool_calls",
  "function_call",
  "audio",
  "extra_content"
]

/** A completion's keys read into the answer itself. */
const envelopeKeys = ["choices", "id", "model", "error", ...answerKeyNames]
