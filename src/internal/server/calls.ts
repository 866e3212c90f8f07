/**
 * Tool calls (and group scoring): run as background tasks that outlive the request, so a client
 * that lost its stream re-attaches with the `task_id` it was sent and gets the same result
 * without the tool running again. Finished tasks are kept for a while (the reference: 60 s).
 *
 * Dispatch follows the reference's order: an unknown tool is refused (`not_found`) before the
 * episode latch is looked at; a call made or queued after a call returned `finished: true` is
 * refused (`episode_finished`) without running; input is decoded (`input_validation`) only once
 * the call may run. Calls to one tool run one at a time per session unless the tool says
 * otherwise; exclusive tools run alone.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Protocol from "../../Protocol.js"
import type { AnyTool } from "./compiled.js"
import * as Errors from "./errors.js"
import { floatJson, reprString } from "./python.js"
import { annotations, type Record, type Sessions } from "./sessions.js"
import * as Sse from "./sse.js"

/**
 * A running or finished call.
 *
 * @internal
 */
export interface Task {
  readonly id: string
  readonly sid: string
  /** The session's redactor, for a failure that did not pass through it. */
  readonly redact: Errors.Redact
  /** The frames after `task_id`, once the task has finished. */
  frames: string | undefined
  completedAt: number | undefined
  /** Completed when the task finishes; made only once someone waits (most calls finish first). */
  waiting: Deferred.Deferred<void> | undefined
}

/**
 * The frames of a task, once it has finished.
 *
 * @internal
 */
export const frames = (task: Task): Effect.Effect<string> =>
  Effect.suspend(() => {
    if (task.frames !== undefined) return Effect.succeed(task.frames)
    task.waiting ??= Deferred.unsafeMake<void>(FiberId.none)
    return Effect.map(Deferred.await(task.waiting), () => task.frames!)
  })

/**
 * A fresh id in the reference's format (`uuid4().hex`).
 *
 * @internal
 */
export const taskId = (): string => globalThis.crypto.randomUUID().replaceAll("-", "")

/**
 * The task registry of one server.
 *
 * @internal
 */
export class Registry {
  readonly tasks = new Map<string, Task>()

  constructor(readonly linger: number, readonly chunkSize: number) {}

  /** Start `work` for a session in the background and register it. */
  start(
    sessions: Sessions,
    record: Record,
    work: Effect.Effect<string, string, unknown>
  ): Effect.Effect<Task, never, unknown> {
    return Effect.suspend(() => {
      const task: Task = {
        id: taskId(),
        sid: record.sid,
        redact: record.redact,
        frames: undefined,
        completedAt: undefined,
        waiting: undefined
      }
      this.tasks.set(task.id, task)
      return Effect.as(
        sessions.run(
          record,
          Effect.onExit(work, (exit) => this.finish(task, exit)),
          this.finish(task, Exit.interrupt(FiberId.none))
        ),
        task
      )
    })
  }

  private finish(task: Task, exit: Exit.Exit<string, string>): Effect.Effect<void> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      task.frames = exit._tag === "Success"
        ? Sse.result(exit.value, this.chunkSize)
        : Sse.frame(
          "error",
          Cause.isInterruptedOnly(exit.cause)
            ? "Session deleted"
            : Option.getOrElse(Cause.failureOption(exit.cause), () => Errors.message(exit.cause, task.redact))
        )
      task.completedAt = now
      return task.waiting === undefined ? Effect.void : Deferred.succeed(task.waiting, undefined)
    })
  }

  /** A task a session may re-attach to. */
  get(id: string, sid: string): Task | undefined {
    const task = this.tasks.get(id)
    return task !== undefined && task.sid === sid ? task : undefined
  }

  /** How many tasks are running. */
  running(): number {
    let n = 0
    for (const task of this.tasks.values()) if (task.completedAt === undefined) n++
    return n
  }

  /** Forget tasks that finished longer ago than the linger time. */
  evict(): Effect.Effect<void> {
    return Effect.map(Clock.currentTimeMillis, (now) => {
      for (const [id, task] of this.tasks) {
        if (task.completedAt !== undefined && now - task.completedAt > this.linger) this.tasks.delete(id)
      }
    })
  }
}

