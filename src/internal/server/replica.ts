/**
 * One replica among several: its route key (minted into session ids by the session store, see
 * `sessions.ts`) and its drain on shutdown, a layer over the session store and task registry.
 *
 * - **Route key.** With a route key `r1`, `/create_session` mints `r1.<uuid4>` instead of a bare
 *   `<uuid4>`. Every later request of the session carries that id in `X-Session-ID`, so a proxy in
 *   front of several replicas sends it to the replica that minted it by reading the id's prefix
 *   (deploy/nginx/openreward.conf does it with a `map`). An unknown id carrying the key answers
 *   410 (the session ended, or was minted before a restart under the same key).
 * - **Drain.** When the layer is released (before the session store, which then ends every
 *   session), the store is set draining: `/health` answers 503 `draining` (a readiness probe takes
 *   the replica out of rotation), `/create_session` and `/create` answer 503 (a proxy tries another
 *   replica), a new tool call of an existing session is refused with 410 (clients read it as
 *   "session terminated"), and the calls already running get up to the drain timeout to finish
 *   and deliver their results. Then the store is closed (every request gets 503) and its sessions
 *   are ended, interrupting what still runs.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as ProtocolError from "../../ProtocolError.js"
import { TaskRegistry } from "./calls.js"
import { SessionStore } from "./sessions.js"

/**
 * @internal
 */
export const drainingNewSession = new ProtocolError.Draining()

/**
 * @internal
 */
export const drainingNewCall = new ProtocolError.SessionGone({ reason: "shutdown" })

/**
 * @internal
 */
export const shuttingDown = new ProtocolError.ShuttingDown()

/**
 * The drain as a layer: releasing it drains the session store, waiting at most `timeout` ms for
 * the running calls. Build it over the store, so that it is released before the store ends the
 * sessions.
 *
 * @internal
 */
export const layer = (timeout: number): Layer.Layer<never, never, SessionStore | TaskRegistry> =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const sessions = yield* SessionStore
      const registry = yield* TaskRegistry
      yield* Effect.addFinalizer(() =>
        Effect.gen(function*() {
          yield* sessions.drain()
          const start = yield* Clock.currentTimeMillis
          const running = registry.running()
          if (running > 0) {
            yield* Effect.logInfo(`draining: waiting up to ${timeout} ms for ${running} running call(s)`)
            // Interruptible: the drain runs in a finalizer, where the timeout could not otherwise stop the wait.
            yield* Effect.void.pipe(
              Effect.repeat({ schedule: Schedule.spaced("20 millis"), until: () => registry.running() === 0 }),
              Effect.interruptible,
              Effect.timeout(timeout),
              Effect.ignore
            )
            const left = registry.running()
            const took = (yield* Clock.currentTimeMillis) - start
            yield* left === 0
              ? Effect.logInfo(`drained in ${took} ms`)
              : Effect.logWarning(`drain timeout: interrupting ${left} running call(s)`)
          }
          sessions.closed = true
        })
      )
    })
  )
