/**
 * Scale-out: three replicas of `openreward-effect serve` (route keys r1, r2, r3) behind a real
 * nginx running deploy/nginx/openreward.conf, all on loopback. The reference Python client
 * (openreward 0.1.167, unchanged) and this library's client run rollouts through nginx:
 *
 * 1. 300 sessions: each lands on one replica and every call of it is answered there;
 * 2. a replica is killed (SIGKILL) mid-run: its sessions end with the client's session-terminated
 *    error, every session on the other replicas completes, new sessions go to the live replicas;
 * 3. a replica is drained (SIGTERM) while calls run on it: every running call finishes and is
 *    delivered, its sessions then end with session-terminated, new sessions go elsewhere, and it
 *    tears its sessions down and exits 0.
 *
 * Run by `npm run test:scale` (needs nginx on PATH and the reference SDK's venv).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Client from "openreward-effect/Client"
import * as Nginx from "../utils/nginx.js"
import { type Child, killAll, root, start } from "../utils/processes.js"

const python = process.env["OPENREWARD_PYTHON"] ?? path.join(root, ".venv-interop/bin/python")
const driver = path.join(root, "test/scale/fixtures/driver.py")
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "openreward-scale-"))

interface Replica {
  readonly key: string
  readonly child: Child
  readonly port: number
  readonly log: string
}

const lines = (replica: Replica): ReadonlyArray<string> =>
  fs.existsSync(replica.log) ? fs.readFileSync(replica.log, "utf8").trim().split("\n") : []

const count = (replica: Replica, prefix: string) => lines(replica).filter((line) => line.startsWith(prefix)).length

const startReplica = async (key: string): Promise<Replica> => {
  const log = path.join(tmp, `${key}.log`)
  const child = start(
    "node",
    [
      "--import",
      "tsx",
      "src/bin/cli.ts",
      "serve",
      "test/fixtures/replica/env.ts",
      "--port",
      "0",
      "--host",
      "127.0.0.1"
    ],
    { env: { ...process.env, OPENREWARD_ROUTE_KEY: key, OPENREWARD_TEST_LOG: log } }
  )
  const port = Number((await child.waitFor(/serving replicated on http:\/\/127\.0\.0\.1:(\d+)/))[1])
  return { key, child, port, log }
}

interface Rollout {
  readonly sid: string | null
  readonly replicas: ReadonlyArray<string>
  readonly error: string | null
  readonly detail: string | null
}

interface DriverResult {
  readonly sessions: ReadonlyArray<Rollout>
  readonly then: ReadonlyArray<Rollout>
}

/** The reference client: `sessions` rollouts of `steps` calls of `ms`, then `then` more. */
const reference = (url: string, sessions: number, steps: number, ms: number, then = 0): Promise<DriverResult> =>
  new Promise((resolve, reject) =>
    execFile(
      python,
      [driver, url, String(sessions), String(steps), String(ms), String(then)],
      { maxBuffer: 1 << 26 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`${error.message}\n${stderr.slice(-4000)}`))
        const result = stdout.trim().split("\n").map((line) => JSON.parse(line)).find((e) => e.event === "result")
        if (result === undefined) return reject(new Error(stdout))
        resolve(result as DriverResult)
      }
    )
  )

/** This library's client: `sessions` rollouts of `steps` calls of `ms`, at once. */
const ours = (url: string, sessions: number, steps: number, ms: number): Promise<ReadonlyArray<Rollout>> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const env = (yield* Client.Client).environment("replicated")
      const rollout = (index: number) =>
        Effect.scoped(Effect.gen(function*() {
          const session = yield* env.session({ split: "train", index })
          const replicas: Array<string> = []
          const calls = yield* Effect.either(Effect.gen(function*() {
            for (let step = 1; step <= steps; step++) {
              const output = yield* session.callTool("work", { step, ms })
              replicas.push(String((output.metadata as { replica: string }).replica))
            }
          }))
          return Either.isRight(calls)
            ? { sid: session.sid, replicas, error: null, detail: null }
            : { sid: session.sid, replicas, error: calls.left._tag, detail: String(calls.left) }
        })).pipe(
          Effect.catchAll((error) =>
            Effect.succeed<Rollout>({ sid: null, replicas: [], error: error._tag, detail: String(error) })
          )
        )
      return yield* Effect.forEach(Array.from({ length: sessions }, (_, i) => i), rollout, { concurrency: "unbounded" })
    }).pipe(Effect.provide(Client.layer({ baseUrl: url })), Effect.provide(NodeHttpClient.layerUndici))
  )

