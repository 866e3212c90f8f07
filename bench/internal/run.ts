/**
 * The codec benchmark: fixtures, the honesty checks, the measurements and the report.
 */
import * as Either from "effect/Either"
import * as assert from "node:assert"
import * as os from "node:os"
import type * as Conversation from "../../src/Conversation.js"
import type * as ConversionError from "../../src/ConversionError.js"
import type * as Provider from "../../src/Provider.js"
import * as AiSdk from "./aiSdk.js"
import * as Generate from "./generate.js"
import * as Harness from "./harness.js"
import * as Report from "./report.js"

/** One format under test: our codec, the hand-written converter, and the generated content shape. */
export interface Subject {
  readonly provider: Provider.Provider
  readonly shape: Generate.Shape
  readonly ours: {
    readonly encode: (conversation: Conversation.Conversation) => Either.Either<unknown, ConversionError.EncodeError>
    readonly decode: (input: unknown) => Either.Either<Conversation.Conversation, ConversionError.DecodeError>
  }
  readonly plain: {
    readonly encode: (conversation: Conversation.Conversation) => unknown
    readonly decode: (input: unknown) => Conversation.Conversation
  }
}

/** Run settings. */
export interface Settings {
  readonly sizes: ReadonlyArray<number>
  /** Timing for a conversation size (large conversations need longer samples to amortise GC). */
  readonly timing: (turns: number) => Harness.Options
  /** Measure heap cost at the largest size. */
  readonly memory: boolean
}

interface Fixture {
  readonly subject: Subject
  readonly turns: number
  readonly conversation: Conversation.Conversation
  /** The AI SDK's input for the same conversation. */
  readonly prompt: ReturnType<typeof AiSdk.toPrompt>
  /** Our encoding, re-parsed from JSON: the input of the decode benchmarks. */
  readonly wire: unknown
  readonly wireBytes: number
  readonly aiSdk: AiSdk.Driver
  /** The AI SDK's request-body object for this conversation (what it JSON.stringifies). */
  readonly aiSdkBody: unknown
}

const minimalPrompt: ReturnType<typeof AiSdk.toPrompt> = [{ role: "user", content: [{ type: "text", text: "hi" }] }]

const getOrFail = <A, E extends { readonly message: string }>(either: Either.Either<A, E>, what: string): A => {
  if (Either.isLeft(either)) throw new Error(`${what}: ${either.left.message}`)
  return either.right
}

/** Assert two JSON values are equal, key order included. */
const assertSameJson = (actual: unknown, expected: unknown, what: string): void => {
  assert.deepStrictEqual(actual, expected, what)
  assert.strictEqual(JSON.stringify(actual), JSON.stringify(expected), `${what} (key order)`)
}

const collectStrings = (u: unknown, into: Set<string>): void => {
  if (typeof u === "string") into.add(u)
  else if (Array.isArray(u)) { for (const x of u) collectStrings(x, into) }
  else if (typeof u === "object" && u !== null) { for (const x of Object.values(u)) collectStrings(x, into) }
}

/**
 * Build the fixture and check, once, that the variants do the same work: the hand-written converter
 * must produce exactly our output both ways, and the AI SDK's request body must carry the whole
 * conversation.
 */
