/**
 * `convert`'s work on records, the same in the main thread and in a worker (`worker.ts`): records
 * in (a block of JSON lines as bytes, record texts, or parsed values), converted JSON lines out, with
 * the failures, the losses and the counts. Everything it is given and gives back can cross to a
 * worker thread. Only the codecs the options name are imported (all of them for `--record auto`,
 * and, once a failure needs a hint, the ones the hint tries).
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Codec from "../../Codec.js"
import type * as DatasetError from "../../DatasetError.js"
import * as Lines from "../dataset/lines.js"
import * as Shapes from "../dataset/shapes.js"
import * as Registry from "../formats.js"
import { formatFlags, type Source, sources, type Target } from "./args.js"

/** What the engine is asked to do; plain data, so that it can be sent to a worker. */
export interface Options {
  readonly from: Source
  /** Whether `--from` was given (a record shape's format applies otherwise). */
  readonly fromGiven: boolean
  readonly to: Target
  readonly record: Shapes.Shape | "auto" | undefined
  readonly messagesAt: ReadonlyArray<string | number> | undefined
  readonly unsupported: "error" | "report"
  /** `--strict`: anything a codec loses by its format's rules fails the record (else it is counted). */
  readonly strict: boolean
  /** `--quiet`: no summary, so losses are not looked for (unless `strict`): nothing extra runs. */
  readonly quiet?: boolean | undefined
  /** The `--to` format's encode options, as the library names them. */
  readonly encode: { readonly [key: string]: unknown }
  /** The `--from` format's decode options. */
  readonly decode: { readonly [key: string]: unknown }
  /** A failed line writes `null`, a blank one an empty line, so output line k is input line k. */
  readonly aligned: boolean
  /** What a record's number counts: input lines, or Parquet rows. */
  readonly unit: "line" | "row"
}

/** One failed record. */
export interface Failure {
  readonly line: number
  readonly tag: string
  /** The error's message, with a hint when one was verified. */
  readonly message: string
  readonly path: ReadonlyArray<string | number>
}

/**
 * One thing left out: a tool setting under `--unsupported report` (`rule` absent), or what a codec
 * lost by its format's documented rules (`rule`: what is counted together in the summary, the
 * format, direction and field).
 */
export interface Loss {
  readonly line: number
  readonly message: string
  readonly rule?: string | undefined
}

/** What a block of records gave. */
export interface BlockOutcome {
  /** The output lines, each with its newline. */
  readonly out: string
  readonly failures: ReadonlyArray<Failure>
  readonly losses: ReadonlyArray<Loss>
  readonly converted: number
  readonly blank: number
  /** Under `--record auto`: how many records were read as each shape. */
  readonly shapes: { readonly [shape: string]: number }
}

/**
 * The format a record is read from, loaded by name from the library's registry (`Format.load`):
 * `Codec.AnyDecoder`, as the options are plain data checked by the argument parser.
 */
const loadDecoder = (from: Source): Promise<Codec.AnyDecoder> => Registry.load(from)

/** The format records are written to (see {@link loadDecoder}). */
const loadEncoder = (to: Target): Promise<Codec.AnyEncoder> => Registry.load(to)

/** The whole spec of a conversion: what the library's `Dataset` options would say. */
const specOf = (options: Options, overrides: Partial<Shapes.Spec> = {}): Shapes.Spec => ({
  to: options.to,
  from: options.fromGiven || (options.record === undefined) ? options.from : undefined,
  record: options.record,
  messagesAt: options.messagesAt,
  unsupported: options.unsupported,
  lost: options.strict ? "error" : options.quiet === true ? "ignore" : "report",
  casing: options.encode["casing"] === "camel" ? "camel" : "snake",
  ...overrides
})

const fromOf = (spec: Shapes.Spec): ReadonlyArray<Source> =>
  spec.record === "auto" && spec.from === undefined ? sources : [Shapes.layoutOf(spec)?.from ?? "canonical"]

/** The codecs loaded so far, each format once. */
interface Loaded {
  readonly decoders: Map<Source, Codec.AnyDecoder>
  readonly encoders: Map<Target, Codec.AnyEncoder>
}

/** What a hint's trial writes: the conversation as it was read (it checks that a record reads). */
const readOnly: Codec.AnyEncoder = { name: "read only", encode: Either.right }

