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
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Block from "./Block.js"
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
  /**
   * The episode's `providerContent` ({@link Options}): how the step should read content its provider
   * hosts. The ready-made steps (`ModelStep`) follow it unless given their own.
   */
  readonly providerContent?: "refuse" | "keep" | undefined
}

/**
 * A model: the conversation and tools in, the next assistant turn out.
 *
 * @category models
 * @since 0.2.0
 */
export type Step<E = never, R = never> = (input: StepInput) => Effect.Effect<ModelResponse.ModelResponse, E, R>

/**
 * Why a call was refused: the server's reason (`not_found` for a tool it does not have,
 * `input_validation` for input its schema refuses, ...), or `invalid_arguments` for arguments that
 * are not a JSON object, which never reach the server.
 *
 * @category models
 * @since 0.2.0
 */
export type RefusalReason = ClientError.ToolCallErrorReason | "invalid_arguments"

/**
 * One tool call the episode ran, in order.
 *
 * @category models
 * @since 0.2.0
 */
export interface ToolCall {
  /** The model turn (0-based) that asked for the call. */
  readonly turn: number
  /** The call's id in the assistant turn (`tool_call.id`); empty for a {@link ToolCall.terminal} call. */
  readonly id: string
  readonly name: string
  readonly input: Json.JsonObject
  /** The reward the tool gave, or `null`. */
  readonly reward: number | null
  /** Whether the tool ended the episode. */
  readonly finished: boolean
  /**
   * The call did not run: the server refused it (unknown tool, invalid input, ...) or its arguments
   * were not JSON. The model saw the reason as an error result.
   */
  readonly refused: boolean
  /** Why it was refused, when it was: the reason and the text the model was shown. */
  readonly refusal?: { readonly reason: RefusalReason; readonly detail: string } | undefined
  /**
   * `true` for the model's final message sent to the environment's terminal tool: the turn called
   * no tool, so there is no call id, and the input is the message as the tool's one argument.
   */
  readonly terminal?: boolean | undefined
  /**
   * The call as the model wrote it, when {@link Options.repairToolCall} replaced it (`raw`: its
   * arguments' text, when they were not JSON). `name` and `input` above are what ran.
   */
  readonly repaired?: {
    readonly name: string
    readonly input: Json.JsonObject
    readonly raw?: string | undefined
  } | undefined
}

/**
 * Why an episode stopped.
 *
 * - `Finished`: a tool said the episode is finished (`finished: true`), or the model's final
 *   message went to the environment's terminal tool (`tool` is then the terminal tool).
 * - `ModelStopped`: the model ended its turn without calling a tool, and the environment has no
 *   terminal tool (or {@link Options.terminalTool} is off). A turn the provider paused (stop reason
 *   `pause`) is not an end: the conversation is sent back as it is, for the model to go on.
 * - `TurnLimit`: the model had `maxTurns` turns.
 * - `Failed`: the model step, a tool (`ToolFailed`) or the session failed, the terminal tool refused
 *   the final message (`ToolCallError`), or a call was invalid and {@link Options.invalidToolCalls}
 *   is `"fail"` (`InvalidToolCall`); `error` says how. The conversation holds everything up to that
 *   point.
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
  | ClientError.ToolCallError
  | ClientError.UnknownEnvironment
  | ClientError.UnknownSplit
  | InvalidToolCall

/**
 * A tool call the model got wrong, with {@link Options.invalidToolCalls} `"fail"`: its arguments
 * are not a JSON object (`invalid_arguments`, `raw` the text), or the server refused it as a call
 * to a tool it does not have (`not_found`) or with input its schema refuses (`input_validation`,
 * `bad_input_shape`). `detail` says why.
 *
 * @category errors
 * @since 0.2.0
 */
export class InvalidToolCall extends Schema.TaggedError<InvalidToolCall>("openreward-effect/Episode/InvalidToolCall")(
  "InvalidToolCall",
  {
    turn: Schema.Number,
    id: Schema.String,
    name: Schema.String,
    reason: Schema.Literal("invalid_arguments", "not_found", "input_validation", "bad_input_shape"),
    detail: Schema.String,
    raw: Schema.optional(Schema.String)
  }
) {
  override get message(): string {
    return `turn ${this.turn}: tool call ${JSON.stringify(this.id)} to ${
      JSON.stringify(this.name)
    }: ${this.reason}: ${this.detail}`
  }
}

