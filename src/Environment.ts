/**
 * Environments: tasks, a prompt, tools and rewards, defined as data and served by {@link Server}.
 *
 * An environment has
 *
 * - a `name` (served lower-cased; `DialogueEnv` answers at `/dialogueenv/...`, matched without
 *   regard to case);
 * - `splits` and `tasks`: a list of tasks per split, a function from split to tasks, or a count and a
 *   fetch-by-index ({@link taskIndex}) for task sets too large to list. A `task` Schema types the
 *   tasks and validates the `task_spec` a client sends;
 * - a prompt surface: `prompt` (text and image blocks), `messages` (a role-tagged conversation), or
 *   both. Each is derived from the other when only one is given: a prompt is served as one user
 *   message, and a conversation is flattened to `[role]`-tagged text for `/prompt`. Giving neither
 *   does not compile;
 * - `tools` (see {@link Tool}), and optionally `taskTools` computed per task;
 * - `setup`: builds the session's state when a session is created, in a `Scope` that closes when
 *   the session is deleted, expires or the server shuts down, so finalizers added with
 *   `Effect.acquireRelease` or `Effect.addFinalizer` are the teardown;
 * - optionally `scoreGroup`, which scores a group of candidate completions (`/score_group`).
 *
 * Every callback may return its value directly or as an Effect. Services an environment needs
 * appear in its type and must be provided to the server's layer.
 *
 * @example
 * ```ts
 * import { Environment, Message, Tool } from "openreward-effect"
 * import * as Schema from "effect/Schema"
 *
 * const Task = Schema.Struct({ id: Schema.String, question: Schema.String, answer: Schema.String })
 *
 * const submit = Tool.make("submit", {
 *   description: "Submit your final answer.",
 *   input: Schema.Struct({ answer: Schema.String }),
 *   handler: ({ answer }, session: Environment.Session<typeof Task.Type>) =>
 *     Tool.output(answer === session.task.answer ? "Correct." : "Incorrect.", {
 *       reward: answer === session.task.answer ? 1 : 0,
 *       finished: true
 *     })
 * })
 *
 * export const Arithmetic = Environment.make({
 *   name: "Arithmetic",
 *   task: Task,
 *   splits: ["train"],
 *   tasks: { train: [{ id: "1", question: "What is 2+2?", answer: "4" }] },
 *   messages: ({ task }) => [Message.system("Answer with a number."), Message.user(task.question)],
 *   tools: [submit]
 * })
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { identity } from "effect/Function"
import * as ParseResult from "effect/ParseResult"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Block from "./Block.js"
import type * as Conversation from "./Conversation.js"
import * as ProtoKeys from "./internal/protoKeys.js"
import type * as Json from "./Json.js"
import type * as Prompt from "./Prompt.js"
import type * as Protocol from "./Protocol.js"
import * as Tool from "./Tool.js"

/**
 * @category type ids
 * @since 0.1.0
 */
export const TypeId: unique symbol = Symbol.for("openreward-effect/Environment")

/**
 * @category type ids
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

// -----------------------------------------------------------------------------
// sessions
// -----------------------------------------------------------------------------

/**
 * The secrets a client sent when it created the session (the `X-Secrets` header), by name. Values
 * are `Redacted`, so they print as `<redacted>` in logs and errors; read one with
 * `Redacted.value`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Secrets {
  readonly [name: string]: Redacted.Redacted<string>
}

/**
 * What a session is before `setup` has run: its id, the environment's name, the task and the
 * secrets.
 *
 * @category models
 * @since 0.1.0
 */
export interface SessionInfo<Task = Json.JsonObject> {
  readonly id: string
  readonly environment: string
  readonly task: Task
  readonly secrets: Secrets
}

/**
 * A live session: its task and the state `setup` built. Tool handlers, `prompt` and `messages`
 * receive it. A tool annotated with `Session<Task>` (state `unknown`) works in any environment with
 * tasks of that type, whatever its state.
 *
 * @category models
 * @since 0.1.0
 */
