/**
 * HTTP requests to an environment server, with the reference SDK's headers, error mapping and
 * retries, and its resumable SSE streams (`/create_session`, `/call`), held to bounds a hostile or
 * broken server cannot lift:
 *
 * - **redirects** are followed here, one hop at a time, never by the `HttpClient`: within the
 *   configured base URL's origin, or to an origin the client lists; `X-Secrets` never leaves the
 *   base URL's origin; a refused hop sends nothing to its target;
 * - **bodies** are read up to `maxResponseBytes`, streams' data too; an error body is read up to
 *   64 KiB for its detail;
 * - **time**: every attempt of a plain request has a deadline, a stream that sends nothing for
 *   the heartbeat timeout is lost, and every stream has an overall deadline;
 * - **retries** count since the last attempt that made progress, and an attempt made progress only
 *   when it brought something new (a first `task_id` to resume by) or stayed up, receiving data,
 *   for a heartbeat timeout: a server that answers the same useless thing every time is retried as
 *   often as the policy says, then reported.
 *
 * Each attempt runs in a scope that aborts its connection when the attempt ends, so a body left
 * unread (a redirect's, one too large, an ignored `/ping` answer) does not hold a socket.
 *
 * @internal
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Headers from "@effect/platform/Headers"
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as ClientError from "../../ClientError.js"
import type * as ConversionError from "../../ConversionError.js"
import * as Retry from "./retry.js"
import * as Sse from "./sse.js"

/** What every request needs. */
export interface Config {
  /** The platform's client, aborting each request's connection when its scope closes. */
  readonly http: HttpClient.HttpClient.With<HttpClientError.HttpClientError, Scope.Scope>
  readonly apiKey: string
  readonly userAgent: string
  /** An SSE stream that sends nothing (not even a keep-alive comment) for this long is lost. */
  readonly heartbeat: Duration.Duration
  /** One attempt of a plain request, from sending it to the last byte of its answer. */
  readonly requestTimeout: Duration.Duration
  /** Statuses worth retrying; the reference's env-server policy is 429, 502, 503 and 504. */
  readonly retryStatuses: ReadonlySet<number>
  /** The largest body read, and the most data one stream may carry. */
  readonly maxResponseBytes: number
  /** Redirects followed in a row, at most. */
  readonly maxRedirects: number
  /** Origins other than the base URL's that redirects may lead to (`new URL(...).origin` form). */
  readonly allowedOrigins: ReadonlySet<string>
}

/** One request. `url` is on the configured base URL, whose origin is the request's home. */
export interface Request {
  readonly method: "GET" | "POST"
  readonly url: string
  /** The protocol route, for errors: `/create_session`, `/tasks`, ... */
  readonly route: string
  readonly sid?: string | undefined
  readonly deployment?: string | undefined
  readonly body?: { readonly [key: string]: unknown } | undefined
  /** The `X-Secrets` header, sent to the request's home origin only. */
  readonly secrets?: string | undefined
}

