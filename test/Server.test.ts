import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TestClock from "effect/TestClock"
import { createServer } from "node:http"
import * as net from "node:net"
import * as Block from "openreward-effect/Block"
import * as Environment from "openreward-effect/Environment"
import * as Message from "openreward-effect/Message"
import * as Protocol from "openreward-effect/Protocol"
import * as ProtocolError from "openreward-effect/ProtocolError"
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"
import * as App from "../src/internal/server/app.js"
import { TaskRegistry } from "../src/internal/server/calls.js"
import * as Compiled from "../src/internal/server/compiled.js"
import { floatJson, repr, reprString, Tuple } from "../src/internal/server/python.js"
import type * as Router from "../src/internal/server/router.js"
import { SessionStore } from "../src/internal/server/sessions.js"
import * as Sse from "../src/internal/server/sse.js"
import { layer } from "./utils/layer.js"

// -----------------------------------------------------------------------------
// environments under test
// -----------------------------------------------------------------------------

class Boom extends Schema.TaggedError<Boom>()("Boom", { reason: Schema.String }) {
  override get message() {
    return this.reason
  }
}

class Greeting extends Context.Tag("test/Greeting")<Greeting, { readonly greet: (name: string) => string }>() {}

/** What happened, in order: setups, teardowns, tool starts. */
const log: Array<string> = []
/** Latches tools and setups wait on, by name. */
const latches = new Map<string, Deferred.Deferred<void>>()
const latch = (name: string) => {
  let d = latches.get(name)
  if (d === undefined) {
    d = Deferred.unsafeMake<void>(FiberId.none)
    latches.set(name, d)
  }
  return d
}
const open = (name: string) => Deferred.succeed(latch(name), undefined)
const counters = new Map<string, number>()
const bump = (name: string) => counters.set(name, (counters.get(name) ?? 0) + 1)
const count = (name: string) => counters.get(name) ?? 0
let inFlight = 0
let maxInFlight = 0

const LabTask = Schema.Struct({ id: Schema.String })
type LabTask = typeof LabTask.Type
interface LabState {
  readonly opened: string
}
type LabSession = Environment.Session<LabTask, LabState>

const text = (t: string) => Tool.output(t)

const holding = (name: string, concurrency: Tool.Concurrency) =>
  Tool.make(name, {
    concurrency,
    input: Schema.Struct({ latch: Schema.String, finish: Schema.optional(Schema.Boolean) }),
    handler: ({ finish, latch: key }) =>
      Effect.gen(function*() {
        log.push(`${name} start`)
        bump(name)
        inFlight++
        maxInFlight = Math.max(maxInFlight, inFlight)
        yield* Deferred.await(latch(key)).pipe(Effect.ensuring(Effect.sync(() => inFlight--)))
        log.push(`${name} end`)
        return Tool.output(`${name} done`, { reward: 1, finished: finish ?? false })
      })
  })

const labTools = [
  Tool.make("echo", {
    description: "  Echo the text back.  ",
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text: t }) => text(t)
  }),
  Tool.make("whoami", {
    handler: (_, session: LabSession) => text(`${session.task.id} ${session.state.opened} ${session.environment}`)
  }),
  Tool.make("big", {
    input: Schema.Struct({ n: Schema.Int, pad: Schema.Int }),
    handler: ({ n, pad }) => text("x".repeat(pad) + "😀".repeat(n))
  }),
  Tool.make("fail", { handler: () => Effect.fail(new Boom({ reason: "kaboom" })) }),
  Tool.make("die", { handler: () => Effect.die(new Error("exploded")) }),
  Tool.make("leak", {
    handler: (_, session: LabSession) =>
      Effect.fail(new Boom({ reason: `bad token ${Redacted.value(session.secrets["token"]!)}` }))
  }),
  Tool.make("bad", { handler: () => ({ blocks: "nope" }) as unknown as Protocol.ToolOutput }),
  Tool.make("finish", { handler: () => Tool.output("done", { reward: 0.5, finished: true, metadata: { n: 1 } }) }),
  Tool.make("greet", {
    input: Schema.Struct({ name: Schema.String }),
    handler: ({ name }) => Effect.map(Greeting, (g) => text(g.greet(name)))
  }),
  Tool.make("slow", {
    input: Schema.Struct({ latch: Schema.String }),
    handler: ({ latch: key }) =>
      Effect.gen(function*() {
        bump(`slow ${key}`)
        yield* Deferred.await(latch(key))
        return text(`slow ${key}`)
      })
  }),
  holding("serial", "serial"),
  holding("parallel", "concurrent"),
  holding("solo", "exclusive"),
  Tool.make("final", {
    terminal: true,
    input: Schema.Struct({ message: Schema.String }),
    handler: ({ message }) => Tool.output(message, { reward: 1, finished: true })
  })
]

const Lab = Environment.make({
  name: "Lab",
  task: LabTask,
  splits: ["train", "odd"],
  tasks: { train: [{ id: "t0" }, { id: "t1" }, { id: "t2" }] },
  setup: ({ id, task }) =>
    Effect.acquireRelease(
      Effect.sync(() => {
        log.push(`setup ${id}`)
        return { opened: `opened-${task.id}` }
      }),
      () => Effect.sync(() => log.push(`teardown ${id}`))
    ),
  prompt: ({ task }) => [Block.text(`Task ${task.id}`)],
  taskTools: ({ task }) =>
    task.id === "t1"
      ? [Tool.make("special", { handler: () => text("special") })]
      : task.id === "t2"
      ? [Tool.make("echo", { handler: () => text("shadow") })]
      : [],
  tools: labTools
})

const Chat = Environment.make({
  name: "Chat",
  splits: ["train"],
  tasks: () => [{ topic: "tracking" }],
  messages: ({ task }) => [
    Message.system("Be brief."),
    Message.user(`About ${String(task["topic"])}`),
    Message.assistant([Block.reasoning("Check the carrier."), Block.toolCall("tc_1", "lookup", { id: "4411" })]),
    Message.user([Block.toolResult("tc_1", "stalled")])
  ],
  tools: [Tool.make("noop", { handler: () => text("ok") })]
})

const Broken = Environment.make({
  name: "Broken",
  splits: ["train"],
  tasks: { train: [{}] },
  setup: ({ secrets }) => Effect.fail(new Boom({ reason: `setup exploded near ${Redacted.value(secrets["token"]!)}` })),
  prompt: () => [],
  tools: [Tool.make("noop", { handler: () => text("ok") })]
})

const Slow = Environment.make({
  name: "Slow",
  splits: ["train"],
  tasks: { train: [{ key: "a" }, { key: "b" }] },
  setup: ({ task }) => Deferred.await(latch(`setup ${String(task["key"])}`)),
  prompt: () => [Block.text("ready")],
  tools: [Tool.make("noop", { handler: () => text("ok") })]
})

const Big = Environment.make({
  name: "Big",
  splits: ["train"],
  tasks: Environment.taskIndex({ count: () => 1000, get: (_, i) => ({ i }) }),
  prompt: () => [Block.text("big")],
  tools: [Tool.make("noop", { handler: () => text("ok") })]
})

const Judge = Environment.make({
  name: "Judge",
  splits: ["train"],
  tasks: { train: [{}] },
  messages: () => [Message.user("Write a haiku.")],
  scoreGroup: (candidates) =>
    candidates.length === 3
      ? [1, { reward: 0.25, metadata: { why: "short" } }]
      : candidates.map((c, i) => (i === 0 ? c.messages.length : { reward: 2, metadata: c.metadata })),
  tools: [Tool.make("noop", { handler: () => text("ok") })]
})

const environments = [Lab, Chat, Broken, Slow, Big, Judge] as const

const GreetingLive = Layer.succeed(Greeting, { greet: (name) => `hello ${name}` })

/** A server on a free loopback port, and a client with a bounded keep-alive pool pointed at it. */
const Loopback = HttpServer.layerTestClient.pipe(
  Layer.provide(NodeHttpClient.layerWithoutAgent),
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true, maxSockets: 64 })),
  Layer.provideMerge(
    NodeHttpServer.layer(() => Server.withClientErrors(createServer()), { port: 0, host: "127.0.0.1" })
  )
)

const TestServer = Server.layer(environments, { maxBodySize: 64 * 1024 }).pipe(
  Layer.provide(GreetingLive),
  Layer.provideMerge(Loopback)
)

// -----------------------------------------------------------------------------
// a small client
// -----------------------------------------------------------------------------

interface Reply {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

const send = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.scoped(Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(request)
    return { status: response.status, headers: response.headers, body: yield* response.text } satisfies Reply
  }))

const withSid = (sid: string | undefined) => (r: HttpClientRequest.HttpClientRequest) =>
  sid === undefined ? r : HttpClientRequest.setHeader(r, "x-session-id", sid)

const get = (path: string, sid?: string) => send(HttpClientRequest.get(path).pipe(withSid(sid)))
const post = (path: string, body?: unknown, sid?: string, headers: Record<string, string> = {}) =>
  send(
    HttpClientRequest.post(path).pipe(
      withSid(sid),
      HttpClientRequest.setHeaders(headers),
      (r) => (body === undefined ? r : HttpClientRequest.bodyUnsafeJson(r, body))
    )
  )
const postRaw = (path: string, body: string, contentType: string | undefined, sid?: string) =>
  send(
    HttpClientRequest.post(path).pipe(
      withSid(sid),
      (r) => (contentType === undefined
        ? HttpClientRequest.bodyText(r, body, "")
        : HttpClientRequest.bodyText(r, body, contentType))
    )
  )

const detail = (reply: Reply): unknown => (JSON.parse(reply.body) as { detail: unknown }).detail

interface Event {
  readonly event: string
  readonly data: string
}

/** Parse an SSE body (LF or CRLF), skipping comments. */
const events = (body: string): Array<Event> =>
  body.replace(/\r\n?/g, "\n").split("\n\n").filter((b) => b.trim() !== "" && !b.startsWith(":")).map((b) => {
    let event = "message"
    const data: Array<string> = []
    for (const line of b.split("\n")) {
      if (line.startsWith("event: ")) event = line.slice(7)
      else if (line.startsWith("data: ")) data.push(line.slice(6))
      else if (line === "data:") data.push("")
    }
    return { event, data: data.join("\n") }
  })

/** The result of a call's stream: chunks and end joined, or the error event. */
const outcome = (body: string): { readonly taskId: string; readonly result?: any; readonly error?: string } => {
  const evs = events(body)
  const taskId = evs.find((e) => e.event === "task_id")?.data ?? ""
  const error = evs.find((e) => e.event === "error")
  if (error !== undefined) return { taskId, error: error.data }
  const joined = evs.filter((e) => e.event === "chunk" || e.event === "end").map((e) => e.data).join("")
  return { taskId, result: JSON.parse(joined) }
}

const callTool = (sid: string, name: string, input: unknown = {}, env = "lab") =>
  Effect.map(post(`/${env}/call`, { name, input }, sid), (reply) => ({ reply, ...outcome(reply.body) }))

