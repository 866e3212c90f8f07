/**
 * Datasets: records that hold conversations, as people keep them. A fine-tuning line
 * `{"messages": [...], "tools": [...], "weight": 1}`, a preference line (`input`,
 * `preferred_output`, `non_preferred_output`), a reinforcement fine-tuning line with its
 * `reference_answer`, an Anthropic (Bedrock) or Gemini tuning line, a rollout written by
 * `Episode.runMany`: each is converted where its conversations are, and every other key is carried
 * through unchanged.
 *
 * | shape | where the conversations are | read as |
 * | --- | --- | --- |
 * | `openai-sft`, `openai-rft` | the record is a Chat Completions body: `messages`, `tools`, `tool_choice`, `parallel_tool_calls` | `openai` |
 * | `openai-dpo` | `input` (a body), `preferred_output` and `non_preferred_output` (message lists) | `openai` |
 * | `anthropic-bedrock` | the record is a Messages body: `system`, `messages`, `tools`, `tool_choice` | `anthropic` |
 * | `gemini-tuning` | the record is a `generateContent` body: `contents`, `systemInstruction`, `tools`, `toolConfig` | `google` |
 * | `rollout` | `messages` (canonical), `tools` | `canonical` |
 * | `body` | the record is a request body of `from` | `from` |
 *
 * A body's conversation and tool settings are replaced by the target's, at the place of the first of
 * them: an `openai-sft` line converted to `anthropic` is a Bedrock line (`system`, `messages`,
 * `tools`, `tool_choice`), to `google` a Gemini tuning line. A preference record's output lists
 * become the target's message lists. With `messagesAt`, the message list is at that path, stays
 * there, and the keys beside it are the rest of the body. Without `record` or `messagesAt`, the
 * record is the conversation (what `Format.convert` reads), and tool settings in it, which a bare
 * conversation has no place for, are an error.
 *
 * Tools, the tool choice and the parallel-call setting are converted to the target's shape; what the
 * target has no place for (a built-in tool, `strict` for Gemini, parallel calls off for Gemini, ...) is
 * an {@link DatasetError.UnsupportedParameter}, or, with `unsupported: "report"`, left out and
 * listed in the result's `losses`. Schemas are copied as they are.
 *
 * @example
 * ```ts
 * import * as Either from "effect/Either"
 * import { Dataset } from "openreward-effect"
 *
 * const line = {
 *   id: "ex-17",
 *   messages: [
 *     { role: "system", content: "You fly drones." },
 *     { role: "user", content: "Take off." },
 *     { role: "assistant", tool_calls: [{ id: "c1", type: "function", function: { name: "takeoff", arguments: "{}" } }] }
 *   ],
 *   tools: [{ type: "function", function: { name: "takeoff", description: "Take off.", parameters: { type: "object", properties: {} } } }],
 *   parallel_tool_calls: false
 * }
 * const bedrock = Either.getOrThrow(Dataset.convertRecord(line, { record: "openai-sft", to: "anthropic" }))
 * console.log(JSON.stringify(bedrock.value, null, 1))
 * ```
 *
 * ```text output
 * {
 *  "id": "ex-17",
 *  "system": "You fly drones.",
 *  "messages": [
 *   {
 *    "role": "user",
 *    "content": [
 *     {
 *      "type": "text",
 *      "text": "Take off."
 *     }
 *    ]
 *   },
 *   {
 *    "role": "assistant",
 *    "content": [
 *     {
 *      "type": "tool_use",
 *      "id": "c1",
 *      "name": "takeoff",
 *      "input": {}
 *     }
 *    ]
 *   }
 *  ],
 *  "tools": [
 *   {
 *    "name": "takeoff",
 *    "description": "Take off.",
 *    "input_schema": {
 *     "type": "object",
 *     "properties": {}
 *    }
 *   }
 *  ],
 *  "tool_choice": {
 *   "type": "auto",
 *   "disable_parallel_tool_use": true
 *  }
 * }
 * ```
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Codec from "./Codec.js"
import * as ConversionError from "./ConversionError.js"
import * as DatasetError from "./DatasetError.js"
import * as Format from "./Format.js"
import * as Lines from "./internal/dataset/lines.js"
import * as Record from "./internal/dataset/record.js"
import * as Shapes from "./internal/dataset/shapes.js"

// -----------------------------------------------------------------------------
// models
// -----------------------------------------------------------------------------

/**
 * The record shapes known by name (see the module documentation).
 *
 * @category schemas
 * @since 0.2.0
 */
export const Shape = Schema.Literal(...Shapes.shapes).annotations({ identifier: "DatasetShape" })

/**
 * @category models
 * @since 0.2.0
 */
export type Shape = typeof Shape.Type

/**
 * Every shape, in a stable order.
 *
 * @category constants
 * @since 0.2.0
 */
export const shapes: ReadonlyArray<Shape> = Shapes.shapes

