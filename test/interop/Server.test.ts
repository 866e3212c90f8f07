/**
 * The reference Python client (openreward 0.1.167) drives our server, and the reference Python
 * server serving the same environments written in Python (fixtures/server/envs.py); what the client
 * sees must be the same from both: splits and tasks, tool lists in every format, sessions, prompts,
 * messages in every format, tool calls with rewards and `finished`, and errors.
 *
 * Known, deliberate differences are normalised before comparing, and each is asserted on its own:
 * pydantic's `title`s in input schemas (ours have none, and say `additionalProperties: false`), and
 * pydantic's `url` in validation error texts.
 *
 * The grading paths (issue 21 part 7): the reference client's `terminal_tool`,
 * `call_terminal_tool`, `supports_score_group` and `score_group` (rich candidates, metadata, a failed
 * group, an environment with neither) see the same from our twins of the client suite's
 * environments as from the reference server serving them (fixtures/client/reference_grading.py), and
 * its `score_group` reads the scores of an environment that ranks with our pairwise judge.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { execFile, spawn } from "node:child_process"
import { createServer } from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import * as Block from "openreward-effect/Block"
import * as Environment from "openreward-effect/Environment"
import * as Judge from "openreward-effect/Judge"
import * as Message from "openreward-effect/Message"
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"
import { environments } from "../../examples/support.js"

const root = path.resolve(__dirname, "../..")
const fixtures = path.join(root, "test/interop/fixtures/server")
const python = process.env["OPENREWARD_PYTHON"] ?? path.join(root, ".venv-ref/bin/python")

/** The TypeScript twin of fixtures/server/envs.py's `Faulty`. */
const Faulty = Environment.make({
  name: "Faulty",
  splits: ["test"],
  tasks: { test: [0, 1, 2, 3, 4].map((n) => ({ n })) },
  prompt: () => [Block.text("Look:"), Block.image("iVBORw0KGgo=", "image/png")],
  tools: [
    Tool.make("crash", { description: "Always fails.", handler: () => Effect.die(new Error("the tool crashed")) }),
    Tool.make("secret", {
      description: "Tells whether a secret arrived.",
      handler: (_, session: Environment.Session) =>
        Tool.output(`token=${session.secrets["token"] === undefined ? "missing" : "set"}`, {
          metadata: { keys: Object.keys(session.secrets).sort() }
        })
    })
  ]
})

const freePort = Effect.async<number>((resume) => {
  const probe = net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as net.AddressInfo
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** The reference server on a free port, stopped when the scope closes. */
const referenceServer = Effect.gen(function*() {
  const port = yield* freePort
  yield* Effect.acquireRelease(
    Effect.sync(() =>
      spawn(python, ["-m", "uvicorn", "envs:app", "--host", "127.0.0.1", "--port", String(port)], {
        cwd: fixtures,
        stdio: "ignore"
      })
    ),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )
  const url = `http://127.0.0.1:${port}`
  yield* Effect.tryPromise(() => fetch(`${url}/health`)).pipe(
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("60 seconds")))
  )
  return url
})

/** Our server on a free port, stopped when the scope closes. */
const ourServer = Effect.gen(function*() {
  const context = yield* Layer.build(
    Server.layer([...environments, Faulty]).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const server = yield* Effect.provide(HttpServer.HttpServer, context)
  const address = server.address as HttpServer.TcpAddress
  return `http://127.0.0.1:${address.port}`
})

const drive = (url: string) =>
  Effect.async<Record<string, any>, Error>((resume) => {
    execFile(
      python,
      [path.join(fixtures, "drive.py"), url],
      { timeout: 110_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null) resume(Effect.fail(new Error(`drive.py against ${url} failed: ${stderr}`)))
        else resume(Effect.succeed(JSON.parse(stdout)))
      }
    )
  })

/** Remove what legitimately differs: pydantic's titles, our `additionalProperties`, pydantic's error `url`s, ids, ports. */
const normalise = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(normalise)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== "title" && k !== "additionalProperties")
        .map(([k, v]) => [k, normalise(v)])
    )
  }
  if (typeof value === "string") {
    return value
      .replace(/, 'url': 'https:\/\/errors\.pydantic\.dev[^']*'/g, "")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<sid>")
      .replace(/127\.0\.0\.1:\d+/g, "<host>")
  }
  return value
}

// -----------------------------------------------------------------------------
// the grading paths: twins of fixtures/client/envs.py's GradedEnv and ConversationEnv, and a judge
// -----------------------------------------------------------------------------

