/**
 * One replica among several: the route key it mints into session ids, and its drain on shutdown.
 *
 * - **Route key.** With a route key `r1`, `/create_session` mints `r1.<uuid4>` instead of a bare
 *   `<uuid4>`. Every later request of the session carries that id in `X-Session-ID`, so a proxy in
 *   front of several replicas sends it to the replica that minted it by reading the id's prefix
 *   (deploy/nginx/openreward.conf does it with a `map`). Without a route key, ids are the
 *   reference's bare uuids.
 * - **Drain.** When the server shuts down it first drains: `/health` answers 503 `draining` (a
 *   readiness probe takes the replica out of rotation), `/create_session` and `/create` answer 503
 *   (a proxy tries another replica), a new tool call of an existing session is refused with 410
 *   (clients read it as "session terminated"), and the calls already running are given up to the
 *   drain timeout to finish and deliver their results. Then every session is torn down.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { fail, type HttpFailure } from "./http.js"

/**
 * What a route key may be: one to 64 letters, digits, `_` or `-`, so it sits in a session id and
 * an nginx `map` pattern without escaping.
 *
 * @internal
 */
export const routeKeyPattern = /^[A-Za-z0-9_-]{1,64}$/

/**
 * @internal
 */
export const drainingNewSession: HttpFailure = fail(503, "Server is draining: it takes no new sessions", {
  "retry-after": "1"
})

/**
 * @internal
 */
export const drainingNewCall: HttpFailure = fail(410, "Session ended: the server is shutting down")

/**
 * @internal
 */
export const shuttingDown: HttpFailure = fail(503, "Server is shutting down", { "retry-after": "1" })

/**
 * @internal
 */
export const sessionLost: HttpFailure = fail(410, "Session gone: it ended, or its replica restarted")

/**
 * The drain state of one server.
 *
 * @internal
 */
export class Drain {
  /** Set when shutdown begins: no new sessions, no new calls. */
  draining = false
  /** Set once the drain is over and sessions are being torn down: every request gets 503. */
  closed = false
  /** How many calls are running; the application sets it. */
  running: () => number = () => 0

  constructor(readonly routeKey: string | null, readonly timeout: number) {}

  /** A fresh session id, carrying the route key when there is one. */
  mint(): string {
    const id = globalThis.crypto.randomUUID()
    return this.routeKey === null ? id : `${this.routeKey}.${id}`
  }

  /**
   * The answer for an unknown session id that carries this replica's route key: this replica (or
   * an earlier run of it under the same key, before a restart) minted it, so the session is gone.
   * 410, so that clients end the session rather than retry it; other unknown ids get the
   * reference's 404.
   */
  lost(sid: string): HttpFailure | undefined {
    return this.routeKey !== null && sid.startsWith(`${this.routeKey}.`) ? sessionLost : undefined
  }

  /**
   * Stop taking sessions and calls, and wait (at most the drain timeout) for the running calls to
   * finish. What is still running then is interrupted by the teardown that follows.
   */
  drain(): Effect.Effect<void> {
    return Effect.gen(this, function*() {
      if (this.draining) return
      this.draining = true
      const start = yield* Clock.currentTimeMillis
      const running = this.running()
      if (running > 0) {
        yield* Effect.logInfo(`draining: waiting up to ${this.timeout} ms for ${running} running call(s)`)
        // Interruptible: the drain runs in a finalizer, where the timeout could not otherwise stop the wait.
        yield* Effect.void.pipe(
          Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: () => this.running() === 0 }),
          Effect.interruptible,
          Effect.timeout(this.timeout),
          Effect.ignore
        )
        const left = this.running()
        const took = (yield* Clock.currentTimeMillis) - start
        yield* left === 0
          ? Effect.logInfo(`drained in ${took} ms`)
          : Effect.logWarning(`drain timeout: interrupting ${left} running call(s)`)
      }
      this.closed = true
    })
  }
}

/**
 * The replica a server runs as: its route key and its drain, a service of the server's
 * application (the session store mints ids through it, the routes consult its drain state).
 *
 * @internal
 */
export class Replica extends Context.Tag("openreward-effect/Server/Replica")<Replica, Drain>() {}

/**
 * The {@link Replica} service, with a route key (or `null`) and a drain timeout in milliseconds.
 *
 * @internal
 */
export const layer = (routeKey: string | null, timeout: number): Layer.Layer<Replica> =>
  Layer.sync(Replica, () => new Drain(routeKey, timeout))
