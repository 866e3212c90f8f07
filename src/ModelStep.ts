/**
 * Ready-made model steps for {@link Episode.run}: each takes a provider's official SDK client, as you
 * constructed it (base URL, API key, retries, proxies are yours), and the request parameters of your
 * choice (`model`, `max_tokens`, `temperature`, ...), and gives a {@link Episode.Step} that sends the
 * conversation and the tools in matching shapes ({@link ApiRequest.make}), then reads the answer back
 * into a canonical turn (the format's `decodeResponse`, or `decodeStream` with `stream: true`).
 *
 * | step | SDK | call |
 * | --- | --- | --- |
 * | `openAiChat` | `openai` | `client.chat.completions.create` |
 * | `openRouter` | `openai`, pointed at OpenRouter | `client.chat.completions.create` |
 * | `openAiResponses` | `openai` | `client.responses.create` |
 * | `anthropic` | `@anthropic-ai/sdk` | `client.messages.create` |
 * | `google` | `@google/genai` | `ai.models.generateContent` / `generateContentStream` |
 *
 * The clients are typed structurally, so this module imports no SDK: install the one you use.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as AnthropicFormat from "./AnthropicFormat.js"
import * as ApiRequest from "./ApiRequest.js"
import type * as ConversionError from "./ConversionError.js"
import type * as Episode from "./Episode.js"
import * as GoogleFormat from "./GoogleFormat.js"
import type * as ModelResponse from "./ModelResponse.js"
import * as OpenAiFormat from "./OpenAiFormat.js"
import * as OpenAiResponsesFormat from "./OpenAiResponsesFormat.js"
import * as OpenRouterFormat from "./OpenRouterFormat.js"

/**
 * The provider's API call failed (an HTTP error, a timeout, a connection refused, ...). `status`
 * is the HTTP status when the SDK reported one; `message` is the SDK's message, without its stack.
 *
 * @category errors
 * @since 0.2.0
 */
export class ModelCallFailed extends Schema.TaggedError<ModelCallFailed>(
  "openreward-effect/ModelStep/ModelCallFailed"
)("ModelCallFailed", {
  api: Schema.String,
  status: Schema.optional(Schema.Number),
  reason: Schema.String
}) {
  override get message(): string {
    return `${this.api}: the model call failed${this.status === undefined ? "" : ` (${this.status})`}: ${this.reason}`
  }
}

/**
 * What a ready-made step can fail with: the request could not be made from the conversation, the
 * call failed, or the answer could not be read.
 *
 * @category errors
 * @since 0.2.0
 */
export type StepError = ApiRequest.Error | ModelCallFailed | ConversionError.DecodeError | ConversionError.ResponseError

/**
 * Common options of every step.
 *
 * @category models
 * @since 0.2.0
 */
export interface Options<A extends ApiRequest.Api> {
  /** Stream the answer (the SDK's `stream: true`) and fold its events into the turn. */
  readonly stream?: boolean | undefined
  /** Options of the request conversion ({@link ApiRequest.make}). */
  readonly request?: ApiRequest.Options<A> | undefined
  /**
   * Content the provider hosts (server tools' calls and results, code execution, MCP calls, ...):
   * `"refuse"` (default): the answer is an `UnsupportedContent` error naming it; `"keep"`: kept in
   * the turn as provider blocks, which the next request sends back as they came. Without it, the
   * episode's `providerContent` ({@link Episode.Options}) decides.
   */
  readonly providerContent?: "refuse" | "keep" | undefined
  /**
   * A tool call whose arguments are not a JSON object (the turn cut at `max_tokens`, a stray
   * quote). `"keep"` (default): the turn is kept, the call with input `{}` and the text under
   * `detail.invalid_arguments` (`Block.invalidArguments`), and `Episode.run` answers it with an
   * error result the model can correct. `"error"`: the step fails with `InvalidToolArguments`.
   * Gemini sends arguments as JSON objects, never as text, so the `google` step has no such calls.
   */
  readonly invalidToolArguments?: "error" | "keep" | undefined
}

