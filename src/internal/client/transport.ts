/**
 * HTTP requests to an environment server, with the reference SDK's headers, error mapping and
 * retries, and its resumable SSE streams (`/create_session`, `/call`).
 *
 * @internal
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as ClientError from "../../ClientError.js"
import * as Retry from "./retry.js"
import * as Sse from "./sse.js"

/** What every request needs. */
export interface Config {
  readonly http: HttpClient.HttpClient
  readonly apiKey: string
  readonly userAgent: string
  /** An SSE stream that sends nothing (not even a keep-alive comment) for this long is lost. */
  readonly heartbeat: Duration.Duration
  /** Statuses worth retrying; the reference's env-server policy is 429, 502, 503 and 504. */
  readonly retryStatuses: ReadonlySet<number>
}

/** One request. */
export interface Request {
  readonly method: "GET" | "POST"
  readonly url: string
  readonly sid?: string | undefined
  readonly deployment?: string | undefined
  readonly body?: { readonly [key: string]: unknown } | undefined
  readonly headers?: { readonly [key: string]: string } | undefined
}

/** The server ended a stream with an `error` event: the operation itself failed. */
export class Remote extends Data.TaggedError("Remote")<{ readonly detail: string }> {}

/**
 * The connection failed or dropped during one attempt. `sent` is false when the request surely
 * never reached the server (the connection was refused, or the host name did not resolve).
 */
class Lost extends Data.TaggedError("Lost")<{
  readonly reason: string
  readonly progressed: boolean
  readonly sent: boolean
}> {}

const unsentCodes: ReadonlySet<string> = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN"])

/** Does the error, or one of its causes, say that no connection was made? */
const neverConnected = (cause: unknown): boolean => {
  for (let e = cause, depth = 0; typeof e === "object" && e !== null && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === "string" && unsentCodes.has(code)) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

const headers = (config: Config, request: Request, sse: boolean): Record<string, string> => ({
  "User-Agent": config.userAgent,
  ...(sse ? { Accept: "text/event-stream" } : {}),
  // As the reference: plain requests always carry the key (possibly empty), streams only a non-empty one.
  ...(!sse || config.apiKey !== "" ? { "X-API-Key": config.apiKey } : {}),
  ...(request.sid ? { "X-Session-ID": request.sid } : {}),
  ...(request.deployment ? { "X-Deployment": request.deployment } : {}),
  ...request.headers
})

const build = (
  config: Config,
  request: Request,
  sse: boolean,
  body: Request["body"]
): HttpClientRequest.HttpClientRequest => {
  const base = request.method === "GET" ? HttpClientRequest.get(request.url) : HttpClientRequest.post(request.url)
  const withHeaders = HttpClientRequest.setHeaders(base, headers(config, request, sse))
  return body === undefined ? withHeaders : HttpClientRequest.bodyUnsafeJson(withHeaders, body)
}

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : String(cause)

const transportError = (request: Request, reason: string, retries = 0) =>
  new ClientError.TransportError({ method: request.method, url: request.url, reason, retries })

/** A failure before any response: a connection problem is retryable, a malformed request is not. */
const fromClientError = (
  request: Request,
  error: HttpClientError.HttpClientError,
  progressed: boolean
): Lost | ClientError.TransportError => {
  if (error._tag === "RequestError") {
    return error.reason === "Transport"
      ? new Lost({
        reason: `connection failed: ${describe(error.cause ?? error.description)}`,
        progressed,
        sent: !neverConnected(error.cause)
      })
      : transportError(request, `${error.reason}: ${error.description ?? describe(error.cause)}`)
  }
  return new Lost({ reason: `connection lost: ${describe(error.cause ?? error.description)}`, progressed, sent: true })
}

const deploymentNotFound = "Deployment not found."

/** The server's `detail`, as the reference reads it. */
const detailOf = (text: string): string => {
  let detail = text
  try {
    const json: unknown = JSON.parse(text)
    if (typeof json === "object" && json !== null && !Array.isArray(json) && "detail" in json) {
      const value = (json as { detail: unknown }).detail
      detail = typeof value === "string" ? value : JSON.stringify(value)
    }
  } catch {
    // not JSON: the body is the detail
  }
  return detail.includes(deploymentNotFound)
    ? "Deployment not found. Environment name is case-sensitive, is it correct?"
    : detail
}

const retryAfter = (value: string | undefined): Option.Option<Duration.Duration> =>
  value !== undefined && /^\d+$/.test(value.trim())
    ? Option.some(Duration.seconds(Number(value.trim())))
    : Option.none()

/** An error status: an `HttpError`, wrapped as retryable when its status is. */
const statusFailure = (
  config: Config,
  request: Request,
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<never, ClientError.HttpError | Retry.Retryable> =>
  Effect.flatMap(Effect.orElseSucceed(response.text, () => ""), (text): Effect.Effect<
    never,
    ClientError.HttpError | Retry.Retryable
  > => {
    const error = new ClientError.HttpError({
      method: request.method,
      url: request.url,
      status: response.status,
      detail: detailOf(text)
    })
    return config.retryStatuses.has(response.status)
      ? Effect.fail(
        new Retry.Retryable({
          error,
          retryAfter: retryAfter(response.headers["retry-after"]),
          starting: response.headers["x-backend-state"] === "starting",
          progressed: false
        })
      )
      : Effect.fail(error)
  })

const isOk = (status: number) => status >= 200 && status < 300

const parseJson = (request: Request, text: string) =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (e) =>
      new ClientError.MalformedResponse({
        method: request.method,
        url: request.url,
        path: [],
        reason: `not JSON: ${describe(e)}`
      })
  })

