/**
 * Folding a streamed Responses API answer (`ResponseStreamEvent`s) into a `ModelResponse`.
 *
 * The final turn is built from the finished items (`response.output_item.done`, or the output of
 * the final `response` when it carries one). An item that never finished is rebuilt from its
 * `output_item.added` value and the deltas that followed it, so that a stream whose final event
 * lists no output still gives the whole turn.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Stream from "effect/Stream"
import * as StreamModule from "effect/Stream"
import * as ConversionError from "../../ConversionError.js"
import type * as ModelResponse from "../../ModelResponse.js"
import type * as Format from "../../OpenAiResponsesFormat.js"
import { isRecord } from "../plain.js"
import * as R from "../response.js"
import { decodeResponse, type Error as ResponseError } from "./response.js"

/** What folding a stream can fail with: what reading its response can, or a stream that is not one. */
type Error = ResponseError | ConversionError.IncompleteStream

const format = "openai-responses" as const

type Json = { [key: string]: unknown }

interface State {
  readonly count: number
  /** The items by output index: finished ones as they were sent, others as rebuilt from deltas. */
  readonly items: Map<number, { done: boolean; item: Json }>
  final: Json | undefined
  failure: Error | undefined
}

const malformedEvent = (index: number, reason: string) =>
  new ConversionError.MalformedInput({ format, path: [index], messageIndex: index, reason })

const str = (u: unknown): string => typeof u === "string" ? u : ""

/** Apply a delta to the item it belongs to (by `output_index`), creating the nested part as needed. */
const applyDelta = (state: State, event: Json): void => {
  const index = event["output_index"]
  if (typeof index !== "number") return
  const entry = state.items.get(index)
  if (entry === undefined || entry.done) return
  const item = entry.item
  const type = event["type"]
  // a part at an index no earlier event made (not an integer, or beyond the next one) is left out: the
  // finished item (`response.output_item.done`) carries the whole part anyway
  const listAt = (key: string, i: unknown, make: () => Json): Json => {
    const list = Array.isArray(item[key]) ? (item[key] as Array<Json>) : (item[key] = [] as Array<Json>) as Array<Json>
    const k = typeof i === "number" ? i : 0
    if (!Number.isInteger(k) || k < 0 || k > list.length) return make()
    if (k === list.length) list.push(make())
    const part = list[k]
    return isRecord(part) ? part as Json : make()
  }
  switch (type) {
    case "response.output_text.delta": {
      const part = listAt("content", event["content_index"], () => ({ type: "output_text", text: "", annotations: [] }))
      part["text"] = str(part["text"]) + str(event["delta"])
      break
    }
    case "response.refusal.delta": {
      const part = listAt("content", event["content_index"], () => ({ type: "refusal", refusal: "" }))
      part["refusal"] = str(part["refusal"]) + str(event["delta"])
      break
    }
    case "response.reasoning_summary_text.delta": {
      const part = listAt("summary", event["summary_index"], () => ({ type: "summary_text", text: "" }))
      part["text"] = str(part["text"]) + str(event["delta"])
      break
    }
    case "response.reasoning_text.delta": {
      const part = listAt("content", event["content_index"], () => ({ type: "reasoning_text", text: "" }))
      part["text"] = str(part["text"]) + str(event["delta"])
      break
    }
    case "response.function_call_arguments.delta":
      item["arguments"] = str(item["arguments"]) + str(event["delta"])
      break
    case "response.function_call_arguments.done":
      item["arguments"] = str(event["arguments"])
      break
    case "response.output_text.annotation.added": {
      const part = listAt("content", event["content_index"], () => ({ type: "output_text", text: "", annotations: [] }))
      const annotations = Array.isArray(part["annotations"]) ? part["annotations"] : (part["annotations"] = [])
      ;(annotations as Array<unknown>).push(event["annotation"])
      break
    }
  }
}