/** The `providerContent` a step reads its answer with: its own option, else the episode's. */
const decodeOptions = (
  options: { readonly providerContent?: "refuse" | "keep" | undefined } | undefined,
  input: Episode.StepInput
): { readonly providerContent?: "refuse" | "keep" | undefined } => {
  const providerContent = options?.providerContent ?? input.providerContent
  return providerContent === undefined ? {} : { providerContent }
}

/** How a step reads the arguments of a call: kept unless the options say otherwise. */
const decoding = <A extends ApiRequest.Api>(options: Options<A> | undefined, input: Episode.StepInput) => ({
  invalidToolArguments: options?.invalidToolArguments ?? "keep",
  ...decodeOptions(options, input)
})

/** Parameters a step passes through: everything but what the step itself fills in. */
type Params<Omitted extends string> =
  & { readonly model: string }
  & { readonly [key: string]: unknown }
  & {
    readonly [K in Omitted]?: never
  }

/** The SDK method a step calls, typed loosely enough that each SDK's overloads fit. */
interface Create {
  // A method (not a property), so that the SDK's narrower parameter types are accepted.
  create(body: object, options?: object): PromiseLike<unknown>
}

/**
 * The part of an `openai` client that {@link openAiChat} uses.
 *
 * @category models
 * @since 0.2.0
 */
export interface OpenAiChatClient {
  readonly chat: { readonly completions: Create }
}

/**
 * The part of an `openai` client that {@link openAiResponses} uses.
 *
 * @category models
 * @since 0.2.0
 */
export interface OpenAiResponsesClient {
  readonly responses: Create
}

/**
 * The part of an `@anthropic-ai/sdk` client that {@link anthropic} uses.
 *
 * @category models
 * @since 0.2.0
 */
export interface AnthropicClient {
  readonly messages: Create
}

/**
 * The part of a `@google/genai` client that {@link google} uses.
 *
 * @category models
 * @since 0.2.0
 */
export interface GoogleClient {
  readonly models: {
    generateContent(params: object): PromiseLike<unknown>
    generateContentStream(params: object): PromiseLike<unknown>
  }
}

const isAsyncIterable = (u: unknown): u is AsyncIterable<unknown> =>
  typeof u === "object" && u !== null && Symbol.asyncIterator in u

const statusOf = (e: unknown): number | undefined => {
  if (typeof e !== "object" || e === null) return undefined
  const status = (e as { readonly status?: unknown }).status ?? (e as { readonly code?: unknown }).code
  return typeof status === "number" ? status : undefined
}

const reasonOf = (e: unknown): string =>
  e instanceof Error ? e.message.split("\n")[0]! : typeof e === "string" ? e : "unknown error"

const callFailed = (api: string) => (e: unknown) =>
  new ModelCallFailed({
    api,
    ...(statusOf(e) === undefined ? {} : { status: statusOf(e)! }),
    reason: reasonOf(e)
  })

/** Call the SDK, then read the answer as one object or as a stream of events. */
const answer = <E1, E2>(
  api: string,
  call: () => PromiseLike<unknown>,
  decodeOne: (u: unknown) => Either.Either<ModelResponse.ModelResponse, E1>,
  decodeMany: (events: Stream.Stream<unknown, ModelCallFailed>) => Effect.Effect<ModelResponse.ModelResponse, E2>
): Effect.Effect<ModelResponse.ModelResponse, ModelCallFailed | E1 | E2> =>
  Effect.flatMap(
    Effect.tryPromise({ try: () => Promise.resolve(call()), catch: callFailed(api) }),
    (result): Effect.Effect<ModelResponse.ModelResponse, ModelCallFailed | E1 | E2> =>
      isAsyncIterable(result)
        ? decodeMany(Stream.fromAsyncIterable(result, callFailed(api)))
        : decodeOne(result)
  )

const request = <A extends ApiRequest.Api>(
  api: A,
  input: Episode.StepInput,
  options: ApiRequest.Options<A> | undefined
): Effect.Effect<ApiRequest.Request<A>, ApiRequest.Error> =>
  ApiRequest.make(api, input.conversation, input.tools, options)

/**
 * A step that calls Chat Completions with the `openai` SDK:
 * `client.chat.completions.create({ ...params, messages, tools })`.
 *
 * @category constructors
 * @since 0.2.0
 */