/**
 * What a {@link Options.repairToolCall} hook is given: a call the model got wrong, why, and the
 * context to mend it in.
 *
 * @category models
 * @since 0.2.0
 */
export interface InvalidCall {
  /** The model turn (0-based). */
  readonly turn: number
  /** The call as the model wrote it (`input` `{}` when its arguments are not JSON). */
  readonly call: Block.ToolCallBlock
  readonly reason: InvalidToolCall["reason"]
  /** Why: the parser's reason, or the server's refusal text. */
  readonly detail: string
  /** The arguments' text, when they are not JSON. */
  readonly raw: string | undefined
  /** The session's tools, as the model was shown them. */
  readonly tools: ReadonlyArray<Protocol.ToolSpec>
  /** The conversation up to and including the model's turn. */
  readonly conversation: Conversation.Conversation
}

/**
 * A repaired call: the tool to call and its input. The call keeps its id.
 *
 * @category models
 * @since 0.2.0
 */
export interface RepairedCall {
  readonly name: string
  readonly input: Json.JsonObject
}

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
  /** Its place in its group of rollouts and the group's score, when {@link runMany} ran groups. */
  readonly group?: Group | undefined
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
  /**
   * Content the model's provider hosts (a web search's call and results, code execution, MCP
   * calls, ...), passed to the step as `StepInput.providerContent`: `"refuse"` (the ready-made
   * steps' default) makes such an answer a step failure (`UnsupportedContent`); `"keep"` keeps it
   * in the conversation as provider blocks, which the next request sends back unchanged, as the
   * provider requires. Tool calls the provider ran itself are never run through the session.
   */
  readonly providerContent?: "refuse" | "keep" | undefined
  /**
   * Send a model turn that calls no tool to the environment's terminal tool, record its reward and
   * finish, as the reference's harness does (`is_assistant_message_final`, `call_terminal_tool`).
   * Default `true`; with `false` such a turn stops the episode as `ModelStopped`, as it does for an
   * environment without a terminal tool.
   */
  readonly terminalTool?: boolean | undefined
  /**
   * A tool call the model got wrong: arguments that are not a JSON object (the step kept the turn,
   * see `ModelStep`'s `invalidToolArguments`), a tool the server does not have, or input the tool's
   * schema refuses.
   *
   * - `"answer"` (default): the call is answered with an error result the model sees (quoting
   *   arguments that are not JSON), and the episode goes on, so the model can correct itself.
   * - `"fail"`: the episode stops `Failed` with {@link InvalidToolCall}, the turn kept.
   */
  readonly invalidToolCalls?: "answer" | "fail" | undefined
  /**
   * Mend such a call before it is answered: return the call to run instead (same id; the turn in
   * the conversation then shows it, and {@link ToolCall.repaired} the original), or none to answer
   * the error. Asked once per call; a repaired call the server refuses again is answered. Not asked
   * with `invalidToolCalls: "fail"`.
   */
  readonly repairToolCall?: ((call: InvalidCall) => Effect.Effect<Option.Option<RepairedCall>>) | undefined
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

/** The refusals a repair hook may mend, and `invalidToolCalls: "fail"` fails on. */
const invalidReasons: ReadonlySet<string> = new Set(["not_found", "input_validation", "bad_input_shape"])

/** The longest stretch of invalid arguments quoted back to the model. */
const quoteLimit = 2000

const quote = (raw: string): string =>
  raw.length <= quoteLimit ? raw : `${raw.slice(0, quoteLimit)}… (${raw.length - quoteLimit} more characters)`

/** What the model is told of arguments that are not a JSON object. */
const invalidArgumentsText = (name: string, invalid: Block.InvalidArguments): string =>
  `The arguments of this call to ${JSON.stringify(name)} are not a JSON object (${invalid.reason}), so the ` +
  `tool did not run. They were:\n${quote(invalid.raw)}\nCall the tool again with its arguments as one JSON object.`

