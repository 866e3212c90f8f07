/**
 * Wire schemas of the OpenReward environment protocol, shared by the server and the client.
 *
 * Field names, defaults and key order are the reference SDK's (openreward 0.1.167), so that what
 * our server writes is byte-compatible with what the reference server writes: optional fields are
 * present as `null`, never omitted.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Block from "./Block.js"
import * as Conversation from "./Conversation.js"
import * as Json from "./Json.js"
import * as Message from "./Message.js"
import * as Prompt from "./Prompt.js"
import * as ProtocolError from "./ProtocolError.js"

const nullable = <S extends Schema.Schema.Any>(schema: S) =>
  Schema.optionalWith(Schema.NullOr(schema), { default: () => null, exact: true })

/** Unicode `White_Space`, what pydantic trims from an integer written as a string. */
const space = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]*"
const integerText = new RegExp(`^${space}([+-]?)(\\d+(?:_\\d+)*)(?:\\.0+)?${space}$`)

/**
 * An integer as pydantic reads an `int` field in lax mode (how FastAPI validates request bodies):
 * an integral number (`1.0` is 1), a boolean (`true` is 1), or a string holding a decimal integer
 * (`" +1 "`, `"1_000"`, `"1.0"`). Integers beyond the safe range are kept as the nearest number, which
 * is as out of range as the exact one for every index and slice bound.
 */
const parseLaxInt = (u: unknown): Option.Option<number> => {
  if (typeof u === "number") return Number.isInteger(u) ? Option.some(u === 0 ? 0 : u) : Option.none()
  if (typeof u === "boolean") return Option.some(u ? 1 : 0)
  if (typeof u === "string") {
    const match = integerText.exec(u)
    if (match === null) return Option.none()
    const n = Number(match[1]! + match[2]!.replaceAll("_", ""))
    return Option.some(n === 0 ? 0 : n)
  }
  return Option.none()
}

/**
 * An `int` field of a request body, coerced as pydantic's lax mode coerces it: `1.0`, `true` and
 * `" 1 "` are 1; anything else fails as `Schema.Int` does (so its error reads as pydantic's:
 * `int_parsing` for a string, `int_from_float` for a fraction, `int_type` otherwise).
 *
 * @category schemas
 * @since 0.1.0
 */
export const LaxInt: Schema.Schema<number, unknown> = Schema.transformOrFail(Schema.Unknown, Schema.Number, {
  strict: true,
  decode: (u) =>
    Option.match(parseLaxInt(u), {
      onNone: () => ParseResult.fail(new ParseResult.Type(Schema.Int.ast, u)),
      onSome: ParseResult.succeed
    }),
  encode: ParseResult.succeed
}).annotations({ identifier: "LaxInt" })

/**
 * What a tool returns: content blocks, free-form metadata, an optional reward, and whether the
 * episode is finished.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolOutput = Schema.Struct({
  blocks: Schema.Array(Block.ContentBlock),
  metadata: nullable(Json.JsonObject),
  reward: nullable(Schema.Number),
  finished: Schema.optionalWith(Schema.Boolean, { default: () => false, exact: true })
}).annotations({ identifier: "ToolOutput" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolOutput extends Schema.Schema.Type<typeof ToolOutput> {}

/**
 * The `reason` a tool call was refused, when the server says.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RunToolErrorReason = Schema.Literal("not_found", "name_collision", "input_validation", "episode_finished")

/**
 * @category models
 * @since 0.1.0
 */
export type RunToolErrorReason = typeof RunToolErrorReason.Type

/**
 * @category schemas
 * @since 0.1.0
 */
export const RunToolSuccess = Schema.Struct({
  ok: Schema.tag(true),
  output: ToolOutput
}).annotations({ identifier: "RunToolSuccess" })

/**
 * @category schemas
 * @since 0.1.0
 */
export const RunToolError = Schema.Struct({
  ok: Schema.tag(false),
  error: Schema.String,
  reason: nullable(RunToolErrorReason)
}).annotations({ identifier: "RunToolError" })

/**
 * The JSON a `/call` stream ends with.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RunToolOutput = Schema.Union(RunToolSuccess, RunToolError).annotations({ identifier: "RunToolOutput" })

/**
 * @category models
 * @since 0.1.0
 */
export type RunToolOutput = typeof RunToolOutput.Type

