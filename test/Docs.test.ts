/**
 * Every ```ts example in README.md and docs/*.md runs, as a reader would run it. Examples check their
 * own claims with `node:assert`, so a doc that drifts from the code fails here. Mark a fence
 * ```ts no-run to exclude it (for fragments that are not whole programs).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"

const root = path.resolve(__dirname, "..")
const outDir = path.join(root, "test", ".docs-snippets")
const run = promisify(execFile)

const docs = [
  "README.md",
  ...fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`),
  ...(fs.existsSync(path.join(root, "docs", "formats"))
    ? fs.readdirSync(path.join(root, "docs", "formats")).filter((f) => f.endsWith(".md")).map((f) =>
      `docs/formats/${f}`
    )
    : [])
]

interface Snippet {
  readonly doc: string
  readonly line: number
  readonly code: string
}

const snippets: Array<Snippet> = docs.flatMap((doc) => {
  const text = fs.readFileSync(path.join(root, doc), "utf8")
  const found: Array<Snippet> = []
  const fence = /^```ts([^\n]*)\n([\s\S]*?)^```/gm
  for (const match of text.matchAll(fence)) {
    if ((match[1] ?? "").includes("no-run")) continue
    const line = text.slice(0, match.index).split("\n").length
    found.push({ doc, line, code: match[2] ?? "" })
  }
  return found
})

const fileOf = (snippet: Snippet) => path.join(outDir, `${snippet.doc.replace(/[/.]/g, "_")}_${snippet.line}.ts`)

describe.concurrent("documentation examples", () => {
  fs.rmSync(outDir, { recursive: true, force: true })
  fs.mkdirSync(outDir, { recursive: true })
  for (const snippet of snippets) fs.writeFileSync(fileOf(snippet), snippet.code)

  it("finds examples to run", () => {
    assert.isAbove(snippets.length, 0)
  })

  it("type-check, as a reader's editor would check them", async () => {
    try {
      await run(path.join(root, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.docs.json"], {
        cwd: root,
        timeout: 120_000
      })
    } catch (e) {
      const error = e as { stdout?: string }
      assert.fail(`documentation examples do not type-check:\n${error.stdout ?? ""}`)
    }
  }, 150_000)

  for (const snippet of snippets) {
    it(`${snippet.doc}:${snippet.line} runs`, async () => {
      const file = fileOf(snippet)
      try {
        await run(path.join(root, "node_modules", ".bin", "tsx"), [file], { cwd: root, timeout: 60_000 })
      } catch (e) {
        const error = e as { stderr?: string; stdout?: string }
        assert.fail(`${snippet.doc}:${snippet.line} failed:\n${error.stderr ?? ""}${error.stdout ?? ""}`)
      }
    }, 90_000)
  }
})
