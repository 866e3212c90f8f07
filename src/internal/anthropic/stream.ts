/**
 * Anthropic Messages streaming: `MessageStreamEvent`s folded back into the `Message` they stand
 * for, then read by {@link decodeResponse}, so a streamed answer decodes exactly as the same answer
 * sent whole.
 *
 * `message_start` carries the message without content; each block starts with
 * `content_block_start` at its `index` and grows by `content_block_delta`s: `text_delta` and
 * `thinking_delta` append, `signature_delta` sets the signature, `input_json_delta` pieces are
 * joined and parsed at `content_block_stop` (no pieces is `{}`; pieces that are no JSON object an
 * `InvalidToolArguments`, or with `invalidToolArguments: "keep"` a call marked as such), `citations_delta` adds a citation.
 * `message_delta` sets the stop reason and overwrites the usage counts it carries (they are running
 * totals); `message_stop` ends the message. `ping` is skipped; an `error` event fails the stream.
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

interface State {
  message: Json | undefined
  readonly blocks: Map<number, { readonly block: Json; json: string | undefined; stopped: boolean }>
  stopped: boolean
  /** Keep a call whose `input_json_delta`s are no JSON object (the `invalidToolArguments` option). */
  readonly keepInvalid: boolean
  /** The calls kept so, by tool-use id. */
  readonly invalid: Map<string, Block.InvalidArguments>
}

const fail = (eventIndex: number, reason: string) =>
  new ConversionError.IncompleteStream({ format, eventIndex, reason })

const string = (u: unknown): string => typeof u === "string" ? u : ""

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
  if (state.stopped) return fail(index, `${withArticle(type)} event after message_stop`)
  if (type === "message_start") {
    if (state.message !== undefined) return fail(index, "a second message_start")
    const message = event["message"]
    if (!R.isRecord(message)) return R.malformedAt(format, [index, "message"], "expected the message object")
    const copied = Input.copyJsonObject(message, 0)
    if (copied === undefined) return R.malformedAt(format, [index, "message"], "expected a JSON message")
    state.message = { ...copied, content: [] }
    return undefined
  }
  if (state.message === undefined) return fail(index, `${withArticle(type)} event before message_start`)
  switch (type) {
    case "content_block_start": {
      const at = event["index"]
      const block = event["content_block"]
      if (typeof at !== "number" || !R.isRecord(block)) {
        return R.malformedAt(format, [index], "expected {index, content_block}")
      }
      if (state.blocks.has(at)) return fail(index, `block ${at} started twice`)
      const copied = Input.copyJsonObject(block, 0)
      if (copied === undefined) return R.malformedAt(format, [index, "content_block"], "expected a JSON block")
      state.blocks.set(at, { block: copied, json: undefined, stopped: false })
      return undefined
    }
    case "content_block_delta": {
      const at = event["index"]
      const delta = event["delta"]
      const entry = typeof at === "number" ? state.blocks.get(at) : undefined
      if (!R.isRecord(delta)) return R.malformedAt(format, [index, "delta"], "expected a delta object")
      if (entry === undefined || entry.stopped) return fail(index, `a delta for block ${String(at)}, which is not open`)
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
        default:
          return fail(index, `unknown delta type ${JSON.stringify(String(delta["type"]))}`)
      }
    }
    case "content_block_stop": {
      const at = event["index"]
      const entry = typeof at === "number" ? state.blocks.get(at) : undefined
      if (entry === undefined || entry.stopped) return fail(index, `a stop for block ${String(at)}, which is not open`)
      entry.stopped = true
      if (entry.json !== undefined) {
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
          const blockIndex = at as number
          return new ConversionError.InvalidToolArguments({
            format,
            path: ["content", blockIndex, "input"],
            messageIndex: 0,
            blockIndex,
            raw,
            reason: input.left
          })
        }
        entry.block["input"] = input.right
      }
      return undefined
    }
    case "message_delta": {
      const delta = R.isRecord(event["delta"]) ? event["delta"] : {}
      for (const key of ["stop_reason", "stop_sequence", "stop_details", "container"]) {
        if (key in delta) state.message[key] = Input.copyJson(delta[key], 0) ?? null
      }
      const usage = event["usage"]
      if (R.isRecord(usage)) {
        const current = R.isRecord(state.message["usage"]) ? state.message["usage"] : {}
        const next: Json = { ...current }
        for (const [key, value] of Object.entries(usage)) {
          if (value !== null && value !== undefined) next[key] = Input.copyJson(value, 0) ?? null
        }
        state.message["usage"] = next
      }
      return undefined
    }
    case "message_stop":
      state.stopped = true
      return undefined
    default:
      return fail(index, `unknown event type ${JSON.stringify(type)}`)
  }
}

/** The `Message` the events stand for, or why there is none. */
export const assemble = (state: State): Either.Either<Json, ConversionError.IncompleteStream> => {
  if (state.message === undefined || !state.stopped) {
    return Either.left(
      new ConversionError.IncompleteStream({
        format,
        reason: `the stream ended before ${state.message === undefined ? "message_start" : "message_stop"}: ` +
          "it was interrupted"
      })
    )
  }
  const content: Array<Json> = []
  const indices = [...state.blocks.keys()].sort((a, b) => a - b)
  for (const [k, at] of indices.entries()) {
    const entry = state.blocks.get(at)!
    if (at !== k || !entry.stopped) {
      return Either.left(
        new ConversionError.IncompleteStream({
          format,
          reason: at !== k ? `block ${k} never started` : `block ${at} never stopped`
        })
      )
    }
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
      message: undefined,
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