/**
 * Retry `attempt` under `policy`, then turn a retryable failure that ran out of retries into the
 * error it wraps.
 */
const retrying = <A, E>(
  request: Request,
  policy: Retry.Policy,
  attempt: (attempts: Ref.Ref<number>) => Effect.Effect<A, E | Retry.Retryable>
): Effect.Effect<A, E | ClientError.HttpError | ClientError.TransportError> =>
  Effect.flatMap(Ref.make(0), (attempts) =>
    attempt(attempts).pipe(
      Effect.retry(Retry.schedule(policy)),
      Effect.catchIf(
        (e): e is Retry.Retryable => e instanceof Retry.Retryable,
        (retryable) =>
          Effect.flatMap(Ref.get(attempts), (n) =>
            Effect.fail(
              retryable.error._tag === "TransportError"
                ? transportError(request, retryable.error.reason, n - 1)
                : retryable.error
            ))
      )
    ))

const retryableLost = (request: Request, lost: Lost) =>
  new Retry.Retryable({
    error: transportError(request, lost.reason),
    retryAfter: Option.none(),
    starting: false,
    progressed: lost.progressed
  })

/**
 * A plain request. `expect: "json"` parses the body; `"none"` ignores it.
 */
export const request = (
  config: Config,
  request: Request,
  policy: Retry.Policy,
  expect: "json" | "none"
): Effect.Effect<unknown, ClientError.RequestError> =>
  retrying(request, policy, (attempts) =>
    Effect.gen(function*() {
      yield* Ref.update(attempts, (n) => n + 1)
      const response = yield* Effect.mapError(
        config.http.execute(build(config, request, false, request.body)),
        (e) => fromClientError(request, e, false)
      )
      if (!isOk(response.status)) return yield* statusFailure(config, request, response)
      if (expect === "none") return null
      const text = yield* Effect.mapError(response.text, (e) => fromClientError(request, e, false))
      return yield* parseJson(request, text)
    }).pipe(Effect.catchTag("Lost", (lost) => Effect.fail(retryableLost(request, lost)))))

