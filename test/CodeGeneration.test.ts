/**
 * The library loads and converts where code generation from strings is refused (`node
 * --disallow-code-generation-from-strings`, a page whose Content Security Policy has no
 * `'unsafe-eval'`, an MV3 extension, Cloudflare Workers): nothing is compiled when a module loads,
 * and every guard is built as closures there (src/internal/guard.ts). A child process runs every
 * codec on the golden-vector conversations under that flag, and prints exactly what the same run
 * prints here, where guards are generated source.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as path from "node:path"
import * as Guard from "../src/internal/guard.js"
import { run } from "./utils/everyCodec.js"

const root = path.resolve(__dirname, "..")

const node = (args: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      args,
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)
    )
  )

const child = (flags: ReadonlyArray<string>): Promise<string> =>
  node([...flags, "--import", "tsx", path.join(root, "test/utils/everyCodec.ts")])

describe("without code generation from strings", () => {
  it("every codec loads, and converts and fails as it does with it", async () => {
    const out = JSON.parse(await child(["--disallow-code-generation-from-strings"]))
    assert.isFalse(out.generates, "the child refuses code generation")
    assert.isFalse(out.guardGenerates, "so its guards are closures")
    assert.isTrue(Guard.canGenerate(), "here, guards are generated source")
    assert.deepStrictEqual(out.result, JSON.parse(JSON.stringify(run())))
  })
})

describe("nothing is compiled when the library loads", () => {
  it("source text is compiled only when a decoder first needs its guard", async () => {
    // `new Function` counted in a fresh process, from before the library loads
    const script = `
let calls = 0
globalThis.Function = new Proxy(Function, { construct(target, args) { calls++; return Reflect.construct(target, args) } })
const library = await import(${JSON.stringify(path.join(root, "src/index.ts"))})
const atImport = calls
const decoded = library.AnthropicFormat.decode({ messages: [{ role: "user", content: "hi" }] })
console.log(JSON.stringify({ atImport, afterDecode: calls, decoded: decoded._tag }))`
    const out = JSON.parse(await node(["--import", "tsx", "--input-type=module", "-e", script]))
    assert.deepStrictEqual(out.atImport, 0)
    assert.isAbove(out.afterDecode, 0)
    assert.strictEqual(out.decoded, "Right")
  })
})
