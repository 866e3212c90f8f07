/**
 * Serving environments over the OpenReward HTTP protocol, wire-compatible with the reference
 * server (openreward 0.1.167): the reference's Python client, and this library's client, talk to
 * it unchanged.
 *
 * - {@link layer} serves environments on whatever `HttpServer` it is given (platform-agnostic).
 * - {@link serve} listens on `{ port, host }` (default `0.0.0.0:8080`) through a {@link Listener},
 *   the one platform-specific piece, which the program provides.
 * - {@link make} builds the `HttpApp` itself, for mounting in a larger application.
 *
 * The first environment is the default: a path whose first segment is neither a server route nor
 * an environment is redirected (308) under it, so `/tools` means `/<first>/tools`.
 *
 * Sessions end when a client deletes them, after 15 minutes without a ping or session request,
 * and when the server shuts down; every way runs the environment's teardown (the finalizers of
 * its `setup` scope).
 *
 * @example
 * ```ts no-run
 * import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
 * import * as Server from "openreward-effect/Server"
 * import * as Layer from "effect/Layer"
 * import { createServer } from "node:http"
 * import { environments } from "./my-environments.js"
 *
 * Server.serve(environments, { port: 8080 }).pipe(
 *   Layer.provide(
 *     Server.layerListener((address) => NodeHttpServer.layer(() => Server.withClientErrors(createServer()), address))
 *   ),
 *   Layer.launch,
 *   NodeRuntime.runMain
 * )
 * ```
 *
 * @since 0.1.0
 */
import * as Headers from "@effect/platform/Headers"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import type * as Http from "node:http"
import * as Environment from "./Environment.js"
import * as App from "./internal/server/app.js"
import * as ClientError from "./internal/server/clientError.js"
import * as Compiled from "./internal/server/compiled.js"
import * as RouteKey from "./internal/server/routeKey.js"

/**
 * The reference SDK version whose protocol this server speaks, reported by `/version`.
 *
 * @category constants
 * @since 0.1.0
 */
export const protocolVersion = "0.1.167"

/**
 * Request headers that carry credentials of this protocol: `X-Secrets` (base64 of the session's
 * secrets) and `X-Session-ID` (all a client needs to act on a session), with `X-API-Key`,
 * `Authorization`, `Cookie` and `Set-Cookie`. {@link layer} adds them to the platform's
 * `Headers.currentRedactedNames` for the requests it serves, so a traced request's span
 * (`tracing: true`) and a logged `Headers` show them as `<redacted>`. An application that mounts
 * {@link make} in its own server adds them there:
 * `Effect.locallyWith(Headers.currentRedactedNames, (names) => [...names, ...Server.redactedHeaders])`.
 *
 * @category constants
 * @since 0.1.0
 */
export const redactedHeaders: ReadonlyArray<string> = [
  "x-secrets",
  "x-session-id",
  "x-api-key",
  "authorization",
  "cookie",
  "set-cookie"
]

