/**
 * Offline tests of a harness: loopback stand-ins of the model providers' HTTP APIs, and your
 * environments served on a free port. Point the official SDKs (`openai`, `@anthropic-ai/sdk`,
 * `@google/genai`), `@effect/ai-openai` or the AI SDK at a stand-in's `url`, and the client at the
 * served `url`, and a whole episode runs without a network or an API key.
 *
 * - {@link standIn}: a scripted two-step agent in a provider's API (a tool call, then a final
 *   answer), whole or streamed as the request asks, in the shapes the provider sends.
 * - {@link replay}: answers recorded from the real API, one per request, in order.
 * - {@link loopback}: any answers you write, for the cases the others do not cover (errors, odd
 *   streams).
 * - {@link serve}: environments on 127.0.0.1 and a free port (needs the server's optional peers,
 *   which this module loads only when `serve` is called).
 *
 * Each binds 127.0.0.1 only, records every request it answers, and closes with `close()` or
 * `await using`; {@link scoped} ties one to an Effect `Scope`.
 *
 * ```ts
 * import * as Either from "effect/Either"
 * import { AnthropicFormat } from "openreward-effect"
 * import * as Testing from "openreward-effect/Testing"
 *
 * await using model = await Testing.standIn("anthropic", { toolInput: () => ({ id: "4411" }) })
 * const response = await fetch(`${model.url}/v1/messages`, {
 *   method: "POST",
 *   headers: { "content-type": "application/json" },
 *   body: JSON.stringify({
 *     model: "claude-sonnet-4-5",
 *     max_tokens: 1024,
 *     messages: [{ role: "user", content: "Where is order 4411?" }],
 *     tools: [{ name: "lookup_order", input_schema: { type: "object" } }]
 *   })
 * })
 * const answer = Either.getOrThrow(AnthropicFormat.decodeResponse(await response.json()))
 * console.log(answer.stopReason, answer.message.blocks.map((b) => b.type))
 * console.log(model.requests.map((r) => `${r.method} ${r.path}`))
 * ```
 *
 * ```text output
 * tool_calls [ 'reasoning', 'text', 'tool_call' ]
 * [ 'POST /v1/messages' ]
 * ```
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type * as ApiRequest from "./ApiRequest.js"
import type * as Environment from "./Environment.js"
import * as Peers from "./internal/peers.js"
import * as Anthropic from "./internal/testing/anthropic.js"
import type * as Api from "./internal/testing/api.js"
import * as Google from "./internal/testing/google.js"
import * as Loopback from "./internal/testing/loopback.js"
import * as OpenAiChat from "./internal/testing/openaiChat.js"
import * as OpenAiResponses from "./internal/testing/openaiResponses.js"
import type * as ServeModule from "./internal/testing/serve.js"

/**
 * A request as a stand-in received it: the body parsed as JSON when it is JSON, else its text
 * (`undefined` when empty).
 *
 * @category models
 * @since 0.2.0
 */
export interface Request {
  readonly method: string
  /** The path, without the query. */
  readonly path: string
  /** The query, with its `?` (`""` when there is none). */
  readonly query: string
  /** The headers, their names lower-cased. */
  readonly headers: { readonly [name: string]: string | ReadonlyArray<string> | undefined }
  readonly body: unknown
}

/**
 * What a {@link Route} answers: a JSON body, a stream of server-sent events (each `data` JSON-encoded
 * unless it is a string, after an `event:` line when `event` is set), or any text.
 *
 * @category models
 * @since 0.2.0
 */
export type Answer =
  | { readonly _tag: "json"; readonly status?: number | undefined; readonly body: unknown }
  | {
    readonly _tag: "sse"
    readonly events: ReadonlyArray<{ readonly event?: string | undefined; readonly data: unknown }>
  }
  | { readonly _tag: "text"; readonly status?: number | undefined; readonly contentType: string; readonly body: string }

/**
 * Answers one request; `index` counts the requests the stand-in received before it. A route that
 * throws is answered with a 500 saying what it threw.
 *
 * @category models
 * @since 0.2.0
 */
export type Route = (request: Request, index: number) => Answer

