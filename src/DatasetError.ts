/**
 * What converting a dataset can fail with beyond a conversation's own errors
 * ({@link ConversionError.ConversionError}): a request setting the target format has no place for,
 * and input bytes that are not UTF-8.
 *
 * Every error names where it happened: `path` is the keys and indices from the root of the record
 * (so it always exists in the input), `line` and the byte offsets place a line in a file.
 *
 * @example
 * ```ts
 * import * as Either from "effect/Either"
 * import { Dataset } from "openreward-effect"
 *
 * const record = {
 *   messages: [{ role: "user", content: "Hi" }],
 *   tools: [{ type: "function", function: { name: "f", parameters: { type: "object" } } }],
 *   parallel_tool_calls: false
 * }
 * const result = Dataset.convertRecord(record, { record: "openai-sft", to: "google" })
 * if (Either.isLeft(result)) console.log(result.left._tag, result.left.message)
 * ```
 *
 * ```text output
 * UnsupportedParameter google: cannot hold parallel_tool_calls at $.parallel_tool_calls: Gemini has no setting that turns parallel function calls off
 * ```
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import * as ConversionError from "./ConversionError.js"

const formatPath = (path: ConversionError.Path): string =>
  path.length === 0 ? "$" : "$" + path.map((p) => typeof p === "number" ? `[${p}]` : `.${p}`).join("")

/**
 * A request setting of a record or body (its `tools`, `tool_choice`, parallel-call setting, or a
 * key of one tool) that the target format has no place for: a built-in tool (web search, code
 * execution), `strict` for Gemini, parallel calls turned off for Gemini, several allowed tools for
 * Anthropic, tools beside a bare conversation. `format` is the target, `path` the setting's place
 * in the input record, `parameter` its key.
 *
 * Under `unsupported: "report"` the same value is a reported loss ({@link Loss}) instead of a
 * failure.
 *
 * @category errors
 * @since 0.2.0
 */
export class UnsupportedParameter extends Schema.TaggedError<UnsupportedParameter>(
  "openreward-effect/DatasetError/UnsupportedParameter"
)("UnsupportedParameter", {
  format: Schema.String,
  path: ConversionError.Path,
  parameter: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.format}: cannot hold ${this.parameter} at ${formatPath(this.path)}: ${this.reason}`
  }
}

/**
 * A line of input that is not valid UTF-8. `offset` is the first bad byte's place in the line
 * (0-based), `inputOffset` its place in the whole input (after decompression).
 *
 * @category errors
 * @since 0.2.0
 */
export class InvalidUtf8 extends Schema.TaggedError<InvalidUtf8>(
  "openreward-effect/DatasetError/InvalidUtf8"
)("InvalidUtf8", {
  line: Schema.Number,
  offset: Schema.Number,
  inputOffset: Schema.Number
}) {
  override get message(): string {
    return `line ${this.line} is not valid UTF-8: byte ${this.offset} of the line (byte ${this.inputOffset} of the input)`
  }
}

/**
 * What a record conversion reports instead of failing: under `unsupported: "report"`, a tool setting
 * it left out (`UnsupportedParameter`); under `lost: "report"`, what the conversation codecs left out
 * by their formats' documented rules (`ConversionError.Lost`: `is_error` in the chat formats, a
 * message's `name`, a fine-tuning `weight`, an ignored request key, ...).
 *
 * @category models
 * @since 0.2.0
 */
export type Loss = UnsupportedParameter | ConversionError.Lost

/**
 * Every way converting one record can fail: a conversion error, a tool setting the target cannot
 * hold, or (under `lost: "error"`) the first thing a codec left out by its format's rules.
 *
 * @category models
 * @since 0.2.0
 */
export type RecordError = ConversionError.ConversionError | UnsupportedParameter | ConversionError.Lost

/**
 * Every way one line of a dataset can fail: its record's errors, or bytes that are not UTF-8.
 *
 * @category models
 * @since 0.2.0
 */
export type LineError = RecordError | InvalidUtf8