/**
 * The task registry of a server, as a service.
 *
 * @internal
 */
export class TaskRegistry extends Context.Tag("openreward-effect/Server/TaskRegistry")<TaskRegistry, Registry>() {}

/**
 * A task registry keeping finished tasks `linger` ms, cutting results into `chunkSize` pieces.
 *
 * @internal
 */
export const layer = (linger: number, chunkSize: number): Layer.Layer<TaskRegistry> =>
  Layer.sync(TaskRegistry, () => new Registry(linger, chunkSize))

// -----------------------------------------------------------------------------
// tool calls
// -----------------------------------------------------------------------------

const refusal = (reason: Protocol.RunToolErrorReason, error: string): string =>
  JSON.stringify({ ok: false, error, reason })

const finishedRefusal = (name: string): string =>
  refusal(
    "episode_finished",
    `${
      reprString(name)
    } was not run: the episode has finished (a tool returned finished=True), so no further tool calls are accepted.`
  )

const encodeOutput = ParseResult.encodeEither(Protocol.ToolOutput)

const successJson = (blocks: string, metadata: string, reward: number | null | undefined, finished: boolean): string =>
  `{"ok":true,"output":{"blocks":${blocks},"metadata":${metadata},"reward":${
    reward === null || reward === undefined ? "null" : floatJson(reward)
  },"finished":${finished}}}`

/**
 * The success JSON of the common output (text and image blocks without `detail`, no metadata),
 * written directly; `undefined` for anything else, which goes through the Schema. Both write the
 * same bytes (a property test checks it).
 *
 * @internal
 */
export const fastSuccess = (output: unknown): string | undefined => {
  if (typeof output !== "object" || output === null) return undefined
  const { blocks, finished, metadata, reward } = output as { readonly [key: string]: unknown }
  if (!Array.isArray(blocks) || metadata !== null || typeof finished !== "boolean") return undefined
  if (reward !== null && (typeof reward !== "number" || !Number.isFinite(reward))) return undefined
  let json = "["
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i] as { readonly [key: string]: unknown } | null
    if (typeof block !== "object" || block === null || block.detail !== null) return undefined
    if (i > 0) json += ","
    if (block.type === "text" && typeof block.text === "string") {
      json += `{"text":${JSON.stringify(block.text)},"detail":null,"type":"text"}`
    } else if (block.type === "image" && typeof block.data === "string" && typeof block.mimeType === "string") {
      json += `{"data":${JSON.stringify(block.data)},"mimeType":${
        JSON.stringify(block.mimeType)
      },"detail":null,"type":"image"}`
    } else return undefined
  }
  return successJson(json + "]", "null", reward as number | null, finished)
}

/**
 * The success JSON of any output, validated by the Schema.
 *
 * @internal
 */
export const success = (output: unknown): Either.Either<string, ParseResult.ParseIssue> =>
  Either.map(
    encodeOutput(output as Protocol.ToolOutput),
    (encoded) =>
      successJson(
        JSON.stringify(encoded.blocks),
        JSON.stringify(encoded.metadata ?? null),
        encoded.reward,
        encoded.finished === true
      )
  )

/** Run environment code, turning its failure into the message of an SSE `error` event. */
const user = <A>(record: Record, what: string, self: Effect.Effect<A, unknown, unknown>) =>
  Effect.catchAllCause(self, (cause) => {
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    const message = Errors.message(cause, record.redact)
    return Effect.zipRight(
      Effect.logWarning(`${what} failed`, message).pipe(
        Effect.annotateLogs(annotations(record.sid, record.compiled.key))
      ),
      Effect.fail(message)
    )
  })

