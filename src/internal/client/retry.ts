/**
 * The retry policy of the OpenReward client, as a `Schedule`.
 *
 * It follows the reference SDK (`openreward/api/_session/http.py`):
 * - a failed attempt waits `base · 2^(n-1)`, capped at `cap`, or the server's `Retry-After`
 *   (delta-seconds, also capped) when it sends one;
 * - at most `retries` retries, counted since the last attempt that made progress. The reference
 *   resets the count on every response with an OK status, so a server that answers `200` with
 *   something useless (an HTML page, a stream cut after its `task_id`) is asked again forever; here
 *   an attempt made progress only when it brought something new (the operation's first `task_id`)
 *   or stayed up, receiving data, for a heartbeat timeout (transport.ts decides). A long `/call`
 *   that loses its connection now and then is still not cut short;
 * - a server that answers "still starting" (`503` with `X-Backend-State: starting`) is waited for
 *   without counting retries, until `rideOut` has passed since the first failure.
 *
 * @internal
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleInterval from "effect/ScheduleInterval"
import type * as ClientError from "../../ClientError.js"

/** How one kind of request is retried. */
export interface Policy {
  /** Retries after the first attempt, when the server is not starting. */
  readonly retries: number
  /** The first backoff delay; each later one doubles. */
  readonly base: Duration.Duration
  /** The longest delay, whatever the backoff or `Retry-After` says. */
  readonly cap: Duration.Duration
  /** How long a server that says it is still starting is waited for. */
  readonly rideOut: Duration.Duration
}

/** A failed attempt that the policy may retry. */
export class Retryable extends Data.TaggedError("Retryable")<{
  readonly error: ClientError.HttpError | ClientError.TransportError
  readonly retryAfter: Option.Option<Duration.Duration>
  readonly starting: boolean
  readonly progressed: boolean
}> {}

interface State {
  readonly attempt: number
  readonly since: number | undefined
}

/**
 * The policy as a schedule over the failures it sees: it stops at once on a failure that is not
 * {@link Retryable}. Its output is the retry count so far.
 */
export const schedule = (policy: Policy): Schedule.Schedule<number, unknown> =>
  Schedule.makeWithState<State, unknown, number>({ attempt: 0, since: undefined }, (now, failure, state) => {
    if (!(failure instanceof Retryable)) return Effect.succeed([state, state.attempt, ScheduleDecision.done] as const)
    const since = state.since ?? now
    const attempt = failure.progressed ? 1 : state.attempt + 1
    const next: State = { attempt, since }
    const exhausted = failure.starting
      ? now - since >= Duration.toMillis(policy.rideOut)
      : attempt > policy.retries
    if (exhausted) return Effect.succeed([next, attempt, ScheduleDecision.done] as const)
    const delay = Option.match(failure.retryAfter, {
      onNone: () => Duration.times(policy.base, 2 ** (attempt - 1)),
      onSome: (after) => after
    })
    const millis = Duration.toMillis(Duration.min(delay, policy.cap))
    return Effect.succeed([next, attempt, ScheduleDecision.continueWith(ScheduleInterval.after(now + millis))] as const)
  })
