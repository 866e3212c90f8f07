/**
 * The layout of `src/` (docs/formats.md, "Layout"): modules import each other one way. A public
 * module (`src/XFormat.ts`) imports its internal modules (`src/internal/x/*`), which import public
 * modules for types only, so no module is ever used before it has loaded: there is no value-level
 * import cycle anywhere in `src/`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { importCycles, valueImports } from "./utils/importGraph.js"

const src = path.resolve(__dirname, "..", "src")

const sourcesUnder = (dir: string): Map<string, string> => {
  const out = new Map<string, string>()
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue
    const file = path.join(entry.parentPath, entry.name)
    out.set(file, fs.readFileSync(file, "utf8"))
  }
  return out
}

describe("src/ layout", () => {
  it("has no value-level import cycle", () => {
    const sources = sourcesUnder(src)
    assert.isAbove(sources.size, 50)
    const cycles = importCycles(sources).map((cycle) => cycle.map((file) => path.relative(src, file)))
    assert.deepStrictEqual(cycles, [])
  })

  it("a format's internal modules import the public format modules for types only", () => {
    const publicModules = [
      "AnthropicFormat",
      "GoogleFormat",
      "OpenAiFormat",
      "OpenRouterFormat",
      "OpenAiResponsesFormat",
      "ShareGptFormat"
    ]
    for (const dir of ["anthropic", "google", "openai", "openrouter", "openaiResponses", "sharegpt"]) {
      const internal = path.join(src, "internal", dir)
      for (const entry of fs.readdirSync(internal)) {
        const file = path.join(internal, entry)
        const imported = valueImports(file, fs.readFileSync(file, "utf8"))
          .filter((specifier) => specifier.startsWith("."))
          .map((specifier) => path.basename(specifier, ".js"))
        for (const module of publicModules) {
          assert.notInclude(imported, module, `${path.relative(src, file)} imports ${module} as a value`)
        }
      }
    }
  })
})

describe("the cycle check", () => {
  const at = (name: string) => path.join("/m", name)
  const graph = (files: Record<string, string>) =>
    new Map(Object.entries(files).map(([name, source]) => [at(name), source]))

  it("finds a value-level cycle, through any number of modules", () => {
    const cycles = importCycles(graph({
      "A.ts": `import * as B from "./B.js"\nexport const a = B.b`,
      "B.ts": `import { c } from "./internal/c.js"\nexport const b = c`,
      "internal/c.ts": `import * as A from "../A.js"\nexport const c = () => A.a`,
      "D.ts": `export * from "./D.js"`
    }))
    assert.deepStrictEqual(cycles, [[at("A.ts"), at("B.ts"), at("internal/c.ts")], [at("D.ts")]])
  })

  it("counts re-exports and side-effect imports, not types or dynamic imports", () => {
    const cycles = importCycles(graph({
      "A.ts": `import type * as B from "./B.js"\nimport { type C } from "./C.js"\nexport type { D } from "./D.js"`,
      "B.ts": `import * as A from "./A.js"`,
      "C.ts": `export { a } from "./A.js"`,
      "D.ts": `import "./A.js"\nexport const load = () => import("./E.js")`,
      "E.ts": `import * as D from "./D.js"`
    }))
    assert.deepStrictEqual(cycles, [])
    assert.deepStrictEqual(
      importCycles(graph({ "A.ts": `import { type C, c } from "./C.js"`, "C.ts": `export { a } from "./A.js"` })),
      [[at("A.ts"), at("C.ts")]]
    )
  })
})
