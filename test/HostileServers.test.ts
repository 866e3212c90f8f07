/**
 * The client, through the Effect API and the Promise API, against hostile servers on loopback
 * (test/client/HostileServer.ts, plain `node:http`). Every case ends in a typed error within a
 * stated number of requests and a stated time.
 *
 * The client runs with short bounds here, so that the suite stays fast: heartbeat 1 s, stream
 * deadlines (`createTimeout`, `callTimeout`) and `requestTimeout` 2 s, retries after 10 ms doubling
 * to 40 ms, `maxResponseBytes` 1 MiB. The request counts do not depend on them (they are the retry
 * policies' defaults: 2 retries for plain requests, 3 for `/create_session`, 5 for `/call`); the
 * times are asserted with room for a loaded 2-core machine (a case that ends at once must end
 * within 10 s, one that ends at a 2 s deadline within 15 s). docs/client.md states the same bounds
 * with the default settings.
 *
 * The counts are exact under load too. The server runs in the test's process, and on a loaded
 * machine it can see a request late: a 1 s deadline could end the attempt before the request was
 * even written, and the server would count one request less. So the Effect API runs its cases on a
 * clock whose deadlines start once the server has every request the client began to send
 * (`catchingUp`); the Promise API, whose clock cannot be reached, runs them with its shortened
 * deadlines twice as long. Either way the count is taken once the server has caught up.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schedule from "effect/Schedule"
import type * as Scope from "effect/Scope"
import * as Tracer from "effect/Tracer"
import * as Client from "openreward-effect/Client"
import * as ClientError from "openreward-effect/ClientError"
import * as OpenReward from "openreward-effect/Promise"
import type { Handler } from "./client/HostileServer.js"
import { event, every, flood, HostileServer, json, sseHeaders, taskIdOf, toolResult } from "./client/HostileServer.js"

// -----------------------------------------------------------------------------
// running the client both ways
// -----------------------------------------------------------------------------

const fast = { base: "10 millis", cap: "40 millis" } as const

const settings = (baseUrl: string, extra?: Client.Options): Client.Options => ({
  baseUrl,
  apiKey: "sk-HOSTILE-key-0001",
  heartbeatTimeout: "5 seconds",
  createTimeout: "20 seconds",
  callTimeout: "20 seconds",
  requestTimeout: "10 seconds",
  maxResponseBytes: 1024 * 1024,
  retry: { requests: fast, sessions: fast, calls: fast },
  ...extra
})

type Api = "Effect" | "Promise"

/** One operation, as Effect code and as Promise code. */
interface Operation {
  /** The request the hostile answer is given to. */
  readonly route: string
  readonly effect: (client: Client.Service) => Effect.Effect<unknown, unknown, Scope.Scope>
  /** Left out where the Promise API has no such method. */
  readonly promise?: ((client: OpenReward.Client) => Promise<unknown>) | undefined
}

const env = (client: Client.Service) => client.environment("main")
const inSession = (f: (session: Client.Session) => Effect.Effect<unknown, unknown>) => (client: Client.Service) =>
  Effect.flatMap(
    env(client).session({ split: "train", index: 0 }, { secrets: { OPENAI_API_KEY: "sk-openai-SECRET" } }),
    f
  )
const inSessionP = (f: (session: OpenReward.Session) => Promise<unknown>) => async (client: OpenReward.Client) => {
  const session = await client.environment("main").session({ split: "train", index: 0 }, {
    secrets: { OPENAI_API_KEY: "sk-openai-SECRET" }
  })
  try {
    return await f(session)
  } finally {
    await session.close()
  }
}

const inSessionOperation = { effect: inSession(() => Effect.void) }

/**
 * A live clock whose sleeps (but a retry's backoff, under 100 ms) begin only once `server` has seen
 * every request the client has begun to send (waiting at most 10 s for it). An in-process server
 * on a loaded machine can see a request late: a short deadline (a 1 s heartbeat) could otherwise
 * end an attempt before the server saw it, and the request count would say one request less than
 * the client sent. With it, every deadline still runs its whole length, from when the server has
 * the request.
 */
const catchingUp = (server: HostileServer, started: () => number): Clock.Clock => {
  const live = Clock.make()
  const caughtUp = (deadline: number): Effect.Effect<void> =>
    Effect.suspend(() =>
      server.hits.length >= started() || Date.now() > deadline
        ? Effect.void
        : Effect.zipRight(live.sleep(Duration.millis(5)), caughtUp(deadline))
    )
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => live.unsafeCurrentTimeMillis(),
    currentTimeMillis: live.currentTimeMillis,
    unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos(),
    currentTimeNanos: live.currentTimeNanos,
    sleep: (duration) =>
      Duration.lessThan(duration, Duration.millis(100))
        ? live.sleep(duration)
        : Effect.zipRight(Effect.suspend(() => caughtUp(Date.now() + 10_000)), live.sleep(duration))
  }
}