/**
 * A tool as a server lists it. `input_schema` is a JSON Schema object, or `null` for a tool that
 * takes no input.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolSpec = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  input_schema: Schema.NullOr(Json.JsonObject)
}).annotations({ identifier: "ToolSpec" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolSpec extends Schema.Schema.Type<typeof ToolSpec> {}

/**
 * The environment's terminal tool, hidden from the tool list: the harness feeds the final assistant
 * message to it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TerminalToolSpec = Schema.Struct({
  name: Schema.String,
  arg: nullable(Schema.String),
  description: Schema.optionalWith(Schema.String, { default: () => "", exact: true })
}).annotations({ identifier: "TerminalToolSpec" })

/**
 * @category models
 * @since 0.1.0
 */
export interface TerminalToolSpec extends Schema.Schema.Type<typeof TerminalToolSpec> {}

/**
 * The body of `/tools` and `/task_tools`. `message_block_types` is absent (`null`) on servers older
 * than reference 0.1.157, which means text and image only.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListToolsOutput = Schema.Struct({
  tools: Schema.Array(ToolSpec),
  terminal_tool: nullable(TerminalToolSpec),
  supports_score_group: nullable(Schema.Boolean),
  message_block_types: nullable(Schema.Array(Schema.String))
}).annotations({ identifier: "ListToolsOutput" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ListToolsOutput extends Schema.Schema.Type<typeof ListToolsOutput> {}

/**
 * The body of `/call`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolCall = Schema.Struct({
  name: Schema.String,
  input: Json.JsonObject,
  task_id: nullable(Schema.String)
}).annotations({ identifier: "ToolCall" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolCall extends Schema.Schema.Type<typeof ToolCall> {}

/**
 * The body of `/create`: either a `task_spec`, or a `split` and an `index` (the reference's model
 * validator, checked once the fields are valid).
 *
 * @category schemas
 * @since 0.1.0
 */
export const CreateSession = Schema.Struct({
  env_name: nullable(Schema.String),
  task_spec: nullable(Json.JsonObject),
  split: nullable(Schema.String),
  index: nullable(LaxInt),
  toolset_name: nullable(Schema.String)
}).pipe(
  Schema.filter((payload) => {
    const hasSpec = payload.task_spec !== null
    const hasIndex = payload.split !== null && payload.index !== null
    if (hasSpec === hasIndex) return "Provide either task_spec or both split and index, not both/neither"
    if ((payload.split === null) !== (payload.index === null)) return "split and index must both be provided together"
    return true
  }, { identifier: "CreateSession" })
)

/**
 * @category models
 * @since 0.1.0
 */
export interface CreateSession extends Schema.Schema.Type<typeof CreateSession> {}

/**
 * @category schemas
 * @since 0.1.0
 */
export const SplitType = Schema.Literal("train", "validation", "test")

/**
 * A split as `/splits` lists it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Split = Schema.Struct({
  name: Schema.String,
  type: SplitType
}).annotations({ identifier: "Split" })

/**
 * @category models
 * @since 0.1.0
 */
export interface Split extends Schema.Schema.Type<typeof Split> {}

/**
 * The body of `/tasks` and `/num_tasks`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ListTasks = Schema.Struct({ split: Schema.String })

/**
 * The body of `/task`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GetTask = Schema.Struct({ split: Schema.String, index: LaxInt })

/**
 * The body of `/task_range`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GetTaskRange = Schema.Struct({
  split: Schema.String,
  start: nullable(LaxInt),
  stop: nullable(LaxInt)
})

/**
 * The SSE event names of `/call` and `/create_session`.
 *
 * @category constants
 * @since 0.1.0
 */
export const SseEvent = {
  taskId: "task_id",
  chunk: "chunk",
  end: "end",
  error: "error"
} as const

/**
 * The size, in code points, of each SSE data piece of a `/call` result.
 *
 * @category constants
 * @since 0.1.0
 */
export const chunkSize = 4096

/**
 * One rollout's completion submitted for group scoring (`/score_group`): the candidate as a
 * role-tagged transcript, and trainer-owned `metadata` that is echoed untouched.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GroupCandidate = Schema.Struct({
  messages: Schema.Array(Message.Message),
  metadata: nullable(Json.JsonObject)
}).annotations({ identifier: "GroupCandidate" })

/**
 * @category models
 * @since 0.1.0
 */
export interface GroupCandidate extends Schema.Schema.Type<typeof GroupCandidate> {}

/**
 * The score of one group candidate, index-aligned with the request.
 *
 * @category schemas
 * @since 0.1.0
 */
export const GroupScore = Schema.Struct({
  reward: Schema.Number,
  metadata: nullable(Json.JsonObject)
}).annotations({ identifier: "GroupScore" })

/**
 * @category models
 * @since 0.1.0
 */
