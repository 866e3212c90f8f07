/**
 * The Anthropic format's layout (docs/formats.md): `src/AnthropicFormat.ts` declares the schemas
 * and `src/internal/anthropic/*` implements the conversions, importing them back. That is an ESM
 * import cycle, so an internal module must work when it is the first one loaded, before the public
 * module's schemas exist. Each case loads one internal module first, in a process of its own (this
 * test runner shares one module graph between test files), and uses it.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

// `script` runs after `import * as M from <module>` as the process's first import; it prints JSON
const first = (module: string, script: string): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const source = `import * as M from ${JSON.stringify(path.join(root, module))}\n${script}\n`
    execFile(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", source],
      { cwd: root },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${module} loaded first failed: ${stderr}`))
        resolve(JSON.parse(stdout))
      }
    )
  })

// the cases run side by side: each is a child process, most of whose time is loading modules
describe.concurrent("src/internal/anthropic loaded before AnthropicFormat", () => {
  it("decode.ts decodes, rejects with the Schema's error and rejects an unknown request key", async () => {
    const out = await first(
      "src/internal/anthropic/decode.ts",
      `const ok = M.decode({ system: "s", messages: [{ role: "user", content: "hi" }], model: "m" })
const bad = M.decode([{ role: "user", content: 1 }])
console.log(JSON.stringify({ ok: ok.right, bad: bad.left._tag, path: bad.left.path, key: M.decode({ messages: [], modle: "m" }).left.path }))`
    )
    assert.deepStrictEqual(out, {
      ok: [
        { role: "system", blocks: [{ type: "text", text: "s", detail: null }], detail: null },
        { role: "user", blocks: [{ type: "text", text: "hi", detail: null }], detail: null }
      ],
      bad: "MalformedInput",
      path: [0, "content"],
      key: ["modle"]
    })
  })

  it("encode.ts encodes", async () => {
    const out = await first(
      "src/internal/anthropic/encode.ts",
      `const wire = M.encode([{ role: "system", blocks: [{ type: "text", text: "s", detail: null }], detail: null }])
console.log(JSON.stringify(wire.right))`
    )
    assert.deepStrictEqual(out, { system: "s", messages: [] })
  })

  it("response.ts decodes a response", async () => {
    const out = await first(
      "src/internal/anthropic/response.ts",
      `const r = M.decodeResponse({ type: "message", role: "assistant", content: [{ type: "text", text: "ok" }],
  stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 2 } })
console.log(JSON.stringify({ tag: r._tag, stop: r.right?.stopReason }))`
    )
    assert.deepStrictEqual(out, { tag: "Right", stop: "stop" })
  })
})
