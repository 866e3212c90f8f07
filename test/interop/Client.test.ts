/**
 * The client against the reference Python server (run by `npm run test:interop`, which points
 * `OPENREWARD_PYTHON` at a venv holding openreward 0.1.167).
 *
 * Two reference servers are started on free loopback ports, serving the environments of
 * `fixtures/client/envs.py`: a current one, and a legacy one without the `/messages` route (a
 * server before reference 0.1.157). The reference Python client reads every task of both
 * environments from each server (`fixtures/client/reference_client.py`); this client reads the same
 * things in the same order, and the two readings must agree: conversations in every format (byte
 * for byte where the reference serializes), tool lists in every format, prompts, tool results,
 * refusals and failures. The servers are stopped when the suite ends.
 *
 * The grading paths too (issue 21 part 7): an environment with a `@terminal` tool and
 * `score_group`, read by the reference client (`fixtures/client/reference_grading.py`) and by this
 * one (terminal tool, `isAssistantMessageFinal`, `callTerminalTool`, `supportsScoreGroup`,
 * `scoreGroup` with rich candidates and metadata, a failed group, an environment with neither), and
 * an `Episode.run` whose final turn gets the terminal tool's reward, as the reference harness does.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Command from "@effect/platform/Command"
import * as HttpClient from "@effect/platform/HttpClient"
import { assert, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import * as Net from "node:net"
import { fileURLToPath } from "node:url"
import * as Block from "openreward-effect/Block"
import * as Client from "openreward-effect/Client"
import * as Conversation from "openreward-effect/Conversation"
import * as Episode from "openreward-effect/Episode"
import * as Message from "openreward-effect/Message"
import * as Provider from "openreward-effect/Provider"
import * as ToolFormat from "openreward-effect/ToolFormat"

const root = fileURLToPath(new URL("../../", import.meta.url))
const fixtures = "test/interop/fixtures/client"

const python = Effect.suspend(() => {
  const python = process.env["OPENREWARD_PYTHON"]
  return python === undefined || python === ""
    ? Effect.dieMessage("OPENREWARD_PYTHON is not set: run this suite with npm run test:interop")
    : Effect.succeed(python)
})

const freePort = Effect.async<number>((resume) => {
  const server = Net.createServer()
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as Net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

/** A reference server on a free port, stopped (killed) when the scope closes. */
const referenceServer = (legacy: boolean) =>
  Effect.gen(function*() {
    const port = yield* freePort
    const args = [`${fixtures}/serve.py`, "--port", String(port), ...(legacy ? ["--legacy"] : [])]
    const process = yield* Command.make(yield* python, ...args).pipe(Command.workingDirectory(root), Command.start)
    // Drain its output (it logs every request), keeping the tail for a failure message.
    const output = yield* Ref.make("")
    yield* Effect.forkScoped(
      Stream.merge(process.stdout, process.stderr).pipe(
        Stream.decodeText(),
        Stream.runForEach((text) => Ref.update(output, (o) => (o + text).slice(-20_000)))
      )
    )
    const url = `http://127.0.0.1:${port}`
    const http = yield* HttpClient.HttpClient
    yield* http.get(`${url}/health`).pipe(
      Effect.flatMap((response) => response.status === 200 ? Effect.void : Effect.fail("not ready")),
      Effect.retry(Schedule.spaced("200 millis").pipe(Schedule.compose(Schedule.recurs(150)))),
      Effect.catchAll(() =>
        Effect.flatMap(Ref.get(output), (o) => Effect.dieMessage(`the reference server did not start:\n${o}`))
      )
    )
    return url
  })

/** What the reference Python client reads from a server. */
const referenceReading = (url: string) =>
  Effect.gen(function*() {
    const text = yield* Command.make(yield* python, `${fixtures}/reference_client.py`, url).pipe(
      Command.workingDirectory(root),
      Command.string
    )
    return JSON.parse(text) as Record<string, Entry>
  })

interface Entry {
  readonly messages: Record<string, { readonly ok: unknown } | { readonly error: string }>
  readonly tools: Record<string, unknown>
  readonly [key: string]: unknown
}

const tasks = [
  { label: "conversation", name: "conversationenv", variant: undefined, count: 3 },
  { label: "prompt", name: "promptenv", variant: "promptenv", count: 1 }
] as const

