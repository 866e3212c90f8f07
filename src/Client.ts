/**
 * The client of OpenReward environment servers: list an environment's splits, tasks and tools, and
 * run sessions that read the task's prompt or conversation and call its tools.
 *
 * It speaks the reference SDK's wire protocol (openreward 0.1.167), so it works against the
 * reference Python server, this library's server, and the hosted platform alike.
 *
 * - {@link Client} is a service over `@effect/platform`'s `HttpClient`; {@link layer} builds it,
 *   reading `OPENREWARD_API_KEY` and `OPENREWARD_URL` (or `OPENREWARD_SESSION_URL`) when no option
 *   says otherwise, as the reference does.
 * - `client.environment(name)` is a handle on one environment (`"name"` or `"namespace/name"`, with
 *   an optional `variant`). Its first call asks the server which environments it serves: a listed
 *   name selects that environment, a name or variant it does not serve is `UnknownEnvironment`.
 * - Redirects are followed within the base URL's origin only (or to `allowedRedirectOrigins`), and
 *   every answer is bounded in size and time: see docs/client.md.
 * - `environment.session(task)` is a **scoped resource**: it creates a session, keeps it alive with a
 *   ping every 10 seconds, and deletes it when the scope closes.
 * - `session.getMessages({ format })` returns the task's conversation, canonical or in a provider's
 *   shape, typed per format; it falls back to the prompt as one user message on servers without
 *   `/messages`.
 *
 * @example
 * ```ts no-run
 * import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
 * import * as Effect from "effect/Effect"
 * import * as Client from "openreward-effect/Client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* Client.Client
 *   const env = client.environment("dialogueenv")
 *   return yield* Effect.scoped(Effect.gen(function*() {
 *     const session = yield* env.session({ split: "train", index: 0 })
 *     const { system, messages } = yield* session.getMessages({ format: "anthropic" })
 *     const tools = yield* session.listTools({ format: "anthropic" })
 *     const output = yield* session.callTool("answer", { text: "..." })
 *     return { system, messages, tools, reward: output.reward }
 *   }))
 * })
 *
 * program.pipe(
 *   Effect.provide(Client.layer({ baseUrl: "http://localhost:8080" })),
 *   Effect.provide(NodeHttpClient.layerUndici),
 *   Effect.runPromise
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as ApiRequest from "./ApiRequest.js"
import type * as ClientError from "./ClientError.js"
import type * as Conversation from "./Conversation.js"
import type * as Format from "./Format.js"
import * as internal from "./internal/client/environment.js"
import type * as Retry from "./internal/client/retry.js"
import * as Version from "./internal/version.js"
import * as Json from "./Json.js"
import type * as Prompt from "./Prompt.js"
import type * as Protocol from "./Protocol.js"
import type * as Provider from "./Provider.js"
import type * as ToolFormat from "./ToolFormat.js"

// -----------------------------------------------------------------------------
// models
// -----------------------------------------------------------------------------

/**
 * A task of an environment: its JSON `spec`, and where it came from. `environmentName` is the name
 * the server answered with, which `/create` needs to route a session to the right environment.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Task = Schema.Struct({
  serverName: Schema.String,
  environmentName: Schema.String,
  namespace: Schema.NullOr(Schema.String),
  spec: Json.JsonObject
}).annotations({ identifier: "Task" })

/**
 * @category models
 * @since 0.1.0
 */
export interface Task extends Schema.Schema.Type<typeof Task> {}

/**
 * A task by position: the reference's `session(split=..., index=...)`.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskIndex {
  readonly split: string
  readonly index: number
}

/**
 * A secret with the domains it may reach (enforced by the hosted platform's egress proxy).
 *
 * @category models
 * @since 0.1.0
 */
export interface Secret {
  readonly value: string
  readonly allowedDomains: ReadonlyArray<string>
}

/**
 * Options of {@link Environment.session}.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionOptions {
  /**
   * Secrets for the environment, sent in the `X-Secrets` header. A plain string may reach the
   * domains the reference lists for well-known names (`OPENAI_API_KEY` → `api.openai.com`, ...), and
   * no domain for any other name (the reference rejects such a secret instead).
   */
  readonly secrets?: { readonly [key: string]: string | Secret } | undefined
  /** A built-in toolset to bind to the session (`claude-code`, `codex`, ...); the server checks the name. */
  readonly toolset?: string | undefined
  /** Environment variables to override on the environment's container (hosted platform). */
  readonly envOverrides?: { readonly [key: string]: string } | undefined
}