/** The visible text of a turn, as the providers' SDKs give it (`text`, `output_text`): its text blocks joined. */
const visibleText = (message: Message.AssistantMessage): string =>
  message.blocks.flatMap((b) => b.type === "text" ? [b.text] : []).join("")

/** What running one call of a turn came to. */
type Outcome =
  | {
    readonly _tag: "Answered"
    readonly block: Block.ToolCallBlock
    readonly call: ToolCall
    readonly result: Block.ToolResultBlock
  }
  | { readonly _tag: "Stopped"; readonly call: ToolCall | undefined; readonly error: EpisodeError }

/**
 * Run one episode on an open session. Never fails: whatever goes wrong is the episode's
 * {@link Stop} (`Failed`), with the conversation up to that point.
 *
 * Tool calls run in the order the model wrote them, each once. A refused call (`ToolCallError`)
 * is answered to the model as an error result and the episode goes on, as is a call whose arguments
 * are not JSON (see {@link Options.invalidToolCalls} and {@link Options.repairToolCall}); a call
 * that finishes the episode stops it, and the calls after it in the same turn are not run. A turn
 * that calls no tool goes to the environment's terminal tool when it has one (its text, the turn's
 * text blocks joined): the tool's reward is recorded and the episode finishes
 * ({@link Options.terminalTool}).
 * Only the turn's `tool_call` blocks are run: what the provider ran itself (a web search, code
 * execution, kept as provider blocks with `providerContent: "keep"`) stays in the turn and goes back
 * to the provider. A turn the provider paused (stop reason `pause`) is sent back for the model to go
 * on.
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
    const failOnInvalid = options?.invalidToolCalls === "fail"
    const repair = failOnInvalid ? undefined : options?.repairToolCall
    const state: State<E> = { conversation: [], tools: [], calls: [], turns: 0, usage: {}, stop: undefined }
    const finishOn = (stop: Stop<E>) => finish(session.source, session.sid, state, stop)

    const opening = yield* Effect.either(
      Effect.all([session.getMessages(), session.listTools()], { concurrency: 2 })
    )
    if (Either.isLeft(opening)) return finishOn({ _tag: "Failed", error: opening.left })
    const [conversation, tools] = opening.right
    state.conversation = conversation
    state.tools = tools

    const refused = (
      turn: number,
      block: Block.ToolCallBlock,
      reason: RefusalReason,
      text: string,
      repaired: ToolCall["repaired"]
    ): Outcome => ({
      _tag: "Answered",
      block,
      call: {
        turn,
        id: block.id,
        name: block.name,
        input: block.input,
        reward: null,
        finished: false,
        refused: true,
        refusal: { reason, detail: text },
        ...(repaired === undefined ? {} : { repaired })
      },
      result: toolResult(block.id, [Block.text(text)], true)
    })

    const invalidCall = (
      turn: number,
      block: Block.ToolCallBlock,
      reason: InvalidToolCall["reason"],
      detail: string,
      raw?: string
    ) =>
      new InvalidToolCall({
        turn,
        id: block.id,
        name: block.name,
        reason,
        detail,
        ...(raw === undefined ? {} : { raw })
      })

    /** Ask the repair hook, if there is one, for the call to run instead. */
    const mend = (invalid: InvalidCall): Effect.Effect<Option.Option<Block.ToolCallBlock>> =>
      repair === undefined ? Effect.succeedNone : Effect.map(
        repair(invalid),
        Option.map((fixed) => {
          const { [Block.invalidArgumentsKey]: _, ...detail } = invalid.call.detail ?? {}
          return Block.toolCall(invalid.call.id, fixed.name, fixed.input, {
            detail: Object.keys(detail).length === 0 ? null : detail
          })
        })
      )

    /** Run a call the server may refuse; `repaired` is the call the model wrote when this one mends it. */
    const execute = (
      turn: number,
      block: Block.ToolCallBlock,
      repaired: ToolCall["repaired"]
    ): Effect.Effect<Outcome> =>
      Effect.gen(function*() {
        const outcome = yield* Effect.either(session.callTool(block.name, block.input))
        if (Either.isLeft(outcome)) {
          const error = outcome.left
          if (error._tag !== "ToolCallError") return { _tag: "Stopped", call: undefined, error }
          const record = refused(turn, block, error.reason, error.message, repaired)
          if (!invalidReasons.has(error.reason)) return record
          const reason = error.reason as InvalidToolCall["reason"]
          if (failOnInvalid) {
            return { _tag: "Stopped", call: record.call, error: invalidCall(turn, block, reason, error.detail) }
          }
          if (repaired !== undefined) return record
          const fixed = yield* mend({
            turn,
            call: block,
            reason,
            detail: error.detail,
            raw: undefined,
            tools: state.tools,
            conversation: state.conversation
          })
          return Option.isSome(fixed)
            ? yield* execute(turn, fixed.value, { name: block.name, input: block.input })
            : record
        }
        const output = outcome.right
        const call: ToolCall = {
          turn,
          id: block.id,
          name: block.name,
          input: block.input,
          reward: output.reward,
          finished: output.finished,
          refused: false,
          ...(repaired === undefined ? {} : { repaired })
        }
        return { _tag: "Answered", block, call, result: toolResult(block.id, output.blocks, false) }
      })

    /** One call of the model's turn: arguments that are not JSON never reach the server. */
    const runCall = (turn: number, block: Block.ToolCallBlock): Effect.Effect<Outcome> => {
      const invalid = Block.invalidArguments(block)
      if (invalid === undefined) return execute(turn, block, undefined)
      const text = invalidArgumentsText(block.name, invalid)
      const record = refused(turn, block, "invalid_arguments", text, undefined)
      if (failOnInvalid) {
        return Effect.succeed({
          _tag: "Stopped",
          call: record.call,
          error: invalidCall(turn, block, "invalid_arguments", invalid.reason, invalid.raw)
        })
      }
      return Effect.flatMap(
        mend({
          turn,
          call: block,
          reason: "invalid_arguments",
          detail: invalid.reason,
          raw: invalid.raw,
          tools: state.tools,
          conversation: state.conversation
        }),
        Option.match({
          onNone: () => Effect.succeed<Outcome>(record),
          onSome: (fixed) => execute(turn, fixed, { name: block.name, input: block.input, raw: invalid.raw })
        })
      )
    }

    while (true) {
      if (state.turns >= maxTurns) return finishOn({ _tag: "TurnLimit", maxTurns })
      const answer = yield* Effect.either(
        step({
          conversation: state.conversation,
          tools,
          turn: state.turns,
          ...(options?.providerContent === undefined ? {} : { providerContent: options.providerContent })
        })
      )
      if (Either.isLeft(answer)) return finishOn({ _tag: "Failed", error: answer.left })
      const response = answer.right
      const turn = state.turns
      state.turns += 1
      state.usage = addUsage(state.usage, response.usage)
      const before = state.conversation
      state.conversation = [...before, response.message]

      const toolCalls = response.message.blocks.filter((b): b is Block.ToolCallBlock => b.type === "tool_call")
      if (toolCalls.length === 0) {
        // a paused turn (Anthropic's `pause_turn`, in a long server-tool turn) goes on when it is sent back
        if (response.stopReason === "pause") continue
        if (options?.terminalTool === false) return finishOn({ _tag: "ModelStopped", stopReason: response.stopReason })
        const terminal = yield* Effect.either(session.terminalTool)
        if (Either.isLeft(terminal)) return finishOn({ _tag: "Failed", error: terminal.left })
        if (Option.isNone(terminal.right)) return finishOn({ _tag: "ModelStopped", stopReason: response.stopReason })
        const spec = terminal.right.value
        const text = visibleText(response.message)
        const input: Json.JsonObject = spec.arg === null ? {} : { [spec.arg]: text }
        const outcome = yield* Effect.either(session.callTerminalTool(text))
        const base = { turn, id: "", name: spec.name, input, terminal: true }
        if (Either.isLeft(outcome)) {
          const error = outcome.left
          if (error._tag === "ToolCallError") {
            state.calls.push({
              ...base,
              reward: null,
              finished: false,
              refused: true,
              refusal: { reason: error.reason, detail: error.message }
            })
          }
          return finishOn({ _tag: "Failed", error })
        }
        state.calls.push({ ...base, reward: outcome.right.reward, finished: outcome.right.finished, refused: false })
        return finishOn({ _tag: "Finished", tool: spec.name })
      }

      const results: Array<Block.ToolResultBlock> = []
      const ran = new Map<Block.ToolCallBlock, Block.ToolCallBlock>()
      let stop: Stop<E> | undefined
      for (const original of toolCalls) {
        const outcome = yield* runCall(turn, original)
        if (outcome.call !== undefined) state.calls.push(outcome.call)
        if (outcome._tag === "Stopped") {
          stop = { _tag: "Failed", error: outcome.error }
          break
        }
        if (outcome.block !== original) ran.set(original, outcome.block)
        results.push(outcome.result)
        if (outcome.call.finished) {
          stop = { _tag: "Finished", tool: outcome.call.name }
          break
        }
      }
      if (ran.size > 0) {
        // The turn shows the calls that ran: a repaired call in place of the one the model wrote.
        state.conversation = [
          ...before,
          {
            ...response.message,
            blocks: response.message.blocks.map((b) => b.type === "tool_call" ? ran.get(b) ?? b : b)
          }
        ]
      }
      if (results.length > 0) state.conversation = [...state.conversation, Message.user(results)]
      if (stop !== undefined) return finishOn(stop)
    }
  })