/**
 * A running stand-in.
 *
 * @category models
 * @since 0.2.0
 */
export interface StandIn extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`: the base URL to give the SDK (see {@link standIn} for each SDK's). */
  readonly url: string
  /** Every request received, in order. */
  readonly requests: ReadonlyArray<Request>
  /** Stop listening and close every connection (once; later calls wait for the first). */
  readonly close: () => Promise<void>
}

/**
 * What a scripted stand-in answers. Every stand-in plays the same two-step agent: while the last
 * request message is not a tool's result, it calls the first tool the request offers, with
 * `toolInput`; then it answers with `answer`'s text and calls no tool.
 *
 * @category models
 * @since 0.2.0
 */
export interface Script {
  /** The input of the tool call, given the tool's name (default `{}`). */
  readonly toolInput?: ((toolName: string) => Record<string, unknown>) | undefined
  /**
   * The final answer, given the tool's output as text (default `The tool said: <output>`). Gemini
   * sends a function's result as an object: the text is its JSON.
   */
  readonly answer?: ((toolOutput: string) => string) | undefined
  /** The model name the answers carry (default: each stand-in's own, such as `stand-in-gpt`). */
  readonly model?: string | undefined
}

/**
 * One answer of a {@link replay}, as recorded from the API: a whole answer (with its status, 200
 * unless given; an error answer too), a stream given as its events' JSON (framed as the API frames
 * them: named events for Anthropic and the Responses API, a final `data: [DONE]` for Chat
 * Completions), or a stream as the raw text of its server-sent events.
 *
 * @category models
 * @since 0.2.0
 */
export type Recording =
  | { readonly body: unknown; readonly status?: number | undefined }
  | { readonly events: ReadonlyArray<unknown> }
  | { readonly sse: string }

const apis: { readonly [A in ApiRequest.Api]: Api.Api } = {
  "openai-chat": OpenAiChat.api,
  openrouter: OpenAiChat.api,
  "openai-responses": OpenAiResponses.api,
  anthropic: Anthropic.api,
  google: Google.api
}

const apiOf = (api: ApiRequest.Api): Api.Api => {
  const found = apis[api]
  if (found === undefined) throw new TypeError(`Testing: no stand-in speaks ${JSON.stringify(api)}`)
  return found
}

/**
 * Start a stand-in that answers every request with `route`, on 127.0.0.1 and a free port.
 *
 * @category constructors
 * @since 0.2.0
 */
export const loopback = (route: Route): Promise<StandIn> => Loopback.start(route)

/**
 * Start a scripted stand-in of a provider's API (see {@link Script}), on 127.0.0.1 and a free port.
 * It answers the API's model call, whole or streamed as the request asks, in the shapes the API
 * sends, and the API's 404 to anything else. Give the SDK its `url`:
 *
 * | `api` | the call it answers | SDK setup |
 * | --- | --- | --- |
 * | `openai-chat`, `openrouter` | `POST /v1/chat/completions` | `new OpenAI({ baseURL: url + "/v1" })`, `createOpenAI({ baseURL: url + "/v1" }).chat(model)` |
 * | `openai-responses` | `POST /v1/responses` | `new OpenAI({ baseURL: url + "/v1" })`, `OpenAiClient.layer({ apiUrl: url + "/v1" })` |
 * | `anthropic` | `POST /v1/messages` | `new Anthropic({ baseURL: url })` |
 * | `google` | `POST /v1beta/models/{model}:generateContent`, `:streamGenerateContent` | `new GoogleGenAI({ httpOptions: { baseUrl: url } })` |
 *
 * The Responses stand-in also answers 400 to a request the API would refuse (tools in the Chat
 * Completions shape, a function call output without its call, a reasoning item without its id).
 *
 * @category constructors
 * @since 0.2.0
 */
export const standIn = (api: ApiRequest.Api, script: Script = {}): Promise<StandIn> =>
  Loopback.start(apiOf(api).scripted(script))

/**
 * Start a stand-in of a provider's API that answers its model calls with `recordings`, the first
 * call with the first, and so on. A request for a stream gets a recorded stream and a request for a
 * whole answer a whole answer; a mismatch, or a call after the last recording, is answered with a
 * 400 in the API's error shape that says so (so the SDK does not retry it). Requests that are not
 * the API's model call get its 404 and use no recording.
 *
 * @category constructors
 * @since 0.2.0
 */
export const replay = (api: ApiRequest.Api, recordings: ReadonlyArray<Recording>): Promise<StandIn> => {
  const speaks = apiOf(api)
  let answered = 0
  return Loopback.start((request) => {
    if (!speaks.matches(request)) {
      return speaks.error(404, `the replay has no route ${request.method} ${request.path}`)
    }
    const n = ++answered
    const recording = recordings[n - 1]
    if (recording === undefined) {
      return speaks.error(400, `the replay has ${recordings.length} recorded answer(s); this is call ${n}`)
    }
    const streaming = speaks.streaming(request)
    if ("body" in recording) {
      return streaming
        ? speaks.error(400, `call ${n} asks for a stream, but recording ${n} is a whole answer`)
        : { _tag: "json", status: recording.status, body: recording.body }
    }
    if (!streaming) return speaks.error(400, `call ${n} asks for a whole answer, but recording ${n} is a stream`)
    return "events" in recording
      ? speaks.stream(recording.events)
      : { _tag: "text", contentType: "text/event-stream", body: recording.sse }
  })
}

/**
 * A running server of environments ({@link serve}).
 *
 * @category models
 * @since 0.2.0
 */
export interface Served extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` (or the host it was asked to listen on): the client's base URL. */
  readonly url: string
  /** Stop it: sessions still open are ended (their teardown runs), then it stops listening. */
  readonly close: () => Promise<void>
}