/** This client's reading of a server, in the reference reading's shape and order. */
const ourReading = Effect.gen(function*() {
  const client = yield* Client.Client
  const out: Record<string, Entry & { readonly source: string }> = {}
  for (const { count, label, name, variant } of tasks) {
    const env = client.environment(name, { variant })
    for (let index = 0; index < count; index++) {
      const entry: Record<string, unknown> = yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* env.session({ split: "train", index })
        const entry: Record<string, unknown> = { messages: {}, tools: {} }
        const messages = entry.messages as Record<string, unknown>
        for (const format of ["none", ...Provider.all] as const) {
          const read = yield* Effect.either(session.getMessages({ format }))
          messages[format] = Either.isRight(read)
            ? { ok: format === "none" ? Conversation.encode(read.right as Conversation.Conversation) : read.right }
            : { error: read.left._tag === "ConversionFailed" ? read.left.error._tag : read.left.message }
        }
        const toolsOut = entry.tools as Record<string, unknown>
        toolsOut.none = yield* session.listTools()
        for (const format of ["openai", "openrouter", "anthropic", "google"] as const) {
          toolsOut[format] = yield* session.listTools({ format })
        }
        entry.source = (yield* session.readMessages).source
        entry.prompt = yield* session.getPrompt
        if (label === "conversation") {
          entry.lookup = yield* session.callTool("lookup_order", { id: "7" })
          entry.secrets = yield* session.callTool("secrets_seen")
        }
        const refused = yield* Effect.flip(session.callTool("nope"))
        if (refused._tag === "ToolCallError") entry.refused = { reason: refused.reason, detail: refused.detail }
        entry.answer = yield* session.callTool("answer", { text: "4" })
        const finished = yield* Effect.flip(session.callTool("answer", { text: "5" }))
        if (finished._tag === "ToolCallError") entry.finished = { reason: finished.reason, detail: finished.detail }
        return entry
      }))
      if (label === "conversation" && index === 0) {
        yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* env.session({ split: "train", index })
          const explode = yield* Effect.flip(session.callTool("explode"))
          if (explode._tag === "ToolFailed") entry.explode = "ToolFailed"
          const after = yield* Effect.flip(session.getPrompt)
          if (after._tag === "SessionTerminated") entry.afterExplode = "SessionTerminatedError"
        }))
      }
      out[`${label}/${index}`] = entry as Entry & { readonly source: string }
    }
  }
  return out
})

/** What the reference Python client reads of the grading paths (fixtures/client/reference_grading.py). */
const referenceGrading = (url: string) =>
  Effect.gen(function*() {
    const text = yield* Command.make(yield* python, `${fixtures}/reference_grading.py`, url).pipe(
      Command.workingDirectory(root),
      Command.string
    )
    return JSON.parse(text) as Record<string, unknown>
  })

/** The candidates reference_grading.py sends: plain, rich with metadata, and a bare conversation. */
const candidates: ReadonlyArray<Client.Candidate> = [
  { messages: [Message.assistant("Please wait.")], metadata: { rollout: 0 } },
  {
    messages: [
      Message.user("Where is it?"),
      Message.assistant([Block.reasoning("Check."), Block.toolCall("c1", "lookup_order", { id: "4411" })]),
      Message.user([Block.toolResult("c1", [Block.text("at the hub")])]),
      Message.assistant("Order #4411 ships tomorrow.")
    ],
    metadata: { rollout: 1, tags: ["x"] }
  },
  [Message.assistant("It's coming.")]
]

/** This client's reading of the grading paths, in the reference reading's shape. */
const ourGrading = Effect.gen(function*() {
  const client = yield* Client.Client
  const out: Record<string, unknown> = {}
  yield* Effect.scoped(Effect.gen(function*() {
    const session = yield* client.environment("gradedenv", { variant: "gradedenv" }).session({
      split: "train",
      index: 0
    })
    out.terminal = Option.getOrNull(yield* session.terminalTool)
    out.final = yield* session.isAssistantMessageFinal
    out.supports = yield* session.supportsScoreGroup
    out.tools = (yield* session.listTools()).map((t) => t.name)
    out.scores = yield* session.scoreGroup(candidates)
    out.failed = { error: (yield* Effect.flip(session.scoreGroup([[Message.assistant("???")]])))._tag }
    out.called = yield* session.callTerminalTool("Order #4411 ships tomorrow.")
  }))
  yield* Effect.scoped(Effect.gen(function*() {
    const session = yield* client.environment("conversationenv", { variant: "conversationenv" }).session({
      split: "train",
      index: 0
    })
    out.plainTerminal = Option.getOrNull(yield* session.terminalTool)
    out.plainFinal = yield* session.isAssistantMessageFinal
    out.plainSupports = yield* session.supportsScoreGroup
    out.plainScore = { error: (yield* Effect.flip(session.scoreGroup(candidates.slice(0, 1))))._tag }
    out.plainCall = { error: (yield* Effect.flip(session.callTerminalTool("hello")))._tag }
  }))
  return out
})

