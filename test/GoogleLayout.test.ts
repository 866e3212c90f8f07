/**
 * The Google codec's internal modules import `GoogleFormat` for its schemas, and `GoogleFormat`
 * imports them: an ESM cycle. Whichever module loads first, nothing may touch a binding of the
 * other before it is initialised. Each case loads one internal module first, in a fresh process
 * (this worker's module graph already holds `GoogleFormat`), then converts both ways.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as path from "node:path"

const root = path.resolve(__dirname, "..")

const script = (module: string) => `
const first = await import("./src/internal/google/${module}.ts")
const GoogleFormat = await import("./src/GoogleFormat.ts")
const wire = { system_instruction: "Be brief.", contents: [
  { role: "model", parts: [{ function_call: { name: "f", args: {} } }] },
  { role: "user", parts: [{ function_response: { name: "f", response: { output: "ok" } } }] }
] }
const decoded = GoogleFormat.decode(wire)
const encoded = GoogleFormat.encode(decoded.right)
const response = await GoogleFormat.decodeResponse({ candidates: [{ content: { parts: [{ text: "hi" }] }, finishReason: "STOP" }] })
console.log(JSON.stringify({ exports: Object.keys(first).sort(), encoded: encoded.right, stop: response.right?.stopReason }))
`

const run = (module: string) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script(module)],
      { cwd: root, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr })
    )
  )

// the cases run side by side: each is a child process, most of whose time is loading modules
describe.concurrent("Google layout: every internal module can load first", () => {
  for (
    const [module, exports] of [
      ["decode", ["decode"]],
      ["encode", ["encode"]],
      ["response", ["Candidate", "Envelope", "Usage", "decodeResponse"]],
      ["stream", ["assemble", "decodeStream"]]
    ] as const
  ) {
    it(`src/internal/google/${module}.ts`, async () => {
      const result = await run(module)
      assert.strictEqual(result.stderr, "")
      assert.strictEqual(result.code, 0)
      const out = JSON.parse(result.stdout)
      assert.deepStrictEqual(out.exports, [...exports])
      assert.deepStrictEqual(out.encoded, {
        system_instruction: "Be brief.",
        contents: [
          { role: "model", parts: [{ function_call: { name: "f", args: {} } }] },
          { role: "user", parts: [{ function_response: { name: "f", response: { output: "ok" } } }] }
        ]
      })
      assert.strictEqual(out.stop, "stop")
    }, 60_000)
  }
})
