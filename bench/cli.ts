/**
 * `npm run bench:cli`: the CLI as a whole process, side by side with a hand-written converter
 * (bench/internal/cliPlain.ts) in one run.
 *
 * - `convert --jsonl` for every `--to` (from canonical) and for every `--from X --to canonical`,
 *   on a generated corpus (10,000 conversations by default), run four ways: the hand-written
 *   converter (compiled, one thread), `node dist/bin/cli.js`, the same with `--jobs N` (worker
 *   threads, N = 2 by default) and `npm run cli`. Throughput (input MB/s), the ratio to the
 *   hand-written converter, and peak RSS (`/usr/bin/time`'s maximum resident set, worker threads
 *   included). Each corpus is written when a direction first needs it and deleted after the last.
 * - Start-up: `--help` and a one-conversation `convert`, whole process, median of several runs.
 * - `--big`: peak RSS on ~1 GB of input for every direction (each direction's corpus repeated, written
 *   to the temporary directory and deleted after).
 *
 * Before anything is timed, every direction's output is checked to be byte for byte the
 * hand-written converter's (`--no-check` skips that: for a 1,000,000-conversation run, where it would
 * double the time). Options: `--conversations=N`, `--runs=N` (timed runs per variant, the median is
 * reported), `--jobs=N` (0: no worker-thread variant), `--no-build` (use dist/ as it is), `--no-npm`,
 * `--big`, `--startup-only`, `--no-startup`, `--only=openai,google,...` (only the directions to those
 * targets or from those sources), `--decode-only` (only `--from X --to canonical`),
 * `--cli=PATH` (another compiled CLI, e.g. an older build, in place of dist/bin/cli.js),
 * `--baseline=PATH` (another compiled CLI, e.g. an earlier commit's `dist/bin/cli.js`, run as one more
 * variant beside ours in every round, with its ratios to the hand-written converter and ours to it),
 * `--baseline-flags=FLAGS` (node flags for the baseline, space-separated: with `--baseline=dist/bin/cli.js`
 * and `--baseline-flags=--disallow-code-generation-from-strings`, our build with its guards as closures).
 */
import { execFileSync, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import ts from "typescript"
import * as Format from "../src/Format.js"
import * as Generate from "./internal/generate.js"

const root = path.resolve(import.meta.dirname, "..")
const argv = process.argv.slice(2)
const option = (name: string, fallback: string) =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback
const conversations = Number(option("conversations", "10000"))
const runs = Number(option("runs", "1"))
const withNpm = !argv.includes("--no-npm")
const jobs = Number(option("jobs", "2"))
const cli = path.resolve(option("cli", path.join(root, "dist", "bin", "cli.js")))
const baselineOption = option("baseline", "")
const baseline = baselineOption === "" ? undefined : path.resolve(baselineOption)
const baselineFlags = option("baseline-flags", "").split(" ").filter((flag) => flag !== "")

// -----------------------------------------------------------------------------
// builds
// -----------------------------------------------------------------------------

if (!argv.includes("--no-build")) {
  process.stderr.write("building dist/ (npm run build) ...\n")
  execFileSync("npm", ["run", "-s", "build"], { cwd: root, stdio: "inherit" })
}

const cache = path.join(root, "node_modules", ".cache", "bench-cli")
const plain = path.join(cache, "cliPlain.js")
{
  const { config } = ts.readConfigFile(path.join(root, "tsconfig.build.json"), ts.sys.readFile)
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root)
  const sources = ["cliPlain.ts", ...fs.readdirSync(path.join(root, "bench/internal/plain")).map((f) => `plain/${f}`)]
  for (const source of sources) {
    const file = path.join(root, "bench/internal", source)
    const { outputText } = ts.transpileModule(fs.readFileSync(file, "utf8"), {
      compilerOptions: { ...options, module: ts.ModuleKind.ES2022, sourceMap: false, declaration: false },
      fileName: file
    })
    const out = path.join(cache, source.replace(/\.ts$/, ".js"))
    fs.mkdirSync(path.dirname(out), { recursive: true })
    fs.writeFileSync(out, outputText)
  }
}

