/**
 * Summarise a V8 `.cpuprofile` (from `node --cpu-prof`): the functions with the most self time, and
 * optionally the inclusive time under functions whose name matches a pattern.
 *
 * ```sh
 * node --cpu-prof --cpu-prof-dir=prof --import tsx bench/codecs.ts --formats=openai --sizes=10000
 * npx tsx bench/internal/profile.ts prof/<file>.cpuprofile [top=30] [inclusive-regex]
 * ```
 */
import * as fs from "node:fs"
import * as path from "node:path"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const label = (frame: CallFrame): string => {
  const file = frame.url === "" ? "" : ` ${path.relative(process.cwd(), frame.url.replace(/^file:\/\//, ""))}`
  return `${frame.functionName || "(anonymous)"}${file}:${frame.lineNumber + 1}`
}

const [file, topText, inclusive] = process.argv.slice(2)
if (file === undefined) {
  console.error("usage: profile.ts <file.cpuprofile> [top] [inclusive-regex]")
  process.exit(2)
}
const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile
const top = Number(topText ?? 30)

const byId = new Map<number, ProfileNode>()
const parent = new Map<number, number>()
for (const node of profile.nodes) {
  byId.set(node.id, node)
  for (const child of node.children ?? []) parent.set(child, node.id)
}

const self = new Map<string, number>()
const under = new Map<string, number>()
let underAny = 0
const pattern = inclusive === undefined ? undefined : new RegExp(inclusive)
let total = 0
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!
  const dt = profile.timeDeltas[i] ?? 0
  total += dt
  const node = byId.get(id)
  if (node === undefined) continue
  const name = label(node.callFrame)
  self.set(name, (self.get(name) ?? 0) + dt)
  if (pattern !== undefined) {
    // Count each matching function once per sample, however deep the recursion.
    const seen = new Set<string>()
    let any = false
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame
      if (frame === undefined) continue
      const n = label(frame)
      if (pattern.test(n)) any = true
      if (pattern.test(n) && !seen.has(n)) {
        seen.add(n)
        under.set(n, (under.get(n) ?? 0) + dt)
      }
    }
    if (any) underAny += dt
  }
}

const ms = (us: number) => `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)} %`
console.log(`total sampled: ${(total / 1000).toFixed(0)} ms\n\nself time:`)
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${name}`)
if (pattern !== undefined) {
  console.log(`\ninclusive time under /${inclusive}/ (any matching frame: ${ms(underAny).trim()}):`)
  for (const [name, us] of [...under].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)}  ${name}`)
}
