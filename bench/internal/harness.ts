/**
 * A small benchmark harness for a shared, noisy machine.
 *
 * - Every variant of one comparison (our codec, the hand-written converter, the AI SDK) is measured
 *   in the same process, in **interleaved rounds**: round `r` takes one sample of each variant, in an
 *   order rotated by `r`, so a burst of load from a neighbour hits all variants alike.
 * - Each sample times a batch of operations sized (during warm-up) to last about `sampleMs`.
 * - No collection is forced between samples. Samples are long enough for each variant to pay for its
 *   own garbage, a scavenge costs what survives rather than what died, and forcing a minor GC
 *   before each sample changed nothing measurable (our Anthropic and Google encoders at 100 and
 *   1,000 turns, within 5%).
 * - Results are medians: the median time per operation, and for ratios the **median of the per-round
 *   ratios** (each ratio taken between samples of the same round).
 */
import * as v8 from "node:v8"
import * as vm from "node:vm"

v8.setFlagsFromString("--expose-gc")
const gcFunction = vm.runInNewContext("gc") as (options?: { readonly type: "minor" }) => void

/** Run a garbage collection (`major` by default). */
export const gc = (type: "minor" | "major" = "major"): void => type === "minor" ? gcFunction({ type }) : gcFunction()

/** One thing to measure. `run` may return a promise, which is awaited. */
export interface Variant {
  readonly name: string
  readonly run: () => unknown
}

/** Timing options. */
export interface Options {
  readonly samples: number
  readonly sampleMs: number
  readonly warmupMs: number
}

/** The measurements of one variant. */
export interface Measurement {
  readonly name: string
  /** Operations per sample, fixed after warm-up. */
  readonly batch: number
  /** Nanoseconds per operation, one entry per round. */
  readonly samples: ReadonlyArray<number>
  /** Median nanoseconds per operation. */
  readonly median: number
}

const now = (): bigint => process.hrtime.bigint()

const isPromise = (u: unknown): u is PromiseLike<unknown> =>
  typeof u === "object" && u !== null && typeof (u as { then?: unknown }).then === "function"

// Keeps results observable so the engine cannot drop the work.
let sink: unknown = undefined

/** Time `batch` calls of `run`; returns nanoseconds for the whole batch. */
const timeBatch = async (run: () => unknown, batch: number, async: boolean): Promise<number> => {
  if (async) {
    const start = now()
    for (let i = 0; i < batch; i++) sink = await run()
    return Number(now() - start)
  }
  const start = now()
  for (let i = 0; i < batch; i++) sink = run()
  return Number(now() - start)
}

/** Median of a non-empty list. */
export const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const hi = sorted[mid] ?? Number.NaN
  return sorted.length % 2 === 1 ? hi : ((sorted[mid - 1] ?? hi) + hi) / 2
}

interface Plan {
  readonly async: boolean
  readonly batch: number
}

/** Warm `run` up for about `ms`; size a batch so that a sample lasts about `sampleMs`. */
const warmUp = async (run: () => unknown, ms: number, sampleMs: number): Promise<Plan> => {
  const first = run()
  const async = isPromise(first)
  sink = async ? await first : first
  let batch = 1
  let spent = 0
  let perOp = Number.POSITIVE_INFINITY
  const deadline = ms * 1e6
  // At least a few rounds, so the optimising compiler has seen the code.
  for (let round = 0; round < 3 || spent < deadline; round++) {
    const ns = await timeBatch(run, batch, async)
    spent += ns
    perOp = Math.min(perOp, ns / batch)
    if (ns < deadline / 8) batch *= 2
  }
  return { async, batch: Math.max(1, Math.round((sampleMs * 1e6) / perOp)) }
}

/**
 * Measure the variants of one comparison in interleaved rounds.
 */
export const measure = async (
  variants: ReadonlyArray<Variant>,
  options: Options
): Promise<ReadonlyArray<Measurement>> => {
  const plans: Array<Plan> = []
  for (const variant of variants) plans.push(await warmUp(variant.run, options.warmupMs, options.sampleMs))
  const samples: Array<Array<number>> = variants.map(() => [])
  for (let round = 0; round < options.samples; round++) {
    for (let k = 0; k < variants.length; k++) {
      const index = (k + round) % variants.length
      const variant = variants[index]
      const plan = plans[index]
      if (variant === undefined || plan === undefined) continue
      const ns = await timeBatch(variant.run, plan.batch, plan.async)
      samples[index]?.push(ns / plan.batch)
    }
  }
  if (sink === Symbol.for("never")) console.log(sink)
  return variants.map((variant, i) => {
    const s = samples[i] ?? []
    return { name: variant.name, batch: plans[i]?.batch ?? 1, samples: s, median: median(s) }
  })
}

/**
 * The median over rounds of `a[r] / b[r]`: how many times slower `a` is than `b`, paired by round.
 */
export const pairedRatio = (a: Measurement, b: Measurement): number => {
  const ratios: Array<number> = []
  const n = Math.min(a.samples.length, b.samples.length)
  for (let r = 0; r < n; r++) ratios.push((a.samples[r] ?? Number.NaN) / (b.samples[r] ?? Number.NaN))
  return median(ratios)
}

/** Heap cost of one operation. */
export interface HeapCost {
  /** Bytes allocated while the operation ran (garbage included). */
  readonly allocated: number
  /** Bytes still reachable from the result after a full GC. */
  readonly retained: number
}

const usedHeap = (): number => v8.getHeapStatistics().used_heap_size

/**
 * Collect garbage until the used heap stops shrinking. Objects with finalizers (the AI SDK's
 * `Response`s, for one) are only released after the event loop turns, so one `gc()` is not enough.
 */
const settle = async (): Promise<number> => {
  let last = Number.POSITIVE_INFINITY
  for (let i = 0; i < 10; i++) {
    gc()
    await new Promise((resolve) => setImmediate(resolve))
    const used = usedHeap()
    if (Math.abs(last - used) < 64 * 1024) return used
    last = used
  }
  return last
}

/**
 * Measure the bytes one call of `run` allocates and the bytes its result retains.
 *
 * Allocation is read from V8's GC profiler: the bytes allocated in a window equal the growth of the
 * used heap over the window plus everything the collections inside it freed.
 */
export const heapCost = async (run: () => unknown): Promise<HeapCost> => {
  const before = await settle()
  const profiler = new v8.GCProfiler()
  profiler.start()
  let result = run()
  if (isPromise(result)) result = await result
  const end = usedHeap()
  const profile = profiler.stop()
  let freed = 0
  for (const entry of profile?.statistics ?? []) {
    freed += entry.beforeGC.heapStatistics.usedHeapSize - entry.afterGC.heapStatistics.usedHeapSize
  }
  const retained = (await settle()) - before
  sink = result
  return { allocated: end - before + freed, retained }
}