/**
 * The formats `getMessages` can return: `none` for the canonical conversation, or a format. The
 * conversion runs on the client, as in the reference; `openai-responses` and `sharegpt` are this
 * library's own (the reference's `get_messages` does not take them).
 *
 * @category models
 * @since 0.1.0
 */
export type MessagesFormat = "none" | Provider.Format

/**
 * What `getMessages` returns for a format.
 *
 * @category models
 * @since 0.1.0
 */
export type Messages<F extends MessagesFormat> = F extends Provider.Format ? Format.Wire[F]
  : Conversation.Conversation

/**
 * The formats `listTools` can return: `none` for the server's tool specs, or a tool format.
 *
 * @category models
 * @since 0.1.0
 */
export type ToolsFormat = "none" | ToolFormat.Format

/**
 * What `listTools` returns for a format.
 *
 * @category models
 * @since 0.1.0
 */
export type Tools<F extends ToolsFormat> = F extends ToolFormat.Format ? ReadonlyArray<ToolFormat.Wire[F]>
  : ReadonlyArray<Protocol.ToolSpec>

/**
 * A task's conversation as the server served it, with what was left out on the way.
 *
 * @category models
 * @since 0.1.0
 */
export interface MessagesResult {
  readonly conversation: Conversation.Conversation
  /**
   * `messages` when the server answered `/messages`; `prompt` when it has no such route (servers
   * before reference 0.1.157) and the conversation is the prompt as one user message.
   */
  readonly source: "messages" | "prompt"
  /** Blocks of types this library does not know (from a newer server), skipped rather than failing. */
  readonly skipped: ReadonlyArray<Conversation.SkippedBlock>
}

/**
 * One candidate of {@link Session.scoreGroup}: a conversation (sent with `metadata: null`), or its
 * messages with trainer-owned correlation `metadata`, as the reference's `GroupCandidate`.
 *
 * @category models
 * @since 0.2.0
 */
export type Candidate =
  | Conversation.Conversation
  | { readonly messages: Conversation.Conversation; readonly metadata?: Json.JsonObject | null | undefined }

/**
 * A live session on one task. Every call fails with {@link ClientError.SessionTerminated} once the
 * session is terminated (a tool failed, the pings failed, or the server answered 410); a call in
 * flight at that moment is interrupted.
 *
 * @category models
 * @since 0.1.0
 */
