/**
 * Chat Completions streaming: `chat.completion.chunk` events folded back into the `chat.completion`
 * they stand for, then read by {@link decodeResponse}, so a streamed answer decodes exactly as the
 * same answer sent whole.
 *
 * Per choice (keyed by `index`): `content`, `refusal`, `reasoning_content` and `reasoning` fragments
 * are concatenated; tool calls are keyed by their own `index`, the first fragment carrying `id`,
 * `type` and `function.name`, later ones pieces of `function.arguments`; OpenRouter
 * `reasoning_details` fragments are merged by `index` and `type`. `finish_reason` arrives on the
 * last chunk of a choice; `usage` on a last chunk with no choices (`stream_options.include_usage`).
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

const ToolCallDelta = Schema.Struct({
  index: Schema.Number,
  id: R.optional(Schema.String),
  type: R.optional(Schema.String),
  function: R.optional(Schema.Struct({ name: R.optional(Schema.String), arguments: R.optional(Schema.String) }))
})

const Delta = Schema.Struct({
  content: R.optional(Schema.String),
  refusal: R.optional(Schema.String),
  reasoning_content: R.optional(Schema.String),
  reasoning: R.optional(Schema.String),
  reasoning_details: R.optional(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  tool_calls: R.optional(Schema.Array(ToolCallDelta)),
  function_call: Schema.optionalWith(Schema.Unknown, { exact: true }),
  audio: Schema.optionalWith(Schema.Unknown, { exact: true })
})

const Chunk = Schema.Struct({
  id: R.optional(Schema.String),
  model: R.optional(Schema.String),
  choices: R.optional(Schema.Array(Schema.Struct({
    index: Schema.Number,
    delta: R.optional(Delta),
    finish_reason: R.optional(Schema.String),
    error: Schema.optionalWith(Schema.Unknown, { exact: true })
  }))),
  usage: Schema.optionalWith(Schema.Unknown, { exact: true })
})

const decodeChunk = Decoder.shape(Chunk, { onExcessProperty: "ignore" }).decode

interface ToolCallState {
  id: string | undefined
  type: string | undefined
  name: string | undefined
  arguments: string
}

interface ChoiceState {
  readonly index: number
  content: string | null
  refusal: string | null
  reasoning_content: string | undefined
  reasoning: string | undefined
  readonly reasoning_details: Array<Record<string, unknown>>
  readonly tool_calls: Map<number, ToolCallState>
  function_call: unknown
  audio: unknown
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
}

const append = (a: string | undefined, b: string | null | undefined): string | undefined =>
  b === null || b === undefined ? a : (a ?? "") + b

const mergeDetail = (details: Array<Record<string, unknown>>, piece: Record<string, unknown>): void => {
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

const step = (state: State, event: unknown, index: number): ConversionError.ResponseError | undefined => {
  state.events++
  const decoded = decodeChunk(event)
  if (Either.isLeft(decoded)) return R.rebase(Input.malformed(decoded.left, state.format, R.envelope), 0, [index])
  const chunk = decoded.right
  state.id ??= chunk.id ?? undefined
  state.model ??= chunk.model ?? undefined
  if (chunk.usage !== undefined && chunk.usage !== null) state.usage = chunk.usage
  for (const c of chunk.choices ?? []) {
    let choice = state.choices.get(c.index)
    if (choice === undefined) {
      choice = {
        index: c.index,
        content: null,
        refusal: null,
        reasoning_content: undefined,
        reasoning: undefined,
        reasoning_details: [],
        tool_calls: new Map(),
        function_call: undefined,
        audio: undefined,
        error: undefined,
        finish_reason: undefined
      }
      state.choices.set(c.index, choice)
    }
    if (choice.finish_reason !== undefined) {
      return new ConversionError.IncompleteStream({
        format: state.format,
        eventIndex: index,
        reason: `choice ${c.index} goes on after its finish_reason`
      })
    }
    const delta = c.delta
    if (delta !== undefined && delta !== null) {
      choice.content = append(choice.content ?? undefined, delta.content) ?? null
      choice.refusal = append(choice.refusal ?? undefined, delta.refusal) ?? null
      choice.reasoning_content = append(choice.reasoning_content, delta.reasoning_content)
      choice.reasoning = append(choice.reasoning, delta.reasoning)
      for (const piece of delta.reasoning_details ?? []) mergeDetail(choice.reasoning_details, piece)
      if (delta.function_call !== undefined && delta.function_call !== null) choice.function_call = delta.function_call
      if (delta.audio !== undefined && delta.audio !== null) choice.audio = delta.audio
      for (const call of delta.tool_calls ?? []) {
        let tool = choice.tool_calls.get(call.index)
        if (tool === undefined) {
          tool = { id: undefined, type: undefined, name: undefined, arguments: "" }
          choice.tool_calls.set(call.index, tool)
        }
        if (typeof call.id === "string" && call.id.length > 0) tool.id = call.id
        if (typeof call.type === "string") tool.type = call.type
        if (typeof call.function?.name === "string" && call.function.name.length > 0) tool.name = call.function.name
        tool.arguments += call.function?.arguments ?? ""
      }
    }
    if (c.error !== undefined && c.error !== null) choice.error = c.error
    if (c.finish_reason !== undefined && c.finish_reason !== null) choice.finish_reason = c.finish_reason
  }
  return undefined
}

/** The `chat.completion` the chunks stand for, or why there is none. */
export const assemble = (state: State): Either.Either<Record<string, unknown>, ConversionError.IncompleteStream> => {
  if (state.events === 0) {
    return Either.left(
      new ConversionError.IncompleteStream({ format: state.format, reason: "the stream holds no chunk" })
    )
  }
  const choices: Array<Record<string, unknown>> = []
  for (const choice of [...state.choices.values()].sort((a, b) => a.index - b.index)) {
    if (choice.finish_reason === undefined) {
      return Either.left(
        new ConversionError.IncompleteStream({
          format: state.format,
          reason: `the stream ended before choice ${choice.index} finished (no finish_reason): it was interrupted`
        })
      )
    }
    const message: Record<string, unknown> = { role: "assistant", content: choice.content, refusal: choice.refusal }
    if (choice.reasoning_content !== undefined) message["reasoning_content"] = choice.reasoning_content
    if (choice.reasoning !== undefined) message["reasoning"] = choice.reasoning
    if (choice.reasoning_details.length > 0) message["reasoning_details"] = choice.reasoning_details
    if (choice.function_call !== undefined) message["function_call"] = choice.function_call
    if (choice.audio !== undefined) message["audio"] = choice.audio
    if (choice.tool_calls.size > 0) {
      const calls: Array<Record<string, unknown>> = []
      for (const [k, call] of [...choice.tool_calls.entries()].sort((a, b) => a[0] - b[0])) {
        if (call.id === undefined || call.name === undefined) {
          return Either.left(
            new ConversionError.IncompleteStream({
              format: state.format,
              reason: `tool call ${k} of choice ${choice.index} never got its ${call.id === undefined ? "id" : "name"}`
            })
          )
        }
        calls.push({
          id: call.id,
          type: call.type ?? "function",
          function: { name: call.name, arguments: call.arguments }
        })
      }
      message["tool_calls"] = calls
    }
    choices.push({
      index: choice.index,
      finish_reason: choice.finish_reason,
      message,
      ...(choice.error === undefined ? {} : { error: choice.error })
    })
  }
  const completion: Record<string, unknown> = { object: "chat.completion", choices }
  if (state.id !== undefined) completion["id"] = state.id
  if (state.model !== undefined) completion["model"] = state.model
  if (state.usage !== undefined) completion["usage"] = state.usage
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
    (): State => ({ format, events: 0, id: undefined, model: undefined, choices: new Map(), usage: undefined }),
    step,
    (state) => {
      const completion = assemble(state)
      return Either.isLeft(completion)
        ? Either.left(completion.left)
        : decodeResponse(format, completion.right, options)
    }
  )
