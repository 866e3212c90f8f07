/**
 * `npm run bench:server`: throughput and latency of `/messages` and `/call` on loopback, for three
 * servers side by side in one run:
 *
 * - **ours**: `Server.serve` (this library) serving `DialogueEnv` of `examples/support.ts`;
 * - **reference**: the reference Python server (openreward 0.1.167, uvicorn, one worker) serving
 *   the same environment written in Python (`bench/server/reference.py`);
 * - **bare**: a bare `node:http` server answering with the bytes ours answers with
 *   (`bench/server/bare.ts`), the floor of what a Node server can do.
 *
 * Each server is a process of its own; the load generator (autocannon, `bench/server/load.ts`) is
 * another, with a fixed number of keep-alive connections (one session each) and a fixed time per
 * sample. Samples are interleaved, round by round (ours, reference, bare, ours, ...), so the noise
 * of a shared machine falls on every target alike, and each ratio is taken within a round. When
 * `taskset` is available and there are two cores or more, the servers are pinned to the last core
 * and the load generator to the first. Before measuring, every target's answers are checked to be
 * the same (the same JSON; for every target but the reference, the same bytes).
 *
 * Flags (all optional):
 *
 * - `--seconds=5` length of a sample; `--rounds=5` samples per target and route; `--warmup=2`
 *   seconds of unmeasured load per target and route first; `--connections=32`;
 * - `--routes=messages,call` and `--targets=ours,reference,bare` measure only these; two more
 *   targets tell where the time goes (`bench/server/floor.ts`): `platform`, `@effect/platform`'s
 *   HTTP server answering the same bytes without a router, and `fiber`, `node:http` answering
 *   each request from an Effect fiber;
 * - `--baseline=<dir>` adds the target `baseline`: `bench/server/ours.ts` of another checkout of this
 *   repository (say `git worktree add /tmp/before <commit>`, with `node_modules` linked in), run from
 *   there, so that a change's before and after are measured side by side, round by round;
 * - `--quick` one short round: a smoke run (figures are not reliable);
 * - `--no-pin` leave the processes unpinned;
 * - `--reference-log-level=WARNING` the reference's `OPENREWARD_LOG_LEVEL` (its own default is
 *   INFO, a log line per request; ours logs only failures, so the default here is WARNING);
 * - `--profile=<dir>` run our server under `node --cpu-prof`, writing the profile to `<dir>`
 *   (summarise it with `npx tsx bench/internal/profile.ts <file>`);
 * - `--json=<file>` also write every sample and summary as JSON.
 *
 * The reference needs a Python with openreward installed: `$OPENREWARD_PYTHON`, else
 * `.venv-ref/bin/python`, else `.venv-interop/bin/python` (`bash scripts/venv.sh` makes it); without
 * one it is skipped, with a message. Everything listens on 127.0.0.1 only; the run is bounded
 * (a deadline stops it) and every process it starts ends with it.
 *
 * Method, machine and figures: the "Server" section of docs/performance.md.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { isDeepStrictEqual } from "node:util"
import * as Nginx from "../test/utils/nginx.js"
import type { Responses } from "./server/bare.js"
import type { Job, Sample } from "./server/load.js"
import * as Report from "./server/report.js"

const root = path.resolve(import.meta.dirname, "..")

class BenchError extends Data.TaggedError("BenchError")<{ readonly message: string }> {}

// -----------------------------------------------------------------------------
// settings
// -----------------------------------------------------------------------------

const targetNames = ["ours", "baseline", "nginx", "reference", "bare", "platform", "fiber"] as const
type TargetName = typeof targetNames[number]
const routeNames = ["messages", "call"] as const
type RouteName = typeof routeNames[number]

const labels: Record<TargetName, string> = {
  ours: "ours (openreward-effect)",
  baseline: "ours, baseline checkout",
  nginx: "ours behind nginx (1 replica)",
  reference: "reference (Python)",
  bare: "bare node:http",
  platform: "@effect/platform, no router",
  fiber: "node:http + a fiber each"
}

const flag = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3)

const numberFlag = (name: string, fallback: number): number => {
  const text = flag(name)
  const n = text === undefined ? fallback : Number(text)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${text}`)
  return n
}

const listFlag = <A extends string>(
  name: string,
  all: ReadonlyArray<A>,
  byDefault: ReadonlyArray<A> = all
): ReadonlyArray<A> => {
  const chosen = flag(name)?.split(",") ?? byDefault
  for (const item of chosen) {
    if (!all.includes(item as A)) throw new Error(`--${name}: unknown ${item}; expected some of ${all.join(",")}`)
  }
  return all.filter((item) => chosen.includes(item))
}

const quick = process.argv.includes("--quick")
const settings = {
  seconds: quick ? 1 : numberFlag("seconds", 5),
  rounds: quick ? 1 : Math.round(numberFlag("rounds", 5)),
  warmup: quick ? 0.5 : numberFlag("warmup", 2),
  connections: Math.round(numberFlag("connections", 32)),
  routes: listFlag("routes", routeNames),
  targets: listFlag(
    "targets",
    targetNames,
    flag("baseline") === undefined ? ["ours", "nginx", "reference", "bare"] : ["ours", "baseline"]
  ),
  baseline: flag("baseline"),
  /** The many-sessions pass: `/call` latency with this many connections (one session each). */
  many: Math.round(numberFlag("many", 200)),
  pin: !process.argv.includes("--no-pin"),
  referenceLogLevel: flag("reference-log-level") ?? "WARNING",
  profile: flag("profile"),
  json: flag("json")
}