// -----------------------------------------------------------------------------
// corpora
// -----------------------------------------------------------------------------

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openreward-bench-cli-"))
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }))
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(130))

const turnsOf = (i: number) => 1 + ((i * 37) % 40)
const distinct = Array.from({ length: 40 }, (_, k) => k + 1)
const withReasoning = new Map(distinct.map((t) => [t, Generate.conversation(t, { reasoning: true })]))
const withoutReasoning = new Map(distinct.map((t) => [t, Generate.conversation(t, { reasoning: false })]))

const written = new Map<string, string>()
const corpus = (name: string, line: (turns: number) => string): () => string => () => {
  const done = written.get(name)
  if (done !== undefined) return done
  process.stderr.write(`writing ${name}.jsonl (${conversations} conversations) ...\n`)
  const file = path.join(dir, `${name}.jsonl`)
  const lines = new Map(distinct.map((t) => [t, line(t) + "\n"]))
  const fd = fs.openSync(file, "w")
  let batch = ""
  for (let i = 0; i < conversations; i++) {
    batch += lines.get(turnsOf(i))!
    if (batch.length > 1 << 22) {
      fs.writeSync(fd, batch)
      batch = ""
    }
  }
  fs.writeSync(fd, batch)
  fs.closeSync(fd)
  written.set(name, file)
  return file
}
const canonicalJson = (c: typeof withReasoning extends Map<number, infer C> ? C : never) =>
  JSON.stringify(Format.write("canonical", c).pipe((e) => e._tag === "Right" ? e.right : null))
const providerJson = (provider: Format.Source & Format.Target, c: Parameters<typeof canonicalJson>[0]) => {
  const wire = Format.write(provider, c)
  if (wire._tag === "Left") throw new Error(wire.left.message)
  return JSON.stringify(wire.right)
}

const canonical = corpus("canonical", (t) => canonicalJson(withReasoning.get(t)!))
const canonicalNoReasoning = corpus("canonical-google", (t) => canonicalJson(withoutReasoning.get(t)!))
const wires = Object.fromEntries(
  Format.providers.map((p) => [
    p,
    corpus(p, (t) => providerJson(p, (p === "google" ? withoutReasoning : withReasoning).get(t)!))
  ])
) as Record<Format.Source, () => string>

interface Direction {
  readonly from: Format.Source
  readonly to: Format.Target
  /** The corpus, written on first use. */
  readonly file: () => string
}
const directions: Array<Direction> = [
  // openai-responses has no hand-written converter to compare with (it is not a reference format)
  ...Format.targets.filter((to) => to !== "openai-responses").map((to) => ({
    from: "canonical" as const,
    to,
    file: to === "google" ? canonicalNoReasoning : canonical
  })),
  ...Format.providers.map((from) => ({ from, to: "canonical" as const, file: wires[from] }))
]

// -----------------------------------------------------------------------------
// running
// -----------------------------------------------------------------------------

interface Run {
  /** Elapsed (wall-clock) seconds. */
  readonly seconds: number
  /** CPU seconds (user + system): what the run costs, less sensitive than elapsed time to a busy machine. */
  readonly cpu: number
  readonly maxRssMb: number
  readonly code: number
  readonly hash: string
}

