/**
 * Chat Completions streaming: `chat.completion.chunk` events folded back into the `chat.completion`
 * they stand for, then read by {@link decodeResponse}, so a streamed answer decodes exactly as the
 * same answer sent whole.
 *
 * Per choice (keyed by `index`): `content`, `refusal`, `reasoning_content` and `reasoning` fragments
 * are concatenated; `content` sent as a list of parts (Mistral's `thinking` and `text` parts) is
 * kept as parts, a part continuing the one before it when they are of one type; `annotations` (and
 * OpenRouter's generated `images`) are appended; OpenRouter `reasoning_details` fragments are merged
 * by `index` and `type`. Tool calls
 * are keyed by their own `index`, the first fragment carrying `id`, `type` and `function.name`, later
 * ones pieces of `function.arguments`; a fragment without `index` (Mistral sends each call whole in
 * one) is the call with its `id`, or a new one, or, with no id either (or an empty one, as Gemini's
 * OpenAI-compatible endpoint sends), a new call when it names a function, else the last call. Any
 * other key of a delta or of a tool-call fragment (Gemini's `extra_content`, ...) keeps its last
 * value (an object merged over the one before it, key by key); `role`, `index` and `channel` (Groq's harmony channel of a fragment) describe the fragment
 * only.
 *
 * `finish_reason` arrives on the last chunk of a choice that holds content. After it a provider may
 * send more chunks for the choice, with no content: OpenRouter repeats the finish reason, or sends
 * one more chunk with an empty delta and the usage; they are read (their usage, `logprobs`, ...), and
 * a chunk after it that still holds content is an `IncompleteStream`. `usage` comes on a last chunk
 * with no choices (`stream_options.include_usage`), or on a trailing one. A chunk with an `error`
 * (OpenRouter's error mid-stream, OpenAI's `{error}` event) is the provider's error.
 *
 * The completion's other keys (`system_fingerprint`, `service_tier`, Perplexity's `citations`, ...)
 * keep their last value, an object merged over the one before it key by key (Groq's `x_groq`: the
 * `seed` of the first chunk, the `usage` of the last); OpenAI's `obfuscation` padding differs per
 * chunk and is not kept. A choice's other keys keep their last value too, `logprobs` lists
 * appended.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import * as ConversionError from "../../ConversionError.js"
import type * as ModelResponse from "../../ModelResponse.js"
import type * as OpenAiFormat from "../../OpenAiFormat.js"
import * as Decoder from "../decoder.js"
import * as R from "../response.js"
import * as Input from "../wireInput.js"
import type { Format } from "./decode.js"
import { decodeResponse } from "./response.js"

const Part = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const ToolCallDelta = Schema.Struct({
  index: R.optional(Schema.Number),
  id: R.optional(Schema.String),
  type: R.optional(Schema.String),
  function: R.optional(Schema.Struct({ name: R.optional(Schema.String), arguments: R.optional(Schema.String) })),
  extra_content: Schema.optionalWith(Schema.Unknown, { exact: true })
})

const Delta = Schema.Struct({
  content: R.optional(Schema.Union(Schema.String, Schema.Array(Part))),
  refusal: R.optional(Schema.String),
  reasoning_content: R.optional(Schema.String),
  reasoning: R.optional(Schema.String),
  reasoning_details: R.optional(Schema.Array(Part)),
  tool_calls: R.optional(Schema.Array(ToolCallDelta)),
  annotations: R.optional(Schema.Array(Schema.Unknown)),
  /** OpenRouter: the images an image-generation model made, each on the delta that brings it. */
  images: R.optional(Schema.Array(Schema.Unknown)),
  function_call: Schema.optionalWith(Schema.Unknown, { exact: true }),
  audio: Schema.optionalWith(Schema.Unknown, { exact: true })
})

const Chunk = Schema.Struct({
  id: R.optional(Schema.String),
  model: R.optional(Schema.String),
  choices: R.optional(Schema.Array(Schema.Struct({
    /** The choice's index; servers that leave it out send one choice a chunk, at its place. */
    index: R.optional(Schema.Number),
    delta: R.optional(Delta),
    finish_reason: R.optional(Schema.String),
    error: Schema.optionalWith(Schema.Unknown, { exact: true })
  }))),
  usage: Schema.optionalWith(Schema.Unknown, { exact: true }),
  error: Schema.optionalWith(Schema.Unknown, { exact: true })
})

