/**
 * What each provider's stand-in knows about its API (`openreward-effect/Testing`): which requests it
 * answers, whether a request asks for a stream, how the API frames a stream, its 404, and the
 * scripted two-step agent.
 *
 * @internal
 */
import type * as Testing from "../../Testing.js"

/** One provider API, as its stand-ins speak it. */
export interface Api {
  /** Whether the request is one of the API's model calls. */
  readonly matches: (request: Testing.Request) => boolean
  /** Whether the request asks for a stream of events. */
  readonly streaming: (request: Testing.Request) => boolean
  /** Events (each one's JSON) as the API streams them. */
  readonly stream: (events: ReadonlyArray<unknown>) => Testing.Answer
  /** An error answer in the API's shape. */
  readonly error: (status: number, message: string) => Testing.Answer
  /** The scripted agent's route (see `Testing.Script`). */
  readonly scripted: (script: Testing.Script) => Testing.Route
}

/** The route of a scripted stand-in: the API's 404 for any request it does not answer. */
export const scriptedRoute = (
  api: Pick<Api, "matches" | "error">,
  answer: (request: Testing.Request, index: number) => Testing.Answer
): Testing.Route =>
(request, index) =>
  api.matches(request)
    ? answer(request, index)
    : api.error(404, `the stand-in has no route ${request.method} ${request.path}`)