const toolResult = (
  id: string,
  blocks: ReadonlyArray<Block.ContentBlock>,
  isError: boolean
): Block.ToolResultBlock => ({ tool_call_id: id, blocks, is_error: isError, detail: null, type: "tool_result" })

/**
 * What a candidate of a group is made of (see {@link RunManyOptions.groupCandidate}).
 *
 * - `output` (the default): the episode's final assistant turn, its text and images only, as one
 *   assistant message: what a judge rewards by default (the reference's `view="output"`), and what
 *   every server accepts.
 * - `trajectory`: the episode's whole conversation, reasoning and tool blocks included, for
 *   environments that judge the process (the server must accept those block types).
 * - a function: your own candidate for the episode at `index` in its group.
 *
 * @category models
 * @since 0.2.0
 */
export type GroupCandidate =
  | "output"
  | "trajectory"
  | ((episode: Episode<any>, index: number) => Client.Candidate)

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
   * {@link appendJsonl}; with groups, once its group is scored, so that it carries the score. A
   * failure of this sink fails the whole run.
   */
  readonly onEpisode?: ((episode: Episode<any>) => Effect.Effect<void, E2, R2>) | undefined
  /**
   * A progress line on stderr, rewritten in place: `"auto"` (the default) when stderr is a terminal
   * and there is more than one episode, `true` or `false` to choose.
   */
  readonly progress?: boolean | "auto" | undefined
  /**
   * Run each task this many times, as a group of rollouts (GRPO's group): each episode in its own
   * session, and every episode then carries its {@link Group}. Unset: one episode per task and no
   * groups.
   */
  readonly groupSize?: number | undefined
  /**
   * Post each group to the environment's `/score_group` once all its episodes ended, and keep the
   * scores beside the pointwise rewards: `"auto"` (the default) when the environment says it scores
   * groups (`supports_score_group`), `true` always (an environment that does not is the group's
   * `error`), `false` never. Only with {@link groupSize}.
   */
  readonly scoreGroups?: boolean | "auto" | undefined
  /** What each episode is sent as: `output` (default), `trajectory` or a function ({@link GroupCandidate}). */
  readonly groupCandidate?: GroupCandidate | undefined
}

