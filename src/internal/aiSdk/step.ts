/**
 * An episode step on an AI SDK 6 `LanguageModel`: one `generateText` (or `streamText`) call with
 * the environment's tools as AI SDK tools without `execute`.
 *
 * @internal
 */
import type { CallSettings, JSONValue, LanguageModel } from "ai"
import { generateText, streamText } from "ai"
import * as Effect from "effect/Effect"
import type * as ConversionError from "../../ConversionError.js"
import type * as Episode from "../../Episode.js"
import type * as ModelResponse from "../../ModelResponse.js"
import * as ModelStep from "../../ModelStep.js"
import * as internal from "./messages.js"
import * as internalResponse from "./response.js"

export interface StepOptions extends internal.EncodeOptions, Omit<CallSettings, "abortSignal"> {
  readonly stream?: boolean | undefined
  readonly toolChoice?: "auto" | "none" | "required"
  readonly providerOptions?: Record<string, Record<string, JSONValue>>
  /** The conversation's system turns are the environment's: `true` unless set (no AI SDK warning). */
  readonly allowSystemInMessages?: boolean
}

export type StepError =
  | ConversionError.EncodeError
  | ConversionError.DecodeError
  | ConversionError.MalformedInput
  | ModelStep.ModelCallFailed

const api = "ai-sdk"

const field = (e: unknown, key: string): unknown =>
  typeof e === "object" && e !== null ? (e as { readonly [k: string]: unknown })[key] : undefined

/** The HTTP status of an AI SDK error: `APICallError.statusCode`, or that of a `RetryError`'s last error. */
const statusOf = (e: unknown): number | undefined => {
  const status = field(e, "statusCode") ?? field(field(e, "lastError"), "statusCode")
  return typeof status === "number" ? status : undefined
}

const callFailed = (e: unknown): ModelStep.ModelCallFailed => {
  const status = statusOf(e)
  const reason = e instanceof Error ? e.message.split("\n")[0]! : typeof e === "string" ? e : "unknown error"
  return new ModelStep.ModelCallFailed({ api, ...(status === undefined ? {} : { status }), reason })
}

/** Only the canonical answer: the episode, not the AI SDK, answers the tool calls. */
const answerOf = (turn: internalResponse.ModelTurn): ModelResponse.ModelResponse => {
  const { toolResults: _, ...response } = turn
  return response
}

export const step = (model: LanguageModel, options: StepOptions = {}): Episode.Step<StepError> => (input) =>
  Effect.gen(function*() {
    const { signatures, stream, ...settings } = options
    const messages = yield* internal.encode(input.conversation, { signatures })
    const tools = yield* internalResponse.tools(input.tools)
    const call = { allowSystemInMessages: true, ...settings, model, messages, tools }
    const result = yield* Effect.tryPromise({
      try: async (abortSignal): Promise<internalResponse.ResultInput> => {
        if (stream !== true) return generateText({ ...call, abortSignal })
        let failure: { readonly error: unknown } | undefined
        const streamed = streamText({
          ...call,
          abortSignal,
          onError: ({ error }) => {
            failure ??= { error }
          }
        })
        await streamed.consumeStream()
        if (failure !== undefined) throw failure.error
        const [response, finishReason, rawFinishReason, usage] = await Promise.all([
          streamed.response,
          streamed.finishReason,
          streamed.rawFinishReason,
          streamed.usage
        ])
        return { response, finishReason, rawFinishReason, usage }
      },
      catch: callFailed
    })
    return answerOf(yield* internalResponse.decodeResponse(result))
  })