class Servers extends Context.Tag("test/interop/Client/Servers")<Servers, {
  readonly current: string
  readonly legacy: string
}>() {}

const ServersLive = Layer.scoped(
  Servers,
  Effect.all({ current: referenceServer(false), legacy: referenceServer(true) }, { concurrency: 2 })
).pipe(Layer.provide(NodeHttpClient.layerUndici))

const Live = Layer.mergeAll(ServersLive, NodeHttpClient.layerUndici).pipe(Layer.provideMerge(NodeContext.layer))

const readBoth = (url: string) =>
  Effect.all({
    reference: referenceReading(url),
    ours: Effect.provide(ourReading, Client.layer({ baseUrl: url, apiKey: "" }))
  })

/** Compare one task's readings; `what` names it in failures. */
const compare = (what: string, reference: Entry, ours: Entry) => {
  for (const [format, expected] of Object.entries(reference.messages)) {
    const actual = ours.messages[format]
    if ("error" in expected) {
      assert.isTrue(actual !== undefined && "error" in actual, `${what}: ${format} should fail: ${expected.error}`)
      // Where the reference raises ValueError, this client fails with the codec's typed error.
      assert.notStrictEqual((actual as { error: string }).error, "", what)
    } else if (format === "none") {
      // Canonical messages: compare as values (the reference's client builds its dicts in another key order).
      assert.deepStrictEqual(actual, expected, `${what}: ${format}`)
    } else {
      // Provider shapes: byte for byte, key order included.
      assert.strictEqual(JSON.stringify(actual), JSON.stringify(expected), `${what}: ${format}`)
    }
  }
  for (const [format, expected] of Object.entries(reference.tools)) {
    assert.strictEqual(JSON.stringify(ours.tools[format]), JSON.stringify(expected), `${what}: tools ${format}`)
  }
  for (const key of ["prompt", "lookup", "secrets", "refused", "answer", "finished", "explode", "afterExplode"]) {
    assert.deepStrictEqual(ours[key], reference[key], `${what}: ${key}`)
  }
}