const create = (sid: string, body: unknown = { split: "train", index: 0 }, headers: Record<string, string> = {}) =>
  post("/create", body, sid, headers)

/** A call whose stream is read incrementally: `until` waits for text matching a predicate. */
const openCall = (sid: string, body: unknown, env = "lab") =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(`/${env}/call`).pipe(withSid(sid), HttpClientRequest.bodyUnsafeJson(body))
    )
    const chunks = yield* Queue.unbounded<string>()
    const reader = yield* response.stream.pipe(
      Stream.decodeText(),
      Stream.runForEach((c) => Queue.offer(chunks, c)),
      Effect.forkScoped
    )
    let seen = ""
    const until = (predicate: (text: string) => boolean): Effect.Effect<string> =>
      Effect.gen(function*() {
        while (!predicate(seen)) seen += yield* Queue.take(chunks)
        return seen
      })
    const rest = Effect.gen(function*() {
      yield* Fiber.join(reader)
      seen += (yield* Queue.takeAll(chunks)).pipe((c) => [...c].join(""))
      return seen
    })
    return { until, rest }
  })

/** The loopback port the test server listens on. */
const serverPort = Effect.map(HttpServer.HttpServer, (server) => (server.address as HttpServer.TcpAddress).port)

/**
 * Write `text` to a fresh connection and read until the server closes it, or `wait` ms pass (then
 * `closed` is false): what a client sees on the wire, headers and all.
 */
const rawExchange = (text: string | Uint8Array, wait = 2000) =>
  Effect.flatMap(serverPort, (port) =>
    Effect.async<{ readonly wire: string; readonly closed: boolean }>((resume) => {
      const socket = net.connect(port, "127.0.0.1")
      let wire = ""
      let done = false
      const finish = (closed: boolean) => {
        if (done) return
        done = true
        clearTimeout(timer)
        socket.destroy()
        resume(Effect.succeed({ wire, closed }))
      }
      const timer = setTimeout(() => finish(false), wait)
      socket.on("data", (chunk) => (wire += chunk.toString("utf8")))
      socket.on("end", () => finish(true))
      socket.on("close", () => finish(true))
      socket.on("error", () => finish(true))
      socket.write(text)
      return Effect.sync(() => finish(false))
    }))

/** The header lines of the first response on the wire, lower-cased names. */
const headerLines = (wire: string): Array<string> => wire.split("\r\n\r\n")[0]!.split("\r\n").slice(1)

