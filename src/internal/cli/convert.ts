/**
 * `convert`: records in, JSON out, one stderr line per record that fails, a summary at the end.
 *
 * Plain Node streams rather than an Effect `Stream`: this loop runs once per block of input of files
 * of any size, and its whole job is I/O around the engine (`engine.ts`), which converts a block of
 * records and never throws for bad input. It reads with backpressure (`for await` over the input
 * pulls a chunk only when the previous one is handed on), and holds at most `window` blocks in
 * flight: one (of about 64 KiB) when it converts in this thread, `2 × --jobs` (of about 1 MiB each,
 * and their output) on worker threads, whose results are written in input order. Only the codecs
 * the options name are imported.
 *
 * @internal
 */
import { isUtf8 } from "node:buffer"
import * as fs from "node:fs"
import { Readable } from "node:stream"
import { finished } from "node:stream/promises"
import { fileURLToPath } from "node:url"
import * as zlib from "node:zlib"
import * as Lines from "../dataset/lines.js"
import { program } from "./args.js"
import type * as EngineModule from "./engine.js"
import type * as Worker from "./worker.js"

/** What `convert` was asked to do. */
export interface Options extends EngineModule.Options {
  /** How records are framed: one document, JSON lines, a JSON sequence, Parquet rows. */
  readonly framing: "document" | "jsonl" | "json-seq" | "parquet"
  /** Worker threads (1: convert in this thread). */
  readonly jobs: number
  /** No progress line and no summary. */
  readonly quiet: boolean
  /** Where to write each failure as a JSON line. */
  readonly failures: string | undefined
  /** Where to write the output (default standard output). */
  readonly output: string | undefined
  /** Compress the output with gzip (also when `output` ends in `.gz`). */
  readonly gzip: boolean
}

/** Where `convert` reads and writes. */
export interface Io {
  /** The input file, or `undefined` for standard input. */
  readonly file: string | undefined
  readonly stdin: AsyncIterable<Buffer | string>
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
}

/** The input could not be read (not a failed record): exit 2. */
class InputError extends Error {}

// -----------------------------------------------------------------------------
// input
// -----------------------------------------------------------------------------

const gzipMagic = (bytes: Uint8Array): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b

/**
 * A file's bytes, 1 MiB at a time, each read issued while the previous chunk is converted, into two
 * buffers used in turn. A read stream would allocate a buffer per chunk, and a chunk that outlives
 * a young-generation collection (a 1 MiB one does) keeps its memory until the next full one: peak
 * RSS grew by 30-50 MB with it (docs/performance.md, "Whole-process convert"). `convert` is done
 * with a chunk when it asks for the next one, so that buffer is free to fill again.
 */
async function* readChunks(file: string): AsyncGenerator<Uint8Array> {
  const handle = await fs.promises.open(file, "r")
  const buffers = [Buffer.allocUnsafe(1 << 20), Buffer.allocUnsafe(1 << 20)] as const
  let which = 0
  let pending = handle.read(buffers[0], 0, buffers[0].length, null)
  try {
    for (;;) {
      const { bytesRead } = await pending
      if (bytesRead === 0) return
      const chunk = buffers[which]!.subarray(0, bytesRead)
      which = 1 - which
      pending = handle.read(buffers[which]!, 0, buffers[which]!.length, null)
      yield chunk
    }
  } finally {
    // a read still in flight (the consumer stopped early, or a read failed) settles before closing
    await pending.catch(() => undefined)
    await handle.close()
  }
}

async function* gunzip(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const stream = Readable.from(source, { objectMode: false }).pipe(zlib.createGunzip())
  try {
    for await (const chunk of stream) yield chunk as Buffer
  } catch (e) {
    throw new InputError(`the input is not valid gzip (${e instanceof Error ? e.message : String(e)})`)
  }
}