/**
 * The format each shape's conversations are read as (`body`: the one `from` names).
 *
 * @category constants
 * @since 0.2.0
 */
export const shapeFormats: { readonly [S in Shape]: Format.Source | undefined } = Object.fromEntries(
  Shapes.shapes.map((s) => [s, Shapes.layouts[s].from])
) as { readonly [S in Shape]: Format.Source | undefined }

/**
 * What to convert. `to` is required; `from` defaults to the format of the `record` shape, else
 * `canonical`.
 *
 * - `record`: a named shape, or `"auto"` to tell each record's shape from its keys ({@link detect}).
 * - `messagesAt`: the path of the message list in each record (`["messages"]`, or the steps of a JSON
 *   pointer, see {@link pointer}); the object holding it is read as the rest of a request body.
 * - neither: the record is the conversation.
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  readonly to: Format.Target
  readonly from?: Format.Source | undefined
  readonly record?: Shape | "auto" | undefined
  readonly messagesAt?: ReadonlyArray<string | number> | undefined
  /**
   * A tool setting the target has no place for: `"error"` (the default) fails the record with
   * `UnsupportedParameter`, `"report"` leaves it out and lists it in `losses`.
   */
  readonly unsupported?: "error" | "report" | undefined
  /**
   * What the codecs leave out by their formats' documented rules (`ConversionError.Lost`: an
   * ignored request key, a message's `name`, a fine-tuning `weight`, `is_error` in the chat
   * formats, a reasoning signature, ...): `"ignore"` (the default: not looked for, costs nothing),
   * `"report"` (listed in `losses`, each at its path in the record, or in the conversation for what
   * encoding lost), `"error"` (the record fails with the first, as `convert --strict` does).
   */
  readonly lost?: "ignore" | "report" | "error" | undefined
  /** The target format's encode options (as `XFormat.encode` takes them). */
  readonly encode?: { readonly [key: string]: unknown } | undefined
  /** The source format's decode options. */
  readonly decode?: { readonly [key: string]: unknown } | undefined
}

/**
 * A converted record: the record with its conversations converted, what was left out of it under
 * `unsupported: "report"`, and, under `record: "auto"`, the shape it was read as.
 *
 * @category models
 * @since 0.2.0
 */
export interface Converted {
  readonly value: unknown
  readonly losses: ReadonlyArray<DatasetError.Loss>
  readonly shape?: Shape | undefined
}

// -----------------------------------------------------------------------------
// converting
// -----------------------------------------------------------------------------

/**
 * The pipeline (`Codec.compose`) from each source format to `options.to`, with the options given;
 * with `onLoss` (`lost` other than `"ignore"`), each side called with it added to its options.
 */
const codecsFor = (options: Options) => (from: Format.Source): Record.Codecs => {
  const decoder: Codec.AnyDecoder = Format.decoders[from]
  const encoder: Codec.AnyEncoder = Format.encoders[options.to]
  const pipeline = Codec.compose<Codec.AnyDecoder, Codec.AnyEncoder>(decoder, encoder, options)
  return {
    read: (input, onLoss) =>
      onLoss === undefined ? pipeline.decode(input) : decoder.decode(input, { ...options.decode, onLoss }),
    write: (conversation, onLoss) =>
      onLoss === undefined ? pipeline.encode(conversation) : encoder.encode(conversation, { ...options.encode, onLoss })
  }
}

/**
 * A function that converts one record, built once for many: the codecs are chosen once. Pure, and
 * never throws; map a `Stream` of records through it, or call it in a loop.
 *
 * @category converting
 * @since 0.2.0
 */
export const converter = (
  options: Options
): (record: unknown) => Either.Either<Converted, DatasetError.RecordError> =>
  Shapes.converter({
    to: options.to,
    from: options.from,
    record: options.record,
    messagesAt: options.messagesAt,
    unsupported: options.unsupported,
    lost: options.lost,
    casing: options.encode?.["casing"] === "camel" ? "camel" : "snake"
  }, codecsFor(options))

/**
 * Convert one record (see {@link converter} to convert many).
 *
 * @category converting
 * @since 0.2.0
 */
export const convertRecord = (
  record: unknown,
  options: Options
): Either.Either<Converted, DatasetError.RecordError> => converter(options)(record)

/**
 * The shape of a record, told from its keys: `openai-dpo` (an `input` object and a preferred or
 * non-preferred output), `gemini-tuning` (`contents`), `rollout` (canonical `messages`),
 * `anthropic-bedrock` (`messages` with `system` or Anthropic content blocks), `openai-sft`
 * (`messages`), `body` read as `openai-responses` (`input`); none for anything else.
 *
 * @category converting
 * @since 0.2.0
 */
export const detect = (record: unknown): Option.Option<{ readonly shape: Shape; readonly from: Format.Source }> =>
  Option.fromNullable(Shapes.detect(record))

