// Bundles the compiled CLI (part of `npm run build`, after tsc): dist/bin/cli.js becomes one
// ES module with `effect` and the codecs inside, split at the CLI's dynamic imports, so that
// `--help` loads only the argument parser and `convert --from A --to B` only A's and B's code.
//
// Why: Node loads ES modules file by file, and a codec imported from dist/ pulls in about 500 of
// them (`effect/Schema` alone brings fast-check): 0.45-0.6 s of CPU before the first line is read,
// where the same code bundled loads in under 0.1 s (docs/performance.md, "Whole-process convert").
//
// `serve` is left out of the bundle: it runs the user's environment module, which imports the
// library and `effect` from node_modules, so the server must be those same modules (one copy of
// every class and service tag), and it is imported from dist/internal/cli/serve.js as before.
// The library's own modules (dist/*.js, what `import "openreward-effect"` loads) are not touched.
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const bin = path.join(root, "dist", "bin")
const entry = path.join(bin, "cli.js")
// the worker threads of `convert --jobs N`: their own entry, found beside the chunk that starts them
// (`new URL("./worker.js", import.meta.url)`)
const worker = path.join(root, "dist", "internal", "cli", "worker.js")

const result = await esbuild.build({
  entryPoints: [entry, { in: worker, out: "worker" }],
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir: bin,
  // every chunk next to the entry, so that a chunk's `../internal/cli/serve.js` is the same file
  chunkNames: "cli-[name]-[hash]",
  allowOverwrite: true,
  metafile: true,
  logLevel: "warning",
  plugins: [{
    name: "serve-from-dist",
    setup(build) {
      build.onResolve({ filter: /^\.\/serve\.js$/ }, (args) => {
        if (args.importer !== path.join(root, "dist", "internal", "cli", "main.js")) return undefined
        return { path: "../internal/cli/serve.js", external: true }
      })
    }
  }]
})

// tsc's source map describes the file this replaced
fs.rmSync(`${entry}.map`, { force: true })
fs.rmSync(path.join(bin, "worker.js.map"), { force: true })

const bundled = Object.keys(result.metafile.inputs)
// (the route-key rule, a module with no imports, is the one piece of the server `--help` shows)
const server = bundled.filter((input) =>
  /dist\/(internal\/(cli\/serve|server\/)|Server\.js)|@effect\/platform/.test(input) && !input.endsWith("/routeKey.js")
)
if (server.length > 0) {
  throw new Error(`the CLI bundle must not hold the server (it is imported from dist/): ${server.join(", ")}`)
}
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0)
process.stderr.write(
  `bundled dist/bin/cli.js: ${bundled.length} modules into ${Object.keys(result.metafile.outputs).length} files, ${
    (bytes / 1024).toFixed(0)
  } kB\n`
)
