/**
 * An `@effect/ai` `LanguageModel` over the OpenAI Chat Completions API (`POST {apiUrl}/chat/completions`),
 * the wire the reference's chat backend speaks and every OpenAI-compatible gateway serves. Built from
 * this library's own codecs: the prompt is read as a canonical conversation (`EffectAi.decode`),
 * written as Chat Completions messages (`OpenAiFormat.encode`), and the answer read back with
 * `OpenAiFormat.decodeResponse` into response parts. Text prompts only: a request with tools or a
 * structured-output format is refused.
 *
 * @internal
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as OpenAiFormat from "../../OpenAiFormat.js"
import * as Prompt from "../effectAi/prompt.js"
import { parts, streamParts } from "./parts.js"

const module = "ChatModel"
const method = "chatCompletion"

/**
 * @internal
 */
export interface Options {
  readonly apiUrl: string
  readonly apiKey: Redacted.Redacted<string>
  readonly model: string
  readonly maxTokens?: number | undefined
}

const malformedInput = (description: string) => new AiError.MalformedInput({ module, method, description })

/**
 * @internal
 */
export const make = (options: Options): Effect.Effect<LanguageModel.Service, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) =>
        request.pipe(
          HttpClientRequest.prependUrl(options.apiUrl.replace(/\/+$/, "")),
          HttpClientRequest.bearerToken(options.apiKey),
          HttpClientRequest.acceptJson
        )
      ),
      HttpClient.filterStatusOk
    )

    const generate = (provider: LanguageModel.ProviderOptions) =>
      Effect.gen(function*() {
        if (provider.tools.length > 0) {
          return yield* malformedInput("the Chat Completions channel sends text prompts; tools are not supported")
        }
        if (provider.responseFormat.type !== "text") {
          return yield* malformedInput(
            "the Chat Completions channel sends text prompts; structured output is not supported"
          )
        }
        const conversation = Prompt.decode(provider.prompt)
        if (Either.isLeft(conversation)) return yield* malformedInput(conversation.left.message)
        const messages = OpenAiFormat.encode(conversation.right)
        if (Either.isLeft(messages)) return yield* malformedInput(messages.left.message)
        const body = {
          model: options.model,
          messages: messages.right,
          ...(options.maxTokens === undefined ? {} : { max_completion_tokens: options.maxTokens })
        }
        const response = yield* client.execute(
          HttpClientRequest.bodyUnsafeJson(HttpClientRequest.post("/chat/completions"), body)
        ).pipe(
          Effect.flatMap((r) => r.json),
          Effect.catchTags({
            RequestError: (error) => Effect.fail(AiError.HttpRequestError.fromRequestError({ module, method, error })),
            ResponseError: (error) => AiError.HttpResponseError.fromResponseError({ module, method, error })
          })
        )
        const decoded = OpenAiFormat.decodeResponse(response)
        if (Either.isLeft(decoded)) {
          return yield* new AiError.MalformedOutput({ module, method, description: decoded.left.message })
        }
        return parts(decoded.right)
      }).pipe(Effect.scoped)

    return yield* LanguageModel.make({
      generateText: generate,
      streamText: (provider) =>
        Stream.flatMap(Stream.fromEffect(generate(provider)), (p) => Stream.fromIterable(streamParts(p)))
    })
  })