export interface Session<Task = Json.JsonObject, State = unknown> extends SessionInfo<Task> {
  readonly state: State
}

// -----------------------------------------------------------------------------
// tasks
// -----------------------------------------------------------------------------

const TasksTypeId: unique symbol = Symbol.for("openreward-effect/Environment/Tasks")

/**
 * Tasks listed per split. The list of each split is computed once and kept.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskList<Task, E = never, R = never> {
  readonly [TasksTypeId]: typeof TasksTypeId
  readonly _tag: "TaskList"
  readonly list: (split: string) => Effect.Effect<ReadonlyArray<Task>, E, R>
}

/**
 * Tasks counted and fetched by index, for task sets too large to list: `/tasks` answers 400 and
 * clients use `/num_tasks` and `/task`.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskIndex<Task, E = never, R = never> {
  readonly [TasksTypeId]: typeof TasksTypeId
  readonly _tag: "TaskIndex"
  readonly count: (split: string) => Effect.Effect<number, E, R>
  readonly get: (split: string, index: number) => Effect.Effect<Task, E, R>
}

/**
 * Where an environment's tasks come from.
 *
 * @category models
 * @since 0.1.0
 */
export type Tasks<Task, E = never, R = never> = TaskList<Task, E, R> | TaskIndex<Task, E, R>

/**
 * What `tasks` may be given as: a list per split (a split without an entry has no tasks), a
 * function from split to tasks, or {@link Tasks}.
 *
 * @category models
 * @since 0.1.0
 */
export type TasksInput<Task, E = never, R = never> =
  | { readonly [split: string]: ReadonlyArray<Task> }
  | ((split: string) => ReadonlyArray<Task> | Effect.Effect<ReadonlyArray<Task>, E, R>)
  | Tasks<Task, E, R>

const toEffect = <A, E, R>(value: A | Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.isEffect(value) ? value as Effect.Effect<A, E, R> : Effect.succeed(value as A)

const lift = <Args extends ReadonlyArray<unknown>, A, E, R>(
  f: (...args: Args) => A | Effect.Effect<A, E, R>
) =>
(...args: Args): Effect.Effect<A, E, R> => Effect.suspend(() => toEffect(f(...args)))

/**
 * Tasks listed by a function of the split.
 *
 * @category constructors
 * @since 0.1.0
 */
export const taskList = <Task, E = never, R = never>(
  list: (split: string) => ReadonlyArray<Task> | Effect.Effect<ReadonlyArray<Task>, E, R>
): TaskList<Task, E, R> => ({ [TasksTypeId]: TasksTypeId, _tag: "TaskList", list: lift(list) })

/**
 * Tasks counted and fetched by index. `get` receives an index in `[0, count)`: the server resolves
 * negative indices from the end and answers out-of-range ones itself.
 *
 * @category constructors
 * @since 0.1.0
 */
export const taskIndex = <Task, E = never, R = never>(options: {
  readonly count: (split: string) => number | Effect.Effect<number, E, R>
  readonly get: (split: string, index: number) => Task | Effect.Effect<Task, E, R>
}): TaskIndex<Task, E, R> => ({
  [TasksTypeId]: TasksTypeId,
  _tag: "TaskIndex",
  count: lift(options.count),
  get: lift(options.get)
})

const toTasks = <Task, E, R>(input: TasksInput<Task, E, R>): Tasks<Task, E, R> => {
  if (typeof input === "function") return taskList(input)
  if (TasksTypeId in input) return input as Tasks<Task, E, R>
  const record = input as { readonly [split: string]: ReadonlyArray<Task> }
  return taskList((split) => Object.prototype.hasOwnProperty.call(record, split) ? record[split]! : [])
}

// -----------------------------------------------------------------------------
// environments
// -----------------------------------------------------------------------------

/**
 * Validation and encoding of an environment's tasks.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskCodec<Task> {
  /** Read a client's `task_spec`. */
  readonly decode: (input: unknown) => Either.Either<Task, ParseResult.ParseIssue>
  /** Write a task as the JSON the wire carries. */
  readonly encode: (task: Task) => Either.Either<unknown, ParseResult.ParseIssue>
}

