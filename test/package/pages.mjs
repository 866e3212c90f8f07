// Runs documentation pages as a reader would, one after the other, from an empty folder: every
// ```sh fence's commands in order, in one shell state (so `mkdir my-project && cd my-project` holds
// for what follows, on the next page too);
// every fence marked `file=NAME` saved as NAME where the reader is; and each command followed by a
// ```text output fence must print exactly that. `npm install openreward-effect` installs the packed
// tarball instead of the registry's package; everything else (effect, the peers, tsx) comes from the
// registry as the page pins it. A fence marked `no-run` is skipped; a ```ts example that names no
// file, or an output no command prints, fails the run.
//
// node pages.mjs FOLDER TARBALL PAGE...     (scripts/test-package.sh runs docs/getting-started.md,
// then docs/harness.md in the project the first one made)
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

const [start, tarball, ...pages] = process.argv.slice(2)
if (start === undefined || tarball === undefined || pages.length === 0) {
  console.error("usage: node pages.mjs FOLDER TARBALL PAGE...")
  process.exit(2)
}

/** A page's fences, in order. */
const fencesOf = (page) => {
  const lines = fs.readFileSync(page, "utf8").split("\n")
  const fences = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S+)(.*)$/.exec(lines[i])
    if (open === null) continue
    let end = i + 1
    while (end < lines.length && lines[end] !== "```") end++
    fences.push({ lang: open[1], info: open[2].trim(), line: i + 1, text: lines.slice(i + 1, end).join("\n") })
    i = end
  }
  return fences
}

const normalize = (text) => text.split("\n").map((l) => l.replace(/\s+$/, "")).join("\n").replace(/\n+$/, "")
let page = pages[0]
const fail = (line, message) => {
  console.error(`${path.basename(page)}:${line}: ${message}`)
  process.exit(1)
}

// Quiet, cache-first npm; nothing else about the commands changes.
const env = {
  ...process.env,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
  npm_config_prefer_offline: "true",
  npm_config_loglevel: "error"
}

/** `npm install ... openreward-effect ...`: the tarball stands for the package. */
const withTarball = (command) =>
  command.split("\n").map((line) =>
    /\bnpm (install|i|add)\b/.test(line)
      ? line.replace(/(?<=\s)openreward-effect(?=\s|$)/g, JSON.stringify(tarball))
      : line
  ).join("\n")

/** Run one page's commands from `cwd`; returns the folder its commands left the reader in. */
const runPage = (cwd) => {
  const began = Date.now()
  let last = undefined // the last command run, and what it printed
  const counts = { commands: 0, files: 0, outputs: 0 }
  for (const fence of fencesOf(page)) {
    if (/\bno-run\b/.test(fence.info)) continue
    const name = /(?:^|\s)file=(\S+)/.exec(fence.info)?.[1]
    if (name !== undefined) {
      fs.writeFileSync(path.join(cwd, name), fence.text + "\n")
      counts.files++
      last = undefined
    } else if (fence.lang === "sh") {
      const state = path.join(start, ".cwd")
      const script = `${withTarball(fence.text)}\npwd > ${JSON.stringify(state)}`
      const run = spawnSync("bash", ["-eo", "pipefail", "-c", script], { cwd, env, encoding: "utf8", timeout: 300_000 })
      if (run.status !== 0) {
        fail(fence.line, `the commands failed (exit ${run.status ?? run.signal}):\n${fence.text}\n${run.stdout}${run.stderr}`)
      }
      cwd = fs.readFileSync(state, "utf8").trim()
      counts.commands += fence.text.split("\n").filter((l) => l.trim() !== "").length
      last = { line: fence.line, printed: run.stdout }
    } else if (fence.lang === "text" && /\boutput\b/.test(fence.info)) {
      if (last === undefined) fail(fence.line, "an output that no command before it prints (add the command that runs it)")
      if (normalize(last.printed) !== normalize(fence.text)) {
        fail(fence.line, `the command at line ${last.line} printed something else:\n${last.printed}`)
      }
      counts.outputs++
      last = undefined
    } else if (fence.lang === "ts") {
      fail(fence.line, "a TypeScript example that names no file: mark it `ts file=NAME.ts` and run it, or `ts no-run`")
    } else {
      last = undefined
    }
  }
  if (counts.outputs === 0) fail(1, "no command's output was checked")
  console.log(
    `${path.basename(page)}: ${counts.commands} commands run, ${counts.files} files saved, ` +
      `${counts.outputs} outputs as shown (${Math.round((Date.now() - began) / 1000)} s)`
  )
  return cwd
}

let cwd = start
for (page of pages) cwd = runPage(cwd)