/** The input's bytes, decompressed when they are gzip (by the file's name or its first bytes). */
async function* inputBytes(io: Io): AsyncGenerator<Uint8Array> {
  if (io.file !== undefined) {
    const head = Buffer.alloc(2)
    const fd = fs.openSync(io.file, "r")
    const n = fs.readSync(fd, head, 0, 2, 0)
    fs.closeSync(fd)
    if (io.file.endsWith(".gz") || gzipMagic(head.subarray(0, n))) {
      // a stream's own buffers: gunzip may hold a chunk past the next read
      yield* gunzip(fs.createReadStream(io.file, { highWaterMark: 1 << 20 }))
    } else yield* readChunks(io.file)
    return
  }
  const iterator = io.stdin[Symbol.asyncIterator]()
  const bytes = (chunk: Buffer | string): Uint8Array => typeof chunk === "string" ? Buffer.from(chunk) : chunk
  const first = await iterator.next()
  if (first.done === true) return
  const head = bytes(first.value)
  async function* rest(): AsyncGenerator<Uint8Array> {
    yield head
    for (;;) {
      const next = await iterator.next()
      if (next.done === true) return
      yield bytes(next.value)
    }
  }
  if (gzipMagic(head)) yield* gunzip(rest())
  else yield* rest()
}

/**
 * A copy of `bytes` in memory of its own (a `Buffer`'s `slice` is a view, and a file's chunk buffer
 * is read into again once the next chunk is asked for).
 */
const copy = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes)

const concat = (pieces: ReadonlyArray<Uint8Array>): Uint8Array => {
  if (pieces.length === 1) return pieces[0]!
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of pieces) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/**
 * Text from a stream of bytes, checked to be UTF-8 across chunk boundaries (a leading byte order
 * mark skipped), for input that is not cut into lines first.
 */
class Utf8Text {
  private pending: Uint8Array = new Uint8Array(0)
  private offset = 0
  private line = 1
  private lineStart = 0
  private readonly decoder = new TextDecoder("utf-8")

  /** The text of `chunk` up to its last whole character, or where it stops being UTF-8. */
  push(chunk: Uint8Array): string | Lines.BadBytes {
    let data = this.pending.length === 0 ? chunk : concat([this.pending, chunk])
    if (this.offset === 0 && Lines.hasBom(data)) {
      data = data.subarray(3)
      this.offset = 3
      this.lineStart = 3
    }
    let cut = data.length
    for (let back = 1; back <= 3 && back <= data.length; back++) {
      const b = data[data.length - back]!
      if ((b & 0xc0) === 0x80) continue
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1
      if (need > back) cut = data.length - back
      break
    }
    const whole = data.subarray(0, cut)
    if (!isUtf8(whole)) return this.bad(whole, Lines.firstInvalid(whole))
    this.track(whole, whole.length)
    this.pending = copy(data.subarray(cut))
    this.offset += cut
    return this.decoder.decode(whole)
  }

  /** The input ended: bytes of a character left unfinished are not UTF-8. */
  end(): Lines.BadBytes | undefined {
    return this.pending.length === 0 ? undefined : this.bad(this.pending, 0)
  }

  private track(bytes: Uint8Array, end: number) {
    let at = bytes.indexOf(10)
    while (at !== -1 && at < end) {
      this.line++
      this.lineStart = this.offset + at + 1
      at = bytes.indexOf(10, at + 1)
    }
  }

  private bad(bytes: Uint8Array, at: number): Lines.BadBytes {
    this.track(bytes, at)
    const inputOffset = this.offset + at
    return { line: this.line, offset: inputOffset - this.lineStart, inputOffset }
  }
}

// -----------------------------------------------------------------------------
// output
// -----------------------------------------------------------------------------

const drain = (stream: NodeJS.WritableStream): Promise<void> => new Promise((resolve) => stream.once("drain", resolve))

