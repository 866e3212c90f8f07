/**
 * Episodes: a model and an environment session in a loop. Ask the model for the next assistant
 * turn, run the tool calls it made through the session, append their results, and go on until a
 * tool says the episode is finished, the model stops calling tools, a turn limit is reached, or
 * something fails. The result is the whole episode: the canonical conversation, every tool call with
 * its reward, and why it stopped.
 *
 * The model is a {@link Step}: any function from the conversation and the tools to a
 * {@link ModelResponse.ModelResponse}. Ready-made steps for the providers' SDKs and the toolkit
 * bridges build one from a client.
 *
 * @since 0.2.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as Block from "./Block.js"
import type * as Client from "./Client.js"
import type * as ClientError from "./ClientError.js"
import * as Conversation from "./Conversation.js"
import * as progress from "./internal/episode/progress.js"
import type * as Json from "./Json.js"
import * as Message from "./Message.js"
import type * as ModelResponse from "./ModelResponse.js"
import type * as Protocol from "./Protocol.js"

/**
 * What a model step is given: the conversation so far, the session's tools as the server lists them,
 * and how many model turns the episode has had.
 *
 * @category models
 * @since 0.2.0
 */
export interface StepInput {
  readonly conversation: Conversation.Conversation
  readonly tools: ReadonlyArray<Protocol.ToolSpec>
  /** Model turns so far: 0 for the first call. */
  readonly turn: number
}

/**
 * A model: the conversation and tools in, the next assistant turn out.
 *
 * @category models
 * @since 0.2.0
 */
export type Step<E = never, R = never> = (input: StepInput) => Effect.Effect<ModelResponse.ModelResponse, E, R>

/**
 * One tool call the episode ran, in order.
 *
 * @category models
 * @since 0.2.0
 */
export interface ToolCall {
  /** The model turn (0-based) that asked for the call. */
  readonly turn: number
  /** The call's id in the assistant turn (`tool_call.id`). */
  readonly id: string
  readonly name: string
  readonly input: Json.JsonObject
  /** The reward the tool gave, or `null`. */
  readonly reward: number | null
  /** Whether the tool ended the episode. */
  readonly finished: boolean
  /** The server refused the call (unknown tool, invalid input, ...); the model saw the reason. */
  readonly refused: boolean
}

/**
 * Why an episode stopped.
 *
 * - `Finished`: a tool said the episode is finished (`finished: true`).
 * - `ModelStopped`: the model ended its turn without calling a tool.
 * - `TurnLimit`: the model had `maxTurns` turns.
 * - `Failed`: the model step, a tool (`ToolFailed`) or the session failed; `error` says how. The
 *   conversation holds everything up to that point.
 *
 * @category models
 * @since 0.2.0
 */
export type Stop<E = never> =
  | { readonly _tag: "Finished"; readonly tool: string }
  | { readonly _tag: "ModelStopped"; readonly stopReason: ModelResponse.StopReason }
  | { readonly _tag: "TurnLimit"; readonly maxTurns: number }
  | { readonly _tag: "Failed"; readonly error: E | EpisodeError }

/**
 * What can end an episode from the environment's side.
 *
 * @category models
 * @since 0.2.0
 */
export type EpisodeError =
  | ClientError.SessionError
  | ClientError.ToolFailed
  | ClientError.UnknownEnvironment
  | ClientError.UnknownSplit

/**
 * A finished episode.
 *
 * @category models
 * @since 0.2.0
 */
export interface Episode<E = never> {
  /** The task the episode ran on. */
  readonly source: Client.Task | Client.TaskIndex
  /** The session id, when a session was opened. */
  readonly sid: string | undefined
  /** The whole conversation: the task's, then every assistant turn and tool result. */
  readonly conversation: Conversation.Conversation
  /** The session's tools, as the server listed them (none when they could not be listed). */
  readonly tools: ReadonlyArray<Protocol.ToolSpec>
  /** Every tool call run, in order. */
  readonly calls: ReadonlyArray<ToolCall>
  /** Every reward a tool gave, in order (calls without a reward left out). */
  readonly rewards: ReadonlyArray<number>
  /** The sum of {@link rewards}, or `null` when no tool gave one. */
  readonly totalReward: number | null
  /** Model turns taken. */
  readonly turns: number
  /** Token usage summed over every model turn (a count no turn reported is absent). */
  readonly usage: ModelResponse.Usage
  readonly stop: Stop<E>
}