/** The environment every server serves, and what the routes send. */
const env = "dialogueenv"
const createBody = JSON.stringify({ env_name: env, split: "train", index: 0 })
/** A reply that does not finish the episode (it does not name the order), so every call runs the tool. */
const callBody = JSON.stringify({ name: "submit", input: { answer: "Let me look into that for you." } })

interface Route {
  readonly name: RouteName
  readonly method: "GET" | "POST"
  readonly path: string
  readonly body: string | undefined
  readonly headers: Record<string, string>
}

const routes: Record<RouteName, Route> = {
  messages: { name: "messages", method: "GET", path: `/${env}/messages`, body: undefined, headers: {} },
  call: {
    name: "call",
    method: "POST",
    path: `/${env}/call`,
    body: callBody,
    headers: { "content-type": "application/json" }
  }
}

// -----------------------------------------------------------------------------
// processes
// -----------------------------------------------------------------------------

interface Child {
  readonly name: string
  readonly process: ChildProcess
  /** The last few kilobytes it printed. */
  readonly output: () => string
}

/** Every child, for the last-resort kill when this process exits. */
const children = new Set<ChildProcess>()
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL")
})

const hasTaskset = ((): boolean => {
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

const cores = os.availableParallelism()
const pinned = settings.pin && hasTaskset && cores >= 2
/** The core the servers run on, and the load generator's. */
const serverCore = cores - 1
const loadCore = 0

const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null

/** Stop a child: close its standard input (it exits by itself), then kill it if it has not within 5 s. */
const stop = (child: Child): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const done = () => {
      children.delete(child.process)
      resume(Effect.void)
    }
    if (exited(child.process)) return done()
    child.process.once("exit", done)
    child.process.stdin?.end()
    if (child.process.connected) child.process.disconnect()
    const timer = setTimeout(() => child.process.kill("SIGKILL"), 5000)
    child.process.once("exit", () => clearTimeout(timer))
  })

/** Start a process (on `core`, when pinning), stopped when the scope closes. */
const start = (
  name: string,
  command: string,
  args: ReadonlyArray<string>,
  options: {
    readonly core: number
    readonly ipc?: boolean
    readonly env?: Record<string, string>
    readonly cwd?: string
  }
) =>
  Effect.acquireRelease(
    Effect.sync((): Child => {
      const [file, argv] = pinned ? ["taskset", ["-c", String(options.core), command, ...args]] : [command, args]
      const child = spawn(file, argv, {
        cwd: options.cwd ?? root,
        env: { ...process.env, ...options.env },
        stdio: options.ipc === true ? ["pipe", "pipe", "pipe", "ipc"] : ["pipe", "pipe", "pipe"]
      })
      children.add(child)
      let tail = ""
      const keep = (chunk: Buffer) => {
        tail = (tail + chunk.toString()).slice(-4000)
      }
      child.stdout?.on("data", keep)
      child.stderr?.on("data", keep)
      return { name, process: child, output: () => tail }
    }),
    stop
  )

