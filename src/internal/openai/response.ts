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

/** The keys of a choice's message that the transcript decoder reads (decode.ts). */
const messageKeys: ReadonlySet<string> = new Set([
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
])

/**
 * The keys of a tool call that the transcript decoder reads, or that only number it (`index`, which
 * some servers send in a whole answer too); its other keys are kept in the call's `detail.<format>`.
 */
const callKeys: ReadonlySet<string> = new Set(["id", "type", "function", "extra_content", "index"])

/**
 * Keys of a completion that belong to the answer, not to the call: Perplexity's sources and what it
 * found (`citations`, `search_results`, `images`, `related_questions`, `videos`). They are kept with
 * the message, as the message's own `annotations` are.
 */
export const answerKeys: ReadonlyArray<string> = [
  "citations",
  "search_results",
  "images",
  "related_questions",
  "videos"
]

/** The keys of a completion read into the `ModelResponse` itself (the rest is its `detail.<format>`). */
const envelopeKeys: ReadonlySet<string> = new Set(["choices", "id", "model", "error", ...answerKeys])

/** The keys of a choice read into the `ModelResponse` itself. */
const choiceKeys: ReadonlySet<string> = new Set(["index", "finish_reason", "message", "error"])

/** `value` as the JSON to keep, or `undefined` when there is nothing to keep (`null`, `[]`). */
const keep = (value: unknown): Json.JsonValue | undefined =>
  value === undefined || value === null || Array.isArray(value) && value.length === 0
    ? undefined
    : Input.copyJson(value, 1)

/** The keys of `record` outside `known`, with something in them, as JSON. */
const rest = (record: Record<string, unknown>, known: ReadonlySet<string>): { [key: string]: Json.JsonValue } => {
  const out: { [key: string]: Json.JsonValue } = {}
  for (const key of Object.keys(record)) {
    if (known.has(key)) continue
    const value = keep(record[key])
    if (value !== undefined) out[key] = value
  }
  return out
}