/**
 * A converter for `spec`, loading the codecs it needs: for each format a record may be read from,
 * the pipeline (`Codec.compose`) from it to `spec.to`, with `--from`'s decode options (for that
 * format only) and the encode options. `"read"` builds the trial of a hint, which reads and does not
 * write.
 */
const build = async (
  spec: Shapes.Spec,
  options: Options,
  loaded: Loaded,
  how: "convert" | "read" = "convert"
): Promise<Convert> => {
  const froms = fromOf(spec)
  const to = spec.to as Target
  await Promise.all([
    ...froms.map(async (from) => {
      if (!loaded.decoders.has(from)) loaded.decoders.set(from, await loadDecoder(from))
    }),
    (async () => {
      if (how === "convert" && !loaded.encoders.has(to)) loaded.encoders.set(to, await loadEncoder(to))
    })()
  ])
  const encoder = how === "read" ? readOnly : loaded.encoders.get(to)!
  const pipelines = new Map(froms.map((from) => [
    from,
    Codec.compose(loaded.decoders.get(from)!, encoder, {
      decode: from === options.from ? options.decode : {},
      encode: options.encode
    })
  ]))
  return Shapes.converter(spec, (from) => {
    const pipeline = pipelines.get(from as Source)!
    const decoder = loaded.decoders.get(from as Source)!
    const decodeOptions = from === options.from ? options.decode : {}
    // with `onLoss` (losses looked for): each side called with it added to its options
    return {
      read: (input, onLoss) =>
        onLoss === undefined ? pipeline.decode(input) : decoder.decode(input, { ...decodeOptions, onLoss }),
      write: (conversation, onLoss) =>
        onLoss === undefined
          ? pipeline.encode(conversation)
          : encoder.encode(conversation, { ...options.encode, onLoss })
    }
  })
}

type Convert = (record: unknown) => Either.Either<Shapes.Converted, DatasetError.RecordError>

/** What a description of each shape says in a hint. */
const shapeNames: { readonly [S in Shapes.Shape]: string } = {
  body: "a request body",
  "openai-sft": "an OpenAI fine-tuning record",
  "openai-rft": "an OpenAI reinforcement fine-tuning record",
  "openai-dpo": "an OpenAI preference fine-tuning record",
  "anthropic-bedrock": "an Anthropic (Bedrock) fine-tuning record",
  "gemini-tuning": "a Gemini tuning record",
  sharegpt: "a ShareGPT record",
  rollout: "an episode record (Episode.runMany)"
}

const formatNames: { readonly [S in Source]: string } = {
  canonical: "a canonical conversation",
  openai: "an OpenAI chat transcript",
  openrouter: "an OpenRouter chat transcript",
  anthropic: "an Anthropic request",
  google: "a Gemini request",
  "openai-responses": "an OpenAI Responses input",
  sharegpt: "a ShareGPT conversation"
}

/** The tags only an encoder fails with: the record was read, so its format was right. */
const encodeTags: ReadonlySet<string> = new Set(["UnsupportedBlock", "UnsupportedMessage", "UnmatchedToolResult"])

