/**
 * Sessions: created by `/create`, set up in the background, kept alive by `/ping` and session
 * routes, and ended by `/delete`, by the idle reaper or by server shutdown.
 *
 * The store is a service (`SessionStore`, `layer`): its layer's scope is the server's, and closing
 * it ends every session. Each session owns a `Scope` and a `FiberSet`: `setup` runs in the scope, so
 * the finalizers `setup` registers are the session's teardown, and setup and every call the session
 * runs are fibers of the set; ending a session first interrupts them all (awaiting them), then
 * closes the scope.
 *
 * @internal
 */
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type * as Conversation from "../../Conversation.js"
import * as Environment from "../../Environment.js"
import * as Prompt from "../../Prompt.js"
import * as ProtocolError from "../../ProtocolError.js"
import * as Canonical from "../decodeCanonical.js"
import type { AnyTool, Compiled } from "./compiled.js"
import * as Errors from "./errors.js"
import { Gate } from "./gate.js"
import { encode, jsonBytes } from "./http.js"
import { withRedaction } from "./redactLogs.js"

/**
 * Settings the session routes need.
 *
 * @internal
 */
export interface Config {
  readonly idleTimeout: number
  readonly setupWaitTimeout: number
  readonly returnErrors: Errors.Mode
  /**
   * This replica's route key, minted into the ids `/create_session` hands out as `<key>.<uuid4>` so
   * that a proxy can send each session to the replica holding it (`null`: bare uuid4s, as the
   * reference mints).
   */
  readonly routeKey: string | null
  /** The most sessions held at once; past it, `/create` answers 503. */
  readonly maxSessions: number
  /** The most sessions one client address holds at once; past it, `/create` answers 503. */
  readonly maxSessionsPerClient: number
}

/**
 * @internal
 */
export class Record {
  status: "starting" | "ready" | "failed" | "closed" = "starting"
  session: Environment.Session<unknown, unknown> | undefined = undefined
  /** Set once a call returns `finished: true`; later calls are refused. */
  finished = false
  /** Done when setup ends: failed with its failure (a 500), or `SessionGone` once deleted. */
  readonly ready = Deferred.unsafeMake<void, SetupError>(FiberId.none)
  readonly locks = new Map<string, Effect.Semaphore>()
  readonly gate = new Gate()
  taskTools: ReadonlyArray<AnyTool> | undefined = undefined
  /** The `/prompt` and `/messages` answers, built once (a response is immutable, so it is reused). */
  promptResponse: HttpServerResponse.HttpServerResponse | undefined = undefined
  messagesResponse: HttpServerResponse.HttpServerResponse | undefined = undefined

  constructor(
    readonly sid: string,
    readonly compiled: Compiled,
    readonly info: Environment.SessionInfo<unknown>,
    readonly redact: Errors.Redact,
    readonly scope: Scope.CloseableScope,
    /** Setup and every call of the session, interrupted when it ends. */
    readonly fibers: FiberSet.FiberSet<unknown, unknown>,
    public lastSeen: number,
    /** The client address that created it (see `Server.Options.trustedProxies`). */
    readonly client: string
  ) {}

  lock(tool: string): Effect.Semaphore {
    let lock = this.locks.get(tool)
    if (lock === undefined) {
      lock = Effect.unsafeMakeSemaphore(1)
      this.locks.set(tool, lock)
    }
    return lock
  }
}

/**
 * What waiting for a session's setup fails with: the setup's failure, or the session's end.
 *
 * @internal
 */
export type SetupError = ProtocolError.InternalError | ProtocolError.SessionGone

/**
 * What naming a session fails with (see {@link Sessions.unknown}).
 *
 * @internal
 */
export type Unknown = ProtocolError.SessionNotFound | ProtocolError.SessionGone

const notFound = new ProtocolError.SessionNotFound()
const lost = new ProtocolError.SessionGone({ reason: "ended" })
const exists = new ProtocolError.SessionExists()
const deleted = new ProtocolError.SessionGone({ reason: "deleted" })
const starting = new ProtocolError.SessionStarting()