/**
 * Run `operation` through one API; the failure it ends with, how long it took. With `gate`, the
 * Effect API's deadlines wait for that server to see each request first (see {@link catchingUp}).
 */
const attempt = (
  api: Api,
  operation: Pick<Operation, "effect" | "promise">,
  options: Client.Options,
  gate?: HostileServer
): Effect.Effect<{ readonly exit: Exit.Exit<unknown, unknown>; readonly seconds: number }> =>
  Effect.gen(function*() {
    const start = performance.now()
    let started = 0
    const counting = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, HttpClient.tapRequest(() => Effect.sync(() => void started++)))
    ).pipe(Layer.provide(NodeHttpClient.layerUndici))
    const exit = api === "Effect"
      ? yield* Effect.exit(Effect.scoped(Effect.flatMap(Client.make(options), operation.effect))).pipe(
        Effect.provide(counting),
        gate === undefined ? (self) => self : Effect.withClock(catchingUp(gate, () => started))
      )
      : yield* Effect.promise(async () => {
        const client = OpenReward.connect(options)
        try {
          return Exit.succeed(await operation.promise!(client))
        } catch (e) {
          return Exit.fail(e)
        } finally {
          await client.close()
        }
      })
    return { exit, seconds: (performance.now() - start) / 1000 }
  })

const failureOf = (exit: Exit.Exit<unknown, unknown>): ClientError.ClientError => {
  if (Exit.isSuccess(exit)) return assert.fail("expected a failure")
  const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  assert.isTrue(ClientError.isClientError(error), `expected a typed client error, got ${String(exit.cause)}`)
  return error as ClientError.ClientError
}

const withServer = <A, E>(f: (server: HostileServer) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => HostileServer.start()),
    f,
    (server) => Effect.promise(() => server.close())
  )

// -----------------------------------------------------------------------------
// hostile answers
// -----------------------------------------------------------------------------

const portal = "<!DOCTYPE html><html><head><title>Wi-Fi</title></head><body><h1>Sign in to continue</h1></body></html>"

const send = (status: number, contentType: string, body: string): Handler => (_request, response) => {
  response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) })
  response.end(body)
}

/** A body with no length that goes on until the client stops reading. */
const endless: Handler = (_request, response) => {
  response.writeHead(200, { "content-type": "application/json" })
  response.write("[")
  const piece = "1,".repeat(32 * 1024)
  flood(response, () => piece)
}

/** A `Content-Length` of 400 MB, and a body that trickles. */
const declaredHuge: Handler = (_request, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": 400_000_000 })
  every(response, 100, "1")
}

/** A 500 whose body never ends. */
const endlessError: Handler = (_request, response) => {
  response.writeHead(500, { "content-type": "text/plain" })
  const piece = "Traceback ".repeat(4096)
  flood(response, () => piece)
}

/** `Content-Length: 1000`, 20 bytes, then the connection is closed. */
const closedMidBody: Handler = (_request, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": 1000 })
  response.write("{\"tasks\": [{\"id\": \"t")
  setTimeout(() => response.socket?.destroy(), 10)
}

interface Case {
  readonly name: string
  readonly handler: Handler
  readonly tag: ClientError.ClientError["_tag"]
  /** Requests to the route. */
  readonly requests: number
  /** The stated time bound, in seconds. */
  readonly seconds: number
  /** A text the error's message contains. */
  readonly says?: string
  /** Only for these operations (the case exercises no route-specific code, and takes seconds). */
  readonly only?: ReadonlyArray<string>
  /** Settings for the case: the deadline or heartbeat it runs into, shortened. */
  readonly options?: Client.Options
}