const decodeChunk = Decoder.shape(Chunk, { onExcessProperty: "ignore" }).decode

type Json = Record<string, unknown>

interface ToolCallState {
  id: string | undefined
  type: string | undefined
  name: string | undefined
  arguments: string
  extra_content: unknown
  /** The fragments' other keys, by their last value. */
  readonly extra: Map<string, unknown>
}

interface ChoiceState {
  readonly index: number
  content: string | null
  /** The content as parts, once a delta sent parts (Mistral). */
  parts: Array<unknown> | undefined
  refusal: string | null
  reasoning_content: string | undefined
  reasoning: string | undefined
  readonly reasoning_details: Array<Json>
  readonly calls: Array<ToolCallState>
  readonly byIndex: Map<number, ToolCallState>
  readonly byId: Map<string, ToolCallState>
  readonly annotations: Array<unknown>
  readonly images: Array<unknown>
  function_call: unknown
  audio: unknown
  /** The delta's other keys, by their last value. */
  readonly extra: Map<string, unknown>
  /** The choice's other keys (`logprobs`, `native_finish_reason`, ...), by their last value. */
  readonly choiceExtra: Map<string, unknown>
  error: unknown
  finish_reason: string | undefined
}

interface State {
  readonly format: Format
  events: number
  id: string | undefined
  model: string | undefined
  readonly choices: Map<number, ChoiceState>
  usage: unknown
  /** The chunk's other keys, by their last value. */
  readonly extra: Map<string, unknown>
}

// the keys of a chunk, a choice and a delta read above, or describing the event only
const chunkKeys: ReadonlySet<string> = new Set(["id", "model", "object", "choices", "usage", "error", "obfuscation"])
const choiceKeys: ReadonlySet<string> = new Set(["index", "delta", "finish_reason", "error"])
const deltaKeys: ReadonlySet<string> = new Set([
  "content",
  "refusal",
  "reasoning_content",
  "reasoning",
  "reasoning_details",
  "tool_calls",
  "annotations",
  "images",
  "function_call",
  "audio",
  "role",
  "index",
  "channel"
])

const append = (a: string | undefined, b: string | null | undefined): string | undefined =>
  b === null || b === undefined ? a : (a ?? "") + b

/** The keys of a tool-call fragment read above (`index` only places it). */
const callKeys: ReadonlySet<string> = new Set(["index", "id", "type", "function", "extra_content"])

/**
 * Keep the keys of `record` outside `known` by their last value; an object merges over the object
 * kept before it, key by key (Groq's `x_groq` brings the `seed` on the first chunk and the `usage`
 * on the last).
 */
const keepLast = (into: Map<string, unknown>, record: Json, known: ReadonlySet<string>): void => {
  for (const key of Object.keys(record)) {
    if (known.has(key)) continue
    const value = record[key]
    if (value === undefined || value === null) continue
    const before = into.get(key)
    into.set(key, R.isRecord(before) && R.isRecord(value) ? { ...before, ...value } : value)
  }
}

const mergeDetail = (details: Array<Json>, piece: Json): void => {
  const last = details[details.length - 1]
  if (last === undefined || last["type"] !== piece["type"] || last["index"] !== piece["index"]) {
    details.push({ ...piece })
    return
  }
  for (const [key, value] of Object.entries(piece)) {
    const previous = last[key]
    if ((key === "text" || key === "summary" || key === "data") && typeof value === "string") {
      last[key] = typeof previous === "string" ? previous + value : value
    } else if (value !== null && value !== undefined) {
      last[key] = value
    }
  }
}

/**
 * Append a content part: a `text` part continues a `text` part before it, a `thinking` part a
 * `thinking` part (its text chunks continuing each other in turn); any other part stands alone.
 */