/**
 * How logs name a session: by its id's first 8 characters after the route key. The id is all a
 * client needs to act on a session (the protocol has no other credential), so log lines do not
 * carry it whole; 8 characters of a uuid4 tell sessions apart in a log and give nothing to guess.
 *
 * @internal
 */
export const label = (sid: string): string => {
  const start = sid.lastIndexOf(".") + 1
  return sid.length - start > 8 ? `${sid.slice(0, start + 8)}…` : sid
}

/**
 * The annotations of a log line about a session.
 *
 * @internal
 */
export const annotations = (sid: string, environment: string) => ({ session: label(sid), environment })

const encodePrompt = Canonical.encodePromptEither
const encodeConversation = Canonical.encodeConversationEither

/**
 * @internal
 */
export class Sessions {
  readonly records = new Map<string, Record>()
  /** How many sessions each client address holds. */
  readonly perClient = new Map<string, number>()
  /**
   * Set when the server drains (replica.ts): it takes no new sessions or calls, its health check
   * says so, and the calls already running may finish.
   */
  draining = false
  /** Set once the drain is over and every session is being ended: every request gets 503. */
  closed = false
  private readonly prefix: string | null

  constructor(readonly config: Config) {
    this.prefix = config.routeKey === null ? null : `${config.routeKey}.`
  }

  /** A fresh session id for `/create_session`, carrying the route key when there is one. */
  newId(): string {
    const id = globalThis.crypto.randomUUID()
    return this.prefix === null ? id : this.prefix + id
  }

  /**
   * The answer for a session id this store does not hold: 410 when it carries this replica's route
   * key (this replica, or an earlier run of it under the same key, minted it: the session is gone,
   * so a client ends it rather than retry), else the reference's 404.
   */
  unknown(sid: string): Unknown {
    return this.prefix !== null && sid.startsWith(this.prefix) ? lost : notFound
  }

  /**
   * Whether one more session may be created for `client`: `undefined`, or the 503 that refuses it
   * (the server, or that client, holds the most sessions it may).
   */
  full(client: string): ProtocolError.TooManySessions | undefined {
    const { maxSessions, maxSessionsPerClient } = this.config
    if (this.records.size >= maxSessions) {
      return new ProtocolError.TooManySessions({ scope: "server", held: maxSessions })
    }
    const held = this.perClient.get(client) ?? 0
    if (held >= maxSessionsPerClient) return new ProtocolError.TooManySessions({ scope: "client", held })
    return undefined
  }

  /** Start draining (see {@link draining}). */
  drain(): Effect.Effect<void> {
    return Effect.sync(() => {
      this.draining = true
    })
  }

  /**
   * Run `effect` on behalf of a session, in its fiber set: ending the session interrupts it. On a
   * session that has ended it is not run; `onRefused` runs instead.
   */
  run<A, E, R>(
    record: Record,
    effect: Effect.Effect<A, E, R>,
    onRefused: Effect.Effect<void>
  ): Effect.Effect<Fiber.RuntimeFiber<A, E> | undefined, never, R> {
    return Effect.suspend(() =>
      record.status === "closed"
        ? Effect.as(onRefused, undefined)
        : FiberSet.run(record.fibers, withRedaction(record.redact)(effect))
    )
  }

  /** Map a failure of environment code to a 500, logging it. */
  userFailure(record: Record | undefined, what: string) {
    return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, ProtocolError.InternalError, R> =>
      Effect.catchAllCause(self, (cause) => {
        if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const redact = record?.redact ?? Errors.noRedaction
        return Effect.zipRight(
          Effect.logWarning(`${what} failed`, Errors.message(cause, redact)).pipe(
            Effect.annotateLogs(annotations(record?.sid ?? "", record?.compiled.key ?? ""))
          ),
          Effect.fail(
            new ProtocolError.InternalError({ detail: Errors.detail(cause, this.config.returnErrors, redact) })
          )
        )
      })
  }