/** A body as it came back: its JSON, and what to show of it when it is not what the route returns. */
export interface Body {
  readonly json: unknown
  readonly contentType: string | undefined
  readonly excerpt: string
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

/** How much of an error body is read for its detail. */
const errorBodyBytes = 64 * 1024

/** How much of a body a `MalformedResponse` quotes. */
const excerptChars = 200

/** The headers no tracing span or log shows, on top of `@effect/platform`'s own list. */
const redactedNames: ReadonlyArray<string> = [
  "authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "x-secrets",
  "x-session-id",
  "proxy-authorization"
]

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

const describe = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : String(cause)

const transportError = (request: Request, reason: string, retries = 0) =>
  new ClientError.TransportError({ method: request.method, url: request.url, reason, retries })

const decoder = () => new TextDecoder("utf-8", { ignoreBOM: false })

const excerptOf = (bytes: Uint8Array): string => {
  const text = decoder().decode(bytes.subarray(0, excerptChars * 4))
  return text.length > excerptChars ? text.slice(0, excerptChars) : text
}

/** A `MalformedResponse` for `request`. */
export const malformed = (
  request: Request,
  reason: string,
  about?: {
    readonly path?: ConversionError.Path | undefined
    readonly contentType?: string | undefined
    readonly excerpt?: string | undefined
  }
) =>
  new ClientError.MalformedResponse({
    method: request.method,
    url: request.url,
    route: request.route,
    path: about?.path ?? [],
    reason,
    ...(about?.contentType === undefined ? {} : { contentType: about.contentType }),
    ...(about?.excerpt === undefined ? {} : { excerpt: about.excerpt })
  })

// -----------------------------------------------------------------------------
// one hop
// -----------------------------------------------------------------------------

const headersFor = (config: Config, request: Request, sse: boolean, home: boolean): Record<string, string> => ({
  "User-Agent": config.userAgent,
  ...(sse ? { Accept: "text/event-stream" } : {}),
  // As the reference: plain requests always carry the key (possibly empty), streams only a non-empty one.
  ...(!sse || config.apiKey !== "" ? { "X-API-Key": config.apiKey } : {}),
  ...(request.sid ? { "X-Session-ID": request.sid } : {}),
  ...(request.deployment ? { "X-Deployment": request.deployment } : {}),
  ...(home && request.secrets !== undefined ? { "X-Secrets": request.secrets } : {})
})

/** A failure before any response: a connection problem is retryable, a malformed request is not. */
const fromClientError = (
  request: Request,
  error: HttpClientError.HttpClientError
): Lost | ClientError.TransportError => {
  if (error._tag === "RequestError") {
    return error.reason === "Transport"
      ? new Lost({
        reason: `connection failed: ${describe(error.cause ?? error.description)}`,
        progressed: false,
        sent: !neverConnected(error.cause)
      })
      : transportError(request, `${error.reason}: ${error.description ?? describe(error.cause)}`)
  }
  return new Lost({
    reason: `connection lost: ${describe(error.cause ?? error.description)}`,
    progressed: false,
    sent: true
  })
}

/**
 * Send one request, never following a redirect: the platform's `fetch` is told so too
 * (`redirect: "manual"`), keeping any other `RequestInit` the caller provided. The headers this
 * library sends with secrets in them are redacted from the client's tracing spans.
 */
const execute = (config: Config, request: Request, outgoing: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(Effect.serviceOption(FetchHttpClient.RequestInit), (init) =>
    config.http.execute(outgoing).pipe(
      Effect.provideService(FetchHttpClient.RequestInit, { ...Option.getOrUndefined(init), redirect: "manual" }),
      Effect.locallyWith(Headers.currentRedactedNames, (names) => [...names, ...redactedNames]),
      Effect.mapError((e) => fromClientError(request, e))
    ))

const redirectStatuses: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/**
 * Send `request`, following redirects as the policy allows: to the request's own origin always;
 * to another origin only when the client lists it, and never for a request that carries
 * `X-Secrets`; at most `maxRedirects` in a row. 301 and 302 turn a `POST` into a `GET` without a
 * body, 303 turns anything into a `GET`; 307 and 308 keep the method and body (the fetch
 * standard's rules, which the reference's aiohttp follows too). A refused redirect sends nothing
 * to its target. Runs in the attempt's scope, which aborts every response left unread.
 */
const send = (
  config: Config,
  request: Request,
  sse: boolean,
  body: Request["body"]
): Effect.Effect<
  HttpClientResponse.HttpClientResponse,
  Lost | ClientError.TransportError | ClientError.RedirectRefused,
  Scope.Scope
> => {
  const home = originOf(request.url)
  const hop = (
    url: string,
    method: "GET" | "POST",
    payload: Request["body"],
    redirects: number
  ): Effect.Effect<
    HttpClientResponse.HttpClientResponse,
    Lost | ClientError.TransportError | ClientError.RedirectRefused,
    Scope.Scope
  > =>
    Effect.gen(function*() {
      const base = method === "GET" ? HttpClientRequest.get(url) : HttpClientRequest.post(url)
      const withHeaders = HttpClientRequest.setHeaders(base, headersFor(config, request, sse, originOf(url) === home))
      // The body is encoded again for every hop: `fetch` may detach the bytes it sent.
      const outgoing = payload === undefined ? withHeaders : HttpClientRequest.bodyUnsafeJson(withHeaders, payload)
      const response = yield* execute(config, request, outgoing)
      const location = response.headers["location"]
      if (!redirectStatuses.has(response.status) || location === undefined) return response
      const from = originOf(url)
      const refuse = (reason: ClientError.RedirectRefusedReason, to: string, target: string) =>
        new ClientError.RedirectRefused({
          method: request.method,
          url: request.url,
          status: response.status,
          from,
          to,
          location: target,
          reason
        })
      let target: URL
      try {
        target = new URL(location, url)
      } catch {
        return yield* refuse("invalid-location", location, location)
      }
      if (target.protocol !== "http:" && target.protocol !== "https:") {
        return yield* refuse("invalid-location", target.origin, target.href)
      }
      if (target.origin !== home) {
        if (!config.allowedOrigins.has(target.origin)) return yield* refuse("other-origin", target.origin, target.href)
        if (request.secrets !== undefined) return yield* refuse("secrets", target.origin, target.href)
      }
      if (redirects >= config.maxRedirects) return yield* refuse("too-many", target.origin, target.href)
      const toGet = response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === "POST")
      return yield* hop(target.href, toGet ? "GET" : method, toGet ? undefined : payload, redirects + 1)
    })
  return hop(request.url, request.method, body, 0)
}

// -----------------------------------------------------------------------------
// bodies
// -----------------------------------------------------------------------------

const concat = (chunks: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    out.set(chunk, offset)
    offset += chunk.length
  }
  return out
}