const keyOf = (sid: string | null) => (sid ?? "").split(".")[0]!

/** Every call of the session was answered by the replica its id names. */
const stayed = (rollout: Rollout) => rollout.replicas.every((replica) => replica === keyOf(rollout.sid))

/** Wait (bounded) until `ready` holds, polling. */
const until = async (ready: () => boolean, what: string, ms = 60_000) => {
  const deadline = Date.now() + ms
  while (!ready()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

let replicas: ReadonlyArray<Replica> = []
let nginx: Nginx.Nginx

beforeAll(async () => {
  replicas = await Promise.all(["r1", "r2", "r3"].map(startReplica))
  nginx = await Nginx.start((port) => Nginx.render(port, [replicas[0]!.port, replicas[1]!.port, replicas[2]!.port]))
}, 120_000)

afterAll(async () => {
  await nginx?.stop()
  killAll()
})

describe("deploy/", () => {
  it("the Kubernetes router's nginx configuration is valid (nginx -t; its DNS names resolve only in a cluster)", async () => {
    const dir = fs.mkdtempSync(path.join(tmp, "router-"))
    const conf = fs.readFileSync(path.join(root, "deploy/kubernetes/router.conf"), "utf8")
      .replace("resolver kube-dns.kube-system.svc.cluster.local", "resolver 127.0.0.1")
      .replaceAll("/tmp/", `${dir}/`)
      .replace("listen 8080;", "listen 127.0.0.1:8080;")
    fs.writeFileSync(path.join(dir, "nginx.conf"), conf)
    const result = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        "nginx",
        ["-t", "-p", dir, "-c", path.join(dir, "nginx.conf"), "-e", "stderr"],
        (error, _out, stderr) => resolve({ code: error === null ? 0 : 1, stderr })
      )
    )
    assert.strictEqual(result.code, 0, result.stderr)
    assert.include(result.stderr, "test is successful")
  })
})