export const openAiChat = (
  client: OpenAiChatClient,
  params: Params<"messages" | "tools" | "stream">,
  options?: Options<"openai-chat">
): Episode.Step<StepError> =>
(input) =>
  Effect.flatMap(request("openai-chat", input, options?.request), (req) =>
    answer(
      "openai-chat",
      () =>
        client.chat.completions.create(
          options?.stream === true
            ? { ...params, ...req, stream: true, stream_options: { include_usage: true } }
            : { ...params, ...req }
        ),
      (u) => OpenAiFormat.decodeResponse(u, decoding(options, input)),
      (events) => OpenAiFormat.decodeStream(events, decoding(options, input))
    ))

/**
 * {@link openAiChat} for OpenRouter: the same call with OpenRouter-flavoured messages, read back as
 * OpenRouter answers (`reasoning`, `reasoning_details`).
 *
 * @category constructors
 * @since 0.2.0
 */
export const openRouter = (
  client: OpenAiChatClient,
  params: Params<"messages" | "tools" | "stream">,
  options?: Options<"openrouter">
): Episode.Step<StepError> =>
(input) =>
  Effect.flatMap(request("openrouter", input, options?.request), (req) =>
    answer(
      "openrouter",
      () =>
        client.chat.completions.create(
          options?.stream === true
            ? { ...params, ...req, stream: true, stream_options: { include_usage: true } }
            : { ...params, ...req }
        ),
      (u) => OpenRouterFormat.decodeResponse(u, decoding(options, input)),
      (events) => OpenRouterFormat.decodeStream(events, decoding(options, input))
    ))

/**
 * A step that calls the Responses API with the `openai` SDK:
 * `client.responses.create({ ...params, input, tools })`. Pass `store: false` in `params` to keep
 * the conversation client-side, as an episode does.
 *
 * @category constructors
 * @since 0.2.0
 */
export const openAiResponses = (
  client: OpenAiResponsesClient,
  params: Params<"input" | "tools" | "stream">,
  options?: Options<"openai-responses">
): Episode.Step<StepError> =>
(input) =>
  Effect.flatMap(request("openai-responses", input, options?.request), (req) =>
    answer(
      "openai-responses",
      () => client.responses.create({ ...params, ...req, ...(options?.stream === true ? { stream: true } : {}) }),
      (u) => OpenAiResponsesFormat.decodeResponse(u, decoding(options, input)),
      (events) => OpenAiResponsesFormat.decodeStream(events, decoding(options, input))
    ))

/**
 * A step that calls the Messages API with `@anthropic-ai/sdk`:
 * `client.messages.create({ ...params, system, messages, tools })`. `params` needs `max_tokens`.
 *
 * @category constructors
 * @since 0.2.0
 */
export const anthropic = (
  client: AnthropicClient,
  params: Params<"messages" | "tools" | "system" | "stream"> & { readonly max_tokens: number },
  options?: Options<"anthropic">
): Episode.Step<StepError> =>
(input) =>
  Effect.flatMap(request("anthropic", input, options?.request), (req) =>
    answer(
      "anthropic",
      () => client.messages.create({ ...params, ...req, ...(options?.stream === true ? { stream: true } : {}) }),
      (u) => AnthropicFormat.decodeResponse(u, decoding(options, input)),
      (events) => AnthropicFormat.decodeStream(events, decoding(options, input))
    ))

/**
 * A step that calls Gemini with `@google/genai`: `ai.models.generateContent({ ...params, contents,
 * config })` (or `generateContentStream`). `params.config` (temperature, thinking, ...) is merged
 * with the request's `systemInstruction` and `tools`.
 *
 * @category constructors
 * @since 0.2.0
 */
export const google = (
  client: GoogleClient,
  params: Params<"contents"> & { readonly config?: { readonly [key: string]: unknown } },
  options?: Options<"google">
): Episode.Step<StepError> =>
(input) =>
  Effect.flatMap(request("google", input, options?.request), (req) => {
    const body = { ...params, ...req, config: { ...params.config, ...req.config } }
    return answer(
      "google",
      () => options?.stream === true ? client.models.generateContentStream(body) : client.models.generateContent(body),
      (u) => GoogleFormat.decodeResponse(u, decodeOptions(options, input)),
      (events) => GoogleFormat.decodeStream(events, decodeOptions(options, input))
    )
  })
