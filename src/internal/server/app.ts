/**
 * The HTTP application: a handler for every route of the protocol's table (`Protocol.routes`),
 * dispatched by `router.ts` as the reference routes (default-environment redirect, 405, 307).
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
import * as Body from "./body.js"
import * as Calls from "./calls.js"
import * as ClientAddress from "./clientAddress.js"
import type { Compiled } from "./compiled.js"
import * as Errors from "./errors.js"
import { encode, fail, HttpFailure, json, jsonBytes, toResponse } from "./http.js"
import { reprList, reprString } from "./python.js"
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

const validateListTasks = Body.validator(Protocol.ListTasks)
const validateGetTask = Body.validator(Protocol.GetTask)
const validateTaskRange = Body.validator(Protocol.GetTaskRange)
const validateToolCallSchema = Body.validator(Protocol.ToolCall)

/**
 * A `/call` body: checked directly when it is well-formed (the common case; a parsed JSON object is
 * already valid JSON), and by the Schema otherwise, for its error items.
 */
const validateToolCall = (body: Body.Body): Either.Either<Protocol.ToolCall, HttpFailure> => {
  if (body._tag === "Json" && typeof body.value === "object" && body.value !== null && !Array.isArray(body.value)) {
    const value = body.value as { readonly [key: string]: unknown }
    let known = true
    for (const key in value) if (key !== "name" && key !== "input" && key !== "task_id") known = false
    const { input, name, task_id } = value
    if (
      known && typeof name === "string" && typeof input === "object" && input !== null && !Array.isArray(input) &&
      (task_id === undefined || task_id === null || typeof task_id === "string")
    ) {
      return Either.right({ name, input: input as Protocol.ToolCall["input"], task_id: task_id ?? null })
    }
  }
  return validateToolCallSchema(body)
}
const validateScoreGroup = Body.validator(Protocol.ScoreGroup)
const validateCreateFields = Body.validator(Protocol.CreateSession)

const validateCreate = (body: Body.Body): Either.Either<Protocol.CreateSession, HttpFailure> =>
  Either.flatMap(validateCreateFields(body), (payload) => {
    const hasSpec = payload.task_spec !== null
    const hasIndex = payload.split !== null && payload.index !== null
    const problem = hasSpec === hasIndex
      ? "Provide either task_spec or both split and index, not both/neither"
      : (payload.split === null) !== (payload.index === null)
      ? "split and index must both be provided together"
      : undefined
    if (problem === undefined) return Either.right(payload)
    return Either.left(
      new HttpFailure({
        status: 422,
        detail: [{
          type: "value_error",
          loc: ["body"],
          msg: `Value error, ${problem}`,
          input: body._tag === "Json" ? Validation.quote(body.value) : null,
          ctx: { error: {} }
        }]
      })
    )
  })

interface ParsedSecrets {
  readonly secrets: Environment.Secrets
  readonly values: ReadonlyArray<string>
}

const noSecrets: ParsedSecrets = { secrets: {}, values: [] }

const invalidSecrets = fail(
  400,
  "Invalid X-Secrets header: expected base64-encoded JSON mapping each secret name to {\"value\": ..., \"allowed_domains\": [...]}"
)