/** Nothing a server says may show where its code lives: no stack frames, no file paths. */
const assertNoInternals = (text: string, what: string) => {
  assert.notMatch(text, /\bat [^\s]+ \(|\bat (async )?[\w.<>]+ \(?\/|\n\s+at /, `${what}: a stack frame`)
  assert.notMatch(
    text,
    /(\/|\\)[\w.-]+(\/|\\)[\w./\\-]*\.(ts|js|mjs|cjs)\b|node_modules|file:\/\//,
    `${what}: a file path`
  )
}

/** JSON nested `depth` levels deep (arrays). */
const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64")
const secretsHeader = (token: string) => ({
  "x-secrets": b64({ token: { value: token, allowed_domains: ["example.com"] } })
})

// -----------------------------------------------------------------------------
// tests
// -----------------------------------------------------------------------------

layer(TestServer)("Server", (it) => {
  describe("root routes", () => {
    it.effect("health, version, list_environments", () =>
      Effect.gen(function*() {
        const health = yield* get("/health")
        assert.strictEqual(health.status, 200)
        assert.strictEqual(health.body, "{\"status\":\"ok\"}")
        assert.strictEqual(health.headers["content-type"], "application/json")
        assert.strictEqual((yield* get("/version")).body, "{\"version\":\"0.1.167\",\"build_sha\":null}")
        assert.strictEqual(
          (yield* get("/list_environments")).body,
          "[\"lab\",\"chat\",\"broken\",\"slow\",\"big\",\"judge\"]"
        )
      }))

    it.effect("create_session mints a session id over SSE, ending with empty data", () =>
      Effect.gen(function*() {
        const reply = yield* post("/create_session", {})
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.headers["content-type"], "text/event-stream; charset=utf-8")
        assert.strictEqual(reply.headers["cache-control"], "no-cache")
        assert.strictEqual(reply.headers["x-accel-buffering"], "no")
        assert.match(reply.body, /^event: task_id\ndata: [0-9a-f-]{36}\n\nevent: end\ndata: \n\n$/)
        const again = yield* post("/create_session")
        assert.notStrictEqual(events(again.body)[0]!.data, events(reply.body)[0]!.data)
      }))

    it.effect("delete_session and delete answer with the sid, known or not", () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* post("/delete_session", undefined, "nobody")).body, "{\"sid\":\"nobody\"}")
        assert.strictEqual((yield* post("/delete", undefined, " nobody ")).body, "{\"sid\":\"nobody\"}")
      }))

    it.effect("a missing X-Session-ID is 400 wherever one is needed", () =>
      Effect.gen(function*() {
        for (
          const reply of [
            yield* post("/ping"),
            yield* post("/delete"),
            yield* post("/delete_session"),
            yield* create(undefined as unknown as string),
            yield* get("/lab/prompt"),
            yield* get("/lab/messages"),
            yield* get("/lab/task_tools"),
            yield* post("/lab/call", { name: "echo", input: {} })
          ]
        ) {
          assert.strictEqual(reply.status, 400)
          assert.strictEqual(detail(reply), "X-Session-ID header is required")
        }
      }))

    it.effect("unknown sessions are 404 on every session route", () =>
      Effect.gen(function*() {
        for (
          const reply of [
            yield* post("/ping", undefined, "ghost"),
            yield* get("/lab/prompt", "ghost"),
            yield* get("/lab/messages", "ghost"),
            yield* get("/lab/task_tools", "ghost"),
            yield* post("/lab/call", { name: "echo", input: { text: "x" } }, "ghost")
          ]
        ) {
          assert.strictEqual(reply.status, 404)
          assert.strictEqual(detail(reply), "Active environment not found")
        }
      }))
  })

  describe("routing", () => {
    it.effect("a path outside every environment is redirected (308) under the first one, query kept", () =>
      Effect.gen(function*() {
        const reply = yield* get("/tools?x=1&y=2")
        assert.strictEqual(reply.status, 308)
        assert.strictEqual(reply.headers["location"], "/lab/tools?x=1&y=2")
        assert.strictEqual((yield* get("/")).headers["location"], "/lab/")
        assert.strictEqual((yield* post("/call", {})).headers["location"], "/lab/call")
      }))

    it.effect("one route table: every route of Protocol.routes is served, and 405 with its method otherwise", () =>
      Effect.gen(function*() {
        for (const route of Object.values(Protocol.routes)) {
          const path = Protocol.routePath(route, "lab")
          const other = route.method === "GET" ? "POST" : "GET"
          const wrong = yield* send(HttpClientRequest.make(other)(path))
          assert.strictEqual(wrong.status, 405, path)
          assert.strictEqual(wrong.headers["allow"], route.method, path)
          const right = yield* send(HttpClientRequest.make(route.method)(path))
          assert.notInclude([404, 405, 307, 308], right.status, `${route.method} ${path}`)
        }
        // Without an environment, an environment route is the default one's, by redirect.
        assert.strictEqual(Protocol.routePath(Protocol.routes.prompt), "/prompt")
        assert.strictEqual(Protocol.routePath(Protocol.routes.create, "lab"), "/create")
      }))

    it.effect("%XX in the path is decoded as uvicorn decodes it, before routing and redirects", () =>
      Effect.gen(function*() {
        const exchange = (method: string, path: string, body = "") =>
          Effect.map(
            rawExchange(
              `${method} ${path} HTTP/1.1\r\nHost: here\r\nConnection: close\r\nContent-Type: application/json\r\n` +
                `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
            ),
            ({ wire }) => {
              const [head, ...rest] = wire.split("\r\n\r\n")
              const lines = head!.split("\r\n")
              const location = lines.find((l) => l.toLowerCase().startsWith("location: "))?.slice(10)
              return { status: Number(lines[0]!.split(" ")[1]), location, body: rest.join("\r\n\r\n") }
            }
          )
        // Answers observed on the reference (its default environment in place of `lab`).
        for (const path of ["/l%61b/splits", "/L%41B/splits", "/lab%2Fsplits", "/%6cab/split%73"]) {
          const reply = yield* exchange("GET", path)
          assert.strictEqual(reply.status, 200, path)
          assert.strictEqual(
            reply.body,
            "[{\"name\":\"train\",\"type\":\"train\"},{\"name\":\"odd\",\"type\":\"validation\"}]"
          )
        }
        assert.strictEqual((yield* exchange("GET", "/heal%74h")).body, "{\"status\":\"ok\"}")
        // The environment name is echoed as decoded.
        const tasks = yield* exchange("POST", "/L%41B/tasks", "{\"split\":\"odd\"}")
        assert.strictEqual(tasks.body, "{\"tasks\":[],\"env_name\":\"LAB\"}")
        const redirects: ReadonlyArray<readonly [string, number, string]> = [
          ["/spl%69ts", 308, "/lab/splits"],
          ["/%C3%A9/splits", 308, "/lab/%C3%A9/splits"],
          ["/lab%ZZ/splits", 308, "/lab/lab%ZZ/splits"],
          ["/a%2Fb/splits?x=%20", 308, "/lab/a/b/splits?x=%20"],
          ["/lab%ffx/splits", 308, "/lab/lab%EF%BF%BDx/splits"],
          ["/lab%e2%82x/splits", 308, "/lab/lab%EF%BF%BDx/splits"],
          ["/l%61b/splits/", 307, "http://here/lab/splits"],
          ["/lab/splits%2F", 307, "http://here/lab/splits"]
        ]
        for (const [path, status, location] of redirects) {
          const reply = yield* exchange("GET", path)
          assert.deepStrictEqual([reply.status, reply.location], [status, location], path)
        }
        for (const path of ["//lab/splits", "/%2Flab/splits", "/lab//splits"]) {
          assert.strictEqual((yield* exchange("GET", path)).status, 404, path)
        }
      }))

    it.effect("environment names match without regard to case, and echo the path's spelling", () =>
      Effect.gen(function*() {
        const reply = yield* post("/LAB/tasks", { split: "train" })
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(JSON.parse(reply.body), {
          tasks: [{ id: "t0" }, { id: "t1" }, { id: "t2" }],
          env_name: "LAB"
        })
      }))

    it.effect("unknown paths are 404, wrong methods 405, trailing slashes 307", () =>
      Effect.gen(function*() {
        const missing = yield* get("/lab/nothing")
        assert.strictEqual(missing.status, 404)
        assert.strictEqual(detail(missing), "Not Found")
        const wrong = yield* get("/create")
        assert.strictEqual(wrong.status, 405)
        assert.strictEqual(detail(wrong), "Method Not Allowed")
        assert.strictEqual(wrong.headers["allow"], "POST")
        assert.strictEqual((yield* post("/lab/tools")).status, 405)
        const slash = yield* get("/health/")
        assert.strictEqual(slash.status, 307)
        assert.match(slash.headers["location"]!, /^http:\/\/[^/]+\/health$/)
      }))

    // prompt, messages and call skip the router when the path is exactly `/<env>/<route>` (see
    // `hot` in src/internal/server/app.ts); every other spelling must still be answered as FastAPI
    // answers it (checked against FastAPI 0.12x: HEAD is not added to GET routes).
    it.effect("the session routes that skip the router answer every other spelling as the router does", () =>
      Effect.gen(function*() {
        yield* create("hot1")
        const expected = (yield* get("/lab/messages", "hot1")).body
        assert.strictEqual((yield* get("/LaB/messages", "hot1")).body, expected)
        assert.strictEqual((yield* get("/lab/messages?x=1", "hot1")).body, expected)
        for (
          const [method, path, allow] of [
            ["POST", "/lab/messages", "GET"],
            ["POST", "/lab/prompt", "GET"],
            ["HEAD", "/health", "GET"],
            ["HEAD", "/lab/tools", "GET"],
            ["HEAD", "/lab/messages", "GET"],
            ["HEAD", "/lab/call", "POST"],
            ["GET", "/lab/call", "POST"],
            ["PUT", "/Lab/call", "POST"]
          ] as const
        ) {
          const reply = yield* send(HttpClientRequest.make(method)(path).pipe(withSid("hot1")))
          assert.strictEqual(reply.status, 405, `${method} ${path}`)
          assert.strictEqual(reply.headers["allow"], allow, `${method} ${path}`)
        }
        for (
          const [method, path] of [["GET", "/lab/messages/"], ["GET", "/lab/prompt/"], ["GET", "/LAB/call/"], [
            "HEAD",
            "/lab/messages/"
          ]] as const
        ) {
          const reply = yield* send(HttpClientRequest.make(method)(path).pipe(withSid("hot1")))
          assert.strictEqual(reply.status, 307, path)
          assert.match(reply.headers["location"]!, new RegExp(`^http://[^/]+${path.slice(0, -1)}$`))
        }
        for (
          const path of ["/lab//messages", "/lab/Messages", "/lab/messages/x", "/lab/calls", "/lab/TOOLS", "/HEALTH"]
        ) {
          const reply = yield* get(path, "hot1")
          assert.strictEqual(reply.status, 404, path)
          assert.strictEqual(detail(reply), "Not Found", path)
        }
        // The hot handlers answer missing and unknown sessions exactly as the router's do.
        const none = yield* get("/lab/messages")
        assert.strictEqual(none.status, 400)
        assert.strictEqual(detail(none), detail(yield* get("/lab/task_tools")))
        const unknown = yield* post("/lab/call", { name: "echo", input: { text: "x" } }, "nobody")
        assert.strictEqual(unknown.status, 404)
        assert.strictEqual(detail(unknown), detail(yield* get("/lab/task_tools", "nobody")))
        yield* post("/delete", undefined, "hot1")
      }))
  })

  describe("environment routes", () => {
    it.effect("tools: sorted, terminal tool apart, input_schema null without input, block types advertised", () =>
      Effect.gen(function*() {
        const reply = yield* get("/lab/tools")
        const body = JSON.parse(reply.body)
        assert.deepStrictEqual(Object.keys(body), [
          "tools",
          "terminal_tool",
          "supports_score_group",
          "message_block_types"
        ])
        assert.deepStrictEqual(
          body.tools.map((t: Protocol.ToolSpec) => t.name),
          [
            "bad",
            "big",
            "die",
            "echo",
            "fail",
            "finish",
            "greet",
            "leak",
            "parallel",
            "serial",
            "slow",
            "solo",
            "whoami"
          ]
        )
        const echo = body.tools.find((t: Protocol.ToolSpec) => t.name === "echo")
        assert.deepStrictEqual(echo, {
          name: "echo",
          description: "Echo the text back.",
          input_schema: {
            type: "object",
            required: ["text"],
            properties: { text: { type: "string" } },
            additionalProperties: false
          }
        })
        assert.isNull(body.tools.find((t: Protocol.ToolSpec) => t.name === "whoami").input_schema)
        assert.deepStrictEqual(body.terminal_tool, { name: "final", arg: "message", description: "" })
        assert.strictEqual(body.supports_score_group, false)
        assert.deepStrictEqual(body.message_block_types, ["text", "image", "reasoning", "tool_call", "tool_result"])
        assert.strictEqual(JSON.parse((yield* get("/judge/tools")).body).supports_score_group, true)
      }))

    it.effect("splits type plain names by the reference's rule", () =>
      Effect.gen(function*() {
        assert.strictEqual(
          (yield* get("/lab/splits")).body,
          "[{\"name\":\"train\",\"type\":\"train\"},{\"name\":\"odd\",\"type\":\"validation\"}]"
        )
      }))

    it.effect("tasks, num_tasks, task and task_range follow Python indexing", () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(JSON.parse((yield* post("/lab/tasks", { split: "odd" })).body), {
          tasks: [],
          env_name: "lab"
        })
        assert.strictEqual((yield* post("/lab/num_tasks", { split: "train" })).body, "{\"num_tasks\":3}")
        assert.deepStrictEqual(JSON.parse((yield* post("/lab/task", { split: "train", index: -1 })).body), {
          task: { id: "t2" },
          env_name: "lab"
        })
        for (const index of [3, -4]) {
          const reply = yield* post("/lab/task", { split: "train", index })
          assert.strictEqual(reply.status, 400)
          assert.strictEqual(detail(reply), "Invalid index")
        }
        const range = (start: number | null, stop: number | null) =>
          Effect.map(post("/lab/task_range", { split: "train", start, stop }), (r) =>
            (JSON.parse(r.body).tasks as Array<{ id: string }>).map((t) => t.id))
        assert.deepStrictEqual(yield* range(null, null), ["t0", "t1", "t2"])
        assert.deepStrictEqual(yield* range(-2, null), ["t1", "t2"])
        assert.deepStrictEqual(yield* range(1, -1), ["t1"])
        assert.deepStrictEqual(yield* range(5, 9), [])
        assert.deepStrictEqual(yield* range(2, 1), [])
        assert.deepStrictEqual(yield* range(-10, 2), ["t0", "t1"])
        for (const path of ["/lab/tasks", "/lab/num_tasks", "/lab/task", "/lab/task_range"]) {
          const reply = yield* post(path, path === "/lab/task" ? { split: "nope", index: 0 } : { split: "nope" })
          assert.strictEqual(reply.status, 400)
          assert.strictEqual(detail(reply), "Invalid split")
        }
      }))

    it.effect("integer fields coerce as pydantic's lax mode does (answers observed on the reference)", () =>
      Effect.gen(function*() {
        // Each index as JSON text, and what the reference (pydantic 2.14, lax) makes of it with three tasks.
        const cases: ReadonlyArray<readonly [string, string]> = [
          ["\"0\"", "t0"],
          ["true", "t1"],
          ["false", "t0"],
          ["1.0", "t1"],
          ["\" 1 \"", "t1"],
          ["\"\\t1\\n\"", "t1"],
          ["\"\\u00a01\\u2003\"", "t1"],
          ["\"\\u00851\"", "t1"],
          ["\"+1\"", "t1"],
          ["\"-1\"", "t2"],
          ["\"-0\"", "t0"],
          ["\"01\"", "t1"],
          ["\"1.000\"", "t1"],
          ["\"-1.0\"", "t2"],
          ["\"1_0\"", "Invalid index"],
          ["\"99999999999999999999999\"", "Invalid index"],
          ["99999999999999999999999", "Invalid index"],
          ["-99999999999999999999999", "Invalid index"],
          ["\"1.5\"", "int_parsing"],
          ["\"1e0\"", "int_parsing"],
          ["\"0x1\"", "int_parsing"],
          ["\"\"", "int_parsing"],
          ["\"1.\"", "int_parsing"],
          ["\".0\"", "int_parsing"],
          ["\"1__0\"", "int_parsing"],
          ["\"_1\"", "int_parsing"],
          ["\"+ 1\"", "int_parsing"],
          ["\"\\ufeff1\"", "int_parsing"],
          ["\"\\u001f1\"", "int_parsing"],
          ["\"\\u0661\"", "int_parsing"],
          ["1.5", "int_from_float"],
          ["null", "int_type"],
          ["[0]", "int_type"],
          ["{}", "int_type"]
        ]
        for (const [index, expected] of cases) {
          const reply = yield* postRaw("/lab/task", `{"split":"train","index":${index}}`, "application/json")
          const got = reply.status === 200
            ? JSON.parse(reply.body).task.id
            : reply.status === 400
            ? detail(reply)
            : (detail(reply) as any)[0].type
          assert.strictEqual(got, expected, `index ${index}: ${reply.status} ${reply.body}`)
        }
        const int = yield* postRaw("/lab/task", "{\"split\":\"train\",\"index\":\"x\"}", "application/json")
        assert.deepStrictEqual(detail(int), [{
          type: "int_parsing",
          loc: ["body", "index"],
          msg: "Input should be a valid integer, unable to parse string as an integer",
          input: "x"
        }])
        const float = yield* postRaw("/lab/task", "{\"split\":\"train\",\"index\":1.5}", "application/json")
        assert.deepStrictEqual(detail(float), [{
          type: "int_from_float",
          loc: ["body", "index"],
          msg: "Input should be a valid integer, got a number with a fractional part",
          input: 1.5
        }])
        // Optional integers: null is None; the rest coerce alike.
        const range = (body: string) =>
          Effect.map(
            postRaw("/lab/task_range", body, "application/json"),
            (r) => r.status === 200 ? (JSON.parse(r.body).tasks as Array<{ id: string }>).map((t) => t.id) : r.body
          )
        assert.deepStrictEqual(yield* range("{\"split\":\"train\",\"start\":\"1\",\"stop\":\"2.0\"}"), ["t1"])
        assert.deepStrictEqual(yield* range("{\"split\":\"train\",\"start\":true,\"stop\":false}"), [])
        assert.deepStrictEqual(yield* range("{\"split\":\"train\",\"start\":null,\"stop\":\" -1 \"}"), ["t0", "t1"])
        assert.deepStrictEqual(yield* range("{\"split\":\"train\",\"start\":\"-99999999999999999999\"}"), [
          "t0",
          "t1",
          "t2"
        ])
        // Strings are strict in pydantic's lax mode too: a number is not a split name.
        const split = yield* postRaw("/lab/tasks", "{\"split\":1}", "application/json")
        assert.strictEqual((detail(split) as any)[0].type, "string_type")
        // /create: "0" is index 0; true is index 1, which Chat (one task) does not have: the reference's 400.
        assert.deepStrictEqual(
          JSON.parse(
            (yield* postRaw("/create", "{\"split\":\"train\",\"index\":\"0\"}", "application/json", "lax-1")).body
          ),
          { sid: "lax-1" }
        )
        assert.strictEqual(
          JSON.parse(
            (yield* callTool("lax-1", "whoami")).result.output.blocks[0].text === "t0 opened-t0 Lab" ? "true" : "false"
          ),
          true
        )
        const chat = yield* postRaw(
          "/create",
          "{\"split\":\"train\",\"index\":true,\"env_name\":\"chat\"}",
          "application/json",
          "lax-2"
        )
        assert.strictEqual(chat.status, 400)
        assert.strictEqual(detail(chat), "Invalid index")
      }))

    it.effect("an index-only task source counts and fetches, and refuses to list", () =>
      Effect.gen(function*() {
        const list = yield* post("/big/tasks", { split: "train" })
        assert.strictEqual(list.status, 400)
        assert.strictEqual(
          detail(list),
          "list_tasks is not supported for this environment. Use the index-based API (num_tasks + get_task) instead."
        )
        assert.strictEqual((yield* post("/big/num_tasks", { split: "train" })).body, "{\"num_tasks\":1000}")
        assert.deepStrictEqual(JSON.parse((yield* post("/big/task", { split: "train", index: -1 })).body).task, {
          i: 999
        })
        assert.deepStrictEqual(
          JSON.parse((yield* post("/big/task_range", { split: "train", start: -3 })).body).tasks,
          [{ i: 997 }, { i: 998 }, { i: 999 }]
        )
        assert.strictEqual((yield* post("/big/task", { split: "train", index: 1000 })).status, 400)
      }))
  })

  describe("bad request bodies", () => {
    it.effect("malformed JSON is a 422 json_invalid item at the error's position", () =>
      Effect.gen(function*() {
        const reply = yield* postRaw("/lab/tasks", "{bad", "application/json")
        assert.strictEqual(reply.status, 422)
        const [item] = detail(reply) as Array<any>
        assert.strictEqual(item.type, "json_invalid")
        assert.deepStrictEqual(item.loc, ["body", 1])
        assert.strictEqual(item.msg, "JSON decode error")
      }))

    it.effect("wrong types, missing and unexpected fields: one item each, declared fields first", () =>
      Effect.gen(function*() {
        const reply = yield* post("/lab/call", { name: 1, input: [], task_id: 5, zz: 1 }, "whoever")
        // The session is resolved before the body is validated, as FastAPI resolves dependencies first.
        assert.strictEqual(reply.status, 404)
        const tasks = yield* post("/lab/task", { split: 1, index: 1.5, extra: true })
        assert.strictEqual(tasks.status, 422)
        assert.deepStrictEqual(detail(tasks), [
          { type: "string_type", loc: ["body", "split"], msg: "Input should be a valid string", input: 1 },
          {
            type: "int_from_float",
            loc: ["body", "index"],
            msg: "Input should be a valid integer, got a number with a fractional part",
            input: 1.5
          },
          { type: "extra_forbidden", loc: ["body", "extra"], msg: "Extra inputs are not permitted", input: true }
        ])
        assert.deepStrictEqual(detail(yield* post("/lab/tasks", {})), [
          { type: "missing", loc: ["body", "split"], msg: "Field required", input: {} }
        ])
        assert.deepStrictEqual(detail(yield* post("/lab/tasks")), [
          { type: "missing", loc: ["body"], msg: "Field required", input: null }
        ])
        assert.deepStrictEqual(detail(yield* post("/lab/tasks", [1])), [
          {
            type: "model_attributes_type",
            loc: ["body"],
            msg: "Input should be a valid dictionary or object to extract fields from",
            input: [1]
          }
        ])
      }))

    it.effect("a body not sent as JSON is validated as the text it is", () =>
      Effect.gen(function*() {
        const reply = yield* postRaw("/lab/tasks", "{\"split\":\"train\"}", "text/plain")
        assert.strictEqual(reply.status, 422)
        assert.deepStrictEqual((detail(reply) as Array<any>)[0].input, "{\"split\":\"train\"}")
      }))

    it.effect("an oversized body is 413 and the server keeps serving", () =>
      Effect.gen(function*() {
        const reply = yield* post("/lab/tasks", { split: "x".repeat(70 * 1024) })
        assert.strictEqual(reply.status, 413)
        assert.strictEqual(detail(reply), "Content Too Large")
        assert.strictEqual((yield* get("/health")).status, 200)
      }))

    it.effect("create: the task source rule, unknown environments, splits, indices, toolsets, task_spec schema", () =>
      Effect.gen(function*() {
        const neither = yield* create("c1", {})
        assert.strictEqual(neither.status, 422)
        assert.deepStrictEqual(detail(neither), [{
          type: "value_error",
          loc: ["body"],
          msg: "Value error, Provide either task_spec or both split and index, not both/neither",
          input: {},
          ctx: { error: {} }
        }])
        assert.strictEqual(
          (detail(yield* create("c1", { task_spec: { id: "x" }, split: "train" })) as Array<any>)[0].msg,
          "Value error, split and index must both be provided together"
        )
        const unknown = yield* create("c1", { split: "train", index: 0, env_name: "Nope" })
        assert.strictEqual(unknown.status, 404)
        assert.strictEqual(detail(unknown), "unknown environment 'Nope'")
        assert.strictEqual(detail(yield* create("c1", { split: "zzz", index: 0 })), "Invalid split")
        assert.strictEqual(detail(yield* create("c1", { split: "train", index: 7 })), "Invalid index")
        assert.strictEqual(
          detail(yield* create("c1", { split: "train", index: 0, toolset_name: "codex" })),
          "unknown toolset 'codex'; valid options are []"
        )
        const badSpec = yield* create("c1", { task_spec: { id: 5 } })
        assert.strictEqual(badSpec.status, 422)
        assert.deepStrictEqual((detail(badSpec) as Array<any>)[0].loc, ["body", "task_spec", "id"])
        const badSecrets = yield* create("c1", { split: "train", index: 0 }, { "x-secrets": "%%%not-base64" })
        assert.strictEqual(badSecrets.status, 400)
        assert.notInclude(badSecrets.body, "%%%not-base64")
        assert.strictEqual((yield* create("c1", { task_spec: { id: "spec" } })).body, "{\"sid\":\"c1\"}")
        const twice = yield* create("c1", { task_spec: { id: "spec" } })
        assert.strictEqual(twice.status, 400)
        assert.strictEqual(detail(twice), "Session already exists")
        assert.strictEqual(
          outcome((yield* post("/lab/call", { name: "whoami", input: {} }, "c1")).body).result.output.blocks[0].text,
          "spec opened-spec Lab"
        )
        yield* post("/delete", undefined, "c1")
      }))
  })

  describe("the route table", () => {
    const AnswerBody = Schema.Struct({
      detail: Schema.Union(Schema.String, Schema.Array(ProtocolError.ValidationItem))
    })

    /**
     * A reply held to its route: a success decodes with the route's success schema (an event
     * stream's joined data, `null` when empty), an error has a status the route lists and a detail.
     */
    const conforms = (name: Protocol.RouteName, reply: Reply, what: string) => {
      const route: Protocol.Route = Protocol.routes[name]
      if (reply.status === 200) {
        const json = route.answer === "json" ? JSON.parse(reply.body) : eventsJson(reply.body)
        const decoded = Schema.decodeUnknownEither(route.success, { onExcessProperty: "error" })(json)
        assert.isTrue(Either.isRight(decoded), `${what}: ${reply.body}`)
        return "ok"
      }
      const statuses = route.errors.map(ProtocolError.statusOf)
      assert.include(statuses, reply.status, `${what}: ${reply.status} is not among ${name}'s error answers`)
      assert.isTrue(Either.isRight(Schema.decodeUnknownEither(AnswerBody)(JSON.parse(reply.body))), what)
      return reply.status
    }

    const eventsJson = (body: string): unknown => {
      const joined = events(body).filter((e) => e.event === "chunk" || e.event === "end").map((e) => e.data).join("")
      return joined === "" ? null : JSON.parse(joined)
    }

    it.effect("every answer of every route is one its route declares", () =>
      Effect.gen(function*() {
        const seen = new Map<string, Set<string | number>>()
        const check = (name: Protocol.RouteName, what: string) => (reply: Reply) => {
          const outcome = conforms(name, reply, what)
          seen.set(name, (seen.get(name) ?? new Set()).add(outcome))
        }
        check("health", "health")(yield* get("/health"))
        check("version", "version")(yield* get("/version"))
        check("listEnvironments", "list")(yield* get("/list_environments"))
        check("createSession", "create_session")(yield* post("/create_session", {}))
        check("create", "create")(yield* create("rt1"))
        check("create", "create again")(yield* create("rt1"))
        check("create", "create neither")(yield* create("rt2", {}))
        check("create", "create without a sid")(yield* post("/create", { split: "train", index: 0 }))
        check("create", "unknown environment")(yield* create("rt2", { split: "train", index: 0, env_name: "nope" }))
        check("create", "invalid split")(yield* create("rt2", { split: "zzz", index: 0 }))
        check("create", "invalid index")(yield* create("rt2", { split: "train", index: 9 }))
        check("create", "toolset")(yield* create("rt2", { split: "train", index: 0, toolset_name: "x" }))
        check("create", "secrets")(yield* create("rt2", { split: "train", index: 0 }, { "x-secrets": "%%%" }))
        check("ping", "ping")(yield* post("/ping", undefined, "rt1"))
        check("ping", "ping unknown")(yield* post("/ping", undefined, "nobody"))
        check("ping", "ping without a sid")(yield* post("/ping"))
        check("tools", "tools")(yield* get("/lab/tools"))
        check("splits", "splits")(yield* get("/lab/splits"))
        check("tasks", "tasks")(yield* post("/lab/tasks", { split: "train" }))
        check("tasks", "tasks, bad split")(yield* post("/lab/tasks", { split: "zzz" }))
        check("tasks", "tasks, index only")(yield* post("/big/tasks", { split: "train" }))
        check("tasks", "tasks, no body")(yield* post("/lab/tasks"))
        check("tasks", "tasks, too large")(yield* post("/lab/tasks", { split: "x".repeat(70 * 1024) }))
        check("tasks", "tasks, not UTF-8")(yield* postRaw("/lab/tasks", "{\"split\":\"\udc00\"}", "application/json"))
        check("numTasks", "num_tasks")(yield* post("/lab/num_tasks", { split: "train" }))
        check("numTasks", "num_tasks, bad split")(yield* post("/lab/num_tasks", { split: "zzz" }))
        check("task", "task")(yield* post("/lab/task", { split: "train", index: -1 }))
        check("task", "task, bad index")(yield* post("/lab/task", { split: "train", index: 3 }))
        check("taskRange", "task_range")(yield* post("/lab/task_range", { split: "train", start: 1 }))
        check("taskRange", "task_range, bad body")(yield* post("/lab/task_range", { split: "train", stop: "x" }))
        check("taskTools", "task_tools")(yield* get("/lab/task_tools", "rt1"))
        check("taskTools", "task_tools unknown")(yield* get("/lab/task_tools", "nobody"))
        check("prompt", "prompt")(yield* get("/lab/prompt", "rt1"))
        check("prompt", "prompt without a sid")(yield* get("/lab/prompt"))
        check("messages", "messages")(yield* get("/lab/messages", "rt1"))
        check("call", "call")(yield* post("/lab/call", { name: "echo", input: { text: "x" } }, "rt1"))
        check("call", "call refused")(yield* post("/lab/call", { name: "nope", input: {} }, "rt1"))
        check("call", "call, bad body")(yield* post("/lab/call", { name: 1 }, "rt1"))
        check("call", "call unknown")(yield* post("/lab/call", { name: "echo", input: {} }, "nobody"))
        check("scoreGroup", "score_group unsupported")(yield* post("/lab/score_group", { candidates: [] }, "rt1"))
        yield* create("rt3", { split: "train", index: 0, env_name: "judge" })
        check("scoreGroup", "score_group")(
          yield* post("/judge/score_group", { candidates: [{ messages: [] }, { messages: [] }] }, "rt3")
        )
        yield* create("rt4", { split: "train", index: 0, env_name: "broken" }, {
          "x-secrets": Buffer.from(JSON.stringify({ token: { value: "tok-rt4" } })).toString("base64")
        })
        check("prompt", "prompt, setup failed")(yield* get("/broken/prompt", "rt4"))
        check("delete", "delete")(yield* post("/delete", undefined, "rt1"))
        check("delete", "delete without a sid")(yield* post("/delete"))
        check("deleteSession", "delete_session")(yield* post("/delete_session", undefined, "rt1"))
        check("ping", "ping deleted")(yield* post("/ping", undefined, "rt1"))
        yield* post("/delete", undefined, "rt3")
        yield* post("/delete", undefined, "rt4")
        // The tour reached every route, and every status each route can give here.
        assert.deepStrictEqual(
          Object.fromEntries([...seen].map(([name, outcomes]) => [name, [...outcomes].map(String).sort()])),
          {
            health: ["ok"],
            version: ["ok"],
            listEnvironments: ["ok"],
            createSession: ["ok"],
            create: ["400", "404", "422", "ok"],
            ping: ["400", "404", "ok"],
            tools: ["ok"],
            splits: ["ok"],
            tasks: ["400", "413", "422", "ok"],
            numTasks: ["400", "ok"],
            task: ["400", "ok"],
            taskRange: ["422", "ok"],
            taskTools: ["404", "ok"],
            prompt: ["400", "500", "ok"],
            messages: ["ok"],
            call: ["404", "422", "ok"],
            scoreGroup: ["404", "ok"],
            delete: ["400", "ok"],
            deleteSession: ["ok"]
          }
        )
      }))

    it.effect("a /call input holding a number JSON cannot carry (1e999) is refused by the payload schema", () =>
      Effect.gen(function*() {
        yield* create("rt5")
        const reply = yield* postRaw(
          "/lab/call",
          "{\"name\":\"echo\",\"input\":{\"text\":1e999}}",
          "application/json",
          "rt5"
        )
        assert.strictEqual(reply.status, 422)
        const [item] = detail(reply) as Array<ProtocolError.ValidationItem>
        assert.deepStrictEqual(item!.loc, ["body", "input", "text"])
        yield* post("/delete", undefined, "rt5")
      }))

    it.effect("each handler may fail only with its route's error answers (checked by the compiler)", () =>
      Effect.sync(() => {
        // /call may answer 503 while its session starts ...
        const starting: Router.Handlers<never>["call"] = () => Effect.fail(new ProtocolError.SessionStarting())
        // @ts-expect-error ... but never "Invalid split"
        const split: Router.Handlers<never>["call"] = () => Effect.fail(new ProtocolError.InvalidSplit({ split: "x" }))
        // @ts-expect-error /health never answers 404 for a session
        const health: Router.Handlers<never>["health"] = () => Effect.fail(new ProtocolError.SessionNotFound())
        const ok: Router.Handlers<never>["health"] = () => Effect.fail(new ProtocolError.ShuttingDown())
        assert.strictEqual([starting, split, health, ok].length, 4)
        assert.notInclude(Protocol.routes.call.errors as ReadonlyArray<unknown>, ProtocolError.InvalidSplit)
        assert.include(Protocol.routes.call.errors as ReadonlyArray<unknown>, ProtocolError.SessionStarting)
      }))

    it.effect("an error's status is its class's annotation, as HttpApiSchema reads it", () =>
      Effect.sync(() => {
        const all = new Set(Object.values(Protocol.routes).flatMap((route): ReadonlyArray<unknown> => route.errors))
        assert.strictEqual(all.size, ProtocolError.ProtocolError.members.length)
        for (const error of ProtocolError.ProtocolError.members) {
          const status = ProtocolError.statusOf(error)
          assert.strictEqual(HttpApiSchema.getStatusError(error), status, error._tag)
          // the status field is that literal, filled in by the constructor
          const field = error.fields.status as unknown as {
            readonly ast: { readonly type: { readonly literal: unknown } }
          }
          assert.strictEqual(field.ast.type.literal, status, error._tag)
        }
      }))
  })

  describe("sessions", () => {
    it.effect("prompt, messages (derived from the prompt) and task tools", () =>
      Effect.gen(function*() {
        yield* create("s1", { split: "train", index: 1 })
        assert.strictEqual(
          (yield* get("/lab/prompt", "s1")).body,
          "[{\"text\":\"Task t1\",\"detail\":null,\"type\":\"text\"}]"
        )
        assert.strictEqual(
          (yield* get("/lab/messages", "s1")).body,
          "[{\"role\":\"user\",\"blocks\":[{\"text\":\"Task t1\",\"detail\":null,\"type\":\"text\"}],\"detail\":null}]"
        )
        const tools = JSON.parse((yield* get("/lab/task_tools", "s1")).body)
        assert.strictEqual(tools.tools.at(-1).name, "special")
        assert.strictEqual(tools.tools.length, 14)
        assert.deepStrictEqual((yield* callTool("s1", "special")).result.output.blocks[0].text, "special")
        // Session routes answer for the session's environment, whatever the path says.
        assert.strictEqual(
          (yield* get("/chat/prompt", "s1")).body,
          "[{\"text\":\"Task t1\",\"detail\":null,\"type\":\"text\"}]"
        )
        yield* post("/delete", undefined, "s1")
      }))

    it.effect("a conversation environment serves its messages and their flattening", () =>
      Effect.gen(function*() {
        yield* create("s2", { split: "train", index: 0, env_name: "chat" })
        const messages = JSON.parse((yield* get("/chat/messages", "s2")).body)
        assert.strictEqual(messages.length, 4)
        assert.deepStrictEqual(messages[2].blocks[1], {
          id: "tc_1",
          name: "lookup",
          input: { id: "4411" },
          detail: null,
          type: "tool_call"
        })
        const prompt = JSON.parse((yield* get("/chat/prompt", "s2")).body) as Array<{ text: string }>
        assert.deepStrictEqual(prompt.map((b) => b.text), [
          "[system]",
          "Be brief.",
          "[user]",
          "About tracking",
          "[assistant]",
          "<think>Check the carrier.</think>",
          "[tool_call lookup] {\"id\": \"4411\"}",
          "[user]",
          "[tool_result]",
          "stalled"
        ])
        yield* post("/delete", undefined, "s2")
      }))

    it.effect("ping keeps a session; delete tears it down once, and it is gone", () =>
      Effect.gen(function*() {
        yield* create("s3")
        assert.strictEqual((yield* post("/ping", undefined, "s3")).body, "{\"status\":\"ok\"}")
        assert.strictEqual((yield* callTool("s3", "whoami")).result.output.blocks[0].text, "t0 opened-t0 Lab")
        assert.include(log, "setup s3")
        assert.notInclude(log, "teardown s3")
        yield* post("/delete", undefined, "s3")
        assert.include(log, "teardown s3")
        yield* post("/delete", undefined, "s3")
        assert.strictEqual(log.filter((l) => l === "teardown s3").length, 1)
        assert.strictEqual((yield* post("/ping", undefined, "s3")).status, 404)
        assert.strictEqual((yield* get("/lab/prompt", "s3")).status, 404)
        // The id can be used again.
        assert.strictEqual((yield* create("s3")).status, 200)
        yield* post("/delete", undefined, "s3")
      }))

    it.effect("a failed setup is a 500 on session routes, with the secret redacted", () =>
      Effect.gen(function*() {
        yield* create("s4", { split: "train", index: 0, env_name: "broken" }, secretsHeader("sk-live-123"))
        for (const reply of [yield* get("/broken/prompt", "s4"), yield* get("/broken/task_tools", "s4")]) {
          assert.strictEqual(reply.status, 500)
          assert.strictEqual(detail(reply), "Boom: setup exploded near [REDACTED]")
          assert.notInclude(reply.body, "sk-live-123")
        }
        const call = yield* post("/broken/call", { name: "noop", input: {} }, "s4")
        assert.strictEqual(call.status, 500)
        assert.strictEqual((yield* post("/ping", undefined, "s4")).status, 200)
        yield* post("/delete", undefined, "s4")
      }))

    it.effect("session routes wait for setup; a long one is 503 'still starting', a deleted one 410", () =>
      Effect.gen(function*() {
        yield* create("s5", { split: "train", index: 0, env_name: "slow" })
        const waiting = yield* Effect.fork(get("/slow/prompt", "s5"))
        const tools = yield* get("/slow/task_tools", "s5")
        assert.strictEqual(tools.status, 200)
        yield* open("setup a")
        const ready = yield* Fiber.join(waiting)
        assert.strictEqual(ready.body, "[{\"text\":\"ready\",\"detail\":null,\"type\":\"text\"}]")

        yield* create("s6", { split: "train", index: 1, env_name: "slow" })
        const timingOut = yield* Effect.fork(get("/slow/messages", "s6"))
        yield* Effect.yieldNow()
        yield* TestClock.adjust("26 seconds")
        const late = yield* Fiber.join(timingOut)
        assert.strictEqual(late.status, 503)
        assert.strictEqual(detail(late), "Environment still starting.")
        assert.strictEqual(late.headers["x-backend-state"], "starting")
        assert.strictEqual(late.headers["retry-after"], "2")

        const gone = yield* Effect.fork(get("/slow/prompt", "s6"))
        yield* Effect.yieldNow()
        yield* post("/delete", undefined, "s6")
        const deleted = yield* Fiber.join(gone)
        assert.strictEqual(deleted.status, 410)
        assert.strictEqual(detail(deleted), "Session deleted")
        yield* post("/delete", undefined, "s5")
      }))

    it.effect("idle sessions are reaped (and torn down) after 900 s without a ping", () =>
      Effect.gen(function*() {
        yield* create("s7")
        yield* create("s8")
        yield* TestClock.adjust("600 seconds")
        yield* post("/ping", undefined, "s8")
        yield* TestClock.adjust("400 seconds")
        assert.include(log, "teardown s7")
        assert.strictEqual((yield* post("/ping", undefined, "s7")).status, 404)
        assert.strictEqual((yield* post("/ping", undefined, "s8")).status, 200)
        yield* post("/delete", undefined, "s8")
      }))

    it.effect("services an environment needs come from layers", () =>
      Effect.gen(function*() {
        yield* create("s9")
        assert.strictEqual((yield* callTool("s9", "greet", { name: "Ada" })).result.output.blocks[0].text, "hello Ada")
        yield* post("/delete", undefined, "s9")
      }))
  })

  describe("faults and hostile input (issue 10)", () => {
    it.effect("an SSE answer to `Connection: close` says close once and closes, as uvicorn does", () =>
      Effect.gen(function*() {
        yield* create("conn-1")
        const requests = [
          "POST /create_session HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}",
          "POST /lab/call HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Session-ID: conn-1\r\n" +
          "Content-Type: application/json\r\nContent-Length: 37\r\n\r\n{\"name\":\"echo\",\"input\":{\"text\":\"hi\"}}"
        ]
        for (const request of requests) {
          const { closed, wire } = yield* rawExchange(request)
          const connection = headerLines(wire).filter((l) => l.toLowerCase().startsWith("connection:"))
          assert.deepStrictEqual(connection.map((l) => l.toLowerCase()), ["connection: close"], wire)
          assert.isTrue(closed, "the server closes the connection")
          assert.include(wire, "event: end")
        }
        // Kept alive: one `connection: keep-alive`, and the connection stays open.
        const kept = yield* rawExchange(
          "POST /create_session HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}",
          300
        )
        assert.deepStrictEqual(
          headerLines(kept.wire).filter((l) => l.toLowerCase().startsWith("connection:")).map((l) => l.toLowerCase()),
          ["connection: keep-alive"]
        )
        assert.isFalse(kept.closed)
      }))

    it.effect("a Content-Length shorter than the body: the request is answered, then the rest is a 400 with a detail", () =>
      Effect.gen(function*() {
        const request = (length: number, body: string) =>
          `POST /lab/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n${body}`
        const refused = "{\"detail\":\"Invalid HTTP request received.\"}"
        // The whole JSON fits the length, and junk follows: the tasks, then the refusal.
        const first = yield* rawExchange(request(17, "{\"split\":\"train\"}   junk"))
        assert.isTrue(first.closed)
        const [answered, rest] = first.wire.split("\r\n\r\n{\"tasks\"")
        assert.match(answered!, /^HTTP\/1\.1 200 OK/)
        assert.match(rest!, /HTTP\/1\.1 400 Bad Request\r\n/)
        assert.include(rest!, "content-type: application/json")
        assert.isTrue(rest!.endsWith(refused), rest)
        // A length that cuts the JSON: its 422, then the refusal of what follows.
        const second = yield* rawExchange(request(5, "{\"split\":\"train\"}"))
        assert.match(second.wire, /^HTTP\/1\.1 422 /)
        assert.include(second.wire, "\"type\":\"json_invalid\"")
        assert.isTrue(second.wire.endsWith(refused), second.wire)
        // A malformed request line alone.
        const third = yield* rawExchange("NOT HTTP\r\n\r\n")
        assert.match(third.wire, /^HTTP\/1\.1 400 Bad Request\r\n/)
        assert.isTrue(third.wire.endsWith(refused), third.wire)
      }))

    it.effect("bodies nested beyond the depth limit are a 400 with a detail on every route that reads one", () =>
      Effect.gen(function*() {
        yield* create("deep-1")
        const deep = nested(30_000)
        const bodies: ReadonlyArray<readonly [string, string, string | undefined]> = [
          ["/lab/call", `{"name":"echo","input":{"text":"x","n":${deep}}}`, "deep-1"],
          ["/lab/tasks", `{"split":${deep}}`, undefined],
          ["/lab/num_tasks", `{"split":${deep}}`, undefined],
          ["/lab/task", `{"split":"train","index":${deep}}`, undefined],
          ["/lab/task_range", `{"split":"train","start":${deep}}`, undefined],
          ["/create", `{"task_spec":{"id":${deep}}}`, "deep-2"],
          ["/judge/score_group", `{"candidates":${deep}}`, "deep-1"]
        ]
        for (const [path, body, sid] of bodies) {
          const reply = yield* postRaw(path, body, "application/json", sid)
          assert.strictEqual(reply.status, 400, `${path}: ${reply.body.slice(0, 200)}`)
          assert.deepStrictEqual(JSON.parse(reply.body), { detail: "There was an error parsing the body" }, path)
        }
        // Within the limit, deep input is validated as usual.
        const ok = yield* postRaw("/lab/tasks", `{"split":${nested(400)}}`, "application/json")
        assert.strictEqual(ok.status, 422)
        assert.strictEqual((detail(ok) as any)[0].type, "string_type")
        const call = yield* callTool("deep-1", "echo", { text: "still here" })
        assert.strictEqual(call.result.output.blocks[0].text, "still here")
      }))
  })

  describe("tool calls", () => {
    it.effect("a result is task_id then end; reward is written as a float, as pydantic does", () =>
      Effect.gen(function*() {
        yield* create("k1")
        const { reply, result } = yield* callTool("k1", "echo", { text: "hi" })
        assert.strictEqual(reply.headers["content-type"], "text/event-stream; charset=utf-8")
        assert.match(
          reply.body,
          /^event: task_id\ndata: [0-9a-f]{32}\n\nevent: end\ndata: \{"ok":true,"output":\{"blocks":\[\{"text":"hi","detail":null,"type":"text"\}\],"metadata":null,"reward":null,"finished":false\}\}\n\n$/
        )
        assert.deepStrictEqual(result.output.blocks, [{ text: "hi", detail: null, type: "text" }])
        const finish = yield* callTool("k1", "finish")
        assert.include(finish.reply.body, "\"metadata\":{\"n\":1},\"reward\":0.5,\"finished\":true")
        const after = yield* callTool("k1", "echo", { text: "again" })
        assert.deepStrictEqual(after.result, {
          ok: false,
          error:
            "'echo' was not run: the episode has finished (a tool returned finished=True), so no further tool calls are accepted.",
          reason: "episode_finished"
        })
        const unknown = yield* callTool("k1", "nope")
        assert.deepStrictEqual(unknown.result, { ok: false, error: "'nope' is not a valid tool", reason: "not_found" })
        yield* post("/delete", undefined, "k1")
      }))

    it.effect("input that fails the tool's schema is refused with the reference's text, the handler not run", () =>
      Effect.gen(function*() {
        yield* create("k2")
        const { result } = yield* callTool("k2", "echo", { text: 5 })
        assert.deepStrictEqual(result, {
          ok: false,
          error:
            "Tool input validation error: [{'type': 'string_type', 'loc': ('text',), 'msg': 'Input should be a valid string', 'input': 5}]",
          reason: "input_validation"
        })
        const missing = yield* callTool("k2", "big", { n: 1 })
        assert.strictEqual(
          missing.result.error,
          "Tool input validation error: [{'type': 'missing', 'loc': ('pad',), 'msg': 'Field required', 'input': {'n': 1}}]"
        )
        // Unknown keys are ignored, as pydantic ignores them; a tool without input ignores its input.
        assert.isTrue((yield* callTool("k2", "echo", { text: "x", extra: 1 })).result.ok)
        assert.isTrue((yield* callTool("k2", "whoami", { anything: true })).result.ok)
        yield* post("/delete", undefined, "k2")
      }))

    it.effect("a tool that fails, dies or returns garbage gives the SSE error event; the server keeps serving", () =>
      Effect.gen(function*() {
        yield* create("k3", { split: "train", index: 0 }, secretsHeader("tok-999"))
        const fail = yield* callTool("k3", "fail")
        assert.strictEqual(fail.reply.status, 200)
        assert.strictEqual(fail.error, "kaboom")
        assert.strictEqual((yield* callTool("k3", "die")).error, "exploded")
        assert.match((yield* callTool("k3", "bad")).error!, /^'bad' returned an invalid ToolOutput/)
        const leak = yield* callTool("k3", "leak")
        assert.strictEqual(leak.error, "bad token [REDACTED]")
        assert.notInclude(leak.reply.body, "tok-999")
        assert.isTrue((yield* callTool("k3", "echo", { text: "still here" })).result.ok)
        yield* post("/delete", undefined, "k3")
      }))

    it.effect("results are split into 4096-code-point chunks, never inside a surrogate pair", () =>
      Effect.gen(function*() {
        yield* create("k4")
        const overhead = events((yield* callTool("k4", "big", { n: 0, pad: 0 })).reply.body).at(-1)!.data.length
        // Shifting the text by one UTF-16 unit moves every 4096-unit boundary into, or out of, a pair.
        for (const pad of [0, 1, 2, 3]) {
          const { reply, result } = yield* callTool("k4", "big", { n: 5000, pad })
          const evs = events(reply.body)
          assert.deepStrictEqual(evs.map((e) => e.event), ["task_id", "chunk", "end"])
          assert.strictEqual(Array.from(evs[1]!.data).length, 4096)
          assert.strictEqual(Array.from(evs[2]!.data).length, overhead + pad + 5000 - 4096)
          for (const piece of evs.slice(1)) {
            assert.isFalse(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/.test(piece.data))
          }
          assert.strictEqual(result.output.blocks[0].text, "x".repeat(pad) + "😀".repeat(5000))
        }
        const exact = yield* callTool("k4", "big", { n: 0, pad: 4096 - overhead })
        assert.deepStrictEqual(events(exact.reply.body).map((e) => e.event), ["task_id", "end"])
        const over = yield* callTool("k4", "big", { n: 0, pad: 4097 - overhead })
        assert.deepStrictEqual(events(over.reply.body).map((e) => [e.event, e.data.length]), [
          ["task_id", 32],
          ["chunk", 4096],
          ["end", 1]
        ])
        const many = yield* callTool("k4", "big", { n: 9000, pad: 0 })
        assert.deepStrictEqual(events(many.reply.body).map((e) => e.event), ["task_id", "chunk", "chunk", "end"])
        assert.strictEqual(many.result.output.blocks[0].text, "😀".repeat(9000))
        yield* post("/delete", undefined, "k4")
      }))

    it.effect("a stream re-attached by task_id gets the result without the tool running again", () =>
      Effect.gen(function*() {
        yield* create("k5")
        const first = yield* Effect.scoped(Effect.gen(function*() {
          const call = yield* openCall("k5", { name: "slow", input: { latch: "resume" } })
          return events(yield* call.until((t) => t.includes("\n\n")))[0]!
        }))
        assert.strictEqual(first.event, "task_id")
        assert.strictEqual(count("slow resume"), 1)
        const resumed = yield* Effect.fork(post("/lab/call", { name: "ignored", input: {}, task_id: first.data }, "k5"))
        yield* open("resume")
        const reply = yield* Fiber.join(resumed)
        const { result, taskId } = outcome(reply.body)
        assert.strictEqual(taskId, first.data)
        assert.strictEqual(result.output.blocks[0].text, "slow resume")
        // Again, after it finished: the same result, still one run.
        assert.strictEqual(
          outcome((yield* post("/lab/call", { name: "x", input: {}, task_id: first.data }, "k5")).body).result.output
            .blocks[0].text,
          "slow resume"
        )
        assert.strictEqual(count("slow resume"), 1)
        // Unknown ids, and ids of another session, are an error event.
        for (const sid of ["k5", "k5b"]) {
          if (sid === "k5b") yield* create("k5b")
          const bogus = yield* post(
            "/lab/call",
            { name: "x", input: {}, task_id: sid === "k5" ? "f00" : first.data },
            sid
          )
          assert.strictEqual(bogus.body, "event: error\ndata: unknown task_id\n\n")
        }
        // Finished results are kept 60 s.
        yield* TestClock.adjust("70 seconds")
        yield* post("/ping", undefined, "k5")
        const expired = yield* post("/lab/call", { name: "x", input: {}, task_id: first.data }, "k5")
        assert.strictEqual(expired.body, "event: error\ndata: unknown task_id\n\n")
        yield* post("/delete", undefined, "k5")
        yield* post("/delete", undefined, "k5b")
      }))

    it.effect("a pending call's stream carries keep-alive comments every 10 s", () =>
      Effect.gen(function*() {
        yield* create("k6")
        yield* Effect.scoped(Effect.gen(function*() {
          const call = yield* openCall("k6", { name: "slow", input: { latch: "keepalive" } })
          yield* call.until((t) => t.includes("\n\n"))
          yield* TestClock.adjust("10 seconds")
          const seen = yield* call.until((t) => t.includes(": ping - "))
          assert.match(seen, /^event: task_id\ndata: [0-9a-f]{32}\n\n: ping - \d{4}-\d\d-\d\dT[\d:.]+Z\n\n$/)
          yield* open("keepalive")
          const all = yield* call.rest
          assert.strictEqual(outcome(all).result.output.blocks[0].text, "slow keepalive")
        }))
        yield* post("/delete", undefined, "k6")
      }))

    it.effect("calls of one tool run one at a time; concurrent tools overlap", () =>
      Effect.gen(function*() {
        yield* create("k7")
        yield* Effect.scoped(Effect.gen(function*() {
          inFlight = 0
          maxInFlight = 0
          const calls = yield* Effect.forEach([1, 2, 3], () =>
            openCall("k7", { name: "serial", input: { latch: "serial" } }))
          for (const c of calls) {
            yield* c.until((t) =>
              t.includes("\n\n")
            )
          }
          assert.strictEqual(count("serial"), 1)
          yield* open("serial")
          for (const c of calls) assert.isTrue(outcome(yield* c.rest).result.ok)
          assert.strictEqual(maxInFlight, 1)
          assert.strictEqual(count("serial"), 3)
        }))
        yield* Effect.scoped(Effect.gen(function*() {
          inFlight = 0
          maxInFlight = 0
          const calls = yield* Effect.forEach([1, 2, 3], () =>
            openCall("k7", { name: "parallel", input: { latch: "parallel" } }))
          for (const c of calls) {
            yield* c.until((t) =>
              t.includes("\n\n")
            )
          }
          assert.strictEqual(inFlight, 3)
          yield* open("parallel")
          for (const c of calls) assert.isTrue(outcome(yield* c.rest).result.ok)
        }))
        yield* post("/delete", undefined, "k7")
      }))

    it.effect("an exclusive tool waits for calls in flight and holds back new ones", () =>
      Effect.gen(function*() {
        yield* create("k8")
        log.length = 0
        yield* Effect.scoped(Effect.gen(function*() {
          const running = yield* openCall("k8", { name: "parallel", input: { latch: "excl-a" } })
          yield* running.until((t) => t.includes("\n\n"))
          const exclusive = yield* openCall("k8", { name: "solo", input: { latch: "excl-b" } })
          yield* exclusive.until((t) => t.includes("\n\n"))
          const later = yield* openCall("k8", { name: "parallel", input: { latch: "excl-c" } })
          yield* later.until((t) => t.includes("\n\n"))
          assert.deepStrictEqual(log, ["parallel start"])
          yield* open("excl-b")
          yield* open("excl-c")
          yield* open("excl-a")
          yield* running.rest
          yield* exclusive.rest
          yield* later.rest
          assert.deepStrictEqual(log, [
            "parallel start",
            "parallel end",
            "solo start",
            "solo end",
            "parallel start",
            "parallel end"
          ])
        }))
        yield* post("/delete", undefined, "k8")
      }))

    it.effect("a call queued behind one that finished the episode is refused without running", () =>
      Effect.gen(function*() {
        yield* create("k9")
        counters.delete("serial")
        yield* Effect.scoped(Effect.gen(function*() {
          const first = yield* openCall("k9", { name: "serial", input: { latch: "grade", finish: true } })
          yield* first.until((t) => t.includes("\n\n"))
          const second = yield* openCall("k9", { name: "serial", input: { latch: "grade" } })
          yield* second.until((t) => t.includes("\n\n"))
          yield* open("grade")
          assert.isTrue(outcome(yield* first.rest).result.output.finished)
          assert.strictEqual(outcome(yield* second.rest).result.reason, "episode_finished")
          assert.strictEqual(count("serial"), 1)
        }))
        yield* post("/delete", undefined, "k9")
      }))

    it.effect("a terminal tool is callable by name; task tools that collide are refused", () =>
      Effect.gen(function*() {
        yield* create("k10", { split: "train", index: 2 })
        const collision = yield* callTool("k10", "echo", { text: "x" })
        assert.strictEqual(collision.result.reason, "name_collision")
        const terminal = yield* callTool("k10", "final", { message: "the answer" })
        assert.deepStrictEqual(terminal.result.output, {
          blocks: [{ text: "the answer", detail: null, type: "text" }],
          metadata: null,
          reward: 1,
          finished: true
        })
        yield* post("/delete", undefined, "k10")
      }))

    it.effect("score_group scores candidates, checks their count, and 404s where unsupported", () =>
      Effect.gen(function*() {
        yield* create("g1", { split: "train", index: 0, env_name: "judge" })
        const candidate = (text: string, metadata: unknown = null) => ({
          messages: [{ role: "assistant", blocks: [{ type: "text", text }] }],
          metadata
        })
        const scored = yield* post(
          "/judge/score_group",
          { candidates: [candidate("a"), candidate("b", { k: 1 })] },
          "g1"
        )
        assert.strictEqual(
          events(scored.body).at(-1)!.data,
          "{\"scores\":[{\"reward\":1.0,\"metadata\":null},{\"reward\":2.0,\"metadata\":{\"k\":1}}]}"
        )
        const mismatch = yield* post("/judge/score_group", {
          candidates: [candidate("a"), candidate("b"), candidate("c")]
        }, "g1")
        assert.strictEqual(outcome(mismatch.body).error, "score_group returned 2 scores for 3 candidates")
        const invalid = yield* post("/judge/score_group", {
          candidates: [{ messages: [{ role: "tool", blocks: [] }] }]
        }, "g1")
        assert.strictEqual(invalid.status, 422)
        yield* create("g2")
        const unsupported = yield* post("/Lab/score_group", { candidates: [] }, "g2")
        assert.strictEqual(unsupported.status, 404)
        assert.strictEqual(detail(unsupported), "Environment 'Lab' does not implement score_group")
        yield* post("/delete", undefined, "g1")
        yield* post("/delete", undefined, "g2")
      }))

    it.effect(
      "200 concurrent sessions, each making tool calls, complete with nothing lost",
      () =>
        Effect.gen(function*() {
          const results = yield* Effect.forEach(
            Array.from({ length: 200 }, (_, i) => i),
            (i) =>
              Effect.gen(function*() {
                const sid = `many-${i}`
                yield* create(sid, { split: "train", index: i % 2 })
                const echoes = yield* Effect.forEach([0, 1, 2], (j) => callTool(sid, "echo", { text: `${i}:${j}` }), {
                  concurrency: "unbounded"
                })
                const who = yield* callTool(sid, "whoami")
                const prompt = yield* get("/lab/prompt", sid)
                yield* post("/delete", undefined, sid)
                for (const e of [...echoes, who]) {
                  if (e.result?.ok !== true) assert.fail(`${sid}: ${e.reply.status} ${e.reply.body}`)
                }
                return {
                  echoes: echoes.map((e) => e.result.output.blocks[0].text as string),
                  who: who.result.output.blocks[0].text as string,
                  prompt: prompt.body
                }
              }),
            { concurrency: "unbounded" }
          )
          results.forEach((r, i) => {
            assert.deepStrictEqual(r.echoes, [`${i}:0`, `${i}:1`, `${i}:2`])
            assert.strictEqual(r.who, `t${i % 2} opened-t${i % 2} Lab`)
            assert.strictEqual(r.prompt, `[{"text":"Task t${i % 2}","detail":null,"type":"text"}]`)
          })
          for (let i = 0; i < 200; i++) assert.include(log, `teardown many-${i}`)
        }),
      { timeout: 120_000 }
    )
  })
})