/** Fails when the child exits. */
const exit = (child: Child) =>
  Effect.async<never, BenchError>((resume) => {
    const fail = () => resume(Effect.fail(new BenchError({ message: `${child.name} exited:\n${child.output()}` })))
    if (exited(child.process)) return fail()
    child.process.once("exit", fail)
    return Effect.sync(() => child.process.off("exit", fail))
  })

const freePort = Effect.async<number>((resume) => {
  const probe = net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as net.AddressInfo
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** CPU seconds a process has used so far (Linux), or undefined. */
const clockTicks = ((): number => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100
  } catch {
    return 100
  }
})()

const cpuSeconds = (pid: number | undefined): number | undefined => {
  if (pid === undefined) return undefined
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / clockTicks
  } catch {
    return undefined
  }
}

// -----------------------------------------------------------------------------
// HTTP
// -----------------------------------------------------------------------------

interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: string
}

const send = (url: string, init: RequestInit = {}) =>
  Effect.tryPromise({
    try: async (): Promise<Answer> => {
      const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) })
      return { status: response.status, headers: response.headers, body: await response.text() }
    },
    catch: (error) => new BenchError({ message: `${init.method ?? "GET"} ${url}: ${String(error)}` })
  })

const expectOk = (what: string) => (answer: Answer) =>
  answer.status === 200
    ? Effect.succeed(answer)
    : Effect.fail(new BenchError({ message: `${what}: status ${answer.status}: ${answer.body.slice(0, 500)}` }))

/** Wait until `url/health` answers (at most 60 s), failing if the child exits first. */
const healthy = (child: Child, url: string) =>
  Effect.raceFirst(
    send(`${url}/health`).pipe(
      Effect.flatMap(expectOk(`${child.name} /health`)),
      Effect.retry(Schedule.spaced("100 millis")),
      Effect.timeoutFail({
        duration: "60 seconds",
        onTimeout: () => new BenchError({ message: `${child.name} did not start:\n${child.output()}` })
      })
    ),
    exit(child)
  )

const request = (url: string, route: Route, sid: string) =>
  send(`${url}${route.path}`, {
    method: route.method,
    headers: { ...route.headers, "x-session-id": sid },
    ...(route.body === undefined ? {} : { body: route.body })
  }).pipe(Effect.flatMap(expectOk(`${route.method} ${url}${route.path}`)))

/** The events of an SSE body (CRLF or LF). */
const events = (body: string): ReadonlyArray<{ readonly event: string; readonly data: string }> =>
  body.replace(/\r\n?/g, "\n").split("\n\n").filter((frame) => frame !== "" && !frame.startsWith(":")).map(
    (frame) => {
      const lines = frame.split("\n")
      const field = (name: string) =>
        lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).replace(/^ /, "")).join(
          "\n"
        )
      return { event: field("event"), data: field("data") }
    }
  )

/** What `/call` answered: the task id and the result JSON. */
const callResult = (target: string, body: string) => {
  const got = events(body)
  const [head, end] = got
  if (got.length !== 2 || head?.event !== "task_id" || !/^[0-9a-f]{32}$/.test(head.data) || end?.event !== "end") {
    return Effect.fail(new BenchError({ message: `${target} /call: unexpected stream ${JSON.stringify(body)}` }))
  }
  return Effect.succeed({ taskId: head.data, result: JSON.parse(end.data) as unknown })
}

// -----------------------------------------------------------------------------
// targets
// -----------------------------------------------------------------------------

interface Target {
  readonly name: TargetName
  readonly url: string
  readonly child: Child
  readonly sessions: ReadonlyArray<string>
  /** The processes whose CPU is the target's (default: the child's). */
  readonly pids?: () => ReadonlyArray<number>
}