const support = [Message.system("You are a support agent for Acme."), Message.user("My order #4411 hasn't arrived.")]

const textOf = (messages: ReadonlyArray<Message.Message>): string =>
  messages.flatMap((m) => m.blocks.flatMap((b) => b.type === "text" ? [b.text] : [])).join(" ")

/** The TypeScript twin of fixtures/client/envs.py's `GradedEnv`. */
const Graded = Environment.make({
  name: "GradedEnv",
  splits: ["train"],
  tasks: { train: [{ id: "reply" }] },
  messages: () => support,
  tools: [
    Tool.make("lookup_order", {
      description: "Look up an order.",
      input: Schema.Struct({ id: Schema.String }),
      handler: ({ id }) => Tool.output(`order ${id}: stalled at hub`)
    }),
    Tool.make("reply", {
      description: "The final reply to the customer.",
      terminal: true,
      input: Schema.Struct({ message: Schema.String }),
      handler: ({ message }) => Tool.output("Reply sent.", { reward: message.includes("4411") ? 1 : 0, finished: true })
    })
  ],
  scoreGroup: (candidates) =>
    Effect.forEach(candidates, (candidate, index) => {
      const text = textOf(candidate.messages)
      if (text.includes("???")) return Effect.die(new Error(`no verdict for candidate ${index}`))
      const shape = candidate.messages.map((m) => `${m.role}:${m.blocks.map((b) => b.type).join("+")}`).join(" ")
      return Effect.succeed({
        reward: text.includes("4411") ? 1 : 0,
        metadata: { index, echo: candidate.metadata, shape }
      })
    })
})

/** `ConversationEnv`'s part that matters here: no terminal tool, no group scoring. */
const Plain = Environment.make({
  name: "ConversationEnv",
  splits: ["train"],
  tasks: { train: [{ id: "rich" }] },
  messages: () => support,
  tools: [Tool.make("answer", { description: "Submit the final answer.", handler: () => Tool.output("recorded") })]
})

/** Ranks with the pairwise judge; the judge's model prefers the reply naming the order, and cannot decide "???". */
const Judged = Environment.make({
  name: "JudgedEnv",
  splits: ["train"],
  tasks: { train: [{ id: "reply" }] },
  messages: () => support,
  tools: [Tool.make("reply", { description: "Reply.", handler: () => Tool.output("sent") })],
  scoreGroup: (candidates) => Judge.scoreGroup(candidates, { context: support })
})

const judgeModel = LanguageModel.make({
  generateText: ({ prompt }) => {
    const user = prompt.content[1]!
    const text = user.role === "user" ? user.content.map((p) => (p.type === "text" ? p.text : "")).join("\n") : ""
    const [, a = "", b = ""] = text.split(/<candidate_[ab]>/)
    if (text.includes("???")) return Effect.succeed([{ type: "text", text: "I cannot tell." }])
    const winner = a.includes("4411") === b.includes("4411") ? "tie" : a.includes("4411") ? "A" : "B"
    return Effect.succeed([{ type: "text", text: `{"winner": "${winner}"}` }])
  },
  streamText: () => {
    throw new Error("not used")
  }
})

/** Our server with the grading environments, stopped when the scope closes. */
const ourGradingServer = Effect.gen(function*() {
  const context = yield* Layer.build(
    Server.layer([Graded, Plain, Judged]).pipe(
      Layer.provide(Judge.layerPairwise({ seed: 1, maxAttempts: 2 })),
      Layer.provide(Layer.effect(LanguageModel.LanguageModel, judgeModel)),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const server = yield* Effect.provide(HttpServer.HttpServer, context)
  const address = server.address as HttpServer.TcpAddress
  return `http://127.0.0.1:${address.port}`
})

/** The reference server of the client suite (fixtures/client/serve.py), which serves `GradedEnv`. */
const referenceGradingServer = Effect.gen(function*() {
  const port = yield* freePort
  yield* Effect.acquireRelease(
    Effect.sync(() =>
      spawn(python, [path.join(root, "test/interop/fixtures/client/serve.py"), "--port", String(port)], {
        cwd: root,
        stdio: "ignore"
      })
    ),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )
  const url = `http://127.0.0.1:${port}`
  yield* Effect.tryPromise(() => fetch(`${url}/health`)).pipe(
    Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("60 seconds")))
  )
  return url
})

