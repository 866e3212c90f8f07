/**
 * Every ```ts example in README.md, docs/**.md and the doc comments of src/**.ts (the module-level
 * `@example`s) type-checks and runs, as a reader would run it, and prints exactly the output shown
 * after it (a ```text output fence; see test/utils/docs.ts). Examples also check their own claims with
 * `node:assert`, so a doc that drifts from the code fails here. Mark a fence ```ts no-run to exclude
 * it (for fragments that are not whole programs).
 *
 * The examples run one after another inside this worker, each imported as a module (one process, one
 * transform cache), with `console` captured while it runs. `npm run docs:outputs` (DOCS_UPDATE=1)
 * writes what they print into the docs instead of comparing.
 *
 * A page's shell sessions (```sh session fences: `$ command` lines, each followed by what it prints)
 * run too, in bash, in a directory holding the files the page shows (fences marked `file=NAME`), with
 * `openreward-effect` on the PATH as the compiled CLI (one transpiled copy of `src/`); what they print
 * (stdout and stderr together) must be what the page shows, and `npm run docs:outputs` rewrites it.
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { promisify } from "node:util"
import * as util from "node:util"
import * as CompiledCli from "./utils/compiledCli.js"
import * as Docs from "./utils/docs.js"

const root = path.resolve(__dirname, "..")
const outDir = path.join(root, "test", ".docs-snippets")
const update = process.env["DOCS_UPDATE"] === "1"
const snippets = Docs.snippets(root)
// One folder per page, so that an example saved by name (```ts file=NAME) is beside the examples that
// import it, as in a reader's project.
const fileOf = (snippet: Docs.Snippet) =>
  path.join(outDir, snippet.file.replace(/[/.]/g, "_"), snippet.name ?? `line_${snippet.line}.ts`)

fs.rmSync(outDir, { recursive: true, force: true })
for (const snippet of snippets) {
  fs.mkdirSync(path.dirname(fileOf(snippet)), { recursive: true })
  fs.writeFileSync(fileOf(snippet), snippet.code)
}

// The type check is one tsc process over every example; it runs while the examples run. It is
// incremental (its state in node_modules/.cache): a later run checks again only what changed, and
// reports again what failed, instead of the whole library and the SDKs' types each time.
const typeCheck = promisify(execFile)(
  path.join(root, "node_modules", ".bin", "tsc"),
  [
    "-p",
    "tsconfig.docs.json",
    "--incremental",
    "--tsBuildInfoFile",
    path.join(root, "node_modules", ".cache", "docs-typecheck.tsbuildinfo")
  ],
  { cwd: root, timeout: 150_000 }
).then(() => undefined, (e: { stdout?: string }) => e.stdout ?? String(e))

/** Run an example in this process, returning what it printed through `console`. */
const runCaptured = async (file: string): Promise<string> => {
  const printed: Array<string> = []
  const methods = ["log", "info", "warn", "error", "debug"] as const
  const saved = methods.map((m) => console[m])
  const dir = console.dir
  for (const m of methods) console[m] = (...args: Array<unknown>) => void printed.push(util.format(...args))
  // As Node's console.dir prints it: no custom inspection, the caller's options (depth) applied.
  console.dir = (item: unknown, options?: util.InspectOptions) =>
    void printed.push(util.inspect(item, { customInspect: false, ...options }))
  try {
    await import(pathToFileURL(file).href)
  } finally {
    methods.forEach((m, i) => (console[m] = saved[i]!))
    console.dir = dir
  }
  return Docs.normalize(printed.join("\n"))
}

const printedBy = new Map<string, Map<number, string>>()

describe("the docs parser", () => {
  const page = (command: string) =>
    ["```ts file=a.ts", "console.log(1)", "```", "", "```sh", command, "```", "", "```text output", "1", "```"].join(
      "\n"
    )

  it("an output after the command that runs a named example is the example's; rewrite keeps the command", () => {
    const [snippet] = Docs.parse("x.md", page("npx tsx a.ts"))
    assert.deepStrictEqual([snippet!.name, snippet!.output?.text, snippet!.anchor], ["a.ts", "1", 6])
    const rewritten = Docs.rewrite("x.md", page("npx tsx a.ts"), new Map([[1, "2"]]))
    assert.strictEqual(rewritten, page("npx tsx a.ts").replace("\n1\n", "\n2\n"))
  })

  it("a command that does not name the example keeps its output to itself", () => {
    const [snippet] = Docs.parse("x.md", page("npx openreward-effect --help"))
    assert.deepStrictEqual([snippet!.output, snippet!.anchor], [undefined, 2])
  })
})

