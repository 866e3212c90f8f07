/**
 * The toolkit bridges' packages are optional peer dependencies: only `openreward-effect/EffectAi`,
 * `openreward-effect/AiSdk` and the modules built on `@effect/ai` (the judges, the grader, the
 * chat model channel and the AI SDK model adapter) may load them. Walks the imports of every other public module and fails if
 * any reaches `@effect/ai*`, `ai` or `@ai-sdk/*` with a value (not `import type`) import.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const src = path.resolve(__dirname, "..", "src")
const peers = /^(@effect\/ai(-[a-z]+)?|ai|@ai-sdk\/[a-z-]+)(\/.*)?$/
const bridges = new Set(["EffectAi.ts", "AiSdk.ts", "AiSdkLanguageModel.ts", "Judge.ts", "Grader.ts", "ChatModel.ts"])

/** The specifiers a module loads at run time (type-only imports and exports left out). */
const valueImports = (file: string): ReadonlyArray<string> => {
  const text = fs.readFileSync(file, "utf8")
  const out: Array<string> = []
  for (const match of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gm)) {
    if (match[2] === undefined) out.push(match[3]!)
  }
  for (const match of text.matchAll(/^\s*import\s+"([^"]+)"/gm)) out.push(match[1]!)
  for (const match of text.matchAll(/import\(\s*"([^"]+)"\s*\)/g)) out.push(match[1]!)
  return out
}

/** Every module a file loads, transitively, and the peer packages among them. */
const reach = (entry: string) => {
  const seen = new Set<string>()
  const peerHits: Array<string> = []
  const stack = [entry]
  for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
    if (seen.has(file)) continue
    seen.add(file)
    for (const spec of valueImports(file)) {
      if (spec.startsWith(".")) stack.push(path.resolve(path.dirname(file), spec.replace(/\.js$/, ".ts")))
      else if (peers.test(spec)) peerHits.push(`${path.relative(src, file)} -> ${spec}`)
    }
  }
  return { seen, peerHits }
}

describe("optional peers", () => {
  it("no public module other than the bridges and the judging modules loads @effect/ai, ai or @ai-sdk", () => {
    const modules = fs.readdirSync(src).filter((f) => f.endsWith(".ts") && !bridges.has(f))
    assert.include(modules, "index.ts")
    for (const module of modules) assert.deepStrictEqual(reach(path.join(src, module)).peerHits, [], module)
  })

  it("the bridges and the judges do load their toolkit (the walk sees value imports)", () => {
    assert.isNotEmpty(reach(path.join(src, "EffectAi.ts")).peerHits)
    assert.isNotEmpty(reach(path.join(src, "AiSdk.ts")).peerHits)
    assert.isNotEmpty(reach(path.join(src, "Judge.ts")).peerHits)
  })
})
