/**
 * The worker threads of `convert --jobs N`: N `node:worker_threads` workers running `worker.ts`,
 * each given one task at a time, the others queued. A task's result resolves its own promise, so the
 * caller decides the order it uses them in (input order, in `convert`).
 *
 * Not a pool library: the package has no dependencies (test/Package.test.ts), the well-kept pools
 * (`piscina`, `tinypool`) start their own worker script from their package directory, which a bundle
 * does not have, and `piscina`'s loads an ES module through `new Function`. What `convert` needs of a
 * pool is this much.
 *
 * @internal
 */
import { Worker } from "node:worker_threads"

/** A running pool. */
export interface Pool<Task, Reply> {
  /** Run `task` on the next free worker, moving `transfer` to it. */
  readonly run: (task: Task, transfer?: ReadonlyArray<ArrayBuffer>) => Promise<Reply>
  /** Stop every worker (a task still running is abandoned). */
  readonly destroy: () => Promise<void>
}

interface Job<Task, Reply> {
  readonly task: Task
  readonly transfer: ReadonlyArray<ArrayBuffer>
  readonly resolve: (reply: Reply) => void
  readonly reject: (error: unknown) => void
}

/** What a worker posts back: its reply, or the message of what it threw. */
export type Message<Reply> = { readonly ok: Reply } | { readonly error: string }

/** Start `size` workers on `filename`. */
export const make = <Task, Reply>(
  filename: string,
  size: number,
  options: { readonly maxYoungGenerationSizeMb?: number } = {}
): Pool<Task, Reply> => {
  const queue: Array<Job<Task, Reply>> = []
  const idle: Array<Worker> = []
  const running = new Map<Worker, Job<Task, Reply>>()
  let failure: unknown

  const next = (worker: Worker) => {
    const job = queue.shift()
    if (job === undefined) {
      idle.push(worker)
      return
    }
    running.set(worker, job)
    worker.postMessage(job.task, [...job.transfer])
  }
  const workers = Array.from({ length: size }, () => {
    const worker = new Worker(filename, {
      resourceLimits: options.maxYoungGenerationSizeMb === undefined
        ? {}
        : { maxYoungGenerationSizeMb: options.maxYoungGenerationSizeMb }
    })
    worker.on("message", (message: Message<Reply>) => {
      const job = running.get(worker)
      running.delete(worker)
      if (job !== undefined) {
        if ("ok" in message) job.resolve(message.ok)
        else job.reject(new Error(message.error))
      }
      next(worker)
    })
    // a worker that dies fails its task and every task after it
    const died = (error: unknown) => {
      failure ??= error
      running.get(worker)?.reject(error)
      running.delete(worker)
      for (const job of queue.splice(0)) job.reject(error)
    }
    worker.on("error", died)
    worker.on("exit", (code) => {
      if (running.has(worker)) died(new Error(`a worker thread stopped (exit code ${code})`))
    })
    idle.push(worker)
    return worker
  })

  return {
    run: (task, transfer = []) =>
      new Promise<Reply>((resolve, reject) => {
        if (failure !== undefined) return reject(failure)
        queue.push({ task, transfer, resolve, reject })
        const worker = idle.pop()
        if (worker !== undefined) next(worker)
      }),
    destroy: async () => {
      await Promise.all(workers.map((w) => w.terminate()))
    }
  }
}
