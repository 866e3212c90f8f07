/**
 * The Chat Completions codec's internal modules (`src/internal/openai/*`) import `OpenAiFormat` for
 * its schemas, and `OpenAiFormat` imports them: an ESM cycle; `OpenRouterFormat` reads
 * `OpenAiFormat`'s schemas as it loads. The same holds for `src/internal/openaiResponses/*` and
 * `OpenAiResponsesFormat`. Whichever module loads first, nothing may touch a binding of another
 * before it is initialised. Each case loads one module first, in a fresh process (this worker's
 * module graph already holds them all), then converts both ways, reads a response, and builds a
 * Schema error message (the Chat Completions schemas' messages call into the decoder). The encoders
 * import the public modules for types only: loading one first is loading the public module first.
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

const run = (script: string) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
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

// the cases run side by side: each is a child process, most of whose time is loading modules
describe.concurrent("OpenAI layout: every module of the Chat Completions codec can load first", () => {
  for (
    const module of [
      "internal/openai/decode",
      "internal/openai/response",
      "internal/openai/stream",
      "OpenAiFormat",
      "OpenRouterFormat"
    ]
  ) {
    it(`src/${module}.ts`, async () => {
      const result = await run(script(module))
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

const responsesScript = (module: string) => `
const first = await import("./src/${module}.ts")
const Format = await import("./src/OpenAiResponsesFormat.ts")
const items = [
  { role: "system", content: "Be brief." },
  { type: "function_call", call_id: "c1", name: "f", arguments: "{}" },
  { type: "function_call_output", call_id: "c1", output: "ok" }
]
const decoded = Format.decode({ model: "m", input: items })
const encoded = Format.encode(decoded.right)
const response = Format.decodeResponse({ status: "completed", output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "hi" }] }] })
const error = Format.decode([{ role: "user", content: 5 }])
console.log(JSON.stringify({ exports: Object.keys(first).length > 0, encoded: encoded.right, stop: response.right?.stopReason, error: error.left?._tag }))
`

// the cases run side by side: each is a child process, most of whose time is loading modules
describe.concurrent("OpenAI Responses layout: every module of the codec can load first", () => {
  for (
    const module of [
      "internal/openaiResponses/decode",
      "internal/openaiResponses/response",
      "internal/openaiResponses/stream",
      "OpenAiResponsesFormat"
    ]
  ) {
    it(`src/${module}.ts`, async () => {
      const result = await run(responsesScript(module))
      assert.strictEqual(result.stderr, "")
      assert.strictEqual(result.code, 0)
      const out = JSON.parse(result.stdout)
      assert.deepStrictEqual(out, {
        exports: true,
        encoded: [
          { type: "message", role: "system", content: "Be brief." },
          { type: "function_call", call_id: "c1", name: "f", arguments: "{}" },
          { type: "function_call_output", call_id: "c1", output: "ok" }
        ],
        stop: "stop",
        error: "MalformedInput"
      })
    }, 60_000)
  }
})