class TooLarge extends Data.TaggedError("TooLarge")<{ readonly contentType: string | undefined }> {}

interface Bytes {
  readonly chunks: Array<Uint8Array>
  size: number
}

/**
 * The whole body, up to `limit` bytes: a `Content-Length` above it fails before reading, a body
 * that turns out larger fails as soon as it passes it.
 */
const readBody = (
  response: HttpClientResponse.HttpClientResponse,
  limit: number
): Effect.Effect<Uint8Array, TooLarge | HttpClientError.ResponseError> => {
  const contentType = response.headers["content-type"]
  const declared = Number(response.headers["content-length"])
  if (Number.isFinite(declared) && declared > limit) return Effect.fail(new TooLarge({ contentType }))
  const init: Bytes = { chunks: [], size: 0 }
  return Effect.map(
    Stream.runFoldEffect(
      response.stream,
      init,
      (acc: Bytes, chunk: Uint8Array): Effect.Effect<Bytes, TooLarge> => {
        acc.size += chunk.length
        if (acc.size > limit) return Effect.fail(new TooLarge({ contentType }))
        acc.chunks.push(chunk)
        return Effect.succeed(acc)
      }
    ),
    ({ chunks, size }) => concat(chunks, size)
  )
}

/**
 * The first `limit` bytes of a body, whatever its length, and what arrived within `within`; the
 * rest is left unread.
 */
const readPrefix = (
  response: HttpClientResponse.HttpClientResponse,
  limit: number,
  within: Duration.Duration
): Effect.Effect<{ readonly text: string; readonly truncated: boolean }> =>
  Stream.runFoldWhile(
    Stream.interruptAfter(response.stream, within),
    { chunks: [], size: 0 } as Bytes,
    (acc: Bytes) => acc.size <= limit,
    (acc: Bytes, chunk: Uint8Array) => {
      acc.chunks.push(chunk)
      acc.size += chunk.length
      return acc
    }
  ).pipe(
    Effect.map(({ chunks, size }) => {
      const bytes = concat(chunks, size)
      return { text: decoder().decode(bytes.subarray(0, limit)), truncated: size > limit }
    }),
    Effect.orElseSucceed(() => ({ text: "", truncated: false }))
  )

