/**
 * An environment prepared for serving: the static answers (`/splits`, `/tools`) built once, tools
 * indexed by name, and the task routes' semantics (the reference's `num_tasks` / `get_task` /
 * `get_task_range`, with Python indexing and slice clamping).
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Environment from "../../Environment.js"
import type * as Json from "../../Json.js"
import type * as Protocol from "../../Protocol.js"
import type * as Tool from "../../Tool.js"

/**
 * A tool as the server handles it (its session type erased).
 *
 * @internal
 */
export type AnyTool = Tool.Tool<any, unknown, unknown>

/**
 * A task failed to encode as JSON, or a task source misbehaved.
 *
 * @internal
 */
export class InvalidTask extends Error {
  override readonly name = "InvalidTask"
}

/**
 * @internal
 */
export interface Compiled {
  readonly env: Environment.Erased
  readonly key: string
  readonly splitNames: ReadonlySet<string>
  /** The `/splits` answer. */
  readonly splits: Protocol.Route.SuccessEncoded<typeof Protocol.routes.splits>
  readonly tools: ReadonlyMap<string, AnyTool>
  /** Whether any tool runs exclusively (then every call goes through the session's gate). */
  readonly hasExclusive: boolean
  readonly terminal: Protocol.TerminalToolSpec | null
  /** The `/tools` answer. */
  readonly toolList: ToolList
  /** The `/task_tools` answer for a session whose task tools are `extra`. */
  readonly taskToolList: (extra: ReadonlyArray<AnyTool>) => ToolList
  /** The tasks of a split as JSON, or `None` for an index-only task source. */
  readonly listTasks: (split: string) => Effect.Effect<Option.Option<ReadonlyArray<Json.JsonObject>>, unknown, unknown>
  readonly numTasks: (split: string) => Effect.Effect<number, unknown, unknown>
  /** The task at a Python index, decoded (`None`: out of range). */
  readonly task: (split: string, index: number) => Effect.Effect<Option.Option<unknown>, unknown, unknown>
  /** The task at a Python index as JSON (`None`: out of range). */
  readonly taskJson: (split: string, index: number) => Effect.Effect<Option.Option<Json.JsonObject>, unknown, unknown>
  readonly taskRange: (
    split: string,
    start: number | null,
    stop: number | null
  ) => Effect.Effect<ReadonlyArray<Json.JsonObject>, unknown, unknown>
}

/**
 * A `/tools` or `/task_tools` answer.
 *
 * @internal
 */
export type ToolList = Protocol.Route.SuccessEncoded<typeof Protocol.routes.tools>

/** Python's `sorted()` order on `str`: by code point. */
const byCodePoint = (a: string, b: string): number => {
  const x = Array.from(a)
  const y = Array.from(b)
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!
    if (d !== 0) return d
  }
  return x.length - y.length
}

const spec = (tool: AnyTool): Protocol.ToolSpec => ({
  name: tool.name,
  description: tool.description,
  input_schema: tool.inputSchema
})

/** Resolve a Python index against `total`; `undefined` when out of range. */
const pythonIndex = (index: number, total: number): number | undefined => {
  const i = index < 0 ? total + index : index
  return i >= 0 && i < total ? i : undefined
}

/** Python slice bounds, clamped as the reference clamps them. */
const sliceBounds = (start: number | null, stop: number | null, total: number): readonly [number, number] => {
  let from = start ?? 0
  let to = stop ?? total
  if (from < 0) from = Math.max(total + from, 0)
  if (to < 0) to = Math.max(total + to, 0)
  return [Math.min(from, total), Math.min(to, total)]
}

/**
 * A per-split cache of a task list: computed once, concurrent first requests share the computation,
 * failures are not kept.
 */
const cachedLists = <A>(list: (split: string) => Effect.Effect<A, unknown, unknown>) => {
  const cache = new Map<string, Deferred.Deferred<A, unknown>>()
  return (split: string): Effect.Effect<A, unknown, unknown> =>
    Effect.suspend(() => {
      const existing = cache.get(split)
      if (existing !== undefined) return Deferred.await(existing)
      const deferred = Deferred.unsafeMake<A, unknown>(FiberId.none)
      cache.set(split, deferred)
      return Effect.uninterruptible(list(split)).pipe(
        Effect.onExit((exit) => {
          if (Exit.isFailure(exit)) cache.delete(split)
          return Deferred.done(deferred, exit)
        })
      )
    })
}

