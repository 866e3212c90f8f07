/**
 * The idle reaper: every `interval` ms it ends the sessions idle longer than the idle timeout
 * (running their teardown) and forgets finished tasks older than their linger time. It runs for as
 * long as its layer's scope is open.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { TaskRegistry } from "./calls.js"
import { SessionStore } from "./sessions.js"

/**
 * @internal
 */
export const layer = (interval: number): Layer.Layer<never, never, SessionStore | TaskRegistry> =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      const sessions = yield* SessionStore
      const registry = yield* TaskRegistry
      yield* Effect.forkScoped(
        Effect.repeat(Effect.zipRight(sessions.reap(), registry.evict()), Schedule.spaced(interval))
      )
    })
  )