/**
 * An episode's place in its group of rollouts (see {@link RunManyOptions.groupSize}) and what the
 * environment's `/score_group` gave it.
 *
 * @category models
 * @since 0.2.0
 */
export interface Group {
  /** The episode's index in its group (0-based); the scores are index-aligned with it. */
  readonly index: number
  /** How many episodes the group has. */
  readonly size: number
  /**
   * The trainer-owned `metadata` sent with the episode's candidate: `{"rollout": index}` unless a
   * {@link RunManyOptions.groupCandidate} function gave its own.
   */
  readonly candidate: Json.JsonObject | null
  /** The environment's score of the episode's candidate (`reward`, and its `metadata`), when the group was scored. */
  readonly score: Protocol.GroupScore | null
  /** Why the group has no scores when scoring was asked for: the environment does not score groups, or scoring failed. */
  readonly error: GroupError | null
}

/**
 * What can keep a group from being scored. The episodes keep their pointwise rewards.
 *
 * @category models
 * @since 0.2.0
 */
export type GroupError =
  | ClientError.EnvironmentError
  | ClientError.UnknownSplit
  | ClientError.SessionTerminated
  | ClientError.ScoreGroupUnsupported
  | ClientError.ScoreGroupFailed

/** The final assistant turn's text and images, as one assistant message. */
const outputOf = (conversation: Conversation.Conversation): Conversation.Conversation => {
  for (let i = conversation.length - 1; i >= 0; i--) {
    const message = conversation[i]!
    if (message.role === "assistant") return [Message.assistant(message.blocks.filter(Block.isContentBlock))]
  }
  return [Message.assistant([])]
}

