/**
 * The chat model channel: the `@effect/ai` `LanguageModel` an environment's judges, graders and
 * simulated users call, configured apart from the policy's. Import it only where `@effect/ai` (and,
 * for those providers, `@effect/ai-openai` or `@effect/ai-anthropic`) is installed.
 *
 * Why a channel of its own: training infrastructure points the *policy's* traffic at a gateway by
 * setting `OPENAI_BASE_URL` and `OPENAI_API_KEY` in the process; a judge that followed them would
 * ask that gateway for a model it does not serve and fail, or worse. So, as the reference's chat
 * backends do:
 *
 * - **The provider** is `provider` when given, else `CHAT_PROVIDER`, else `openai`. An unknown name
 *   logs a warning and falls back to `openai` (a typo must not take a rollout down).
 * - **Dedicated mode**, as soon as any dedicated setting is present (the `chat_api_key` session
 *   secret, `CHAT_API_KEY` or `CHAT_BASE_URL`): the key is the `chat_api_key` secret, else
 *   `CHAT_API_KEY`, else the provider's session secret (`openai_api_key`, `anthropic_api_key`); the
 *   URL `CHAT_BASE_URL` or the provider's default. The process's `OPENAI_*` (or `ANTHROPIC_*`)
 *   settings are not read at all. `CHAT_PROVIDER` alone picks a provider but not this mode, as in
 *   the reference.
 * - **Otherwise** (legacy mode) the provider's own settings, as its SDK would read them: its session
 *   secret, else `OPENAI_API_KEY` (`ANTHROPIC_API_KEY`); the URL `OPENAI_BASE_URL`
 *   (`ANTHROPIC_BASE_URL`) or the default.
 * - **No key** fails with {@link MissingKey} when the channel is built (at server start for
 *   {@link layer}, at session start for {@link make} in `setup`), never in the middle of a rollout.
 *
 * Settings are read with Effect `Config` (so a `ConfigProvider` can supply them) and the key is
 * `Redacted` throughout: it prints as `<redacted>`, request headers carrying it are redacted, and an
 * error from the provider that quotes it is replaced by one that does not.
 *
 * Providers: `openai` speaks Chat Completions (`POST {url}/chat/completions`), the wire of the
 * reference's backend and of OpenAI-compatible gateways, through this library's own codecs;
 * `openai-responses` is `@effect/ai-openai` (the Responses API); `anthropic` is
 * `@effect/ai-anthropic` (the reference has no Anthropic backend; here it follows the same rules
 * with `anthropic_api_key` and `ANTHROPIC_*`). Each needs an `HttpClient`.
 *
 * @example
 * ```ts
 * import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
 * import * as ConfigProvider from "effect/ConfigProvider"
 * import * as Effect from "effect/Effect"
 * import * as ChatModel from "openreward-effect/ChatModel"
 *
 * const config = ConfigProvider.fromMap(new Map([
 *   ["CHAT_BASE_URL", "https://gateway.example/v1"],
 *   ["OPENAI_API_KEY", "sk-policy"] // not the judge's: dedicated mode ignores it
 * ]))
 *
 * const program = Effect.gen(function*() {
 *   const withSecret = yield* ChatModel.settings({ secrets: {} }).pipe(Effect.either)
 *   console.log(withSecret._tag === "Left" ? withSecret.left.message : "")
 * })
 *
 * Effect.runPromise(program.pipe(Effect.withConfigProvider(config), Effect.provide(NodeHttpClient.layerUndici)))
 * ```
 *
 * ```text output
 * no API key for the chat model (openai, dedicated mode): looked in session secret chat_api_key, CHAT_API_KEY, session secret openai_api_key
 * ```
 *
 * @since 0.2.0
 */
import * as AnthropicClient from "@effect/ai-anthropic/AnthropicClient"
import * as AnthropicLanguageModel from "@effect/ai-anthropic/AnthropicLanguageModel"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Environment from "./Environment.js"
import * as OpenAiChat from "./internal/chatModel/openAiChat.js"
import * as internal from "./internal/chatModel/settings.js"

/**
 * A provider of the channel: `openai` (Chat Completions), `openai-responses` (the Responses API)
 * or `anthropic` (Messages).
 *
 * @category models
 * @since 0.2.0
 */
export type Provider = "openai" | "openai-responses" | "anthropic"

/**
 * Every provider.
 *
 * @category constants
 * @since 0.2.0
 */
export const providers: ReadonlyArray<Provider> = ["openai", "openai-responses", "anthropic"]

/**
 * How the settings were found: `dedicated` (a `CHAT_*` setting or the `chat_api_key` secret is
 * present) or `legacy` (none is; the provider's own settings).
 *
 * @category models
 * @since 0.2.0
 */
export type Mode = "dedicated" | "legacy"

/**
 * The resolved channel: the provider, where requests go and with which key. The sources name where
 * each came from, never what it is.
 *
 * @category models
 * @since 0.2.0
 */
export interface Settings {
  readonly provider: Provider
  readonly mode: Mode
  readonly apiUrl: string
  /** `CHAT_BASE_URL`, the provider's URL setting, or `default`. */
  readonly urlSource: string
  readonly apiKey: Redacted.Redacted<string>
  /** `session secret chat_api_key`, `CHAT_API_KEY`, `session secret openai_api_key`, `OPENAI_API_KEY`, ... */
  readonly keySource: string
}

/**
 * No API key for the channel. `looked` lists where one was looked for, in order.
 *
 * @category errors
 * @since 0.2.0
 */