/** Answers to a route that returns JSON. Plain requests are retried twice (3 requests) on a lost connection. */
const jsonCases: ReadonlyArray<Case> = [
  {
    name: "a captive portal's HTML page",
    handler: send(200, "text/html; charset=utf-8", portal),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10,
    says: "not JSON"
  },
  {
    name: "a JSON array of numbers",
    handler: send(200, "application/json", "[1,2,3]"),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10
  },
  {
    name: "an object of the wrong shape",
    handler: send(200, "application/json", "{\"unexpected\":true}"),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10
  },
  {
    name: "an empty body",
    handler: send(200, "application/json", ""),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10,
    says: "empty body"
  },
  {
    name: "truncated JSON",
    handler: send(200, "application/json", "{\"tasks\": [{\"id\": \"t0\""),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10,
    says: "not JSON"
  },
  {
    name: "a body that never ends",
    handler: endless,
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10,
    says: "larger than maxResponseBytes"
  },
  {
    name: "a Content-Length of 400 MB",
    handler: declaredHuge,
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10,
    says: "larger than maxResponseBytes"
  },
  {
    name: "no answer at all",
    handler: () => {},
    tag: "TransportError",
    // Each attempt ends at requestTimeout (1 s): 3 attempts.
    requests: 3,
    seconds: 20,
    says: "requestTimeout",
    only: ["tasks", "create", "prompt"],
    options: { requestTimeout: "1 second" }
  },
  {
    name: "a 500 whose body never ends",
    handler: endlessError,
    tag: "HttpError",
    requests: 1,
    seconds: 10,
    says: "cut at 65536 bytes",
    only: ["tasks", "prompt"]
  },
  {
    name: "a body dripping a byte at a time",
    handler: (_request, response) => {
      response.writeHead(200, { "content-type": "application/json" })
      every(response, 100, " ")
    },
    tag: "TransportError",
    requests: 3,
    seconds: 20,
    says: "requestTimeout",
    only: ["tasks", "prompt"],
    options: { requestTimeout: "1 second" }
  },
  {
    name: "a connection closed mid-body",
    handler: closedMidBody,
    tag: "TransportError",
    requests: 3,
    seconds: 10,
    says: "after 2 retries"
  }
]

const jsonOperations: { readonly [name: string]: Operation } = {
  splits: { route: "GET /main/splits", effect: (c) => env(c).splits, promise: (c) => c.environment("main").splits() },
  tasks: {
    route: "POST /main/tasks",
    effect: (c) => env(c).tasks("train"),
    promise: (c) => c.environment("main").tasks("train")
  },
  num_tasks: {
    route: "POST /main/num_tasks",
    effect: (c) => env(c).numTasks("train"),
    promise: (c) => c.environment("main").numTasks("train")
  },
  task: {
    route: "POST /main/task",
    effect: (c) => env(c).task("train", 0),
    promise: (c) => c.environment("main").task("train", 0)
  },
  task_range: { route: "POST /main/task_range", effect: (c) => env(c).taskRange("train") },
  tools: {
    route: "GET /main/tools",
    effect: (c) => env(c).listTools(),
    promise: (c) => c.environment("main").listTools()
  },
  create: { route: "POST /create", effect: inSession(() => Effect.void), promise: inSessionP(async () => {}) },
  prompt: {
    route: "GET /main/prompt",
    effect: inSession((s) => s.getPrompt),
    promise: inSessionP((s) => s.getPrompt())
  },
  messages: {
    route: "GET /main/messages",
    effect: inSession((s) => s.getMessages()),
    promise: inSessionP((s) => s.getMessages())
  },
  task_tools: {
    route: "GET /main/task_tools",
    effect: inSession((s) => s.listTools()),
    promise: inSessionP((s) => s.listTools())
  }
}

/** An event stream's head, then `then`. */
const stream =
  (then: (response: Parameters<Handler>[1], body: string) => void): Handler => (_request, response, body) => {
    sseHeaders(response)
    then(response, body)
  }

const chunkData = "x".repeat(4096)

/**
 * Answers to `/create_session` and `/call`. `create` counts the requests to `/create_session`
 * (3 retries, each a new creation); `call` those to `/call` (5 retries once the task_id came, none
 * before it: the tool may have started).
 */
