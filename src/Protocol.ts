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
import * as Json from "./Json.js"
import * as Message from "./Message.js"

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
 * The body of `/create`: either a `task_spec`, or a `split` and an `index`.
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
}).annotations({ identifier: "CreateSession" })

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

/**
 * One route of the protocol: its method, whether it sits at the root (`/create`) or under an
 * environment (`/<env>/call`), and its path segment.
 *
 * @category models
 * @since 0.1.0
 */
export interface Route {
  readonly method: "GET" | "POST"
  readonly scope: "root" | "environment"
  readonly path: string
}

/**
 * Every route of the protocol (reference 0.1.167): the one table the server dispatches on (and
 * answers 405, 307 and 308 from) and the client takes its paths from.
 *
 * @category constants
 * @since 0.1.0
 */
export const routes = {
  health: { method: "GET", scope: "root", path: "health" },
  version: { method: "GET", scope: "root", path: "version" },
  listEnvironments: { method: "GET", scope: "root", path: "list_environments" },
  ping: { method: "POST", scope: "root", path: "ping" },
  createSession: { method: "POST", scope: "root", path: "create_session" },
  deleteSession: { method: "POST", scope: "root", path: "delete_session" },
  create: { method: "POST", scope: "root", path: "create" },
  delete: { method: "POST", scope: "root", path: "delete" },
  tools: { method: "GET", scope: "environment", path: "tools" },
  splits: { method: "GET", scope: "environment", path: "splits" },
  tasks: { method: "POST", scope: "environment", path: "tasks" },
  numTasks: { method: "POST", scope: "environment", path: "num_tasks" },
  task: { method: "POST", scope: "environment", path: "task" },
  taskRange: { method: "POST", scope: "environment", path: "task_range" },
  taskTools: { method: "GET", scope: "environment", path: "task_tools" },
  prompt: { method: "GET", scope: "environment", path: "prompt" },
  messages: { method: "GET", scope: "environment", path: "messages" },
  call: { method: "POST", scope: "environment", path: "call" },
  scoreGroup: { method: "POST", scope: "environment", path: "score_group" }
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
export const routePath = (route: Route, environment?: string | undefined): string =>
  route.scope === "root" || environment === undefined ? `/${route.path}` : `/${environment}/${route.path}`