export interface Session {
  /** The session id the server minted. */
  readonly sid: string
  /** The environment this session runs on. */
  readonly environment: Environment
  /** What the session was created from. */
  readonly source: Task | TaskIndex
  /** The task's prompt (`/prompt`): text and image blocks, other block types skipped (and logged). */
  readonly getPrompt: Effect.Effect<Prompt.Prompt, ClientError.SessionError>
  /**
   * The task's conversation, canonical (`format` omitted or `"none"`) or in a provider's shape.
   * Blocks of unknown types are skipped (and logged; see {@link Session.readMessages}). Against a
   * server without `/messages` (it answers 404), the prompt wrapped as one user message, and the
   * session remembers not to ask again.
   */
  readonly getMessages: <F extends MessagesFormat = "none">(
    options?: { readonly format?: F }
  ) => Effect.Effect<
    Messages<F>,
    F extends Provider.Format ? ClientError.SessionError | ClientError.ConversionFailed : ClientError.SessionError
  >
  /** The canonical conversation, where it came from, and the blocks that were skipped. */
  readonly readMessages: Effect.Effect<MessagesResult, ClientError.SessionError>
  /**
   * The session's tools (`/task_tools`: shared, task-specific and toolset tools), as the server lists
   * them or in a provider format. Against a server without `/task_tools`, the environment's `/tools`.
   */
  readonly listTools: <F extends ToolsFormat = "none">(
    options?: { readonly format?: F } & ToolFormat.Options
  ) => Effect.Effect<
    Tools<F>,
    F extends ToolFormat.Format ? ClientError.SessionError | ClientError.ConversionFailed : ClientError.SessionError
  >
  /**
   * The conversation and the session's tools for one provider API, in shapes that match, ready to
   * spread into that SDK's create call (see {@link ApiRequest}): `{ messages, tools }` for
   * `openai-chat` and `openrouter`, `{ input, tools }` for `openai-responses`, `{ system, messages,
   * tools }` for `anthropic`, `{ contents, config }` for `google`.
   */
  readonly request: <A extends ApiRequest.Api>(
    api: A,
    options?: ApiRequest.Options<A>
  ) => Effect.Effect<ApiRequest.Request<A>, ClientError.SessionError | ClientError.ConversionFailed>
  /**
   * The block types the server accepts in messages (`message_block_types` of its tool list); text and
   * image only for servers that do not say. Read once per session.
   */
  readonly messageBlockTypes: Effect.Effect<ReadonlyArray<string>, ClientError.SessionError>
  /**
   * Call a tool. A refused call fails with {@link ClientError.ToolCallError} (the session lives on);
   * a tool that raised fails with {@link ClientError.ToolFailed} and terminates the session. A lost
   * connection is resumed by the call's `task_id`, so the tool runs once.
   */
  readonly callTool: (
    name: string,
    input?: Json.JsonObject
  ) => Effect.Effect<
    Protocol.ToolOutput,
    ClientError.SessionError | ClientError.ToolCallError | ClientError.ToolFailed
  >
  /**
   * The environment's terminal tool (`terminal_tool` of the session's tool list, read once with the
   * list and kept for the session), or none. A terminal tool is hidden from the tools a model sees:
   * a harness sends the model's final plain message to it ({@link Session.callTerminalTool}).
   */
  readonly terminalTool: Effect.Effect<Option.Option<Protocol.TerminalToolSpec>, ClientError.SessionError>
  /**
   * Whether a plain assistant message (one without tool calls) ends the episode: true exactly when
   * the environment has a terminal tool. The reference's `is_assistant_message_final`.
   */
  readonly isAssistantMessageFinal: Effect.Effect<boolean, ClientError.SessionError>
  /**
   * Call the terminal tool with the model's final message: as its one argument (`terminal_tool.arg`),
   * or with no input when the tool takes none (the text is then not sent). Fails with
   * `ToolCallError` (reason `not_found`, `tool` empty) when the environment has no terminal tool;
   * otherwise as {@link Session.callTool}.
   */
  readonly callTerminalTool: (
    text?: string
  ) => Effect.Effect<
    Protocol.ToolOutput,
    ClientError.SessionError | ClientError.ToolCallError | ClientError.ToolFailed
  >
  /**
   * Whether the environment scores groups (`supports_score_group` of the tool list, read once; a
   * server that does not say does not).
   */
  readonly supportsScoreGroup: Effect.Effect<boolean, ClientError.SessionError>
  /**
   * Score a group of candidate completions of this session's task (`/score_group`): one score per
   * candidate, in order. A candidate is a conversation, or `{ messages, metadata }` with
   * trainer-owned `metadata` that the environment may echo (see {@link Candidate}).
   *
   * - Candidates holding block types beyond text and image are checked against the server's
   *   `message_block_types` first: a type it does not accept is `ScoreGroupUnsupported` naming it,
   *   and nothing is sent.
   * - An environment that scores no groups (the server answers 404) is `ScoreGroupUnsupported`.
   * - Scoring that raised (the stream's `error` event) is `ScoreGroupFailed`.
   *
   * None of these terminates the session: scoring changes nothing on the server. The answer streams
   * as `/call`'s does, through the same bounds (`heartbeatTimeout`, `callTimeout`,
   * `maxResponseBytes`) and redirect policy; a connection lost after the server named the task is
   * resumed by its `task_id`, and one lost before it is sent again (scoring is safe to repeat).
   */
  readonly scoreGroup: (
    candidates: ReadonlyArray<Candidate>
  ) => Effect.Effect<
    ReadonlyArray<Protocol.GroupScore>,
    ClientError.SessionError | ClientError.ScoreGroupUnsupported | ClientError.ScoreGroupFailed
  >
  /** Why the session was terminated, if it was. */
  readonly terminated: Effect.Effect<Option.Option<ClientError.SessionTerminated>>
}

