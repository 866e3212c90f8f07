/**
 * Graceful shutdown, for every way the README and docs start a server: `npm run cli -- serve` (the
 * compiled CLI that `npm install` builds), `npm run cli:dev -- serve` (the sources through tsx),
 * the CLI process itself (compiled, and from source), and a program that runs `Server.serve` with
 * `NodeRuntime.runMain`.
 * SIGTERM (a process manager) and SIGINT (Ctrl-C, which a terminal sends to the whole process
 * group) each drain, tear every session down and exit 0, leaving the port free and no process
 * behind (through npm, too: the `cli` script `exec`s node, so npm's signal reaches the server).
 */
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { alive, type Child, freePort, killAll, portIsFree, start } from "./utils/processes.js"

afterAll(killAll)

const fixture = "test/fixtures/replica/env.ts"
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "openreward-shutdown-"))
let logs = 0
const programPorts = new Set<number>()

interface Served {
  readonly child: Child
  readonly url: string
  readonly port: number
  readonly log: string
  readonly lines: () => ReadonlyArray<string>
}

type Way = "npm" | "npm-dev" | "bin" | "cli" | "program"

const serve = async (how: Way, extra: ReadonlyArray<string> = []): Promise<Served> => {
  const log = path.join(tmp, `log-${logs++}`)
  const env = { ...process.env, OPENREWARD_TEST_LOG: log }
  const args = ["serve", fixture, "--port", "0", "--host", "127.0.0.1", ...extra]
  let port: number
  let child: Child
  if (how === "program") {
    // programs started side by side must not be handed the same free port
    do port = await freePort()
    while (programPorts.has(port))
    programPorts.add(port)
    child = start("node", ["--import", "tsx", "test/fixtures/replica/program.ts"], {
      env: { ...env, PORT: String(port) }
    })
    const deadline = Date.now() + 90_000
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)
      if (up) break
      if (Date.now() > deadline) throw new Error(child.output())
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  } else {
    child = how === "npm"
      ? start("npm", ["run", "--silent", "cli", "--", ...args], { env })
      : how === "npm-dev"
      ? start("npm", ["run", "--silent", "cli:dev", "--", ...args], { env })
      : how === "bin"
      ? start("node", ["bin/openreward-effect.js", ...args], { env })
      : start("node", ["--import", "tsx", "src/bin/cli.ts", ...args], { env })
    port = Number((await child.waitFor(/serving replicated on http:\/\/127\.0\.0\.1:(\d+)/))[1])
  }
  const lines = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : [])
  return { child, url: `http://127.0.0.1:${port}`, port, log, lines }
}

const post = (url: string, body: unknown, sid: string) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-session-id": sid },
    body: JSON.stringify(body)
  }).then(async (r) => ({ status: r.status, body: await r.text() }))