/**
 * Sessions `bench-0`, `bench-1`, ... (behind nginx `r1.bench-0`, ..., so its map routes them by
 * their route key), as many as the most connections a sample uses, created and set up.
 */
const sessionsOf = (url: string, prefix = "") =>
  Effect.forEach(
    Array.from({ length: Math.max(settings.connections, settings.many) }, (_, i) => `${prefix}bench-${i}`),
    (sid) =>
      send(`${url}/create`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-session-id": sid },
        body: createBody
      }).pipe(
        Effect.flatMap(expectOk(`${url}/create`)),
        // `/messages` waits for the session's setup.
        Effect.zipRight(request(url, routes.messages, sid)),
        Effect.as(sid)
      ),
    { concurrency: 8 }
  )

const node = (script: string, extra: ReadonlyArray<string> = []) => [...extra, "--import", "tsx", script]

/** `bench/server/ours.ts` of this checkout, or (`baseline`) of the one `--baseline` names. */
const startOurs = (name: "ours" | "baseline" = "ours") =>
  Effect.gen(function*() {
    const port = yield* freePort
    const profile = settings.profile === undefined || name !== "ours"
      ? []
      : ["--cpu-prof", `--cpu-prof-dir=${path.resolve(settings.profile)}`]
    const cwd = name === "ours" ? root : path.resolve(settings.baseline ?? root)
    if (!fs.existsSync(path.join(cwd, "bench/server/ours.ts"))) {
      return yield* new BenchError({ message: `--baseline: no bench/server/ours.ts under ${cwd}` })
    }
    const child = yield* start(
      name,
      process.execPath,
      [...node("bench/server/ours.ts", profile), "--port", `${port}`],
      { core: serverCore, cwd }
    )
    const url = `http://127.0.0.1:${port}`
    yield* healthy(child, url)
    const target: Target = { name, url, child, sessions: yield* sessionsOf(url) }
    return target
  })

interface Python {
  readonly executable: string
  readonly versions: { readonly python: string; readonly openreward: string; readonly uvicorn: string }
}

/** The processes of nginx: its master and, read from /proc, its workers. */
const nginxPids = (master: number | undefined): ReadonlyArray<number> => {
  if (master === undefined) return []
  try {
    const children = fs.readFileSync(`/proc/${master}/task/${master}/children`, "utf8").trim().split(/\s+/)
    return [master, ...children.filter((c) => c !== "").map(Number)]
  } catch {
    return [master]
  }
}

/**
 * Ours behind nginx running deploy/nginx/openreward.conf, with every replica of the file pointing
 * at the one `ours` server. nginx is stopped with SIGTERM (its master then stops its workers).
 */
const startNginx = (ours: Target) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "bench-nginx-"))
    fs.mkdirSync(path.join(prefix, "tmp"))
    const oursPort = Number(new URL(ours.url).port)
    fs.writeFileSync(path.join(prefix, "nginx.conf"), Nginx.render(port, [oursPort, oursPort, oursPort]))
    const [file, argv] = pinned
      ? ["taskset", [
        "-c",
        String(serverCore),
        "nginx",
        "-p",
        prefix,
        "-c",
        path.join(prefix, "nginx.conf"),
        "-e",
        "stderr"
      ]]
      : ["nginx", ["-p", prefix, "-c", path.join(prefix, "nginx.conf"), "-e", "stderr"]]
    const child = yield* Effect.acquireRelease(
      Effect.sync((): Child => {
        const process_ = spawn(file, argv, { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
        children.add(process_)
        let tail = ""
        process_.stderr?.on("data", (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-4000)))
        return { name: "nginx", process: process_, output: () => tail }
      }),
      (child) =>
        Effect.async<void>((resume) => {
          const done = () => {
            children.delete(child.process)
            fs.rmSync(prefix, { recursive: true, force: true })
            resume(Effect.void)
          }
          if (exited(child.process)) return done()
          child.process.once("exit", done)
          child.process.kill("SIGTERM")
        })
    )
    const url = `http://127.0.0.1:${port}`
    yield* healthy(child, url)
    const target: Target = {
      name: "nginx",
      url,
      child,
      sessions: yield* sessionsOf(url, "r1."),
      pids: () => [ours.child.process.pid!, ...nginxPids(child.process.pid)]
    }
    return target
  })

