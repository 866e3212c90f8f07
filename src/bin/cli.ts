/**
 * The `openreward-effect` command line: `convert` stored transcripts between formats, and `serve`
 * environments over the OpenReward HTTP protocol.
 *
 * In a clone of the repository run it with `npm run cli -- <command> ...`.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { createServer } from "node:http"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as Environment from "../Environment.js"
import * as Format from "../Format.js"
import * as Convert from "../internal/cli/convert.js"
import * as Server from "../Server.js"

const to = Options.choice("to", Format.targets).pipe(
  Options.withDescription("the format to write: a provider, `prompt` (the /prompt flattening) or `canonical`")
)
const from = Options.choice("from", Format.sources).pipe(
  Options.withDefault("canonical" as Format.Source),
  Options.withDescription(
    "the format to read: `canonical` (a JSON array of messages in the OpenReward wire shape, decoded strictly) or a provider's own request shape"
  )
)
const jsonl = Options.boolean("jsonl").pipe(
  Options.withDescription("one conversation per line in, one JSON line per conversation out (streamed, in order)")
)
const file = Args.file({ name: "FILE", exists: "yes" }).pipe(
  Args.withDescription("the input file (default: standard input)"),
  Args.optional
)

const input = (path: Option.Option<string>) =>
  Option.match(path, {
    onNone: () => NodeStream.stdin,
    onSome: (p) => Stream.unwrap(Effect.map(FileSystem.FileSystem, (fs) => fs.stream(p)))
  })

/**
 * Write to stdout and wait for it to drain when its buffer is full, so a slow reader slows us down
 * instead of our memory growing (`NodeSink.stdout` resumes after the last item of a chunk without
 * waiting for `drain`, which with one line per chunk means no backpressure at all).
 */
const writeStdout = (text: string): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (process.stdout.write(text)) resume(Effect.void)
    else process.stdout.once("drain", () => resume(Effect.void))
  })

const convert = Command.make("convert", { to, from, jsonl, file }, (args) =>
  Effect.gen(function*() {
    const options = { from: args.from, to: args.to }
    const bytes = input(args.file)
    const failures = yield* Ref.make(0)
    if (args.jsonl) {
      yield* Convert.convertLines(bytes.pipe(Stream.decodeText(), Stream.splitLines), options).pipe(
        Stream.tap((outcome) =>
          Either.isLeft(outcome)
            ? Ref.update(failures, (n) => n + 1).pipe(Effect.zipRight(Console.error(outcome.left)))
            : Effect.void
        ),
        Stream.filterMap(Either.getRight),
        Stream.runForEach((line) => writeStdout(line + "\n"))
      )
    } else {
      const text = yield* bytes.pipe(Stream.decodeText(), Stream.mkString)
      const outcome = Convert.convertText(text, options, 2)
      if (Either.isLeft(outcome)) {
        yield* Ref.set(failures, 1)
        yield* Console.error(Convert.describeFailure(outcome.left, undefined))
      } else {
        yield* writeStdout(outcome.right + "\n")
      }
    }
    if ((yield* Ref.get(failures)) > 0) {
      yield* Effect.sync(() => {
        process.exitCode = 1
      })
    }
  })).pipe(
    Command.withDescription(
      "Convert conversations between the canonical OpenReward shape, the provider formats and the /prompt flattening. " +
        "Failures go to stderr, one line per failed conversation starting with the error's tag; the exit code is then 1."
    )
  )

// -----------------------------------------------------------------------------
// serve
// -----------------------------------------------------------------------------

class ServeError extends Data.TaggedError("ServeError")<{ readonly message: string }> {}

/**
 * The environments a module exports: its `environments` array if it has one (its order is the serving
 * order, the first is the default), else every exported environment in export order. A module whose
 * environments need services exports `layer`, a Layer that provides them.
 */
const loadModule = (file: string) =>
  Effect.tryPromise({
    try: () => import(pathToFileURL(path.resolve(file)).href) as Promise<Record<string, unknown>>,
    catch: (e) => new ServeError({ message: `cannot load ${file}: ${e instanceof Error ? e.message : String(e)}` })
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

const describe = (error: { readonly message: string; readonly cause?: unknown }): string =>
  error.message !== "" ? error.message : error.cause instanceof Error ? error.cause.message : String(error.cause)

const serve = Command.make(
  "serve",
  {
    module: Args.file({ name: "MODULE", exists: "yes" }).pipe(
      Args.withDescription("a TypeScript or JavaScript module that exports one or more environments")
    ),
    port: Options.integer("port").pipe(
      Options.withDefault(8080),
      Options.withDescription("the port to listen on (0: one the system chooses, printed when serving starts)")
    ),
    host: Options.text("host").pipe(Options.withDefault("0.0.0.0"), Options.withDescription("the address to listen on"))
  },
  (args) =>
    Effect.gen(function*() {
      const { environments, layer } = yield* loadModule(args.module)
      const names = environments.map(Environment.key)
      const ServerLive = Server.layer(environments as ReadonlyArray<Environment.Any>).pipe(
        Layer.provide(layer as Layer.Layer<never>),
        Layer.provideMerge(
          NodeHttpServer.layer(() => Server.withClientErrors(createServer()), { port: args.port, host: args.host })
        ),
        // the address actually bound, so that `--port 0` reports the port the system chose
        Layer.tap((context) => {
          const address = Context.get(context, HttpServer.HttpServer).address
          const where = address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : address.path
          return Console.error(`serving ${names.join(", ")} on ${where}`)
        })
      ) as unknown as Layer.Layer<never, { readonly message: string; readonly cause?: unknown }>
      yield* Layer.launch(ServerLive).pipe(
        Effect.onInterrupt(() => Console.error("shutting down: ending every session"))
      )
    }).pipe(
      Effect.catchAll((error) =>
        Console.error(`error: ${describe(error)}`).pipe(Effect.zipRight(Effect.sync(() => {
          process.exitCode = 1
        })))
      )
    )
).pipe(
  Command.withDescription(
    "Serve the environments a module exports over the OpenReward HTTP protocol (the reference SDK's routes, " +
      "SSE tool calls, sessions). Ctrl-C shuts down gracefully, running every session's teardown."
  )
)

const root = Command.make("openreward-effect").pipe(
  Command.withDescription("OpenReward conversations and environments, built on Effect"),
  Command.withSubcommands([convert, serve])
)

// `openreward-effect convert ... | head`: the reader went away, which is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0)
  throw error
})

const run = Command.run(root, { name: "openreward-effect", version: "0.1.0" })

run(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: false }))