describe("documentation examples", () => {
  it("finds examples to run, in the docs and in the sources' doc comments", () => {
    assert.isAbove(snippets.filter((s) => s.file.endsWith(".md")).length, 0)
    assert.isAbove(snippets.filter((s) => s.file.startsWith("src")).length, 0)
  })

  it("a page saves each file name once (```ts file=NAME)", () => {
    const named = snippets.flatMap((s) => s.name === undefined ? [] : [`${s.file}: ${s.name}`])
    assert.deepStrictEqual(named.filter((n, i) => named.indexOf(n) !== i), [])
    assert.isAbove(named.length, 0)
  })

  for (const snippet of snippets) {
    it(`${snippet.file}:${snippet.line} runs and prints what it shows`, async () => {
      let printed: string
      try {
        printed = await runCaptured(fileOf(snippet))
      } catch (e) {
        assert.fail(`${snippet.file}:${snippet.line} failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`)
      }
      if (update) {
        const outputs = printedBy.get(snippet.file) ?? new Map<number, string>()
        outputs.set(snippet.line, printed)
        printedBy.set(snippet.file, outputs)
        return
      }
      if (snippet.output === undefined) {
        assert.strictEqual(
          printed,
          "",
          `${snippet.file}:${snippet.line} prints but does not show it: add a \`\`\`text output fence after it (npm run docs:outputs)`
        )
      } else {
        assert.strictEqual(
          printed,
          Docs.normalize(snippet.output.text),
          `${snippet.file}:${snippet.line}: the output shown is not what the example prints (npm run docs:outputs)`
        )
      }
    }, 60_000)
  }

  it("type-check, as a reader's editor would check them", async () => {
    const errors = await typeCheck
    if (errors !== undefined) assert.fail(`documentation examples do not type-check:\n${errors}`)
  }, 150_000)

  afterAll(() => {
    for (const [file, outputs] of printedBy) {
      const full = path.join(root, file)
      fs.writeFileSync(full, Docs.rewrite(file, fs.readFileSync(full, "utf8"), outputs))
    }
  })
})

const pages = Docs.sessionPages(root)

describe("documentation shell sessions", () => {
  const build = path.join(root, "node_modules", ".cache", `openreward-docs-cli-${process.pid}`)
  const bin = path.join(build, "bin")
  let cli = ""
  // the sessions' own `openreward-effect`: the compiled CLI, run with plain node
  it("builds the CLI the sessions run", () => {
    cli = CompiledCli.make(root, build)
    fs.mkdirSync(bin, { recursive: true })
    fs.writeFileSync(path.join(bin, "openreward-effect"), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, {
      mode: 0o755
    })
    assert.isAbove(pages.length, 0)
  }, 60_000)

  for (const page of pages) {
    it(`${page.file}: every command prints what the page shows`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "openreward-docs-session-"))
      const outputs = new Map<number, string>()
      try {
        for (const file of page.files) {
          fs.mkdirSync(path.dirname(path.join(dir, file.name)), { recursive: true })
          if ("from" in file) fs.copyFileSync(path.join(root, file.from), path.join(dir, file.name))
          else fs.writeFileSync(path.join(dir, file.name), file.text)
        }
        for (const command of page.commands) {
          const printed = await new Promise<string>((resolve) => {
            const child = execFile("bash", ["-c", `exec 2>&1\n${command.command}`], {
              cwd: dir,
              env: { ...process.env, PATH: `${bin}:${process.env["PATH"] ?? ""}` },
              maxBuffer: 1 << 26
            }, (_error, stdout) => resolve(stdout))
            child.stdin?.end()
          })
          const shown = Docs.normalize(printed)
          if (update) outputs.set(command.line, shown)
          else {
            assert.strictEqual(
              shown,
              Docs.normalize(command.output),
              `${page.file}:${command.line}: \`${command.command}\` printed something else (npm run docs:outputs)`
            )
          }
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
      if (update) {
        const full = path.join(root, page.file)
        fs.writeFileSync(full, Docs.rewriteSessions(page.file, fs.readFileSync(full, "utf8"), outputs))
      }
    }, 120_000)
  }

  afterAll(() => fs.rmSync(build, { recursive: true, force: true }))
})