/** How a stream is consumed. */
export interface StreamOptions {
  /** Send the last `task_id` seen when reconnecting, so the server resumes the running task. */
  readonly resume: boolean
  /**
   * Do not reconnect when the connection is lost before a `task_id` arrived: re-sending would start
   * the operation again. Still retried: error statuses (the server answered without running it) and
   * connections that were never made.
   */
  readonly resumableOnly: boolean
  /** Give up after this long in total. */
  readonly timeout?: Duration.Duration | undefined
}

/** The end of a stream: the joined `chunk` and `end` data as JSON (`null` when empty), and the last `task_id`. */
export interface StreamResult {
  readonly value: unknown
  readonly taskId: string | undefined
}

interface Fold {
  readonly chunks: Array<string>
  last: Sse.Event | undefined
}

/**
 * A server-sent-event request (`task_id`, `chunk`*, then `end` or `error`), reconnecting as the
 * policy allows and resuming by `task_id`.
 */
export const stream = (
  config: Config,
  request: Request,
  policy: Retry.Policy,
  options: StreamOptions
): Effect.Effect<StreamResult, ClientError.RequestError | Remote> =>
  Effect.flatMap(Ref.make<string | undefined>(undefined), (taskId) => {
    const lost = (failure: Lost) =>
      Effect.flatMap(Ref.get(taskId), (id) =>
        Effect.fail(
          options.resumableOnly && id === undefined && failure.sent
            ? transportError(
              request,
              `${failure.reason}; not retried, because the server had not acknowledged the request and sending it again could run it twice`
            )
            : retryableLost(request, failure)
        ))

    const attempt = (attempts: Ref.Ref<number>) =>
      Effect.gen(function*() {
        yield* Ref.update(attempts, (n) => n + 1)
        const id = yield* Ref.get(taskId)
        const body = options.resume && id !== undefined ? { ...request.body, task_id: id } : request.body ?? {}
        const response = yield* Effect.mapError(
          config.http.execute(build(config, request, true, body)),
          (e) => fromClientError(request, e, false)
        )
        if (!isOk(response.status)) return yield* statusFailure(config, request, response)
        const bytes = Stream.timeoutFailCause(
          response.stream,
          () =>
            Cause.fail(
              new Lost({ reason: `no data for ${Duration.format(config.heartbeat)}`, progressed: true, sent: true })
            ),
          config.heartbeat
        )
        const fold = yield* Sse.events(bytes).pipe(
          Stream.tap((event) => event.event === "task_id" ? Ref.set(taskId, event.data.trim()) : Effect.void),
          Stream.filter((event) => event.event === "chunk" || event.event === "end" || event.event === "error"),
          Stream.takeUntil((event) => event.event !== "chunk"),
          Stream.runFold<Fold, Sse.Event>({ chunks: [], last: undefined }, (acc, event) => {
            acc.chunks.push(event.data)
            acc.last = event
            return acc
          }),
          Effect.mapError((e) => {
            switch (e._tag) {
              case "Lost":
                return e
              case "Invalid":
                return new ClientError.MalformedResponse({
                  method: request.method,
                  url: request.url,
                  path: [],
                  reason: e.reason
                })
              case "ResponseError":
                return fromClientError(request, e, true)
            }
          })
        )
        const last = fold.last
        if (last === undefined) {
          return yield* new Lost({ reason: "the stream ended before its end event", progressed: true, sent: true })
        }
        if (last.event === "error") {
          return yield* new Remote({ detail: last.data === "" ? "Unknown SSE error" : last.data })
        }
        const joined = fold.chunks.join("")
        const value = joined === "" ? null : yield* parseJson(request, joined)
        return { value, taskId: yield* Ref.get(taskId) }
      }).pipe(Effect.catchTag("Lost", lost))

    const run = retrying(request, policy, attempt)
    const timeout = options.timeout
    return timeout === undefined ? run : Effect.timeoutFail(run, {
      duration: timeout,
      onTimeout: () => transportError(request, `timed out after ${Duration.format(timeout)}`)
    })
  })
