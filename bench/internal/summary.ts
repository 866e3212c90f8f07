/**
 * The benchmark report: the tables printed after every format has been measured.
 */
import * as os from "node:os"
import type * as Harness from "./harness.js"
import type * as Measure from "./measure.js"
import * as Report from "./report.js"

const cell = (m: Harness.Measurement, turns: number): string =>
  `${Report.si((turns * 1e9) / m.median)}turn/s ${Report.duration(m.median / turns)}/turn`

/** Node, CPU, load and date: printed first, since figures depend on them. */
export const machine = (): string => {
  const cpus = os.cpus()
  return [
    `node ${process.version} (V8 ${process.versions.v8}), ${os.platform()} ${os.arch()}`,
    `${cpus[0]?.model ?? "unknown cpu"} x ${cpus.length}, load average ${
      os.loadavg().map((l) => l.toFixed(2)).join(" ")
    }`,
    new Date().toISOString()
  ].join("\n")
}

/** Print every table. `cases` come in measurement order; they are shown by size, then format. */
export const print = (
  results: ReadonlyArray<Measure.Result>,
  sizes: ReadonlyArray<number>
): void => {
  const providers = results.flatMap((r) => r.cases.slice(0, 1).map((c) => c.provider))
  const cases = sizes.flatMap((turns) =>
    providers.flatMap((p) => results.flatMap((r) => r.cases.filter((c) => c.provider === p && c.turns === turns)))
  )
  console.log("checked before timing: the hand-written converters return exactly our output (deep and key order),")
  console.log("and every AI SDK request body carries every tool call and the last text of its conversation.\n")

  console.log("ENCODE: canonical conversation -> provider wire. Throughput in turns per second and cost per turn;")
  console.log("ratios are our throughput over theirs, as medians of per-round ratios (targets: >= 0.5x the")
  console.log("hand-written converter, >= 1x the AI SDK). The AI SDK ends in the request JSON, so \"vs AI SDK\" times")
  console.log(
    "our encode plus JSON.stringify against its doGenerate; \"vs AI SDK conv.\" times our encode alone against"
  )
  console.log("an estimate of its conversion alone: doGenerate minus the same call on a one-message prompt (fixed")
  console.log("cost) minus JSON.stringify of its request body (see the time split below). \"hand vs AI SDK\" is")
  console.log("the hand-written converter plus JSON.stringify against doGenerate: the practical limit of that ratio.\n")
  console.log(Report.render({
    header: [
      "turns",
      "format",
      "ours",
      "hand-written",
      "AI SDK (doGenerate)",
      "vs hand",
      "vs AI SDK",
      "vs AI SDK conv.",
      "hand vs AI SDK"
    ],
    left: [1],
    rows: cases.map(({ encode: e, provider, turns }) => [
      String(turns),
      provider,
      cell(e.ours, turns),
      cell(e.plain, turns),
      cell(e.aiSdk, turns),
      Report.ratio(e.vsPlain, 0.5),
      Report.ratio(e.vsAiSdk, 1),
      turns === 1 ? "-" : Report.ratio(e.vsAiSdkConversion, 1),
      Report.ratio(e.plainVsAiSdk)
    ])
  }))

  const optIns = cases.filter((c) => c.encode.optIn !== undefined)
  if (optIns.length > 0) {
    console.log("\nENCODE WITH OPT-IN OPTIONS: output no longer byte-identical to the reference (tool arguments")
    console.log("written by JSON.stringify: the same JSON values, other whitespace and escapes). Both columns time")
    console.log("the encode plus JSON.stringify; the ratios are paired per round as above.\n")
    console.log(Report.render({
      header: ["turns", "format", "options", "ours, opt-in", "vs AI SDK", "vs our default"],
      left: [1, 2],
      rows: optIns.map(({ encode: e, provider, turns }) => [
        String(turns),
        provider,
        e.optIn!.label,
        cell(e.optIn!.json, turns),
        Report.ratio(e.optIn!.vsAiSdk, 1),
        Report.ratio(e.optIn!.vsDefault)
      ])
    }))
  }

  console.log("\nDECODE: provider wire (parsed JSON, untrusted) -> canonical conversation. The AI SDK has no")
  console.log("wire-to-prompt converter, so there is no AI SDK column. (The targets are set for encode only.)\n")
  console.log(Report.render({
    header: ["turns", "format", "wire JSON", "ours", "hand-written", "vs hand"],
    left: [1],
    rows: cases.map(({ decode: d, provider, turns, wireBytes }) => [
      String(turns),
      provider,
      Report.bytes(wireBytes),
      cell(d.ours, turns),
      cell(d.plain, turns),
      Report.ratio(d.vsPlain)
    ])
  }))

  if (cases.some((c) => c.decode.before !== undefined)) {
    console.log("\nBASELINE: ours beside another build of the codecs (--baseline), measured in the same rounds.")
    console.log("\"ours / baseline\" is our throughput over the baseline's (above 1x: ours is faster); the last")
    console.log("two columns give each against the hand-written converter.\n")
    const row = (direction: string, turns: number, provider: string, m: Measure.Case["decode"]) => {
      const before = m.before!
      return [
        String(turns),
        provider,
        direction,
        cell(m.ours, turns),
        cell(before.measurement, turns),
        Report.ratio(before.vsBefore),
        Report.ratio(m.vsPlain),
        Report.ratio(before.vsPlain)
      ]
    }
    console.log(Report.render({
      header: [
        "turns",
        "format",
        "direction",
        "ours",
        "baseline",
        "ours / baseline",
        "ours vs hand",
        "baseline vs hand"
      ],
      left: [1, 2],
      rows: cases.flatMap(({ decode, encode, provider, turns }) => [
        ...(encode.before === undefined ? [] : [row("encode", turns, provider, { ...encode, before: encode.before })]),
        ...(decode.before === undefined ? [] : [row("decode", turns, provider, decode)])
      ])
    }))
  }

  const largest = sizes[sizes.length - 1] ?? 0
  const second = sizes[sizes.length - 2] ?? 0
  console.log("\nLINEARITY: our cost per turn at each size. As a conversation grows, its output outgrows the CPU")
  console.log("caches and the young generation (objects get copied and promoted), so every converter's cost per")
  console.log("turn rises; the last column divides our growth by the hand-written converter's (linear by")
  console.log("construction): ~1x means we scale as it does, clearly >1x means extra, superlinear work.\n")
  const find = (provider: string, turns: number) => cases.find((c) => c.provider === provider && c.turns === turns)
  const linearity = providers.flatMap((provider) =>
    (["encode", "decode"] as const).map((direction) => {
      const ns = sizes.map((turns) => (find(provider, turns)?.[direction].ours.median ?? Number.NaN) / turns)
      const big = find(provider, largest)?.[direction]
      const small = find(provider, second)?.[direction]
      const growth = (big?.ours.median ?? Number.NaN) / largest / ((small?.ours.median ?? Number.NaN) / second)
      const plainGrowth = (big?.plain.median ?? Number.NaN) / largest /
        ((small?.plain.median ?? Number.NaN) / second)
      return [
        provider,
        direction,
        ...ns.map(Report.duration),
        `${growth.toFixed(2)}x`,
        `${plainGrowth.toFixed(2)}x`,
        `${(growth / plainGrowth).toFixed(2)}x`
      ]
    })
  )
  console.log(Report.render({
    header: [
      "format",
      "direction",
      ...sizes.map((n) => `ours/turn @${n}`),
      `ours @${largest}/@${second}`,
      "hand-written",
      "ours / hand-written"
    ],
    left: [0, 1],
    rows: linearity
  }))

  console.log("\nAI SDK TIME SPLIT: what one doGenerate call spends, by size (medians).\n")
  console.log(Report.render({
    header: [
      "turns",
      "format",
      "doGenerate",
      "fixed (1-msg call)",
      "JSON.stringify",
      "conversion (rest)",
      "conversion %"
    ],
    left: [1],
    rows: cases.filter((c) => c.turns > 1).map(({ aiSdkLabel, encode: e, provider, turns }) => {
      const conversion = e.aiSdk.median - e.aiSdkFixed.median - e.aiSdkStringify.median
      return [
        String(turns),
        `${provider} (${aiSdkLabel})`,
        Report.duration(e.aiSdk.median),
        Report.duration(e.aiSdkFixed.median),
        Report.duration(e.aiSdkStringify.median),
        Report.duration(conversion),
        `${((100 * conversion) / e.aiSdk.median).toFixed(0)} %`
      ]
    })
  }))

  const memory = results.flatMap((r) => r.memory)
  if (memory.length > 0) {
    console.log(`\nMEMORY at ${largest} turns: bytes allocated by one call (garbage included) and retained by its`)
    console.log("result after a full GC. The retained size of the result shares strings with its input.\n")
    console.log(Report.render({
      header: ["format", "operation", "allocated / call", "allocated / turn", "retained"],
      left: [0, 1],
      rows: memory.map((row) => [
        row.provider,
        row.operation,
        row.allocated === undefined ? "-" : Report.bytes(row.allocated),
        row.allocated === undefined ? "-" : Report.bytes(row.allocated / row.turns),
        Report.bytes(row.retained)
      ])
    }))
  }
}