const streamCases: ReadonlyArray<Case & { readonly call?: Partial<Case> }> = [
  {
    name: "a captive portal's HTML page",
    handler: send(200, "text/html", portal),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10,
    says: "not an event stream"
  },
  {
    name: "JSON instead of an event stream",
    handler: send(200, "application/json", "[{\"sid\": \"s\"}]"),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10,
    says: "not an event stream"
  },
  {
    name: "an end event with an object of the wrong shape",
    handler: stream((response) => response.end(event("end", "{\"unexpected\": true}"))),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10
  },
  {
    name: "an end event with truncated JSON",
    handler: stream((response) => response.end(event("end", "{\"ok\": true, \"output\": {\"blo"))),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10,
    says: "not JSON"
  },
  {
    name: "an empty event stream",
    handler: stream((response) => response.end()),
    tag: "TransportError",
    requests: 4,
    seconds: 10,
    says: "ended before its end event",
    call: { requests: 1, says: "could run it twice" }
  },
  {
    name: "a 500 whose body never ends",
    handler: endlessError,
    tag: "HttpError",
    requests: 1,
    seconds: 10,
    says: "cut at 65536 bytes"
  },
  {
    name: "endless chunk events",
    handler: stream((response, body) => {
      response.write(event("task_id", taskIdOf(body)))
      const piece = event("chunk", chunkData)
      flood(response, () => piece)
    }),
    tag: "MalformedResponse",
    requests: 1,
    seconds: 10,
    says: "larger than maxResponseBytes"
  },
  {
    name: "only keep-alive pings, forever",
    handler: stream((response) => every(response, 100, ": ping\r\n\r\n")),
    tag: "TransportError",
    requests: 1,
    seconds: 15,
    says: "createTimeout",
    call: { says: "callTimeout" },
    options: { createTimeout: "2 seconds", callTimeout: "2 seconds" }
  },
  {
    name: "an end event dripping a byte at a time",
    handler: stream((response) => {
      response.write("event: end\r\ndata: ")
      every(response, 100, "1")
    }),
    tag: "TransportError",
    requests: 1,
    seconds: 15,
    says: "createTimeout",
    call: { says: "callTimeout" },
    options: { createTimeout: "2 seconds", callTimeout: "2 seconds" }
  },
  {
    name: "no answer at all",
    handler: () => {},
    tag: "TransportError",
    // A 1 s heartbeat per attempt: 4 attempts for /create_session; /call is not sent again.
    requests: 4,
    seconds: 20,
    says: "after 3 retries",
    call: { requests: 1, says: "no answer for 1s (heartbeatTimeout)" },
    options: { heartbeatTimeout: "1 second" }
  },
  {
    name: "silence after the headers",
    handler: stream(() => {}),
    tag: "TransportError",
    requests: 4,
    seconds: 20,
    says: "after 3 retries",
    call: { requests: 1, says: "no data for 1s" },
    options: { heartbeatTimeout: "1 second" }
  },
  {
    name: "a cut right after the task_id, every time",
    handler: stream((response, body) => {
      response.write(event("task_id", taskIdOf(body)))
      setTimeout(() => response.socket?.destroy(), 10)
    }),
    tag: "TransportError",
    requests: 4,
    seconds: 10,
    says: "after 3 retries",
    call: { requests: 6, says: "after 5 retries" }
  },
  {
    name: "a cut in the middle of the first event",
    handler: stream((response) => {
      response.write("event: task_i")
      setTimeout(() => response.socket?.destroy(), 10)
    }),
    tag: "TransportError",
    requests: 4,
    seconds: 10,
    call: { requests: 1, says: "could run it twice" }
  }
]

const streamOperations: { readonly [name: string]: Operation } = {
  create_session: {
    route: "POST /create_session",
    effect: inSession(() => Effect.void),
    promise: inSessionP(async () => {})
  },
  call: {
    route: "POST /main/call",
    effect: inSession((s) => s.callTool("answer", {})),
    promise: inSessionP((s) => s.callTool("answer", {}))
  }
}

/**
 * A case as the Promise API runs it: its shortened deadlines twice as long (the Promise API's
 * clock cannot be held for the server as the Effect API's is, see {@link catchingUp}), the texts
 * that name them to match.
 */
const forPromise = (expected: Case): Case => {
  if (expected.options === undefined) return expected
  let says = expected.says
  const options: Record<string, unknown> = { ...expected.options }
  for (const key of ["heartbeatTimeout", "requestTimeout", "createTimeout", "callTimeout"] as const) {
    const value = expected.options[key]
    if (value === undefined) continue
    const longer = Duration.times(Duration.decode(value), 2)
    options[key] = longer
    says = says?.replace(Duration.format(Duration.decode(value)), Duration.format(longer))
  }
  return { ...expected, options: options as Client.Options, ...(says === undefined ? {} : { says }) }
}

/** Wait (at most 5 s) until the server has seen `n` requests to `route`: it may see the last one late. */
const seen = (server: HostileServer, route: string, n: number) =>
  Effect.void.pipe(
    Effect.repeat({ schedule: Schedule.spaced("5 millis"), until: () => server.count(route) >= n }),
    Effect.timeout("5 seconds"),
    Effect.ignore
  )

const check = (
  api: Api,
  operation: Operation,
  table: Case
) =>
  withServer((server) =>
    Effect.gen(function*() {
      const expected = api === "Promise" ? forPromise(table) : table
      server.on(operation.route, expected.handler)
      const { exit, seconds } = yield* attempt(api, operation, settings(server.origin, expected.options), server)
      const error = failureOf(exit)
      assert.strictEqual(error._tag, expected.tag, error.message)
      if (expected.says !== undefined) assert.include(error.message, expected.says)
      yield* seen(server, operation.route, expected.requests)
      const requests = server.count(operation.route)
      assert.strictEqual(requests, expected.requests, error.message)
      assert.isAtMost(seconds, expected.seconds)
      if (error._tag === "MalformedResponse") {
        // It names the route and what came back.
        assert.strictEqual(`${error.method} ${new URL(error.url).pathname}`, operation.route)
        assert.strictEqual(error.route, `/${operation.route.split("/").at(-1)}`)
      }
    })
  )