/**
 * Server settings. Every one has the reference's value by default.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  /** The largest request body accepted, in bytes; larger ones get 413 (default 32 MiB). */
  readonly maxBodySize?: number | undefined
  /**
   * How deeply a JSON body may nest arrays and objects; deeper ones get 400 "There was an error
   * parsing the body", as the reference answers input nested deeper than its parser goes (default
   * 512; the reference's parser stops near 10,000, but a JavaScript stack walking input that deep
   * through Schemas does not hold).
   */
  readonly maxDepth?: number | undefined
  /** How long a session may go without a ping or session request before it is ended (default 900 s). */
  readonly idleTimeout?: Duration.DurationInput | undefined
  /** How often idle sessions and finished call results are swept (default 5 s). */
  readonly reaperInterval?: Duration.DurationInput | undefined
  /** How long a session request waits for `setup` before answering 503 "still starting" (default 25 s). */
  readonly setupWaitTimeout?: Duration.DurationInput | undefined
  /** How often a pending call's stream carries a keep-alive comment (default 10 s). */
  readonly keepAliveInterval?: Duration.DurationInput | undefined
  /** How long a finished call's result stays available to re-attach to (default 60 s). */
  readonly resultLinger?: Duration.DurationInput | undefined
  /**
   * How much an unexpected failure's 500 reveals: nothing (`"none"`), `"Type: message"`
   * (`"exception"`, the default) or the full cause (`"stacktrace"`). Secrets are redacted in all.
   */
  readonly returnErrors?: "none" | "exception" | "stacktrace" | undefined
  /** The `version` `/version` reports (default {@link protocolVersion}). */
  readonly version?: string | undefined
  /** Trace every request with a span, as `@effect/platform` does by default (default off). */
  readonly tracing?: boolean | undefined
  /**
   * This replica's route key, when several replicas serve behind one proxy: session ids are minted
   * as `<routeKey>.<uuid>` so the proxy can send each session's requests to the replica that holds
   * it, and an unknown id carrying the key answers 410 instead of 404 (docs/deploying.md). One to
   * 64 letters, digits, `_` or `-`. Default: the `OPENREWARD_ROUTE_KEY` environment variable, else
   * none (bare uuids, as the reference mints).
   */
  readonly routeKey?: string | undefined
  /**
   * How long shutdown waits for running tool calls to finish (default 30 s). Meanwhile `/health`
   * answers 503 `draining`, new sessions get 503 and new calls 410; then every session is ended.
   */
  readonly drainTimeout?: Duration.DurationInput | undefined
  /**
   * The most sessions the server holds at once (default 10,000). A `/create` past it answers 503
   * with `Retry-After: 5`; a session frees its place when it ends (deleted, idle, or shutdown).
   * Sessions live in memory, so this bounds it: the server's own share is about 14 KB a session,
   * and what `setup` builds comes on top (docs/deploying.md, "Limits").
   */
  readonly maxSessions?: number | undefined
  /**
   * The most sessions one client address holds at once (default 2,500, a quarter of the default
   * `maxSessions`): one client cannot take every place. Behind a proxy every request comes from
   * the proxy's address, so set {@link trustedProxies}, or raise this to `maxSessions`.
   */
  readonly maxSessionsPerClient?: number | undefined
  /**
   * How many proxies in front of the server append the address they received a request from to
   * `X-Forwarded-For` (default 0: the header is ignored, and the client is the connection's
   * address). With `n`, the client is the `n`-th address from the right, counting the
   * connection's own; what a client wrote into the header itself is never read. Set it only when
   * every request comes through those proxies (the server listens where only they reach it).
   */
  readonly trustedProxies?: number | undefined
}

/**
 * The default of {@link Options.maxSessions}.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxSessions = 10_000

/**
 * The default of {@link Options.maxSessionsPerClient}.
 *
 * @category constants
 * @since 0.1.0
 */
export const defaultMaxSessionsPerClient = 2_500

const millis = (input: Duration.DurationInput | undefined, fallback: Duration.DurationInput): number =>
  Duration.toMillis(Duration.decode(input ?? fallback))

const optionalConfig = (name: string): Effect.Effect<Option.Option<string>> =>
  Effect.orElseSucceed(Config.option(Config.string(name)), () => Option.none<string>())

/** The route key: from the options, else `OPENREWARD_ROUTE_KEY`; checked. */
const routeKeyOf = (options: Options | undefined): Effect.Effect<string | null, Environment.InvalidDefinition> =>
  Effect.flatMap(
    options?.routeKey !== undefined
      ? Effect.succeed(Option.some(options.routeKey))
      : optionalConfig("OPENREWARD_ROUTE_KEY"),
    (routeKey) =>
      Option.isSome(routeKey) && !RouteKey.pattern.test(routeKey.value)
        ? Effect.fail(
          new Environment.InvalidDefinition({
            environment: null,
            reason: `routeKey must be ${RouteKey.rule}; got ${JSON.stringify(routeKey.value)}`
          })
        )
        : Effect.succeed(Option.getOrNull(routeKey))
  )

/** A count option: a whole number, at least `min`. */
const countOf = (
  name: string,
  value: number | undefined,
  fallback: number,
  min: number
): Effect.Effect<number, Environment.InvalidDefinition> =>
  value === undefined
    ? Effect.succeed(fallback)
    : Number.isSafeInteger(value) && value >= min
    ? Effect.succeed(value)
    : Effect.fail(
      new Environment.InvalidDefinition({
        environment: null,
        reason: `${name} must be a whole number, at least ${min}; got ${String(value)}`
      })
    )