const tooLarge = (config: Config, request: Request, e: TooLarge) =>
  malformed(request, `the answer is larger than maxResponseBytes (${config.maxResponseBytes} bytes)`, {
    contentType: e.contentType
  })

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
  Effect.flatMap(readPrefix(response, errorBodyBytes, config.heartbeat), ({ text, truncated }): Effect.Effect<
    never,
    ClientError.HttpError | Retry.Retryable
  > => {
    const error = new ClientError.HttpError({
      method: request.method,
      url: request.url,
      status: response.status,
      detail: truncated ? `${text} [... cut at ${errorBodyBytes} bytes]` : detailOf(text)
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

/** JSON text, or a `MalformedResponse` saying what came instead. */
export const parseJson = (
  request: Request,
  text: string,
  contentType: string | undefined
): Effect.Effect<unknown, ClientError.MalformedResponse> =>
  Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (e) =>
      malformed(request, text === "" ? "an empty body where JSON was expected" : `not JSON: ${describe(e)}`, {
        contentType,
        excerpt: text.slice(0, excerptChars)
      })
  })

// -----------------------------------------------------------------------------
// retries
// -----------------------------------------------------------------------------

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

// -----------------------------------------------------------------------------
// plain requests
// -----------------------------------------------------------------------------

/**
 * A plain request. `expect: "json"` reads and parses the body (at most `maxResponseBytes`);
 * `"none"` leaves it unread. A body that is not JSON is reported at once: the server answered,
 * and would answer the same again.
 */
export const request = <Expect extends "json" | "none">(
  config: Config,
  request: Request,
  policy: Retry.Policy,
  expect: Expect
): Effect.Effect<Expect extends "json" ? Body : null, ClientError.RequestError> =>
  retrying(request, policy, (attempts) =>
    Effect.scoped(Effect.gen(function*() {
      yield* Ref.update(attempts, (n) => n + 1)
      const response = yield* send(config, request, false, request.body)
      if (!isOk(response.status)) return yield* statusFailure(config, request, response)
      if (expect === "none") return null
      const contentType = response.headers["content-type"]
      const bytes = yield* readBody(response, config.maxResponseBytes).pipe(
        Effect.catchTags({
          TooLarge: (e) => Effect.fail(tooLarge(config, request, e)),
          ResponseError: (e) => Effect.fail(fromClientError(request, e))
        })
      )
      const text = decoder().decode(bytes)
      const json = yield* parseJson(request, text, contentType)
      const body: Body = { json, contentType, excerpt: text.slice(0, excerptChars) }
      return body
    })).pipe(
      // Interruptible even where the caller is not (a scope's acquire or release), so that the
      // deadline can end the attempt. The timeout runs it in a fiber of its own, which an
      // interruption of the caller (whose finalizers may be sending this very request) does not reach.
      Effect.interruptible,
      Effect.timeoutFail({
        duration: config.requestTimeout,
        onTimeout: () =>
          new Lost({
            reason: `no complete answer within ${Duration.format(config.requestTimeout)} (requestTimeout)`,
            progressed: false,
            sent: true
          })
      }),
      Effect.catchTag("Lost", (lost) => Effect.fail(retryableLost(request, lost)))
    )) as Effect.Effect<Expect extends "json" ? Body : null, ClientError.RequestError>

// -----------------------------------------------------------------------------
// event streams
// -----------------------------------------------------------------------------

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
  /** Give up after this long in total (an infinite duration: never). */
  readonly timeout: Duration.Duration
  /** The option that sets `timeout`, named in the error. */
  readonly timeoutOption: string
}

/** The end of a stream: the joined `chunk` and `end` data as JSON (`null` when empty), and the last `task_id`. */
export interface StreamResult {
  readonly value: unknown
  readonly taskId: string | undefined
  readonly contentType: string | undefined
  /** The first characters of the joined data. */
  readonly excerpt: string
}

/** What one attempt of a stream saw, for the decision whether it made progress. */
interface Attempt {
  readonly connectedAt: number
  lastDataAt: number
  /** The attempt brought the first `task_id` of the operation. */
  firstTaskId: boolean
  events: number
  head: Uint8Array
}

const isEventStream = (contentType: string | undefined) =>
  contentType !== undefined && contentType.toLowerCase().split(";")[0]!.trim() === "text/event-stream"

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

    /** A connection lost mid-stream: progress if it brought a first task_id or stayed up for a heartbeat. */
    const cut = (state: Attempt, reason: string) =>
      new Lost({
        reason,
        progressed: (options.resume && state.firstTaskId) ||
          state.lastDataAt - state.connectedAt >= Duration.toMillis(config.heartbeat),
        sent: true
      })

    const attempt = (attempts: Ref.Ref<number>) =>
      Effect.scoped(Effect.gen(function*() {
        yield* Ref.update(attempts, (n) => n + 1)
        const id = yield* Ref.get(taskId)
        const body = options.resume && id !== undefined ? { ...request.body, task_id: id } : request.body ?? {}
        const response = yield* send(config, request, true, body).pipe(
          Effect.timeoutFail({
            duration: config.heartbeat,
            onTimeout: () =>
              new Lost({
                reason: `no answer for ${Duration.format(config.heartbeat)} (heartbeatTimeout)`,
                progressed: false,
                sent: true
              })
          })
        )
        if (!isOk(response.status)) return yield* statusFailure(config, request, response)
        const contentType = response.headers["content-type"]
        const now = yield* Clock.currentTimeMillis
        const state: Attempt = {
          connectedAt: now,
          lastDataAt: now,
          firstTaskId: false,
          events: 0,
          head: new Uint8Array(0)
        }
        const bytes = response.stream.pipe(
          Stream.tap((chunk) =>
            Effect.map(Clock.currentTimeMillis, (t) => {
              state.lastDataAt = t
              if (state.head.length < excerptChars * 4) {
                state.head = concat([state.head, chunk], state.head.length + chunk.length)
              }
            })
          ),
          Stream.timeoutFailCause(
            () =>
              Cause.fail(
                new Lost({ reason: `no data for ${Duration.format(config.heartbeat)}`, progressed: false, sent: true })
              ),
            config.heartbeat
          )
        )
        let size = 0
        const chunks: Array<string> = []
        let last: Sse.Event | undefined
        yield* Sse.events(bytes, { maxEventSize: config.maxResponseBytes }).pipe(
          Stream.tap((event) => {
            state.events++
            if (event.event !== "task_id") return Effect.void
            return Ref.modify(taskId, (previous) => {
              if (previous === undefined) state.firstTaskId = true
              return [undefined, event.data.trim()]
            })
          }),
          Stream.filter((event) => event.event === "chunk" || event.event === "end" || event.event === "error"),
          Stream.takeUntil((event) => event.event !== "chunk"),
          Stream.runForEach((event): Effect.Effect<void, TooLarge> => {
            size += event.data.length
            if (size > config.maxResponseBytes) return Effect.fail(new TooLarge({ contentType }))
            chunks.push(event.data)
            last = event
            return Effect.void
          }),
          Effect.catchAll((e): Effect.Effect<never, Lost | ClientError.MalformedResponse> => {
            switch (e._tag) {
              case "Lost":
                return Effect.fail(cut(state, e.reason))
              case "TooLarge":
                return Effect.fail(tooLarge(config, request, e))
              case "Invalid":
                return Effect.fail(malformed(request, e.reason, { contentType, excerpt: excerptOf(state.head) }))
              case "ResponseError":
                return Effect.fail(cut(state, `connection lost: ${describe(e.cause ?? e.description)}`))
            }
          })
        )
        if (last === undefined) {
          if (state.events === 0 && !isEventStream(contentType)) {
            return yield* malformed(request, "not an event stream", { contentType, excerpt: excerptOf(state.head) })
          }
          return yield* cut(state, "the stream ended before its end event")
        }
        if (last.event === "error") {
          return yield* new Remote({ detail: last.data === "" ? "Unknown SSE error" : last.data })
        }
        const joined = chunks.join("")
        const excerpt = joined.slice(0, excerptChars)
        const value = joined === "" ? null : yield* parseJson(request, joined, contentType)
        const result: StreamResult = { value, taskId: yield* Ref.get(taskId), contentType, excerpt }
        return result
      })).pipe(Effect.catchTag("Lost", lost))

    // Interruptible even where the caller is not (a scope's acquire or release), so that the
    // deadlines can end it; the overall timeout runs it in a fiber of its own (an infinite one never
    // fires), which an interruption of the caller does not reach unless the caller can be interrupted.
    const timeout = options.timeout
    return Effect.timeoutFail(Effect.interruptible(retrying(request, policy, attempt)), {
      duration: timeout,
      onTimeout: () => transportError(request, `timed out after ${Duration.format(timeout)} (${options.timeoutOption})`)
    })
  })