describe("Server lifecycle", () => {
  it.effect("shutting the server down tears every session down", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Server.layer([Lab], {}).pipe(Layer.provide(GreetingLive), Layer.provideMerge(Loopback)),
        scope
      )
      yield* Effect.provide(
        Effect.gen(function*() {
          yield* create("down-1")
          yield* create("down-2", { split: "train", index: 1 })
          yield* callTool("down-1", "whoami")
        }),
        context
      )
      assert.notInclude(log, "teardown down-1")
      yield* Scope.close(scope, Exit.void)
      assert.include(log, "teardown down-1")
      assert.include(log, "teardown down-2")
    }))

  it.effect("no answer or log line carries a stack frame or a file path", () =>
    Effect.gen(function*() {
      const lines: Array<string> = []
      const capture = Logger.replace(
        Logger.defaultLogger,
        Logger.make(({ cause, message }) => {
          lines.push(`${String(message)} ${Cause.isEmpty(cause) ? "" : Cause.pretty(cause)}`)
        })
      )
      const run = Effect.gen(function*() {
        yield* create("noleak-1")
        yield* create("noleak-2", { split: "train", index: 0 }, secretsHeader("hush"))
        const out: Array<string> = []
        for (const name of ["fail", "die", "bad", "leak"]) out.push((yield* callTool("noleak-1", name)).reply.body)
        out.push(
          (yield* postRaw(
            "/lab/call",
            `{"name":"echo","input":{"n":${nested(100_000)}}}`,
            "application/json",
            "noleak-1"
          )).body
        )
        out.push(
          (yield* postRaw("/create", `{"task_spec":{"id":${nested(100_000)}}}`, "application/json", "noleak-3")).body
        )
        out.push((yield* postRaw("/lab/tasks", `{"split":${nested(100_000)}}`, "application/json")).body)
        yield* create("noleak-4", { split: "train", index: 0, env_name: "broken" }, secretsHeader("hush"))
        out.push((yield* get("/broken/prompt", "noleak-4")).body)
        return out
      })
      const replies = yield* Effect.scoped(
        Effect.gen(function*() {
          // The default body limit, so that input nested 100,000 deep reaches the parser.
          const context = yield* Layer.build(
            Server.layer(environments).pipe(Layer.provide(GreetingLive), Layer.provideMerge(Loopback))
          )
          return yield* Effect.provide(run, context)
        })
      ).pipe(Effect.provide(capture))
      for (const body of replies) assertNoInternals(body, body.slice(0, 120))
      for (const line of lines) assertNoInternals(line, line.slice(0, 120))
    }))

  it.effect("the session store, task registry and reaper are services a server is built on", () =>
    Effect.gen(function*() {
      const settings: App.Settings = {
        maxBodySize: 1024 * 1024,
        maxDepth: 512,
        idleTimeout: 900_000,
        reaperInterval: 5_000,
        setupWaitTimeout: 25_000,
        keepAliveInterval: 10_000,
        resultLinger: 60_000,
        returnErrors: "exception",
        version: "0.1.167",
        buildSha: null,
        routeKey: "replica-a",
        drainTimeout: 30_000,
        maxSessions: 10_000,
        maxSessionsPerClient: 2_500,
        trustedProxies: 0
      }
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Layer.scopedDiscard(
          Effect.flatMap(
            App.make([Compiled.compile(Lab)], settings),
            (app) => HttpServer.serveEffect(app as HttpApp.Default<never, Greeting>)
          )
        ).pipe(
          Layer.provideMerge(App.services(settings)),
          Layer.provide(GreetingLive),
          Layer.provideMerge(Loopback)
        ),
        scope
      )
      const sessions = Context.get(context, SessionStore)
      const registry = Context.get(context, TaskRegistry)
      yield* Effect.provide(
        Effect.gen(function*() {
          // /create_session hands out the store's ids, carrying its route key.
          const minted = events((yield* post("/create_session", {})).body)[0]!
          assert.strictEqual(minted.event, "task_id")
          assert.match(minted.data, /^replica-a\.[0-9a-f-]{36}$/)
          yield* create("svc-1")
          assert.isTrue(sessions.records.has("svc-1"))
          const call = yield* callTool("svc-1", "echo", { text: "hi" })
          assert.isDefined(registry.get(call.taskId, "svc-1"))
          // A call running when its session ends is interrupted (awaited) before the teardown runs.
          yield* create("svc-2")
          const pending = yield* Effect.fork(callTool("svc-2", "slow", { latch: "svc-never" }))
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
          assert.strictEqual(yield* FiberSet.size(sessions.records.get("svc-2")!.fibers), 1)
          yield* post("/delete", undefined, "svc-2")
          assert.strictEqual((yield* Fiber.join(pending)).error, "Session deleted")
          assert.include(log, "teardown svc-2")
          // Draining: the health check says so, and the store takes no new sessions.
          assert.strictEqual((yield* get("/health")).status, 200)
          yield* sessions.drain()
          const health = yield* get("/health")
          assert.deepStrictEqual([health.status, health.body], [503, "{\"status\":\"draining\"}"])
          assert.strictEqual((yield* post("/create", { split: "train", index: 0 }, "svc-3")).status, 503)
          assert.strictEqual((yield* post("/create_session", {})).status, 503)
        }),
        context
      )
      // Closing the services' scope ends every session.
      assert.notInclude(log, "teardown svc-1")
      yield* Scope.close(scope, Exit.void)
      assert.include(log, "teardown svc-1")
      assert.strictEqual(sessions.records.size, 0)
    }))

  it.effect("returnErrors decides what a 500 reveals; /version reports the build from OPENREWARD_BUILD_SHA", () =>
    Effect.gen(function*() {
      const details = yield* Effect.forEach(
        ["none", "exception", "stacktrace"] as const,
        (returnErrors) =>
          Effect.scoped(Effect.gen(function*() {
            const context = yield* Layer.build(
              Server.layer([Broken], { returnErrors, version: "9.9.9" }).pipe(
                Layer.provideMerge(Loopback),
                Layer.provide(
                  Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["OPENREWARD_BUILD_SHA", "abc123"]])))
                )
              )
            )
            return yield* Effect.provide(
              Effect.gen(function*() {
                assert.strictEqual((yield* get("/version")).body, "{\"version\":\"9.9.9\",\"build_sha\":\"abc123\"}")
                yield* create("e1", { split: "train", index: 0 }, secretsHeader("hush-hush"))
                const reply = yield* get("/broken/prompt", "e1")
                assert.strictEqual(reply.status, 500)
                assert.notInclude(reply.body, "hush-hush")
                return detail(reply) as string
              }),
              context
            )
          }))
      )
      assert.strictEqual(details[0], "Internal Server Error")
      assert.strictEqual(details[1], "Boom: setup exploded near [REDACTED]")
      // "stacktrace": every error of the cause and what caused it, by type and message; never frames.
      assert.strictEqual(details[2], "Boom: setup exploded near [REDACTED]")
      assertNoInternals(details[2]!, "stacktrace")
    }))

  it.effect("serve listens on 0.0.0.0:8080 unless told otherwise, through the program's Listener", () =>
    Effect.gen(function*() {
      const asked: Array<Server.Address> = []
      const listener = Server.layerListener((address) => {
        asked.push(address)
        return NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })
      })
      yield* Effect.scoped(Layer.build(Server.serve([Chat]).pipe(Layer.provide(listener))))
      yield* Effect.scoped(
        Layer.build(Server.serve([Chat], { port: 9999, host: "127.0.0.1" }).pipe(Layer.provide(listener)))
      )
      assert.deepStrictEqual(asked, [{ port: 8080, host: "0.0.0.0" }, { port: 9999, host: "127.0.0.1" }])
    }))

  it("a server needs the services its environments need", () => {
    // @ts-expect-error Lab's tools need Greeting, so the layer requires it
    const missing: Layer.Layer<never, unknown, HttpServer.HttpServer> = Server.layer([Lab])
    const provided: Layer.Layer<never, unknown, HttpServer.HttpServer> = Server.layer([Lab]).pipe(
      Layer.provide(GreetingLive)
    )
    assert.isDefined(missing)
    assert.isDefined(provided)
  })

  it.effect("definitions that cannot be served fail the layer with the reference's messages", () =>
    Effect.gen(function*() {
      const noTools = Environment.make({ name: "Empty", splits: ["train"], tasks: {}, prompt: () => [], tools: [] })
      const noSplits = Environment.make({ name: "NoSplits", splits: [], tasks: {}, prompt: () => [], tools: labTools })
      const neither = Environment.make({ name: "Neither", splits: ["train"], tasks: {}, tools: labTools } as any)
      const twoTerminals = Environment.make({
        name: "Two",
        splits: ["train"],
        tasks: {},
        prompt: () => [],
        tools: [...labTools, Tool.make("other", { terminal: true, handler: () => text("x") })]
      })
      const wideTerminal = Environment.make({
        name: "Wide",
        splits: ["train"],
        tasks: {},
        prompt: () => [],
        tools: [
          Tool.make("t", {
            terminal: true,
            input: Schema.Struct({ a: Schema.String, b: Schema.String }),
            handler: () => text("x")
          })
        ]
      })
      const reserved = Environment.make({
        name: "Health",
        splits: ["train"],
        tasks: {},
        prompt: () => [],
        tools: labTools
      })
      const cases: Array<readonly [ReadonlyArray<Environment.Any>, string]> = [
        [[], "Server requires at least one environment to be provided."],
        [[noTools], "Environment 'empty' has no tools defined. Add at least one tool."],
        [[noSplits], "Environment 'nosplits' has no splits defined. Give `splits` at least one split."],
        [
          [neither],
          "Environment 'neither' implements neither prompt nor messages. Give `prompt` (or `messages` for a conversation-shaped environment)."
        ],
        [[Lab, Lab], "duplicate env lab"],
        [
          [twoTerminals],
          "Environment 'two' has more than one terminal tool: 'final' and 'other'. An environment may have at most one."
        ],
        [
          [wideTerminal],
          "Environment 'wide' has an unusable tool 't': terminal tool 't' must take at most one input field (the message), but its input has 2 fields: a, b"
        ],
        [[reserved], "Environment 'health' collides with the server's own route /health; choose another name"]
      ]
      for (const [envs, message] of cases) {
        const error = yield* Effect.flip(Effect.scoped(Server.make(envs)))
        assert.strictEqual(error._tag, "InvalidDefinition")
        assert.strictEqual(error.message, message)
      }
    }))
})