/** A Python with openreward, uvicorn and fastapi, or undefined (with the reason printed). */
const findPython = Effect.gen(function*() {
  const candidates = [
    process.env["OPENREWARD_PYTHON"],
    path.join(root, ".venv-ref/bin/python"),
    path.join(root, ".venv-interop/bin/python")
  ].filter((p): p is string => p !== undefined && p !== "" && fs.existsSync(p))
  const probe =
    "import json, platform, fastapi, uvicorn; from importlib.metadata import version; print(json.dumps({'python': platform.python_version(), 'openreward': version('openreward'), 'uvicorn': uvicorn.__version__}))"
  for (const executable of candidates) {
    const versions = yield* Effect.async<Python["versions"] | undefined>((resume) => {
      execFile(executable, ["-c", probe], { timeout: 60_000 }, (error, stdout) => {
        resume(Effect.succeed(error === null ? JSON.parse(stdout) as Python["versions"] : undefined))
      })
    })
    if (versions !== undefined) return { executable, versions } satisfies Python
  }
  console.log(
    "reference: skipped, no Python with openreward found (tried $OPENREWARD_PYTHON, .venv-ref, .venv-interop).\n" +
      "  To include it: OPENREWARD_PYTHON=\"$(bash scripts/venv.sh)\" npm run bench:server\n"
  )
  return undefined
})

const startReference = (python: Python) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const child = yield* start("reference", python.executable, ["bench/server/reference.py", "--port", `${port}`], {
      core: serverCore,
      env: { OPENREWARD_LOG_LEVEL: settings.referenceLogLevel, PYTHONUNBUFFERED: "1" }
    })
    const url = `http://127.0.0.1:${port}`
    yield* healthy(child, url)
    const target: Target = { name: "reference", url, child, sessions: yield* sessionsOf(url) }
    return target
  })

/** Capture what ours answers, for the bare server to answer the same. */
const capture = (ours: Target) =>
  Effect.gen(function*() {
    const sid = ours.sessions[0]!
    const pick = (headers: Headers, names: ReadonlyArray<string>) =>
      Object.fromEntries(names.flatMap((n) => headers.get(n) === null ? [] : [[n, headers.get(n)!]]))
    const messages = yield* request(ours.url, routes.messages, sid)
    const call = yield* request(ours.url, routes.call, sid)
    const { taskId } = yield* callResult("ours", call.body)
    const at = call.body.indexOf(taskId)
    return {
      messages: { path: routes.messages.path, headers: pick(messages.headers, ["content-type"]), body: messages.body },
      call: {
        path: routes.call.path,
        headers: pick(call.headers, ["content-type", "cache-control", "connection", "x-accel-buffering"]),
        before: call.body.slice(0, at),
        after: call.body.slice(at + taskId.length)
      }
    } satisfies Responses
  })

/** A server answering with ours' bytes: `bare.ts`, or a variant of `floor.ts`. */
const startFloor = (name: "bare" | "platform" | "fiber", responses: Responses) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const script = name === "bare" ? node("bench/server/bare.ts") : [...node("bench/server/floor.ts"), name]
    const args = [...script, "--port", `${port}`, "--responses", JSON.stringify(responses)]
    const child = yield* start(name, process.execPath, args, { core: serverCore })
    const url = `http://127.0.0.1:${port}`
    // These have no /health: wait for any answer.
    yield* Effect.raceFirst(
      send(`${url}/`).pipe(
        Effect.retry(Schedule.spaced("100 millis")),
        Effect.timeoutFail({
          duration: "60 seconds",
          onTimeout: () => new BenchError({ message: `${name} did not start` })
        })
      ),
      exit(child)
    )
    const target: Target = { name, url, child, sessions: ["bench-0"] }
    return target
  })