/**
 * An environment: a task set, a prompt surface, tools and their session lifecycle. `E` is what its
 * callbacks may fail with, `R` the services they need.
 *
 * @category models
 * @since 0.1.0
 */
export interface Environment<in out Task = Json.JsonObject, in out State = void, out E = never, out R = never>
  extends Pipeable
{
  readonly [TypeId]: {
    readonly _E: (_: never) => E
    readonly _R: (_: never) => R
  }
  /** The name as given; the server routes it lower-cased. */
  readonly name: string
  readonly splits: ReadonlyArray<Protocol.Split>
  readonly task: TaskCodec<Task>
  readonly tasks: Tasks<Task, E, R>
  readonly setup: (session: SessionInfo<Task>) => Effect.Effect<State, E, R | Scope.Scope>
  readonly prompt: ((session: Session<Task, State>) => Effect.Effect<Prompt.Prompt, E, R>) | undefined
  readonly messages: ((session: Session<Task, State>) => Effect.Effect<Conversation.Conversation, E, R>) | undefined
  readonly tools: ReadonlyArray<Tool.Tool<Session<Task, State>, E, R>>
  readonly taskTools:
    | ((session: SessionInfo<Task>) => Effect.Effect<ReadonlyArray<Tool.Tool<Session<Task, State>, E, R>>, E, R>)
    | undefined
  readonly scoreGroup:
    | ((
      candidates: ReadonlyArray<Protocol.GroupCandidate>,
      session: Session<Task, State>
    ) => Effect.Effect<ReadonlyArray<number | Protocol.GroupScore>, E, R>)
    | undefined
  /**
   * Does the environment serve provider blocks (`Block.ProviderBlock`) in `/messages`? `"keep"`:
   * yes, and its tool lists advertise `provider` in `message_block_types`; `"refuse"` (the
   * default): no, and a conversation holding one is an error when it is served
   * ({@link ProviderContentRefused}).
   */
  readonly providerContent: "refuse" | "keep"
}

/**
 * Any environment, whatever its task, state, errors and requirements.
 *
 * @category models
 * @since 0.1.0
 */
export interface Any {
  readonly [TypeId]: {
    readonly _E: (_: never) => unknown
    readonly _R: (_: never) => unknown
  }
  readonly name: string
}

/**
 * The services an environment needs.
 *
 * @category type-level
 * @since 0.1.0
 */
export type Context<Env> = Env extends { readonly [TypeId]: { readonly _R: (_: never) => infer R } } ? R : never

/**
 * The errors an environment's callbacks may fail with.
 *
 * @category type-level
 * @since 0.1.0
 */
export type Error<Env> = Env extends { readonly [TypeId]: { readonly _E: (_: never) => infer E } } ? E : never

/**
 * An environment with its types erased, as a server handles it.
 *
 * @category models
 * @since 0.1.0
 */
export type Erased = Environment<unknown, unknown, unknown, unknown>

/**
 * Erase an environment's types.
 *
 * @category conversions
 * @since 0.1.0
 */
export const erase = (env: Any): Erased => env as unknown as Erased

type PromptFn<Task, State, E, R> = (
  session: Session<Task, State>
) => Prompt.Prompt | Effect.Effect<Prompt.Prompt, E, R>

type MessagesFn<Task, State, E, R> = (
  session: Session<Task, State>
) => Conversation.Conversation | Effect.Effect<Conversation.Conversation, E, R>

/**
 * The prompt surface: `prompt`, `messages`, or both. At least one is required.
 *
 * @category models
 * @since 0.1.0
 */
