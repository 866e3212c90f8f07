/**
 * `npm run bench`: encode and decode throughput of every provider codec, side by side with a
 * hand-written plain-object converter doing the same mapping and with the Vercel AI SDK's
 * converters, for conversations of 1, 100 and 10,000 turns, in one run.
 *
 * Flags (all optional):
 *
 * - `--formats=openai,google` measure only these formats;
 * - `--sizes=100,10000` measure only these conversation sizes (turns);
 * - `--quick` few, short samples: a smoke run (figures are not reliable);
 * - `--no-memory` skip the heap measurements.
 *
 * Method, machine and figures: docs/performance.md.
 */
import * as Format from "../src/Format.js"
import * as Provider from "../src/Provider.js"
import * as PlainAnthropic from "./internal/plain/anthropic.js"
import * as PlainGoogle from "./internal/plain/google.js"
import * as PlainOpenAi from "./internal/plain/openAi.js"
import { run, type Subject } from "./internal/run.js"

const plain: { readonly [P in Provider.Provider]: Subject["plain"] } = {
  openai: PlainOpenAi,
  openrouter: PlainOpenAi,
  anthropic: PlainAnthropic,
  google: PlainGoogle
}

const flag = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)

const formats = (flag("formats")?.split(",") ?? Provider.all).map((name) => {
  if (!Provider.isProvider(name)) throw new Error(`unknown format ${name}; expected one of ${Provider.all.join(", ")}`)
  return name
})

const sizes = (flag("sizes")?.split(",") ?? ["1", "100", "10000"]).map((text) => {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`bad size ${text}`)
  return n
}).sort((a, b) => a - b)

const quick = process.argv.includes("--quick")

await run(
  formats.map((provider): Subject => ({
    provider,
    // Google has no input representation for plain-text reasoning (the codec rejects it).
    shape: { reasoning: provider !== "google" },
    ours: Format.codecs[provider],
    plain: plain[provider]
  })),
  {
    sizes,
    // Samples of large conversations last long enough to take in several garbage collections, so
    // that each variant pays for its own garbage (a 10k-turn output is megabytes of objects).
    timing: (turns) =>
      quick
        ? { samples: 5, sampleMs: 5, warmupMs: 20 }
        : turns >= 1000
        ? { samples: 9, sampleMs: 100, warmupMs: 200 }
        : { samples: 15, sampleMs: 20, warmupMs: 100 },
    memory: !process.argv.includes("--no-memory")
  }
)
