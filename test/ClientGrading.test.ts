/**
 * The client's terminal tool and group scoring (issue 21 part 1): `session.terminalTool`,
 * `isAssistantMessageFinal`, `callTerminalTool`, `supportsScoreGroup` and `scoreGroup`, against this
 * library's real server (environments with and without a terminal tool or a `scoreGroup`), and
 * against the in-memory fake for what the real server never does (a lost stream, an older server's
 * block types, an answer too large).
 */
import * as HttpClient from "@effect/platform/HttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as Block from "openreward-effect/Block"
import * as Client from "openreward-effect/Client"
import * as ClientError from "openreward-effect/ClientError"
import * as Environment from "openreward-effect/Environment"
import * as Message from "openreward-effect/Message"
import * as Tool from "openreward-effect/Tool"
import { FakeServer, httpClient } from "./client/FakeServer.js"
import * as TestServer from "./client/TestServer.js"
import { layer } from "./utils/layer.js"

// -----------------------------------------------------------------------------
// environments
// -----------------------------------------------------------------------------

const tasks = { train: [{ id: "t0" }] }
const prompt = () => [Block.text("Answer the customer.")]

const lookup = Tool.make("lookup", {
  description: "Look an order up.",
  input: Schema.Struct({ id: Schema.String }),
  handler: ({ id }) => Tool.output(`order ${id}: at the hub`)
})

/** A terminal tool with one argument, and group scores by text length with the metadata echoed. */
const Graded = Environment.make({
  name: "graded",
  splits: ["train"],
  tasks,
  prompt,
  tools: [
    lookup,
    Tool.make("reply", {
      description: "The final reply.",
      terminal: true,
      input: Schema.Struct({ message: Schema.String }),
      handler: ({ message }) =>
        Tool.output(`graded: ${message}`, { reward: message.includes("4411") ? 1 : 0, finished: true })
    })
  ],
  scoreGroup: (candidates) =>
    candidates.map((c) => ({
      reward: JSON.stringify(c.messages).length,
      metadata: { echo: c.metadata, roles: c.messages.map((m) => m.role).join(",") }
    }))
})

/** A terminal tool that takes no argument (it grades from state), and no group scoring. */
const Bare = Environment.make({
  name: "bare",
  splits: ["train"],
  tasks,
  prompt,
  tools: [
    lookup,
    Tool.make("done", { terminal: true, handler: () => Tool.output("done", { reward: 0.5, finished: true }) })
  ]
})

/** No terminal tool; group scoring that fails the way a judge with no readable verdict does. */
const Failing = Environment.make({
  name: "failing",
  splits: ["train"],
  tasks,
  prompt,
  tools: [lookup],
  scoreGroup: () => Effect.die(new Error("JudgeFailure: no verdict in 3 attempts"))
})

/** Group scoring that returns one score too few. */
const Short = Environment.make({
  name: "short",
  splits: ["train"],
  tasks,
  prompt,
  tools: [lookup],
  scoreGroup: (candidates) => candidates.slice(1).map(() => 0.5)
})

const conversation = (reply: string) => [Message.user("Where is #4411?"), Message.assistant(reply)]

const session = (client: Client.Service, name: string) => client.environment(name).session({ split: "train", index: 0 })

// -----------------------------------------------------------------------------
// against this library's real server
// -----------------------------------------------------------------------------

