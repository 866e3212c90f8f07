/**
 * One replica among several, in process: the route key in minted session ids, and the drain on
 * shutdown (running calls finish and are delivered; no new sessions or calls; then teardown).
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { createServer } from "node:http"
import * as Server from "openreward-effect/Server"
import { Replicated } from "./fixtures/replica/env.js"

interface Answer {
  readonly status: number
  readonly body: string
}

const start = (options: Server.Options) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const context = yield* Layer.buildWithScope(
      Server.layer([Replicated], options).pipe(
        Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
      ),
      scope
    )
    const { port } = (yield* Effect.provide(HttpServer.HttpServer, context)).address as HttpServer.TcpAddress
    const request = (method: string, path: string, body?: unknown, sid?: string) =>
      Effect.promise(async (): Promise<Answer> => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { "content-type": "application/json", ...(sid === undefined ? {} : { "x-session-id": sid }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        })
        return { status: response.status, body: await response.text() }
      })
    return { scope, request }
  })

const sidOf = (sse: string): string => /event: task_id\ndata: (.*)\n/.exec(sse)![1]!

describe("Replica", () => {
  it.live("with a route key, /create_session mints `<key>.<uuid4>`; without one, a bare uuid4", () =>
    Effect.gen(function*() {
      const keyed = yield* start({ routeKey: "r-7_b" })
      const bare = yield* start({})
      const a = sidOf((yield* keyed.request("POST", "/create_session", {})).body)
      const b = sidOf((yield* bare.request("POST", "/create_session", {})).body)
      assert.match(a, /^r-7_b\.[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      assert.match(b, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      // the keyed id is an ordinary session id from then on
      assert.strictEqual((yield* keyed.request("POST", "/create", { split: "train", index: 3 }, a)).status, 200)
      const prompt = yield* keyed.request("GET", "/replicated/prompt", undefined, a)
      assert.strictEqual(prompt.body, "[{\"text\":\"task 3\",\"detail\":null,\"type\":\"text\"}]")
      yield* Scope.close(keyed.scope, Exit.void)
      yield* Scope.close(bare.scope, Exit.void)
    }))

  it.live("an unknown session id with this replica's route key is gone (410: ended, or minted before a restart)", () =>
    Effect.gen(function*() {
      const keyed = yield* start({ routeKey: "r1" })
      const gone = "{\"detail\":\"Session gone: it ended, or its replica restarted\"}"
      assert.deepStrictEqual(yield* keyed.request("POST", "/ping", {}, "r1.from-before-a-restart"), {
        status: 410,
        body: gone
      })
      const call = yield* keyed.request("POST", "/replicated/call", { name: "work", input: { step: 1 } }, "r1.x")
      assert.strictEqual(call.status, 410)
      // ids without the key are the reference's 404
      const other = yield* keyed.request("POST", "/ping", {}, "r2.elsewhere")
      assert.deepStrictEqual(other, { status: 404, body: "{\"detail\":\"Active environment not found\"}" })
      // a session of this replica, after it ended
      const sid = sidOf((yield* keyed.request("POST", "/create_session", {})).body)
      assert.strictEqual((yield* keyed.request("POST", "/create", { split: "train", index: 0 }, sid)).status, 200)
      assert.strictEqual((yield* keyed.request("POST", "/ping", {}, sid)).status, 200)
      assert.strictEqual((yield* keyed.request("POST", "/delete", {}, sid)).status, 200)
      assert.deepStrictEqual(yield* keyed.request("POST", "/ping", {}, sid), { status: 410, body: gone })
      yield* Scope.close(keyed.scope, Exit.void)
    }))

  it.effect("a route key that cannot sit in a session id and an nginx map is refused at start", () =>
    Effect.gen(function*() {
      for (const routeKey of ["", "a.b", "a b", "x".repeat(65), "ü"]) {
        const made = yield* Effect.either(Effect.scoped(Server.make([Replicated], { routeKey })))
        assert.ok(Either.isLeft(made), routeKey)
        assert.strictEqual(made.left.reason, "routeKey must be 1 to 64 letters, digits, '_' or '-'")
      }
    }))

  it.live("draining: running calls finish and are delivered, nothing new starts, then every session is torn down", () =>
    Effect.gen(function*() {
      const { request, scope } = yield* start({ drainTimeout: "20 seconds" })
      const sids = ["s1", "s2"]
      for (const sid of sids) {
        assert.strictEqual((yield* request("POST", "/create", { split: "train", index: 0 }, sid)).status, 200)
      }
      const running = yield* Effect.fork(
        Effect.all(
          sids.map((sid) => request("POST", "/replicated/call", { name: "work", input: { step: 1, ms: 1500 } }, sid)),
          {
            concurrency: "unbounded"
          }
        )
      )
      yield* Effect.sleep("300 millis")
      const shutdown = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* Effect.sleep("200 millis")

      const health = yield* request("GET", "/health")
      assert.deepStrictEqual(health, { status: 503, body: "{\"status\":\"draining\"}" })
      const mint = yield* request("POST", "/create_session", {})
      assert.strictEqual(mint.status, 503)
      assert.strictEqual(mint.body, "{\"detail\":\"Server is draining: it takes no new sessions\"}")
      assert.strictEqual((yield* request("POST", "/create", { split: "train", index: 0 }, "s3")).status, 503)
      const refused = yield* request("POST", "/replicated/call", { name: "work", input: { step: 2 } }, "s1")
      assert.deepStrictEqual(refused, {
        status: 410,
        body: "{\"detail\":\"Session ended: the server is shutting down\"}"
      })
      // reads of a live session still work while its call runs
      assert.strictEqual((yield* request("GET", "/replicated/prompt", undefined, "s2")).status, 200)

      const answers = yield* Fiber.join(running)
      for (const answer of answers) {
        assert.strictEqual(answer.status, 200)
        assert.match(answer.body, /event: end\ndata: \{"ok":true,"output":\{"blocks":\[\{"text":"step 1"/)
      }
      yield* Fiber.join(shutdown)
    }))

  it.live("the drain timeout bounds the wait: a call still running then is ended with the session", () =>
    Effect.gen(function*() {
      const { request, scope } = yield* start({ drainTimeout: "300 millis" })
      assert.strictEqual((yield* request("POST", "/create", { split: "train", index: 0 }, "s1")).status, 200)
      const running = yield* Effect.fork(
        request("POST", "/replicated/call", { name: "work", input: { step: 1, ms: 60_000 } }, "s1")
      )
      yield* Effect.sleep("200 millis")
      const began = Date.now()
      yield* Scope.close(scope, Exit.void)
      // bounded by the drain timeout, not the call (Node may keep the call's connection for its 5 s keep-alive)
      assert.isBelow(Date.now() - began, 10_000)
      const answer = yield* Fiber.join(running)
      assert.match(answer.body, /event: error\ndata: Session deleted/)
    }))

  it.live("with nothing running, shutdown does not wait", () =>
    Effect.gen(function*() {
      const { request, scope } = yield* start({ drainTimeout: "30 seconds" })
      assert.strictEqual((yield* request("POST", "/create", { split: "train", index: 0 }, "s1")).status, 200)
      const began = Date.now()
      yield* Scope.close(scope, Exit.void)
      assert.isBelow(Date.now() - began, 2000)
    }))
}, { timeout: 60_000 })
