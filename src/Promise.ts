/**
 * The library for code that does not use Effect: the client, sessions, the episode runner and the
 * codecs with `Promise`s and exceptions (the codecs' throwing forms live in `openreward-effect/Throwing`,
 * which needs only `effect`, and are re-exported here). Every failure rejects (or throws) with the library's tagged
 * error itself, so `error._tag`, `ClientError.isClientError` and `ConversionError.isConversionError`
 * work on what you catch.
 *
 * ```ts no-run
 * import * as OpenReward from "openreward-effect/Promise"
 *
 * const client = OpenReward.connect({ baseUrl: "http://127.0.0.1:8080" })
 * const env = client.environment("dialogueenv")
 * await using session = await env.session({ split: "train", index: 0 })
 * const messages = await session.getMessages({ format: "openai" })
 * ```
 *
 * HTTP goes through the platform's `fetch` (`@effect/platform`'s `FetchHttpClient`), so
 * `@effect/platform` must be installed; `@effect/platform-node` is not needed.
 *
 * @since 0.2.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as fs from "node:fs/promises"
import * as ClientModule from "./Client.js"
import * as Episode from "./Episode.js"
import type * as Json from "./Json.js"
import type * as ModelResponse from "./ModelResponse.js"
import type * as Prompt from "./Prompt.js"
import type * as Protocol from "./Protocol.js"
import * as Throwing from "./Throwing.js"
import type * as ToolFormat from "./ToolFormat.js"

/**
 * Options of {@link connect}: those of `Client.layer` (base URL, API key, retries, ...).
 *
 * @category models
 * @since 0.2.0
 */
export type Options = ClientModule.Options

/**
 * A model step for {@link Session.runEpisode}: the conversation and tools in, the model's answer out,
 * as a `Promise`, or as an Effect (the ready-made steps of `openreward-effect/ModelStep`) that needs
 * nothing.
 *
 * @category models
 * @since 0.2.0
 */
export type Step = (
  input: Episode.StepInput
) => PromiseLike<ModelResponse.ModelResponse> | Effect.Effect<ModelResponse.ModelResponse, unknown>

const toStep = (step: Step): Episode.Step<unknown> => (input) =>
  Effect.suspend(() => {
    let result: ReturnType<Step>
    try {
      result = step(input)
    } catch (e) {
      return Effect.fail(new Cause.UnknownException(e))
    }
    return Effect.isEffect(result)
      ? result
      : Effect.tryPromise({ try: () => Promise.resolve(result), catch: (e) => new Cause.UnknownException(e) })
  })

/**
 * Options of {@link Session.runEpisode}: those of `Episode.run`, with a repair hook that may return
 * a `Promise` (of the call to run instead, or `undefined` to answer the error).
 *
 * @category models
 * @since 0.2.0
 */
export interface EpisodeOptions extends Omit<Episode.Options, "repairToolCall"> {
  readonly repairToolCall?:
    | ((call: Episode.InvalidCall) => Episode.RepairedCall | undefined | PromiseLike<Episode.RepairedCall | undefined>)
    | undefined
}

/**
 * Options of {@link Environment.runEpisodes}: those of `Episode.runMany` (groups included), with a
 * sink and a repair hook that may return `Promise`s.
 *
 * @category models
 * @since 0.2.0
 */
export interface RunEpisodesOptions extends Omit<Episode.RunManyOptions, "onEpisode" | "repairToolCall"> {
  readonly onEpisode?: ((episode: Episode.Episode<unknown>) => void | Promise<void>) | undefined
  readonly repairToolCall?: EpisodeOptions["repairToolCall"]
}

/** The hook as `Episode.Options` takes it: a rejection or a throw is a defect, as a bug in a step's code is. */
const repairHook = (
  hook: EpisodeOptions["repairToolCall"]
): Episode.Options["repairToolCall"] =>
  hook === undefined ? undefined : (call) =>
    Effect.map(
      Effect.promise(() => Promise.resolve(hook(call))),
      (fixed) => Option.fromNullable(fixed)
    )

/**
 * An open session. Close it with `close()` or `await using`; closing deletes it on the server.
 *
 * @category models
 * @since 0.2.0
 */
