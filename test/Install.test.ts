/**
 * Install commands that work as written. npm's `latest` of several packages this library works with
 * is a later line than ours (`effect` and `@effect/platform-node` 4, `ai` 7 and `@ai-sdk/*` 4, which
 * need Effect 4 or Node 22), and `npm install @effect/platform-node` then fails with `ERESOLVE`
 * beside `effect` 3. So every `npm install` in README.md and docs/, and the command `serve` prints
 * when its peers are missing, pins each of these packages to the line package.json declares
 * (`peerDependencies`, or for the toolkits' provider packages and the providers' SDKs the
 * `devDependencies` the tests run).
 * `npm run test:package` installs the pinned lines for real from the registry.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Main from "../src/internal/cli/main.js"

const root = path.resolve(__dirname, "..")
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  readonly peerDependencies: Record<string, string>
  readonly devDependencies: Record<string, string>
}

/**
 * The packages whose line matters: effect, the Effect packages, the AI SDK's, and the providers'
 * SDKs (whose latest lines need Node 22).
 */
const pinned = /^(effect|ai|openai|@effect\/[a-z-]+|@ai-sdk\/[a-z-]+|@anthropic-ai\/sdk|@google\/genai)$/

/** A version's line: `0.97` for 0.97.x, `3` for 3.x (what a caret range keeps). */
const lineOf = (version: string): string | undefined => {
  const match = /^[\^~]?(\d+)(?:\.(\d+))?/.exec(version)
  if (match === null) return undefined
  return match[1] === "0" ? (match[2] === undefined ? undefined : `0.${match[2]}`) : match[1]
}

/** The line package.json declares for a package: its peer range, else the version the tests use. */
const declaredLine = (name: string): string | undefined =>
  lineOf(manifest.peerDependencies[name] ?? manifest.devDependencies[name] ?? "")

/** `name@spec` split; a scoped name keeps its leading `@`. */
const splitSpec = (token: string): { readonly name: string; readonly spec: string | undefined } => {
  const at = token.indexOf("@", 1)
  return at === -1 ? { name: token, spec: undefined } : { name: token.slice(0, at), spec: token.slice(at + 1) }
}

/** What is wrong with one package argument of an install command, if anything. */
const problem = (token: string): string | undefined => {
  const { name, spec } = splitSpec(token)
  if (!pinned.test(name)) return undefined
  const line = declaredLine(name)
  if (line === undefined) return `${name}: package.json declares no line for it`
  if (spec === undefined) return `${name} is not pinned: write ${name}@^${line}`
  if (!/^\^\d+(\.\d+){0,2}$/.test(spec) || lineOf(spec) !== line) {
    return `${name}@${spec}: package.json's line is ${line}; write ${name}@^${line}`
  }
  return undefined
}

/** The package arguments of every `npm install` (`npm i`, `npm add`) on a line of text. */
const installArguments = (text: string): Array<string> =>
  [...text.matchAll(/\bnpm (?:install|i|add)\b([^`#&;|\n]*)/g)].flatMap((m) =>
    m[1]!.trim().split(/\s+/).filter((t) => t !== "" && !t.startsWith("-"))
  )

const markdown = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return full === path.join(root, "docs", "api") ? [] : markdown(full)
    return entry.name.endsWith(".md") ? [full] : []
  })

const pages = [path.join(root, "README.md"), ...markdown(path.join(root, "docs"))]

describe("install commands", () => {
  it("the rule catches what fails (a bare name, npm's latest line, a range across lines)", () => {
    assert.match(problem("@effect/platform-node")!, /not pinned: write @effect\/platform-node@\^0\.108/)
    assert.match(problem("effect@latest")!, /line is 3/)
    assert.match(problem("ai@7")!, /line is 6/)
    assert.match(problem("@effect/ai@0.37")!, /write @effect\/ai@\^0\.37/)
    assert.match(problem("@effect/platform@^0.96")!, /line is 0\.97/)
    assert.match(problem("@effect/ai-google@^0.15")!, /declares no line/)
    assert.isUndefined(problem("effect@^3.22"))
    assert.isUndefined(problem("@ai-sdk/openai@^3"))
    assert.isUndefined(problem("openreward-effect"))
    assert.isUndefined(problem("tsx"))
    assert.match(problem("openai")!, /write openai@\^6/)
    assert.match(problem("@google/genai@^3")!, /line is 2/)
    assert.deepStrictEqual(installArguments("run `npm install -D a b@^1` then `npm i c` # or: npm install d"), [
      "a",
      "b@^1",
      "c",
      "d"
    ])
  })

  for (const page of pages) {
    const file = path.relative(root, page)
    const lines = fs.readFileSync(page, "utf8").split("\n")
    const commands = lines.flatMap((text, i) => installArguments(text).map((token) => ({ token, line: i + 1 })))
    if (commands.length === 0) continue
    it(`${file}: every install command pins the peers' lines`, () => {
      const problems = commands.flatMap(({ line, token }) => {
        const found = problem(token)
        return found === undefined ? [] : [`${file}:${line}: ${found}`]
      })
      assert.deepStrictEqual(problems, [])
    })
  }

  it("the pages name the peers and toolkits with their lines", () => {
    const all = pages.flatMap((page) => installArguments(fs.readFileSync(page, "utf8")))
    for (
      const name of ["effect", "@effect/platform", "@effect/platform-node", "@effect/experimental", "@effect/ai", "ai"]
    ) {
      assert.isTrue(all.some((t) => splitSpec(t).name === name), `no install command names ${name}`)
    }
  })

  it("serve's hint, when its peers are missing, pins them too", () => {
    assert.deepStrictEqual(Main.servePeers.map(problem), Main.servePeers.map(() => undefined))
    assert.deepStrictEqual(Main.servePeers.map((t) => splitSpec(t).name), [
      "@effect/platform",
      "@effect/platform-node",
      "@effect/experimental"
    ])
  })
})