layer(TestServer.serve([Graded, Bare, Failing, Short]), { excludeTestServices: true })("Grading, real server", (it) => {
  it.effect("terminalTool, isAssistantMessageFinal and supportsScoreGroup come from the tool list, read once", () =>
    Effect.gen(function*() {
      const { client, paths } = yield* TestServer.connect()
      yield* Effect.scoped(Effect.gen(function*() {
        const graded = yield* session(client, "graded")
        assert.deepStrictEqual(
          yield* graded.terminalTool,
          Option.some({ name: "reply", arg: "message", description: "The final reply." })
        )
        assert.isTrue(yield* graded.isAssistantMessageFinal)
        assert.isTrue(yield* graded.supportsScoreGroup)
        // The terminal tool is hidden from the tools the model sees.
        assert.deepStrictEqual((yield* graded.listTools()).map((t) => t.name), ["lookup"])
        assert.strictEqual(paths().filter((p) => p.endsWith("/task_tools")).length, 2)

        const failing = yield* session(client, "failing")
        assert.isTrue(Option.isNone(yield* failing.terminalTool))
        assert.isFalse(yield* failing.isAssistantMessageFinal)
        assert.isTrue(yield* failing.supportsScoreGroup)
        const bare = yield* session(client, "bare")
        assert.isFalse(yield* bare.supportsScoreGroup)
      }))
    }))

  it.effect("callTerminalTool: the message as the tool's one argument, none for a tool without, an error without a tool", () =>
    Effect.gen(function*() {
      const { client, requests } = yield* TestServer.connect()
      yield* Effect.scoped(Effect.gen(function*() {
        const graded = yield* session(client, "graded")
        const output = yield* graded.callTerminalTool("Order #4411 ships tomorrow.")
        assert.strictEqual(output.reward, 1)
        assert.isTrue(output.finished)
        assert.deepStrictEqual(requests("POST", "/graded/call")[0]?.body, {
          name: "reply",
          input: { message: "Order #4411 ships tomorrow." }
        })

        const bare = yield* session(client, "bare")
        assert.strictEqual((yield* bare.callTerminalTool("ignored")).reward, 0.5)
        assert.deepStrictEqual(requests("POST", "/bare/call")[0]?.body, { name: "done", input: {} })

        const failing = yield* session(client, "failing")
        const none = yield* Effect.flip(failing.callTerminalTool("hello"))
        assert.strictEqual(none._tag, "ToolCallError")
        if (none._tag === "ToolCallError") {
          assert.strictEqual(none.reason, "not_found")
          assert.strictEqual(none.tool, "")
          assert.strictEqual(none.message, "terminal tool: not_found: environment \"failing\" has no terminal tool")
        }
        assert.strictEqual(requests("POST", "/failing/call").length, 0)
        // The session lives on.
        assert.strictEqual((yield* failing.callTool("lookup", { id: "1" })).finished, false)
      }))
    }))

  it.effect("scoreGroup: one score per candidate in order, conversations or {messages, metadata}", () =>
    Effect.gen(function*() {
      const { client, requests } = yield* TestServer.connect()
      yield* Effect.scoped(Effect.gen(function*() {
        const graded = yield* session(client, "graded")
        const a = conversation("Please wait.")
        const b = conversation("Order #4411 is at the hub.")
        const scores = yield* graded.scoreGroup([a, { messages: b, metadata: { rollout: 1 } }])
        assert.deepStrictEqual(scores, [
          { reward: JSON.stringify(a).length, metadata: { echo: null, roles: "user,assistant" } },
          { reward: JSON.stringify(b).length, metadata: { echo: { rollout: 1 }, roles: "user,assistant" } }
        ])
        const sent = requests("POST", "/graded/score_group")[0]?.body
        assert.deepStrictEqual(sent.candidates[1].metadata, { rollout: 1 })
        assert.deepStrictEqual(sent.candidates[0].messages[1], {
          role: "assistant",
          blocks: [{ text: "Please wait.", detail: null, type: "text" }],
          detail: null
        })
        // Rich blocks are fine for a server that accepts them.
        const rich = [
          ...conversation("Let me look."),
          Message.assistant([Block.reasoning("Look it up."), Block.toolCall("c1", "lookup", { id: "4411" })])
        ]
        assert.strictEqual((yield* graded.scoreGroup([rich])).length, 1)
        assert.deepStrictEqual(yield* graded.scoreGroup([]), [])
      }))
    }))

  it.effect("an environment that scores no groups: ScoreGroupUnsupported, and the session lives on", () =>
    Effect.gen(function*() {
      const { client } = yield* TestServer.connect()
      yield* Effect.scoped(Effect.gen(function*() {
        const bare = yield* session(client, "bare")
        const error = yield* Effect.flip(bare.scoreGroup([conversation("hi")]))
        assert.strictEqual(error._tag, "ScoreGroupUnsupported")
        if (error._tag === "ScoreGroupUnsupported") {
          assert.deepStrictEqual(error.blockTypes, [])
          assert.strictEqual(
            error.message,
            "environment \"bare\" does not score groups: Environment 'bare' does not implement score_group"
          )
        }
        assert.isTrue(Option.isNone(yield* bare.terminated))
        assert.strictEqual((yield* bare.callTool("lookup", { id: "2" })).blocks.length, 1)
      }))
    }))

  it.effect("scoring that raises or answers the wrong count: ScoreGroupFailed, the session not terminated", () =>
    Effect.gen(function*() {
      const { client } = yield* TestServer.connect()
      yield* Effect.scoped(Effect.gen(function*() {
        const failing = yield* session(client, "failing")
        const error = yield* Effect.flip(failing.scoreGroup([conversation("a"), conversation("b")]))
        assert.strictEqual(error._tag, "ScoreGroupFailed")
        assert.isTrue(Option.isNone(yield* failing.terminated))
        // Scored again, it fails again (nothing was cached), and tools still run.
        assert.strictEqual((yield* Effect.flip(failing.scoreGroup([conversation("a")])))._tag, "ScoreGroupFailed")
        assert.strictEqual((yield* failing.callTool("lookup", { id: "3" })).reward, null)

        const short = yield* session(client, "short")
        const wrong = yield* Effect.flip(short.scoreGroup([conversation("a"), conversation("b")]))
        assert.strictEqual(wrong._tag, "ScoreGroupFailed")
        assert.include(wrong.message, "returned 1 scores for 2 candidates")
      }))
    }))
})