  /** Create a session and start its setup in the background. */
  create(
    sid: string,
    compiled: Compiled,
    info: Environment.SessionInfo<unknown>,
    redact: Errors.Redact,
    client: string
  ): Effect.Effect<void, ProtocolError.SessionExists | ProtocolError.TooManySessions, unknown> {
    return Effect.gen(this, function*() {
      const now = yield* Clock.currentTimeMillis
      // Checked again here, with nothing asynchronous before the record is registered: two /create
      // requests for one id may both have passed the route's checks while a task list loaded.
      if (this.records.has(sid)) return yield* exists
      const full = this.full(client)
      if (full !== undefined) return yield* full
      const scope = yield* Scope.make()
      const fibers = yield* Scope.extend(FiberSet.make<unknown, unknown>(), scope)
      const record = new Record(sid, compiled, info, redact, scope, fibers, now, client)
      this.records.set(sid, record)
      this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1)
      const setup = (compiled.env.setup(info) as Effect.Effect<unknown, unknown, unknown>).pipe(
        Scope.extend(scope),
        Effect.onExit((exit) => this.settle(record, exit))
      )
      yield* FiberSet.run(fibers, withRedaction(redact)(setup))
      yield* Effect.logDebug("session created").pipe(Effect.annotateLogs(annotations(sid, compiled.key)))
    })
  }

  private settle(record: Record, exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (record.status !== "starting") return Effect.void
      if (Exit.isSuccess(exit)) {
        record.session = { ...record.info, state: exit.value }
        record.status = "ready"
        return Deferred.succeed(record.ready, undefined)
      }
      if (Cause.isInterruptedOnly(exit.cause)) return Effect.void
      record.status = "failed"
      const failure = new ProtocolError.InternalError({
        detail: Errors.detail(exit.cause, this.config.returnErrors, record.redact)
      })
      return Deferred.fail(record.ready, failure).pipe(
        Effect.zipRight(
          Effect.logWarning("setup failed", Errors.message(exit.cause, record.redact)).pipe(
            Effect.annotateLogs(annotations(record.sid, record.compiled.key))
          )
        )
      )
    })
  }

  private touch(sid: string): Effect.Effect<Record, Unknown> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const record = this.records.get(sid)
      if (record === undefined) return Effect.fail(this.unknown(sid))
      record.lastSeen = now
      return Effect.succeed(record)
    })
  }

  /** `/ping`: the session exists; its idle clock restarts. */
  ping(sid: string): Effect.Effect<void, Unknown> {
    return Effect.asVoid(this.touch(sid))
  }

  /** A session that exists and whose setup has not failed, ready or not (`/task_tools`). */
  existing(sid: string): Effect.Effect<Record, Unknown | SetupError> {
    return Effect.flatMap(
      this.touch(sid),
      (record) =>
        record.status === "failed"
          ? Effect.flatMap(Deferred.await(record.ready), () => Effect.succeed(record))
          : Effect.succeed(record)
    )
  }

  /** A session whose setup has finished; waits for it (bounded), as `/call`, `/prompt`, `/messages` do. */
  ready(sid: string): Effect.Effect<Record, Unknown | SetupError | ProtocolError.SessionStarting> {
    return Effect.flatMap(this.touch(sid), (record) => {
      if (record.status === "ready") return Effect.succeed(record)
      return Deferred.await(record.ready).pipe(
        Effect.timeoutFail({ duration: this.config.setupWaitTimeout, onTimeout: () => starting }),
        Effect.as(record)
      )
    })
  }

  /** The session's task tools, computed once. */
  taskTools(record: Record): Effect.Effect<ReadonlyArray<AnyTool>, ProtocolError.InternalError, unknown> {
    if (record.taskTools !== undefined) return Effect.succeed(record.taskTools)
    const compute = record.compiled.env.taskTools
    if (compute === undefined) return Effect.succeed(record.taskTools = [])
    return (compute(record.info) as Effect.Effect<ReadonlyArray<AnyTool>, unknown, unknown>).pipe(
      Effect.tap((tools) => Effect.sync(() => (record.taskTools = tools))),
      this.userFailure(record, "taskTools"),
      withRedaction(record.redact)
    )
  }

  /** The `/prompt` body, computed once per session. */
  prompt(record: Record): Effect.Effect<HttpServerResponse.HttpServerResponse, ProtocolError.InternalError, unknown> {
    if (record.promptResponse !== undefined) return Effect.succeed(record.promptResponse)
    const env = record.compiled.env
    const session = record.session!
    const prompt: Effect.Effect<Prompt.Prompt, unknown, unknown> = env.prompt !== undefined
      ? env.prompt(session)
      : Effect.map(env.messages!(session) as Effect.Effect<Conversation.Conversation, unknown>, Prompt.flatten)
    return prompt.pipe(
      Effect.flatMap((p) => encodePrompt(p)),
      Effect.map((encoded) => (record.promptResponse = jsonBytes(encode(JSON.stringify(encoded))))),
      this.userFailure(record, "prompt"),
      withRedaction(record.redact)
    )
  }

  /** The `/messages` body, computed once per session. */
  messages(record: Record): Effect.Effect<HttpServerResponse.HttpServerResponse, ProtocolError.InternalError, unknown> {
    if (record.messagesResponse !== undefined) return Effect.succeed(record.messagesResponse)
    const env = record.compiled.env
    const session = record.session!
    const messages: Effect.Effect<Conversation.Conversation, unknown, unknown> = env.messages !== undefined
      ? env.messages(session)
      : Effect.map(env.prompt!(session) as Effect.Effect<Prompt.Prompt, unknown>, Prompt.toConversation)
    return messages.pipe(
      Effect.flatMap((c) => Environment.checkProviderContent(env, c)),
      Effect.flatMap((c) => encodeConversation(c)),
      Effect.map((encoded) => (record.messagesResponse = jsonBytes(encode(JSON.stringify(encoded))))),
      this.userFailure(record, "messages"),
      withRedaction(record.redact)
    )
  }

  /** End a session: refuse waiters (410), interrupt its work, close its scope (teardown). */
  delete(sid: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      const record = this.records.get(sid)
      if (record === undefined) return Effect.void
      this.records.delete(sid)
      const held = (this.perClient.get(record.client) ?? 1) - 1
      if (held === 0) this.perClient.delete(record.client)
      else this.perClient.set(record.client, held)
      record.status = "closed"
      return Deferred.fail(record.ready, deleted).pipe(
        Effect.zipRight(FiberSet.clear(record.fibers)),
        Effect.zipRight(Scope.close(record.scope, Exit.void)),
        Effect.catchAllCause((cause) =>
          Effect.logWarning("teardown failed", Errors.message(cause, record.redact)).pipe(
            Effect.annotateLogs(annotations(sid, record.compiled.key))
          )
        ),
        Effect.zipRight(
          Effect.logDebug("session deleted").pipe(
            Effect.annotateLogs(annotations(sid, record.compiled.key))
          )
        ),
        withRedaction(record.redact),
        Effect.uninterruptible
      )
    })
  }

  /** End every session idle for longer than the idle timeout. */
  reap(): Effect.Effect<void> {
    return Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const stale = [...this.records.values()].filter((r) => now - r.lastSeen > this.config.idleTimeout)
      return Effect.forEach(stale, (r) => this.delete(r.sid), { concurrency: "unbounded", discard: true })
    })
  }

  /** End every session (server shutdown). */
  deleteAll(): Effect.Effect<void> {
    return Effect.forEach([...this.records.keys()], (sid) => this.delete(sid), {
      concurrency: "unbounded",
      discard: true
    })
  }
}

/**
 * The session store of a server, as a service.
 *
 * @internal
 */
export class SessionStore extends Context.Tag("openreward-effect/Server/SessionStore")<SessionStore, Sessions>() {}

/**
 * The session store, for the layer's scope: closing it ends every session (running each teardown).
 *
 * @internal
 */
export const layer = (config: Config): Layer.Layer<SessionStore> =>
  Layer.scoped(
    SessionStore,
    Effect.acquireRelease(Effect.sync(() => new Sessions(config)), (sessions) => sessions.deleteAll())
  )