export interface Session extends AsyncDisposable {
  readonly sid: string
  readonly source: ClientModule.Task | ClientModule.TaskIndex
  readonly getPrompt: () => Promise<Prompt.Prompt>
  readonly getMessages: <F extends ClientModule.MessagesFormat = "none">(
    options?: { readonly format?: F }
  ) => Promise<ClientModule.Messages<F>>
  readonly readMessages: () => Promise<ClientModule.MessagesResult>
  readonly listTools: <F extends ClientModule.ToolsFormat = "none">(
    options?: { readonly format?: F } & ToolFormat.Options
  ) => Promise<ClientModule.Tools<F>>
  readonly callTool: (name: string, input?: Json.JsonObject) => Promise<Protocol.ToolOutput>
  /** The environment's terminal tool, or `undefined` (see `Client.Session.terminalTool`). */
  readonly terminalTool: () => Promise<Protocol.TerminalToolSpec | undefined>
  /** Whether a plain assistant message ends the episode: the environment has a terminal tool. */
  readonly isAssistantMessageFinal: () => Promise<boolean>
  /**
   * Call the terminal tool with the model's final message; rejects with `ToolCallError` (reason
   * `not_found`) when there is none.
   */
  readonly callTerminalTool: (text?: string) => Promise<Protocol.ToolOutput>
  /** Whether the environment scores groups (`supports_score_group`). */
  readonly supportsScoreGroup: () => Promise<boolean>
  /**
   * Score a group of candidates of this session's task (see `Client.Session.scoreGroup`); rejects
   * with `ScoreGroupUnsupported` or `ScoreGroupFailed`, and the session stays open.
   */
  readonly scoreGroup: (
    candidates: ReadonlyArray<ClientModule.Candidate>
  ) => Promise<ReadonlyArray<Protocol.GroupScore>>
  /** Run one episode on this session (see `Episode.run`). Resolves with the episode, whatever stopped it. */
  readonly runEpisode: (step: Step, options?: EpisodeOptions) => Promise<Episode.Episode<unknown>>
  /** The Effect session underneath, for code that mixes both styles. */
  readonly effect: ClientModule.Session
  readonly close: () => Promise<void>
}

/**
 * One environment of the server. `name` is the name as given (`"namespace/name"` included).
 *
 * @category models
 * @since 0.2.0
 */
export interface Environment {
  readonly name: string
  readonly splits: () => Promise<ReadonlyArray<Protocol.Split>>
  readonly tasks: (split: string) => Promise<ReadonlyArray<ClientModule.Task>>
  readonly numTasks: (split: string) => Promise<number>
  readonly task: (split: string, index: number) => Promise<ClientModule.Task>
  readonly listTools: <F extends ClientModule.ToolsFormat = "none">(
    options?: { readonly format?: F } & ToolFormat.Options
  ) => Promise<ClientModule.Tools<F>>
  readonly session: (
    source: ClientModule.Task | ClientModule.TaskIndex,
    options?: ClientModule.SessionOptions
  ) => Promise<Session>
  /**
   * Run an episode on each task, each in its own session (see `Episode.runMany`); with `groupSize`,
   * groups of rollouts per task, scored by the environment's `/score_group`.
   */
  readonly runEpisodes: (
    sources: Iterable<ClientModule.Task | ClientModule.TaskIndex>,
    step: Step,
    options?: RunEpisodesOptions
  ) => Promise<ReadonlyArray<Episode.Episode<unknown>>>
  /** The Effect environment underneath, for code that mixes both styles. */
  readonly effect: () => Promise<ClientModule.Environment>
}

/**
 * A connection to an OpenReward server. `close()` (or `await using`) stops every session still open.
 *
 * @category models
 * @since 0.2.0
 */
export interface Client extends AsyncDisposable {
  readonly environment: (name: string, options?: ClientModule.EnvironmentOptions) => Environment
  readonly close: () => Promise<void>
}

/**
 * What a rejected promise carries: the failure itself when the Effect failed with one (a tagged
 * error), the defect when it died, an `Error` saying so when it was interrupted.
 */
const rejection = (cause: Cause.Cause<unknown>): unknown => Cause.squash(cause)

const settle = <A>(exit: Exit.Exit<A, unknown>): Promise<A> =>
  Exit.isSuccess(exit) ? Promise.resolve(exit.value) : Promise.reject(rejection(exit.cause))

/**
 * Connect to a server. Nothing is sent until the first call; configuration errors (a bad
 * `OPENREWARD_URL`, ...) reject the first call. Requests go through the Effect client, with its
 * bounds and redirect policy: `fetch` is told not to follow redirects (`redirect: "manual"`), and
 * the client follows them itself, within the base URL's origin or to `allowedRedirectOrigins`.
 *
 * @category constructors
 * @since 0.2.0
 */