export type PromptSurface<Task, State, E, R> =
  | {
    /** The task prompt as text and image blocks (`/prompt`). */
    readonly prompt: PromptFn<Task, State, E, R>
    /** The task prompt as a conversation (`/messages`); by default the prompt as one user message. */
    readonly messages?: MessagesFn<Task, State, E, R> | undefined
  }
  | {
    /** The task prompt as text and image blocks (`/prompt`); by default the flattened conversation. */
    readonly prompt?: PromptFn<Task, State, E, R> | undefined
    /** The task prompt as a conversation (`/messages`). */
    readonly messages: MessagesFn<Task, State, E, R>
  }

/**
 * The options of {@link make}, apart from the prompt surface.
 *
 * @category models
 * @since 0.1.0
 */
export interface BaseOptions<Task, TaskEncoded, State, E, R> {
  /** The environment's name; routed lower-cased. */
  readonly name: string
  /**
   * The splits. A plain name is typed `train`, `validation` or `test` when it is one of those, and
   * `validation` otherwise, as in the reference.
   */
  readonly splits: ReadonlyArray<string | Protocol.Split>
  /** The Schema of a task. Without it tasks are plain JSON objects. */
  readonly task?: Schema.Schema<Task, TaskEncoded, never> | undefined
  /** The tasks of each split. */
  readonly tasks: TasksInput<NoInfer<Task>, E, R>
  /**
   * Build the session's state. Runs in the background when a session is created; session routes wait
   * for it. Finalizers it adds to the `Scope` run when the session ends.
   */
  readonly setup?: ((session: SessionInfo<Task>) => State | Effect.Effect<State, E, R | Scope.Scope>) | undefined
  /** The tools every session of this environment has, listed by `/tools`. */
  readonly tools: ReadonlyArray<Tool.Tool<Session<Task, State>, E, R>>
  /** Tools particular to a task: listed by `/task_tools` after `tools`, and callable. */
  readonly taskTools?:
    | ((
      session: SessionInfo<Task>
    ) =>
      | ReadonlyArray<Tool.Tool<Session<Task, State>, E, R>>
      | Effect.Effect<ReadonlyArray<Tool.Tool<Session<Task, State>, E, R>>, E, R>)
    | undefined
  /**
   * Score a group of candidate completions of this session's task (`/score_group`), one score per
   * candidate in order. Advertised as `supports_score_group` in the tool list.
   */
  readonly scoreGroup?:
    | ((
      candidates: ReadonlyArray<Protocol.GroupCandidate>,
      session: Session<Task, State>
    ) =>
      | ReadonlyArray<number | Protocol.GroupScore>
      | Effect.Effect<ReadonlyArray<number | Protocol.GroupScore>, E, R>)
    | undefined
  /**
   * Serve provider blocks (`Block.ProviderBlock`: content a provider's API hosts, such as a web
   * search's call and results) in `/messages`: `"keep"` serves them and adds `provider` to the
   * `message_block_types` the tool lists advertise (a client of this library keeps them; the
   * reference's client, and any client that does not know the type, skips them). `"refuse"` (the
   * default) keeps the reference's wire: a conversation holding a provider block is not served,
   * and `/messages` answers 500 with {@link ProviderContentRefused}, never a silent drop.
   */
  readonly providerContent?: "refuse" | "keep" | undefined
}

/**
 * The options of {@link make}.
 *
 * @category models
 * @since 0.1.0
 */
export type Options<Task, TaskEncoded, State, E, R> =
  & BaseOptions<Task, TaskEncoded, State, E, R>
  & PromptSurface<Task, State, E, R>

const Proto = {
  pipe() {
    // eslint-disable-next-line prefer-rest-params
    return pipeArguments(this, arguments)
  }
}

const variance = { _E: identity, _R: identity }