export class MissingKey extends Schema.TaggedError<MissingKey>("openreward-effect/ChatModel/MissingKey")(
  "MissingKey",
  {
    provider: Schema.Literal(...providers),
    mode: Schema.Literal("dedicated", "legacy"),
    looked: Schema.Array(Schema.String)
  }
) {
  /**
   * @since 0.2.0
   */
  override get message(): string {
    return `no API key for the chat model (${this.provider}, ${this.mode} mode): looked in ${this.looked.join(", ")}`
  }
}

/**
 * Where to look besides the configuration.
 *
 * @category models
 * @since 0.2.0
 */
export interface SettingsOptions {
  /** This provider instead of `CHAT_PROVIDER`'s. */
  readonly provider?: string | undefined
  /** The session's secrets (`session.secrets` in `setup`): `chat_api_key` and the provider's key. */
  readonly secrets?: Environment.Secrets | undefined
}

/**
 * Resolve the channel's settings from the configuration and the secrets (see the module's rules).
 *
 * @category constructors
 * @since 0.2.0
 */
export const settings = (options?: SettingsOptions): Effect.Effect<Settings, MissingKey | ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const provider = yield* internal.provider(options?.provider)
    const found = yield* internal.resolve(provider, options?.secrets)
    if (Option.isNone(found.apiKey)) {
      return yield* new MissingKey({ provider, mode: found.mode, looked: found.looked })
    }
    return {
      provider,
      mode: found.mode,
      apiUrl: found.apiUrl,
      urlSource: found.urlSource,
      apiKey: found.apiKey.value,
      keySource: found.keySource
    }
  })

/**
 * Options of {@link make} and {@link layer}.
 *
 * @category models
 * @since 0.2.0
 */
export interface Options extends SettingsOptions {
  /** The model name, as the provider knows it. */
  readonly model: string
  /**
   * The most tokens an answer may have (`max_completion_tokens`, `max_output_tokens` or
   * `max_tokens`). Anthropic requires one: its default there is 4096.
   */
  readonly maxTokens?: number | undefined
}

/** An error that quotes the key (a provider echoing it back, say) is replaced by one that does not. */
const scrub = (key: string) => (error: unknown): unknown => {
  if (key.length < 4) return error
  let text: string
  try {
    text = `${String((error as { message?: unknown })?.message ?? "")} ${JSON.stringify(error)}`
  } catch {
    text = String(error)
  }
  if (!text.includes(key)) return error
  const message = String((error as { message?: unknown })?.message ?? "the chat model call failed")
  return new AiError.UnknownError({
    module: "ChatModel",
    method: "generateText",
    description: message.split(key).join("[REDACTED]")
  })
}

const scrubbed = (service: LanguageModel.Service, key: string): LanguageModel.Service => {
  const mapError = scrub(key)
  return {
    generateText:
      ((options: never) =>
        Effect.mapError(service.generateText(options), mapError)) as unknown as LanguageModel.Service["generateText"],
    generateObject:
      ((options: never) =>
        Effect.mapError(service.generateObject(options), mapError)) as unknown as LanguageModel.Service[
          "generateObject"
        ],
    streamText:
      ((options: never) => Stream.mapError(service.streamText(options), mapError)) as unknown as LanguageModel.Service[
        "streamText"
      ]
  }
}

/**
 * The `LanguageModel` of a resolved channel.
 *
 * @category constructors
 * @since 0.2.0
 */
export const fromSettings = (
  resolved: Settings,
  options: Pick<Options, "model" | "maxTokens">
): Effect.Effect<LanguageModel.Service, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const key = Redacted.value(resolved.apiKey)
    switch (resolved.provider) {
      case "openai": {
        const service = yield* OpenAiChat.make({
          apiUrl: resolved.apiUrl,
          apiKey: resolved.apiKey,
          model: options.model,
          maxTokens: options.maxTokens
        })
        return scrubbed(service, key)
      }
      case "openai-responses": {
        const client = yield* OpenAiClient.make({ apiKey: resolved.apiKey, apiUrl: resolved.apiUrl })
        const service = yield* OpenAiLanguageModel.make({
          model: options.model,
          config: options.maxTokens === undefined ? {} : { max_output_tokens: options.maxTokens }
        }).pipe(Effect.provideService(OpenAiClient.OpenAiClient, client))
        return scrubbed(service, key)
      }
      case "anthropic": {
        const client = yield* AnthropicClient.make({ apiKey: resolved.apiKey, apiUrl: resolved.apiUrl })
        const service = yield* AnthropicLanguageModel.make({
          model: options.model,
          config: options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }
        }).pipe(Effect.provideService(AnthropicClient.AnthropicClient, client))
        return scrubbed(service, key)
      }
    }
  })

/**
 * Build the channel's `LanguageModel` now: resolve the settings ({@link settings}) and make the
 * provider's model. In an environment's `setup`, with `secrets: session.secrets`, this is a channel
 * per session, built (or failed with {@link MissingKey}) when the session starts.
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = (
  options: Options
): Effect.Effect<LanguageModel.Service, MissingKey | ConfigError.ConfigError, HttpClient.HttpClient | Scope.Scope> =>
  Effect.flatMap(settings(options), (resolved) => fromSettings(resolved, options))

/**
 * The channel as a layer of `LanguageModel`: resolved, or failed with {@link MissingKey}, when the
 * layer is built.
 *
 * @category layers
 * @since 0.2.0
 */
export const layer = (
  options: Options
): Layer.Layer<LanguageModel.LanguageModel, MissingKey | ConfigError.ConfigError, HttpClient.HttpClient> =>
  Layer.scoped(LanguageModel.LanguageModel, make(options))
