/**
 * Hostile clients against the real server (issue 17), with raw sockets (`node:net`): a server
 * process (test/fixtures/hostile/server.ts, and `serve` for shutdown) is held to what its clients
 * leave behind, counted by its open descriptors (/proc/<pid>/fd), and to what it says, checked on
 * the wire and in its log output.
 *
 * - A body cut off by a client that goes away frees the connection at once; a body that stops or
 *   drips is answered 408 by the request timeout; a 20 KB chunk extension is answered 413; all of
 *   them are closed, and the descriptors come back to where they were.
 * - SIGTERM drains and exits 0 with teardown, whatever connections are open.
 * - Sessions are capped, in total and per client address (X-Forwarded-For only when trusted).
 * - Secrets stay out of every answer and log line in every spelling; `__proto__` is a key like any
 *   other; a 422 quotes a bounded excerpt of the input; credentials are redacted on spans.
 *
 * Timings are generous bounds, not measurements: the machine may be loaded.
 */
import { NodeHttpServer } from "@effect/platform-node"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Tracer from "effect/Tracer"
import * as fc from "fast-check"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Block from "openreward-effect/Block"
import * as Environment from "openreward-effect/Environment"
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"
import * as ClientAddress from "../src/internal/server/clientAddress.js"
import * as Errors from "../src/internal/server/errors.js"
import { type Child, killAll, start } from "./utils/processes.js"

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "openreward-hostile-"))
let logs = 0

// -----------------------------------------------------------------------------
// processes and sockets, every one cleaned up
// -----------------------------------------------------------------------------

const sockets = new Set<net.Socket>()
const timers = new Set<NodeJS.Timeout>()

afterAll(() => {
  for (const timer of timers) clearInterval(timer)
  for (const socket of sockets) socket.destroy()
  killAll()
  fs.rmSync(tmp, { recursive: true, force: true })
})

interface Served {
  readonly child: Child
  readonly port: number
  readonly pid: number
  readonly url: string
  /** The lines the environment wrote (setup, teardown). */
  readonly lines: () => ReadonlyArray<string>
}

const serve = async (
  settings: Readonly<Record<string, string>> = {},
  how: "program" | "cli" = "program"
): Promise<Served> => {
  const log = path.join(tmp, `log-${logs++}`)
  const env = { ...process.env, OPENREWARD_TEST_LOG: log, ...settings }
  const child = how === "program"
    ? start("node", ["--import", "tsx", "test/fixtures/hostile/server.ts"], { env })
    : start("node", [
      "--import",
      "tsx",
      "src/bin/cli.ts",
      "serve",
      "test/fixtures/hostile/env.ts",
      "--port",
      "0",
      "--host",
      "127.0.0.1"
    ], { env })
  const port = Number((await child.waitFor(/(?:listening on |serving hostile on http:\/\/127\.0\.0\.1:)(\d+)/))[1])
  const lines = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : [])
  return { child, port, pid: child.process.pid!, url: `http://127.0.0.1:${port}`, lines }
}

/** The server process's open descriptors. */
const descriptors = (served: Served): number => fs.readdirSync(`/proc/${served.pid}/fd`).length

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Wait (at most `ms`) until `check` holds; whether it did. */
const eventually = async (check: () => boolean | Promise<boolean>, ms = 30_000): Promise<boolean> => {
  const deadline = Date.now() + ms
  for (;;) {
    if (await check()) return true
    if (Date.now() > deadline) return false
    await sleep(100)
  }
}

interface Raw {
  readonly socket: net.Socket
  /** What the server sent so far. */
  readonly received: () => string
  /** Resolves once the server (or the client) has closed the connection. */
  readonly closed: Promise<void>
  readonly isClosed: () => boolean
}

/** A raw connection, tracked so that every one is destroyed at the end. */
const connect = (port: number): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1")
    sockets.add(socket)
    let received = ""
    let isClosed = false
    socket.on("data", (chunk) => (received += chunk.toString("latin1")))
    socket.on("error", () => {})
    const closed = new Promise<void>((done) =>
      socket.once("close", () => {
        isClosed = true
        sockets.delete(socket)
        done()
      })
    )
    socket.once("connect", () => resolve({ socket, received: () => received, closed, isClosed: () => isClosed }))
    socket.once("error", reject)
  })

