/**
 * `npm run bench:guard`: the decode guard alone (src/internal/guard.ts), built both ways from the same
 * plan, generated source and closures (what runs where code generation is refused), side by side in
 * interleaved rounds on the valid transcripts `npm run bench` decodes (bench/internal/generate.ts).
 *
 * - `--sizes=1,100` the conversation sizes (turns);
 * - `--baseline=DIR` also the guard of another build (`DIR/internal/guard.js`: an earlier commit's
 *   compiled `dist/`), compiled from the same schemas.
 *
 * Prints a markdown table: the median time of one guard call, and the ratios of throughput.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as AnthropicFormat from "../src/AnthropicFormat.js"
import * as Conversation from "../src/Conversation.js"
import * as Format from "../src/Format.js"
import * as GoogleFormat from "../src/GoogleFormat.js"
import * as Guard from "../src/internal/guard.js"
import * as OpenAiFormat from "../src/OpenAiFormat.js"
import * as Generate from "./internal/generate.js"
import * as Harness from "./internal/harness.js"

const flag = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)

const sizes = (flag("sizes") ?? "1,100").split(",").map(Number)
const baselineDir = flag("baseline")
const baseline = baselineDir === undefined
  ? undefined
  : (await import(pathToFileURL(path.resolve(baselineDir, "internal", "guard.js")).href)) as {
    readonly compile: (schema: Schema.Schema.AnyNoContext, options: Guard.Options) => Guard.Guard
  }

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ")
console.log(`${os.cpus()[0]?.model ?? "unknown cpu"} x ${os.cpus().length}, node ${process.version}, load ${load()}`)
console.log("")
console.log(
  `| schema | turns | source | closures |${baseline === undefined ? "" : " baseline |"} closures / source |${
    baseline === undefined ? "" : " source / baseline |"
  }`
)
console.log(
  `| --- | ---: | ---: | ---: |${baseline === undefined ? "" : " ---: |"} ---: |${
    baseline === undefined ? "" : " ---: |"
  }`
)

const us = (m: Harness.Measurement) => `${(m.median / 1000).toFixed(2)} µs`

for (const turns of sizes) {
  const cases: Array<readonly [string, Schema.Schema.AnyNoContext, unknown, Guard.Options["onExcessProperty"]]> = []
  for (const provider of ["anthropic", "google", "openai"] as const) {
    const conversation = Generate.conversation(turns, { reasoning: provider !== "google" })
    const encoded: Either.Either<unknown, unknown> = Format.codecs[provider].encode(conversation)
    const wire = JSON.parse(JSON.stringify(Either.getOrThrow(encoded)))
    const schema = provider === "anthropic"
      ? AnthropicFormat.Request
      : provider === "google"
      ? GoogleFormat.InputRequest
      : Schema.Array(OpenAiFormat.InputMessage)
    cases.push([provider, schema, wire, "ignore"])
  }
  const conversation = Generate.conversation(turns, { reasoning: true })
  cases.push([
    "canonical",
    Conversation.Conversation,
    JSON.parse(JSON.stringify(Conversation.encode(conversation))),
    "error"
  ])
  for (const [name, schema, wire, onExcessProperty] of cases) {
    const source = Guard.compile(schema, { onExcessProperty }, "source")
    const closures = Guard.compile(schema, { onExcessProperty }, "closures")
    const before = baseline?.compile(schema, { onExcessProperty })
    for (const guard of [source, closures, ...(before === undefined ? [] : [before])]) {
      if (!guard(wire)) throw new Error(`${name}: a guard refuses a valid transcript`)
    }
    const [s, c, b] = await Harness.measure([
      { name: "source", run: () => source(wire) },
      { name: "closures", run: () => closures(wire) },
      ...(before === undefined ? [] : [{ name: "baseline", run: () => before(wire) }])
    ], { samples: 15, sampleMs: 40, warmupMs: 300 })
    console.log(
      `| ${name} | ${turns} | ${us(s!)} | ${us(c!)} |${b === undefined ? "" : ` ${us(b)} |`} ${
        Harness.pairedRatio(s!, c!).toFixed(2)
      }x |${b === undefined ? "" : ` ${Harness.pairedRatio(b, s!).toFixed(2)}x |`}`
    )
  }
}
console.log(
  `\nload ${load()}; "closures / source" and "source / baseline" are throughput ratios (median of paired rounds)`
)
