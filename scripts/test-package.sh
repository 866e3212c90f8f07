#!/usr/bin/env bash
# npm run test:package: the package as users install it. Packs it, installs the tarball into empty
# projects and checks, from the installed files only:
#   1. a transcript converter installs openreward-effect and effect and nothing else (no @effect/*
#      package lands in node_modules), and its strict ESM and CommonJS programs type-check
#      (module nodenext, exactOptionalPropertyTypes, skipLibCheck off) and run;
#   2. TypeScript's node10 resolution ("module": "commonjs") finds every sub-path (typesVersions), and
#      a strict consumer compiled that way runs;
#   3. the exports map: every public module resolves, bin/internal/index do not;
#   4. the CLI from the installed package (`npx openreward-effect --help`, a `convert`, `--jobs 2` on
#      the bundled worker entry, gzip and Parquet input), in a project that also installs the optional
#      platform peers, and a clear hint in one that does not;
#   5. docs/getting-started.md as written, in an empty folder: its commands (npm init, the pinned
#      install lines from the registry, `npx tsx` for each example), and what each prints; then
#      docs/harness.md and docs/testing.md in the project it made (the SDKs and toolkits they
#      install, each example).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/openreward-effect-package.XXXXXX")"
trap 'rm -rf "$work"' EXIT
tsc="$root/node_modules/.bin/tsc"
version_of() { node -p "require('$root/package.json').devDependencies['$1']"; }
npm_install() { npm install --no-audit --no-fund --prefer-offline --loglevel=error "$@"; }
section() { echo "== $1 (at ${SECONDS} s)"; }

section "pack"
cd "$root"
# One build: `npm pack` would run it twice (prepack and prepare).
npm run --silent build
tarball="$work/$(npm pack --silent --ignore-scripts --pack-destination "$work" | tail -n 1)"
tar -tzf "$tarball" | sed 's|^package/||' | sort > "$work/files.txt"
for unwanted in '^test/' '^bench/' '^examples/' '^docs/' '\.tsbuildinfo$' '^\.'; do
  if grep -qE "$unwanted" "$work/files.txt"; then echo "tarball has files it should not ($unwanted)"; exit 1; fi
done
for wanted in dist/index.js dist/index.d.ts dist/bin/cli.js bin/openreward-effect.js LICENSE CHANGELOG.md README.md; do
  grep -qx "$wanted" "$work/files.txt" || { echo "tarball lacks $wanted"; exit 1; }
done
echo "$(wc -l < "$work/files.txt") files, $(du -k "$tarball" | cut -f1) kB packed"

section "a transcript converter: openreward-effect and effect only"
consumer="$work/converter"
mkdir -p "$consumer"
cd "$consumer"
echo '{ "name": "converter", "private": true, "type": "module" }' > package.json
npm_install "$tarball" "effect@$(version_of effect)"
installed="$(npm ls --all --parseable | sed -E 's|.*/node_modules/||' | grep -v "^$consumer$" | sort -u)"
echo "installed: $(echo "$installed" | tr '\n' ' ')"
# Nothing but openreward-effect, effect and effect's own dependencies: no @effect/* package.
if echo "$installed" | grep -q "^@effect/"; then echo "a converter got: $(echo "$installed" | grep "^@effect/")"; exit 1; fi
# and nothing beyond effect's own dependencies (the CLI's Parquet reader is bundled into it)
unexpected="$(echo "$installed" | grep -vxE 'openreward-effect|effect|@standard-schema/spec|fast-check|pure-rand' || true)"
if [ -n "$unexpected" ]; then echo "a converter got packages it should not: $unexpected"; exit 1; fi
echo "node_modules: $(du -sk node_modules | cut -f1) kB ($(du -sk node_modules/effect | cut -f1) kB of it effect)"