const settingsOf = (options: Options | undefined): Effect.Effect<App.Settings, Environment.InvalidDefinition> =>
  Effect.map(
    Effect.all([
      optionalConfig("OPENREWARD_BUILD_SHA"),
      routeKeyOf(options),
      countOf("maxSessions", options?.maxSessions, defaultMaxSessions, 1),
      countOf("maxSessionsPerClient", options?.maxSessionsPerClient, defaultMaxSessionsPerClient, 1),
      countOf("trustedProxies", options?.trustedProxies, 0, 0)
    ]),
    ([buildSha, routeKey, maxSessions, maxSessionsPerClient, trustedProxies]) => ({
      maxBodySize: options?.maxBodySize ?? 32 * 1024 * 1024,
      maxDepth: options?.maxDepth ?? 512,
      idleTimeout: millis(options?.idleTimeout, "900 seconds"),
      reaperInterval: millis(options?.reaperInterval, "5 seconds"),
      setupWaitTimeout: millis(options?.setupWaitTimeout, "25 seconds"),
      keepAliveInterval: millis(options?.keepAliveInterval, "10 seconds"),
      resultLinger: millis(options?.resultLinger, "60 seconds"),
      returnErrors: options?.returnErrors ?? "exception",
      version: options?.version ?? protocolVersion,
      buildSha: Option.getOrNull(buildSha),
      routeKey,
      drainTimeout: millis(options?.drainTimeout, "30 seconds"),
      maxSessions,
      maxSessionsPerClient,
      trustedProxies
    })
  )

/**
 * Check a set of environments can be served together: at least one, each valid, no two with one
 * (lower-cased) name.
 *
 * @category validation
 * @since 0.1.0
 */
export const validate = <const Envs extends ReadonlyArray<Environment.Any>>(
  environments: Envs
): Either.Either<Envs, Environment.InvalidDefinition> => {
  if (environments.length === 0) {
    return Either.left(
      new Environment.InvalidDefinition({
        environment: null,
        reason: "Server requires at least one environment to be provided."
      })
    )
  }
  const seen = new Set<string>()
  for (const env of environments) {
    if (!Environment.isEnvironment(env)) {
      return Either.left(
        new Environment.InvalidDefinition({
          environment: null,
          reason: "Server was given something that is not an environment."
        })
      )
    }
    const checked = Environment.validate(env)
    if (Either.isLeft(checked)) return Either.left(checked.left)
    const key = Environment.key(env)
    if (seen.has(key)) {
      return Either.left(new Environment.InvalidDefinition({ environment: null, reason: `duplicate env ${key}` }))
    }
    seen.add(key)
  }
  return Either.right(environments)
}

/**
 * The services a set of environments needs.
 *
 * @category type-level
 * @since 0.1.0
 */
export type Requirements<Envs extends ReadonlyArray<Environment.Any>> = Environment.Context<Envs[number]>

/**
 * Build the HTTP application serving `environments`. Its sessions live in the surrounding scope:
 * closing it drains the application (see {@link Options.drainTimeout}), then ends every session
 * (running every teardown).
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = <const Envs extends ReadonlyArray<Environment.Any>>(
  environments: Envs,
  options?: Options
): Effect.Effect<HttpApp.Default<never, Requirements<Envs>>, Environment.InvalidDefinition, Scope.Scope> =>
  Effect.gen(function*() {
    const valid = yield* validate(environments)
    const settings = yield* settingsOf(options)
    const services = yield* Layer.build(App.services(settings))
    const app = yield* Effect.provide(App.make(valid.map(Compiled.compile), settings), services)
    return app as HttpApp.Default<never, Requirements<Envs>>
  })

/**
 * Serve `environments` on the `HttpServer` the layer is given. When the layer is released (the
 * program is interrupted, as `NodeRuntime.runMain` does on SIGTERM and SIGINT) the server drains
 * first (see {@link Options.drainTimeout}), then ends every session, then stops serving.
 *
 * @category layers
 * @since 0.1.0
 */
export const layer = <const Envs extends ReadonlyArray<Environment.Any>>(
  environments: Envs,
  options?: Options
): Layer.Layer<never, Environment.InvalidDefinition, HttpServer.HttpServer | Requirements<Envs>> =>
  Layer.scopedDiscard(
    Effect.gen(function*() {
      // The sessions live in their own scope, closed (drain, then teardown) before serving stops, so
      // that running calls deliver their results and requests meanwhile are answered, not cut off.
      const sessions = yield* Scope.make()
      yield* Effect.addFinalizer((exit) => Scope.close(sessions, exit)) // if serving failed to start
      const app = yield* make(environments, options).pipe(Scope.extend(sessions))
      const serve = HttpServer.serveEffect(app).pipe(
        Effect.locallyWith(Headers.currentRedactedNames, (names) => [...names, ...redactedHeaders])
      )
      yield* options?.tracing === true ? serve : HttpMiddleware.withTracerDisabledWhenEffect(serve, () => true)
      yield* Effect.addFinalizer(() => Scope.close(sessions, Exit.void))
    })
  )