describe.concurrent("Hostile answers to routes that return JSON", () => {
  for (const [name, operation] of Object.entries(jsonOperations)) {
    for (const api of ["Effect", "Promise"] as const) {
      if (api === "Promise" && operation.promise === undefined) continue
      for (const expected of jsonCases) {
        if (expected.only !== undefined && !expected.only.includes(name)) continue
        it.live(`${api}: ${name} answered with ${expected.name}: ${expected.tag}, ${expected.requests} request(s)`, () =>
          check(api, operation, expected))
      }
    }
  }

  it.live("the MalformedResponse quotes the content type and the first bytes", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.on("POST /main/tasks", send(200, "text/html; charset=utf-8", portal))
        const { exit } = yield* attempt("Effect", jsonOperations.tasks!, settings(server.origin))
        const error = failureOf(exit)
        assert.strictEqual(error._tag, "MalformedResponse")
        if (error._tag !== "MalformedResponse") return
        assert.strictEqual(error.contentType, "text/html; charset=utf-8")
        assert.strictEqual(error.excerpt, portal.slice(0, 200))
        assert.strictEqual(error.route, "/tasks")
        assert.include(error.message, `content-type "text/html; charset=utf-8"`)
      })
    ))
})

describe.concurrent("Hostile event streams", () => {
  for (const [name, operation] of Object.entries(streamOperations)) {
    for (const api of ["Effect", "Promise"] as const) {
      for (const base of streamCases) {
        const expected: Case = { ...base, ...(name === "call" ? base.call : {}) }
        it.live(`${api}: ${name} answered with ${expected.name}: ${expected.tag}, ${expected.requests} request(s)`, () =>
          check(api, operation, expected))
      }
    }
  }

  it.live("a /call resumed after a cut sends its task_id; the tool is asked to run once", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.on(
          "POST /main/call",
          stream((response, body) => {
            response.write(event("task_id", "task-7"))
            if (JSON.parse(body).task_id === undefined) setTimeout(() => response.socket?.destroy(), 10)
            else response.end(event("end", toolResult))
          })
        )
        const { exit } = yield* attempt("Effect", streamOperations.call!, settings(server.origin))
        assert.isTrue(Exit.isSuccess(exit))
        const bodies = server.hits.filter((h) => h.path === "/main/call").map((h) => JSON.parse(h.body))
        assert.deepStrictEqual(bodies, [{ name: "answer", input: {} }, {
          name: "answer",
          input: {},
          task_id: "task-7"
        }])
      })
    ))

  it.live("a stream that stays up, with data, for a heartbeat timeout made progress: resumed beyond the retry count", () =>
    withServer((server) =>
      Effect.gen(function*() {
        let cuts = 0
        server.on(
          "POST /main/call",
          stream((response, body) => {
            response.write(event("task_id", taskIdOf(body)))
            if (cuts === 7) return void response.end(event("end", toolResult))
            cuts++
            // Keep-alives for 0.9 s (the heartbeat timeout is 0.6 s here), then the connection drops.
            every(response, 50, ": ping\r\n\r\n")
            setTimeout(() => response.socket?.destroy(), 900)
          })
        )
        const { exit } = yield* attempt(
          "Effect",
          streamOperations.call!,
          settings(server.origin, { callTimeout: "1 minute", heartbeatTimeout: "600 millis" })
        )
        assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? String(exit.cause) : "")
        assert.strictEqual(server.count("POST /main/call"), 8)
      })
    ))
})

describe.concurrent("Deadlines inside a session's creation", () => {
  it.live("a session interrupted while in use still sends /delete and /delete_session", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const ready = yield* Deferred.make<void>()
        const { exit } = yield* attempt("Effect", {
          effect: (c) =>
            Effect.raceFirst(
              inSession(() => Effect.zipRight(Deferred.succeed(ready, undefined), Effect.never))(c),
              Effect.zipRight(Deferred.await(ready), Effect.fail("interrupt the session"))
            )
        }, settings(server.origin))
        assert.isTrue(Exit.isFailure(exit))
        assert.strictEqual(server.count("POST /delete"), 1)
        assert.strictEqual(server.count("POST /delete_session"), 1)
      })
    ))

  it.live("teardown requests have their deadline too: a /delete that hangs ends at requestTimeout", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.on("POST /delete", () => {})
        const { exit, seconds } = yield* attempt(
          "Effect",
          inSessionOperation,
          settings(server.origin, { requestTimeout: "1 second" })
        )
        assert.isTrue(Exit.isSuccess(exit))
        // 3 attempts of 1 s, then /delete_session.
        assert.strictEqual(server.count("POST /delete"), 3)
        assert.strictEqual(server.count("POST /delete_session"), 1)
        assert.isAtMost(seconds, 20)
      })
    ))

  it.live("a session whose creation is interrupted while /create hangs is still torn down", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const created = yield* Deferred.make<void>()
        server.on("POST /create", () => Effect.runSync(Deferred.succeed(created, undefined)))
        const { exit, seconds } = yield* attempt("Effect", {
          effect: (c) =>
            Effect.raceFirst(
              inSession(() => Effect.void)(c),
              Effect.zipRight(Deferred.await(created), Effect.fail("interrupt the creation"))
            )
        }, settings(server.origin, { requestTimeout: "1 minute" }))
        assert.isTrue(Exit.isFailure(exit))
        // Ended by the caller, not by the deadline.
        assert.isAtMost(seconds, 30)
        assert.strictEqual(server.count("POST /create"), 1)
        assert.strictEqual(server.count("POST /delete"), 1)
        assert.strictEqual(server.count("POST /delete_session"), 1)
      })
    ))
})