/** Every target answers both routes with the same JSON as ours (all but the reference: the same bytes). */
const verify = (targets: ReadonlyArray<Target>, responses: Responses) =>
  Effect.forEach(targets, (target) =>
    Effect.gen(function*() {
      const sid = target.sessions[0]!
      const messages = yield* request(target.url, routes.messages, sid)
      if (!isDeepStrictEqual(JSON.parse(messages.body), JSON.parse(responses.messages.body))) {
        return yield* new BenchError({
          message: `${target.name} /messages differs from ours:\n${messages.body}\n${responses.messages.body}`
        })
      }
      if (target.name !== "reference" && messages.body !== responses.messages.body) {
        return yield* new BenchError({ message: `${target.name} /messages is not byte for byte ours` })
      }
      const call = yield* request(target.url, routes.call, sid)
      const { result } = yield* callResult(target.name, call.body)
      const expected = yield* callResult("ours", responses.call.before + "0".repeat(32) + responses.call.after)
      if (!isDeepStrictEqual(result, expected.result)) {
        return yield* new BenchError({ message: `${target.name} /call differs from ours:\n${call.body}` })
      }
    }), { discard: true })

// -----------------------------------------------------------------------------
// load
// -----------------------------------------------------------------------------

type Reply = { readonly _tag: "Sample"; readonly sample: Sample } | { readonly _tag: "Error"; readonly message: string }

const startLoad = Effect.gen(function*() {
  const child = yield* start("load generator", process.execPath, node("bench/server/load.ts"), {
    core: loadCore,
    ipc: true
  })
  const run = (job: Job) =>
    Effect.raceFirst(
      Effect.async<Sample, BenchError>((resume) => {
        const onMessage = (reply: Reply) =>
          resume(
            reply._tag === "Sample"
              ? Effect.succeed(reply.sample)
              : Effect.fail(new BenchError({ message: `load generator: ${reply.message}` }))
          )
        child.process.once("message", onMessage)
        child.process.send(job)
        return Effect.sync(() => child.process.off("message", onMessage))
      }),
      exit(child)
    )
  return { child, run }
})

type Load = Effect.Effect.Success<typeof startLoad>

/** CPU seconds the processes have used so far, or undefined when one is unknown. */
const cpuOf = (pids: ReadonlyArray<number>): number | undefined => {
  let total = 0
  for (const pid of pids) {
    const used = cpuSeconds(pid)
    if (used === undefined) return undefined
    total += used
  }
  return pids.length === 0 ? undefined : total
}

/** One sample of a route of a target, with the CPU both processes used meanwhile. */
const measure = (load: Load, target: Target, route: Route, seconds: number, connections = settings.connections) =>
  Effect.gen(function*() {
    const pids = target.pids?.() ?? (target.child.process.pid === undefined ? [] : [target.child.process.pid])
    const before = { server: cpuOf(pids), load: cpuSeconds(load.child.process.pid), at: performance.now() }
    const sample = yield* load.run({
      url: `${target.url}${route.path}`,
      method: route.method,
      headers: route.headers,
      body: route.body,
      sessions: target.sessions,
      connections,
      seconds
    })
    const wall = (performance.now() - before.at) / 1000
    const used = (was: number | undefined, now: number | undefined) =>
      was === undefined || now === undefined ? undefined : (now - was) / wall
    const measured: Report.Measured = {
      ...sample,
      serverCpu: used(before.server, cpuOf(pids)),
      loadCpu: used(before.load, cpuSeconds(load.child.process.pid))
    }
    if (sample.failed > 0) {
      return yield* new BenchError({
        message: `${target.name} ${route.path}: ${sample.failed} failed requests (non-2xx, errors or timeouts)`
      })
    }
    return measured
  })

// -----------------------------------------------------------------------------
// the run
// -----------------------------------------------------------------------------

const machine = () => {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU"
  return `${cpu}, ${cores} cores, ${
    Math.round(os.totalmem() / 2 ** 30)
  } GiB; Node ${process.version}; ${os.type()} ${os.release()}`
}

