/**
 * What every provider's `decodeResponse` and stream accumulator share: moving a transcript
 * decoder's error to where the response holds the message, choosing one choice or candidate, the
 * normalised stop reason, and folding an Effect `Stream` of events.
 *
 * A response decoder reads the provider's envelope itself and hands the answer's message to that
 * provider's transcript decoder (so a block reads the same in a response as in a transcript); an
 * accumulator folds the events back into the provider's final object and decodes that (so a stream
 * decodes exactly as the equivalent non-streaming answer).
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as ConversionError from "../ConversionError.js"
import { TypeId } from "../ConversionError.js"
import type * as Message from "../Message.js"
import type * as ModelResponse from "../ModelResponse.js"
import type * as Provider from "../Provider.js"
import { isRecord } from "./plain.js"
import { copyJson, type Locator } from "./wireInput.js"

type Path = ConversionError.Path

/** An envelope field a provider may leave out or send as `null`. */
export const optional = <S extends Schema.Schema.Any>(schema: S) =>
  Schema.optionalWith(Schema.NullOr(schema), { exact: true })

/** A token count of a usage record. */
export const Count = optional(Schema.Number)

/** Where an envelope's decode error points: no message or block index (a response is not a transcript). */
export const envelope: Locator = { messages: ["\u0000"], blocks: [] }

export { isRecord } from "./plain.js"

/**
 * The same error with its path moved: the first `drop` elements of its path are replaced by
 * `prefix`, and `blockIndex` (when present) is mapped through `blockIndex`.
 */
export const rebase = <E extends ConversionError.DecodeError>(
  error: E,
  drop: number,
  prefix: Path,
  blockIndex?: (index: number) => number
): E => {
  const fields: Record<string, unknown> = {}
  for (const key of Object.keys(error)) {
    if (key !== "_tag" && key !== TypeId) fields[key] = (error as unknown as Record<string, unknown>)[key]
  }
  const rest = error.path.slice(drop)
  const mapped = blockIndex === undefined || !("blockIndex" in error) || error.blockIndex === undefined
    ? undefined
    : blockIndex(error.blockIndex)
  if (mapped !== undefined) fields["blockIndex"] = mapped
  fields["path"] = [...prefix, ...rest]
  const Ctor = error.constructor as new(fields: Record<string, unknown>) => E
  return new Ctor(fields)
}

/** A `MalformedInput` at `path` (no message or block index: a response envelope is not a transcript). */
export const malformedAt = (format: Provider.Provider, path: Path, reason: string): ConversionError.MalformedInput =>
  new ConversionError.MalformedInput({ format, path, reason })

/**
 * The one answer to read from `items` (choices or candidates, each with its `index`): the one whose
 * index is `wanted`, or the only one. Several and none wanted is a `MultipleChoices`; none, or none
 * with that index, a `NoAnswer`.
 */
export const pick = <A>(
  format: Provider.Provider,
  items: ReadonlyArray<A>,
  indexOf: (item: A, position: number) => number,
  wanted: number | undefined,
  path: Path,
  noun: { readonly one: string; readonly option: string }
): Either.Either<
  { readonly item: A; readonly position: number },
  ConversionError.MultipleChoices | ConversionError.NoAnswer
> => {
  if (items.length === 0) {
    return Either.left(new ConversionError.NoAnswer({ format, path, reason: `the response holds no ${noun.one}` }))
  }
  if (wanted === undefined) {
    if (items.length === 1) return Either.right({ item: items[0]!, position: 0 })
    const indices = items.map(indexOf)
    return Either.left(
      new ConversionError.MultipleChoices({
        format,
        path,
        indices,
        reason:
          `the response holds ${items.length} ${noun.one}s (index ${indices.join(", ")}); say which one to read ` +
          `with the ${noun.option} option`
      })
    )
  }
  for (let position = 0; position < items.length; position++) {
    if (indexOf(items[position]!, position) === wanted) return Either.right({ item: items[position]!, position })
  }
  return Either.left(
    new ConversionError.NoAnswer({
      format,
      path,
      reason: `the response holds no ${noun.one} with index ${wanted} (${noun.option} option)`
    })
  )
}

/**
 * The normalised stop reason, with one rule for every provider: a turn that ends normally (`stop`)
 * with tool calls in it is a `tool_calls` stop, since Gemini has no tool-call reason and some
 * OpenAI-compatible servers send `stop` with calls.
 */
export const stopReason = (
  normalised: ModelResponse.StopReason,
  message: Message.AssistantMessage
): ModelResponse.StopReason =>
  normalised === "stop" && message.blocks.some((b) => b.type === "tool_call") ? "tool_calls" : normalised