/**
 * Prepare a validated environment.
 *
 * @internal
 */
export const compile = (self: Environment.Any): Compiled => {
  const env = Environment.erase(self)
  const key = Environment.key(env)
  const tools = new Map<string, AnyTool>()
  for (const tool of env.tools as ReadonlyArray<AnyTool>) tools.set(tool.name, tool)
  const terminalTool = (env.tools as ReadonlyArray<AnyTool>).find((t) => t.terminal)
  const terminal: Protocol.TerminalToolSpec | null = terminalTool === undefined ? null : {
    name: terminalTool.name,
    arg: terminalTool.terminalArg,
    description: terminalTool.description
  }
  const listed = (env.tools as ReadonlyArray<AnyTool>)
    .filter((t) => !t.terminal)
    .sort((a, b) => byCodePoint(a.name, b.name))
    .map(spec)
  const supportsScoreGroup = env.scoreGroup !== undefined
  const toolList = (specs: ReadonlyArray<Protocol.ToolSpec>): ToolList => ({
    tools: specs,
    terminal_tool: terminal,
    supports_score_group: supportsScoreGroup,
    message_block_types: Environment.blockTypes(env)
  })

  const encodeTask = (task: unknown): Effect.Effect<Json.JsonObject, InvalidTask> => {
    const encoded = env.task.encode(task)
    if (Either.isLeft(encoded)) {
      return Effect.fail(
        new InvalidTask(
          `a task does not match the environment's task schema: ${
            ParseResult.TreeFormatter.formatIssueSync(encoded.left)
          }`
        )
      )
    }
    // The protocol's tasks are JSON objects (a client's `task_spec`).
    const json = encoded.right
    return typeof json === "object" && json !== null && !Array.isArray(json)
      ? Effect.succeed(json as Json.JsonObject)
      : Effect.fail(new InvalidTask(`a task's encoded form is not a JSON object: ${String(json)}`))
  }

  const tasks = env.tasks
  const listCached = tasks._tag === "TaskList" ? cachedLists(tasks.list) : undefined

  const total = (split: string): Effect.Effect<number, unknown, unknown> =>
    tasks._tag === "TaskList" ? Effect.map(listCached!(split), (list) => list.length) : tasks.count(split)

  const task = (split: string, index: number): Effect.Effect<Option.Option<unknown>, unknown, unknown> =>
    tasks._tag === "TaskList"
      ? Effect.map(listCached!(split), (list) => {
        const i = pythonIndex(index, list.length)
        return i === undefined ? Option.none() : Option.some(list[i])
      })
      : Effect.flatMap(tasks.count(split), (count) => {
        const i = pythonIndex(index, count)
        return i === undefined ? Effect.succeedNone : Effect.asSome(tasks.get(split, i))
      })

  return {
    env,
    key,
    splitNames: new Set(env.splits.map((s) => s.name)),
    splits: env.splits.map((s) => ({ name: s.name, type: s.type })),
    tools,
    hasExclusive: [...tools.values()].some((t) => t.concurrency === "exclusive"),
    terminal,
    toolList: toolList(listed),
    taskToolList: (extra) =>
      extra.length === 0
        ? toolList(listed)
        : toolList([...listed, ...extra.filter((t) => t.name !== terminal?.name).map(spec)]),
    listTasks: (split) =>
      tasks._tag === "TaskList"
        ? Effect.asSome(Effect.flatMap(listCached!(split), (list) => Effect.forEach(list, encodeTask)))
        : Effect.succeedNone,
    numTasks: total,
    task,
    taskJson: (split, index) =>
      Effect.flatMap(
        task(split, index),
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (t) => Effect.asSome(encodeTask(t))
        })
      ),
    taskRange: (split, start, stop) =>
      tasks._tag === "TaskList"
        ? Effect.flatMap(listCached!(split), (list) => {
          const [from, to] = sliceBounds(start, stop, list.length)
          return Effect.forEach(list.slice(from, Math.max(from, to)), encodeTask)
        })
        : Effect.flatMap(tasks.count(split), (count) => {
          const [from, to] = sliceBounds(start, stop, count)
          const indices = Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i)
          return Effect.forEach(indices, (i) => Effect.flatMap(tasks.get(split, i), encodeTask))
        })
  }
}
