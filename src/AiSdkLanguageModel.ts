/**
 * An AI SDK 6 model (`openai("gpt-4.1")`, `anthropic(...)`, any `@ai-sdk/*` provider, a
 * `MockLanguageModelV3`) as an `@effect/ai` `LanguageModel`, so the judges and graders
 * (`openreward-effect/Judge`, `openreward-effect/Grader`) and anything else written against
 * `LanguageModel` run on it. Import it only where both `ai` and `@effect/ai` are installed.
 *
 * Each call is one AI SDK `generateText`: the `@effect/ai` prompt is read as a canonical
 * conversation (`EffectAi.decode`), written as AI SDK messages (`AiSdk.encode`), and the answer read
 * back (`AiSdk.decodeResponse`) into response parts; `streamText` gives the same answer as stream
 * parts. Text prompts only: a call with tools or a structured-output format fails with
 * `AiError.MalformedInput`. A failed call is an `AiError.UnknownError` carrying the AI SDK's message
 * (and HTTP status, when it had one).
 *
 * @example
 * ```ts
 * import * as LanguageModel from "@effect/ai/LanguageModel"
 * import { MockLanguageModelV3 } from "ai/test"
 * import * as Effect from "effect/Effect"
 * import * as AiSdkLanguageModel from "openreward-effect/AiSdkLanguageModel"
 * import * as Judge from "openreward-effect/Judge"
 *
 * const aiSdkModel = new MockLanguageModelV3({
 *   doGenerate: async () => ({
 *     content: [{ type: "text", text: '{"winner": "B"}' }],
 *     finishReason: { unified: "stop", raw: "stop" },
 *     usage: {
 *       inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
 *       outputTokens: { total: 4, text: 4, reasoning: 0 }
 *     },
 *     warnings: []
 *   })
 * })
 *
 * const verdict = await Effect.runPromise(
 *   Judge.compare("Go away.", "Happy to help!").pipe(
 *     Effect.provide(Judge.layerPairwise({ shuffle: false })),
 *     Effect.provide(AiSdkLanguageModel.layer(aiSdkModel))
 *   )
 * )
 * console.log(verdict.winner)
 * ```
 *
 * ```text output
 * b
 * ```
 *
 * @since 0.2.0
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type { CallSettings, LanguageModel as AiSdkModel } from "ai"
import { generateText } from "ai"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Messages from "./internal/aiSdk/messages.js"
import * as Response from "./internal/aiSdk/response.js"
import { parts, streamParts } from "./internal/chatModel/parts.js"
import * as Prompt from "./internal/effectAi/prompt.js"

const module = "AiSdkLanguageModel"
const method = "generateText"

/**
 * Call settings passed to every `generateText` (`maxOutputTokens`, `temperature`, `maxRetries`, ...).
 *
 * @category models
 * @since 0.2.0
 */
export type Settings = Omit<CallSettings, "abortSignal">

const malformedInput = (description: string) => new AiError.MalformedInput({ module, method, description })

const field = (e: unknown, key: string): unknown =>
  typeof e === "object" && e !== null ? (e as { readonly [k: string]: unknown })[key] : undefined

const callFailed = (e: unknown): AiError.UnknownError => {
  const status = field(e, "statusCode") ?? field(field(e, "lastError"), "statusCode")
  const reason = e instanceof Error ? e.message.split("\n")[0]! : typeof e === "string" ? e : "unknown error"
  return new AiError.UnknownError({
    module,
    method,
    description: typeof status === "number" ? `HTTP ${status}: ${reason}` : reason,
    cause: e
  })
}

/**
 * The AI SDK model as an `@effect/ai` `LanguageModel` service.
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = (model: AiSdkModel, settings?: Settings): Effect.Effect<LanguageModel.Service> => {
  const generate = (provider: LanguageModel.ProviderOptions) =>
    Effect.gen(function*() {
      if (provider.tools.length > 0) return yield* malformedInput("text prompts only: tools are not supported")
      if (provider.responseFormat.type !== "text") {
        return yield* malformedInput("text prompts only: structured output is not supported")
      }
      const conversation = Prompt.decode(provider.prompt)
      if (Either.isLeft(conversation)) return yield* malformedInput(conversation.left.message)
      const messages = Messages.encode(conversation.right)
      if (Either.isLeft(messages)) return yield* malformedInput(messages.left.message)
      const result = yield* Effect.tryPromise({
        try: (abortSignal) =>
          generateText({ allowSystemInMessages: true, ...settings, model, messages: messages.right, abortSignal }),
        catch: callFailed
      })
      const decoded = Response.decodeResponse(result)
      if (Either.isLeft(decoded)) {
        return yield* new AiError.MalformedOutput({ module, method, description: decoded.left.message })
      }
      const { toolResults: _, ...response } = decoded.right
      return parts(response)
    })
  return LanguageModel.make({
    generateText: generate,
    streamText: (provider) =>
      Stream.flatMap(Stream.fromEffect(generate(provider)), (p) => Stream.fromIterable(streamParts(p)))
  })
}

/**
 * The AI SDK model as a layer of `LanguageModel`.
 *
 * @category layers
 * @since 0.2.0
 */
export const layer = (model: AiSdkModel, settings?: Settings): Layer.Layer<LanguageModel.LanguageModel> =>
  Layer.effect(LanguageModel.LanguageModel, make(model, settings))