describe("wire details", () => {
  it("Python repr, as the reference's error texts use it", () => {
    assert.strictEqual(reprString("plain"), "'plain'")
    assert.strictEqual(reprString("it's"), "\"it's\"")
    assert.strictEqual(reprString("both ' and \""), "'both \\' and \"'")
    assert.strictEqual(reprString("tab\tnew\nline\\"), "'tab\\tnew\\nline\\\\'")
    assert.strictEqual(reprString("\u0001\u007f é 😀 \u200b"), "'\\x01\\x7f é 😀 \\u200b'")
    assert.strictEqual(
      repr([{ a: true, b: null, c: 1.5, d: [1] }, new Tuple(["x"])]),
      "[{'a': True, 'b': None, 'c': 1.5, 'd': [1]}, ('x',)]"
    )
  })

  it("rewards are written as pydantic writes floats", () => {
    const cases: Array<readonly [number, string]> = [
      [1, "1.0"],
      [0, "0.0"],
      [-0, "-0.0"],
      [-3, "-3.0"],
      [0.5, "0.5"],
      [1e15, "1000000000000000.0"],
      [1e16, "1e+16"],
      [123456789012345678, "1.2345678901234568e+17"],
      [1e-7, "1e-7"],
      [2.5e-5, "0.000025"],
      [0.1 + 0.2, "0.30000000000000004"]
    ]
    for (const [n, text] of cases) assert.strictEqual(floatJson(n), text, String(n))
  })

  it.prop(
    "chunks are at most 4096 code points, rejoin to the result, and never split a pair",
    // A result is compact JSON, so it never holds a raw carriage return (which SSE would read as a line end).
    [Schema.String.pipe(Schema.maxLength(20_000), Schema.filter((t) => !t.includes("\r")))],
    ([text]) => {
      const padded = text + "😀".repeat(text.length % 7 === 0 ? 3000 : 0)
      const frames = events(Sse.result(padded, 4096))
      assert.strictEqual(frames.at(-1)!.event, "end")
      assert.isTrue(frames.slice(0, -1).every((f) => f.event === "chunk" && Array.from(f.data).length === 4096))
      assert.strictEqual(frames.map((f) => f.data).join(""), padded)
    },
    { fastCheck: { numRuns: 100 } }
  )
})
