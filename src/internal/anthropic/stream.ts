/**
 * Anthropic Messages streaming: `MessageStreamEvent`s folded back into the `Message` they stand
 * for, then read by {@link decodeResponse}, so a streamed answer decodes exactly as the same answer
 * sent whole.
 *
 * `message_start` carries the message, usually without content (blocks it does carry are the
 * message's first, complete); each block starts with `content_block_start` at its `index` and grows
 * by `content_block_delta`s: `text_delta`, `thinking_delta` and `compaction_delta` append,
 * `signature_delta` sets the signature, `input_json_delta` pieces are joined and parsed at
 * `content_block_stop` (no pieces is `{}`; pieces that are no JSON object an `InvalidToolArguments`, or
 * with `invalidToolArguments: "keep"` a call marked as such), `citations_delta` adds a citation. A delta of any other
 * type cannot be folded into its block: `UnsupportedContent` naming it. `message_delta` sets what
 * its `delta` carries (the stop reason, `container`, ...) and any other field it carries
 * (`context_management`), and overwrites the usage counts it carries (they are running totals);
 * `message_stop` ends the message. `ping` is skipped; an `error` event fails the stream.
 *
 * A stream carries one message. A `message_start` repeated exactly while its message is open (some
 * proxies send one twice) is skipped; another message starting while one is open is a splice of
 * two answers (`IncompleteStream`, naming both). Messages one after another are separate answers (a
 * recording of several requests' streams in one file, say): the stream is read through, and without
 * the `message` option to choose one it is `MultipleChoices`, naming every message. They are never
 * folded into one turn: the tool calls of the first would be answered twice.
 *
 * @internal
 */
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Stream from "effect/Stream"
import * as Block from "../../Block.js"
import * as ConversionError from "../../ConversionError.js"
import type * as ModelResponse from "../../ModelResponse.js"
import { withArticle } from "../article.js"
import * as R from "../response.js"
import * as Input from "../wireInput.js"
import { decodeResponse, type ResponseOptions } from "./response.js"

const format = "anthropic" as const

type Json = Record<string, unknown>

interface Entry {
  readonly block: Json
  json: string | undefined
  stopped: boolean
}

interface State {
  /** The message to read (the `message` option), or the only one. */
  readonly wanted: number | undefined
  /** Messages started so far, and their ids. */
  readonly ids: Array<string>
  /** Is a message open (started, not stopped)? */
  open: boolean
  /** The `message` of the open message's `message_start`, as JSON: an exact repeat is skipped. */
  start: string | undefined
  /** The message read: its fields, its blocks that `message_start` carried, and its streamed blocks. */
  message: Json | undefined
  initial: Array<Json>
  readonly blocks: Map<number, Entry>
  stopped: boolean
  /** Keep a call whose `input_json_delta`s are no JSON object (the `invalidToolArguments` option). */
  readonly keepInvalid: boolean
  /** The calls kept so, by tool-use id. */
  readonly invalid: Map<string, Block.InvalidArguments>
}

const fail = (eventIndex: number, reason: string) =>
  new ConversionError.IncompleteStream({ format, eventIndex, reason })

const string = (u: unknown): string => typeof u === "string" ? u : ""

const idOf = (message: Json): string => typeof message["id"] === "string" ? message["id"] : "(no id)"

/** Is the open message the one read? */
const reading = (state: State): boolean => state.ids.length - 1 === (state.wanted ?? 0)

const messageStart = (state: State, event: Json, index: number): ConversionError.ResponseError | undefined => {
  const message = event["message"]
  if (!R.isRecord(message)) return R.malformedAt(format, [index, "message"], "expected the message object")
  const json = JSON.stringify(message)
  if (state.open) {
    if (json === state.start) return undefined
    return fail(
      index,
      `message ${idOf(message)} starts while message ${state.ids[state.ids.length - 1]} is still open (no ` +
        "message_stop came): the stream splices two answers"
    )
  }
  state.ids.push(idOf(message))
  state.open = true
  state.start = json
  if (!reading(state)) return undefined
  const copied = Input.copyJsonObject(message, 0)
  if (copied === undefined) return R.malformedAt(format, [index, "message"], "expected a JSON message")
  const { content, ...fields } = copied
  if (content !== undefined && !Array.isArray(content)) {
    return R.malformedAt(format, [index, "message", "content"], "expected an array of content blocks")
  }
  for (const [k, block] of (content ?? []).entries()) {
    if (!R.isRecord(block)) return R.malformedAt(format, [index, "message", "content", k], "expected a block")
    state.initial.push(block)
  }
  state.message = fields
  return undefined
}

