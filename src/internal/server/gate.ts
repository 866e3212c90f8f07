/**
 * A session's tool-call gate: a writer-preferring readers-writer lock. Ordinary and concurrent calls
 * share it; an exclusive call (a terminal tool, a `concurrency: "exclusive"` tool) waits for every
 * call in flight, and holds new calls back until it returns. A waiting exclusive call is not starved
 * by a stream of shared ones.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

interface Waiter {
  readonly exclusive: boolean
  granted: boolean
  resume: (effect: Effect.Effect<void>) => void
}

/**
 * @internal
 */
export class Gate {
  private active = 0
  private writing = false
  private readonly queue: Array<Waiter> = []

  private get writersWaiting(): boolean {
    return this.queue.some((w) => w.exclusive)
  }

  private wake(): void {
    if (this.writing) return
    const first = this.queue[0]
    if (first === undefined) return
    if (first.exclusive) {
      if (this.active > 0) return
      this.queue.shift()
      this.writing = true
      first.granted = true
      first.resume(Effect.void)
      return
    }
    // Readers queued behind nothing exclusive go in together.
    while (this.queue.length > 0 && !this.queue[0]!.exclusive) {
      const reader = this.queue.shift()!
      this.active++
      reader.granted = true
      reader.resume(Effect.void)
    }
  }

  private release(exclusive: boolean): void {
    if (exclusive) this.writing = false
    else this.active--
    this.wake()
  }

  private acquire(exclusive: boolean): Effect.Effect<void> {
    return Effect.suspend(() => {
      if (
        exclusive
          ? !this.writing && this.active === 0 && this.queue.length === 0
          : !this.writing && !this.writersWaiting
      ) {
        if (exclusive) this.writing = true
        else this.active++
        return Effect.void
      }
      return Effect.async<void>((resume) => {
        const waiter: Waiter = { exclusive, granted: false, resume }
        this.queue.push(waiter)
        return Effect.sync(() => {
          if (waiter.granted) {
            this.release(exclusive)
          } else {
            const index = this.queue.indexOf(waiter)
            if (index >= 0) this.queue.splice(index, 1)
            // A cancelled exclusive waiter may have been what held readers back.
            this.wake()
          }
        })
      })
    })
  }

  private with(exclusive: boolean) {
    return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.zipRight(
          restore(this.acquire(exclusive)),
          Effect.ensuring(restore(self), Effect.sync(() => this.release(exclusive)))
        )
      )
  }

  /** Run alongside other shared holders. */
  readonly shared = this.with(false)
  /** Run alone. */
  readonly exclusive = this.with(true)
}