/** Run a command under /usr/bin/time; stdout hashed (or thrown away), stdin empty. */
const measure = (command: ReadonlyArray<string>, hashOutput: boolean): Promise<Run> =>
  new Promise((resolve, reject) => {
    const timing = path.join(dir, "time.txt")
    const child = spawn("/usr/bin/time", ["-f", "%e %U %S %M", "-o", timing, ...command], {
      cwd: root,
      stdio: ["ignore", hashOutput ? "pipe" : fs.openSync("/dev/null", "w"), "pipe"]
    })
    const hash = createHash("sha256")
    child.stdout?.on("data", (chunk: Buffer) => hash.update(chunk))
    let stderr = ""
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => {
      const [seconds, user, system, kb] = fs.readFileSync(timing, "utf8").trim().split("\n").at(-1)!.split(" ").map(
        Number
      )
      if (code !== 0) return reject(new Error(`${command.join(" ")} exited ${code}: ${stderr.slice(0, 2000)}`))
      resolve({
        seconds: seconds!,
        cpu: user! + system!,
        maxRssMb: kb! / 1024,
        code: code ?? -1,
        hash: hashOutput ? hash.digest("hex") : ""
      })
    })
  })

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

type Variant = "hand-written" | "compiled" | "compiled --jobs" | "baseline" | "npm run cli"
const command = (variant: Variant, args: ReadonlyArray<string>): Array<string> => {
  switch (variant) {
    case "hand-written":
      return [process.execPath, plain, ...args]
    case "compiled":
      return [process.execPath, cli, "convert", "--jsonl", "--quiet", ...args]
    case "compiled --jobs":
      return [process.execPath, cli, "convert", "--jsonl", "--quiet", "--jobs", String(jobs), ...args]
    case "baseline":
      return [process.execPath, ...baselineFlags, baseline!, "convert", "--jsonl", ...args]
    case "npm run cli":
      return ["npm", "run", "-s", "cli", "--", "convert", "--jsonl", "--quiet", ...args]
  }
}
const variants: ReadonlyArray<Variant> = [
  "hand-written",
  "compiled",
  ...(jobs > 1 ? ["compiled --jobs" as const] : []),
  ...(baseline === undefined ? [] : ["baseline" as const]),
  ...(withNpm ? ["npm run cli" as const] : [])
]
const label = (v: Variant) => v === "compiled --jobs" ? `compiled --jobs ${jobs}` : v
const argsOf = (d: Direction) => ["--from", d.from, "--to", d.to, d.file()]
const name = (d: Direction) => d.from === "canonical" ? `--to ${d.to}` : `--from ${d.from} --to canonical`