const delta = (
  entry: Entry,
  at: number,
  delta: Json,
  index: number
): ConversionError.ResponseError | undefined => {
  const block = entry.block
  switch (delta["type"]) {
    case "text_delta":
      block["text"] = string(block["text"]) + string(delta["text"])
      return undefined
    case "thinking_delta":
      block["thinking"] = string(block["thinking"]) + string(delta["thinking"])
      return undefined
    case "signature_delta":
      block["signature"] = string(delta["signature"])
      return undefined
    case "input_json_delta":
      entry.json = (entry.json ?? "") + string(delta["partial_json"])
      return undefined
    case "citations_delta": {
      const citation = Input.copyJson(delta["citation"], 0)
      if (citation === undefined) return R.malformedAt(format, [index, "delta", "citation"], "expected JSON")
      block["citations"] = [...(Array.isArray(block["citations"]) ? block["citations"] : []), citation]
      return undefined
    }
    case "compaction_delta":
      // a compaction block starts with `content: null`; its summary comes in deltas
      block["content"] = string(block["content"]) + string(delta["content"])
      return undefined
    default: {
      const type = typeof delta["type"] === "string" ? delta["type"] : String(delta["type"])
      return new ConversionError.UnsupportedContent({
        format,
        path: [index, "delta"],
        messageIndex: 0,
        blockIndex: at,
        contentType: type,
        reason: `a delta of a type this library does not read, for block ${at} (${
          withArticle(JSON.stringify(string(block["type"])))
        } block): the block cannot be assembled from it`
      })
    }
  }
}

const blockStop = (state: State, entry: Entry, at: number): ConversionError.ResponseError | undefined => {
  entry.stopped = true
  if (entry.json === undefined) return undefined
  const raw = entry.json
  const input = raw.trim().length === 0 ? Either.right({}) : Input.parseToolArguments(raw)
  if (Either.isLeft(input)) {
    const id = entry.block["id"]
    if (state.keepInvalid && typeof id === "string" && !state.invalid.has(id)) {
      // read as a call with input {}, then marked (see decodeStream)
      state.invalid.set(id, { raw, reason: input.left })
      entry.block["input"] = {}
      return undefined
    }
    return new ConversionError.InvalidToolArguments({
      format,
      path: ["content", at, "input"],
      messageIndex: 0,
      blockIndex: at,
      raw,
      reason: input.left
    })
  }
  entry.block["input"] = input.right
  return undefined
}

const messageDelta = (message: Json, event: Json): void => {
  const delta = R.isRecord(event["delta"]) ? event["delta"] : {}
  for (const key of Object.keys(delta)) message[key] = Input.copyJson(delta[key], 0) ?? null
  // what else the event carries (`context_management`) belongs to the message too
  for (const key of Object.keys(event)) {
    if (key !== "type" && key !== "delta" && key !== "usage") message[key] = Input.copyJson(event[key], 0) ?? null
  }
  const usage = event["usage"]
  if (R.isRecord(usage)) {
    const current = R.isRecord(message["usage"]) ? message["usage"] : {}
    const next: Json = { ...current }
    for (const [key, value] of Object.entries(usage)) {
      if (value !== null && value !== undefined) next[key] = Input.copyJson(value, 0) ?? null
    }
    message["usage"] = next
  }
}