/**
 * A handle on one environment of a server. Each call (other than `session`) opens a throw-away
 * session id, as the reference does, so the hosted platform can route it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Environment {
  /** The environment's name, without namespace. */
  readonly name: string
  /** The namespace of `"namespace/name"`, if any. */
  readonly namespace: string | undefined
  /** The variant: requests go to `/{variant}/...` with one, to bare paths (the server's default) without. */
  readonly variant: string | undefined
  /** The server's URL. */
  readonly baseUrl: string
  /** `namespace/name` or `name`: the `X-Deployment` header. */
  readonly deployment: string
  /** The environment's splits. */
  readonly splits: Effect.Effect<ReadonlyArray<Protocol.Split>, ClientError.EnvironmentError>
  /** Every task of a split. */
  readonly tasks: (
    split: string
  ) => Effect.Effect<ReadonlyArray<Task>, ClientError.EnvironmentError | ClientError.UnknownSplit>
  /** How many tasks a split has. */
  readonly numTasks: (split: string) => Effect.Effect<number, ClientError.EnvironmentError | ClientError.UnknownSplit>
  /** One task by index (negative indices count from the end, as in Python). */
  readonly task: (
    split: string,
    index: number
  ) => Effect.Effect<Task, ClientError.EnvironmentError | ClientError.UnknownSplit>
  /** The tasks of `range(start, stop)`, with Python slice semantics. */
  readonly taskRange: (
    split: string,
    range?: { readonly start?: number | undefined; readonly stop?: number | undefined }
  ) => Effect.Effect<ReadonlyArray<Task>, ClientError.EnvironmentError | ClientError.UnknownSplit>
  /** The environment's shared tools (`/tools`), as listed or in a provider format. */
  readonly listTools: <F extends ToolsFormat = "none">(
    options?: { readonly format?: F } & ToolFormat.Options
  ) => Effect.Effect<
    Tools<F>,
    F extends ToolFormat.Format ? ClientError.EnvironmentError | ClientError.ConversionFailed
      : ClientError.EnvironmentError
  >
  /**
   * A session on a task, from a {@link Task} or a `{ split, index }`, as a scoped resource: created
   * (`/create_session`, `/create`) when acquired, kept alive by a ping every 10 seconds, deleted
   * (`/delete`, `/delete_session`; errors ignored) when the scope closes.
   */
  readonly session: (
    source: Task | TaskIndex,
    options?: SessionOptions
  ) => Effect.Effect<Session, ClientError.EnvironmentError | ClientError.UnknownSplit, Scope.Scope>
}

/**
 * Options of {@link environment}.
 *
 * @category models
 * @since 0.1.0
 */