/**
 * Options of {@link run} and {@link runMany}.
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  /** The most model turns an episode may take (default 16). */
  readonly maxTurns?: number | undefined
}

/**
 * @category constants
 * @since 0.2.0
 */
export const defaultMaxTurns = 16

const usageKeys = ["inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens"] as const

const addUsage = (a: ModelResponse.Usage, b: ModelResponse.Usage): ModelResponse.Usage => {
  const out: { -readonly [K in keyof ModelResponse.Usage]: number } = {}
  for (const key of usageKeys) {
    const x = a[key]
    const y = b[key]
    if (x !== undefined || y !== undefined) out[key] = (x ?? 0) + (y ?? 0)
  }
  return out
}

interface State<E> {
  conversation: Conversation.Conversation
  tools: ReadonlyArray<Protocol.ToolSpec>
  readonly calls: Array<ToolCall>
  turns: number
  usage: ModelResponse.Usage
  stop: Stop<E> | undefined
}

const finish = <E>(
  source: Client.Task | Client.TaskIndex,
  sid: string | undefined,
  state: State<E>,
  stop: Stop<E>
): Episode<E> => {
  const rewards = state.calls.flatMap((c) => c.reward === null ? [] : [c.reward])
  return {
    source,
    sid,
    conversation: state.conversation,
    tools: state.tools,
    calls: state.calls,
    rewards,
    totalReward: rewards.length === 0 ? null : rewards.reduce((a, b) => a + b, 0),
    turns: state.turns,
    usage: state.usage,
    stop
  }
}

/**
 * Run one episode on an open session. Never fails: whatever goes wrong is the episode's
 * {@link Stop} (`Failed`), with the conversation up to that point.
 *
 * Tool calls run in the order the model wrote them, each once. A refused call (`ToolCallError`)
 * is answered to the model as an error tool result and the episode goes on; a call that finishes
 * the episode stops it, and the calls after it in the same turn are not run.
 *
 * @category running
 * @since 0.2.0
 */
export const run = <E, R>(
  session: Client.Session,
  step: Step<E, R>,
  options?: Options
): Effect.Effect<Episode<E>, never, R> =>
  Effect.gen(function*() {
    const maxTurns = options?.maxTurns ?? defaultMaxTurns
    const state: State<E> = { conversation: [], tools: [], calls: [], turns: 0, usage: {}, stop: undefined }
    const finishOn = (stop: Stop<E>) => finish(session.source, session.sid, state, stop)

    const opening = yield* Effect.either(
      Effect.all([session.getMessages(), session.listTools()], { concurrency: 2 })
    )
    if (Either.isLeft(opening)) return finishOn({ _tag: "Failed", error: opening.left })
    const [conversation, tools] = opening.right
    state.conversation = conversation
    state.tools = tools

    while (true) {
      if (state.turns >= maxTurns) return finishOn({ _tag: "TurnLimit", maxTurns })
      const answer = yield* Effect.either(step({ conversation: state.conversation, tools, turn: state.turns }))
      if (Either.isLeft(answer)) return finishOn({ _tag: "Failed", error: answer.left })
      const response = answer.right
      const turn = state.turns
      state.turns += 1
      state.usage = addUsage(state.usage, response.usage)
      state.conversation = [...state.conversation, response.message]

      const toolCalls = response.message.blocks.filter((b): b is Block.ToolCallBlock => b.type === "tool_call")
      if (toolCalls.length === 0) return finishOn({ _tag: "ModelStopped", stopReason: response.stopReason })

      const results: Array<Block.ToolResultBlock> = []
      let finishedBy: string | undefined
      for (const call of toolCalls) {
        const outcome = yield* Effect.either(session.callTool(call.name, call.input))
        if (Either.isLeft(outcome)) {
          const error = outcome.left
          if (error._tag !== "ToolCallError") {
            if (results.length > 0) state.conversation = [...state.conversation, Message.user(results)]
            return finishOn({ _tag: "Failed", error })
          }
          state.calls.push({
            turn,
            id: call.id,
            name: call.name,
            input: call.input,
            reward: null,
            finished: false,
            refused: true
          })
          results.push(toolResult(call.id, [{ type: "text", text: error.message, detail: null }], true))
          continue
        }
        const output = outcome.right
        state.calls.push({
          turn,
          id: call.id,
          name: call.name,
          input: call.input,
          reward: output.reward,
          finished: output.finished,
          refused: false
        })
        results.push(toolResult(call.id, output.blocks, false))
        if (output.finished) {
          finishedBy = call.name
          break
        }
      }
      state.conversation = [...state.conversation, Message.user(results)]
      if (finishedBy !== undefined) return finishOn({ _tag: "Finished", tool: finishedBy })
    }
  })

