/**
 * Signals while `serve` runs. `NodeRuntime.runMain` turns the first SIGINT or SIGTERM into an
 * interruption of the program, which drains the server and tears its sessions down; this adds
 * what a server started from a terminal or through `npm run` also needs:
 *
 * - the same signal delivered more than once is not a second request: Ctrl-C reaches every
 *   process of the terminal's group, and npm and tsx each relay it once more to their child, so
 *   copies arriving within a second of the first are ignored (without a listener, the second copy
 *   would kill the process in the middle of its teardown);
 * - a signal after that means "stop now": the process exits at once, skipping the rest of the
 *   drain and teardown, as a second Ctrl-C does in most servers.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as os from "node:os"

const duplicateWindow = 1000

/**
 * Install the listeners for as long as the scope is open.
 *
 * @internal
 */
export const guard: Effect.Effect<void, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => {
    let first: number | undefined
    const onSignal = (signal: NodeJS.Signals) => {
      const now = Date.now()
      if (first === undefined) {
        first = now
        process.stderr.write(`${signal}: draining, then ending every session (send it again to stop at once)\n`)
        return
      }
      if (now - first < duplicateWindow) return
      process.stderr.write(`${signal} again: stopping now\n`)
      process.exit(128 + (os.constants.signals[signal] ?? 0))
    }
    process.on("SIGINT", onSignal)
    process.on("SIGTERM", onSignal)
    return onSignal
  }),
  (onSignal) =>
    Effect.sync(() => {
      process.off("SIGINT", onSignal)
      process.off("SIGTERM", onSignal)
    })
)