/** Build the engine for `options`. */
export const make = async (options: Options) => {
  const loaded: Loaded = { decoders: new Map(), encoders: new Map() }
  const convert = await build(specOf(options), options, loaded)
  const trials = new Map<string, Convert>()
  /** A converter for a hint's trial; `read` only: it checks that the record reads, not what the target makes of it. */
  const trial = async (
    spec: Shapes.Spec,
    how: { readonly encode: { readonly [key: string]: unknown } } | "read"
  ): Promise<Convert> => {
    const key = JSON.stringify([spec, how])
    let found = trials.get(key)
    if (found === undefined) {
      found = how === "read"
        ? await build({ ...spec, unsupported: "report", lost: "ignore" }, options, loaded, "read")
        : await build(spec, { ...options, encode: how.encode }, loaded)
      trials.set(key, found)
    }
    return found
  }

  /**
   * A hint for a failed record, only when it is right: another source format (`--from`) or a record
   * shape (`--record`) when the record reads with it, an encode option the message names (its flag
   * and value) when the record converts with it.
   */
  const hint = async (input: unknown, error: DatasetError.RecordError): Promise<string> => {
    const spec = specOf(options)
    if (!encodeTags.has(error._tag)) {
      // a decoder's message that names a decode option (`decode with providerContent: "keep"`): its
      // flag, when the record reads with it
      const decodeOption = /\bdecode with ([a-zA-Z]+): "([^"]+)"/.exec(error.message)
      if (decodeOption !== null && options.from !== "canonical") {
        const [, key, value] = decodeOption as unknown as [string, string, string]
        const flag = formatFlags.find((f) =>
          (f.option ?? f.key) === key && f.appliesTo?.side === "from" && f.appliesTo.formats.includes(options.from) &&
          f.choices?.some((c) => c.value === value)
        )
        if (flag !== undefined) {
          const withOption = await build(
            { ...spec, unsupported: "report" },
            { ...options, decode: { ...options.decode, [key]: value } },
            loaded,
            "read"
          )
          if (Either.isRight(withOption(input))) return ` (on the command line: --${flag.name} ${value})`
        }
      }
      const plain = spec.record === undefined && spec.messagesAt === undefined
      const detected = Shapes.detect(input)
      if (error._tag !== "UnsupportedParameter" && (spec.record !== "auto" || spec.from !== undefined)) {
        const guess = detected?.from ?? (Array.isArray(input) ? Shapes.listFormat(input) : undefined)
        const current = Shapes.layoutOf(spec)?.from ?? options.from
        // the format the input's shape names, when it reads as that format
        const from = guess
        if (from !== undefined && from !== current && !(from === "openai" && current === "openrouter")) {
          const tryFrom = await trial({ ...spec, from }, "read")
          if (Either.isRight(tryFrom(input))) {
            const pass = from === "openai" ? "pass --from openai (or openrouter)" : `pass --from ${from}`
            return ` (this looks like ${formatNames[from]}: ${pass})`
          }
        }
      }
      if (plain && detected !== undefined && typeof input === "object" && !Array.isArray(input)) {
        const tryShape = await trial({ ...spec, record: detected.shape, from: detected.from }, "read")
        if (Either.isRight(tryShape(input))) {
          return detected.shape === "body"
            ? ` (this is a request body: pass --record body${
              detected.from === options.from ? "" : ` --from ${detected.from}`
            } to convert it with its tool settings)`
            : ` (this looks like ${shapeNames[detected.shape]}: pass --record ${detected.shape})`
        }
      }
      if (error._tag === "UnsupportedParameter" && plain) {
        const body = await trial({ ...spec, record: "body" }, "read")
        if (Either.isRight(body(input))) return " (pass --record body to convert the tool settings with it)"
      }
      return ""
    }
    // an encoder's message that names an option: its flag, when the option converts the record
    const named = /(?:\bset ([a-zA-Z]+) to "([^"]+)"|\{ ([a-zA-Z]+): "([^"]+)" \})/.exec(error.message)
    if (named !== null) {
      const key = named[1] ?? named[3]!
      const value = named[2] ?? named[4]!
      const flag = formatFlags.find((f) =>
        (f.option ?? f.key) === key && f.appliesTo?.side === "to" && f.appliesTo.formats.includes(options.to) &&
        f.choices?.some((c) => c.value === value && (c.formats === undefined || c.formats.includes(options.to)))
      )
      if (flag !== undefined) {
        const withOption = await trial(spec, { encode: { ...options.encode, [key]: value } })
        if (Either.isRight(withOption(input))) return ` (on the command line: --${flag.name} ${value})`
      }
    }
    return ""
  }

  /** Collects one block's outcomes; failures wait for their hints. */
  const collector = () => {
    let out = ""
    let converted = 0
    let blank = 0
    const failures: Array<Failure> = []
    const pending: Array<{ readonly input: unknown; readonly error: DatasetError.RecordError; readonly at: number }> =
      []
    const losses: Array<Loss> = []
    const shapes: { [shape: string]: number } = {}
    const fail = (line: number, tag: string, message: string, path: ReadonlyArray<string | number>) => {
      failures.push({ line, tag, message, path })
      if (options.aligned) out += "null\n"
    }
    const value = (line: number, record: unknown) => {
      const result = convert(record)
      if (Either.isLeft(result)) {
        const error = result.left
        pending.push({ input: record, error, at: failures.length })
        fail(line, error._tag, error.message, error.path)
        return
      }
      const { value: written, losses: lost, shape } = result.right
      out += JSON.stringify(written) + "\n"
      converted++
      for (const loss of lost) {
        losses.push(
          loss._tag === "Lost"
            ? { line, message: loss.message, rule: `${loss.format} ${loss.field} (${loss.direction})` }
            : { line, message: `${loss._tag}: ${loss.message}` }
        )
      }
      if (shape !== undefined) shapes[shape] = (shapes[shape] ?? 0) + 1
    }
    const text = (line: number, t: string) => {
      if (t.length === 0 || t.trim().length === 0) {
        blank++
        if (options.aligned) out += "\n"
        return
      }
      let record: unknown
      try {
        record = JSON.parse(t)
      } catch (e) {
        const trimmed = t.trim()
        const pretty = trimmed === "{" || trimmed === "[" || /^"[^"]*":/.test(trimmed)
        fail(
          line,
          "MalformedInput",
          `not valid JSON (${e instanceof Error ? e.message : String(e)})${
            pretty ? " (this looks like pretty-printed JSON, a record over several lines: pass --json-seq)" : ""
          }`,
          []
        )
        return
      }
      value(line, record)
    }
    const bad = (b: Lines.BadBytes) => {
      const message = `not valid UTF-8: byte ${b.offset} of the line (byte ${b.inputOffset} of the input)`
      fail(b.line, "InvalidUtf8", message, [])
    }
    const finish = async (): Promise<BlockOutcome> => {
      for (const p of pending) {
        const extra = await hint(p.input, p.error)
        if (extra !== "") {
          const f = failures[p.at]!
          failures[p.at] = { ...f, message: f.message + extra }
        }
      }
      return { out, failures, losses, converted, blank, shapes }
    }
    return { text, value, bad, finish }
  }

  return {
    /** A block of JSON lines (bytes ending at a newline, or the input's last bytes). */
    block: (bytes: Uint8Array, firstLine: number, inputOffset: number): Promise<BlockOutcome> => {
      const c = collector()
      Lines.eachLine(bytes, firstLine, inputOffset, c.text, c.bad)
      return c.finish()
    },
    /** Records given as text, each with the line it starts on. */
    texts: (records: ReadonlyArray<Lines.Text>): Promise<BlockOutcome> => {
      const c = collector()
      for (const r of records) c.text(r.line, r.text)
      return c.finish()
    },
    /** Parsed records (Parquet rows), numbered from `first`. */
    values: (records: ReadonlyArray<unknown>, first: number): Promise<BlockOutcome> => {
      const c = collector()
      records.forEach((r, i) => c.value(first + i, r))
      return c.finish()
    },
    /** One document: its converted JSON (indented) and what it lost, or its failure. */
    document: async (
      record: unknown
    ): Promise<
      | { readonly ok: true; readonly json: string; readonly losses: ReadonlyArray<string> }
      | { readonly ok: false; readonly failure: Failure }
    > => {
      const result = convert(record)
      if (Either.isRight(result)) {
        return {
          ok: true,
          json: JSON.stringify(result.right.value, null, 2),
          losses: result.right.losses.map((loss) => `${loss._tag === "Lost" ? "" : `${loss._tag}: `}${loss.message}`)
        }
      }
      const error = result.left
      return {
        ok: false,
        failure: { line: 1, tag: error._tag, message: error.message + (await hint(record, error)), path: error.path }
      }
    }
  }
}

export type Engine = Awaited<ReturnType<typeof make>>

/** The types a worker is sent and sends back. */
export type Task =
  | {
    readonly kind: "block"
    readonly options: Options
    readonly bytes: Uint8Array
    readonly firstLine: number
    readonly inputOffset: number
  }
  | { readonly kind: "texts"; readonly options: Options; readonly records: ReadonlyArray<Lines.Text> }
  | {
    readonly kind: "values"
    readonly options: Options
    readonly records: ReadonlyArray<unknown>
    readonly first: number
  }

/** Run one task on `engine`. */
export const run = (engine: Engine, task: Task): Promise<BlockOutcome> =>
  task.kind === "block"
    ? engine.block(task.bytes, task.firstLine, task.inputOffset)
    : task.kind === "texts"
    ? engine.texts(task.records)
    : engine.values(task.records, task.first)