/** Open a session; its setup line gives the server's process id. */
const open = async (served: Served, sid: string): Promise<number> => {
  assert.strictEqual((await post(`${served.url}/create`, { split: "train", index: 0 }, sid)).status, 200)
  for (;;) {
    const setup = served.lines().find((line) => line.startsWith("setup ") && line.endsWith(` ${sid}`))
    if (setup !== undefined) return Number(setup.split(" ")[1])
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** After the exit: code 0, port free, the server process gone, every session torn down. */
const checkClean = async (served: Served, pid: number, sids: ReadonlyArray<string>) => {
  assert.strictEqual(await served.child.exited, 0, served.child.output())
  assert.isTrue(await portIsFree(served.port), "the port is free")
  assert.isFalse(alive(pid), "the server process is gone")
  for (const sid of sids) assert.include(served.lines(), `teardown ${pid} ${sid}`)
}

/** Signal the process (`"group"`: its whole process group, as a terminal's Ctrl-C does). */
const signal = (served: Served, name: NodeJS.Signals, group = false) =>
  process.kill(group ? -served.child.process.pid! : served.child.process.pid!, name)

describe.concurrent("graceful shutdown", () => {
  it(
    "npm run cli -- serve, SIGTERM to npm: the running call finishes and is delivered, new calls are refused, then teardown",
    async () => {
      const served = await serve("npm", ["--drain-timeout", "20"])
      const pid = await open(served, "s1")
      await open(served, "s2")
      const call = post(`${served.url}/replicated/call`, { name: "work", input: { step: 1, ms: 1500 } }, "s1")
      await new Promise((resolve) => setTimeout(resolve, 300))
      signal(served, "SIGTERM")
      await new Promise((resolve) => setTimeout(resolve, 300))
      const refused = await post(`${served.url}/replicated/call`, { name: "work", input: { step: 2 } }, "s2")
      assert.strictEqual(refused.status, 410)
      const health = await fetch(`${served.url}/health`)
      assert.strictEqual(health.status, 503)
      const answer = await call
      assert.strictEqual(answer.status, 200)
      assert.match(answer.body, /event: end\ndata: \{"ok":true,"output":\{"blocks":\[\{"text":"step 1"/)
      await checkClean(served, pid, ["s1", "s2"])
    },
    120_000
  )

  it("npm run cli -- serve, Ctrl-C (SIGINT to the process group): teardown, exit 0", async () => {
    const served = await serve("npm")
    const pid = await open(served, "s1")
    signal(served, "SIGINT", true)
    await checkClean(served, pid, ["s1"])
  }, 120_000)

  // The ways within one test run side by side, each its own server, port, log and process group.
  it("npm run cli:dev -- serve (the sources through tsx), SIGTERM to npm and Ctrl-C", async () => {
    await Promise.all(([["SIGTERM", false], ["SIGINT", true]] as const).map(async ([name, group]) => {
      const served = await serve("npm-dev")
      const pid = await open(served, "s1")
      signal(served, name, group)
      await checkClean(served, pid, ["s1"])
    }))
  }, 180_000)

  it("the CLI process itself, compiled (bin/openreward-effect.js) and from source, SIGTERM and SIGINT", async () => {
    const ways = [["bin", "SIGTERM"], ["bin", "SIGINT"], ["cli", "SIGTERM"], ["cli", "SIGINT"]] as const
    await Promise.all(ways.map(async ([how, name]) => {
      const served = await serve(how)
      const pid = await open(served, "s1")
      signal(served, name)
      await checkClean(served, pid, ["s1"])
    }))
  }, 240_000)

  it("a program running Server.serve with NodeRuntime.runMain, SIGTERM and Ctrl-C", async () => {
    await Promise.all(([["SIGTERM", false], ["SIGINT", true]] as const).map(async ([name, group]) => {
      const served = await serve("program")
      const pid = await open(served, "s1")
      const call = post(`${served.url}/replicated/call`, { name: "work", input: { step: 1, ms: 1000 } }, "s1")
      await new Promise((resolve) => setTimeout(resolve, 300))
      signal(served, name, group)
      assert.match((await call).body, /event: end\ndata: \{"ok":true/)
      await checkClean(served, pid, ["s1"])
    }))
  }, 180_000)

  it("a second signal, a second or more after the first, stops at once", async () => {
    const served = await serve("cli", ["--drain-timeout", "60"])
    await open(served, "s1")
    void post(`${served.url}/replicated/call`, { name: "work", input: { step: 1, ms: 60_000 } }, "s1").catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 300))
    signal(served, "SIGTERM")
    await served.child.waitFor(/SIGTERM: draining/)
    // duplicates within a second (a terminal's group signal relayed again) are not a second request
    signal(served, "SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 1200))
    assert.isNull(served.child.process.exitCode)
    const began = Date.now()
    signal(served, "SIGTERM")
    assert.strictEqual(await served.child.exited, 143)
    assert.isBelow(Date.now() - began, 5000)
    assert.include(served.child.output(), "SIGTERM again: stopping now")
  }, 120_000)
})