/** The `X-Secrets` header: base64 of `{name: {"value": v, "allowed_domains": [...]}}`. Never echoed. */
const parseSecrets = (header: string | undefined): Either.Either<ParsedSecrets, HttpFailure> => {
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

const sessionId = (request: HttpServerRequest.HttpServerRequest): Either.Either<string, HttpFailure> => {
  const raw = request.headers["x-session-id"]
  return raw === undefined || raw === ""
    ? Either.left(fail(400, "X-Session-ID header is required"))
    : Either.right(raw.trim())
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
    const health = jsonBytes(encode(JSON.stringify({ status: "ok" })))
    // What the health check says while the server drains: no new sessions here.
    const draining = jsonBytes(encode(JSON.stringify({ status: "draining" })), 503)
    const version = jsonBytes(encode(JSON.stringify({ version: settings.version, build_sha: settings.buildSha })))
    const environmentList = jsonBytes(encode(JSON.stringify(compiled.map((c) => c.key))))
    const toolsAnswers = new Map(compiled.map((c) => [c, jsonBytes(encode(c.toolsBody))] as const))
    const splitsAnswers = new Map(compiled.map((c) => [c, jsonBytes(encode(c.splitsBody))] as const))

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
    const promptRoute = (request: HttpServerRequest.HttpServerRequest) =>
      Either.match(sessionId(request), {
        onLeft: Effect.fail,
        onRight: (sid) => Effect.flatMap(sessions.ready(sid), (record) => sessions.prompt(record))
      })

    const messagesRoute = (request: HttpServerRequest.HttpServerRequest) =>
      Either.match(sessionId(request), {
        onLeft: Effect.fail,
        onRight: (sid) => Effect.flatMap(sessions.ready(sid), (record) => sessions.messages(record))
      })

    const callRoute = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.flatMap(readBody(request), (body) =>
        Either.match(sessionId(request), {
          onLeft: Effect.fail,
          onRight: (sid) =>
            Effect.flatMap(sessions.ready(sid), (record) =>
              Either.match(validateToolCall(body), {
                onLeft: Effect.fail,
                onRight: (call) =>
                  runTask(request, record, call.task_id, () => Calls.call(sessions, record, call.name, call.input))
              }))
        }))

    const handlers: Router.Handlers<unknown> = {
      health: () => Effect.sync(() => sessions.draining ? draining : health),
      version: () => Effect.succeed(version),
      listEnvironments: () => Effect.succeed(environmentList),
      ping: (request) =>
        Either.match(sessionId(request), {
          onLeft: Effect.fail,
          onRight: (sid) => Effect.as(sessions.ping(sid), health)
        }),
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
      deleteSession: (request) => Effect.map(sessionId(request), (sid) => json(JSON.stringify({ sid }))),
      delete: (request) =>
        Effect.flatMap(sessionId(request), (sid) => Effect.as(sessions.delete(sid), json(JSON.stringify({ sid })))),
      create: (request) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const sid = yield* sessionId(request)
          const payload = yield* validateCreate(body)
          if (sessions.draining) return yield* Replica.drainingNewSession
          if (sessions.records.has(sid)) return yield* fail(400, "Session already exists")
          const client = ClientAddress.of(request, settings.trustedProxies)
          const full = sessions.full(client)
          if (full !== undefined) return yield* full
          const target = payload.env_name === null ? defaultEnv : envs.get(payload.env_name.toLowerCase())
          if (target === undefined) return yield* fail(404, `unknown environment ${reprString(payload.env_name!)}`)
          let task: unknown
          if (payload.task_spec !== null) {
            const decoded = target.env.task.decode(payload.task_spec)
            if (Either.isLeft(decoded)) {
              return yield* new HttpFailure({
                status: 422,
                detail: Validation.items(decoded.left, ["body", "task_spec"])
              })
            }
            task = decoded.right
          } else {
            if (!target.splitNames.has(payload.split!)) return yield* fail(400, "Invalid split")
            const found = yield* userCode(target.task(payload.split!, payload.index!))
            if (Option.isNone(found)) return yield* fail(400, "Invalid index")
            task = found.value
          }
          const secrets = yield* parseSecrets(request.headers["x-secrets"])
          if (payload.toolset_name !== null) {
            return yield* fail(
              400,
              `unknown toolset ${reprString(payload.toolset_name)}; valid options are ${reprList([])}`
            )
          }
          yield* sessions.create(
            sid,
            target,
            { id: sid, environment: target.env.name, task, secrets: secrets.secrets },
            Errors.redactor(secrets.values),
            client
          )
          return json(JSON.stringify({ sid }))
        }),
      tools: (_, { compiled }) => Effect.succeed(toolsAnswers.get(compiled)!),
      splits: (_, { compiled }) => Effect.succeed(splitsAnswers.get(compiled)!),
      tasks: (request, { compiled, name }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const { split } = yield* validateListTasks(body)
          if (!compiled.splitNames.has(split)) return yield* fail(400, "Invalid split")
          const tasks = yield* userCode(compiled.listTasks(split))
          if (Option.isNone(tasks)) {
            return yield* fail(
              400,
              "list_tasks is not supported for this environment. Use the index-based API (num_tasks + get_task) instead."
            )
          }
          return json(JSON.stringify({ tasks: tasks.value, env_name: name }))
        }),
      numTasks: (request, { compiled }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const { split } = yield* validateListTasks(body)
          if (!compiled.splitNames.has(split)) return yield* fail(400, "Invalid split")
          const count = yield* userCode(compiled.numTasks(split))
          return json(JSON.stringify({ num_tasks: count }))
        }),
      task: (request, { compiled, name }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const { index, split } = yield* validateGetTask(body)
          if (!compiled.splitNames.has(split)) return yield* fail(400, "Invalid split")
          const task = yield* userCode(compiled.taskJson(split, index))
          if (Option.isNone(task)) return yield* fail(400, "Invalid index")
          return json(JSON.stringify({ task: task.value, env_name: name }))
        }),
      taskRange: (request, { compiled, name }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const { split, start, stop } = yield* validateTaskRange(body)
          if (!compiled.splitNames.has(split)) return yield* fail(400, "Invalid split")
          const tasks = yield* userCode(compiled.taskRange(split, start, stop))
          return json(JSON.stringify({ tasks, env_name: name }))
        }),
      taskTools: (request) =>
        Effect.gen(function*() {
          const sid = yield* sessionId(request)
          const record = yield* sessions.existing(sid)
          const extra = yield* sessions.taskTools(record)
          return json(record.compiled.taskToolsBody(extra))
        }),
      prompt: promptRoute,
      messages: messagesRoute,
      call: callRoute,
      scoreGroup: (request, { name }) =>
        Effect.gen(function*() {
          const body = yield* readBody(request)
          const sid = yield* sessionId(request)
          const record = yield* sessions.ready(sid)
          const payload = yield* validateScoreGroup(body)
          if (record.compiled.env.scoreGroup === undefined) {
            return yield* fail(404, `Environment ${reprString(name)} does not implement score_group`)
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