/** Write every `ms` ms until the connection closes. */
const drip = (raw: Raw, text: string, ms = 200) => {
  const timer = setInterval(() => {
    if (raw.isClosed()) clearInterval(timer)
    else raw.socket.write(text)
  }, ms)
  timers.add(timer)
}

const head = (method: string, target: string, headers: Readonly<Record<string, string>>) =>
  `${method} ${target} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`

/** The head of a /create whose body is `length` bytes long, then its first byte. */
const partialCreate = (sid: string, length = 100) =>
  head("POST", "/create", { "content-type": "application/json", "x-session-id": sid, "content-length": `${length}` }) +
  "{"

/** A chunked body whose first chunk's extension is 20 KB long. */
const hugeChunkExtension = head("POST", "/hostile/tasks", {
  "content-type": "application/json",
  "transfer-encoding": "chunked"
}) + `5;${"a".repeat(20_000)}`

const post = (url: string, body: unknown, headers: Readonly<Record<string, string>> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.text() }))

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64")

/** The answer's status line and JSON detail, from raw bytes on the wire. */
const answerOf = (wire: string) => ({
  status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(wire)?.[1] ?? 0),
  body: wire.slice(wire.indexOf("\r\n\r\n") + 4)
})

// -----------------------------------------------------------------------------
// abandoned and dripping requests
// -----------------------------------------------------------------------------