/**
 * Where to listen.
 *
 * @category models
 * @since 0.1.0
 */
export interface Address {
  readonly port: number
  readonly host: string
}

/**
 * How the program listens on an address: the platform's `HttpServer` layer for it. This is the one
 * platform-specific piece, so it is a service the program provides, with Node:
 * `Server.layerListener((address) => NodeHttpServer.layer(() => Server.withClientErrors(createServer()), address))`.
 *
 * @category services
 * @since 0.1.0
 */
export class Listener extends Context.Tag("openreward-effect/Server/Listener")<Listener, Listener.Service>() {}

/**
 * @since 0.1.0
 */
export declare namespace Listener {
  /**
   * @category models
   * @since 0.1.0
   */
  export interface Service {
    readonly listen: (address: Address) => Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError>
  }
}

/**
 * Provide a {@link Listener}.
 *
 * @category layers
 * @since 0.1.0
 */
export const layerListener = (
  listen: (address: Address) => Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError>
): Layer.Layer<Listener> => Layer.succeed(Listener, { listen })

/**
 * Settings of {@link withClientErrors}.
 *
 * @category node
 * @since 0.1.0
 */
export interface NodeOptions {
  /**
   * How long `close` lets the answers in flight finish before it closes every connection left
   * (default 5 s). It runs once the sessions have ended, so what is left is short answers, and
   * clients that never finish a request or never read an answer.
   */
  readonly closeTimeout?: Duration.DurationInput | undefined
}

/**
 * Hold a Node HTTP server to what its clients leave behind. Give it the server the platform layer
 * listens with: `NodeHttpServer.layer(() => Server.withClientErrors(createServer()), address)`.
 *
 * - A request Node's parser refuses (a `Content-Length` shorter than the body, a malformed request
 *   line, oversized headers or chunk extensions, a request not read whole within the server's
 *   `requestTimeout`) is answered as this server answers everything, a status with a JSON
 *   `{"detail": ...}` (400 "Invalid HTTP request received.", as uvicorn says; 408, 413, 431), after
 *   the answer to the request before it, instead of Node's bare status over that answer; then the
 *   connection is closed.
 * - A connection whose request body never completes is closed: by the request timeout, and at
 *   once when the client goes away. Nothing waits on it.
 * - A request that arrives when nothing serves (after serving stopped, on a connection kept alive
 *   from before) is answered 503 and its connection closed.
 * - `close` finishes whatever the clients do: connections are closed as they go idle, a request
 *   still arriving is answered 503 and closed, and after {@link NodeOptions.closeTimeout} every
 *   connection left is closed. (Node alone closes idle connections once and stops enforcing its
 *   request timeouts, so one client that never finishes its request keeps it open for good.)
 *
 * Node checks its request timeouts every `connectionsCheckingInterval` (30 s by default): set it
 * with a shorter `requestTimeout` (`createServer({ requestTimeout: 10_000, connectionsCheckingInterval: 1_000 })`).
 *
 * @category node
 * @since 0.1.0
 */
export const withClientErrors = <S extends Http.Server>(server: S, options?: NodeOptions): S =>
  ClientError.harden(server, { closeTimeout: millis(options?.closeTimeout, "5 seconds") })

/**
 * Listen on `port` (default 8080) and `host` (default `0.0.0.0`, every interface, as the reference
 * listens) and serve `environments`. The server has no authentication, as the reference's has none:
 * whoever reaches the port can create sessions and run tools. Listen on loopback behind a proxy that
 * checks a key unless everyone who can reach it may use it (docs/deploying.md).
 *
 * @category layers
 * @since 0.1.0
 */
export const serve = <const Envs extends ReadonlyArray<Environment.Any>>(
  environments: Envs,
  options?: Options & { readonly port?: number | undefined; readonly host?: string | undefined }
): Layer.Layer<never, Environment.InvalidDefinition | HttpServerError.ServeError, Listener | Requirements<Envs>> =>
  Layer.unwrapEffect(
    Effect.map(Listener, (listener) =>
      layer(environments, options).pipe(
        Layer.provide(listener.listen({ port: options?.port ?? 8080, host: options?.host ?? "0.0.0.0" }))
      ))
  )