const candidateOf = (
  episode: Episode<any>,
  index: number,
  how: GroupCandidate
): { readonly messages: Conversation.Conversation; readonly metadata: Json.JsonObject | null } => {
  if (typeof how === "function") {
    const made = how(episode, index)
    return Array.isArray(made)
      ? { messages: made as Conversation.Conversation, metadata: null }
      : {
        messages: (made as { readonly messages: Conversation.Conversation }).messages,
        metadata: (made as { readonly metadata?: Json.JsonObject | null }).metadata ?? null
      }
  }
  return {
    messages: how === "trajectory" ? episode.conversation : outputOf(episode.conversation),
    metadata: { rollout: index }
  }
}

/**
 * Run an episode on each task, at most `concurrency` at a time, each in its own session (created
 * before and deleted after its episode). Every task yields an episode, in the order of `sources`: a
 * session that could not be opened is an episode that stopped `Failed` with no turns.
 *
 * With `groupSize` N, each task yields N episodes in a row (its group), and with scoring on, the
 * group is posted to `/score_group` through a session of that task once its N episodes ended (the
 * group's first session, kept open until then, or a new one if that one is gone): each episode's
 * {@link Group} holds its score. Every episode of the group is a candidate, failed ones too (with
 * what they had), so the scores stay index-aligned. A group that cannot be scored keeps its
 * episodes and says why in `group.error`; it never fails the run.
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
    const tasks = Array.from(sources)
    const size = options?.groupSize === undefined ? undefined : Math.max(1, Math.floor(options.groupSize))
    const perTask = size ?? 1
    const total = tasks.length * perTask
    const show = options?.progress === undefined || options.progress === "auto"
      ? total > 1 && process.stderr.isTTY === true
      : options.progress
    const meter = progress.make(total, show)
    const sink = options?.onEpisode
    const lock = yield* Effect.makeSemaphore(1)
    const concurrency = Math.max(1, options?.concurrency ?? 8)
    const running = yield* Effect.makeSemaphore(concurrency)
    const emit = (episode: Episode<E>) => sink === undefined ? Effect.void : lock.withPermits(1)(sink(episode))

    /** One episode in `session` (opened in the caller's scope), as a failed episode when it did not open. */
    const rollout = (
      source: Client.Task | Client.TaskIndex,
      session: Either.Either<Client.Session, ClientError.EnvironmentError | ClientError.UnknownSplit>
    ): Effect.Effect<Episode<E>, never, R> =>
      Either.isLeft(session)
        ? Effect.succeed(finish<E>(source, undefined, {
          conversation: [],
          tools: [],
          calls: [],
          turns: 0,
          usage: {},
          stop: undefined
        }, { _tag: "Failed", error: session.left }))
        : run(session.right, step, options)

    const open = (source: Client.Task | Client.TaskIndex) =>
      Effect.either(environment.session(source, options?.session))

    const single = (source: Client.Task | Client.TaskIndex) =>
      running.withPermits(1)(Effect.scoped(Effect.gen(function*() {
        meter.started()
        const episode = yield* rollout(source, yield* open(source))
        meter.ended(episode)
        yield* emit(episode)
        return episode
      })))

    const group = (source: Client.Task | Client.TaskIndex, n: number) =>
      Effect.scoped(Effect.gen(function*() {
        const groupScope = yield* Effect.scope
        // The first rollout's session stays open (in the group's scope) to score the group with.
        let keeper: Client.Session | undefined
        const episodes = yield* Effect.forEach(
          Array.from({ length: n }, (_, k) => k),
          (k) =>
            running.withPermits(1)(Effect.scoped(Effect.gen(function*() {
              meter.started()
              const session = k === 0 ?
                yield* Effect.either(
                  environment.session(source, options?.session).pipe(
                    Effect.provideService(Scope.Scope, groupScope)
                  )
                ) :
                yield* open(source)
              if (k === 0 && Either.isRight(session)) keeper = session.right
              const episode = yield* rollout(source, session)
              meter.ended(episode)
              return episode
            }))),
          { concurrency: n }
        )
        const how = options?.groupCandidate ?? "output"
        const candidates = episodes.map((episode, k) => candidateOf(episode, k, how))
        const scoring = options?.scoreGroups ?? "auto"
        const scored: Either.Either<ReadonlyArray<Protocol.GroupScore> | undefined, GroupError> = scoring === false
          ? Either.right(undefined)
          : yield* Effect.either(Effect.gen(function*() {
            const alive = keeper !== undefined && Option.isNone(yield* keeper.terminated) ? keeper : undefined
            const session = alive ?? (yield* environment.session(source, options?.session))
            if (scoring === "auto" && !(yield* session.supportsScoreGroup)) return undefined
            return yield* session.scoreGroup(candidates)
          }))
        const out = episodes.map((episode, k): Episode<E> => ({
          ...episode,
          group: {
            index: k,
            size: n,
            candidate: candidates[k]!.metadata,
            score: Either.isRight(scored) && scored.right !== undefined ? scored.right[k] ?? null : null,
            error: Either.isLeft(scored) ? scored.left : null
          }
        }))
        for (const episode of out) yield* emit(episode)
        return out
      }))

    const all = size === undefined
      ? Effect.forEach(tasks, single, { concurrency })
      : Effect.map(
        // Enough groups at once to keep `concurrency` episodes running; the semaphore bounds them.
        Effect.forEach(tasks, (source) => group(source, size), { concurrency: Math.ceil(concurrency / size) }),
        (groups) => groups.flat()
      )
    return yield* all.pipe(Effect.ensuring(Effect.sync(() => meter.close())))
  })