const program = Effect.gen(function*() {
  const started = new Date()
  console.log(`npm run bench:server, ${started.toISOString()}`)
  console.log(`machine: ${machine()}`)
  console.log(
    `method: ${settings.connections} connections, ${settings.rounds} rounds of ${settings.seconds} s per target and route, ` +
      `after ${settings.warmup} s of warm-up each; ` +
      (pinned
        ? `servers pinned to core ${serverCore}, load generator to core ${loadCore}`
        : "processes not pinned")
  )

  const python = settings.targets.includes("reference") ? yield* findPython : undefined
  if (python !== undefined) {
    console.log(
      `reference: openreward ${python.versions.openreward}, uvicorn ${python.versions.uvicorn}, Python ${python.versions.python} ` +
        `(${
          path.relative(root, python.executable) || python.executable
        }), OPENREWARD_LOG_LEVEL=${settings.referenceLogLevel}`
    )
  }

  // Ours is always started: bare answers with its bytes, and the others are checked against it.
  if (settings.targets.includes("baseline") && settings.baseline === undefined) {
    return yield* new BenchError({ message: "the baseline target needs --baseline=<dir>" })
  }
  const ours = yield* startOurs()
  const responses = yield* capture(ours)
  const others = yield* Effect.all([
    python === undefined || !settings.targets.includes("reference")
      ? Effect.succeed(undefined)
      : startReference(python),
    settings.targets.includes("baseline") ? startOurs("baseline") : Effect.succeed(undefined),
    ...(["bare", "platform", "fiber"] as const).map((name) =>
      settings.targets.includes(name) ? startFloor(name, responses) : Effect.succeed(undefined)
    )
  ], { concurrency: "unbounded" })
  const behindNginx = settings.targets.includes("nginx") ? yield* startNginx(ours) : undefined
  const all = [ours, behindNginx, ...others].filter((t): t is Target => t !== undefined)
  yield* verify(all, responses)
  const targets = all.filter((t) => settings.targets.includes(t.name))
  console.log(
    `checked: every target answers /messages and /call with the same JSON as ours (all but the reference: the same bytes)\n`
  )

  const load = yield* startLoad
  const selected = settings.routes.map((name) => routes[name])

  for (const route of selected) {
    for (const target of targets) yield* measure(load, target, route, settings.warmup)
  }
  const samples = new Map<string, Array<Report.Measured>>()
  for (let round = 1; round <= settings.rounds; round++) {
    for (const route of selected) {
      for (const target of targets) {
        const sample = yield* measure(load, target, route, settings.seconds)
        const key = `${route.name}/${target.name}`
        samples.set(key, [...(samples.get(key) ?? []), sample])
        process.stderr.write(
          `round ${round}/${settings.rounds}  ${route.path.padEnd(24)} ${target.name.padEnd(10)} ` +
            `${Report.count(Report.rate(sample)).padStart(7)} req/s  p50 ${Report.ms(sample.latency.p50)} ms  ` +
            `p99 ${Report.ms(sample.latency.p99)} ms  server CPU ${Report.cpu(sample.serverCpu)}  ` +
            `load CPU ${Report.cpu(sample.loadCpu)}\n`
        )
      }
    }
  }

  const results: Record<string, unknown> = {}
  for (const route of selected) {
    const of = (name: TargetName) => samples.get(`${route.name}/${name}`)
    const rows = targets.map((target) => {
      const s = Report.summarise(of(target.name)!)
      return [
        labels[target.name],
        Report.count(s.rate),
        `${Report.count(s.minRate)}–${Report.count(s.maxRate)}`,
        s.serverCpu === undefined ? "-" : Report.count(s.rate / s.serverCpu),
        Report.ms(s.p50),
        Report.ms(s.p99),
        Report.cpu(s.serverCpu),
        Report.cpu(s.loadCpu)
      ]
    })
    console.log(
      `\n${route.method} ${route.path}  (${settings.connections} connections, ${settings.rounds} × ${settings.seconds} s; medians over rounds)`
    )
    console.log(
      Report.table(["target", "req/s", "range", "req/s per core", "p50 ms", "p99 ms", "server CPU", "load CPU"], rows)
    )
    const verdicts: Array<unknown> = []
    const compare = (other: TargetName, goal?: number, self: TargetName = "ours", perCore = false) => {
      const a = of(self)
      const b = of(other)
      if (a === undefined || b === undefined) return
      const r = perCore ? Report.perCoreRatio(a, b) : Report.ratio(a, b)
      if (r === undefined) return
      const met = goal === undefined ? undefined : r.median >= goal
      verdicts.push({ self, other, perCore, goal, ...r, met })
      console.log(
        `${labels[self]} / ${labels[other]}${perCore ? ", per core" : ""}: ${Report.times(r.median)} ` +
          `(rounds ${Report.times(r.min)}–${Report.times(r.max)})` +
          (goal === undefined ? "" : `; target ≥ ${goal}x: ${met ? "met" : "MISSED"}`)
      )
    }
    compare("reference", 3)
    compare("reference", 5, "ours", true)
    compare("reference", 5, "nginx", true)
    compare("ours", undefined, "nginx")
    compare("baseline")
    compare("baseline", undefined, "ours", true)
    compare("bare", 0.6)
    compare("platform")
    compare("fiber")
    results[route.name] = {
      targets: Object.fromEntries(
        targets.map((t) => [t.name, { samples: of(t.name), ...Report.summarise(of(t.name)!) }])
      ),
      ratios: verdicts
    }
  }

  // Many sessions at once: /call latency with `settings.many` connections, one session each.
  const manyTargets = targets.filter((t) =>
    t.name === "ours" || t.name === "baseline" || t.name === "nginx" || t.name === "reference"
  )
  if (settings.routes.includes("call") && manyTargets.length > 0) {
    for (const target of manyTargets) yield* measure(load, target, routes.call, settings.warmup, settings.many)
    const many = new Map<TargetName, Array<Report.Measured>>()
    for (let round = 1; round <= settings.rounds; round++) {
      for (const target of manyTargets) {
        const sample = yield* measure(load, target, routes.call, settings.seconds, settings.many)
        many.set(target.name, [...(many.get(target.name) ?? []), sample])
        process.stderr.write(
          `round ${round}/${settings.rounds}  ${routes.call.path} x${settings.many} ${target.name.padEnd(10)} ` +
            `${Report.count(Report.rate(sample)).padStart(7)} req/s  p50 ${Report.ms(sample.latency.p50)} ms  ` +
            `p99 ${Report.ms(sample.latency.p99)} ms\n`
        )
      }
    }
    console.log(
      `\nPOST ${routes.call.path} with ${settings.many} concurrent sessions  (${settings.many} connections, ` +
        `${settings.rounds} × ${settings.seconds} s; medians over rounds)`
    )
    console.log(Report.table(
      ["target", "req/s", "req/s per core", "p50 ms", "p99 ms", "server CPU"],
      manyTargets.map((t) => {
        const s = Report.summarise(many.get(t.name)!)
        return [
          labels[t.name],
          Report.count(s.rate),
          s.serverCpu === undefined ? "-" : Report.count(s.rate / s.serverCpu),
          Report.ms(s.p50),
          Report.ms(s.p99),
          Report.cpu(s.serverCpu)
        ]
      })
    ))
    results["call-many"] = Object.fromEntries(
      manyTargets.map((t) => [t.name, { samples: many.get(t.name), ...Report.summarise(many.get(t.name)!) }])
    )
  }
  const elapsed = Duration.format(Duration.millis(Date.now() - started.getTime()))
  console.log(`\ntotal time ${elapsed}`)
  if (settings.json !== undefined) {
    fs.writeFileSync(
      settings.json,
      JSON.stringify(
        { date: started.toISOString(), machine: machine(), settings, pinned, reference: python?.versions, results },
        null,
        2
      ) + "\n"
    )
  }
})

/** The longest the run may take: its samples, plus start-up, with room to spare. */
const deadline = Duration.seconds(
  (settings.routes.length + 1) * settings.targets.length *
      (settings.warmup + settings.rounds * (settings.seconds + 1)) +
    180
)

program.pipe(
  Effect.scoped,
  Effect.timeoutFail({
    duration: deadline,
    onTimeout: () => new BenchError({ message: `the run took longer than ${Duration.format(deadline)}; stopped` })
  }),
  NodeRuntime.runMain
)