const toSplit = (split: string | Protocol.Split): Protocol.Split =>
  typeof split !== "string"
    ? split
    : { name: split, type: split === "train" || split === "test" || split === "validation" ? split : "validation" }

const jsonTask: TaskCodec<any> = { decode: Either.right, encode: Either.right }

const codecOf = <Task, I>(schema: Schema.Schema<Task, I, never>): TaskCodec<Task> => {
  const decode = ProtoKeys.keeping(
    ParseResult.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "ignore" })
  )
  const encode = ParseResult.encodeEither(schema)
  return { decode, encode }
}

/**
 * Define an environment.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <Task = Json.JsonObject, TaskEncoded = Json.JsonObject, State = void, E = never, R = never>(
  options: Options<Task, TaskEncoded, State, E, R>
): Environment<Task, State, E, R> => {
  const env: Environment<Task, State, E, R> = Object.assign(Object.create(Proto), {
    [TypeId]: variance,
    name: options.name,
    // A definition from untyped JavaScript may leave out what the types require; `validate` then
    // names what is missing instead of a TypeError here.
    splits: Array.isArray(options.splits) ? options.splits.map(toSplit) : [],
    task: options.task === undefined ? jsonTask : codecOf(options.task),
    tasks: toTasks(options.tasks),
    setup: options.setup === undefined ? () => Effect.void as Effect.Effect<State> : lift(options.setup),
    prompt: options.prompt === undefined ? undefined : lift(options.prompt),
    messages: options.messages === undefined ? undefined : lift(options.messages),
    tools: Array.isArray(options.tools) ? options.tools : [],
    taskTools: options.taskTools === undefined ? undefined : lift(options.taskTools),
    scoreGroup: options.scoreGroup === undefined ? undefined : lift(options.scoreGroup),
    providerContent: options.providerContent === "keep" ? "keep" : "refuse"
  })
  return env
}

/**
 * The block types an environment's tool lists advertise as `message_block_types`: the reference's
 * (`Block.supportedTypes`), and `provider` when it serves provider blocks.
 *
 * @category getters
 * @since 0.2.0
 */
export const blockTypes = (env: Any): ReadonlyArray<Block.BlockType> =>
  erase(env).providerContent === "keep" ? Block.types : Block.supportedTypes

/**
 * An environment's conversation holds a provider block (`Block.ProviderBlock`), and the environment
 * does not serve them (`providerContent: "keep"` in {@link make}): `/messages` is not served rather
 * than send the reference's clients a block they do not know, or drop it.
 *
 * @category errors
 * @since 0.2.0
 */
export class ProviderContentRefused extends Schema.TaggedError<ProviderContentRefused>(
  "openreward-effect/Environment/ProviderContentRefused"
)("ProviderContentRefused", {
  environment: Schema.String,
  messageIndex: Schema.Number,
  blockIndex: Schema.Number,
  provider: Schema.String,
  kind: Schema.String
}) {
  override get message(): string {
    return `Environment '${this.environment}': message ${this.messageIndex}, block ${this.blockIndex} is a provider ` +
      `block (${this.provider} ${this.kind}), which this environment does not serve; set providerContent: "keep" ` +
      `in Environment.make to serve provider blocks, or leave it out of the conversation`
  }
}

/**
 * The conversation, if `env` may serve it: every provider block in it needs
 * `providerContent: "keep"`.
 *
 * @category validation
 * @since 0.2.0
 */
export const checkProviderContent = (
  env: Any,
  conversation: Conversation.Conversation
): Either.Either<Conversation.Conversation, ProviderContentRefused> => {
  if (erase(env).providerContent === "keep") return Either.right(conversation)
  for (let i = 0; i < conversation.length; i++) {
    const blocks: ReadonlyArray<Block.Block> = conversation[i]!.blocks
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      if (block.type === "provider") {
        return Either.left(
          new ProviderContentRefused({
            environment: env.name,
            messageIndex: i,
            blockIndex: j,
            provider: block.provider,
            kind: block.kind
          })
        )
      }
    }
  }
  return Either.right(conversation)
}