const step = (state: State, event: unknown, index: number): State => {
  if (state.failure !== undefined) return state
  if (state.final !== undefined) {
    // a stream holds one response: whatever comes after its last event is not part of it, and a
    // second response is named so that the caller can split the stream
    const type = isRecord(event) && typeof event["type"] === "string" ? event["type"] : "an event"
    const next = isRecord(event) && isRecord(event["response"]) && typeof event["response"]["id"] === "string"
      ? ` of response ${event["response"]["id"]}`
      : ""
    state.failure = new ConversionError.IncompleteStream({
      format,
      eventIndex: index,
      reason: `the stream goes on after its response ended (${type}${next} after ${
        String(state.final["status"] ?? "the final event")
      }): a stream holds one response`
    })
    return state
  }
  if (!isRecord(event) || typeof event["type"] !== "string") {
    state.failure = malformedEvent(index, "expected a stream event: an object with a string type")
    return state
  }
  const type = event["type"]
  switch (type) {
    case "response.output_item.added":
    case "response.output_item.done": {
      const i = event["output_index"]
      const item = event["item"]
      if (typeof i !== "number" || !isRecord(item)) {
        state.failure = malformedEvent(index, `${type} needs a numeric output_index and an item object`)
        break
      }
      const done = type === "response.output_item.done"
      if (done || !state.items.has(i)) {
        state.items.set(i, { done, item: done ? item : structuredClone(item) })
      }
      break
    }
    case "response.completed":
    case "response.incomplete":
    case "response.failed": {
      const response = event["response"]
      if (!isRecord(response)) {
        state.failure = malformedEvent(index, `${type} needs a response object`)
        break
      }
      state.final = response
      break
    }
    case "error": {
      // the API nests the error (`{type: "error", error: {type, code, message, param}}`); the SDK's
      // type has its fields at the top of the event
      const nested = event["error"]
      state.failure = isRecord(nested)
        ? R.providerError(format, nested, [index, "error"], index)
        : R.providerError(format, event, [index], index)
      break
    }
    default:
      applyDelta(state, event)
  }
  return state
}

export const finish = (
  state: State,
  options?: Format.DecodeOptions
): Either.Either<ModelResponse.ModelResponse, Error> => {
  if (state.failure !== undefined) return Either.left(state.failure)
  if (state.final === undefined) {
    return Either.left(
      new ConversionError.IncompleteStream({
        format,
        reason: `the stream ended after ${state.count} event(s) without response.completed, response.incomplete or ` +
          "response.failed: it was interrupted"
      })
    )
  }
  const listed = state.final["output"]
  // an item rebuilt from its `added` event and deltas has the `status` it was added with, which is
  // stale: left out
  const output = Array.isArray(listed) && listed.length > 0
    ? listed
    : [...state.items.entries()].sort(([a], [b]) => a - b).map(([, entry]) => {
      if (entry.done || !("status" in entry.item)) return entry.item
      const { status: _, ...item } = entry.item
      return item
    })
  return decodeResponse({ ...state.final, output }, options)
}

export const decodeStream = <E, R>(
  events: Stream.Stream<unknown, E, R>,
  options?: Format.DecodeOptions
): Effect.Effect<ModelResponse.ModelResponse, E | Error, R> =>
  Effect.flatMap(
    StreamModule.runFold(
      events,
      { count: 0, items: new Map(), final: undefined, failure: undefined } as State,
      (state, event) => {
        let next: State
        try {
          next = step(state, event, state.count)
        } catch (thrown) {
          // never throws: an event no step foresaw (a throwing getter, a revoked proxy) is malformed
          next = {
            ...state,
            failure: state.failure ?? malformedEvent(
              state.count,
              `the event could not be read: ${thrown instanceof Error ? thrown.message : "an unreadable value"}`
            )
          }
        }
        return { ...next, count: state.count + 1 }
      }
    ),
    (state) => finish(state, options)
  )