export interface GroupScore extends Schema.Schema.Type<typeof GroupScore> {}

/**
 * The body of `/score_group` (reference 0.1.157 and later). `task_id` resumes a stream, as for
 * `/call`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ScoreGroup = Schema.Struct({
  candidates: Schema.Array(GroupCandidate),
  task_id: nullable(Schema.String)
}).annotations({ identifier: "ScoreGroup" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ScoreGroup extends Schema.Schema.Type<typeof ScoreGroup> {}

/**
 * The JSON a `/score_group` stream ends with.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ScoreGroupOutput = Schema.Struct({
  scores: Schema.Array(GroupScore)
}).annotations({ identifier: "ScoreGroupOutput" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ScoreGroupOutput extends Schema.Schema.Type<typeof ScoreGroupOutput> {}

// -----------------------------------------------------------------------------
// answers
// -----------------------------------------------------------------------------

/**
 * The body of `/health`: `ok`, or `draining` (with status 503) while the server drains before it
 * stops.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Health = Schema.Struct({ status: Schema.Literal("ok", "draining") }).annotations({ identifier: "Health" })

/**
 * The body of `/version`: the reference SDK version whose protocol the server speaks, and the
 * build's commit (`OPENREWARD_BUILD_SHA`) when it has one.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Version = Schema.Struct({
  version: Schema.String,
  build_sha: Schema.NullOr(Schema.String)
}).annotations({ identifier: "Version" })

/**
 * The body of `/list_environments`: the names of the environments served, the default first.
 *
 * @category schemas
 * @since 0.2.0
 */
export const EnvironmentNames = Schema.Array(Schema.String).annotations({ identifier: "EnvironmentNames" })

/**
 * The body of `/ping`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Pong = Schema.Struct({ status: Schema.Literal("ok") }).annotations({ identifier: "Pong" })

/**
 * A session id as `/delete` and `/delete_session` answer it, and as the hosted platform ends a
 * `/create_session` stream with it.
 *
 * @category schemas
 * @since 0.2.0
 */
export const SessionId = Schema.Struct({ sid: Schema.String }).annotations({ identifier: "SessionId" })

/**
 * The end of a `/create_session` stream: empty (`null`) from a local server, which names the
 * session in the stream's `task_id` event, or the session id from the hosted platform.
 *
 * @category schemas
 * @since 0.2.0
 */
export const SessionCreated = Schema.NullOr(SessionId).annotations({ identifier: "SessionCreated" })

/**
 * The body of `/create`'s answer. The reference client does not read it, so `sid` is not held to
 * being a string.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Created = Schema.Struct({ sid: Schema.NullOr(Schema.String) }).annotations({ identifier: "Created" })

/**
 * The body a client sends to `/create_session`: the hosted platform's environment variables for
 * the session's container (a local server does not read it).
 *
 * @category schemas
 * @since 0.2.0
 */
export const CreateSessionRequest = Schema.Struct({
  env: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}).annotations({ identifier: "CreateSessionRequest" })

/**
 * The body of `/splits`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Splits = Schema.Array(Split).annotations({ identifier: "Splits" })

/**
 * The body of `/tasks` and `/task_range`: tasks as JSON, and the environment as the path named
 * it (servers that predate `env_name` leave it out).
 *
 * @category schemas
 * @since 0.2.0
 */
export const TaskList = Schema.Struct({
  tasks: Schema.Array(Json.JsonObject),
  env_name: Schema.optional(Schema.String)
}).annotations({ identifier: "TaskList" })

/**
 * The body of `/task`: one task as JSON, with `env_name` as in {@link TaskList}.
 *
 * @category schemas
 * @since 0.2.0
 */
export const TaskAnswer = Schema.Struct({
  task: Json.JsonObject,
  env_name: Schema.optional(Schema.String)
}).annotations({ identifier: "TaskAnswer" })

/**
 * The body of `/num_tasks`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const NumTasks = Schema.Struct({ num_tasks: Schema.Int }).annotations({ identifier: "NumTasks" })

// -----------------------------------------------------------------------------
// routes
// -----------------------------------------------------------------------------

/**
 * One route of the protocol: its method, whether it sits at the root (`/create`) or under an
 * environment (`/<env>/call`), its path segment, and what it carries:
 *
 * - `payload`: the schema of the JSON body a client sends (`undefined`: none);
 * - `answer`: `json`, one JSON body, or `events`, a server-sent event stream (`task_id`, `chunk`s,
 *   then `end` or `error`) whose joined data is the JSON;
 * - `success`: the schema of that JSON;
 * - `errors`: the error answers the route may give, each a `ProtocolError` class carrying its
 *   status.
 *
 * The server validates payloads and answers errors from this table; the client reads answers with
 * the success schemas (and types what it sends with the payload schemas).
 *
 * @category models
 * @since 0.1.0
 */