/**
 * Is this an environment?
 *
 * @category guards
 * @since 0.1.0
 */
export const isEnvironment = (u: unknown): u is Any => typeof u === "object" && u !== null && TypeId in u

/**
 * The key the server routes an environment under: its name, lower-cased.
 *
 * @category getters
 * @since 0.1.0
 */
export const key = (env: Any): string => env.name.toLowerCase()

// -----------------------------------------------------------------------------
// validation
// -----------------------------------------------------------------------------

/**
 * An environment (or a set of them) cannot be served. The server reports this when it starts, as
 * the reference's `Server(...)` constructor does.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidDefinition extends Schema.TaggedError<InvalidDefinition>(
  "openreward-effect/Environment/InvalidDefinition"
)("InvalidDefinition", {
  environment: Schema.NullOr(Schema.String),
  reason: Schema.String
}) {
  override get message(): string {
    return this.environment === null ? this.reason : `Environment '${this.environment}' ${this.reason}`
  }
}

/**
 * First path segments the server keeps for its own routes; no environment may be named so.
 *
 * @category constants
 * @since 0.1.0
 */
export const reservedNames: ReadonlySet<string> = new Set([
  "health",
  "version",
  "ping",
  "list_environments",
  "create",
  "delete",
  "create_session",
  "delete_session",
  "docs",
  "redoc",
  "openapi.json"
])

const invalid = (env: Any, reason: string) => Either.left(new InvalidDefinition({ environment: key(env), reason }))

/**
 * Check that an environment can be served: a usable name, at least one split, at least one tool
 * (a terminal tool counts), no two tools with one name, at most one terminal tool, and a prompt
 * surface (which the types already require).
 *
 * @category validation
 * @since 0.1.0
 */
export const validate = <Env extends Any>(self: Env): Either.Either<Env, InvalidDefinition> => {
  const env = erase(self)
  if (typeof env.name !== "string") {
    return Either.left(
      new InvalidDefinition({ environment: null, reason: "An environment has no name; give `name` a string." })
    )
  }
  const name = key(env)
  if (name === "" || name.includes("/") || name.includes("?") || name.includes("#")) {
    return Either.left(
      new InvalidDefinition({
        environment: env.name,
        reason: "has an unusable name; a name must be one non-empty path segment"
      })
    )
  }
  if (reservedNames.has(name)) {
    return invalid(env, `collides with the server's own route /${name}; choose another name`)
  }
  if (env.tools.length === 0) return invalid(env, "has no tools defined. Add at least one tool.")
  if (env.splits.length === 0) {
    return invalid(env, "has no splits defined. Give `splits` at least one split.")
  }
  const splitNames = new Set<string>()
  for (const split of env.splits) {
    if (splitNames.has(split.name)) return invalid(env, `lists the split '${split.name}' twice`)
    splitNames.add(split.name)
  }
  if (env.prompt === undefined && env.messages === undefined) {
    return invalid(
      env,
      "implements neither prompt nor messages. Give `prompt` (or `messages` for a conversation-shaped environment)."
    )
  }
  const names = new Set<string>()
  let terminal: string | undefined
  for (const tool of env.tools) {
    if (!Tool.isTool(tool)) return invalid(env, `has a tool that is not made with Tool.make`)
    if (names.has(tool.name)) return invalid(env, `defines the tool '${tool.name}' twice`)
    names.add(tool.name)
    if (tool.defect !== null) return invalid(env, `has an unusable tool '${tool.name}': ${tool.defect}`)
    if (tool.terminal) {
      if (terminal !== undefined) {
        return invalid(
          env,
          `has more than one terminal tool: '${terminal}' and '${tool.name}'. An environment may have at most one.`
        )
      }
      terminal = tool.name
    }
  }
  return Either.right(self)
}