/** Where output goes: standard output or a file, gzip-compressed when asked. */
const sink = (options: Options, stdout: NodeJS.WritableStream) => {
  const file = options.output === undefined ? undefined : fs.createWriteStream(options.output)
  const destination: NodeJS.WritableStream = file ?? stdout
  const gzip = options.gzip || (options.output?.endsWith(".gz") ?? false) ? zlib.createGzip() : undefined
  if (gzip !== undefined) gzip.pipe(destination, { end: file !== undefined })
  const target: NodeJS.WritableStream = gzip ?? destination
  return {
    write: async (data: string | Uint8Array): Promise<void> => {
      if (data.length === 0) return
      if (!target.write(data)) await drain(target)
    },
    end: async (): Promise<void> => {
      if (gzip !== undefined) {
        const flushed = new Promise<void>((resolve) => gzip.once("end", resolve))
        gzip.end()
        await flushed
      }
      if (file !== undefined) {
        if (gzip === undefined) file.end()
        await finished(file)
      }
    }
  }
}

// -----------------------------------------------------------------------------
// progress and summary
// -----------------------------------------------------------------------------

const thousands = (n: number): string => n.toLocaleString("en-US")

/** The progress line: rewritten in place at most four times a second, on a terminal only. */
const meter = (stderr: NodeJS.WritableStream, show: boolean, unit: string) => {
  const started = Date.now()
  let last = 0
  let shown = false
  return {
    update: (records: number, bytes: number, failed: number, force = false) => {
      if (!show) return
      const now = Date.now()
      if (!force && now - last < 250) return
      last = now
      const seconds = Math.max((now - started) / 1000, 0.001)
      const mb = bytes / 1e6
      stderr.write(
        `\r\x1b[K${thousands(records)} ${unit}s · ${mb.toFixed(1)} MB · ${(mb / seconds).toFixed(1)} MB/s · ${
          thousands(failed)
        } failed`
      )
      shown = true
    },
    clear: () => {
      if (shown) stderr.write("\r\x1b[K")
      shown = false
    }
  }
}

// -----------------------------------------------------------------------------
// running
// -----------------------------------------------------------------------------

/** A block's result as the main thread gets it: output as text (this thread) or bytes (a worker). */
type Done = Omit<EngineModule.BlockOutcome, "out"> & { readonly out?: string; readonly bytes?: Uint8Array }

/**
 * The worker entry, beside this module in the compiled layout (`dist/internal/cli/worker.js`) and
 * in the bundle (`dist/bin/worker.js`, beside the chunk that holds this module); `undefined` when
 * running from the TypeScript sources, where worker threads cannot load them.
 */
const workerFile = (): string | undefined => {
  const compiled = fileURLToPath(new URL("./worker.js", import.meta.url))
  return fs.existsSync(compiled) ? compiled : undefined
}