const toolResult = (
  id: string,
  blocks: ReadonlyArray<Block.ContentBlock>,
  isError: boolean
): Block.ToolResultBlock => ({ tool_call_id: id, blocks, is_error: isError, detail: null, type: "tool_result" })

/**
 * Options of {@link runMany}.
 *
 * @category models
 * @since 0.2.0
 */
export interface RunManyOptions<E2 = never, R2 = never> extends Options {
  /** How many episodes run at once (default 8). */
  readonly concurrency?: number | undefined
  /** Options for each session (secrets, toolset). */
  readonly session?: Client.SessionOptions | undefined
  /**
   * Called with each episode as it ends (in the order they end, one at a time), for example
   * {@link appendJsonl}. A failure of this sink fails the whole run.
   */
  readonly onEpisode?: ((episode: Episode<any>) => Effect.Effect<void, E2, R2>) | undefined
  /**
   * A progress line on stderr, rewritten in place: `"auto"` (the default) when stderr is a terminal
   * and there is more than one episode, `true` or `false` to choose.
   */
  readonly progress?: boolean | "auto" | undefined
}

/**
 * Run an episode on each task, at most `concurrency` at a time, each in its own session (created
 * before and deleted after its episode). Every task yields an episode, in the order of `sources`: a
 * session that could not be opened is an episode that stopped `Failed` with no turns.
 *
 * @category running
 * @since 0.2.0
 */
export const runMany = <E, R, E2 = never, R2 = never>(
  environment: Client.Environment,
  sources: Iterable<Client.Task | Client.TaskIndex>,
  step: Step<E, R>,
  options?: RunManyOptions<E2, R2>
): Effect.Effect<ReadonlyArray<Episode<E>>, E2, R | R2> =>
  Effect.gen(function*() {
    const all = Array.from(sources)
    const show = options?.progress === undefined || options.progress === "auto"
      ? all.length > 1 && process.stderr.isTTY === true
      : options.progress
    const meter = progress.make(all.length, show)
    const sink = options?.onEpisode
    const lock = yield* Effect.makeSemaphore(1)
    const one = (source: Client.Task | Client.TaskIndex) =>
      Effect.scoped(
        Effect.gen(function*() {
          meter.started()
          const session = yield* Effect.either(environment.session(source, options?.session))
          const episode: Episode<E> = Either.isLeft(session)
            ? finish<E>(source, undefined, {
              conversation: [],
              tools: [],
              calls: [],
              turns: 0,
              usage: {},
              stop: undefined
            }, {
              _tag: "Failed",
              error: session.left
            })
            : yield* run(session.right, step, options)
          meter.ended(episode)
          if (sink !== undefined) yield* lock.withPermits(1)(sink(episode))
          return episode
        })
      )
    return yield* Effect.forEach(all, one, { concurrency: options?.concurrency ?? 8 }).pipe(
      Effect.ensuring(Effect.sync(() => meter.close()))
    )
  })

/**
 * The error of a failed episode as a record holds it: its tag (or, for an error without one, its
 * name) and its message. No stack trace.
 *
 * @category models
 * @since 0.3.0
 */
export interface RecordedError {
  readonly tag: string
  readonly message: string
}

/**
 * An episode as one dataset record: what {@link toJsonLine} writes and `openreward-effect convert
 * --record rollout` reads (its conversation under `messages`, canonical, beside the session's
 * `tools`; every other key is carried through a conversion).
 *
 * - `task`: `{split, index}` for a task given by position, or `{environment, namespace, spec}` for
 *   a task object. Lines are written as episodes end, so the task is on every line: join on it, or
 *   sort on `task.split` and `task.index` for task order.
 * - `failed`: `true` when the episode stopped `Failed` (the session could not be opened, the model
 *   or a tool failed), with the error; a failed episode's conversation is what it had by then.
 * - `stop`: why it stopped: `{reason: "Finished", tool}`, `{reason: "ModelStopped", stopReason}`,
 *   `{reason: "TurnLimit", maxTurns}` or `{reason: "Failed", error: {tag, message}}`.
 *
 * @category models
 * @since 0.3.0
 */