export interface EnvironmentOptions {
  /**
   * The variant (an environment name on a multi-environment server): requests go to
   * `/{variant}/...`. A server that lists its environments must list it, else the handle's calls
   * fail with `UnknownEnvironment`.
   */
  readonly variant?: string | undefined
  /** Another server than the client's. */
  readonly baseUrl?: string | undefined
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Service {
  /** The server URL environments use unless they say otherwise. */
  readonly baseUrl: string
  /**
   * A handle on an environment: `"name"` or `"namespace/name"` (sent as `X-Deployment`). When the
   * server lists its environments (`/list_environments`, asked once per handle) and the name is one
   * of them, requests go to that environment; a name it does not list is `UnknownEnvironment`,
   * except `namespace/name`, the platform's naming, which then reaches the server's default.
   */
  readonly environment: (name: string, options?: EnvironmentOptions) => Environment
}

/**
 * @category services
 * @since 0.1.0
 */
export class Client extends Context.Tag("openreward-effect/Client")<Client, Service>() {}

// -----------------------------------------------------------------------------
// configuration
// -----------------------------------------------------------------------------

/**
 * How one kind of request is retried: `retries` retries after the first attempt, waiting `base`,
 * then twice as long each time up to `cap` (or the server's `Retry-After`, capped too). A server
 * answering "still starting" (503 with `X-Backend-State: starting`) is waited for, without counting
 * retries, up to `rideOut`.
 *
 * @category models
 * @since 0.1.0
 */
export interface RetryPolicy {
  readonly retries: number
  readonly base: Duration.DurationInput
  readonly cap: Duration.DurationInput
  readonly rideOut: Duration.DurationInput
}

/**
 * The reference SDK's retry policies: plain requests 2 retries from 1 s; `/create_session` 3 retries
 * and `/call` 5, from 0.5 s; all capped at 10 s, riding out a starting server for 10 minutes.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultRetry: {
  readonly statuses: ReadonlyArray<number>
  readonly requests: RetryPolicy
  readonly sessions: RetryPolicy
  readonly calls: RetryPolicy
} = {
  statuses: [429, 502, 503, 504],
  requests: { retries: 2, base: "1 second", cap: "10 seconds", rideOut: "10 minutes" },
  sessions: { retries: 3, base: "500 millis", cap: "10 seconds", rideOut: "10 minutes" },
  calls: { retries: 5, base: "500 millis", cap: "10 seconds", rideOut: "10 minutes" }
}

/**
 * Options of {@link make} and {@link layer}. Every field is optional.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /**
   * The environment server. Default: `OPENREWARD_SESSION_URL`, else the `sessions.` host of
   * `OPENREWARD_URL`, else `https://sessions.openreward.ai`.
   */
  readonly baseUrl?: string | undefined
  /** Sent as `X-API-Key`. Default: `OPENREWARD_API_KEY`, else empty. */
  readonly apiKey?: string | Redacted.Redacted<string> | undefined
  /**
   * The OpenReward API, one of the hosts the API key may reach from a session. Default:
   * `OPENREWARD_API_URL`, else the `api.` host of `OPENREWARD_URL`.
   */
  readonly apiUrl?: string | undefined
  /** Default `openreward-effect/<version>`, the version in package.json. */
  readonly userAgent?: string | undefined
  /** How often a session pings. Default 10 seconds. */
  readonly pingInterval?: Duration.DurationInput | undefined
  /** Consecutive failed pings that terminate a session. Default 5. */
  readonly maxPingFailures?: number | undefined
  /**
   * An event stream silent for this long (no data, no keep-alive), or whose answer does not start
   * within it, is lost. Default 30 seconds.
   */
  readonly heartbeatTimeout?: Duration.DurationInput | undefined
  /**
   * How long creating a session id (`/create_session`) may take in total, retries included; also
   * for the throw-away ids of environment-level calls. Default 30 minutes.
   */
  readonly createTimeout?: Duration.DurationInput | undefined
  /**
   * How long one tool call (the `/call` stream, reconnects included) may take in total. A stream
   * that keeps sending keep-alives or drips data never trips the heartbeat; this ends it. Default 1
   * hour; `Duration.infinity` for none (the reference has none).
   */
  readonly callTimeout?: Duration.DurationInput | undefined
  /**
   * How long one attempt of a plain request may take, from sending it to the last byte of the
   * answer. A session's first request waits for the environment's `setup`, so keep it generous.
   * Default 10 minutes; a timed-out attempt is retried as a lost connection.
   */
  readonly requestTimeout?: Duration.DurationInput | undefined
  /**
   * The largest answer read: a body, or the data of one event stream (its joined chunks, and any
   * one event). Larger is a `MalformedResponse`, not retried. Default 64 MiB.
   */
  readonly maxResponseBytes?: number | undefined
  /** Redirects followed in a row. Default 10. */
  readonly maxRedirects?: number | undefined
  /**
   * Origins (`https://host:port`) other than the base URL's that a redirect may lead to, for
   * deployments that redirect on purpose. `X-API-Key`, `X-Session-ID` and `X-Deployment` are sent
   * there; a request that carries `X-Secrets` is never redirected to another origin. Default none.
   */
  readonly allowedRedirectOrigins?: ReadonlyArray<string> | undefined
  /** Retry settings; see {@link defaultRetry}. */
  readonly retry?: {
    /** Statuses worth retrying. A 500 is not: it is the environment's own code failing. */
    readonly statuses?: ReadonlyArray<number> | undefined
    readonly requests?: Partial<RetryPolicy> | undefined
    readonly sessions?: Partial<RetryPolicy> | undefined
    readonly calls?: Partial<RetryPolicy> | undefined
  } | undefined
}

/** `https://openreward.ai` → `https://sessions.openreward.ai`, as the reference derives its hosts. */
const prependSubdomain = (
  url: string,
  subdomain: string
): Effect.Effect<string, ConfigError.ConfigError> =>
  Effect.try({
    try: () => {
      const parsed = new URL(url)
      parsed.host = `${subdomain}.${parsed.host}`
      return parsed.toString().replace(/\/$/, "")
    },
    catch: () => ConfigError.InvalidData(["OPENREWARD_URL"], `Expected a URL, but received ${JSON.stringify(url)}`)
  })

const policy = (base: RetryPolicy, override: Partial<RetryPolicy> | undefined): Retry.Policy => {
  const merged = { ...base, ...override }
  return {
    retries: merged.retries,
    base: Duration.decode(merged.base),
    cap: Duration.decode(merged.cap),
    rideOut: Duration.decode(merged.rideOut)
  }
}

const optionalString = (name: string) => Config.option(Config.string(name))

/** `https://Host:443/x` → `https://host`; a ConfigError for anything but an http(s) URL. */
const originOption = (value: string): Effect.Effect<string, ConfigError.ConfigError> => {
  try {
    const url = new URL(value)
    if (url.protocol === "http:" || url.protocol === "https:") return Effect.succeed(url.origin)
  } catch {
    // reported below
  }
  return Effect.fail(
    ConfigError.InvalidData(
      ["allowedRedirectOrigins"],
      `Expected an http(s) origin, but received ${JSON.stringify(value)}`
    )
  )
}

