/**
 * The reference Python client (openreward 0.1.167) drives our server, and the reference Python
 * server serving the same environments written in Python (fixtures/server/envs.py); what the client
 * sees must be the same from both: splits and tasks, tool lists in every format, sessions, prompts,
 * messages in every format, tool calls with rewards and `finished`, and errors.
 *
 * Known, deliberate differences are normalised before comparing, and each is asserted on its own:
 * pydantic's `title`s in input schemas (ours have none, and say `additionalProperties: false`), and
 * pydantic's `url` in validation error texts.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import { execFile, spawn } from "node:child_process"
import { createServer } from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import * as Block from "openreward-effect/Block"
import * as Environment from "openreward-effect/Environment"
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