const fixture = async (subject: Subject, turns: number): Promise<Fixture> => {
  const conversation = Generate.conversation(turns, subject.shape)
  const what = `${subject.provider}, ${turns} turns`
  const encoded = getOrFail(subject.ours.encode(conversation), `our ${what} encode`)
  assertSameJson(subject.plain.encode(conversation), encoded, `hand-written ${what} encode`)
  const text = JSON.stringify(encoded)
  const wire: unknown = JSON.parse(text)
  const decoded = getOrFail(subject.ours.decode(wire), `our ${what} decode`)
  assertSameJson(subject.plain.decode(wire), decoded, `hand-written ${what} decode`)

  const prompt = AiSdk.toPrompt(conversation)
  const aiSdk = AiSdk.driver(subject.provider)
  const result = await aiSdk.generate(prompt) as { readonly request?: { readonly body?: unknown } }
  const body = aiSdk.lastBody()
  assert.strictEqual(body, JSON.stringify(result.request?.body), `AI SDK ${what}: request body`)
  const strings = new Set<string>()
  collectStrings(JSON.parse(body), strings)
  for (const message of conversation) {
    for (const block of message.blocks) {
      if (block.type === "tool_call") assert.ok(strings.has(block.id), `AI SDK ${what}: ${block.id}`)
    }
  }
  const last = conversation.at(-1)?.blocks.find((b) => b.type === "text")
  if (last?.type === "text") assert.ok(strings.has(last.text), `AI SDK ${what}: last text`)
  return {
    subject,
    turns,
    conversation,
    prompt,
    wire,
    wireBytes: Buffer.byteLength(text),
    aiSdk,
    aiSdkBody: result.request?.body
  }
}

interface EncodeResult {
  readonly fixture: Fixture
  readonly ours: Harness.Measurement
  /** Our encode followed by `JSON.stringify`: the request JSON, the AI SDK's end product. */
  readonly oursJson: Harness.Measurement
  readonly plain: Harness.Measurement
  /** The hand-written converter followed by `JSON.stringify`. */
  readonly plainJson: Harness.Measurement
  readonly aiSdk: Harness.Measurement
  readonly aiSdkFixed: Harness.Measurement
  readonly aiSdkStringify: Harness.Measurement
  /** Throughput of ours relative to the hand-written converter (median of paired ratios). */
  readonly vsPlain: number
  /** Ours to request JSON relative to the AI SDK's doGenerate (which ends in the request JSON). */
  readonly vsAiSdk: number
  /** Our encode relative to the AI SDK's conversion alone: its call minus the fixed cost and the stringify. */
  readonly vsAiSdkConversion: number
  /** The hand-written converter to request JSON relative to the AI SDK's doGenerate: the practical limit. */
  readonly plainVsAiSdk: number
}

interface DecodeResult {
  readonly fixture: Fixture
  readonly ours: Harness.Measurement
  readonly plain: Harness.Measurement
  readonly vsPlain: number
}

const measureEncode = async (f: Fixture, timing: Harness.Options): Promise<EncodeResult> => {
  const { aiSdk, aiSdkBody, conversation, prompt } = f
  const encode = f.subject.ours.encode
  const [ours, oursJson, plain, plainJson, sdk, fixed, stringify] = await Harness.measure([
    { name: "ours", run: () => encode(conversation) },
    { name: "ours + JSON.stringify", run: () => JSON.stringify(Either.getOrThrow(encode(conversation))) },
    { name: "hand-written", run: () => f.subject.plain.encode(conversation) },
    { name: "hand-written + JSON.stringify", run: () => JSON.stringify(f.subject.plain.encode(conversation)) },
    { name: "AI SDK", run: () => aiSdk.generate(prompt) },
    { name: "AI SDK fixed", run: () => aiSdk.generate(minimalPrompt) },
    { name: "AI SDK stringify", run: () => JSON.stringify(aiSdkBody) }
  ], timing)
  const conversion: Array<number> = []
  for (let r = 0; r < ours!.samples.length; r++) {
    const rest = sdk!.samples[r]! - fixed!.samples[r]! - stringify!.samples[r]!
    conversion.push(rest / ours!.samples[r]!)
  }
  return {
    fixture: f,
    ours: ours!,
    oursJson: oursJson!,
    plain: plain!,
    plainJson: plainJson!,
    aiSdk: sdk!,
    aiSdkFixed: fixed!,
    aiSdkStringify: stringify!,
    vsPlain: Harness.pairedRatio(plain!, ours!),
    vsAiSdk: Harness.pairedRatio(sdk!, oursJson!),
    vsAiSdkConversion: Harness.median(conversion),
    plainVsAiSdk: Harness.pairedRatio(sdk!, plainJson!)
  }
}

