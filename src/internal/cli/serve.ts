/**
 * `serve`: load a module's environments and serve them over HTTP until interrupted.
 *
 * Its own module, imported only by `serve`, so that the HTTP server and the platform layers cost
 * nothing to `convert`, `--help` or a usage error. The process's lifetime (signals, exit code)
 * belongs to `NodeRuntime.runMain` here.
 *
 * @internal
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fs from "node:fs"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as Environment from "../../Environment.js"
import * as Server from "../../Server.js"
import * as Signals from "./signals.js"

/** What `serve` was asked to do. */
export interface Options {
  readonly module: string
  readonly port: number
  readonly host: string
  readonly routeKey?: string | undefined
  /** Seconds. */
  readonly drainTimeout?: number | undefined
  readonly maxSessions?: number | undefined
  readonly maxSessionsPerClient?: number | undefined
  readonly trustedProxies?: number | undefined
  /** Seconds (0: none). */
  readonly requestTimeout?: number | undefined
}

class ServeError extends Data.TaggedError("ServeError")<{ readonly message: string }> {}

const typeScript = /\.[cm]?tsx?$/

const errorMessage = (e: unknown): string => e instanceof Error ? e.message : String(e)

/**
 * Import a module. A TypeScript module on a Node that cannot strip types (before 22.18) is loaded
 * through tsx when the module's project has it installed; otherwise the error says what to do.
 */
export const importModule = async (file: string): Promise<Record<string, unknown>> => {
  const absolute = path.resolve(file)
  const url = pathToFileURL(absolute).href
  try {
    return await import(url)
  } catch (e) {
    const code = (e as { readonly code?: unknown } | null)?.code
    if (!typeScript.test(file) || code !== "ERR_UNKNOWN_FILE_EXTENSION") throw e
  }
  // tsx's ESM entry (its CommonJS one cannot register the ESM loader), found from the module's project
  let api: string
  try {
    const manifest = createRequire(absolute).resolve("tsx/package.json")
    const exports = (JSON.parse(fs.readFileSync(manifest, "utf8")) as {
      readonly exports?: { readonly "./esm/api"?: { readonly import?: { readonly default?: string } } }
    }).exports
    api = path.join(path.dirname(manifest), exports?.["./esm/api"]?.import?.default ?? "dist/esm/api/index.mjs")
  } catch {
    throw new Error(
      `Node ${process.version} cannot import TypeScript by itself, and tsx is not installed where ${file} is. ` +
        "Either install it in that project (`npm install --save-dev tsx`; serve then uses it), " +
        "run Node 22.18 or later, or compile the module and serve the .js file"
    )
  }
  const tsx = await import(pathToFileURL(api).href) as { readonly register?: () => unknown }
  const register = tsx.register
  if (register === undefined) throw new Error(`the tsx found at ${api} has no register()`)
  register()
  // a new URL: Node keeps the failed attempt's error for the first one
  return await import(`${url}?tsx`)
}

/**
 * The environments a module exports: its `environments` array if it has one (its order is the serving
 * order, the first is the default), else every exported environment in export order. A module whose
 * environments need services exports `layer`, a Layer that provides them.
 */
const loadModule = (file: string) =>
  Effect.tryPromise({
    try: () => importModule(file),
    catch: (e) => new ServeError({ message: `cannot load ${file}: ${errorMessage(e)}` })
  }).pipe(Effect.flatMap((mod) => {
    const listed = Array.isArray(mod["environments"])
      ? mod["environments"] as ReadonlyArray<unknown>
      : Object.values(mod)
    const environments = listed.filter(Environment.isEnvironment)
    if (environments.length === 0) {
      return Effect.fail(
        new ServeError({ message: `${file} exports no environment (export them, or an \`environments\` array)` })
      )
    }
    const layer = Layer.isLayer(mod["layer"]) ? mod["layer"] as Layer.Layer<unknown, unknown, never> : Layer.empty
    return Effect.succeed({ environments, layer })
  }))

/**
 * The Node server: `Server.withClientErrors` answers what the parser refuses, frees connections a
 * client abandons, answers 503 to a request that arrives after serving stopped, and makes `close`
 * finish promptly at shutdown whatever the clients do.
 */
const nodeServer = (requestTimeout: number) => () =>
  Server.withClientErrors(
    createServer({
      requestTimeout: requestTimeout * 1000,
      // Node checks its timeouts this often (30 s by default): a tenth of the timeout, within 1-30 s
      connectionsCheckingInterval: Math.min(30_000, Math.max(1_000, requestTimeout * 100))
    })
  )

const describe = (error: { readonly message: string; readonly cause?: unknown }): string =>
  error.message !== "" ? error.message : error.cause instanceof Error ? error.cause.message : String(error.cause)

/** The `serve` program. */
export const program = (options: Options) =>
  Effect.gen(function*() {
    const { environments, layer } = yield* loadModule(options.module)
    const names = environments.map(Environment.key)
    const ServerLive = Server.layer(environments as ReadonlyArray<Environment.Any>, {
      routeKey: options.routeKey,
      drainTimeout: Duration.seconds(options.drainTimeout ?? 30),
      maxSessions: options.maxSessions,
      maxSessionsPerClient: options.maxSessionsPerClient,
      trustedProxies: options.trustedProxies
    }).pipe(
      Layer.provide(layer as Layer.Layer<never>),
      Layer.provideMerge(
        NodeHttpServer.layer(nodeServer(options.requestTimeout ?? 300), { port: options.port, host: options.host })
      ),
      // the address actually bound, so that `--port 0` reports the port the system chose
      Layer.tap((context) => {
        const address = Context.get(context, HttpServer.HttpServer).address
        const where = address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : address.path
        return Console.error(`serving ${names.join(", ")} on ${where}`)
      })
    ) as unknown as Layer.Layer<never, { readonly message: string; readonly cause?: unknown }>
    yield* Signals.guard
    yield* Layer.launch(ServerLive).pipe(
      Effect.onInterrupt(() => Console.error("shutting down: every session ended"))
    )
  }).pipe(
    Effect.scoped,
    Effect.catchAll((error) =>
      Console.error(`openreward-effect serve: ${describe(error)}`).pipe(Effect.zipRight(Effect.sync(() => {
        process.exitCode = 1
      })))
    )
  )

/** Run `serve` for the life of the process (`runMain` handles SIGINT/SIGTERM and the exit). */
export const run = (options: Options): void =>
  program(options).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: false }))