const step = (state: State, event: unknown, index: number): ConversionError.ResponseError | undefined => {
  if (!R.isRecord(event) || typeof event["type"] !== "string") {
    return R.malformedAt(format, [index], "expected a stream event {type, ...}")
  }
  const type = event["type"]
  if (type === "ping") return undefined
  if (type === "error") {
    const error = R.isRecord(event["error"]) ? event["error"] : {}
    return fail(index, `the provider sent an error event: ${string(error["type"])} ${string(error["message"])}`.trim())
  }
  if (type === "message_start") return messageStart(state, event, index)
  if (!state.open) {
    return fail(
      index,
      `${withArticle(type)} event ${state.ids.length === 0 ? "before message_start" : "after message_stop"}`
    )
  }
  if (type === "message_stop") {
    state.open = false
    if (reading(state)) state.stopped = true
    return undefined
  }
  // the events of a message not read are passed over
  if (!reading(state)) return undefined
  const message = state.message!
  switch (type) {
    case "content_block_start": {
      const at = event["index"]
      const block = event["content_block"]
      if (typeof at !== "number" || !R.isRecord(block)) {
        return R.malformedAt(format, [index], "expected {index, content_block}")
      }
      if (state.blocks.has(at) || (at >= 0 && at < state.initial.length)) {
        return fail(index, `block ${at} started twice`)
      }
      const copied = Input.copyJsonObject(block, 0)
      if (copied === undefined) return R.malformedAt(format, [index, "content_block"], "expected a JSON block")
      state.blocks.set(at, { block: copied, json: undefined, stopped: false })
      return undefined
    }
    case "content_block_delta": {
      const at = event["index"]
      const change = event["delta"]
      const entry = typeof at === "number" ? state.blocks.get(at) : undefined
      if (!R.isRecord(change)) return R.malformedAt(format, [index, "delta"], "expected a delta object")
      if (entry === undefined || entry.stopped) return fail(index, `a delta for block ${String(at)}, which is not open`)
      return delta(entry, at as number, change, index)
    }
    case "content_block_stop": {
      const at = event["index"]
      const entry = typeof at === "number" ? state.blocks.get(at) : undefined
      if (entry === undefined || entry.stopped) return fail(index, `a stop for block ${String(at)}, which is not open`)
      return blockStop(state, entry, at as number)
    }
    case "message_delta":
      messageDelta(message, event)
      return undefined
    default:
      return fail(index, `unknown event type ${JSON.stringify(type)}`)
  }
}

const incomplete = (reason: string) => Either.left(new ConversionError.IncompleteStream({ format, reason }))

/** The `Message` the events stand for, or why there is none. */
export const assemble = (state: State): Either.Either<Json, ConversionError.ResponseError> => {
  const count = state.ids.length
  if (count === 0) return incomplete("the stream ended before message_start: it was interrupted")
  if (state.wanted === undefined && count > 1) {
    return Either.left(
      new ConversionError.MultipleChoices({
        format,
        path: [],
        indices: state.ids.map((_, k) => k),
        reason:
          `the stream holds ${count} messages, one after another (${
            state.ids.join(", ")
          }): separate answers, which are never folded into one turn (the tool calls of one would be run again); ` +
          "say which one to read with the message option"
      })
    )
  }
  if (state.message === undefined) {
    return Either.left(
      new ConversionError.NoAnswer({
        format,
        path: [],
        reason: `the stream holds ${count} message(s), no message ${state.wanted} (message option)`
      })
    )
  }
  if (!state.stopped) return incomplete("the stream ended before message_stop: it was interrupted")
  const content: Array<Json> = [...state.initial]
  const indices = [...state.blocks.keys()].sort((a, b) => a - b)
  for (const [k, at] of indices.entries()) {
    const entry = state.blocks.get(at)!
    const expected = state.initial.length + k
    if (at !== expected) return incomplete(`block ${expected} never started`)
    if (!entry.stopped) return incomplete(`block ${at} never stopped`)
    content.push(entry.block)
  }
  return Either.right({ ...state.message, content })
}

/** Fold a stream of `MessageStreamEvent`s into one response. */
export const decodeStream = <E, R>(
  events: Stream.Stream<unknown, E, R>,
  options: ResponseOptions = {}
): Effect.Effect<ModelResponse.ModelResponse, E | ConversionError.ResponseError, R> =>
  R.fold(
    format,
    events,
    (): State => ({
      wanted: options.message,
      ids: [],
      open: false,
      start: undefined,
      message: undefined,
      initial: [],
      blocks: new Map(),
      stopped: false,
      keepInvalid: options.invalidToolArguments === "keep",
      invalid: new Map()
    }),
    step,
    (state) => {
      const message = assemble(state)
      if (Either.isLeft(message)) return Either.left(message.left)
      const decoded = decodeResponse(message.right, options)
      return state.invalid.size === 0
        ? decoded
        : Either.map(decoded, (response) => markInvalid(response, state.invalid))
    }
  )

/** The turn with each call kept with invalid arguments marked as such (`Block.invalidArguments`). */
const markInvalid = (
  response: ModelResponse.ModelResponse,
  invalid: ReadonlyMap<string, Block.InvalidArguments>
): ModelResponse.ModelResponse => {
  const blocks = response.message.blocks.map((block) => {
    const held = block.type === "tool_call" ? invalid.get(block.id) : undefined
    return held === undefined || block.type !== "tool_call"
      ? block
      : Block.toolCallWithInvalidArguments(block.id, block.name, held, { detail: block.detail })
  })
  return { ...response, message: { ...response.message, blocks } }
}