/**
 * Where {@link serve} listens, and what it provides to the environments.
 *
 * @category models
 * @since 0.2.0
 */
export interface ServeOptions<R = never> {
  /** Default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Default 0: a free port. */
  readonly port?: number | undefined
  /** The services the environments need (their requirements), when they need any. */
  readonly layer?: Layer.Layer<R, unknown> | undefined
}

/**
 * Serve environments over the OpenReward protocol on 127.0.0.1 and a free port, with the server's
 * default settings, for a test's client to connect to. Environments that need services take a
 * `layer` that provides them. For other server settings, or to serve in production, use
 * `Server.layer` (docs/environments.md, docs/deploying.md).
 *
 * It needs the server's optional peers (`@effect/platform`, `@effect/platform-node`,
 * `@effect/experimental`); without them it rejects with an `Error` that names the one missing and
 * the command that installs them. A definition the server refuses rejects with its
 * `InvalidDefinition`.
 *
 * @category constructors
 * @since 0.2.0
 */
export const serve = async <const Envs extends ReadonlyArray<Environment.Any>>(
  environments: Envs,
  ...[options]: [Environment.Context<Envs[number]>] extends [never] ? [options?: ServeOptions]
    : [
      options: ServeOptions<Environment.Context<Envs[number]>> & {
        readonly layer: Layer.Layer<Environment.Context<Envs[number]>, unknown>
      }
    ]
): Promise<Served> => {
  let module: typeof ServeModule
  try {
    module = await import("./internal/testing/serve.js")
  } catch (e) {
    const missing = Peers.missingPackage(e)
    if (missing === undefined) throw e
    throw new Error(Peers.hint("Testing.serve", missing))
  }
  return module.serve(environments, (options ?? {}) as ServeOptions<unknown>)
}

/**
 * A stand-in or a server as a resource of the surrounding `Scope`: started when acquired, closed
 * when the scope closes. A failure to start is a defect.
 *
 * ```ts no-run
 * const model = yield* Testing.scoped(() => Testing.standIn("anthropic"))
 * const served = yield* Testing.scoped(() => Testing.serve([MyEnv]))
 * ```
 *
 * @category constructors
 * @since 0.2.0
 */
export const scoped = <A extends { readonly close: () => Promise<void> }>(
  start: () => Promise<A>
): Effect.Effect<A, never, Scope.Scope> => Effect.acquireRelease(Effect.promise(start), (a) => Effect.promise(a.close))