// -----------------------------------------------------------------------------
// redirects
// -----------------------------------------------------------------------------

/** Redirect `route` to `target` (a function of the servers' ports). */
const redirect = (status: number, location: string): Handler => (_request, response) => {
  response.writeHead(status, { location, "content-type": "text/plain" })
  response.end("moved")
}

const redirectOperations: { readonly [name: string]: Operation & { readonly secrets: boolean } } = {
  "env.tasks (POST)": { ...jsonOperations.tasks!, secrets: false },
  "/list_environments": {
    route: "GET /list_environments",
    effect: (c) => env(c).splits,
    promise: (c) => c.environment("main").splits(),
    secrets: false
  },
  "/create_session (an event stream with X-Secrets)": { ...streamOperations.create_session!, secrets: true },
  "/create (X-Secrets)": { ...jsonOperations.create!, secrets: true },
  "session.getPrompt (GET)": { ...jsonOperations.prompt!, secrets: false },
  "session.callTool (the /call event stream)": { ...streamOperations.call!, secrets: false }
}

describe.concurrent("Redirects to another origin are refused before anything is sent there", () => {
  const targets: ReadonlyArray<readonly [string, (port: number, other: number) => string]> = [
    ["another host (127.0.0.2)", (port) => `http://127.0.0.2:${port}`],
    ["another port", (_port, other) => `http://127.0.0.1:${other}`],
    ["another scheme (https)", (port) => `https://127.0.0.1:${port}`],
    ["an IPv6 literal ([::1])", (port) => `http://[::1]:${port}`],
    ["localhost for 127.0.0.1", (port) => `http://localhost:${port}`]
  ]
  for (const [name, operation] of Object.entries(redirectOperations)) {
    for (const [targetName, target] of targets) {
      for (const api of ["Effect", "Promise"] as const) {
        it.live(`${api}: ${name} redirected (307) to ${targetName}`, () =>
          withServer((server) =>
            withServer((other) =>
              Effect.gen(function*() {
                const to = target(server.port, other.port)
                const path = operation.route.split(" ")[1]!
                server.on(operation.route, redirect(307, `${to}${path}`))
                const { exit, seconds } = yield* attempt(api, operation, settings(server.origin))
                const error = failureOf(exit)
                assert.deepStrictEqual(
                  error,
                  new ClientError.RedirectRefused({
                    method: operation.route.split(" ")[0]!,
                    url: `${server.origin}${path}`,
                    status: 307,
                    from: server.origin,
                    to: new URL(to).origin,
                    location: `${new URL(to).origin}${path}`,
                    reason: "other-origin"
                  })
                )
                assert.include(error.message, `from ${server.origin} to ${new URL(to).origin}`)
                // Nothing reached the other origin: no request under another Host, none at the other
                // port, no TLS handshake.
                assert.deepStrictEqual(server.strangers(), [])
                assert.deepStrictEqual(other.hits, [])
                assert.strictEqual(server.notHttp, 0)
                assert.strictEqual(server.count(operation.route), 1)
                assert.isAtMost(seconds, 10)
              })
            )
          ))
      }
    }
  }
})

describe.concurrent("Background requests are held to the same rule", () => {
  for (const api of ["Effect", "Promise"] as const) {
    it.live(`${api}: pings, /delete and /delete_session redirected to another origin reach nothing there`, () =>
      withServer((server) =>
        withServer((other) =>
          Effect.gen(function*() {
            for (const route of ["/ping", "/delete", "/delete_session"]) {
              server.on(`POST ${route}`, redirect(307, `http://127.0.0.1:${other.port}${route}`))
            }
            const { exit } = yield* attempt(api, {
              effect: inSession(() => Effect.sleep("500 millis")),
              promise: inSessionP(() => new Promise((resolve) => setTimeout(resolve, 500)))
            }, settings(server.origin, { pingInterval: "100 millis" }))
            // The session worked; its pings failed (RedirectRefused counts as a failed ping; five
            // terminate the session, which sends /delete at once), and closing it ignored the
            // refused deletes.
            assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? String(exit.cause) : "")
            assert.isAtLeast(server.count("POST /ping"), 1)
            assert.isAtLeast(server.count("POST /delete"), 1)
            assert.strictEqual(server.count("POST /delete_session"), 1)
            assert.deepStrictEqual(other.hits, [])
          })
        )
      ))
  }
})