const appendPart = (parts: Array<unknown>, part: unknown): void => {
  if (!R.isRecord(part)) {
    parts.push(part)
    return
  }
  const last = parts[parts.length - 1]
  if (R.isRecord(last) && last["type"] === part["type"]) {
    if (part["type"] === "text" && typeof last["text"] === "string" && typeof part["text"] === "string") {
      ;(last as Json)["text"] = last["text"] + part["text"]
      return
    }
    if (part["type"] === "thinking" && Array.isArray(last["thinking"]) && Array.isArray(part["thinking"])) {
      for (const chunk of part["thinking"] as Array<unknown>) appendPart(last["thinking"] as Array<unknown>, chunk)
      return
    }
  }
  // a copy, so that the fold never changes the events it reads
  parts.push(
    Array.isArray(part["thinking"])
      ? { ...part, thinking: (part["thinking"] as Array<unknown>).map((c) => R.isRecord(c) ? { ...c } : c) }
      : { ...part }
  )
}

/** Does a delta add anything to the turn? (A trailing chunk after `finish_reason` must not.) */
const holdsContent = (delta: typeof Delta.Type): boolean =>
  (typeof delta.content === "string" ? delta.content !== "" : (delta.content?.length ?? 0) > 0) ||
  (delta.refusal ?? "") !== "" || (delta.reasoning_content ?? "") !== "" || (delta.reasoning ?? "") !== "" ||
  (delta.reasoning_details?.length ?? 0) > 0 || (delta.tool_calls?.length ?? 0) > 0 ||
  (delta.annotations?.length ?? 0) > 0 || (delta.images?.length ?? 0) > 0 ||
  (delta.function_call !== undefined && delta.function_call !== null) ||
  (delta.audio !== undefined && delta.audio !== null)

const newChoice = (index: number): ChoiceState => ({
  index,
  content: null,
  parts: undefined,
  refusal: null,
  reasoning_content: undefined,
  reasoning: undefined,
  reasoning_details: [],
  calls: [],
  byIndex: new Map(),
  byId: new Map(),
  annotations: [],
  images: [],
  function_call: undefined,
  audio: undefined,
  extra: new Map(),
  choiceExtra: new Map(),
  error: undefined,
  finish_reason: undefined
})

/** The tool call a fragment belongs to (see the module's documentation), created when new. */
const callOf = (choice: ChoiceState, fragment: typeof ToolCallDelta.Type): ToolCallState => {
  const id = typeof fragment.id === "string" && fragment.id !== "" ? fragment.id : undefined
  const index = fragment.index ?? undefined
  const last = choice.calls[choice.calls.length - 1]
  // with neither, a fragment naming a function after a named call starts a new call (only a call's
  // first fragment names it), and any other continues the last call
  const named = typeof fragment.function?.name === "string" && fragment.function.name !== ""
  let call = index !== undefined
    ? choice.byIndex.get(index)
    : id !== undefined
    ? choice.byId.get(id)
    : named && last?.name !== undefined
    ? undefined
    : last
  // a fragment at a known index with another call's id starts a new call (servers that number
  // every call 0)
  if (call !== undefined && id !== undefined && call.id !== undefined && call.id !== id) call = undefined
  if (call === undefined) {
    call = {
      id: undefined,
      type: undefined,
      name: undefined,
      arguments: "",
      extra_content: undefined,
      extra: new Map()
    }
    choice.calls.push(call)
  }
  if (index !== undefined) choice.byIndex.set(index, call)
  if (id !== undefined) choice.byId.set(id, call)
  return call
}