const grading = (url: string, ...args: ReadonlyArray<string>) =>
  Effect.async<Record<string, any>, Error>((resume) => {
    execFile(
      python,
      [path.join(root, "test/interop/fixtures/client/reference_grading.py"), url, ...args],
      { timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null) resume(Effect.fail(new Error(`reference_grading.py against ${url} failed: ${stderr}`)))
        else resume(Effect.succeed(JSON.parse(stdout)))
      }
    )
  })

describe("reference client against our server: terminal tools and score_group", () => {
  it.live(
    "call_terminal_tool and score_group see what they see from the reference server; the judge scores a group",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const [ours, theirs] = yield* Effect.all([ourGradingServer, referenceGradingServer])
        const [got, want] = yield* Effect.all([grading(ours, "judged"), grading(theirs)], { concurrency: 2 })

        // The grading scenario ran, on both servers alike.
        assert.deepStrictEqual(want["called"].reward, 1)
        assert.deepStrictEqual(want["failed"], { error: "ScoreGroupFailed" })
        const { judged, judgedFailed, judgedSupports, ...rest } = got
        assert.deepStrictEqual(Object.keys(rest).sort(), Object.keys(want).sort())
        for (const key of Object.keys(want)) assert.deepStrictEqual(rest[key], want[key], key)

        // The judge-backed environment: the reference client reads the judge's scores and their games.
        assert.strictEqual(judgedSupports, true)
        assert.deepStrictEqual(judged.map((s: { reward: number }) => s.reward), [0.25, 1, 0.25])
        assert.deepStrictEqual(judged[1].metadata, {
          topology: "round_robin",
          aggregator: "winrate",
          games: [{ opponent: 0, result: "win" }, { opponent: 2, result: "win" }]
        })
        // A judge that never gives a verdict: the reference client's ScoreGroupFailed, with the JudgeFailure's message.
        assert.strictEqual(judgedFailed.error, "ScoreGroupFailed")
        assert.include(judgedFailed.text, "the pairwise judge gave no verdict it could read in 2 attempt(s)")
      })),
    { timeout: 120_000 }
  )
})

describe("reference client against our server", () => {
  // Live: the servers and the client are real processes on real time.
  it.live("sees what it sees from the reference server", () =>
    Effect.scoped(Effect.gen(function*() {
      const [ours, theirs] = yield* Effect.all([ourServer, referenceServer])
      const [got, want] = yield* Effect.all([drive(ours), drive(theirs)], { concurrency: 2 })

      // The scenario really ran: rewards, refusals, failures and conversions are all there.
      assert.deepStrictEqual(got["dialogue.right"].ok, {
        __type__: "ToolOutput",
        blocks: [{ detail: null, text: "Reply accepted.", type: "text" }],
        metadata: null,
        reward: 1,
        finished: true
      })
      assert.strictEqual(got["dialogue.after"].reason, "episode_finished")
      assert.strictEqual(got["dialogue.unknown"].reason, "not_found")
      assert.strictEqual(got["dialogue.invalid"].reason, "input_validation")
      assert.strictEqual(got["faulty.crash"].error, "ToolFailed")
      assert.strictEqual(got["faulty.after_crash"].error, "SessionTerminatedError")
      assert.deepStrictEqual(got["faulty.secret"].ok.metadata, { keys: ["OPENREWARD_API_KEY", "api_key", "token"] })
      assert.strictEqual(got["transcript.messages.google"].error, "ValueError")
      assert.strictEqual(got["transcript.messages.openai"].ok[1].tool_calls[0].function.name, "lookup_order")

      // The deliberate differences, each as expected.
      assert.deepStrictEqual(got["dialogue.tools.None"].ok[0].input_schema, {
        type: "object",
        required: ["answer"],
        properties: { answer: { type: "string", description: "The next assistant message." } },
        additionalProperties: false
      })
      assert.strictEqual(want["dialogue.tools.None"].ok[0].input_schema.title, "Reply")
      assert.notInclude(got["dialogue.invalid"].text, "errors.pydantic.dev")
      assert.include(want["dialogue.invalid"].text, "errors.pydantic.dev")

      // Everything else is identical, key by key.
      assert.deepStrictEqual(Object.keys(got).sort(), Object.keys(want).sort())
      for (const key of Object.keys(want)) {
        assert.deepStrictEqual(normalise(got[key]), normalise(want[key]), key)
      }
    })), { timeout: 120_000 })
})