// -----------------------------------------------------------------------------
// against the fake server
// -----------------------------------------------------------------------------

const BASE = "http://fake.test"

const fake = (options?: Client.Options) => {
  const server = new FakeServer()
  const clientLayer = Client.layer({ baseUrl: BASE, apiKey: "key-1", ...options }).pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, httpClient(server)))
  )
  const run = <A, E>(f: (client: Client.Service) => Effect.Effect<A, E>) =>
    Effect.provide(Effect.flatMap(Client.Client, f), clientLayer)
  return { server, run }
}

/** Let the in-memory answers and the client's fibers run while the test clock moves. */
const advance = (duration: Duration.DurationInput) =>
  Effect.gen(function*() {
    const total = Duration.toMillis(Duration.decode(duration))
    for (let t = 0; t < total; t += 100) {
      yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve))).pipe(Effect.repeatN(3))
      yield* TestClock.adjust(100)
    }
  })

const rich = [
  Message.user("Where is #4411?"),
  Message.assistant([Block.reasoning("Check."), Block.toolCall("c1", "lookup_order", { id: "4411" })]),
  Message.user([Block.toolResult("c1", "at the hub")]),
  Message.assistant("At the hub.")
]

describe("Grading, fake server", () => {
  it.effect("a stream lost after its task_id is resumed with it: the group is scored once", () => {
    const { run, server } = fake()
    server.fail("POST /dialogue/score_group", { kind: "drop-after-task-id" })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(s.scoreGroup([conversation("a"), conversation("bb")]))
        yield* advance("600 millis")
        const scores = yield* Fiber.join(fiber)
        assert.deepStrictEqual(scores.map((x) => x.reward), [
          JSON.stringify(conversation("a")).length / 100,
          JSON.stringify(conversation("bb")).length / 100
        ])
        assert.strictEqual(server.runs.get("score_group"), 1)
        const posts = server.requests("POST", "/dialogue/score_group")
        assert.strictEqual(posts.length, 2)
        assert.strictEqual(posts[1]?.body.task_id, "task-2")
      }))
    )
  })

  it.effect("a stream lost before its task_id is sent again: scoring changes nothing on the server", () => {
    const { run, server } = fake()
    server.fail("POST /dialogue/score_group", { kind: "drop-before-task-id" })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(s.scoreGroup([conversation("a")]))
        yield* advance("600 millis")
        assert.strictEqual((yield* Fiber.join(fiber)).length, 1)
        assert.strictEqual(server.runs.get("score_group"), 2)
      }))
    )
  })

  it.effect("scoring that raised: ScoreGroupFailed with the server's text; the session is not terminated", () => {
    const { run, server } = fake()
    server.scoring = "raise"
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const error = yield* Effect.flip(s.scoreGroup([conversation("a")]))
        assert.deepStrictEqual(
          error,
          new ClientError.ScoreGroupFailed({
            environment: "dialogue",
            detail: "JudgeFailure: the judge gave no verdict it could read"
          })
        )
        assert.isTrue(Option.isNone(yield* s.terminated))
        assert.strictEqual((yield* s.callTool("submit")).blocks.length, 1)
      }))
    )
  })

  it.effect("a server before message_block_types: rich candidates are refused before anything is sent", () => {
    const { run, server } = fake()
    server.blockTypes = false
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const error = yield* Effect.flip(s.scoreGroup([conversation("plain"), rich]))
        assert.strictEqual(error._tag, "ScoreGroupUnsupported")
        if (error._tag === "ScoreGroupUnsupported") {
          assert.deepStrictEqual(error.blockTypes, ["reasoning", "tool_call", "tool_result"])
          assert.include(error.message, "does not accept \"reasoning\", \"tool_call\", \"tool_result\" blocks")
        }
        assert.strictEqual(server.runs.get("score_group"), undefined)
        // Text and image candidates go through.
        assert.strictEqual((yield* s.scoreGroup([conversation("plain")])).length, 1)
      }))
    )
  })

  it.effect("a server that scores no groups (404): ScoreGroupUnsupported; supportsScoreGroup says so first", () => {
    const { run, server } = fake()
    server.scoring = "none"
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        assert.isFalse(yield* s.supportsScoreGroup)
        const error = yield* Effect.flip(s.scoreGroup([conversation("a")]))
        assert.strictEqual(error._tag, "ScoreGroupUnsupported")
        assert.isTrue(Option.isNone(yield* s.terminated))
      }))
    )
  })

  it.effect("the redirect policy holds: a redirect to another origin is refused, nothing sent there", () => {
    const { run, server } = fake()
    server.fail("POST /dialogue/score_group", {
      kind: "status",
      status: 307,
      body: "",
      headers: { location: "http://elsewhere.test/dialogue/score_group" }
    })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const error = yield* Effect.flip(s.scoreGroup([conversation("a")]))
        assert.strictEqual(error._tag, "RedirectRefused")
        // The fake answers every host: a followed redirect would have reached it and scored.
        assert.strictEqual(server.requests("POST", "/dialogue/score_group").length, 1)
        assert.strictEqual(server.runs.get("score_group"), undefined)
      }))
    )
  })

  it.effect("an answer larger than maxResponseBytes is a MalformedResponse, as for /call", () => {
    const { run } = fake({ maxResponseBytes: 2000 })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const many = Array.from({ length: 100 }, (_, k) => conversation(`reply ${k}`))
        const exit = yield* Effect.exit(s.scoreGroup(many))
        assert.isTrue(Exit.isFailure(exit))
        if (Exit.isFailure(exit) && exit.cause._tag === "Fail") {
          assert.strictEqual(exit.cause.error._tag, "MalformedResponse")
        }
      }))
    )
  })

  it.effect("the terminal tool an older or another server advertises is read as given", () => {
    const { run, server } = fake()
    server.terminal = { name: "submit", arg: null }
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const s = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        assert.deepStrictEqual(yield* s.terminalTool, Option.some({ name: "submit", arg: null, description: "" }))
        yield* s.callTerminalTool("dropped")
        assert.deepStrictEqual(server.requests("POST", "/dialogue/call")[0]?.body, { name: "submit", input: {} })
      }))
    )
  })
})
