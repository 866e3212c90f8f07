/**
 * Summaries and the printed report of `npm run bench:server`: per target, the median over rounds
 * of throughput and latency; per pair of targets, the median over rounds of the ratio of their
 * throughputs measured in the same round (so both figures of a ratio saw the same machine).
 */
import type { Sample } from "./load.js"

/** A measured sample with the CPU time the server and the load generator spent during it. */
export interface Measured extends Sample {
  /** CPU seconds per second of the server process (1 = one core busy), when known. */
  readonly serverCpu: number | undefined
  /** The same for the load generator. */
  readonly loadCpu: number | undefined
}

/** The median of some numbers (the mean of the middle two for an even count). */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length === 0
    ? Number.NaN
    : sorted.length % 2 === 1
    ? sorted[mid]!
    : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Requests per second of a sample. */
export const rate = (sample: Sample): number => sample.ok / sample.seconds

/** A target's figures over every round. */
export interface Summary {
  readonly rate: number
  readonly minRate: number
  readonly maxRate: number
  readonly p50: number
  readonly p99: number
  readonly serverCpu: number | undefined
  readonly loadCpu: number | undefined
}

const medianOf = (values: ReadonlyArray<number | undefined>): number | undefined => {
  const known = values.filter((v): v is number => v !== undefined)
  return known.length === 0 ? undefined : median(known)
}

/** Summarise a target's samples (one per round). */
export const summarise = (samples: ReadonlyArray<Measured>): Summary => {
  const rates = samples.map(rate)
  return {
    rate: median(rates),
    minRate: Math.min(...rates),
    maxRate: Math.max(...rates),
    p50: median(samples.map((s) => s.latency.p50)),
    p99: median(samples.map((s) => s.latency.p99)),
    serverCpu: medianOf(samples.map((s) => s.serverCpu)),
    loadCpu: medianOf(samples.map((s) => s.loadCpu))
  }
}

/** A ratio of throughputs, round by round. */
export interface Ratio {
  readonly median: number
  readonly min: number
  readonly max: number
}

/** The ratio `a / b` of two targets' throughputs, taken round by round (samples in round order). */
export const ratio = (a: ReadonlyArray<Sample>, b: ReadonlyArray<Sample>): Ratio => {
  const ratios = a.map((sample, i) => rate(sample) / rate(b[i]!))
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) }
}

/**
 * The ratio `a / b` of two targets' throughputs per core (requests per CPU-second of the server's
 * processes), round by round; undefined when the CPU time is unknown.
 */
export const perCoreRatio = (a: ReadonlyArray<Measured>, b: ReadonlyArray<Measured>): Ratio | undefined => {
  const ratios: Array<number> = []
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.serverCpu === undefined || y.serverCpu === undefined) return undefined
    ratios.push((rate(x) / x.serverCpu) / (rate(y) / y.serverCpu))
  }
  return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) }
}

/** A whole number with thousands separators. */
export const count = (n: number): string => Math.round(n).toLocaleString("en-US")

/** Milliseconds with two decimals. */
export const ms = (n: number | null): string => (n === null || !Number.isFinite(n) ? "-" : n.toFixed(2))

/** A ratio: `3.41x`. */
export const times = (n: number): string => `${n.toFixed(2)}x`

/** A CPU share: `98%`, or `-` when unknown. */
export const cpu = (n: number | undefined): string => n === undefined ? "-" : `${Math.round(n * 100)}%`

/** Render a table with aligned columns: the first column left, the rest right. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const all = [header, ...rows]
  const widths = header.map((_, c) => Math.max(...all.map((row) => [...(row[c] ?? "")].length)))
  const line = (row: ReadonlyArray<string>) =>
    row.map((cell, c) => {
      const pad = " ".repeat((widths[c] ?? 0) - [...cell].length)
      return c === 0 ? cell + pad : pad + cell
    }).join("  ").trimEnd()
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n")
}
