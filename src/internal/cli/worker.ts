/**
 * The worker threads of `convert --jobs N` (a `piscina` pool): each builds the engine once, for the
 * options of its first task (every task of a run has the same), and converts the blocks it is sent.
 * The output comes back as UTF-8 bytes, moved rather than copied, so the main thread only writes it.
 *
 * @internal
 */
import { move, transferableSymbol, valueSymbol } from "piscina"
import * as Engine from "./engine.js"

let engine: Promise<Engine.Engine> | undefined

const encoder = new TextEncoder()

/** What a task gives back: the result, its output as bytes. */
export type Reply = Omit<Engine.Result, "out"> & { readonly bytes: Uint8Array }

/** One task. */
export default async (task: Engine.Task): Promise<unknown> => {
  engine ??= Engine.make(task.options)
  const { out, ...rest } = await Engine.run(await engine, task)
  const reply: Reply = { ...rest, bytes: encoder.encode(out) }
  // a transferable wrapper, marked to be moved: `reply` arrives, its bytes' buffer transferred
  return move({ [transferableSymbol]: [reply.bytes.buffer], [valueSymbol]: reply })
}