const isObject = (value: unknown): value is Json.JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The message with an empty id (`""`, what Gemini's OpenAI-compatible endpoint sends) for each
 * tool call that has none, so that the transcript decoder reads it and an id can be made for it.
 */
const withCallIds = (message: Record<string, unknown>): Record<string, unknown> => {
  const calls = message["tool_calls"]
  if (!Array.isArray(calls) || !calls.some((c) => R.isRecord(c) && (c["id"] === undefined || c["id"] === null))) {
    return message
  }
  return {
    ...message,
    tool_calls: calls.map((c) => R.isRecord(c) && (c["id"] === undefined || c["id"] === null) ? { ...c, id: "" } : c)
  }
}

/**
 * The choice's message as one assistant message, errors located under `prefix`: the message's keys
 * the transcript decoder does not read (`annotations`, Groq's `executed_tools`, ...) and `extra`
 * (the answer's keys found beside the message) are kept in the message's `detail.<format>`; a tool
 * call with an empty or no id gets one made (`<idPrefix>_<its index in tool_calls>`).
 */
const decodeMessage = (
  format: Format,
  message: unknown,
  prefix: ConversionError.Path,
  options: OpenAiFormat.ResponseOptions,
  extra: { readonly [key: string]: Json.JsonValue },
  idPrefix: () => string
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
  const read = withCallIds(message["content"] === "" ? { ...message, content: null } : message)
  const decoded = decode(format, [read], options)
  if (Either.isLeft(decoded)) return Either.left(R.rebase(decoded.left, 1, prefix))
  const [only] = decoded.right
  if (decoded.right.length !== 1 || only?.role !== "assistant") {
    return Either.left(R.malformedAt(format, prefix, "expected one assistant message"))
  }
  let k = 0
  const rawCalls = Array.isArray(message["tool_calls"]) ? message["tool_calls"] as ReadonlyArray<unknown> : []
  const blocks = only.blocks.map((b) => {
    if (b.type !== "tool_call") return b
    const made = b.id === "" ? `${idPrefix()}_${k}` : undefined
    const raw = rawCalls[k]
    const callRest = R.isRecord(raw) ? rest(raw, callKeys) : {}
    k++
    if (made === undefined && Object.keys(callRest).length === 0) return b
    const own = b.detail?.[format]
    return {
      ...b,
      ...(made === undefined ? {} : { id: made }),
      ...(Object.keys(callRest).length === 0 ? {} : {
        detail: { ...b.detail, [format]: { ...(isObject(own) ? own : {}), ...callRest } }
      })
    }
  })
  const kept = { ...rest(message, messageKeys), ...extra }
  if (Object.keys(kept).length === 0 && blocks === only.blocks) return Either.right(only)
  if (Object.keys(kept).length === 0) return Either.right(Message.assistant(blocks, { detail: only.detail }))
  const own = only.detail?.[format]
  return Either.right(Message.assistant(blocks, {
    detail: { ...only.detail, [format]: { ...(isObject(own) ? own : {}), ...kept } }
  }))
}

/** The provider's error, when the body is one (`{error: {...}}`, or vLLM's `{object: "error", ...}`). */
const errorOf = (format: Format, input: Record<string, unknown>): ConversionError.ProviderError | undefined => {
  // a choice passed alone keeps OpenRouter's `error` with its partial turn (below)
  if (R.isRecord(input["message"]) && !("choices" in input)) return undefined
  const error = input["error"]
  if (error !== undefined && error !== null) return R.providerError(format, error, ["error"])
  if (input["object"] === "error") return R.providerError(format, input, [])
  return undefined
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
    const failed = errorOf(format, input)
    if (failed !== undefined) return Either.left(failed)
    let choice: typeof Choice.Type
    let rawChoice: Record<string, unknown>
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
      rawChoice = (input["choices"] as ReadonlyArray<Record<string, unknown>>)[picked.right.position]!
      prefix = ["choices", picked.right.position, "message"]
    } else {
      const decoded = decodeChoice(input)
      if (Either.isLeft(decoded)) return Either.left(Input.malformed(decoded.left, format, R.envelope))
      choice = decoded.right
      rawChoice = input
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
    // kept with the message: the answer's keys beside it, and an OpenRouter choice's `error` (what
    // went wrong with a generation that ended with `finish_reason: "error"`, beside its partial turn)
    const extra: { [key: string]: Json.JsonValue } = {}
    if (completion !== undefined) {
      for (const key of answerKeys) {
        const value = keep(input[key])
        if (value !== undefined) extra[key] = value
      }
    }
    const error = keep(choice.error)
    if (error !== undefined) extra["error"] = error
    const idPrefix = () =>
      options.toolCallIdPrefix ??
        `call_${completion?.id ? completion.id : R.hash(JSON.stringify(choice.message))}`
    const decodedMessage = decodeMessage(format, choice.message, prefix, options, extra, idPrefix)
    if (Either.isLeft(decodedMessage)) return Either.left(decodedMessage.left)
    const message = decodedMessage.right
    const raw = choice.message as { readonly refusal?: unknown }
    // an empty refusal (`""`, which some servers send for none) is no refusal
    const refusal = typeof raw.refusal === "string" && raw.refusal !== "" ? raw.refusal : undefined
    const finish = choice.finish_reason ?? undefined
    const normalised = refusal !== undefined
      ? "refusal"
      : finish === undefined
      ? "other"
      : R.lookup(finishReasons, finish) ?? "other"
    const metadata = completion === undefined ? {} : rest(input, envelopeKeys)
    const choiceMetadata = rest(rawChoice, choiceKeys)
    if (Object.keys(choiceMetadata).length > 0) metadata["choice"] = choiceMetadata
    return Either.right({
      message,
      stopReason: R.stopReason(normalised, message),
      usage: readUsage(completion?.usage),
      ...R.optionalStrings({ providerStopReason: finish, refusal, id: completion?.id, model: completion?.model }),
      ...(Object.keys(metadata).length === 0 ? {} : { detail: { [format]: metadata } })
    })
  })