/**
 * The error of a failed episode as a record holds it: its tag (or, for an error without one, its
 * name) and its message. No stack trace.
 *
 * @category models
 * @since 0.2.0
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
 * - `calls`: every tool call, as {@link ToolCall} (`refusal`, `terminal` and `repaired` only where
 *   they apply).
 * - `group` (only for episodes of a group, see {@link RunManyOptions.groupSize}): `{index, size,
 *   reward, metadata, candidate, error}`: the group score's `reward` and `metadata` as the
 *   environment answered them (`null` when the group was not scored), beside the pointwise
 *   `rewards`; the `metadata` sent with the candidate; why the group was not scored, if scoring was
 *   asked for and failed (`{tag, message}`).
 *
 * @category models
 * @since 0.2.0
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
  readonly group?: GroupRecord | undefined
}

/**
 * An episode's {@link Group} as a record holds it.
 *
 * @category models
 * @since 0.2.0
 */
export interface GroupRecord {
  readonly index: number
  readonly size: number
  /** The group score's reward, or `null` when the group was not scored. */
  readonly reward: number | null
  /** The group score's `metadata`, as the environment answered it. */
  readonly metadata: Json.JsonObject | null
  /** The `metadata` sent with the episode's candidate. */
  readonly candidate: Json.JsonObject | null
  readonly error: RecordedError | null
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
 * @since 0.2.0
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
    tools: episode.tools,
    ...(episode.group === undefined ? {} : { group: groupRecord(episode.group) })
  }
}

const groupRecord = (group: Group): GroupRecord => ({
  index: group.index,
  size: group.size,
  reward: group.score?.reward ?? null,
  metadata: group.score?.metadata ?? null,
  candidate: group.candidate,
  error: group.error === null ? null : recordedError(group.error)
})

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
