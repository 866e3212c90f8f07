/**
 * Where a server's CPU time goes: a V8 `.cpuprofile` (from `npm run bench:server -- --profile=<dir>`,
 * which runs our server under `node --cpu-prof`) summarised by owner (our code, `effect`,
 * `@effect/platform`, `@effect/platform-node`, other packages, Node itself, garbage collection),
 * then the functions with the most self time.
 *
 * ```sh
 * npm run bench:server -- --targets=ours,bare --profile=/tmp/prof
 * npx tsx bench/server/profile.ts /tmp/prof/<file>.cpuprofile [top=30]
 * ```
 *
 * The profile covers the whole life of the process, idle time included; shares are of the busy time.
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
}

interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** Who owns a frame. */
const owner = (frame: CallFrame): string => {
  const url = frame.url
  if (url === "") {
    if (frame.functionName === "(idle)") return "idle"
    if (frame.functionName === "(garbage collector)") return "garbage collection"
    if (frame.functionName === "(program)") return "V8 / native (program)"
    return "node (native)"
  }
  if (url.startsWith("node:")) return "node (JS)"
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (match !== null) {
    const pkg = match[1]!
    return pkg === "effect" || pkg.startsWith("@effect/") ? pkg : `other packages (${pkg})`
  }
  if (url.includes("/src/")) return "ours (src/)"
  return `other (${path.basename(url)})`
}

const label = (frame: CallFrame): string => {
  const file = frame.url === "" ? "" : ` ${path.relative(process.cwd(), frame.url.replace(/^file:\/\//, ""))}`
  return `${frame.functionName || "(anonymous)"}${file}:${frame.lineNumber + 1}`
}

const [file, topText] = process.argv.slice(2)
if (file === undefined) {
  console.error("usage: profile.ts <file.cpuprofile> [top]")
  process.exit(2)
}
const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile
const top = Number(topText ?? 30)
const byId = new Map(profile.nodes.map((node) => [node.id, node] as const))

const owners = new Map<string, number>()
const functions = new Map<string, number>()
let busy = 0
profile.samples.forEach((id, i) => {
  const frame = byId.get(id)?.callFrame
  const dt = profile.timeDeltas[i] ?? 0
  if (frame === undefined) return
  const who = owner(frame)
  if (who === "idle") return
  busy += dt
  owners.set(who, (owners.get(who) ?? 0) + dt)
  const name = label(frame)
  functions.set(name, (functions.get(name) ?? 0) + dt)
})

const line = (us: number, name: string) =>
  `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / busy).toFixed(1).padStart(5)} %  ${name}`
console.log(`busy: ${(busy / 1000).toFixed(0)} ms\n\nself time by owner:`)
for (const [name, us] of [...owners].sort((a, b) => b[1] - a[1])) console.log(line(us, name))
console.log(`\nself time by function (top ${top}):`)
for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(us, name))