/**
 * The steps of a JSON pointer (RFC 6901), for {@link Options.messagesAt}: `"/input/messages"` is
 * `["input", "messages"]`; a step of digits indexes an array where the record has one there.
 *
 * @category converting
 * @since 0.2.0
 */
export const pointer = (text: string): Either.Either<ReadonlyArray<string | number>, string> => {
  const parsed = Record.parsePointer(text)
  return typeof parsed === "string" ? Either.left(parsed) : Either.right(parsed)
}

// -----------------------------------------------------------------------------
// JSON lines
// -----------------------------------------------------------------------------

/**
 * What became of one line of a JSON-lines file: converted, failed (with its typed error), or blank.
 *
 * @category models
 * @since 0.2.0
 */
export type Outcome =
  | {
    readonly _tag: "Converted"
    readonly line: number
    readonly value: unknown
    readonly losses: ReadonlyArray<DatasetError.Loss>
    readonly shape?: Shape | undefined
  }
  | { readonly _tag: "Failed"; readonly line: number; readonly error: DatasetError.LineError }
  | { readonly _tag: "Blank"; readonly line: number }

/** One line's text to its outcome. */
const lineOutcome = (
  convert: (record: unknown) => Either.Either<Converted, DatasetError.RecordError>,
  from: Format.Source
) =>
(line: number, text: string): Outcome => {
  if (text.trim().length === 0) return { _tag: "Blank", line }
  let record: unknown
  try {
    record = JSON.parse(text)
  } catch (e) {
    return {
      _tag: "Failed",
      line,
      error: new ConversionError.MalformedInput({
        format: from,
        path: [],
        reason: `not valid JSON (${e instanceof Error ? e.message : String(e)})`
      })
    }
  }
  const result = convert(record)
  return Either.isLeft(result)
    ? { _tag: "Failed", line, error: result.left }
    : { _tag: "Converted", line, ...result.right }
}

/**
 * Convert a JSON-lines file given as a stream of bytes: one {@link Outcome} per line, in order, every
 * failure kept with its line number (1-based), so a batch reports every failure and keeps every
 * success. A leading byte order mark is skipped; a line that is not UTF-8 fails with
 * {@link DatasetError.InvalidUtf8}; a line that is not JSON with `MalformedInput`. Memory holds one
 * chunk and the line it ends in.
 *
 * @example
 * ```ts
 * import * as Chunk from "effect/Chunk"
 * import * as Effect from "effect/Effect"
 * import * as Stream from "effect/Stream"
 * import { Dataset } from "openreward-effect"
 *
 * const file = new TextEncoder().encode(
 *   '\uFEFF{"id": 1, "messages": [{"role": "user", "content": "Hi"}]}\n\n{"id": 2}\n'
 * )
 * const outcomes = await Stream.make(file).pipe(
 *   Dataset.jsonl({ record: "openai-sft", to: "google" }),
 *   Stream.runCollect,
 *   Effect.runPromise
 * )
 * for (const o of Chunk.toReadonlyArray(outcomes)) {
 *   console.log(o.line, o._tag, o._tag === "Converted" ? JSON.stringify(o.value) : o._tag === "Failed" ? o.error.message : "")
 * }
 * ```
 *
 * ```text output
 * 1 Converted {"id":1,"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}
 * 2 Blank
 * 3 Failed openai: malformed input at $.messages: no "messages" key (keys: id)
 * ```
 *
 * @category converting
 * @since 0.2.0
 */
export const jsonl =
  (options: Options) => <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Outcome, E, R> =>
    Stream.suspend(() => {
      const convert = converter(options)
      const from = options.from ?? (options.record !== undefined && options.record !== "auto"
        ? shapeFormats[options.record]
        : undefined) ??
        "canonical"
      const outcome = lineOutcome(convert, from)
      let carry: Uint8Array = new Uint8Array(0)
      let line = 1
      let offset = 0
      const run = (block: Uint8Array): Array<Outcome> => {
        const out: Array<Outcome> = []
        line = Lines.eachLine(
          block,
          line,
          offset,
          (n, text) => out.push(outcome(n, text)),
          (bad) => out.push({ _tag: "Failed", line: bad.line, error: new DatasetError.InvalidUtf8(bad) })
        )
        offset += block.length
        return out
      }
      return bytes.pipe(
        Stream.mapConcat((chunk) => {
          const joined = carry.length === 0 ? chunk : concat(carry, chunk)
          const end = Lines.lastNewline(joined)
          if (end === -1) {
            carry = joined
            return []
          }
          carry = joined.subarray(end + 1)
          return run(joined.subarray(0, end + 1))
        }),
        Stream.concat(Stream.suspend(() => Stream.fromIterable(carry.length === 0 ? [] : run(carry))))
      )
    })

const concat = (a: Uint8Array, b: Uint8Array): Uint8Array => {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}