const readDelta = (choice: ChoiceState, delta: typeof Delta.Type, raw: Json): void => {
  const content = delta.content
  if (Array.isArray(content)) {
    if (choice.parts === undefined) {
      choice.parts = choice.content === null || choice.content === "" ? [] : [{ type: "text", text: choice.content }]
      choice.content = null
    }
    for (const part of content) appendPart(choice.parts, part)
  } else if (typeof content === "string") {
    if (choice.parts === undefined) choice.content = append(choice.content ?? undefined, content) ?? null
    else if (content !== "") appendPart(choice.parts, { type: "text", text: content })
  }
  choice.refusal = append(choice.refusal ?? undefined, delta.refusal) ?? null
  choice.reasoning_content = append(choice.reasoning_content, delta.reasoning_content)
  choice.reasoning = append(choice.reasoning, delta.reasoning)
  for (const piece of delta.reasoning_details ?? []) mergeDetail(choice.reasoning_details, piece)
  for (const annotation of delta.annotations ?? []) choice.annotations.push(annotation)
  for (const image of delta.images ?? []) choice.images.push(image)
  if (delta.function_call !== undefined && delta.function_call !== null) choice.function_call = delta.function_call
  if (delta.audio !== undefined && delta.audio !== null) choice.audio = delta.audio
  const rawCalls = Array.isArray(raw["tool_calls"]) ? raw["tool_calls"] as ReadonlyArray<unknown> : []
  for (const [k, fragment] of (delta.tool_calls ?? []).entries()) {
    const call = callOf(choice, fragment)
    const rawCall = rawCalls[k]
    if (R.isRecord(rawCall)) keepLast(call.extra, rawCall, callKeys)
    if (typeof fragment.id === "string" && fragment.id.length > 0) call.id = fragment.id
    if (typeof fragment.type === "string") call.type = fragment.type
    if (typeof fragment.function?.name === "string" && fragment.function.name.length > 0) {
      call.name = fragment.function.name
    }
    call.arguments += fragment.function?.arguments ?? ""
    if (fragment.extra_content !== undefined && fragment.extra_content !== null) {
      call.extra_content = fragment.extra_content
    }
  }
  keepLast(choice.extra, raw, deltaKeys)
}

/** Append `logprobs` lists (`content`, `refusal`), keep the rest of it by its last value. */
const mergeLogprobs = (choice: ChoiceState, logprobs: unknown): void => {
  if (!R.isRecord(logprobs)) return
  const previous = choice.choiceExtra.get("logprobs")
  const merged: Json = R.isRecord(previous) ? { ...previous } : {}
  for (const [key, value] of Object.entries(logprobs)) {
    const before = merged[key]
    if (Array.isArray(value) && Array.isArray(before)) merged[key] = [...before, ...value]
    else if (value !== undefined && (value !== null || before === undefined)) merged[key] = value
  }
  choice.choiceExtra.set("logprobs", merged)
}

const step = (state: State, event: unknown, index: number): ConversionError.ResponseError | undefined => {
  state.events++
  const decoded = decodeChunk(event)
  if (Either.isLeft(decoded)) return R.rebase(Input.malformed(decoded.left, state.format, R.envelope), 0, [index])
  const chunk = decoded.right
  const raw = event as Json
  if (chunk.error !== undefined && chunk.error !== null) {
    return R.providerError(state.format, chunk.error, [index, "error"], index)
  }
  // the first id and model that say something (Azure's first chunk, its prompt filter results,
  // has `id: ""` and `model: ""`)
  if (state.id === undefined && chunk.id !== undefined && chunk.id !== null && chunk.id !== "") state.id = chunk.id
  if (state.model === undefined && chunk.model !== undefined && chunk.model !== null && chunk.model !== "") {
    state.model = chunk.model
  }
  if (chunk.usage !== undefined && chunk.usage !== null) state.usage = chunk.usage
  keepLast(state.extra, raw, chunkKeys)
  const rawChoices = raw["choices"] as ReadonlyArray<Json> | undefined
  for (const [position, c] of (chunk.choices ?? []).entries()) {
    const at = c.index ?? position
    let choice = state.choices.get(at)
    if (choice === undefined) {
      choice = newChoice(at)
      state.choices.set(at, choice)
    }
    const delta = c.delta ?? undefined
    const finish = c.finish_reason ?? undefined
    if (choice.finish_reason !== undefined) {
      if (delta !== undefined && holdsContent(delta)) {
        return new ConversionError.IncompleteStream({
          format: state.format,
          eventIndex: index,
          reason: `choice ${at} goes on after its finish_reason`
        })
      }
      if (finish !== undefined && finish !== choice.finish_reason) {
        return new ConversionError.IncompleteStream({
          format: state.format,
          eventIndex: index,
          reason: `choice ${at} finishes twice (${choice.finish_reason}, then ${finish})`
        })
      }
    }
    const rawChoice = rawChoices?.[position] ?? {}
    if (delta !== undefined) readDelta(choice, delta, (rawChoice["delta"] ?? {}) as Json)
    for (const key of Object.keys(rawChoice)) {
      if (choiceKeys.has(key)) continue
      if (key === "logprobs") mergeLogprobs(choice, rawChoice[key])
      else if (rawChoice[key] !== undefined && rawChoice[key] !== null) choice.choiceExtra.set(key, rawChoice[key])
    }
    if (c.error !== undefined && c.error !== null) choice.error = c.error
    if (finish !== undefined) choice.finish_reason = finish
  }
  return undefined
}