describe("scale-out behind nginx", () => {
  it("300 sessions of the reference client (and 30 of ours): each lands on one replica and stays there", async () => {
    const [python, typescript] = await Promise.all([reference(nginx.url, 300, 5, 0), ours(nginx.url, 30, 5, 0)])
    for (const rollout of [...python.sessions, ...typescript]) {
      assert.isNull(rollout.error, rollout.detail ?? "")
      assert.strictEqual(rollout.replicas.length, 5)
      assert.isTrue(stayed(rollout), JSON.stringify(rollout))
    }
    const perReplica = new Map<string, number>()
    for (const rollout of python.sessions) {
      perReplica.set(keyOf(rollout.sid), (perReplica.get(keyOf(rollout.sid)) ?? 0) + 1)
    }
    assert.deepStrictEqual([...perReplica.keys()].sort(), ["r1", "r2", "r3"])
    // each replica ran exactly the calls of its sessions
    for (const replica of replicas) {
      const mine = python.sessions.filter((r) => keyOf(r.sid) === replica.key).length +
        typescript.filter((r) => keyOf(r.sid) === replica.key).length
      assert.strictEqual(count(replica, "done "), mine * 5)
    }
  }, 120_000)

  it(
    "a replica killed mid-run: its sessions end terminated, the others complete, new sessions go to live replicas",
    async () => {
      const r2 = replicas[1]!
      const steps = 6
      const setups = replicas.reduce((n, r) => n + count(r, "setup "), 0)
      const doneOnR2 = count(r2, "done ")
      const python = reference(nginx.url, 150, steps, 100, 30)
      const typescript = ours(nginx.url, 20, steps, 100)
      // every session created (so the kill hits running rollouts, not their creation), and r2 mid-run
      await until(() => replicas.reduce((n, r) => n + count(r, "setup "), 0) >= setups + 170, "every session set up")
      await until(() => count(r2, "done ") >= doneOnR2 + 40, "r2 mid-run")
      r2.child.process.kill("SIGKILL")
      await r2.child.exited
      const [result, ourRollouts] = await Promise.all([python, typescript])
      // a session of r2 that finished before the kill (its last call done) completed; all others must
      // have been ended by it
      const finishedOnR2 = new Set(
        lines(r2).filter((l) => l.startsWith("done ") && l.endsWith(` ${steps}`)).map((l) => l.split(" ")[2])
      )
      const terminated = (rollout: Rollout) => keyOf(rollout.sid) === "r2" && !finishedOnR2.has(rollout.sid!)

      // the kill hit running sessions (how many depends on the machine's speed: 8 to 40 seen)
      assert.isAtLeast(result.sessions.filter(terminated).length, 3)
      for (
        const [rollouts, error] of [[result.sessions, "SessionTerminatedError"], [
          ourRollouts,
          "SessionTerminated"
        ]] as const
      ) {
        for (const rollout of rollouts) {
          if (terminated(rollout)) {
            assert.strictEqual(rollout.error, error, JSON.stringify(rollout))
            assert.isBelow(rollout.replicas.length, steps)
          } else if (keyOf(rollout.sid) === "r2" && rollout.error !== null) {
            // its last call finished on r2 just before the kill, but the answer (or the session's
            // delete) was still in flight: the client sees the session end, as it should
            assert.strictEqual(rollout.error, error, JSON.stringify(rollout))
          } else {
            assert.isNull(rollout.error, JSON.stringify(rollout))
            assert.strictEqual(rollout.replicas.length, steps)
          }
          assert.isTrue(stayed(rollout), JSON.stringify(rollout))
        }
      }
      // after the kill, new sessions land on the live replicas and complete
      for (const rollout of result.then) {
        assert.isNull(rollout.error, JSON.stringify(rollout))
        assert.include(["r1", "r3"], keyOf(rollout.sid))
        assert.isTrue(stayed(rollout))
      }
    },
    120_000
  )

  it("a replica drained with SIGTERM loses no running call, then exits 0 with every session torn down", async () => {
    const r3 = replicas[2]!
    const before = lines(r3).length
    const phase = () => lines(r3).slice(before)
    const python = reference(nginx.url, 60, 2, 2000, 20)
    // wait until every r3 session of this run has its first call running
    await until(() => {
      const setups = phase().filter((l) => l.startsWith("setup ")).length
      const calls = phase().filter((l) => l.startsWith("call ") && l.endsWith(" 1")).length
      return setups > 0 && calls === setups
    }, "calls running on r3")
    await new Promise((resolve) => setTimeout(resolve, 100))
    const pid = Number(phase().find((l) => l.startsWith("call "))!.split(" ")[1])
    r3.child.process.kill("SIGTERM")
    const result = await python
    assert.strictEqual(await r3.child.exited, 0, r3.child.output())

    const calls = phase().filter((l) => l.startsWith("call ")).map((l) => l.replace(/^call /, ""))
    const done = new Set(phase().filter((l) => l.startsWith("done ")).map((l) => l.replace(/^done /, "")))
    assert.isAbove(calls.length, 0)
    for (const call of calls) assert.isTrue(done.has(call), `call ${call} was not finished`)
    for (const rollout of result.sessions) {
      // the first call of every session was answered, on r1 and r3 alike
      assert.isAtLeast(rollout.replicas.length, 1, JSON.stringify(rollout))
      if (keyOf(rollout.sid) === "r3") {
        assert.strictEqual(rollout.error, "SessionTerminatedError", JSON.stringify(rollout))
      } else {
        assert.isNull(rollout.error, JSON.stringify(rollout))
        assert.strictEqual(rollout.replicas.length, 2)
      }
    }
    const drained = result.sessions.filter((r) => keyOf(r.sid) === "r3")
    assert.isAbove(drained.length, 0)
    for (const rollout of drained) assert.include(phase(), `teardown ${pid} ${rollout.sid}`)
    for (const rollout of result.then) {
      assert.isNull(rollout.error, JSON.stringify(rollout))
      assert.strictEqual(keyOf(rollout.sid), "r1")
    }
  }, 120_000)
})
