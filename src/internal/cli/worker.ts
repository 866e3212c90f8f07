/**
 * A worker thread of `convert --jobs N` (`pool.ts`): builds the engine once, for the options of its
 * first task (every task of a run has the same), and converts the blocks it is sent. The output goes
 * back as UTF-8 bytes, moved rather than copied, so the main thread only writes it.
 *
 * @internal
 */
import { parentPort } from "node:worker_threads"
import * as Engine from "./engine.js"
import type * as Pool from "./pool.js"

/** What a task gives back: the result, its output as bytes. */
export type Reply = Omit<Engine.BlockOutcome, "out"> & { readonly bytes: Uint8Array }

let engine: Promise<Engine.Engine> | undefined
const encoder = new TextEncoder()

parentPort?.on("message", (task: Engine.Task) => {
  engine ??= Engine.make(task.options)
  engine.then((e) => Engine.run(e, task)).then(
    ({ out, ...rest }) => {
      const bytes = encoder.encode(out)
      const message: Pool.Message<Reply> = { ok: { ...rest, bytes } }
      parentPort!.postMessage(message, [bytes.buffer as ArrayBuffer])
    },
    (error: unknown) => {
      const message: Pool.Message<Reply> = { error: error instanceof Error ? error.message : String(error) }
      parentPort!.postMessage(message)
    }
  )
})