const measureDecode = async (f: Fixture, timing: Harness.Options): Promise<DecodeResult> => {
  const [ours, plain] = await Harness.measure([
    { name: "ours", run: () => f.subject.ours.decode(f.wire) },
    { name: "hand-written", run: () => f.subject.plain.decode(f.wire) }
  ], timing)
  return { fixture: f, ours: ours!, plain: plain!, vsPlain: Harness.pairedRatio(plain!, ours!) }
}

const memory = async (f: Fixture): Promise<ReadonlyArray<ReadonlyArray<string>>> => {
  const rows: Array<ReadonlyArray<string>> = []
  const input = await Harness.heapCost(() => Generate.conversation(f.turns, f.subject.shape))
  rows.push([f.subject.provider, "canonical conversation (input)", "-", "-", Report.bytes(input.retained)])
  const variants: ReadonlyArray<readonly [string, () => unknown]> = [
    ["encode: ours", () => f.subject.ours.encode(f.conversation)],
    ["encode: hand-written", () => f.subject.plain.encode(f.conversation)],
    ["encode: AI SDK doGenerate", () => f.aiSdk.generate(f.prompt)],
    ["decode: ours", () => f.subject.ours.decode(f.wire)],
    ["decode: hand-written", () => f.subject.plain.decode(f.wire)]
  ]
  for (const [name, run] of variants) {
    const cost = await Harness.heapCost(run)
    rows.push([
      f.subject.provider,
      name,
      Report.bytes(cost.allocated),
      Report.bytes(cost.allocated / f.turns),
      Report.bytes(cost.retained)
    ])
  }
  return rows
}

const cell = (m: Harness.Measurement, turns: number): string =>
  `${Report.si((turns * 1e9) / m.median)}turn/s ${Report.duration(m.median / turns)}/turn`

const machine = (): string => {
  const cpus = os.cpus()
  return [
    `node ${process.version} (V8 ${process.versions.v8}), ${os.platform()} ${os.arch()}`,
    `${cpus[0]?.model ?? "unknown cpu"} x ${cpus.length}, load average ${
      os.loadavg().map((l) => l.toFixed(2)).join(" ")
    }`,
    new Date().toISOString()
  ].join("\n")
}

