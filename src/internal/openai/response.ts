/**
 * A Chat Completions answer (`chat.completion`, or one of its `choices`) to a {@link ModelResponse}.
 *
 * The R.envelope (choices, `finish_reason`, `usage`, `id`, `model`) is read here; the choice's
 * `message` goes through the chat transcript decoder as a one-message transcript, so its content,
 * refusal, reasoning fields and tool calls read exactly as they do in a transcript, errors
 * included (their paths moved to where the response holds the message).
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import type * as ModelResponse from "../../ModelResponse.js"
import type * as OpenAiFormat from "../../OpenAiFormat.js"
import * as Decoder from "../decoder.js"
import * as Plain from "../plain.js"
import * as R from "../response.js"
import * as Input from "../wireInput.js"
import { decode, type Format } from "./decode.js"

/** `usage` of a completion (the counts read; other keys ignored). */
export const Usage = Schema.Struct({
  prompt_tokens: R.Count,
  completion_tokens: R.Count,
  total_tokens: R.Count,
  prompt_tokens_details: Schema.optionalWith(Schema.NullOr(Schema.Struct({ cached_tokens: R.Count })), { exact: true }),
  completion_tokens_details: Schema.optionalWith(
    Schema.NullOr(Schema.Struct({ reasoning_tokens: R.Count })),
    { exact: true }
  )
})

/** One of a completion's `choices`. */
export const Choice = Schema.Struct({
  index: Schema.optionalWith(Schema.Number, { exact: true }),
  finish_reason: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  message: Schema.Unknown,
  /** OpenRouter: why the generation failed, with `finish_reason: "error"`. */
  error: Schema.optionalWith(Schema.Unknown, { exact: true })
})

/** A `chat.completion` R.envelope. */
export const Completion = Schema.Struct({
  id: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  model: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  choices: Schema.Array(Choice),
  usage: Schema.optionalWith(Schema.NullOr(Usage), { exact: true })
})

const decodeCompletion = Decoder.shape(Completion, { onExcessProperty: "ignore" }).decode
const decodeChoice = Decoder.shape(Choice, { onExcessProperty: "ignore" }).decode

const finishReasons: Record<string, ModelResponse.StopReason> = {
  stop: "stop",
  length: "max_tokens",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  content_filter: "content_filter"
}

const readUsage = (usage: typeof Usage.Type | null | undefined): ModelResponse.Usage =>
  usage === null || usage === undefined ? {} : R.usage({
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
    cachedInputTokens: usage.prompt_tokens_details?.cached_tokens
  })

/** The choice's message as one assistant message, errors located under `prefix`. */
const decodeMessage = (
  format: Format,
  message: unknown,
  prefix: ConversionError.Path,
  options: OpenAiFormat.DecodeOptions
): Either.Either<Message.AssistantMessage, ConversionError.DecodeError> => {
  if (!R.isRecord(message) || message["role"] !== "assistant") {
    return Either.left(
      R.malformedAt(
        format,
        R.isRecord(message) ? [...prefix, "role"] : prefix,
        `expected the assistant message of a choice (role "assistant"), actual ${
          R.isRecord(message) ? JSON.stringify(String(message["role"])) : typeof message
        }`
      )
    )
  }
  // an empty content string is no text (a streamed answer starts with one; its whole form has null)
  const decoded = decode(
    format,
    [message["content"] === "" ? { ...message, content: null } : message],
    options
  )
  if (Either.isLeft(decoded)) return Either.left(R.rebase(decoded.left, 1, prefix))
  const [only] = decoded.right
  if (decoded.right.length !== 1 || only?.role !== "assistant") {
    return Either.left(R.malformedAt(format, prefix, "expected one assistant message"))
  }
  const annotations = message["annotations"]
  if (!Array.isArray(annotations) || annotations.length === 0) return Either.right(only)
  // url citations point into the content; kept whole on the message, since no block holds them
  const copied = Input.copyJson(annotations, 0)
  if (copied === undefined) {
    return Either.left(R.malformedAt(format, [...prefix, "annotations"], "expected JSON annotations"))
  }
  return Either.right(Message.assistant(only.blocks, { detail: { annotations: copied as Json.JsonValue } }))
}

/** Decode a `chat.completion` or one of its choices. */
export const decodeResponse = (
  format: Format,
  input: unknown,
  options: OpenAiFormat.ResponseOptions = {}
): Either.Either<ModelResponse.ModelResponse, ConversionError.ResponseError> =>
  Input.total(format, (): Either.Either<ModelResponse.ModelResponse, ConversionError.ResponseError> => {
    if (!R.isRecord(input)) {
      return Either.left(
        R.malformedAt(
          format,
          [],
          `expected a chat completion {choices: [...]} or one of its choices, actual ${
            input === null ? "null" : Array.isArray(input) ? "an array" : typeof input
          }`
        )
      )
    }
    const deep = Plain.tooDeep(input)
    if (deep !== undefined) {
      return Either.left(R.malformedAt(format, deep, `nested more than ${Plain.maxDepth} levels deep (or cyclic)`))
    }
    let choice: typeof Choice.Type
    let prefix: ConversionError.Path
    let completion: typeof Completion.Type | undefined
    if ("choices" in input) {
      const decoded = decodeCompletion(input)
      if (Either.isLeft(decoded)) return Either.left(Input.malformed(decoded.left, format, R.envelope))
      completion = decoded.right
      const picked = R.pick(
        format,
        completion.choices,
        (c, position) => c.index ?? position,
        options.choice,
        ["choices"],
        { one: "choice", option: "choice" }
      )
      if (Either.isLeft(picked)) return Either.left(picked.left)
      choice = picked.right.item
      prefix = ["choices", picked.right.position, "message"]
    } else {
      const decoded = decodeChoice(input)
      if (Either.isLeft(decoded)) return Either.left(Input.malformed(decoded.left, format, R.envelope))
      choice = decoded.right
      prefix = ["message"]
      if (options.choice !== undefined && choice.index !== undefined && choice.index !== options.choice) {
        return Either.left(
          new ConversionError.NoAnswer({
            format,
            path: ["index"],
            reason: `the choice has index ${choice.index}, not ${options.choice} (choice option)`
          })
        )
      }
    }
    const decodedMessage = decodeMessage(format, choice.message, prefix, options)
    if (Either.isLeft(decodedMessage)) return Either.left(decodedMessage.left)
    let message: Message.AssistantMessage = decodedMessage.right
    if (choice.error !== undefined && choice.error !== null) {
      // an OpenRouter choice that failed: what went wrong is kept beside the (partial) turn
      const error = Input.copyJson(choice.error, 0)
      if (error === undefined) {
        return Either.left(R.malformedAt(format, [...prefix.slice(0, -1), "error"], "expected a JSON error"))
      }
      message = Message.assistant(message.blocks, { detail: { ...message.detail, error } })
    }
    const raw = choice.message as { readonly refusal?: unknown }
    const refusal = typeof raw.refusal === "string" ? raw.refusal : undefined
    const finish = choice.finish_reason ?? undefined
    const normalised = refusal !== undefined
      ? "refusal"
      : finish === undefined
      ? "other"
      : R.lookup(finishReasons, finish) ?? "other"
    return Either.right({
      message,
      stopReason: R.stopReason(normalised, message),
      usage: readUsage(completion?.usage),
      ...R.optionalStrings({ providerStopReason: finish, refusal, id: completion?.id, model: completion?.model })
    })
  })
