/**
 * The HTTP application: a handler for every route of the protocol's table (`Protocol.routes`),
 * dispatched by `router.ts` as the reference routes (default-environment redirect, 405, 307).
 * Each handler validates its body with its route's payload schema, writes the JSON its route's
 * success schema types, and fails only with the error answers its route lists (the compiler holds
 * it to them; `Router.Handlers`).
 *
 * Request handling mirrors FastAPI's order: the body is read (413, 422 `json_invalid`), then the
 * session is resolved (400, 404, 410, 503, or the setup failure), then the body is validated (422),
 * then the route runs.
 *
 * @internal
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type * as Environment from "../../Environment.js"
import * as Protocol from "../../Protocol.js"
import * as ProtocolError from "../../ProtocolError.js"
import * as Body from "./body.js"
import * as Calls from "./calls.js"
import * as ClientAddress from "./clientAddress.js"
import type { Compiled } from "./compiled.js"
import * as Errors from "./errors.js"
import { answer, fixedAnswer, json, toResponse } from "./http.js"
import * as Reaper from "./reaper.js"
import * as Replica from "./replica.js"
import * as Router from "./router.js"
import * as Sessions from "./sessions.js"
import { type Record as SessionRecord, SessionStore } from "./sessions.js"
import * as Sse from "./sse.js"
import * as Validation from "./validation.js"

/**
 * @internal
 */
export interface Settings {
  readonly maxBodySize: number
  readonly maxDepth: number
  readonly idleTimeout: number
  readonly reaperInterval: number
  readonly setupWaitTimeout: number
  readonly keepAliveInterval: number
  readonly resultLinger: number
  readonly returnErrors: Errors.Mode
  readonly version: string
  readonly buildSha: string | null
  /** This replica's route key, minted into session ids (`null`: bare uuids). */
  readonly routeKey: string | null
  /** How long shutdown waits for running calls, in ms (replica.ts). */
  readonly drainTimeout: number
  /** The most sessions held at once. */
  readonly maxSessions: number
  /** The most sessions one client address holds at once. */
  readonly maxSessionsPerClient: number
  /** How many proxies in front of the server append to `X-Forwarded-For` (clientAddress.ts). */
  readonly trustedProxies: number
}

const sseOptions = (request: HttpServerRequest.HttpServerRequest) => ({
  contentType: Sse.contentType,
  headers: Sse.headers(request)
})

const { routes } = Protocol

// Each payload is read by its route's schema: decoded, or (for `/call`, which a rollout sends again
// and again) checked by a guard compiled from the schema and read as sent.
const decodeCreate = Body.decoder(routes.create.payload)
const decodeListTasks = Body.decoder(routes.tasks.payload)
const decodeNumTasks = Body.decoder(routes.numTasks.payload)
const decodeGetTask = Body.decoder(routes.task.payload)
const decodeTaskRange = Body.decoder(routes.taskRange.payload)
const decodeScoreGroup = Body.decoder(routes.scoreGroup.payload)
const checkToolCall = Body.checker(routes.call.payload)

interface ParsedSecrets {
  readonly secrets: Environment.Secrets
  readonly values: ReadonlyArray<string>
}

const noSecrets: ParsedSecrets = { secrets: {}, values: [] }

const invalidSecrets = new ProtocolError.InvalidSecrets()