# The error handlers come from the installed package's own list of tags, so the exhaustive match
# type-checks only if that list and the ConversionError union agree.
cp "$root/test/package/handlers.mjs" . && node handlers.mjs
cp "$root/test/package/consumer.ts" "$root/test/package/consumer.cts" .
cat > tsconfig.json <<JSON
{
  "compilerOptions": {
    "strict": true,
    "exactOptionalPropertyTypes": true,
    "noUncheckedIndexedAccess": true,
    "skipLibCheck": false,
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "target": "es2022",
    "lib": ["es2022"],
    "types": ["node"],
    "typeRoots": ["$root/node_modules/@types"],
    "outDir": "out"
  },
  "files": ["consumer.ts", "consumer.cts", "handlers.ts", "handlers.cts"]
}
JSON
"$tsc" -p tsconfig.json
node out/consumer.js
node out/consumer.cjs

section "TypeScript's node10 resolution (module commonjs): sub-paths through typesVersions"
mkdir -p node10
cp "$root/test/package/consumer-node10.ts" node10/
# Every public sub-path, type-only: each must resolve (TS2307 otherwise). skipLibCheck here, since
# the modules that need a peer this project lacks have declarations that import it.
node -e '
  const fs = require("fs")
  const modules = fs.readdirSync("node_modules/openreward-effect/dist").filter((f) => f.endsWith(".d.ts"))
    .map((f) => f.slice(0, -5)).filter((m) => m !== "index")
  fs.writeFileSync("node10/subpaths.ts", modules.map((m, i) => `import type * as M${i} from "openreward-effect/${m}"\nexport type T${i} = typeof M${i}\n`).join(""))
  console.log(`${modules.length} sub-paths to resolve`)
'
node10_options='"strict": true, "module": "commonjs", "moduleResolution": "node10", "target": "es2022", "lib": ["es2022"],
    "types": ["node"], "typeRoots": ["'"$root"'/node_modules/@types"], "outDir": "out"'
cat > node10/tsconfig.json <<JSON
{ "compilerOptions": { $node10_options, "skipLibCheck": false, "exactOptionalPropertyTypes": true }, "files": ["consumer-node10.ts"] }
JSON
cat > node10/tsconfig.subpaths.json <<JSON
{ "compilerOptions": { $node10_options, "skipLibCheck": true, "noEmit": true }, "files": ["subpaths.ts"] }
JSON
"$tsc" -p node10/tsconfig.json
"$tsc" -p node10/tsconfig.subpaths.json
echo '{ "type": "commonjs" }' > node10/out/package.json
node node10/out/consumer-node10.js

section "the exports map"
cat > exports.mjs <<'JS'
import * as fs from "node:fs"
import { createRequire } from "node:module"
const require = createRequire(import.meta.url)
const dist = "node_modules/openreward-effect/dist"
const modules = fs.readdirSync(dist).filter((f) => f.endsWith(".js")).map((f) => f.slice(0, -3)).filter((m) => m !== "index")
const platformOnly = []
for (const m of modules) {
  try {
    await import(`openreward-effect/${m}`)
    require.resolve(`openreward-effect/${m}`)
  } catch (e) {
    // A sub-path module may need a peer this project did not install; that must be the only reason.
    if (e.code !== "ERR_MODULE_NOT_FOUND" || !/Cannot find package '/.test(e.message)) throw e
    platformOnly.push(m)
  }
}
for (const hidden of ["openreward-effect/index", "openreward-effect/bin/cli", "openreward-effect/internal/version"]) {
  try {
    await import(hidden)
    throw new Error(`${hidden} should not be importable`)
  } catch (e) {
    if (e.code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw e
  }
}
console.log(`${modules.length} sub-paths resolve; need a peer here: ${platformOnly.join(", ") || "none"}`)
if (!platformOnly.includes("Server") || !platformOnly.includes("Client")) throw new Error("Server and Client should need the platform peers")
for (const m of ["Throwing", "Testing"]) if (platformOnly.includes(m)) throw new Error(`${m} should load with only effect`)
JS
node exports.mjs

section "openreward-effect/Testing without the platform peers: stand-ins work, serve says what to install"
cat > testing.mjs <<'JS'
import * as assert from "node:assert"
import * as Testing from "openreward-effect/Testing"
const model = await Testing.standIn("openai-chat")
const answer = await fetch(`${model.url}/v1/chat/completions`, {
  method: "POST",
  body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "Hi" }] })
}).then((r) => r.json())
await model.close()
assert.strictEqual(answer.object, "chat.completion")
await assert.rejects(Testing.serve([]), (e) =>
  e.message.includes("Testing.serve needs @effect/") &&
  e.message.includes("npm install @effect/platform@^0.97 @effect/platform-node@^0.108 @effect/experimental@^0.61"))
