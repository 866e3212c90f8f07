/**
 * The Chat Completions codec's internal modules (`src/internal/openai/*`) import `OpenAiFormat` for
 * its schemas, and `OpenAiFormat` imports them: an ESM cycle; `OpenRouterFormat` reads
 * `OpenAiFormat`'s schemas as it loads. Whichever module loads first, nothing may touch a binding
 * of another before it is initialised. Each case loads one module first, in a fresh process (this
 * worker's module graph already holds them all), then converts both ways with both formats, reads a
 * response, and builds a Schema error message (the schemas' messages call into the decoder).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as path from "node:path"

const root = path.resolve(__dirname, "..")

const script = (module: string) => `
const first = await import("./src/${module}.ts")
const OpenAiFormat = await import("./src/OpenAiFormat.ts")
const OpenRouterFormat = await import("./src/OpenRouterFormat.ts")
const wire = [
  { role: "system", content: "Be brief." },
  { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c1", content: "ok" }
]
const out = {}
for (const format of [OpenAiFormat, OpenRouterFormat]) {
  const decoded = format.decode({ model: "m", messages: wire })
  const encoded = format.encode(decoded.right)
  const response = format.decodeResponse({ choices: [{ message: { role: "assistant", content: "hi" }, finish_reason: "stop" }] })
  const error = format.decode([{ role: "user", content: 5 }])
  out[format.name] = { encoded: encoded.right, stop: response.right?.stopReason, error: error.left?.reason }
}
console.log(JSON.stringify({ exports: Object.keys(first).length > 0, ...out }))
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

const wire = [
  { role: "system", content: "Be brief." },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }]
  },
  { role: "tool", tool_call_id: "c1", content: "ok" }
]

describe("OpenAI layout: every module of the Chat Completions codec can load first", () => {
  for (
    const module of [
      "internal/openai/decode",
      "internal/openai/encode",
      "internal/openai/response",
      "internal/openai/stream",
      "OpenAiFormat",
      "OpenRouterFormat"
    ]
  ) {
    it(`src/${module}.ts`, async () => {
      const result = await run(module)
      assert.strictEqual(result.stderr, "")
      assert.strictEqual(result.code, 0)
      const out = JSON.parse(result.stdout)
      assert.isTrue(out.exports)
      for (const format of ["openai", "openrouter"]) {
        assert.deepStrictEqual(out[format], {
          encoded: wire,
          stop: "stop",
          error: "Expected a string or an array of content parts, actual 5"
        })
      }
    }, 60_000)
  }
})