export const connect = (options?: Options): Client => {
  const runtime = ManagedRuntime.make(
    ClientModule.layer(options).pipe(
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, { redirect: "manual" }))
    )
  )
  const run = <A, E>(effect: Effect.Effect<A, E, ClientModule.Client>): Promise<A> =>
    runtime.runPromiseExit(effect).then(settle)
  const sessions = new Set<Session>()

  const makeSession = (environment: ClientModule.Environment) =>
  async (
    source: ClientModule.Task | ClientModule.TaskIndex,
    sessionOptions?: ClientModule.SessionOptions
  ): Promise<Session> => {
    const scope = await runtime.runPromise(Scope.make())
    const opened = await runtime.runPromiseExit(Scope.extend(environment.session(source, sessionOptions), scope))
    if (Exit.isFailure(opened)) {
      await runtime.runPromise(Scope.close(scope, Exit.void))
      return Promise.reject(rejection(opened.cause))
    }
    const effect = opened.value
    let closed: Promise<void> | undefined
    const close = (): Promise<void> => {
      if (closed === undefined) {
        sessions.delete(session)
        closed = runtime.runPromise(Scope.close(scope, Exit.void))
      }
      return closed
    }
    const session: Session = {
      sid: effect.sid,
      source: effect.source,
      effect,
      getPrompt: () => run(effect.getPrompt),
      getMessages: (o) => run(effect.getMessages(o)),
      readMessages: () => run(effect.readMessages),
      listTools: (o) => run(effect.listTools(o)),
      callTool: (name, input) => run(effect.callTool(name, input)),
      terminalTool: () => run(Effect.map(effect.terminalTool, Option.getOrUndefined)),
      isAssistantMessageFinal: () => run(effect.isAssistantMessageFinal),
      callTerminalTool: (text) => run(effect.callTerminalTool(text)),
      supportsScoreGroup: () => run(effect.supportsScoreGroup),
      scoreGroup: (candidates) => run(effect.scoreGroup(candidates)),
      runEpisode: (step, o) =>
        run(Episode.run(effect, toStep(step), { ...o, repairToolCall: repairHook(o?.repairToolCall) })),
      close,
      [Symbol.asyncDispose]: close
    }
    sessions.add(session)
    return session
  }

  const environment = (name: string, environmentOptions?: ClientModule.EnvironmentOptions): Environment => {
    // One handle for every call, so that what it learns of the server (which environment the name
    // selects) is asked once.
    let handle: Promise<ClientModule.Environment> | undefined
    const resolved = () => handle ??= run(ClientModule.environment(name, environmentOptions))
    const use = <A, E>(f: (env: ClientModule.Environment) => Effect.Effect<A, E, ClientModule.Client>) =>
      resolved().then((env) => run(f(env)))
    return {
      name,
      effect: resolved,
      splits: () => use((env) => env.splits),
      tasks: (split) => use((env) => env.tasks(split)),
      numTasks: (split) => use((env) => env.numTasks(split)),
      task: (split, index) => use((env) => env.task(split, index)),
      listTools: (o) => use((env) => env.listTools(o)),
      session: async (source, sessionOptions) => makeSession(await resolved())(source, sessionOptions),
      runEpisodes: (sources, step, o) =>
        use((env) =>
          Episode.runMany(env, sources, toStep(step), {
            ...o,
            repairToolCall: repairHook(o?.repairToolCall),
            onEpisode: o?.onEpisode === undefined ? undefined : (episode) =>
              Effect.promise(async () => {
                await o.onEpisode!(episode)
              })
          })
        )
    }
  }
  const close = async (): Promise<void> => {
    await Promise.all(Array.from(sessions, (s) => s.close()))
    await runtime.dispose()
  }
  return {
    environment,
    close,
    [Symbol.asyncDispose]: close
  }
}

/**
 * A conversation in a provider's request shape; throws the tagged `EncodeError` where the format
 * cannot hold it. The same function as `Throwing.encodeOrThrow`, which needs only `effect`.
 *
 * @category codecs
 * @since 0.2.0
 */
export const encodeOrThrow = Throwing.encodeOrThrow

/**
 * A provider transcript (untrusted JSON) as a canonical conversation; throws the tagged
 * `DecodeError`. The same function as `Throwing.decodeOrThrow`, which needs only `effect`.
 *
 * @category codecs
 * @since 0.2.0
 */
export const decodeOrThrow = Throwing.decodeOrThrow

/**
 * Read any source format (`canonical` strictly); throws the tagged error. The same function as
 * `Throwing.readOrThrow`, which needs only `effect`.
 *
 * @category codecs
 * @since 0.2.0
 */
export const readOrThrow = Throwing.readOrThrow

/**
 * Write to any target format (a provider, `canonical`, `prompt`); throws the tagged error. The same
 * function as `Throwing.writeOrThrow`, which needs only `effect`.
 *
 * @category codecs
 * @since 0.2.0
 */
export const writeOrThrow = Throwing.writeOrThrow

/**
 * One JSONL line for an episode, newline included: its `Episode.toRecord` record (task, rewards and
 * their total, stop reason, turns, usage, tool calls, the canonical conversation under `messages`
 * and the session's tools), which `openreward-effect convert --jsonl --record rollout` reads.
 *
 * @category episodes
 * @since 0.2.0
 */
export const toJsonLine: (episode: Episode.Episode<unknown>) => string = Episode.toJsonLine

/**
 * An `onEpisode` sink for {@link Environment.runEpisodes} that appends each episode to the JSONL
 * file at `path` (created if missing), one {@link toJsonLine} line each, in the order episodes end.
 * Lines are appended one at a time; a failed write rejects the run.
 *
 * @example
 * ```ts no-run
 * import * as OpenReward from "openreward-effect/Promise"
 *
 * const client = OpenReward.connect({ baseUrl: "http://127.0.0.1:8080" })
 * const env = client.environment("triviaenv")
 * await env.runEpisodes(await env.tasks("train"), step, { onEpisode: OpenReward.appendJsonl("episodes.jsonl") })
 * ```
 *
 * @category episodes
 * @since 0.2.0
 */
export const appendJsonl = (path: string): (episode: Episode.Episode<unknown>) => Promise<void> => {
  let last: Promise<void> = Promise.resolve()
  return (episode) => {
    const line = toJsonLine(episode)
    last = last.then(() => fs.appendFile(path, line))
    return last
  }
}