console.log("Testing's stand-ins run with only effect installed; serve names the peers to install")
JS
node testing.mjs

section "the CLI without the platform peers: convert works, serve says what to install"
npx --no-install openreward-effect --help > help.txt
grep -q "convert" help.txt || { cat help.txt; exit 1; }
echo '[{"role":"user","blocks":[{"type":"text","text":"Hi"}]}]' > hi.json
npx --no-install openreward-effect convert --to openai hi.json > hi.openai.json
node -e 'require("assert").deepStrictEqual(JSON.parse(require("fs").readFileSync("hi.openai.json", "utf8")), [{ role: "user", content: "Hi" }])'
echo 'export const environments = []' > env.mjs
if npx --no-install openreward-effect serve env.mjs > cli.out 2>&1; then echo "expected serve to fail without its peers"; exit 1; fi
grep -qF "npm install @effect/platform@^0.97 @effect/platform-node@^0.108 @effect/experimental@^0.61" cli.out || { cat cli.out; exit 1; }

section "the CLI, with the platform peers"
cli="$work/cli"
mkdir -p "$cli"
cd "$cli"
echo '{ "name": "cli", "private": true, "type": "module" }' > package.json
npm_install "$tarball" "effect@$(version_of effect)" \
  "@effect/platform@$(version_of @effect/platform)" \
  "@effect/platform-node@$(version_of @effect/platform-node)" "@effect/experimental@$(version_of @effect/experimental)"
npx --no-install openreward-effect --help > help.txt
grep -q "convert" help.txt || { cat help.txt; exit 1; }
echo '[{"role":"system","blocks":[{"type":"text","text":"Be brief."}]},{"role":"user","blocks":[{"type":"text","text":"Hi"}]}]' > conversation.json
npx --no-install openreward-effect convert --to anthropic conversation.json > anthropic.json
node -e '
  const out = JSON.parse(require("fs").readFileSync("anthropic.json", "utf8"))
  require("assert").deepStrictEqual(out, { system: "Be brief.", messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] })
'

section "the CLI's worker threads and inputs, from the installed package"
node -e '
  const lines = []
  for (let i = 0; i < 5000; i++) lines.push(JSON.stringify({ id: i, messages: [{ role: "user", content: "x".repeat(i % 300) }] }))
  require("fs").writeFileSync("many.jsonl", lines.join("\n") + "\n")
'
npx --no-install openreward-effect convert --jsonl --record openai-sft --to anthropic --quiet many.jsonl > one-thread.jsonl
npx --no-install openreward-effect convert --jsonl --record openai-sft --to anthropic --quiet --jobs 2 many.jsonl > two-threads.jsonl
cmp one-thread.jsonl two-threads.jsonl || { echo "--jobs 2 wrote other output"; exit 1; }
[ "$(wc -l < two-threads.jsonl)" -eq 5000 ] || { echo "--jobs 2 lost lines"; exit 1; }
gzip -c many.jsonl | npx --no-install openreward-effect convert --jsonl --record openai-sft --to anthropic --quiet --jobs 2 | cmp - one-thread.jsonl
cp "$root/test/fixtures/datasets/chat.parquet" .
npx --no-install openreward-effect convert --record openai-sft --to openai --quiet chat.parquet > chat.jsonl
node -e 'require("assert").deepStrictEqual(require("fs").readFileSync("chat.jsonl", "utf8").trim().split("\n").map((l) => JSON.parse(l).id), ["q1", "q2"])'

section "docs/getting-started.md, then docs/harness.md and docs/testing.md, as written, from an empty folder"
# Their commands, files and outputs; their own install lines (pinned peers, tsx, the SDKs and
# toolkits) from the registry, the tarball for the package. harness.md runs in the project
# getting-started.md made, and testing.md after it.
started="$work/getting-started"
mkdir -p "$started"
node "$root/test/package/pages.mjs" "$started" "$tarball" "$root/docs/getting-started.md" "$root/docs/harness.md" "$root/docs/testing.md"

echo "test:package ok (${SECONDS} s)"