/** `table[key]` for an own key only (a provider value such as `"constructor"` finds nothing). */
export const lookup = <A>(table: { readonly [key: string]: A }, key: string): A | undefined =>
  Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined

/** Keep only the counts that are numbers. */
export const usage = (counts: { readonly [K in keyof ModelResponse.Usage]: unknown }): ModelResponse.Usage => {
  const out: { -readonly [K in keyof ModelResponse.Usage]: number } = {}
  for (const key of Object.keys(counts) as Array<keyof ModelResponse.Usage>) {
    const value = counts[key]
    if (typeof value === "number" && Number.isFinite(value)) out[key] = value
  }
  return out
}

/** The sum of the counts that are numbers, or `undefined` when none is. */
export const sum = (...counts: ReadonlyArray<unknown>): number | undefined => {
  let total: number | undefined
  for (const c of counts) if (typeof c === "number" && Number.isFinite(c)) total = (total ?? 0) + c
  return total
}

/**
 * The provider's error, read from the error object it sent (`{code?, type?, status?, message?, ...}`,
 * or a bare message string): `code` is its `code` (a string or a number), else its `type` or
 * `status`; `reason` its `message`; `body` the object as sent.
 */
export const providerError = (
  format: Provider.Format,
  error: unknown,
  path: Path,
  eventIndex?: number
): ConversionError.ProviderError => {
  const record = isRecord(error) ? error : undefined
  const code = [record?.["code"], record?.["type"], record?.["status"]].find((c) =>
    typeof c === "string" && c !== "" || typeof c === "number" && Number.isFinite(c)
  ) as string | number | undefined
  const message = typeof error === "string" ? error : record?.["message"]
  const body = copyJson(error, 0)
  return new ConversionError.ProviderError({
    format,
    path,
    ...(eventIndex === undefined ? {} : { eventIndex }),
    ...(code === undefined ? {} : { code }),
    ...(body === undefined ? {} : { body }),
    reason: typeof message === "string" && message !== "" ? message : "no message given"
  })
}

/** FNV-1a, 32 bits, as 8 hex digits: a stable tag for an answer that came without an id. */
export const hash = (text: string): string => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h.toString(16).padStart(8, "0")
}

/** Optional response fields, set only when they are strings. */
export const optionalStrings = (
  fields: {
    readonly providerStopReason?: unknown
    readonly refusal?: unknown
    readonly id?: unknown
    readonly model?: unknown
  }
): { providerStopReason?: string; refusal?: string; id?: string; model?: string } => {
  const out: { providerStopReason?: string; refusal?: string; id?: string; model?: string } = {}
  if (typeof fields.providerStopReason === "string") out.providerStopReason = fields.providerStopReason
  if (typeof fields.refusal === "string") out.refusal = fields.refusal
  if (typeof fields.id === "string") out.id = fields.id
  if (typeof fields.model === "string") out.model = fields.model
  return out
}

/**
 * An accumulator's step: reads event `index` into the state, or says why it cannot.
 */
export type Step<S> = (state: S, event: unknown, index: number) => ConversionError.ResponseError | undefined

/**
 * Fold a stream of events with `step`, stopping at the first error, then finish the state into a
 * response. Never throws: a step that throws on hostile input is a `MalformedInput`.
 */
export const fold = <S, E, R>(
  format: Provider.Provider,
  events: Stream.Stream<unknown, E, R>,
  initial: () => S,
  step: Step<S>,
  finish: (state: S) => Either.Either<ModelResponse.ModelResponse, ConversionError.ResponseError>
): Effect.Effect<ModelResponse.ModelResponse, E | ConversionError.ResponseError, R> => {
  interface Acc {
    readonly state: S
    index: number
    error: ConversionError.ResponseError | undefined
  }
  return Stream.runFoldWhile(
    events,
    { state: initial(), index: 0, error: undefined } as Acc,
    (acc) => acc.error === undefined,
    (acc, event) => {
      try {
        acc.error = step(acc.state, event, acc.index)
      } catch (thrown) {
        acc.error = new ConversionError.IncompleteStream({
          format,
          eventIndex: acc.index,
          reason: `the event could not be read: ${thrown instanceof Error ? thrown.message : "an unreadable value"}`
        })
      }
      acc.index++
      return acc
    }
  ).pipe(
    Effect.flatMap((acc) => {
      if (acc.error !== undefined) return Effect.fail(acc.error)
      try {
        return finish(acc.state)
      } catch (thrown) {
        return Effect.fail(
          new ConversionError.MalformedInput({
            format,
            path: [],
            reason: `the stream could not be read: ${thrown instanceof Error ? thrown.message : "an unreadable value"}`
          })
        )
      }
    })
  )
}
