/**
 * `npm run bench`: encode and decode throughput of every provider codec, side by side with a
 * hand-written plain-object converter doing the same mapping and with the Vercel AI SDK's
 * converters, for conversations of 1, 100 and 10,000 turns, in one run.
 *
 * Each format is measured in its own child process (one after the other, never in parallel), so
 * that the JIT state and the heap one format leaves behind do not colour the next one's figures;
 * this process then prints every table.
 *
 * Flags (all optional):
 *
 * - `--formats=openai,google` measure only these formats;
 * - `--sizes=100,10000` measure only these conversation sizes (turns);
 * - `--quick` few, short samples: a smoke run (figures are not reliable);
 * - `--no-memory` skip the heap measurements;
 * - `--baseline=DIR` measure another build of the codecs side by side with ours (`DIR/Format.js`: an
 *   earlier commit's compiled `dist/`), in the same rounds, and print ours over it;
 * - `--ours=DIR` measure our codecs from a compiled build (`DIR/Format.js`) instead of `src/` run
 *   through tsx (which wraps named functions; a build compiled by tsc, as published, does not).
 *
 * Method, machine and figures: docs/performance.md.
 */
import { fork } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as Format from "../src/Format.js"
import * as OpenAiFormat from "../src/OpenAiFormat.js"
import * as OpenRouterFormat from "../src/OpenRouterFormat.js"
import * as Provider from "../src/Provider.js"
import type * as Harness from "./internal/harness.js"
import * as Measure from "./internal/measure.js"
import * as PlainAnthropic from "./internal/plain/anthropic.js"
import * as PlainGoogle from "./internal/plain/google.js"
import * as PlainOpenAi from "./internal/plain/openAi.js"
import * as Summary from "./internal/summary.js"

const plain: { readonly [P in Provider.Provider]: Measure.Subject["plain"] } = {
  openai: PlainOpenAi,
  openrouter: PlainOpenAi,
  anthropic: PlainAnthropic,
  google: PlainGoogle
}

const flag = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)

const provider = (name: string): Provider.Provider => {
  if (!Provider.isProvider(name)) throw new Error(`unknown format ${name}; expected one of ${Provider.all.join(", ")}`)
  return name
}

const formats = (flag("formats")?.split(",") ?? Provider.all).map(provider)

const sizes = (flag("sizes")?.split(",") ?? ["1", "100", "10000"]).map((text) => {
  const n = Number(text)
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`bad size ${text}`)
  return n
}).sort((a, b) => a - b)

const quick = process.argv.includes("--quick")

// Samples of large conversations last long enough to take in several garbage collections, so that
// each variant pays for its own garbage (a 10k-turn output is megabytes of objects).
const timing = (turns: number): Harness.Options =>
  quick
    ? { samples: 5, sampleMs: 5, warmupMs: 20 }
    : turns >= 1000
    ? { samples: 9, sampleMs: 100, warmupMs: 200 }
    : { samples: 15, sampleMs: 20, warmupMs: 100 }

const settings: Measure.Settings = { sizes, timing, memory: !process.argv.includes("--no-memory") }

const child = flag("child")

type Codecs = typeof Format.codecs

const load = async (dir: string | undefined): Promise<Codecs | undefined> =>
  dir === undefined
    ? undefined
    : ((await import(pathToFileURL(path.resolve(dir, "Format.js")).href)) as typeof Format).codecs

if (child !== undefined) {
  // A child: measure one format and send the result to the parent.
  const name = provider(child)
  const ours = (await load(flag("ours"))) ?? Format.codecs
  const before = await load(flag("baseline"))
  const result = await Measure.measureFormat(
    {
      provider: name,
      // Google has no input representation for plain-text reasoning (the codec rejects it).
      shape: { reasoning: name !== "google" },
      ours: ours[name],
      ...(before === undefined ? {} : { before: before[name] }),
      plain: plain[name],
      ...(name === "openai"
        ? { optIn: { label: "toolArguments: json", encode: (c) => OpenAiFormat.encode(c, { toolArguments: "json" }) } }
        : name === "openrouter"
        ? {
          optIn: { label: "toolArguments: json", encode: (c) => OpenRouterFormat.encode(c, { toolArguments: "json" }) }
        }
        : {})
    },
    settings,
    (turns) => console.log(`  ${name}: ${turns} turns measured`)
  )
  process.send?.(result)
} else {
  const started = Date.now()
  console.log(`codec benchmark: ${formats.join(", ")}; turns ${sizes.join(", ")}`)
  if (flag("ours") !== undefined) console.log(`ours: ${path.resolve(flag("ours")!)}`)
  if (flag("baseline") !== undefined) console.log(`baseline: ${path.resolve(flag("baseline")!)}`)
  console.log(Summary.machine())
  for (const turns of sizes) {
    const t = timing(turns)
    console.log(
      `timing @${turns} turns: ${t.samples} interleaved rounds, samples of >= ${t.sampleMs} ms, ` +
        `${t.warmupMs} ms warm-up per variant`
    )
  }
  console.log("")
  const results: Array<Measure.Result> = []
  for (const name of formats) {
    console.log(`measuring ${name} in a child process ...`)
    results.push(
      await new Promise<Measure.Result>((resolve, reject) => {
        let result: Measure.Result | undefined
        const worker = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), `--child=${name}`])
        worker.on("message", (message) => {
          result = message as Measure.Result
        })
        worker.on("error", reject)
        worker.on("exit", (code) =>
          result !== undefined && code === 0
            ? resolve(result)
            : reject(new Error(`measuring ${name} failed (exit code ${code})`)))
      })
    )
    console.log(`  done (${((Date.now() - started) / 1000).toFixed(0)} s)`)
  }
  console.log("")
  Summary.print(results, sizes)
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`)
}