/** Run `convert`; resolves to the exit code (0; 1 when a record failed; 2 when the input cannot be read). */
export const run = async (options: Options, io: Io): Promise<number> => {
  const Engine = await import("./engine.js")
  const engine = await Engine.make(options)
  const unit = options.unit
  const out = sink(options, io.stdout)
  const failuresFile = options.failures === undefined ? undefined : fs.createWriteStream(options.failures)
  const show = options.framing !== "document" && !options.quiet && (io.stderr as { isTTY?: boolean }).isTTY === true
  const progress = meter(io.stderr, show, unit)

  let converted = 0
  let failed = 0
  let blank = 0
  let lost = 0
  // what the codecs lost by their formats' rules: counted by rule, the first of each shown
  const rules = new Map<string, number>()
  let bytesRead = 0
  const shapes = new Map<string, number>()

  const report = async (failure: EngineModule.Failure) => {
    failed++
    progress.clear()
    io.stderr.write(
      options.framing === "document"
        ? `${failure.tag}: ${failure.message}\n`
        : `${failure.tag}: ${unit} ${failure.line}: ${failure.message}\n`
    )
    if (failuresFile !== undefined) {
      const line = JSON.stringify({
        line: failure.line,
        tag: failure.tag,
        message: failure.message,
        path: failure.path
      })
      if (!failuresFile.write(line + "\n")) await drain(failuresFile)
    }
  }

  const emit = async (done: Done) => {
    await out.write(done.bytes ?? done.out ?? "")
    for (const failure of done.failures) await report(failure)
    for (const loss of done.losses) {
      if (loss.rule !== undefined) {
        const seen = rules.get(loss.rule) ?? 0
        rules.set(loss.rule, seen + 1)
        if (seen > 0 || options.quiet) continue
      } else lost++
      progress.clear()
      io.stderr.write(
        `lost: ${unit} ${loss.line}: ${loss.message}${
          loss.rule === undefined ? "" : " (the first of its kind; the summary counts them)"
        }\n`
      )
    }
    converted += done.converted
    blank += done.blank
    for (const [shape, n] of Object.entries(done.shapes)) shapes.set(shape, (shapes.get(shape) ?? 0) + n)
    progress.update(converted + failed + blank, bytesRead, failed)
  }

  // blocks in flight, in input order
  const worker = options.jobs > 1 && options.framing !== "document" ? workerFile() : undefined
  if (options.jobs > 1 && options.framing !== "document" && worker === undefined) {
    io.stderr.write(`${program} convert: --jobs needs the compiled CLI (npm run cli); converting in one thread\n`)
  }
  // a worker's young generation capped at 8 MB: each worker's heap is part of the peak RSS, and a
  // block's garbage is short-lived (docs/performance.md, "convert --jobs N")
  const pool = worker === undefined
    ? undefined
    : (await import("./pool.js")).make<EngineModule.Task, Worker.Reply>(worker, options.jobs, {
      maxYoungGenerationSizeMb: 8
    })
  const window = pool === undefined ? 1 : 2 * options.jobs
  const inFlight: Array<Promise<{ readonly done: Done } | { readonly error: unknown }>> = []
  const settle = async () => {
    const next = await inFlight.shift()!
    if ("error" in next) throw next.error
    await emit(next.done)
  }
  const submit = async (task: EngineModule.Task, transfer?: ArrayBuffer) => {
    const running: Promise<Done> = pool === undefined
      ? Engine.run(engine, task)
      : pool.run(task, transfer === undefined ? [] : [transfer])
    inFlight.push(running.then((done) => ({ done }), (error: unknown) => ({ error })))
    while (inFlight.length >= window) await settle()
  }
  const blockSize = pool === undefined ? 1 << 16 : 1 << 20

  let code = 0
  try {
    switch (options.framing) {
      case "jsonl": {
        let line = 1
        let offset = 0
        const block = async (bytes: Uint8Array) => {
          const lines = Lines.countNewlines(bytes) + (bytes[bytes.length - 1] === 10 ? 0 : 1)
          if (pool === undefined) await submit({ kind: "block", options, bytes, firstLine: line, inputOffset: offset })
          else {
            const own = copy(bytes)
            await submit(
              { kind: "block", options, bytes: own, firstLine: line, inputOffset: offset },
              own.buffer as ArrayBuffer
            )
          }
          line += lines
          offset += bytes.length
          bytesRead = offset
        }
        // the start of a line that later chunks continue, in pieces (copied: a chunk's buffer is reused)
        let pieces: Array<Uint8Array> = []
        for await (const chunk of inputBytes(io)) {
          let data = chunk
          if (pieces.length > 0) {
            const nl = data.indexOf(10)
            if (nl === -1) {
              pieces.push(copy(data))
              continue
            }
            await block(concat([...pieces, data.subarray(0, nl + 1)]))
            pieces = []
            data = data.subarray(nl + 1)
          }
          let start = 0
          while (start < data.length) {
            const limit = start + blockSize
            let end = limit >= data.length ? data.lastIndexOf(10) : data.lastIndexOf(10, limit)
            if (end < start) end = limit >= data.length ? -1 : data.indexOf(10, limit)
            if (end === -1) break
            await block(data.subarray(start, end + 1))
            start = end + 1
          }
          if (start < data.length) pieces.push(copy(data.subarray(start)))
        }
        if (pieces.length > 0) await block(concat(pieces))
        break
      }
      case "json-seq": {
        const text = new Utf8Text()
        const sequence = new Lines.Sequence()
        let batch: Array<Lines.Text> = []
        let size = 0
        const take = (record: Lines.Text) => {
          batch.push(record)
          size += record.text.length
        }
        const flush = async () => {
          if (batch.length === 0) return
          const records = batch
          batch = []
          size = 0
          await submit({ kind: "texts", options, records })
        }
        let bad: Lines.BadBytes | undefined
        for await (const chunk of inputBytes(io)) {
          const decoded = text.push(chunk)
          bytesRead += chunk.length
          if (typeof decoded !== "string") {
            bad = decoded
            break
          }
          sequence.feed(decoded, take)
          if (size >= blockSize) await flush()
        }
        bad ??= text.end()
        if (bad === undefined) sequence.finish(take)
        await flush()
        if (bad !== undefined) {
          while (inFlight.length > 0) await settle()
          await report(utf8Failure(bad))
        }
        break
      }
      case "parquet": {
        const Parquet = await import("./parquet.js")
        const batchRows = pool === undefined ? 256 : 512
        for await (const group of Parquet.rows(io.file!)) {
          for (let i = 0; i < group.records.length; i += batchRows) {
            await submit({
              kind: "values",
              options,
              records: group.records.slice(i, i + batchRows),
              first: group.first + i
            })
          }
          bytesRead += group.bytes
        }
        break
      }
      case "document": {
        const text = new Utf8Text()
        const pieces: Array<string> = []
        let bad: Lines.BadBytes | undefined
        for await (const chunk of inputBytes(io)) {
          const decoded = text.push(chunk)
          if (typeof decoded !== "string") {
            bad = decoded
            break
          }
          pieces.push(decoded)
        }
        bad ??= text.end()
        if (bad !== undefined) {
          await report(utf8Failure(bad))
          break
        }
        let record: unknown
        try {
          record = JSON.parse(pieces.join(""))
        } catch (e) {
          await report({
            line: 1,
            tag: "MalformedInput",
            message: `not valid JSON (${e instanceof Error ? e.message : String(e)})`,
            path: []
          })
          break
        }
        const result = await engine.document(record)
        if (result.ok) {
          await out.write(result.json + "\n")
          if (!options.quiet) { for (const loss of result.losses) io.stderr.write(`lost: ${loss}\n`) }
        } else await report(result.failure)
        break
      }
    }
    while (inFlight.length > 0) await settle()
  } catch (e) {
    if (!(e instanceof InputError) && !isReadError(e)) throw e
    progress.clear()
    io.stderr.write(`${program} convert: cannot read the input: ${e instanceof Error ? e.message : String(e)}\n`)
    code = 2
  } finally {
    await Promise.allSettled(inFlight)
    await pool?.destroy()
  }
  await out.end()
  if (failuresFile !== undefined) {
    failuresFile.end()
    await finished(failuresFile)
  }
  progress.update(converted + failed + blank, bytesRead, failed, true)
  progress.clear()
  if (options.framing !== "document" && !options.quiet) {
    const seen = converted + failed + blank
    const read = shapes.size === 0
      ? ""
      : `; read as ${[...shapes].map(([shape, n]) => `${shape} ${thousands(n)}`).join(", ")}`
    io.stderr.write(
      `${program} convert: ${thousands(converted)} converted, ${thousands(failed)} failed, ${thousands(blank)} blank${
        lost > 0 ? `, ${thousands(lost)} settings left out` : ""
      }${
        rules.size === 0 ?
          "" :
          `; lost by the formats' rules: ${[...rules].map(([rule, n]) => `${rule} ${thousands(n)}`).join(", ")}`
      } (${thousands(seen)} ${options.framing === "json-seq" ? "record" : unit}${seen === 1 ? "" : "s"}${read})\n`
    )
  }
  return code !== 0 ? code : failed > 0 ? 1 : 0
}

const isReadError = (e: unknown): boolean =>
  e instanceof Error && typeof (e as NodeJS.ErrnoException).code === "string" &&
  /^(E[A-Z]+|Z_[A-Z_]+)$/.test((e as NodeJS.ErrnoException).code!)

const utf8Failure = (bad: Lines.BadBytes): EngineModule.Failure => ({
  line: bad.line,
  tag: "InvalidUtf8",
  message: `not valid UTF-8: byte ${bad.offset} of the line (byte ${bad.inputOffset} of the input)`,
  path: []
})
