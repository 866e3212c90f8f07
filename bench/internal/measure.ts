/**
 * Measuring one format: fixtures, the honesty checks, the timed comparisons and the heap costs.
 * Runs in a child process per format (see `bench/codecs.ts`), so that one format's JIT state and
 * heap never colour another's figures. Everything it returns is plain data for the report.
 */
import * as Either from "effect/Either"
import * as assert from "node:assert"
import type * as Conversation from "../../src/Conversation.js"
import type * as ConversionError from "../../src/ConversionError.js"
import type * as Provider from "../../src/Provider.js"
import * as AiSdk from "./aiSdk.js"
import * as Generate from "./generate.js"
import * as Harness from "./harness.js"

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
  /**
   * Another build of our codec (`--baseline=DIR`: an earlier commit's compiled `dist/`), measured
   * side by side with ours in the same rounds.
   */
  readonly before?: Subject["ours"]
  /**
   * Our encode with opt-in options that trade the reference's exact output for speed (for the chat
   * formats, `toolArguments: "json"`), measured beside the default against the AI SDK.
   */
  readonly optIn?: {
    readonly label: string
    readonly encode: (conversation: Conversation.Conversation) => Either.Either<unknown, ConversionError.EncodeError>
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

/** What was measured for one format at one size. */
export interface Case {
  readonly provider: Provider.Provider
  readonly turns: number
  /** Bytes of our encoding as JSON: the decode input. */
  readonly wireBytes: number
  /** Which AI SDK model class did the conversion. */
  readonly aiSdkLabel: string
  readonly encode: {
    readonly ours: Harness.Measurement
    /** Our encode followed by `JSON.stringify`: the request JSON, the AI SDK's end product. */
    readonly oursJson: Harness.Measurement
    readonly plain: Harness.Measurement
    /** The hand-written converter followed by `JSON.stringify`. */
    readonly plainJson: Harness.Measurement
    readonly aiSdk: Harness.Measurement
    /** `doGenerate` on a one-message prompt: its fixed cost. */
    readonly aiSdkFixed: Harness.Measurement
    /** `JSON.stringify` of the AI SDK's request body for this conversation. */
    readonly aiSdkStringify: Harness.Measurement
    /** Our throughput over the hand-written converter's (median of paired ratios). */
    readonly vsPlain: number
    /** Ours to request JSON over the AI SDK's doGenerate (which ends in the request JSON). */
    readonly vsAiSdk: number
    /** Our encode over the AI SDK's conversion alone: its call minus the fixed cost and the stringify. */
    readonly vsAiSdkConversion: number
    /** The hand-written converter to request JSON over the AI SDK's doGenerate: the practical limit. */
    readonly plainVsAiSdk: number
    /** Our encode with the subject's opt-in options, to request JSON, and its ratio to the AI SDK. */
    readonly optIn?: {
      readonly label: string
      readonly json: Harness.Measurement
      readonly vsAiSdk: number
      readonly vsDefault: number
    }
    /** The baseline build, and our throughput over its (median of paired ratios). */
    readonly before?: Before
  }
  readonly decode: {
    readonly ours: Harness.Measurement
    readonly plain: Harness.Measurement
    readonly vsPlain: number
    readonly before?: Before
  }
}

/** The baseline build measured beside ours. */
export interface Before {
  readonly measurement: Harness.Measurement
  /** Our throughput over the baseline's (median of paired ratios): above 1, ours is faster. */
  readonly vsBefore: number
  /** The baseline's throughput over the hand-written converter's. */
  readonly vsPlain: number
}

/** Heap cost of one operation at the largest size. */
export interface MemoryRow {
  readonly provider: Provider.Provider
  readonly operation: string
  readonly turns: number
  readonly allocated: number | undefined
  readonly retained: number
}

/** Everything measured for one format. */
export interface Result {
  readonly cases: ReadonlyArray<Case>
  readonly memory: ReadonlyArray<MemoryRow>
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
  if (subject.optIn !== undefined) {
    // the opt-in output differs only in the text of tool arguments: the same JSON values
    const normal = (wire: unknown) =>
      JSON.stringify(
        wire,
        (key, value: unknown) => key === "arguments" && typeof value === "string" ? JSON.parse(value) : value
      )
    const lean = getOrFail(subject.optIn.encode(conversation), `our ${what} encode (${subject.optIn.label})`)
    assert.strictEqual(normal(lean), normal(encoded), `our ${what} encode (${subject.optIn.label})`)
  }
  assertSameJson(subject.plain.encode(conversation), encoded, `hand-written ${what} encode`)
  const text = JSON.stringify(encoded)
  const wire: unknown = JSON.parse(text)
  const decoded = getOrFail(subject.ours.decode(wire), `our ${what} decode`)
  assertSameJson(subject.plain.decode(wire), decoded, `hand-written ${what} decode`)
  if (subject.before !== undefined) {
    assertSameJson(
      getOrFail(subject.before.encode(conversation), `baseline ${what} encode`),
      encoded,
      `baseline ${what}`
    )
    assertSameJson(getOrFail(subject.before.decode(wire), `baseline ${what} decode`), decoded, `baseline ${what}`)
  }

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

const measureEncode = async (f: Fixture, timing: Harness.Options): Promise<Case["encode"]> => {
  const { aiSdk, aiSdkBody, conversation, prompt } = f
  const encode = f.subject.ours.encode
  const plainEncode = f.subject.plain.encode
  const optIn = f.subject.optIn
  const before = f.subject.before
  const measured = await Harness.measure([
    { name: "ours", run: () => encode(conversation) },
    { name: "ours + JSON.stringify", run: () => JSON.stringify(Either.getOrThrow(encode(conversation))) },
    { name: "hand-written", run: () => plainEncode(conversation) },
    { name: "hand-written + JSON.stringify", run: () => JSON.stringify(plainEncode(conversation)) },
    { name: "AI SDK", run: () => aiSdk.generate(prompt) },
    { name: "AI SDK fixed", run: () => aiSdk.generate(minimalPrompt) },
    { name: "AI SDK stringify", run: () => JSON.stringify(aiSdkBody) },
    ...(optIn === undefined ? [] : [{
      name: `ours (${optIn.label}) + JSON.stringify`,
      run: () => JSON.stringify(Either.getOrThrow(optIn.encode(conversation)))
    }]),
    ...(before === undefined ? [] : [{ name: "baseline", run: () => before.encode(conversation) }])
  ], timing)
  const [ours, oursJson, plain, plainJson, sdk, fixed, stringify] = measured
  const optInJson = optIn === undefined ? undefined : measured[7]
  const beforeMeasured = before === undefined ? undefined : measured[measured.length - 1]
  const conversion: Array<number> = []
  for (let r = 0; r < ours!.samples.length; r++) {
    conversion.push((sdk!.samples[r]! - fixed!.samples[r]! - stringify!.samples[r]!) / ours!.samples[r]!)
  }
  return {
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
    plainVsAiSdk: Harness.pairedRatio(sdk!, plainJson!),
    ...(optIn === undefined || optInJson === undefined ? {} : {
      optIn: {
        label: optIn.label,
        json: optInJson,
        vsAiSdk: Harness.pairedRatio(sdk!, optInJson),
        vsDefault: Harness.pairedRatio(oursJson!, optInJson)
      }
    }),
    ...(beforeMeasured === undefined ? {} : { before: beforeOf(beforeMeasured, ours!, plain!) })
  }
}

const beforeOf = (before: Harness.Measurement, ours: Harness.Measurement, plain: Harness.Measurement): Before => ({
  measurement: before,
  vsBefore: Harness.pairedRatio(before, ours),
  vsPlain: Harness.pairedRatio(plain, before)
})

const measureDecode = async (f: Fixture, timing: Harness.Options): Promise<Case["decode"]> => {
  const before = f.subject.before
  const [ours, plain, baseline] = await Harness.measure([
    { name: "ours", run: () => f.subject.ours.decode(f.wire) },
    { name: "hand-written", run: () => f.subject.plain.decode(f.wire) },
    ...(before === undefined ? [] : [{ name: "baseline", run: () => before.decode(f.wire) }])
  ], timing)
  return {
    ours: ours!,
    plain: plain!,
    vsPlain: Harness.pairedRatio(plain!, ours!),
    ...(baseline === undefined ? {} : { before: beforeOf(baseline, ours!, plain!) })
  }
}

const memory = async (f: Fixture): Promise<ReadonlyArray<MemoryRow>> => {
  const row = (operation: string, cost: Harness.HeapCost | { readonly retained: number }): MemoryRow => ({
    provider: f.subject.provider,
    operation,
    turns: f.turns,
    allocated: "allocated" in cost ? cost.allocated : undefined,
    retained: cost.retained
  })
  const input = await Harness.heapCost(() => Generate.conversation(f.turns, f.subject.shape))
  const rows: Array<MemoryRow> = [row("canonical conversation (input)", { retained: input.retained })]
  const variants: ReadonlyArray<readonly [string, () => unknown]> = [
    ["encode: ours", () => f.subject.ours.encode(f.conversation)],
    ["encode: hand-written", () => f.subject.plain.encode(f.conversation)],
    ["encode: AI SDK doGenerate", () => f.aiSdk.generate(f.prompt)],
    ["decode: ours", () => f.subject.ours.decode(f.wire)],
    ["decode: hand-written", () => f.subject.plain.decode(f.wire)]
  ]
  for (const [operation, run] of variants) rows.push(row(operation, await Harness.heapCost(run)))
  return rows
}

/** Measure one format at every size; `progress` is told when each size is done. */
export const measureFormat = async (
  subject: Subject,
  settings: Settings,
  progress: (turns: number) => void
): Promise<Result> => {
  const cases: Array<Case> = []
  const rows: Array<MemoryRow> = []
  const largest = Math.max(...settings.sizes)
  for (const turns of settings.sizes) {
    // One fixture alive at a time: a big live heap would make every major GC, and so every variant
    // that triggers one, slower.
    const f = await fixture(subject, turns)
    const timing = settings.timing(turns)
    cases.push({
      provider: subject.provider,
      turns,
      wireBytes: f.wireBytes,
      aiSdkLabel: f.aiSdk.label,
      encode: await measureEncode(f, timing),
      decode: await measureDecode(f, timing)
    })
    if (settings.memory && turns === largest) rows.push(...await memory(f))
    progress(turns)
  }
  return { cases, memory: rows }
}
