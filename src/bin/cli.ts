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
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import * as Format from "../Format.js"
import * as Convert from "../internal/cli/convert.js"

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

const root = Command.make("openreward-effect").pipe(
  Command.withDescription("OpenReward conversations and environments, built on Effect"),
  Command.withSubcommands([convert])
)

// `openreward-effect convert ... | head`: the reader went away, which is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0)
  throw error
})

const run = Command.run(root, { name: "openreward-effect", version: "0.1.0" })

run(process.argv).pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: false }))
