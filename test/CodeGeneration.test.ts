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

const child = (flags: ReadonlyArray<string>): Promise<string> =>
  new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [...flags, "--import", "tsx", path.join(root, "test/utils/everyCodec.ts")],
      { cwd: root, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)
    )
  )

describe("without code generation from strings", () => {
  it("every codec loads, and converts and fails as it does with it", async () => {
    const out = JSON.parse(await child(["--disallow-code-generation-from-strings"]))
    assert.isFalse(out.generates, "the child refuses code generation")
    assert.isFalse(out.guardGenerates, "so its guards are closures")
    assert.isTrue(Guard.canGenerate(), "here, guards are generated source")
    assert.deepStrictEqual(out.result, JSON.parse(JSON.stringify(run())))
  })
})