// Each group has its own server process: the groups run side by side, the tests of a group in turn.
describe.concurrent("hostile clients", () => {
  describe.skipIf(!fs.existsSync("/proc/self/fd"))(
    "the server frees what a client abandons",
    { sequential: true },
    () => {
      let served: Served
      beforeAll(async () => {
        served = await serve({ REQUEST_TIMEOUT: "2000", CHECK_INTERVAL: "250" })
      }, 120_000)

      it(
        "300 clients that send part of a body and go away (FIN or RST): every descriptor is freed at once",
        async () => {
          // Node's default request timeout (300 s): what frees them here is the clients going away
          const patient = await serve()
          assert.strictEqual((await fetch(`${patient.url}/health`)).status, 200)
          const before = descriptors(patient)
          const raws = await Promise.all(Array.from({ length: 300 }, () => connect(patient.port)))
          await Promise.all(
            raws.map((raw, i) =>
              new Promise<void>((resolve) => raw.socket.write(partialCreate(`gone-${i}`), () => resolve()))
            )
          )
          await eventually(() => descriptors(patient) >= before + 250, 10_000)
          const held = descriptors(patient)
          raws.forEach((raw, i) => (i % 2 === 0 ? raw.socket.end() : raw.socket.resetAndDestroy()))
          const began = Date.now()
          const freed = await eventually(() => descriptors(patient) <= before + 2, 30_000)
          const after = descriptors(patient)
          const report = `descriptors: ${before} before, ${held} with the clients, ${after} ${
            Date.now() - began
          } ms after they left`
          assert.isTrue(freed, report)
          console.log(`300 abandoned bodies: ${report}`)
          assert.isAtLeast(held, before + 250)
          assert.strictEqual((await fetch(`${patient.url}/health`)).status, 200)
        },
        120_000
      )

      it("a body that stops, or drips, is answered 408 by the request timeout and closed", async () => {
        const before = descriptors(served)
        const stopped = await Promise.all(Array.from({ length: 20 }, () => connect(served.port)))
        stopped.forEach((raw, i) => raw.socket.write(partialCreate(`stopped-${i}`)))
        const dripping = await Promise.all(Array.from({ length: 5 }, () => connect(served.port)))
        dripping.forEach((raw, i) => {
          raw.socket.write(partialCreate(`drip-${i}`, 1_000_000))
          drip(raw, " ")
        })
        const all = [...stopped, ...dripping]
        const began = Date.now()
        await Promise.race([Promise.all(all.map((raw) => raw.closed)), sleep(30_000)])
        const took = Date.now() - began
        for (const raw of all) {
          assert.isTrue(raw.isClosed(), "closed by the server")
          const answer = answerOf(raw.received())
          assert.strictEqual(answer.status, 408, raw.received())
          assert.deepStrictEqual(JSON.parse(answer.body), { detail: "Request timeout." })
        }
        // timeout 2 s, checked every 0.25 s
        assert.isAtLeast(took, 1_000)
        assert.isTrue(await eventually(() => descriptors(served) <= before + 2), `descriptors: ${descriptors(served)}`)
      }, 60_000)

      it(
        "a partial chunked body with a 20 KB chunk extension is answered 413 and closed; 40 KB of headers 431",
        async () => {
          const before = descriptors(served)
          const chunked = await Promise.all(Array.from({ length: 20 }, () => connect(served.port)))
          chunked.forEach((raw) => raw.socket.write(hugeChunkExtension))
          const headers = await connect(served.port)
          headers.socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(40_000)}\r\n\r\n`)
          await Promise.race([Promise.all([...chunked, headers].map((raw) => raw.closed)), sleep(20_000)])
          for (const raw of chunked) {
            assert.isTrue(raw.isClosed())
            assert.strictEqual(answerOf(raw.received()).status, 413, raw.received())
            assert.deepStrictEqual(JSON.parse(answerOf(raw.received()).body), { detail: "Content Too Large" })
          }
          assert.strictEqual(answerOf(headers.received()).status, 431)
          assert.isTrue(
            await eventually(() => descriptors(served) <= before + 2),
            `descriptors: ${descriptors(served)}`
          )
        },
        60_000
      )

      it(
        "a client that keeps sending after its refusal, or never closes its side, is closed all the same",
        async () => {
          const before = descriptors(served)
          const garbage = await connect(served.port)
          garbage.socket.write("NOT HTTP\r\n\r\n")
          drip(garbage, "more garbage\r\n", 50)
          const upgrade = await connect(served.port)
          upgrade.socket.write(head("GET", "/health", { connection: "Upgrade", upgrade: "websocket" }))
          await Promise.race([Promise.all([garbage.closed, upgrade.closed]), sleep(20_000)])
          assert.isTrue(garbage.isClosed() && upgrade.isClosed())
          assert.strictEqual(answerOf(garbage.received()).status, 400)
          assert.strictEqual(answerOf(upgrade.received()).status, 200)
          assert.isTrue(
            await eventually(() => descriptors(served) <= before + 2),
            `descriptors: ${descriptors(served)}`
          )
        },
        60_000
      )
    }
  )

  describe.sequential("Server.withClientErrors on a bare Node server", () => {
    const listen = (server: ReturnType<typeof createServer>) =>
      new Promise<number>((resolve) =>
        server.listen(0, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port))
      )

    it("close() ends a connection whose client never reads its answer, after closeTimeout", async () => {
      const server = Server.withClientErrors(
        createServer((_, response) => {
          response.writeHead(200, { "content-type": "text/plain" })
          const chunk = Buffer.alloc(1024 * 1024, 0x61)
          const pump = () => {
            while (response.write(chunk)) { /* until the socket's buffer is full */ }
          }
          pump()
          response.on("drain", pump)
        }),
        { closeTimeout: "500 millis" }
      )
      const port = await listen(server)
      const reader = await connect(port)
      reader.socket.pause() // never reads
      reader.socket.write(head("GET", "/", {}))
      await sleep(300)
      const began = Date.now()
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      const finished = await Promise.race([closed.then(() => true), sleep(15_000).then(() => false)])
      assert.isTrue(finished, "close() finished")
      assert.isAtLeast(Date.now() - began, 400)
      reader.socket.destroy()
    }, 30_000)

    it("a request that arrives when nothing serves is answered 503 and its connection closed", async () => {
      const server = Server.withClientErrors(createServer())
      const port = await listen(server)
      const raw = await connect(port)
      raw.socket.write(head("GET", "/health", {}))
      await Promise.race([raw.closed, sleep(10_000)])
      assert.isTrue(raw.isClosed())
      const answer = answerOf(raw.received())
      assert.strictEqual(answer.status, 503)
      assert.deepStrictEqual(JSON.parse(answer.body), { detail: "Server is shutting down" })
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }, 30_000)
  })

  // -----------------------------------------------------------------------------
  // SIGTERM with hostile connections open
  // -----------------------------------------------------------------------------

  describe.concurrent("SIGTERM drains and exits with teardown whatever connections are open", () => {
    /** Open every kind of connection a client can leave hanging; the ones that should stay open. */
    const leaveHanging = async (port: number): Promise<ReadonlyArray<Raw>> => {
      const raws: Array<Raw> = []
      const open = async (count: number, what: (raw: Raw, i: number) => void) => {
        const opened = await Promise.all(Array.from({ length: count }, () => connect(port)))
        opened.forEach(what)
        raws.push(...opened)
      }
      await open(150, (raw, i) => raw.socket.write(partialCreate(`partial-${i}`)))
      await open(10, (raw, i) => {
        raw.socket.write(partialCreate(`drip-${i}`, 1_000_000))
        drip(raw, " ")
      })
      await open(10, (raw) => raw.socket.write(hugeChunkExtension))
      await open(10, (raw) => {
        raw.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n")
        drip(raw, "X-Slow: header\r\n")
      })
      await open(10, (raw) => raw.socket.write(head("GET", "/health", { connection: "Upgrade", upgrade: "websocket" })))
      await open(10, (raw) => raw.socket.write(head("GET", "/health", {}))) // kept alive, idle
      return raws
    }

    for (const how of ["program", "cli"] as const) {
      it(
        `${how === "program" ? "a program with Server.withClientErrors" : "openreward-effect serve"}, 200 connections`,
        async () => {
          // closing gives up on connections after 20 s: the exit must come well before, by the sweep
          const served = await serve({ CLOSE_TIMEOUT: "20000" }, how)
          const created = await post(`${served.url}/create`, { split: "train", index: 0 }, { "x-session-id": "kept" })
          assert.strictEqual(created.status, 200)
          assert.isTrue(await eventually(() => served.lines().some((l) => l.endsWith(" kept"))))
          const raws = await leaveHanging(served.port)
          assert.strictEqual(raws.length, 200)
          await sleep(500)
          const began = Date.now()
          served.child.process.kill("SIGTERM")
          const code = await Promise.race([served.child.exited, sleep(30_000).then(() => "still running")])
          const took = Date.now() - began
          assert.strictEqual(code, 0, `exit after ${took} ms: ${served.child.output()}`)
          if (how === "program") assert.isBelow(took, 15_000)
          assert.include(served.lines(), `teardown ${served.pid} kept`)
          assert.isTrue(await eventually(() => raws.every((raw) => raw.isClosed()), 10_000), "every connection closed")
          // a request still arriving is told why
          const drips = raws.slice(150, 160).map((raw) => answerOf(raw.received()).status)
          assert.deepStrictEqual(
            drips.filter((status) => status !== 503 && status !== 408),
            [],
            JSON.stringify(raws.slice(150, 152).map((raw) => raw.received())) + served.child.output()
          )
          console.log(`${how}: SIGTERM with ${raws.length} hanging connections, exit 0 after ${took} ms`)
        },
        120_000
      )
    }
  })

  // -----------------------------------------------------------------------------
  // the session limit
  // -----------------------------------------------------------------------------

  const Small = Environment.make({
    name: "Small",
    splits: ["train"],
    tasks: { train: [{}] },
    prompt: () => [Block.text("hi")],
    tools: [Tool.make("noop", { handler: () => Tool.output("ok") })]
  })

  describe.sequential("sessions are capped, in total and per client address", () => {
    let served: Served
    beforeAll(async () => {
      served = await serve({ MAX_SESSIONS: "6", MAX_SESSIONS_PER_CLIENT: "3", TRUSTED_PROXIES: "1" })
    }, 120_000)

    const create = (sid: string, forwardedFor: string) =>
      post(`${served.url}/create`, { split: "train", index: 0 }, {
        "x-session-id": sid,
        "x-forwarded-for": forwardedFor
      })

    it(
      "past either limit, 503 with Retry-After; X-Forwarded-For read from the right, behind one trusted proxy",
      async () => {
        for (const i of [1, 2, 3]) assert.strictEqual((await create(`a${i}`, "10.0.0.1")).status, 200)
        const fourth = await create("a4", "10.0.0.1")
        assert.strictEqual(fourth.status, 503)
        assert.strictEqual(fourth.headers.get("retry-after"), "5")
        assert.match(JSON.parse(fourth.body).detail, /this client holds 3, the limit per client/)
        // what the client wrote itself, left of the proxy's entry, changes nothing
        assert.strictEqual((await create("a5", "10.9.9.9, 10.0.0.1")).status, 503)
        for (const i of [1, 2, 3]) assert.strictEqual((await create(`b${i}`, `10.0.0.2`)).status, 200)
        const full = await create("c1", "10.0.0.3")
        assert.strictEqual(full.status, 503)
        assert.strictEqual(full.headers.get("retry-after"), "5")
        assert.match(JSON.parse(full.body).detail, /this server holds 6, its limit \(maxSessions\)/)
        // a session that ends frees its place
        assert.strictEqual((await post(`${served.url}/delete`, {}, { "x-session-id": "a1" })).status, 200)
        assert.strictEqual((await create("c1", "10.0.0.3")).status, 200)
        assert.strictEqual((await create("a6", "10.0.0.1")).status, 503)
        assert.strictEqual((await post(`${served.url}/delete`, {}, { "x-session-id": "b1" })).status, 200)
        assert.strictEqual((await create("a6", "10.0.0.1")).status, 200)
      },
      60_000
    )

    it.effect("without trusted proxies, X-Forwarded-For is ignored: the connection's address is the client", () =>
      Effect.gen(function*() {
        const server = yield* HttpServer.HttpServer
        const url = `http://127.0.0.1:${(server.address as HttpServer.TcpAddress).port}`
        const statuses: Array<number> = []
        for (const i of [1, 2, 3]) {
          const reply = yield* Effect.promise(() =>
            post(`${url}/create`, { split: "train", index: 0 }, {
              "x-session-id": `s${i}`,
              "x-forwarded-for": `10.1.0.${i}`
            })
          )
          statuses.push(reply.status)
        }
        assert.deepStrictEqual(statuses, [200, 200, 503])
      }).pipe(
        Effect.provide(
          Server.layer([Small], { maxSessionsPerClient: 2 }).pipe(
            Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
          )
        ),
        Effect.scoped
      ))

    it("a limit that is not a whole number, or below one, is refused when the server starts", async () => {
      for (const options of [{ maxSessions: 0 }, { maxSessionsPerClient: 1.5 }, { trustedProxies: -1 }]) {
        const exit = await Effect.runPromiseExit(Effect.scoped(Server.make([Small], options)))
        assert.isTrue(exit._tag === "Failure", JSON.stringify(options))
      }
    })
  })

  // -----------------------------------------------------------------------------
  // secrets
  // -----------------------------------------------------------------------------

  /** A secret every encoding spells differently: quote, slash, plus, space, backslash, non-ASCII. */
  const token = "tok/\"s3cr3t\"+key é\\ 0123456789"

  /** Every spelling the token takes, computed here independently of the server's redactor. */
  const spellings = (secret: string): ReadonlyArray<string> => {
    const bytes = Buffer.from(secret, "utf8")
    const forms = [
      secret,
      JSON.stringify(secret).slice(1, -1),
      JSON.stringify(JSON.stringify(secret)).slice(1, -1),
      encodeURIComponent(secret),
      encodeURIComponent(secret).toLowerCase(),
      new URLSearchParams({ k: secret }).toString().slice(2)
    ]
    for (let offset = 0; offset < 3; offset++) {
      const encoded = Buffer.concat([Buffer.alloc(offset, 0x41), bytes]).toString("base64")
      const end = (offset + bytes.length) % 3 === 0 ? encoded.length : encoded.length - 4
      const core = encoded.slice(offset === 0 ? 0 : 4, end)
      forms.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"))
    }
    return forms
  }

  const assertNoSecret = (text: string, what: string) => {
    for (const form of spellings(token)) assert.notInclude(text, form, `${what} holds the token as ${form}`)
  }

  describe.sequential("secrets stay secret", () => {
    let served: Served
    const sid = "secret-session"
    beforeAll(async () => {
      served = await serve()
      // written as text: an object literal's `__proto__` would set its prototype, not a key
      const header = Buffer.from(
        `{"token":{"value":${
          JSON.stringify(token)
        },"allowed_domains":[]},"__proto__":{"value":"not-a-prototype","allowed_domains":[]}}`
      ).toString("base64")
      const created = await post(`${served.url}/create`, { split: "train", index: 0 }, {
        "x-session-id": sid,
        "x-secrets": header
      })
      assert.strictEqual(created.status, 200, created.body)
    }, 120_000)

    const call = (name: string, input: unknown) =>
      post(`${served.url}/hostile/call`, { name, input }, { "x-session-id": sid })

    it("`__proto__` in X-Secrets is a secret's name, and the secrets object keeps its prototype", async () => {
      const reply = await call("secrets", {})
      const output = JSON.parse(JSON.parse(/event: end\ndata: (.*)/.exec(reply.body)![1]!).output.blocks[0].text)
      assert.deepStrictEqual(output, { names: ["token", "__proto__"], plain: true, inherited: false })
    })

    it("a tool failing with the token, every way, and logging it, every way: no answer or log line holds it", async () => {
      const answers: Array<string> = []
      for (const how of ["object", "json", "url", "base64", "defect"]) {
        const reply = await call("leak", { how })
        assert.match(reply.body, /event: error\ndata: /, reply.body)
        assert.include(reply.body, "[REDACTED]", `${how}: ${reply.body}`)
        answers.push(reply.body)
      }
      for (const answer of answers) assertNoSecret(answer, "an answer")
      // the environment's own lines were written, redacted
      assert.isTrue(await eventually(() => (served.child.output().match(/\[REDACTED\]/g) ?? []).length >= 30))

      const output = served.child.output().replace(/\x1b\[[0-9;]*m/g, "")
      assert.include(output, "plain [REDACTED]")
      assert.include(output, "setup sees [REDACTED]")
      assertNoSecret(output, "the server's output")
    })

    it("`__proto__` is kept as a key by a Schema.Record tool input and a task spec, as the reference keeps it", async () => {
      const reply = await post(
        `${served.url}/hostile/call`,
        "{\"name\":\"record\",\"input\":{\"m\":{\"a\":1,\"__proto__\":2,\"\\u005f_proto__\":3,\"b\":4}}}",
        { "x-session-id": sid }
      )
      const output = JSON.parse(JSON.parse(/event: end\ndata: (.*)/.exec(reply.body)![1]!).output.blocks[0].text)
      // JSON.parse keeps the last of two equal keys, in the first one's place
      assert.deepStrictEqual(output, { keys: ["a", "__proto__", "b"], values: [1, 3, 4], own: true, plain: true })

      const spec = "{\"task_spec\":{\"i\":0,\"labels\":{\"__proto__\":\"x\",\"b\":\"y\"}}}"
      assert.strictEqual((await post(`${served.url}/create`, spec, { "x-session-id": "proto-task" })).status, 200)
      const prompt = await fetch(`${served.url}/hostile/prompt`, { headers: { "x-session-id": "proto-task" } })
      const text = JSON.parse(((await prompt.json()) as ReadonlyArray<{ readonly text: string }>)[0]!.text)
      assert.deepStrictEqual(text.keys, ["__proto__", "b"])
      // a wrong value under the key is reported at its place
      const wrong = await post(`${served.url}/create`, "{\"task_spec\":{\"i\":0,\"labels\":{\"__proto__\":1}}}", {
        "x-session-id": "proto-wrong"
      })
      assert.strictEqual(wrong.status, 422)
      const item = JSON.parse(wrong.body).detail[0]
      assert.deepStrictEqual(item.loc, ["body", "task_spec", "labels", "__proto__"])
    })

    it("a 422 quotes a bounded excerpt of the input, not all of it", async () => {
      const big = "x".repeat(8 * 1024 * 1024)
      for (
        const body of [
          JSON.stringify({ task_spec: [big] }),
          JSON.stringify({ split: "train", index: 0, extra: { a: big } }),
          `not json at all ${big}`,
          JSON.stringify({
            task_spec: { i: 0, labels: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])) }
          })
        ]
      ) {
        const reply = await fetch(`${served.url}/create`, {
          method: "POST",
          headers: {
            "content-type": body.startsWith("not") ? "text/plain" : "application/json",
            "x-session-id": "big"
          },
          body
        })
        const text = await reply.text()
        assert.strictEqual(reply.status, 422, text.slice(0, 200))
        assert.isBelow(text.length, 64 * 1024, text.slice(0, 300))
        const detail = JSON.parse(text).detail as ReadonlyArray<{ readonly input: unknown; readonly type: string }>
        assert.isAtMost(detail.length, 101)
      }
      // an input that fits is quoted whole, as pydantic quotes it
      const small = await post(`${served.url}/create`, { split: "train", index: "x" }, { "x-session-id": "small" })
      assert.deepStrictEqual(JSON.parse(small.body).detail, [{
        type: "int_parsing",
        loc: ["body", "index"],
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: "x"
      }])
    }, 60_000)
  })

  describe("the client address", () => {
    const request = (remoteAddress: string, forwarded?: string) =>
      HttpServerRequest.fromWeb(
        new Request("http://x/create", forwarded === undefined ? {} : { headers: { "x-forwarded-for": forwarded } })
      ).modify({ remoteAddress })
    it("is the connection's, IPv4 as IPv6 writes it read as IPv4, unless proxies are trusted", () => {
      assert.strictEqual(ClientAddress.of(request("::ffff:10.0.0.7", "1.1.1.1"), 0), "10.0.0.7")
      assert.strictEqual(ClientAddress.of(request("10.0.0.7"), 1), "10.0.0.7")
      // one trusted proxy: the address it appended, whatever the client wrote before it
      assert.strictEqual(ClientAddress.of(request("10.0.0.9", "6.6.6.6, 203.0.113.5"), 1), "203.0.113.5")
      // two: the first proxy's entry, counted from the right past the second's
      assert.strictEqual(ClientAddress.of(request("10.0.0.9", "6.6.6.6, 203.0.113.5, 10.0.0.8"), 2), "203.0.113.5")
      // fewer entries than proxies: the leftmost there is
      assert.strictEqual(ClientAddress.of(request("10.0.0.9", "203.0.113.5"), 3), "203.0.113.5")
      assert.strictEqual(ClientAddress.of(request("10.0.0.9", " , "), 1), "10.0.0.9")
    })
  })

  describe("the redactor", () => {
    it.prop(
      "every spelling of a secret, anywhere in a text, is redacted",
      [
        fc.string({ minLength: 1, maxLength: 24, unit: "grapheme" }),
        fc.string({ maxLength: 5 }),
        fc.string({ maxLength: 5 })
      ],
      ([secret, before, after]) => {
        const redact = Errors.redactor([secret])
        const bytes = Buffer.from(secret, "utf8")
        const texts = [
          before + secret + after,
          JSON.stringify({ before, secret, after }),
          JSON.stringify(JSON.stringify({ secret })),
          `?a=${encodeURIComponent(before)}&k=${encodeURIComponent(secret)}`,
          new URLSearchParams({ k: secret }).toString(),
          Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]).toString("base64"),
          Buffer.concat([Buffer.from(before), bytes]).toString("base64url")
        ]
        for (const text of texts) {
          const redacted = redact(text)
          for (const form of spellings(secret).filter((f) => f.length >= 8 || f === secret)) {
            assert.notInclude(redacted, form, `${JSON.stringify(text)} -> ${JSON.stringify(redacted)}`)
          }
        }
      }
    )
  })

  describe("credentials are redacted on the server's spans", () => {
    it.effect("X-Secrets, X-Session-ID, X-API-Key, Authorization and cookies, with tracing on", () =>
      Effect.gen(function*() {
        const spans: Array<Tracer.Span> = []
        const native = yield* Effect.tracer
        const tracer = Tracer.make({
          span: (...args) => {
            const span = native.span(...args)
            spans.push(span)
            return span
          },
          context: native.context
        })
        const credentials = {
          "x-secrets": b64({ token: { value: token, allowed_domains: [] } }),
          "x-session-id": "sid-0123456789abcdef",
          "x-api-key": "key-0123456789",
          authorization: "Bearer bearer-0123456789",
          cookie: "session=cookie-0123456789"
        }
        yield* Effect.gen(function*() {
          const server = yield* HttpServer.HttpServer
          const url = `http://127.0.0.1:${(server.address as HttpServer.TcpAddress).port}`
          const created = yield* Effect.promise(() => post(`${url}/create`, { split: "train", index: 0 }, credentials))
          assert.strictEqual(created.status, 200)
        }).pipe(
          Effect.provide(
            Server.layer([Small], { tracing: true }).pipe(
              Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
            )
          ),
          Effect.scoped,
          Effect.withTracer(tracer)
        )
        const server = spans.filter((span) => span.kind === "server")
        assert.isAbove(server.length, 0)
        const attributes = server.flatMap((span) => [...span.attributes.entries()])
        for (const name of Object.keys(credentials)) {
          const value = attributes.find(([key]) => key === `http.request.header.${name}`)?.[1]
          assert.strictEqual(value, "<redacted>", name)
        }
        const all = JSON.stringify(attributes.map(([k, v]) => [k, String(v)]))
        for (const value of Object.values(credentials)) assert.notInclude(all, value)
        assertNoSecret(all, "a span")
      }))
  })
})
