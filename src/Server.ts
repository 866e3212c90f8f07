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
import * as Replica from "./internal/server/replica.js"

/**
 * The reference SDK version whose protocol this server speaks, reported by `/version`.
 *
 * @category constants
 * @since 0.1.0
 */
export const protocolVersion = "0.1.167"

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
   * it (docs/deploying.md). One to 64 letters, digits, `_` or `-`. Default: the
   * `OPENREWARD_ROUTE_KEY` environment variable, else none (bare uuids, as the reference mints).
   */
  readonly routeKey?: string | undefined
  /**
   * How long shutdown waits for running tool calls to finish (default 30 s). Meanwhile `/health`
   * answers 503 `draining`, new sessions get 503 and new calls 410; then every session is torn down.
   */
  readonly drainTimeout?: Duration.DurationInput | undefined
}

const millis = (input: Duration.DurationInput | undefined, fallback: Duration.DurationInput): number =>
  Duration.toMillis(Duration.decode(input ?? fallback))

const optionalEnv = (name: string): Effect.Effect<Option.Option<string>> =>
  Effect.orElseSucceed(Config.option(Config.string(name)), () => Option.none<string>())

const settingsOf = (options: Options | undefined): Effect.Effect<App.Settings, Environment.InvalidDefinition> =>
  Effect.gen(function*() {
    const buildSha = yield* optionalEnv("OPENREWARD_BUILD_SHA")
    const routeKey = options?.routeKey !== undefined
      ? Option.some(options.routeKey)
      : yield* optionalEnv("OPENREWARD_ROUTE_KEY")
    if (Option.isSome(routeKey) && !Replica.routeKeyPattern.test(routeKey.value)) {
      return yield* new Environment.InvalidDefinition({
        environment: null,
        reason: "routeKey must be 1 to 64 letters, digits, '_' or '-'"
      })
    }
    return {
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
      routeKey: Option.getOrNull(routeKey),
      drainTimeout: millis(options?.drainTimeout, "30 seconds")
    }
  })

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
 * closing it ends them all (running every teardown).
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
 * first (see {@link Options.drainTimeout}), then tears every session down, then stops serving.
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
      const valid = yield* validate(environments)
      const settings = yield* settingsOf(options)
      // The services (and so the sessions) live in their own scope, closed after the drain and
      // before serving stops, so that requests arriving during the teardown are still answered
      // (503), not left hanging.
      const sessions = yield* Scope.make()
      yield* Effect.addFinalizer(() => Scope.close(sessions, Exit.void)) // if serving failed to start
      const services = yield* Layer.buildWithScope(App.services(settings), sessions)
      const app = yield* Effect.provide(App.make(valid.map(Compiled.compile), settings), services)
      const serve = HttpServer.serveEffect(app as HttpApp.Default<never, Requirements<Envs>>)
      yield* options?.tracing === true ? serve : HttpMiddleware.withTracerDisabledWhenEffect(serve, () => true)
      const replica = Context.get(services, Replica.Replica)
      yield* Effect.addFinalizer(() => Effect.zipRight(replica.drain(), Scope.close(sessions, Exit.void)))
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
 * Make a Node HTTP server answer the requests its parser refuses (a `Content-Length` shorter than
 * the body, a malformed request line, oversized headers) as this server answers everything, a
 * status with a JSON `{"detail": ...}` (400 "Invalid HTTP request received.", as uvicorn says),
 * after the answer to the request before them, instead of Node's bare 400 over that answer. Give
 * it the server the platform layer listens with:
 * `NodeHttpServer.layer(() => Server.withClientErrors(createServer()), address)`.
 *
 * @category node
 * @since 0.1.0
 */
export const withClientErrors = <S extends Http.Server>(server: S): S => {
  server.on("clientError", ClientError.listener)
  return server
}

/**
 * Listen on `port` (default 8080) and `host` (default `0.0.0.0`) and serve `environments`.
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
