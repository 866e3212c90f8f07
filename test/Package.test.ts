/**
 * The package's shape, checked from the sources: the index needs only `effect`, so a transcript
 * converter installs `openreward-effect` and `effect` and nothing else; every module that needs
 * another package (the HTTP server and client need `@effect/platform`) is imported by sub-path.
 * `npm run test:package` checks the same from a packed and installed tarball.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"

const root = path.resolve(__dirname, "..")
const src = path.join(root, "src")

const importsOf = (file: string): Array<string> => {
  const text = fs.readFileSync(file, "utf8")
  const found: Array<string> = []
  for (const match of text.matchAll(/^\s*(?:import|export)\b[^"'`;]*?from\s+["']([^"']+)["']/gm)) {
    found.push(match[1]!)
  }
  for (const match of text.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) found.push(match[1]!)
  // a module loaded on demand (`Testing.serve`, the CLI's commands) is needed all the same
  for (const match of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.push(match[1]!)
  return found
}

const packageOf = (specifier: string): string =>
  specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/")

/** The modules a module reaches through its relative imports, and the specifiers they import. */
const reachOf = (file: string): { readonly externals: ReadonlySet<string>; readonly builtins: ReadonlySet<string> } => {
  const seen = new Set<string>()
  const externals = new Set<string>()
  const builtins = new Set<string>()
  const visit = (current: string) => {
    if (seen.has(current)) return
    seen.add(current)
    for (const specifier of importsOf(current)) {
      if (specifier.startsWith(".")) visit(path.resolve(path.dirname(current), specifier.replace(/\.js$/, ".ts")))
      else if (specifier.startsWith("node:")) builtins.add(specifier)
      else externals.add(packageOf(specifier))
    }
  }
  visit(file)
  return { externals, builtins }
}

/** The packages (not `node:` built-ins) a module needs, through its relative imports. */
const externalsOf = (file: string): ReadonlySet<string> => reachOf(file).externals

const modules = fs.readdirSync(src).filter((f) => f.endsWith(".ts") && f !== "index.ts").map((f) => f.slice(0, -3))
const indexExports = new Set(
  [...fs.readFileSync(path.join(src, "index.ts"), "utf8").matchAll(/export \* as (\w+) from "\.\/(\w+)\.js"/g)]
    .map((m) => m[2]!)
)

describe("package shape", () => {
  it("the index needs only effect", () => {
    assert.deepStrictEqual([...externalsOf(path.join(src, "index.ts"))], ["effect"])
  })

  it("the index needs no Node built-in either (it runs wherever effect runs)", () => {
    assert.deepStrictEqual([...reachOf(path.join(src, "index.ts")).builtins], [])
  })

  it("the walk sees modules loaded on demand (Testing.serve loads the server's peers)", () => {
    assert.includeMembers([...externalsOf(path.join(src, "Testing.ts"))], ["@effect/platform", "@effect/platform-node"])
  })

  for (const name of modules) {
    const externals = [...externalsOf(path.join(src, `${name}.ts`))].filter((p) => p !== "effect")
    if (externals.length === 0) {
      it(`${name} needs only effect, so the index exports it`, () => {
        assert.isTrue(indexExports.has(name), `add \`export * as ${name} from "./${name}.js"\` to src/index.ts`)
      })
    } else {
      it(`${name} needs ${externals.join(", ")}, so it is imported by sub-path only`, () => {
        assert.isFalse(indexExports.has(name), `openreward-effect/${name} must stay out of src/index.ts`)
      })
    }
  }

  it("every package a module needs is effect, a dependency or a declared peer", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>
      peerDependencies?: Record<string, string>
      devDependencies?: Record<string, string>
    }
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {})
    ])
    // The CLI runs as an esbuild bundle (scripts/bundle-cli.ts) that inlines every package it
    // reaches except through `serve`, which is left out of the bundle and imported from dist/: what
    // serve reaches must be declared; what only the bundle reaches may be a pinned dev dependency.
    for (const file of [...modules.map((m) => `${m}.ts`), "internal/cli/serve.ts"]) {
      for (const external of externalsOf(path.join(src, file))) {
        assert.isTrue(declared.has(external), `src/${file} imports ${external}, which package.json does not declare`)
      }
    }
    const bundledOnly = new Set(Object.keys(manifest.devDependencies ?? {}))
    for (const external of externalsOf(path.join(src, "bin/cli.ts"))) {
      assert.isTrue(
        declared.has(external) || bundledOnly.has(external),
        `src/bin/cli.ts imports ${external}, which package.json neither declares nor bundles`
      )
    }
  })
})

describe("package manifest", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>
    peerDependencies?: Record<string, string>
    peerDependenciesMeta?: Record<string, { optional?: boolean }>
    exports: Record<string, unknown>
    typesVersions?: Record<string, Record<string, ReadonlyArray<string>>>
  }

  it("requires nothing but effect: every other peer is optional and there are no dependencies", () => {
    assert.deepStrictEqual(Object.keys(manifest.dependencies ?? {}), [])
    for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
      if (peer !== "effect") {
        assert.isTrue(manifest.peerDependenciesMeta?.[peer]?.optional, `${peer} should be optional`)
      }
    }
  })

  it("typesVersions maps every public module to its declarations (TypeScript's node10 resolution ignores exports)", () => {
    const expected = Object.fromEntries([...modules].sort().map((m) => [m, [`./dist/${m}.d.ts`]]))
    assert.deepStrictEqual(manifest.typesVersions, { "*": expected })
  })

  it("exports neither the CLI entry, the internals nor a second index", () => {
    assert.strictEqual(manifest.exports["./bin/*"], null)
    assert.strictEqual(manifest.exports["./internal/*"], null)
    assert.strictEqual(manifest.exports["./index"], null)
  })
})

describe("package version", () => {
  it("src/internal/version.ts is generated from package.json (run `tsx scripts/version.ts`)", async () => {
    const generator = (await import("../scripts/version.js")) as { source: string }
    assert.strictEqual(fs.readFileSync(path.join(src, "internal", "version.ts"), "utf8"), generator.source)
  })
})