const main = async () => {
  if (argv.includes("--startup-only")) directions.length = 0
  if (argv.includes("--decode-only")) {
    directions.splice(
      0,
      directions.length,
      ...directions.filter((d) => d.from !== "canonical")
    )
  }
  const only = option("only", "")
  if (only !== "") {
    const keep = directions.filter((d) => only.split(",").includes(d.from === "canonical" ? d.to : d.from))
    directions.splice(0, directions.length, ...keep)
  }
  const check = !argv.includes("--no-check")
  const rows: Array<string> = []
  for (const [i, d] of directions.entries()) {
    if (check) {
      process.stderr.write(`checking that ${name(d)} writes the hand-written converter's output ...\n`)
      const hand = await measure(command("hand-written", argsOf(d)), true)
      for (const v of variants.filter((v) => v === "compiled" || v === "compiled --jobs")) {
        if ((await measure(command(v, argsOf(d)), true)).hash !== hand.hash) {
          throw new Error(`${name(d)}: the outputs of ${label(v)} and the hand-written converter differ`)
        }
      }
      if (baseline !== undefined && (await measure(command("baseline", argsOf(d)), true)).hash !== hand.hash) {
        throw new Error(`${name(d)}: the baseline's output differs`)
      }
    }
    const size = fs.statSync(d.file()).size / 1e6
    const results = new Map<Variant, Array<Run>>(variants.map((v) => [v, []]))
    for (let r = 0; r < runs; r++) {
      // the order rotated by the round, so that no variant always runs after the same one
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(k + r) % variants.length]!
        results.get(v)!.push(await measure(command(v, argsOf(d)), false))
      }
    }
    const seconds = (v: Variant) => median(results.get(v)!.map((x) => x.seconds))
    const cpu = (v: Variant) => median(results.get(v)!.map((x) => x.cpu))
    const rss = (v: Variant) => Math.max(...results.get(v)!.map((x) => x.maxRssMb))
    const versus = baseline === undefined ?
      "" :
      ` | ${(seconds("baseline") / seconds("compiled")).toFixed(2)}x (CPU ${
        (cpu("baseline") / cpu("compiled")).toFixed(2)
      }x)`
    const cells = variants.map((v) =>
      `${(size / seconds(v)).toFixed(1)} MB/s, ${seconds(v).toFixed(1)} s (${cpu(v).toFixed(1)} s CPU), ${
        rss(v).toFixed(0)
      } MB` +
      (v === "hand-written" ?
        "" :
        ` (**${(seconds("hand-written") / seconds(v)).toFixed(2)}x**, CPU ${
          (cpu("hand-written") / cpu(v)).toFixed(2)
        }x)`)
    )
    const row = `| \`${name(d)}\` | ${size.toFixed(0)} MB | ${cells.join(" | ")}${versus} |`
    rows.push(row)
    process.stderr.write(row + "\n")
    // a corpus no later direction reads is deleted (a 1,000,000-conversation one is about 12 GB)
    if (!directions.slice(i + 1).some((later) => later.file === d.file)) {
      const file = d.file()
      fs.rmSync(file, { force: true })
      for (const [k, v] of written) if (v === file) written.delete(k)
    }
  }

  // start-up: --help, and one conversation
  const one = path.join(dir, "one.jsonl")
  fs.writeFileSync(one, canonicalJson(withReasoning.get(12)!) + "\n")
  const startup: Array<string> = []
  const imports: Array<string> = []
  const startupRuns = Math.max(5, runs)
  let bare = 0
  if (!argv.includes("--no-startup")) {
    for (
      const [what, handArgs, ourArgs] of [
        ["`--help`", ["--help"], ["--help"]],
        ["one conversation, `--to openai`", ["--to", "openai", one], ["convert", "--jsonl", "--to", "openai", one]],
        ["one conversation, `--to canonical`", ["--to", "canonical", one], [
          "convert",
          "--jsonl",
          "--to",
          "canonical",
          one
        ]]
      ] as const
    ) {
      const hand: Array<number> = []
      const ours: Array<number> = []
      const npm: Array<number> = []
      const handCpu: Array<number> = []
      const oursCpu: Array<number> = []
      let rss = 0
      for (let r = 0; r < startupRuns; r++) {
        const handRun = await measure([process.execPath, plain, ...handArgs], false)
        hand.push(handRun.seconds)
        handCpu.push(handRun.cpu)
        const run = await measure([process.execPath, cli, ...ourArgs], false)
        ours.push(run.seconds)
        oursCpu.push(run.cpu)
        rss = Math.max(rss, run.maxRssMb)
        if (withNpm) npm.push((await measure(["npm", "run", "-s", "cli", "--", ...ourArgs], false)).seconds)
      }
      const row = `| ${what} | ${median(hand).toFixed(2)} s (${median(handCpu).toFixed(2)} s CPU) | ${
        median(ours).toFixed(2)
      } s (${median(oursCpu).toFixed(2)} s CPU): **${(median(ours) / median(hand)).toFixed(1)}x**, CPU ${
        (median(oursCpu) / median(handCpu)).toFixed(1)
      }x, ${rss.toFixed(0)} MB | ${withNpm ? `${median(npm).toFixed(2)} s` : "-"} |`
      startup.push(row)
      process.stderr.write(row + "\n")
    }

    // what loading costs: a process that imports one module and exits
    // CPU time (user + system) of the import alone, measured inside a fresh process for each run
    const importCost = async (specifier: string) => {
      const times: Array<number> = []
      const script = `const c = process.cpuUsage(); await import(${
        JSON.stringify(specifier)
      }); const d = process.cpuUsage(c); console.log((d.user + d.system) / 1e6)`
      for (let r = 0; r < startupRuns; r++) {
        times.push(
          Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root }).toString())
        )
      }
      return median(times)
    }
    bare = median(
      await Promise.all(
        Array.from({ length: startupRuns }, async () => (await measure([process.execPath, "-e", "0"], false)).cpu)
      )
    )
    for (
      const [what, specifier] of [
        ["`effect/Effect`", "effect/Effect"],
        ["`effect/Schema`", "effect/Schema"],
        ["`@effect/cli/Command` (what the CLI used to load first)", "@effect/cli/Command"],
        ["`dist/internal/cli/args.js` (`--help`, usage errors)", path.join(root, "dist/internal/cli/args.js")],
        ["`dist/Conversation.js` (`--to canonical`)", path.join(root, "dist/Conversation.js")],
        ["`dist/OpenAiFormat.js` (`--to openai`)", path.join(root, "dist/OpenAiFormat.js")],
        ["`dist/Format.js` (every format)", path.join(root, "dist/Format.js")],
        ["`dist/index.js` (the library's index)", path.join(root, "dist/index.js")],
        ["`dist/internal/cli/serve.js` (`serve`: server, platform-node)", path.join(root, "dist/internal/cli/serve.js")]
      ] as const
    ) {
      const url = specifier.startsWith("/") ? `file://${specifier}` : specifier
      const cost = await importCost(url).catch(() => NaN)
      const row = `| ${what} | ${Number.isNaN(cost) ? "not installed" : `${cost.toFixed(2)} s`} |`
      imports.push(row)
      process.stderr.write(row + "\n")
    }
  }

  // peak RSS on ~1 GB of input, every direction measured (the corpus repeated)
  const big: Array<string> = []
  if (argv.includes("--big")) {
    for (const d of directions) {
      const file = path.join(dir, "big.jsonl")
      const chunk = fs.readFileSync(d.file())
      const fd = fs.openSync(file, "w")
      let size = 0
      while (size < 1e9) size += fs.writeSync(fd, chunk)
      fs.closeSync(fd)
      process.stderr.write(`peak RSS of ${name(d)} on ${(size / 1e9).toFixed(2)} GB ...\n`)
      const hand = await measure(command("hand-written", argsOf({ ...d, file: () => file })), false)
      const ours = await measure(command("compiled", argsOf({ ...d, file: () => file })), false)
      fs.rmSync(file)
      const row = `| \`${name(d)}\`, ${(size / 1e9).toFixed(2)} GB | ${hand.maxRssMb.toFixed(0)} MB, ${
        hand.seconds.toFixed(1)
      } s | ${ours.maxRssMb.toFixed(0)} MB, ${ours.seconds.toFixed(1)} s (**${
        (hand.seconds / ours.seconds).toFixed(2)
      }x**) |`
      big.push(row)
      process.stderr.write(row + "\n")
    }
  }

  const cpu = os.cpus()[0]?.model ?? "unknown CPU"
  console.log(
    [
      `Machine: ${cpu}, ${os.cpus().length} cores, ${
        (os.totalmem() / 2 ** 30).toFixed(0)
      } GiB, Node ${process.version}, load ${
        os.loadavg()[0]!.toFixed(1)
      }. ${conversations} conversations (1-40 turns), median of ${runs} run(s).`,
      "",
      `| direction | input | ${variants.map(label).join(" | ")}${
        baseline === undefined ? "" : " | compiled / baseline"
      } |`,
      `| --- | --- | ${variants.map(() => "---").join(" | ")}${baseline === undefined ? "" : " | ---"} |`,
      ...rows,
      "",
      "| start-up (median) | hand-written | compiled | npm run cli |",
      "| --- | --- | --- | --- |",
      ...startup,
      "",
      `| import (CPU time of the import, median; a whole bare \`node -e 0\`: ${bare.toFixed(2)} s) | cost |`,
      "| --- | --- |",
      ...imports,
      ...(big.length === 0
        ? []
        : ["", "| peak RSS, ~1 GB input | hand-written | compiled |", "| --- | --- | --- |", ...big])
    ].join("\n")
  )
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e)
  process.exitCode = 1
})