export interface EpisodeRecord {
  readonly task:
    | { readonly split: string; readonly index: number }
    | { readonly environment: string; readonly namespace: string | null; readonly spec: Json.JsonObject }
  readonly session: string | null
  readonly failed: boolean
  readonly stop:
    | { readonly reason: "Finished"; readonly tool: string }
    | { readonly reason: "ModelStopped"; readonly stopReason: ModelResponse.StopReason }
    | { readonly reason: "TurnLimit"; readonly maxTurns: number }
    | { readonly reason: "Failed"; readonly error: RecordedError }
  readonly rewards: ReadonlyArray<number>
  readonly totalReward: number | null
  readonly turns: number
  readonly usage: ModelResponse.Usage
  readonly calls: ReadonlyArray<ToolCall>
  readonly messages: Conversation.Encoded
  readonly tools: ReadonlyArray<Protocol.ToolSpec>
}

const recordedError = (error: unknown): RecordedError => {
  if (typeof error === "object" && error !== null) {
    const e = error as { readonly _tag?: unknown; readonly name?: unknown; readonly message?: unknown }
    const tag = typeof e._tag === "string" ? e._tag : typeof e.name === "string" ? e.name : "Error"
    return { tag, message: typeof e.message === "string" ? e.message : String(error) }
  }
  return { tag: "Error", message: String(error) }
}

/**
 * An episode as a dataset record (see {@link EpisodeRecord}).
 *
 * @category encoding
 * @since 0.3.0
 */
export const toRecord = (episode: Episode<any>): EpisodeRecord => {
  const source = episode.source
  const stop = episode.stop
  return {
    task: "split" in source
      ? { split: source.split, index: source.index }
      : { environment: source.environmentName, namespace: source.namespace, spec: source.spec },
    session: episode.sid ?? null,
    failed: stop._tag === "Failed",
    stop: stop._tag === "Finished"
      ? { reason: "Finished", tool: stop.tool }
      : stop._tag === "ModelStopped"
      ? { reason: "ModelStopped", stopReason: stop.stopReason }
      : stop._tag === "TurnLimit"
      ? { reason: "TurnLimit", maxTurns: stop.maxTurns }
      : { reason: "Failed", error: recordedError(stop.error) },
    rewards: episode.rewards,
    totalReward: episode.totalReward,
    turns: episode.turns,
    usage: episode.usage,
    calls: episode.calls,
    messages: Conversation.encode(episode.conversation),
    tools: episode.tools
  }
}

/**
 * One JSONL line for an episode, newline included: its {@link toRecord} record, which
 * `openreward-effect convert --jsonl --record rollout` reads.
 *
 * @category encoding
 * @since 0.2.0
 */
export const toJsonLine = (episode: Episode<any>): string => JSON.stringify(toRecord(episode)) + "\n"

/**
 * An {@link RunManyOptions.onEpisode} sink that appends each episode as one line to a JSONL file
 * (created if missing), through the given `append` function (for example
 * `(line) => fs.appendFile(path, line)` from `@effect/platform`'s `FileSystem`, or a Node stream).
 * `append` gets {@link toJsonLine}'s line, newline included.
 *
 * @category encoding
 * @since 0.2.0
 */
export const appendJsonl =
  <E, R>(append: (line: string) => Effect.Effect<void, E, R>) => (episode: Episode<any>): Effect.Effect<void, E, R> =>
    append(toJsonLine(episode))

/**
 * The error an episode failed with, if it did.
 *
 * @category getters
 * @since 0.2.0
 */
export const failure = <E>(episode: Episode<E>): Option.Option<E | EpisodeError> =>
  episode.stop._tag === "Failed" ? Option.some(episode.stop.error) : Option.none()

/**
 * A step from a function returning a `Promise`; a rejection is a failure of the step (the
 * rejection value, or an `UnknownException` around it when it is not an `Error`).
 *
 * @category constructors
 * @since 0.2.0
 */
export const fromPromise = (
  f: (input: StepInput) => Promise<ModelResponse.ModelResponse>
): Step<Cause.UnknownException> =>
(input) => Effect.tryPromise({ try: () => f(input), catch: (e) => new Cause.UnknownException(e) })