describe.concurrent("Redirects within the origin", () => {
  const semantics: ReadonlyArray<readonly [number, string, boolean]> = [
    [301, "GET", false],
    [302, "GET", false],
    [303, "GET", false],
    [307, "POST", true],
    [308, "POST", true]
  ]
  for (const [status, method, keepsBody] of semantics) {
    for (const api of ["Effect", "Promise"] as const) {
      it.live(`${api}: a ${status} to a POST is followed with ${method}${keepsBody ? ", body and all" : " and no body"}`, () =>
        withServer((server) =>
          Effect.gen(function*() {
            server.on("POST /main/tasks", redirect(status, "/moved/tasks"))
            const answer = send(200, "application/json", JSON.stringify({ tasks: [{ id: "t9" }], env_name: "main" }))
            server.on("POST /moved/tasks", answer).on("GET /moved/tasks", answer)
            const { exit } = yield* attempt(api, jsonOperations.tasks!, settings(server.origin))
            assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? String(exit.cause) : "")
            const moved = server.hits.filter((h) => h.path === "/moved/tasks")
            assert.strictEqual(moved.length, 1)
            assert.strictEqual(moved[0]?.method, method)
            assert.strictEqual(moved[0]?.body, keepsBody ? "{\"split\":\"train\"}" : "")
            // Same origin: the credentials go along.
            assert.strictEqual(moved[0]?.headers["x-api-key"], "sk-HOSTILE-key-0001")
            assert.isString(moved[0]?.headers["x-session-id"])
          })
        ))
    }
  }

  for (const api of ["Effect", "Promise"] as const) {
    it.live(`${api}: X-Secrets follows a redirect within the base URL's origin`, () =>
      withServer((server) =>
        Effect.gen(function*() {
          server.on("POST /create", redirect(308, "/create2"))
          server.on("POST /create2", (_request, response, body) => json(response, 200, { sid: "x", body }))
          const { exit } = yield* attempt(api, jsonOperations.create!, settings(server.origin))
          assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? String(exit.cause) : "")
          const [first] = server.hits.filter((h) => h.path === "/create")
          const [moved] = server.hits.filter((h) => h.path === "/create2")
          assert.isString(first?.headers["x-secrets"])
          assert.strictEqual(moved?.headers["x-secrets"], first?.headers["x-secrets"])
        })
      ))

    it.live(`${api}: a redirect loop ends after maxRedirects (10): 11 requests, RedirectRefused`, () =>
      withServer((server) =>
        Effect.gen(function*() {
          server.on("POST /main/tasks", redirect(307, "/main/tasks"))
          const { exit, seconds } = yield* attempt(api, jsonOperations.tasks!, settings(server.origin))
          const error = failureOf(exit)
          assert.strictEqual(error._tag === "RedirectRefused" && error.reason, "too-many")
          assert.strictEqual(server.count("POST /main/tasks"), 11)
          assert.isAtMost(seconds, 10)
        })
      ))

    it.live(`${api}: a Location that is not an http(s) URL is refused`, () =>
      withServer((server) =>
        Effect.gen(function*() {
          server.on("GET /main/splits", redirect(302, "file:///etc/passwd"))
          server.on("POST /main/tasks", redirect(307, "http://[bad"))
          const splits = failureOf((yield* attempt(api, jsonOperations.splits!, settings(server.origin))).exit)
          assert.strictEqual(splits._tag === "RedirectRefused" && splits.reason, "invalid-location")
          const tasks = failureOf((yield* attempt(api, jsonOperations.tasks!, settings(server.origin))).exit)
          assert.strictEqual(tasks._tag === "RedirectRefused" && tasks.reason, "invalid-location")
        })
      ))
  }
})