const run = (record: Record, tool: AnyTool, input: unknown): Effect.Effect<string, string, unknown> =>
  Effect.suspend(() => {
    if (record.finished) return Effect.succeed(finishedRefusal(tool.name))
    const invoked = tool.invoke(input, record.session!)
    if (Either.isLeft(invoked)) return Effect.succeed(refusal("input_validation", record.redact(invoked.left.message)))
    return Effect.flatMap(user(record, `tool '${tool.name}'`, invoked.right), (output) => {
      const fast = fastSuccess(output)
      const encoded = fast === undefined ? success(output) : Either.right(fast)
      if (Either.isLeft(encoded)) {
        return Effect.fail(
          record.redact(
            `${reprString(tool.name)} returned an invalid ToolOutput: ${
              ParseResult.TreeFormatter.formatIssueSync(encoded.left)
            }`
          )
        )
      }
      // A call that finished while this one ran wins; this result is not handed out as a second grade.
      if (record.finished) return Effect.succeed(finishedRefusal(tool.name))
      if (output.finished) record.finished = true
      return Effect.succeed(encoded.right)
    })
  })

/**
 * A tool call of a session, as the task that runs it.
 *
 * @internal
 */
export const call = (
  sessions: Sessions,
  record: Record,
  name: string,
  input: unknown
): Effect.Effect<string, string, unknown> =>
  Effect.flatMap(
    Effect.mapError(
      sessions.taskTools(record),
      (failure) => typeof failure.detail === "string" ? failure.detail : "task tools failed"
    ),
    (taskTools) => {
      const fromEnv = record.compiled.tools.get(name)
      const fromTask = taskTools.length === 0 ? undefined : taskTools.find((t) => t.name === name)
      if (fromEnv !== undefined && fromTask !== undefined) {
        return Effect.succeed(refusal(
          "name_collision",
          `Tool name collision: '${name}' is defined in both the environment and its task tools. Please rename one of them to avoid conflicts.`
        ))
      }
      const tool = fromEnv ?? fromTask
      if (tool === undefined) return Effect.succeed(refusal("not_found", `${reprString(name)} is not a valid tool`))
      if (record.finished) return Effect.succeed(finishedRefusal(name))
      const work = run(record, tool, input)
      // The gate only matters where an exclusive tool could hold it.
      const gated = record.compiled.hasExclusive || taskTools.some((t) => t.concurrency === "exclusive")
      switch (tool.concurrency) {
        case "exclusive":
          return record.gate.exclusive(work)
        case "concurrent":
          return gated ? record.gate.shared(work) : work
        case "serial":
          // The tool's lock is taken outside the gate, so calls queued on a tool don't hold off an exclusive one.
          return record.lock(tool.name).withPermits(1)(gated ? record.gate.shared(work) : work)
      }
    }
  )

// -----------------------------------------------------------------------------
// group scoring
// -----------------------------------------------------------------------------

const encodeScores = Schema.encodeEither(Schema.Array(Protocol.GroupScore))

/**
 * A `/score_group` request, as the task that runs it.
 *
 * @internal
 */
export const scoreGroup = (
  record: Record,
  candidates: ReadonlyArray<Protocol.GroupCandidate>
): Effect.Effect<string, string, unknown> =>
  Effect.suspend(() => {
    const score = record.compiled.env.scoreGroup!
    return Effect.flatMap(
      user(record, "scoreGroup", score(candidates, record.session!)),
      (raw: ReadonlyArray<number | Protocol.GroupScore>) => {
        if (raw.length !== candidates.length) {
          return Effect.fail(`score_group returned ${raw.length} scores for ${candidates.length} candidates`)
        }
        const scores = raw.map((s) => typeof s === "number" ? { reward: s, metadata: null } : s)
        const encoded = encodeScores(scores)
        if (Either.isLeft(encoded)) {
          return Effect.fail(
            `score_group returned invalid scores: ${ParseResult.TreeFormatter.formatErrorSync(encoded.left)}`
          )
        }
        const items = encoded.right.map((s) =>
          `{"reward":${floatJson(s.reward)},"metadata":${JSON.stringify(s.metadata ?? null)}}`
        )
        return Effect.succeed(`{"scores":[${items.join(",")}]}`)
      }
    )
  })