/** Run the benchmark and print the report. */
export const run = async (subjects: ReadonlyArray<Subject>, settings: Settings): Promise<void> => {
  const started = Date.now()
  const { timing } = settings
  console.log(`codec benchmark: ${subjects.map((s) => s.provider).join(", ")}; turns ${settings.sizes.join(", ")}`)
  console.log(machine())
  for (const turns of settings.sizes) {
    const t = timing(turns)
    console.log(
      `timing @${turns} turns: ${t.samples} interleaved rounds, samples of >= ${t.sampleMs} ms, ` +
        `${t.warmupMs} ms warm-up per variant`
    )
  }
  console.log("")

  const encodes: Array<EncodeResult> = []
  const decodes: Array<DecodeResult> = []
  const memoryRows: Array<ReadonlyArray<string>> = []
  const largestSize = Math.max(...settings.sizes)
  for (const turns of settings.sizes) {
    for (const subject of subjects) {
      // One fixture alive at a time: a big live heap would make every major GC, and so every
      // variant that triggers one, slower.
      const f = await fixture(subject, turns)
      process.stdout.write(`measuring ${subject.provider} ${turns} turns ...`)
      encodes.push(await measureEncode(f, timing(turns)))
      decodes.push(await measureDecode(f, timing(turns)))
      if (settings.memory && turns === largestSize) memoryRows.push(...await memory(f))
      process.stdout.write(` done (${((Date.now() - started) / 1000).toFixed(0)} s)\n`)
    }
  }
  console.log("\nchecked before timing: the hand-written converters return exactly our output (deep and key order),")
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
    rows: encodes.map((e) => [
      String(e.fixture.turns),
      e.fixture.subject.provider,
      cell(e.ours, e.fixture.turns),
      cell(e.plain, e.fixture.turns),
      cell(e.aiSdk, e.fixture.turns),
      Report.ratio(e.vsPlain, 0.5),
      Report.ratio(e.vsAiSdk, 1),
      e.fixture.turns === 1 ? "-" : Report.ratio(e.vsAiSdkConversion, 1),
      Report.ratio(e.plainVsAiSdk)
    ])
  }))

  console.log("\nDECODE: provider wire (parsed JSON, untrusted) -> canonical conversation. The AI SDK has no")
  console.log("wire-to-prompt converter, so there is no AI SDK column. (The targets are set for encode only.)\n")
  console.log(Report.render({
    header: ["turns", "format", "wire JSON", "ours", "hand-written", "vs hand"],
    left: [1],
    rows: decodes.map((d) => [
      String(d.fixture.turns),
      d.fixture.subject.provider,
      Report.bytes(d.fixture.wireBytes),
      cell(d.ours, d.fixture.turns),
      cell(d.plain, d.fixture.turns),
      Report.ratio(d.vsPlain)
    ])
  }))

  console.log("\nLINEARITY: our cost per turn at each size. From 100 to 10k turns the output outgrows the")
  console.log("CPU caches and the young generation (objects get copied and promoted), so every converter's cost")
  console.log("per turn rises; the last column divides our growth by the hand-written converter's (linear by")
  console.log("construction), so ~1x means we scale as it does and >1x means extra, superlinear work.\n")
  const sizes = settings.sizes
  const largest = sizes[sizes.length - 1] ?? 0
  const second = sizes[sizes.length - 2] ?? 0
  const find = <R extends EncodeResult | DecodeResult>(results: ReadonlyArray<R>, provider: string, turns: number) =>
    results.find((x) => x.fixture.subject.provider === provider && x.fixture.turns === turns)
  const linearity = subjects.flatMap((s) =>
    (["encode", "decode"] as const).map((direction) => {
      const results: ReadonlyArray<EncodeResult | DecodeResult> = direction === "encode" ? encodes : decodes
      const ns = sizes.map((turns) => (find(results, s.provider, turns)?.ours.median ?? Number.NaN) / turns)
      const big = find(results, s.provider, largest)
      const small = find(results, s.provider, second)
      const growth = (big?.ours.median ?? Number.NaN) / largest / ((small?.ours.median ?? Number.NaN) / second)
      const plainGrowth = (big?.plain.median ?? Number.NaN) / largest /
        ((small?.plain.median ?? Number.NaN) / second)
      return [
        s.provider,
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

  console.log("\nAI SDK TIME SPLIT: what one doGenerate call spends, by size.\n")
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
    rows: encodes.filter((e) => e.fixture.turns > 1).map((e) => {
      const conversion = e.aiSdk.median - e.aiSdkFixed.median - e.aiSdkStringify.median
      return [
        String(e.fixture.turns),
        `${e.fixture.subject.provider} (${e.fixture.aiSdk.label})`,
        Report.duration(e.aiSdk.median),
        Report.duration(e.aiSdkFixed.median),
        Report.duration(e.aiSdkStringify.median),
        Report.duration(conversion),
        `${((100 * conversion) / e.aiSdk.median).toFixed(0)} %`
      ]
    })
  }))

  if (memoryRows.length > 0) {
    console.log(`\nMEMORY at ${largest} turns: bytes allocated by one call (garbage included) and retained by its`)
    console.log("result after a full GC. The retained size of the result shares strings with its input.\n")
    console.log(Report.render({
      header: ["format", "operation", "allocated / call", "allocated / turn", "retained"],
      left: [0, 1],
      rows: memoryRows
    }))
  }
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`)
}