describe.concurrent("allowedRedirectOrigins", () => {
  for (const api of ["Effect", "Promise"] as const) {
    it.live(`${api}: a listed origin is followed with the key and session id, never X-Secrets`, () =>
      withServer((server) =>
        withServer((other) =>
          Effect.gen(function*() {
            const options = settings(server.origin, { allowedRedirectOrigins: [`http://127.0.0.1:${other.port}/`] })
            server.on("POST /main/tasks", redirect(307, `http://127.0.0.1:${other.port}/main/tasks`))
            const { exit } = yield* attempt(api, jsonOperations.tasks!, options)
            assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? String(exit.cause) : "")
            const [moved] = other.hits
            assert.strictEqual(moved?.body, "{\"split\":\"train\"}")
            assert.strictEqual(moved?.headers["x-api-key"], "sk-HOSTILE-key-0001")
            assert.isString(moved?.headers["x-session-id"])
            assert.strictEqual(moved?.headers["x-deployment"], "main")
            for (const name of ["x-secrets", "authorization", "cookie"]) assert.isUndefined(moved?.headers[name])

            // A request carrying X-Secrets is not redirected there, listed or not.
            other.hits.length = 0
            server.on("POST /create", redirect(307, `http://127.0.0.1:${other.port}/create`))
            const refused = failureOf((yield* attempt(api, jsonOperations.create!, options)).exit)
            assert.strictEqual(refused._tag === "RedirectRefused" && refused.reason, "secrets")
            assert.deepStrictEqual(other.hits, [])
          })
        )
      ))
  }

  it.effect("an entry that is not an http(s) URL is a ConfigError", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Client.make({ allowedRedirectOrigins: ["ftp://x"] }))
      assert.isTrue(Exit.isFailure(exit))
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

// -----------------------------------------------------------------------------
// the environments list
// -----------------------------------------------------------------------------

describe.concurrent("A hostile /list_environments", () => {
  for (
    const [name, handler] of [["an HTML page", send(200, "text/html", portal)], [
      "an object",
      send(200, "application/json", "{}")
    ], ["a 404", send(404, "application/json", "{\"detail\":\"Not Found\"}")]] as const
  ) {
    it.live(`${name}: the server does not list; bare paths, as the reference`, () =>
      withServer((server) =>
        Effect.gen(function*() {
          server.on("GET /list_environments", handler)
          const { exit } = yield* attempt("Effect", {
            effect: (c) => c.environment("anything").splits
          }, settings(server.origin))
          assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? String(exit.cause) : "")
          assert.strictEqual(server.count("GET /splits"), 1)
          assert.strictEqual(server.count("GET /main/splits"), 1)
        })
      ))
  }

  it.live("a connection closed mid-body: a TransportError after 3 requests", () =>
    withServer((server) =>
      Effect.gen(function*() {
        server.on("GET /list_environments", closedMidBody)
        const { exit } = yield* attempt("Effect", jsonOperations.splits!, settings(server.origin))
        assert.strictEqual(failureOf(exit)._tag, "TransportError")
        assert.strictEqual(server.count("GET /list_environments"), 3)
      })
    ))
})

// -----------------------------------------------------------------------------
// secrets on spans and in logs
// -----------------------------------------------------------------------------

describe("Secrets stay off the client's spans and logs", () => {
  it.live("X-Secrets, X-Session-ID and X-API-Key are redacted; no attribute or log line carries a secret", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const spans: Array<Tracer.Span> = []
        const base = yield* Effect.tracer
        const tracer = Tracer.make({
          span: (...args) => {
            const span = base.span(...args)
            spans.push(span)
            return span
          },
          context: base.context
        })
        const logs: Array<string> = []
        const logger = Logger.make(({ annotations, message }) => {
          logs.push(JSON.stringify({ message, annotations: [...annotations] }))
        })
        // A failing call: the session is terminated and the client logs it.
        server.on(
          "POST /main/call",
          stream((response, body) => {
            response.end(event("task_id", taskIdOf(body)) + event("error", "boom"))
          })
        )
        let sid = ""
        const { exit } = yield* attempt("Effect", {
          effect: inSession((s) => {
            sid = s.sid
            return Effect.zip(s.getPrompt, Effect.exit(s.callTool("answer", {})))
          })
        }, settings(server.origin)).pipe(
          Effect.withTracer(tracer),
          Effect.provide(Logger.replace(Logger.defaultLogger, logger))
        )
        assert.isTrue(Exit.isSuccess(exit), Exit.isFailure(exit) ? String(exit.cause) : "")
        const secretsHeader = server.hits.find((h) => h.path === "/create")?.headers["x-secrets"]
        assert.isString(secretsHeader)
        const secrets = [
          "sk-HOSTILE-key-0001",
          "sk-openai-SECRET",
          sid,
          secretsHeader as string,
          encodeURIComponent(secretsHeader as string)
        ]
        const create = spans.find((s) => s.attributes.get("url.path") === "/create")
        assert.isDefined(create)
        for (const name of ["x-secrets", "x-session-id", "x-api-key"]) {
          assert.strictEqual(String(create?.attributes.get(`http.request.header.${name}`)), "<redacted>")
        }
        const everything = [
          ...spans.flatMap((s) => [...s.attributes.values()].map((v) => String(v))),
          ...logs
        ].join("\n")
        assert.isAbove(logs.length, 0)
        for (const secret of secrets) assert.notInclude(everything, secret)
      })
    ))
})
