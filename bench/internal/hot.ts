/**
 * A profiling target: run one of our codecs (or the hand-written converter) on one generated
 * conversation in a loop, so that a CPU profile shows only that work.
 *
 * ```sh
 * npx esbuild bench/internal/hot.ts --bundle --platform=node --format=esm --packages=external \
 *   --outfile=tmp/hot.mjs
 * node --cpu-prof --cpu-prof-dir=tmp/prof tmp/hot.mjs openai decode 10000 [ours|plain] [seconds]
 * npx tsx bench/internal/profile.ts tmp/prof/<file>.cpuprofile 30
 * ```
 *
 * (Bundling keeps function names and line numbers readable in the profile; under `tsx` every
 * function of a transformed file reports line 1.)
 */
import * as Either from "effect/Either"
import * as Format from "../../src/Format.js"
import * as Provider from "../../src/Provider.js"
import * as Generate from "./generate.js"
import * as PlainAnthropic from "./plain/anthropic.js"
import * as PlainGoogle from "./plain/google.js"
import * as PlainOpenAi from "./plain/openAi.js"

const [format = "openai", direction = "encode", turnsText = "10000", who = "ours", secondsText = "5"] = process.argv
  .slice(2)
if (!Provider.isProvider(format)) throw new Error(`unknown format ${format}`)
if (direction !== "encode" && direction !== "decode") throw new Error("direction: encode | decode")
const turns = Number(turnsText)
const plain = {
  openai: PlainOpenAi,
  openrouter: { ...PlainOpenAi, decode: (input: unknown) => PlainOpenAi.decode(input, "openrouter") },
  anthropic: PlainAnthropic,
  google: PlainGoogle
}[format]
const codec = Format.codecs[format]

const conversation = Generate.conversation(turns, { reasoning: format !== "google" })
const encoded: Either.Either<unknown, unknown> = codec.encode(conversation)
const wire: unknown = JSON.parse(JSON.stringify(Either.getOrThrow(encoded)))
const run: () => unknown = who === "plain"
  ? direction === "encode" ? () => plain.encode(conversation) : () => plain.decode(wire)
  : direction === "encode"
  ? () => codec.encode(conversation)
  : () => codec.decode(wire)

const deadline = performance.now() + Number(secondsText) * 1000
let ops = 0
let sink: unknown
while (performance.now() < deadline) {
  sink = run()
  ops++
}
const ms = (Number(secondsText) * 1000) / ops
console.log(`${who} ${format} ${direction} ${turns} turns: ${ops} ops, ${ms.toFixed(3)} ms/op`, sink === 0 ? "" : "")