/** The `X-Secrets` header: base64 of `{name: {"value": v, "allowed_domains": [...]}}`. Never echoed. */
const parseSecrets = (header: string | undefined): Either.Either<ParsedSecrets, ProtocolError.InvalidSecrets> => {
  if (header === undefined || header === "") return Either.right(noSecrets)
  const decoded = Encoding.decodeBase64String(header.trim())
  if (Either.isLeft(decoded)) return Either.left(invalidSecrets)
  let payload: unknown
  try {
    payload = JSON.parse(decoded.right)
  } catch {
    return Either.left(invalidSecrets)
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return Either.left(invalidSecrets)
  const secrets: Record<string, Redacted.Redacted<string>> = {}
  const values: Array<string> = []
  for (const [name, entry] of Object.entries(payload)) {
    const value = typeof entry === "object" && entry !== null && Object.hasOwn(entry, "value")
      ? (entry as { value?: unknown }).value
      : undefined
    if (typeof value !== "string") return Either.left(invalidSecrets)
    // defined, not assigned: a secret named `__proto__` is a secret, not the object's prototype
    Object.defineProperty(secrets, name, {
      value: Redacted.make(value),
      enumerable: true,
      writable: true,
      configurable: true
    })
    values.push(value)
  }
  return Either.right({ secrets, values })
}

const missingSessionId = new ProtocolError.MissingSessionId()

const sessionId = (
  request: HttpServerRequest.HttpServerRequest
): Either.Either<string, ProtocolError.MissingSessionId> => {
  const raw = request.headers["x-session-id"]
  return raw === undefined || raw === "" ? Either.left(missingSessionId) : Either.right(raw.trim())
}

/**
 * The services a server's application runs on: its session store (whose scope is the layer's:
 * closing it drains the server, then ends every session), its task registry, the idle reaper
 * sweeping both, and the drain (released first).
 *
 * @internal
 */
export const services = (settings: Settings): Layer.Layer<SessionStore | Calls.TaskRegistry> =>
  Layer.merge(Reaper.layer(settings.reaperInterval), Replica.layer(settings.drainTimeout)).pipe(
    Layer.provideMerge(
      Layer.merge(
        Sessions.layer({
          idleTimeout: settings.idleTimeout,
          setupWaitTimeout: settings.setupWaitTimeout,
          returnErrors: settings.returnErrors,
          routeKey: settings.routeKey,
          maxSessions: settings.maxSessions,
          maxSessionsPerClient: settings.maxSessionsPerClient
        }),
        Calls.layer(settings.resultLinger, Protocol.chunkSize)
      )
    )
  )

/**
 * Build the application on the server's services (see {@link services}).
 *
 * @internal
 */
export const make = (
  compiled: ReadonlyArray<Compiled>,
  settings: Settings
): Effect.Effect<HttpApp.Default<never, unknown>, never, SessionStore | Calls.TaskRegistry> =>
  Effect.gen(function*() {
    const envs = new Map(compiled.map((c) => [c.key, c] as const))
    const defaultEnv = compiled[0]!
    const sessions = yield* SessionStore
    const registry = yield* Calls.TaskRegistry

    // Answers that never change are built once: a response is immutable, so one serves every request.
    const health = fixedAnswer(routes.health, { status: "ok" })
    // What the health check says while the server drains: no new sessions here.
    const draining = fixedAnswer(routes.health, { status: "draining" }, 503)
    const pong = fixedAnswer(routes.ping, { status: "ok" })
    const version = fixedAnswer(routes.version, { version: settings.version, build_sha: settings.buildSha })
    const environmentList = fixedAnswer(routes.listEnvironments, compiled.map((c) => c.key))
    const toolsAnswers = new Map(compiled.map((c) => [c, fixedAnswer(routes.tools, c.toolList)] as const))
    const splitsAnswers = new Map(compiled.map((c) => [c, fixedAnswer(routes.splits, c.splits)] as const))

    const limits: Body.Limits = { maxBodySize: settings.maxBodySize, maxDepth: settings.maxDepth }
    const readBody = (request: HttpServerRequest.HttpServerRequest) => Body.read(request, limits)

    /** Run environment code outside a session (task sources), mapping failures to a 500. */
    const userCode = sessions.userFailure(undefined, "task source")

    const stream = (
      request: HttpServerRequest.HttpServerRequest,
      task: Calls.Task
    ): HttpServerResponse.HttpServerResponse => {
      const options = sseOptions(request)
      const head = Sse.frame("task_id", task.id)
      if (task.frames !== undefined) return HttpServerResponse.text(head + task.frames, options)
      const rest = Stream.merge(
        Stream.fromEffect(Calls.frames(task)),
        Stream.fromSchedule(Schedule.spaced(settings.keepAliveInterval)).pipe(
          Stream.mapEffect(() => Effect.map(Clock.currentTimeMillis, (now) => Sse.ping(new Date(now))))
        ),
        { haltStrategy: "left" }
      )
      return HttpServerResponse.stream(Stream.concat(Stream.succeed(head), rest).pipe(Stream.encodeText), options)
    }

    /** Start (or re-attach to) a background task and stream it. */
    const runTask = (
      request: HttpServerRequest.HttpServerRequest,
      record: SessionRecord,
      taskId: string | null,
      work: () => Effect.Effect<string, string, unknown>
    ) =>
      Effect.suspend(() => {
        if (taskId !== null) {
          const existing = registry.get(taskId, record.sid)
          return Effect.succeed(
            existing === undefined
              ? HttpServerResponse.text(Sse.frame("error", "unknown task_id"), sseOptions(request))
              : stream(request, existing)
          )
        }
        if (sessions.draining) return Effect.fail(Replica.drainingNewCall)
        // Let a quick call finish before answering, so its stream is written in one piece.
        return Effect.flatMap(
          registry.start(sessions, record, work()),
          (task) => Effect.zipRight(Effect.yieldNow(), Effect.sync(() => stream(request, task)))
        )
      })

    // The session routes a rollout calls again and again are written with `flatMap` rather than
    // `Effect.gen`: on this path a generator cost about a third of the throughput of `/messages`
    // (docs/performance.md, "Where the time goes in the server").
    /** `f` on a Right, a failure on a Left, without running the Either as an effect (no continuation). */
    const onRight = <A, E1, B, E2, R>(
      either: Either.Either<A, E1>,
      f: (a: A) => Effect.Effect<B, E2, R>
    ): Effect.Effect<B, E1 | E2, R> => Either.isRight(either) ? f(either.right) : Effect.fail(either.left)

    const promptRoute = (request: HttpServerRequest.HttpServerRequest) =>
      onRight(sessionId(request), (sid) => Effect.flatMap(sessions.ready(sid), (record) => sessions.prompt(record)))

    const messagesRoute = (request: HttpServerRequest.HttpServerRequest) =>
      onRight(sessionId(request), (sid) => Effect.flatMap(sessions.ready(sid), (record) => sessions.messages(record)))

    const callRoute = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.flatMap(readBody(request), (body) =>
        onRight(sessionId(request), (sid) =>
          Effect.flatMap(sessions.ready(sid), (record) =>
            onRight(checkToolCall(body), (call) =>
              runTask(request, record, call.task_id ?? null, () =>
                Calls.call(sessions, record, call.name, call.input))))))

    const handlers: Router.Handlers<unknown> = {
      health: () =>
        Effect.sync(() =>
          sessions.draining ? draining : health
        ),
      version: () => Effect.succeed(version),
      listEnvironments: () => Effect.succeed(environmentList),
      ping: (request) => onRight(sessionId(request), (sid) => Effect.as(sessions.ping(sid), pong)),
      createSession: (request) =>
        Effect.suspend(() =>
          sessions.draining
            ? Effect.fail(Replica.drainingNewSession)
            : Effect.succeed(
              HttpServerResponse.text(
                Sse.frame("task_id", sessions.newId()) + Sse.frame("end", ""),
                sseOptions(request)
              )
            )
        ),
      deleteSession: (request) => Effect.map(sessionId(request), (sid) => answer(routes.deleteSession, { sid })),
      delete: (request) =>
        Effect.flatMap(sessionId(request), (sid) => Effect.as(sessions.delete(sid), answer(routes.delete, { sid }))),
      create: (request) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const sid = yield* sessionId(request)
          const payload = yield* decodeCreate(body)
          if (sessions.draining) return yield* Replica.drainingNewSession
          if (sessions.records.has(sid)) return yield* new ProtocolError.SessionExists()
          const client = ClientAddress.of(request, settings.trustedProxies)
          const full = sessions.full(client)
          if (full !== undefined) return yield* full
          const target = payload.env_name === null ? defaultEnv : envs.get(payload.env_name.toLowerCase())
          if (target === undefined) {
            return yield* new ProtocolError.UnknownEnvironment({ environment: payload.env_name! })
          }
          let task: unknown
          if (payload.task_spec !== null) {
            const decoded = target.env.task.decode(payload.task_spec)
            if (Either.isLeft(decoded)) return yield* Body.failed(Validation.items(decoded.left, ["body", "task_spec"]))
            task = decoded.right
          } else {
            const split = payload.split!
            const index = payload.index!
            if (!target.splitNames.has(split)) return yield* new ProtocolError.InvalidSplit({ split })
            const found = yield* userCode(target.task(split, index))
            if (Option.isNone(found)) return yield* new ProtocolError.InvalidIndex({ split, index })
            task = found.value
          }
          const secrets = yield* parseSecrets(request.headers["x-secrets"])
          if (payload.toolset_name !== null) {
            return yield* new ProtocolError.UnknownToolset({ toolset: payload.toolset_name, valid: [] })
          }
          yield* sessions.create(
            sid,
            target,
            { id: sid, environment: target.env.name, task, secrets: secrets.secrets },
            Errors.redactor(secrets.values),
            client
          )
          return answer(routes.create, { sid })
        }),
      tools: (_, { compiled }) => Effect.succeed(toolsAnswers.get(compiled)!),
      splits: (_, { compiled }) => Effect.succeed(splitsAnswers.get(compiled)!),
      tasks: (request, { compiled, name }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const { split } = yield* decodeListTasks(body)
          if (!compiled.splitNames.has(split)) return yield* new ProtocolError.InvalidSplit({ split })
          const tasks = yield* userCode(compiled.listTasks(split))
          if (Option.isNone(tasks)) return yield* new ProtocolError.ListTasksUnsupported()
          return answer(routes.tasks, { tasks: tasks.value, env_name: name })
        }),
      numTasks: (request, { compiled }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const { split } = yield* decodeNumTasks(body)
          if (!compiled.splitNames.has(split)) return yield* new ProtocolError.InvalidSplit({ split })
          const count = yield* userCode(compiled.numTasks(split))
          return answer(routes.numTasks, { num_tasks: count })
        }),
      task: (request, { compiled, name }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const { index, split } = yield* decodeGetTask(body)
          if (!compiled.splitNames.has(split)) return yield* new ProtocolError.InvalidSplit({ split })
          const task = yield* userCode(compiled.taskJson(split, index))
          if (Option.isNone(task)) return yield* new ProtocolError.InvalidIndex({ split, index })
          return answer(routes.task, { task: task.value, env_name: name })
        }),
      taskRange: (request, { compiled, name }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const { split, start, stop } = yield* decodeTaskRange(body)
          if (!compiled.splitNames.has(split)) return yield* new ProtocolError.InvalidSplit({ split })
          const tasks = yield* userCode(compiled.taskRange(split, start, stop))
          return answer(routes.taskRange, { tasks, env_name: name })
        }),
      taskTools: (request) =>
        Effect.gen(function*() {
          const sid = yield* sessionId(request)
          const record = yield* sessions.existing(sid)
          const extra = yield* sessions.taskTools(record)
          return answer(routes.taskTools, record.compiled.taskToolList(extra))
        }),
      prompt: promptRoute,
      messages: messagesRoute,
      call: callRoute,
      scoreGroup: (request, { name }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const sid = yield* sessionId(request)
          const record = yield* sessions.ready(sid)
          const payload = yield* decodeScoreGroup(body)
          if (record.compiled.env.scoreGroup === undefined) {
            return yield* new ProtocolError.ScoreGroupUnsupported({ environment: name })
          }
          return yield* runTask(request, record, payload.task_id, () => Calls.scoreGroup(record, payload.candidates))
        })
    }

    const resolve = Router.make(compiled, handlers)

    const app: HttpApp.Default<never, unknown> = Effect.flatMap(
      HttpServerRequest.HttpServerRequest,
      (request) => {
        // Once the drain is over and the sessions are ending, nothing is served (a proxy retries elsewhere).
        if (sessions.closed) return Effect.succeed(toResponse(Replica.shuttingDown))
        const resolved = resolve(request)
        if (resolved._tag === "Answer") return Effect.succeed(resolved.response)
        // Interruptible, as a router runs its handlers (the platform runs the app uninterruptibly).
        return Effect.interruptible(resolved.handler(request, resolved.target)).pipe(
          Effect.catchAllCause((cause): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
            const failure = Cause.failureOption(cause)
            if (Option.isSome(failure)) return Effect.succeed(toResponse(failure.value))
            if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
            return Effect.as(
              Effect.logError("request failed", Errors.message(cause, Errors.noRedaction)),
              json(JSON.stringify({ detail: Errors.detail(cause, settings.returnErrors, Errors.noRedaction) }), 500)
            )
          })
        )
      }
    )
    return app
  })