layer(Live, { timeout: 120_000, excludeTestServices: true })("client against the reference server", (it) => {
  it.effect("(b) reads what the reference client reads, in every format", () =>
    Effect.gen(function*() {
      const { current } = yield* Servers
      const { ours, reference } = yield* readBoth(current)
      assert.deepStrictEqual(Object.keys(ours), Object.keys(reference))
      for (const [key, expected] of Object.entries(reference)) compare(key, expected, ours[key]!)
      // The conversation environment served rich conversations through /messages.
      assert.strictEqual(ours["conversation/0"]!.source, "messages")
      assert.strictEqual(
        (reference["conversation/0"]!.messages.google as { error: string }).error.includes("reasoning"),
        true
      )
      assert.deepStrictEqual((ours["conversation/0"]!.messages.google as { error: string }).error, "UnsupportedBlock")
      assert.strictEqual(ours["prompt/0"]!.source, "messages")
    }))

  it.effect("(c) a server without /messages: the prompt as one user message, as the reference client does", () =>
    Effect.gen(function*() {
      const { legacy } = yield* Servers
      const { ours, reference } = yield* readBoth(legacy)
      for (const [key, expected] of Object.entries(reference)) compare(key, expected, ours[key]!)
      for (const entry of Object.values(ours)) assert.strictEqual(entry.source, "prompt")
      // The conversation environment's /prompt is its flattening, wrapped as one user message.
      const conversation = (ours["conversation/0"]!.messages.none as { ok: ReadonlyArray<{ role: string }> }).ok
      assert.deepStrictEqual(conversation.map((m) => m.role), ["user"])
    }))

  it.effect("environment-level calls read the reference server's tasks and tools", () =>
    Effect.gen(function*() {
      const { current } = yield* Servers
      yield* Effect.gen(function*() {
        const client = yield* Client.Client
        const env = client.environment("conversationenv")
        assert.deepStrictEqual(yield* env.splits, [{ name: "train", type: "train" }])
        assert.strictEqual(yield* env.numTasks("train"), 3)
        const tasks = yield* env.tasks("train")
        assert.deepStrictEqual(tasks.map((t) => t.spec.id), ["rich", "plain", "image-result"])
        assert.deepStrictEqual((yield* env.task("train", -1)).spec.id, "image-result")
        assert.deepStrictEqual((yield* env.taskRange("train", { start: 1 })).map((t) => t.spec.id), [
          "plain",
          "image-result"
        ])
        const specs = yield* env.listTools()
        assert.deepStrictEqual(specs.map((t) => t.name), ["answer", "explode", "lookup_order", "secrets_seen"])
        assert.deepStrictEqual(
          yield* env.listTools({ format: "openai-compatible" }),
          Either.getOrThrow(ToolFormat.convert(specs, "openai-compatible"))
        )
        // A session from a Task routes by the task's environment name.
        const prompt = yield* Effect.scoped(Effect.flatMap(
          client.environment("promptenv", { variant: "promptenv" }).session(
            (yield* client.environment("promptenv", { variant: "promptenv" }).tasks("train"))[0]!
          ),
          (session) => session.getPrompt
        ))
        assert.strictEqual(prompt[0]?.type === "text" && prompt[0].text, "What is 2+2?")
      }).pipe(Effect.provide(Client.layer({ baseUrl: current, apiKey: "" })))
    }))

  it.effect("terminal tools and score_group read as the reference client reads them; an episode gets the terminal reward", () =>
    Effect.gen(function*() {
      const { current } = yield* Servers
      const [reference, ours] = yield* Effect.all([
        referenceGrading(current),
        Effect.provide(ourGrading, Client.layer({ baseUrl: current, apiKey: "" }))
      ], { concurrency: 2 })
      // The scenario ran: a terminal tool, scores with their metadata echoed, a failed group, refusals.
      assert.deepStrictEqual(reference["terminal"], {
        name: "reply",
        arg: "message",
        description: "The final reply to the customer."
      })
      assert.deepStrictEqual((reference["scores"] as ReadonlyArray<{ reward: number }>).map((s) => s.reward), [0, 1, 0])
      assert.deepStrictEqual(reference["failed"], { error: "ScoreGroupFailed" })
      assert.deepStrictEqual(reference["plainScore"], { error: "ScoreGroupUnsupported" })
      assert.deepStrictEqual(reference["plainCall"], { error: "ToolCallError" })
      assert.deepStrictEqual(Object.keys(ours).sort(), Object.keys(reference).sort())
      for (const [key, expected] of Object.entries(reference)) assert.deepStrictEqual(ours[key], expected, key)

      // Episode.run: the model's plain final turn goes to the terminal tool, as the reference's harness sends it.
      const episode = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* Client.Client
        const session = yield* client.environment("gradedenv", { variant: "gradedenv" }).session({
          split: "train",
          index: 0
        })
        return yield* Episode.run(session, () =>
          Effect.succeed({
            message: Message.assistant("Order #4411 is at the hub; it ships tomorrow."),
            stopReason: "stop" as const,
            usage: {}
          }))
      })).pipe(Effect.provide(Client.layer({ baseUrl: current, apiKey: "" })))
      assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "reply" })
      assert.deepStrictEqual(episode.rewards, [1])
      assert.deepStrictEqual(episode.calls.map((c) => [c.name, c.input]), [[
        "reply",
        { message: "Order #4411 is at the hub; it ships tomorrow." }
      ]])
    }))

  it.effect("the ToolFormat golden file is what the reference produces now", () =>
    Effect.gen(function*() {
      const code = yield* Command.make(yield* python, "test/fixtures/tool-format/generate.py", "--check").pipe(
        Command.workingDirectory(root),
        Command.exitCode
      )
      assert.strictEqual(code, 0)
    }))
})
