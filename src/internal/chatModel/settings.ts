/**
 * Where the chat model channel's provider, base URL and key come from, as the reference's chat
 * backends resolve them: an explicit provider, else `CHAT_PROVIDER`, else `openai` (an unknown name
 * warns and falls back); then, when any dedicated setting is present (the `chat_api_key` session
 * secret, `CHAT_API_KEY` or `CHAT_BASE_URL`), only the dedicated settings and the provider's session
 * secret; otherwise the provider's own settings, as its SDK would read them.
 *
 * @internal
 */
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as ChatModel from "../../ChatModel.js"
import type * as Environment from "../../Environment.js"

/**
 * @internal
 */
export interface ProviderSettings {
  /** The session secret that holds the provider's key. */
  readonly secret: string
  readonly keyEnv: string
  readonly urlEnv: string
  readonly url: string
}

const openai: ProviderSettings = {
  secret: "openai_api_key",
  keyEnv: "OPENAI_API_KEY",
  urlEnv: "OPENAI_BASE_URL",
  url: "https://api.openai.com/v1"
}

/**
 * @internal
 */
export const providers: { readonly [P in ChatModel.Provider]: ProviderSettings } = {
  openai,
  "openai-responses": openai,
  anthropic: {
    secret: "anthropic_api_key",
    keyEnv: "ANTHROPIC_API_KEY",
    urlEnv: "ANTHROPIC_BASE_URL",
    url: "https://api.anthropic.com"
  }
}

const isProvider = (name: string): name is ChatModel.Provider => Object.prototype.hasOwnProperty.call(providers, name)

const trimmed = (value: string): Option.Option<string> => {
  const t = value.trim()
  return t === "" ? Option.none() : Option.some(t)
}

/** A setting that is absent or blank is unset. */
const optionalString = (name: string): Config.Config<Option.Option<string>> =>
  Config.option(Config.string(name)).pipe(Config.map(Option.flatMap(trimmed)))

const optionalSecret = (name: string): Config.Config<Option.Option<Redacted.Redacted<string>>> =>
  Config.option(Config.redacted(name)).pipe(
    Config.map(Option.flatMap((r) => Option.map(trimmed(Redacted.value(r)), (v) => Redacted.make(v))))
  )

/**
 * A session secret by name, as the reference looks them up: the name in any case, the value
 * trimmed, blank as absent.
 *
 * @internal
 */
export const secret = (
  secrets: Environment.Secrets | undefined,
  name: string
): Option.Option<Redacted.Redacted<string>> => {
  if (secrets === undefined) return Option.none()
  const wanted = name.toLowerCase()
  for (const key of Object.keys(secrets)) {
    if (key.toLowerCase() !== wanted) continue
    const value = secrets[key]
    if (value === undefined || !Redacted.isRedacted(value)) continue
    const raw: unknown = Redacted.value(value)
    if (typeof raw !== "string") continue
    const t = trimmed(raw)
    if (Option.isSome(t)) return Option.some(Redacted.make(t.value))
  }
  return Option.none()
}

/**
 * The provider to use, and a warning when the one asked for is unknown.
 *
 * @internal
 */
export const provider = (explicit: string | undefined): Effect.Effect<ChatModel.Provider, ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const given = (explicit ?? "").trim().toLowerCase()
    const fromEnv = Option.getOrElse(yield* optionalString("CHAT_PROVIDER"), () => "").toLowerCase()
    const chosen = given !== "" ? given : fromEnv
    if (chosen === "") return "openai"
    if (isProvider(chosen)) return chosen
    yield* Effect.logWarning("chat model provider unknown; using openai").pipe(
      Effect.annotateLogs({
        requested: chosen,
        source: given !== "" ? "option" : "CHAT_PROVIDER",
        available: Object.keys(providers).join(", "),
        using: "openai"
      })
    )
    return "openai"
  })

/**
 * @internal
 */
export interface Found {
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly keySource: string
  readonly apiUrl: string
  readonly urlSource: string
  readonly mode: ChatModel.Mode
  /** Where a key was looked for, in order. */
  readonly looked: ReadonlyArray<string>
}

const first = (
  candidates: ReadonlyArray<readonly [string, Option.Option<Redacted.Redacted<string>>]>
): { readonly key: Option.Option<Redacted.Redacted<string>>; readonly source: string } => {
  for (const [source, key] of candidates) if (Option.isSome(key)) return { key, source }
  return { key: Option.none(), source: "" }
}

/**
 * Resolve the key and URL for a provider from the configuration and the session's secrets.
 *
 * @internal
 */
export const resolve = (
  name: ChatModel.Provider,
  secrets: Environment.Secrets | undefined
): Effect.Effect<Found, ConfigError.ConfigError> =>
  Effect.gen(function*() {
    const p = providers[name]!
    const chatKeyEnv = yield* optionalSecret("CHAT_API_KEY")
    const chatUrl = yield* optionalString("CHAT_BASE_URL")
    const chatKeySecret = secret(secrets, "chat_api_key")
    const providerSecret = secret(secrets, p.secret)
    if (Option.isSome(chatKeySecret) || Option.isSome(chatKeyEnv) || Option.isSome(chatUrl)) {
      // Dedicated: the process's provider settings (the policy's) are not read at all.
      const candidates = [
        ["session secret chat_api_key", chatKeySecret],
        ["CHAT_API_KEY", chatKeyEnv],
        [`session secret ${p.secret}`, providerSecret]
      ] as const
      const { key, source } = first(candidates)
      return {
        apiKey: key,
        keySource: source,
        apiUrl: Option.getOrElse(chatUrl, () => p.url),
        urlSource: Option.isSome(chatUrl) ? "CHAT_BASE_URL" : "default",
        mode: "dedicated",
        looked: candidates.map(([s]) => s)
      }
    }
    const providerUrl = yield* optionalString(p.urlEnv)
    const candidates = [
      [`session secret ${p.secret}`, providerSecret],
      [p.keyEnv, yield* optionalSecret(p.keyEnv)]
    ] as const
    const { key, source } = first(candidates)
    return {
      apiKey: key,
      keySource: source,
      apiUrl: Option.getOrElse(providerUrl, () => p.url),
      urlSource: Option.isSome(providerUrl) ? p.urlEnv : "default",
      mode: "legacy",
      looked: candidates.map(([s]) => s)
    }
  })