export interface Route<
  Payload extends Schema.Schema.AnyNoContext | undefined = Schema.Schema.AnyNoContext | undefined,
  Success extends Schema.Schema.AnyNoContext = Schema.Schema.AnyNoContext,
  Errors extends ReadonlyArray<ProtocolError.Class> = ReadonlyArray<ProtocolError.Class>
> {
  readonly method: "GET" | "POST"
  readonly scope: "root" | "environment"
  readonly path: string
  /** @since 0.2.0 */
  readonly answer: "json" | "events"
  /** @since 0.2.0 */
  readonly payload: Payload
  /** @since 0.2.0 */
  readonly success: Success
  /** @since 0.2.0 */
  readonly errors: Errors
}

/**
 * The types a route carries.
 *
 * @since 0.2.0
 */
export declare namespace Route {
  /**
   * The payload a route's handler reads (`undefined`: the route takes none).
   *
   * @category models
   * @since 0.2.0
   */
  export type Payload<R extends Route> = R["payload"] extends Schema.Schema.AnyNoContext
    ? Schema.Schema.Type<R["payload"]>
    : undefined

  /**
   * The JSON a client sends to a route (`undefined`: none).
   *
   * @category models
   * @since 0.2.0
   */
  export type PayloadEncoded<R extends Route> = R["payload"] extends Schema.Schema.AnyNoContext
    ? Schema.Schema.Encoded<R["payload"]>
    : undefined

  /**
   * A route's answer, decoded.
   *
   * @category models
   * @since 0.2.0
   */
  export type Success<R extends Route> = Schema.Schema.Type<R["success"]>

  /**
   * A route's answer as JSON, what a server writes.
   *
   * @category models
   * @since 0.2.0
   */
  export type SuccessEncoded<R extends Route> = Schema.Schema.Encoded<R["success"]>

  /**
   * The error answers of a route.
   *
   * @category models
   * @since 0.2.0
   */
  export type Error<R extends Route> = Schema.Schema.Type<R["errors"][number]>
}

/** Error answers any route may give: a failure of the server or of environment code, or shutdown. */
const always = [ProtocolError.InternalError, ProtocolError.ShuttingDown] as const

/** Error answers of reading a JSON body. */
const body = [ProtocolError.ContentTooLarge, ProtocolError.UnparsableBody, ProtocolError.ValidationFailed] as const

/** Error answers of naming a session that exists (its setup may still run, or have failed). */
const existing = [ProtocolError.MissingSessionId, ProtocolError.SessionNotFound, ProtocolError.SessionGone] as const

/** Error answers of naming a session and waiting for its setup. */
const ready = [...existing, ProtocolError.SessionStarting] as const

/**
 * Every route of the protocol (reference 0.1.167): the one table the server dispatches on
 * (answering 405, 307 and 308 from it), validates payloads and answers errors by, and the client
 * takes its paths and answer schemas from.
 *
 * @example
 * ```ts
 * import * as Protocol from "openreward-effect/Protocol"
 * import * as ProtocolError from "openreward-effect/ProtocolError"
 * import * as Schema from "effect/Schema"
 *
 * const route = Protocol.routes.numTasks
 * console.log(route.method, Protocol.routePath(route, "lab"), route.answer)
 * console.log(Schema.decodeUnknownSync(route.payload)({ split: "train" }))
 * console.log(Schema.decodeUnknownSync(route.success)({ num_tasks: 3 }))
 * console.log(route.errors.map((error) => `${ProtocolError.statusOf(error)} ${error._tag}`).join(", "))
 * ```
 *
 * ```text output
 * POST /lab/num_tasks json
 * { split: 'train' }
 * { num_tasks: 3 }
 * 500 InternalError, 503 ShuttingDown, 413 ContentTooLarge, 400 UnparsableBody, 422 ValidationFailed, 400 InvalidSplit
 * ```
 *
 * @category constants
 * @since 0.1.0
 */
