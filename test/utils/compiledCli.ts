/**
 * One transpiled copy of `src/` for tests that run the CLI as users do, in its own process with
 * plain `node` (`<build>/dist/bin/cli.js`). Transpiling each file (no type check: `npm run
 * typecheck` does that) takes a second, where `tsc -p tsconfig.build.json` takes ten. The copy lives
 * inside node_modules so that it resolves the package's dependencies as `dist/` does.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

/** Transpile `src/` of `root` into `build`; returns the CLI's entry. */
export const make = (root: string, build: string): string => {
  const { config } = ts.readConfigFile(path.join(root, "tsconfig.build.json"), ts.sys.readFile)
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, root)
  const walk = (dir: string): Array<string> =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)]
    )
  for (const file of walk(path.join(root, "src")).filter((f) => f.endsWith(".ts"))) {
    const { outputText } = ts.transpileModule(fs.readFileSync(file, "utf8"), {
      compilerOptions: {
        ...options,
        module: ts.ModuleKind.ES2022,
        sourceMap: false,
        declaration: false,
        declarationMap: false
      },
      fileName: file
    })
    const out = path.join(build, "dist", path.relative(path.join(root, "src"), file).replace(/\.ts$/, ".js"))
    fs.mkdirSync(path.dirname(out), { recursive: true })
    fs.writeFileSync(out, outputText)
  }
  fs.copyFileSync(path.join(root, "package.json"), path.join(build, "package.json"))
  return path.join(build, "dist", "bin", "cli.js")
}