const count = (name: string, value: number | undefined, fallback: number) =>
  value === undefined
    ? Effect.succeed(fallback)
    : Number.isSafeInteger(value) && value >= 0
    ? Effect.succeed(value)
    : Effect.fail(ConfigError.InvalidData([name], `Expected a non-negative integer, but received ${value}`))

/**
 * Build the client. Options left out are read from the environment (`OPENREWARD_API_KEY`,
 * `OPENREWARD_URL`, `OPENREWARD_SESSION_URL`, `OPENREWARD_API_URL`) through `Config`.
 *
 * Redirects are followed by the client itself, never by the `HttpClient`: within the base URL's
 * origin (the reference server's `308`s to its default environment), or to an origin listed in
 * `allowedRedirectOrigins`; anything else fails with `RedirectRefused` before a byte goes there.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options?: Options): Effect.Effect<Service, ConfigError.ConfigError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const http = HttpClient.withScope(yield* HttpClient.HttpClient)
    const allowedOrigins = new Set(yield* Effect.forEach(options?.allowedRedirectOrigins ?? [], originOption))
    const maxRedirects = yield* count("maxRedirects", options?.maxRedirects, 10)
    const maxResponseBytes = yield* count("maxResponseBytes", options?.maxResponseBytes, 64 * 1024 * 1024)
    const root = Option.getOrElse(yield* optionalString("OPENREWARD_URL"), () => "https://openreward.ai")
    const baseUrl = options?.baseUrl ?? (yield* Option.match(yield* optionalString("OPENREWARD_SESSION_URL"), {
      onSome: Effect.succeed,
      onNone: () => prependSubdomain(root, "sessions")
    }))
    const apiUrl = options?.apiUrl ?? (yield* Option.match(yield* optionalString("OPENREWARD_API_URL"), {
      onSome: Effect.succeed,
      onNone: () => prependSubdomain(root, "api")
    }))
    const apiKey = options?.apiKey === undefined
      ? Option.match(yield* Config.option(Config.redacted("OPENREWARD_API_KEY")), {
        onNone: () => "",
        onSome: Redacted.value
      })
      : typeof options.apiKey === "string"
      ? options.apiKey
      : Redacted.value(options.apiKey)
    const serviceUrls = [
      Option.getOrElse(yield* optionalString("OPENREWARD_WEB_SEARCH_URL"), () => "https://search.openreward.ai/search"),
      Option.getOrElse(yield* optionalString("OPENREWARD_WEB_FETCH_URL"), () => "https://search.openreward.ai/fetch")
    ]
    const retry = options?.retry
    const settings: internal.Settings = {
      transport: {
        http,
        apiKey,
        userAgent: options?.userAgent ?? `openreward-effect/${Version.version}`,
        heartbeat: Duration.decode(options?.heartbeatTimeout ?? "30 seconds"),
        requestTimeout: Duration.decode(options?.requestTimeout ?? "10 minutes"),
        retryStatuses: new Set(retry?.statuses ?? defaultRetry.statuses),
        maxResponseBytes,
        maxRedirects,
        allowedOrigins
      },
      baseUrl,
      apiUrl,
      serviceUrls,
      pingInterval: Duration.decode(options?.pingInterval ?? "10 seconds"),
      maxPingFailures: options?.maxPingFailures ?? 5,
      createTimeout: Duration.decode(options?.createTimeout ?? "30 minutes"),
      callTimeout: Duration.decode(options?.callTimeout ?? "1 hour"),
      policies: {
        requests: policy(defaultRetry.requests, retry?.requests),
        sessions: policy(defaultRetry.sessions, retry?.sessions),
        calls: policy(defaultRetry.calls, retry?.calls)
      }
    }
    return Client.of({
      baseUrl: internal.trimUrl(baseUrl),
      environment: (name, environmentOptions) => internal.makeEnvironment(settings, name, environmentOptions)
    })
  })

/**
 * The client as a layer; see {@link make}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = (options?: Options): Layer.Layer<Client, ConfigError.ConfigError, HttpClient.HttpClient> =>
  Layer.effect(Client, make(options))

/**
 * A handle on an environment, from the {@link Client} in context.
 *
 * @category accessors
 * @since 0.1.0
 */
export const environment = (name: string, options?: EnvironmentOptions): Effect.Effect<Environment, never, Client> =>
  Effect.map(Client, (client) => client.environment(name, options))