const messageOf = (choice: ChoiceState): Json => {
  const message: Json = {
    role: "assistant",
    content: choice.parts ?? choice.content,
    refusal: choice.refusal
  }
  if (choice.reasoning_content !== undefined) message["reasoning_content"] = choice.reasoning_content
  if (choice.reasoning !== undefined) message["reasoning"] = choice.reasoning
  if (choice.reasoning_details.length > 0) message["reasoning_details"] = choice.reasoning_details
  if (choice.function_call !== undefined) message["function_call"] = choice.function_call
  if (choice.audio !== undefined) message["audio"] = choice.audio
  if (choice.annotations.length > 0) message["annotations"] = choice.annotations
  if (choice.images.length > 0) message["images"] = choice.images
  for (const [key, value] of choice.extra) message[key] = value
  return message
}

/** The `chat.completion` the chunks stand for, or why there is none. */
export const assemble = (state: State): Either.Either<Json, ConversionError.IncompleteStream> => {
  if (state.events === 0) {
    return Either.left(
      new ConversionError.IncompleteStream({ format: state.format, reason: "the stream holds no chunk" })
    )
  }
  const choices: Array<Json> = []
  for (const choice of [...state.choices.values()].sort((a, b) => a.index - b.index)) {
    if (choice.finish_reason === undefined) {
      return Either.left(
        new ConversionError.IncompleteStream({
          format: state.format,
          reason: `the stream ended before choice ${choice.index} finished (no finish_reason): it was interrupted`
        })
      )
    }
    const message = messageOf(choice)
    if (choice.calls.length > 0) {
      const calls: Array<Json> = []
      for (const [k, call] of choice.calls.entries()) {
        if (call.name === undefined) {
          return Either.left(
            new ConversionError.IncompleteStream({
              format: state.format,
              reason: `tool call ${k} of choice ${choice.index} never got its name`
            })
          )
        }
        // a call that never got an id (Gemini sends "") gets one made by decodeResponse
        calls.push({
          id: call.id ?? "",
          type: call.type ?? "function",
          function: { name: call.name, arguments: call.arguments },
          ...(call.extra_content === undefined ? {} : { extra_content: call.extra_content }),
          ...Object.fromEntries(call.extra)
        })
      }
      message["tool_calls"] = calls
    }
    choices.push({
      index: choice.index,
      finish_reason: choice.finish_reason,
      message,
      ...(choice.error === undefined ? {} : { error: choice.error }),
      ...Object.fromEntries(choice.choiceExtra)
    })
  }
  const completion: Json = { object: "chat.completion", choices }
  if (state.id !== undefined) completion["id"] = state.id
  if (state.model !== undefined) completion["model"] = state.model
  if (state.usage !== undefined) completion["usage"] = state.usage
  for (const [key, value] of state.extra) completion[key] = value
  return Either.right(completion)
}

/** Fold a stream of `chat.completion.chunk` events into one response. */
export const decodeStream = <E, R>(
  format: Format,
  events: Stream.Stream<unknown, E, R>,
  options: OpenAiFormat.ResponseOptions = {}
): Effect.Effect<ModelResponse.ModelResponse, E | ConversionError.ResponseError, R> =>
  R.fold(
    format,
    events,
    (): State => ({
      format,
      events: 0,
      id: undefined,
      model: undefined,
      choices: new Map(),
      usage: undefined,
      extra: new Map()
    }),
    step,
    (state) => {
      const completion = assemble(state)
      return Either.isLeft(completion)
        ? Either.left(completion.left)
        : decodeResponse(format, completion.right, options)
    }
  )