export const routes = {
  health: {
    method: "GET",
    scope: "root",
    path: "health",
    answer: "json",
    payload: undefined,
    success: Health,
    errors: always
  },
  version: {
    method: "GET",
    scope: "root",
    path: "version",
    answer: "json",
    payload: undefined,
    success: Version,
    errors: always
  },
  listEnvironments: {
    method: "GET",
    scope: "root",
    path: "list_environments",
    answer: "json",
    payload: undefined,
    success: EnvironmentNames,
    errors: always
  },
  ping: {
    method: "POST",
    scope: "root",
    path: "ping",
    answer: "json",
    payload: undefined,
    success: Pong,
    errors: [...always, ...existing]
  },
  createSession: {
    method: "POST",
    scope: "root",
    path: "create_session",
    answer: "events",
    payload: CreateSessionRequest,
    success: SessionCreated,
    errors: [...always, ProtocolError.Draining]
  },
  deleteSession: {
    method: "POST",
    scope: "root",
    path: "delete_session",
    answer: "json",
    payload: undefined,
    success: SessionId,
    errors: [...always, ProtocolError.MissingSessionId]
  },
  create: {
    method: "POST",
    scope: "root",
    path: "create",
    answer: "json",
    payload: CreateSession,
    success: Created,
    errors: [
      ...always,
      ...body,
      ProtocolError.MissingSessionId,
      ProtocolError.SessionExists,
      ProtocolError.Draining,
      ProtocolError.TooManySessions,
      ProtocolError.UnknownEnvironment,
      ProtocolError.InvalidSplit,
      ProtocolError.InvalidIndex,
      ProtocolError.InvalidSecrets,
      ProtocolError.UnknownToolset
    ]
  },
  delete: {
    method: "POST",
    scope: "root",
    path: "delete",
    answer: "json",
    payload: undefined,
    success: SessionId,
    errors: [...always, ProtocolError.MissingSessionId]
  },
  tools: {
    method: "GET",
    scope: "environment",
    path: "tools",
    answer: "json",
    payload: undefined,
    success: ListToolsOutput,
    errors: always
  },
  splits: {
    method: "GET",
    scope: "environment",
    path: "splits",
    answer: "json",
    payload: undefined,
    success: Splits,
    errors: always
  },
  tasks: {
    method: "POST",
    scope: "environment",
    path: "tasks",
    answer: "json",
    payload: ListTasks,
    success: TaskList,
    errors: [...always, ...body, ProtocolError.InvalidSplit, ProtocolError.ListTasksUnsupported]
  },
  numTasks: {
    method: "POST",
    scope: "environment",
    path: "num_tasks",
    answer: "json",
    payload: ListTasks,
    success: NumTasks,
    errors: [...always, ...body, ProtocolError.InvalidSplit]
  },
  task: {
    method: "POST",
    scope: "environment",
    path: "task",
    answer: "json",
    payload: GetTask,
    success: TaskAnswer,
    errors: [...always, ...body, ProtocolError.InvalidSplit, ProtocolError.InvalidIndex]
  },
  taskRange: {
    method: "POST",
    scope: "environment",
    path: "task_range",
    answer: "json",
    payload: GetTaskRange,
    success: TaskList,
    errors: [...always, ...body, ProtocolError.InvalidSplit]
  },
  taskTools: {
    method: "GET",
    scope: "environment",
    path: "task_tools",
    answer: "json",
    payload: undefined,
    success: ListToolsOutput,
    errors: [...always, ...existing]
  },
  prompt: {
    method: "GET",
    scope: "environment",
    path: "prompt",
    answer: "json",
    payload: undefined,
    success: Prompt.Prompt,
    errors: [...always, ...ready]
  },
  messages: {
    method: "GET",
    scope: "environment",
    path: "messages",
    answer: "json",
    payload: undefined,
    success: Conversation.Conversation,
    errors: [...always, ...ready]
  },
  call: {
    method: "POST",
    scope: "environment",
    path: "call",
    answer: "events",
    payload: ToolCall,
    success: RunToolOutput,
    errors: [...always, ...body, ...ready]
  },
  scoreGroup: {
    method: "POST",
    scope: "environment",
    path: "score_group",
    answer: "events",
    payload: ScoreGroup,
    success: ScoreGroupOutput,
    errors: [...always, ...body, ...ready, ProtocolError.ScoreGroupUnsupported]
  }
} as const satisfies Record<string, Route>

/**
 * The names of the protocol's routes.
 *
 * @category models
 * @since 0.1.0
 */
export type RouteName = keyof typeof routes

/**
 * The path of a route: `/<path>` at the root; `/<environment>/<path>` under an environment, or the
 * bare `/<path>` without one (the server redirects it under its default environment).
 *
 * @category constructors
 * @since 0.1.0
 */
export const routePath = (route: Pick<Route, "scope" | "path">, environment?: string | undefined): string =>
  route.scope === "root" || environment === undefined ? `/${route.path}` : `/${environment}/${route.path}`
