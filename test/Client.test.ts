import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import * as fs from "node:fs"
import * as Http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import * as Block from "openreward-effect/Block"
import * as Client from "openreward-effect/Client"
import * as ClientError from "openreward-effect/ClientError"
import * as Conversation from "openreward-effect/Conversation"
import * as Environment from "openreward-effect/Environment"
import * as Format from "openreward-effect/Format"
import * as Message from "openreward-effect/Message"
import * as Prompt from "openreward-effect/Prompt"
import * as Protocol from "openreward-effect/Protocol"
import * as Provider from "openreward-effect/Provider"
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"
import * as ToolFormat from "openreward-effect/ToolFormat"
import { dialogueMessages, FakeServer, httpClient, plainPrompt, tools } from "./client/FakeServer.js"
import * as TestServer from "./client/TestServer.js"
import { layer } from "./utils/layer.js"

const packageVersion = (JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8")) as {
  version: string
}).version

// -----------------------------------------------------------------------------
// helpers
// -----------------------------------------------------------------------------

const BASE = "http://fake.test"

/** A client on a fresh fake server, in memory. */
const setup = (options?: Client.Options) => {
  const server = new FakeServer()
  const layer = Client.layer({ baseUrl: BASE, apiKey: "key-1", ...options }).pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, httpClient(server)))
  )
  const run = <A, E>(f: (client: Client.Service) => Effect.Effect<A, E>) =>
    Effect.provide(Effect.flatMap(Client.Client, f), layer)
  return { server, run }
}

/** Let the event loop run, so that in-memory responses and fibers make progress. */
const flush = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve))).pipe(Effect.repeatN(3))

/** Move the test clock forward in small steps, letting the event loop run between them. */
const advance = (duration: Duration.DurationInput, step = 100) =>
  Effect.gen(function*() {
    const total = Duration.toMillis(Duration.decode(duration))
    for (let t = 0; t < total; t += step) {
      yield* flush
      yield* TestClock.adjust(Math.min(step, total - t))
    }
    yield* flush
  })

const paths = (server: FakeServer) => server.log.map((r) => `${r.method} ${r.path}`)

/**
 * Wait for `fiber`, whose requests go over real sockets: whenever the client sleeps (a retry's
 * delay; sleeps more than 10 s away, such as the next ping, are left alone), move the test clock
 * to the end of the sleep at once, else let real time pass for the I/O. `step` runs each turn.
 */
const drive = <A, E>(fiber: Fiber.Fiber<A, E>, step: () => Effect.Effect<void> = () => Effect.void) =>
  Effect.gen(function*() {
    for (;;) {
      const exit = yield* Fiber.poll(fiber)
      if (Option.isSome(exit)) return exit.value
      yield* step()
      const now = yield* Clock.currentTimeMillis
      const next = Math.min(...(yield* TestClock.sleeps()))
      if (next <= now + 10_000) yield* TestClock.setTime(next)
      else yield* Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 2)))
    }
  })

const failure = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) assert.fail("expected a failure")
  const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (error === undefined) assert.fail(`expected a typed failure, got ${String(exit.cause)}`)
  return error
}

const dialogue = Conversation.decodeLenient(dialogueMessages)
const dialogueConversation = Either.getOrThrow(dialogue).conversation
const plainConversation = Prompt.toConversation(Either.getOrThrow(Prompt.decodeLenient(plainPrompt)).prompt)

// -----------------------------------------------------------------------------
// against this library's real server
// -----------------------------------------------------------------------------

// Plain protocol behaviour (sessions, tasks, prompt and messages, calls, SSE answers, the errors a
// server answers) runs against the real `Server.layer` on a loopback port: one server for these
// describes, on the live clock, so that a test moving its own TestClock moves only the client's.
// What a test checks of the wire, it reads from the requests the client recorded.
// (`layer` is test/utils/layer.ts: @effect/vitest's `layer()`, wrapped so that it leaves the shared `it`
// as it found it.)

const realPlainConversation = Prompt.toConversation(TestServer.plainPrompt)

/** The tools `dialogue` and `plain` list, as this server writes them (sorted by name). */
const realTools = [
  {
    name: "answer",
    description: "Submit the answer.",
    input_schema: {
      type: "object",
      required: ["text"],
      properties: { text: { type: "string" } },
      additionalProperties: false
    }
  },
  { name: "big", description: "", input_schema: null },
  { name: "explode", description: "", input_schema: null },
  { name: "submit", description: "", input_schema: null }
]

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

layer(TestServer.layer(), { excludeTestServices: true })("Real server", (it) => {
  describe("Environment", () => {
    it.effect("splits, tasks, numTasks, task and taskRange each use a throw-away session id", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect()
        // The platform's naming: a deployment name the server does not list, so bare paths.
        const env = client.environment("acme/support-v2")
        assert.deepStrictEqual(yield* env.splits, [{ name: "train", type: "train" }, { name: "test", type: "test" }])
        const tasks = yield* env.tasks("train")
        assert.strictEqual(tasks.length, 3)
        assert.deepStrictEqual(tasks[0], {
          serverName: "support-v2",
          environmentName: "dialogue",
          namespace: "acme",
          spec: { id: "t0", question: "2+2" }
        })
        assert.strictEqual(yield* env.numTasks("train"), 3)
        assert.deepStrictEqual((yield* env.task("train", -1)).spec, { id: "t2" })
        assert.deepStrictEqual((yield* env.taskRange("train", { start: 1 })).map((t) => t.spec.id), ["t1", "t2"])
        assert.deepStrictEqual((yield* env.taskRange("train", { stop: 1 })).map((t) => t.spec.id), ["t0"])

        // Every call opened a session id and released it; the first asked which environments the server serves.
        assert.strictEqual(requests("POST", "/create_session").length, 6)
        assert.strictEqual(requests("POST", "/delete_session").length, 6)
        assert.strictEqual(requests("GET", "/list_environments").length, 1)
        // Bare paths: the server redirects them (308) to its default environment, method and body kept.
        const tasksCall = requests("POST", "/dialogue/tasks")
        assert.strictEqual(requests("POST", "/tasks").length, 1)
        assert.deepStrictEqual(tasksCall[0]?.body, { split: "train" })
        assert.strictEqual(tasksCall[0]?.headers["x-deployment"], "acme/support-v2")
        assert.strictEqual(tasksCall[0]?.headers["x-api-key"], "key-1")
        assert.match(tasksCall[0]?.headers["x-session-id"] ?? "", uuid)
        // Only the bounds given are sent.
        assert.deepStrictEqual(requests("POST", "/task_range").map((r) => r.body), [
          { split: "train", start: 1 },
          { split: "train", stop: 1 }
        ])
      }))

    it.effect("a variant prefixes every environment path and names the tasks' environment", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect()
        const env = client.environment("plain", { variant: "plain" })
        const [task] = yield* env.tasks("train")
        assert.strictEqual(task?.environmentName, "plain")
        assert.strictEqual(requests("POST", "/plain/tasks").length, 1)
        assert.strictEqual(requests("POST", "/tasks").length, 0)
      }))

    it.effect("listTools, as listed and in every tool format", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer.connect()
        const env = client.environment("dialogue")
        const specs = yield* env.listTools()
        assert.deepStrictEqual(specs, realTools as never)
        for (const format of ToolFormat.formats) {
          assert.deepStrictEqual(yield* env.listTools({ format }), Either.getOrThrow(ToolFormat.convert(specs, format)))
        }
        const kept = yield* env.listTools({ format: "anthropic", preservePropertyNames: true })
        assert.strictEqual(kept[0]?.type, "custom")
      }))

    it.effect("server errors: HttpError with the server's detail", () =>
      Effect.gen(function*() {
        const { baseUrl, client } = yield* TestServer.connect()
        const error = failure(yield* Effect.exit(client.environment("dialogue").task("train", 99)))
        assert.strictEqual(error._tag, "HttpError")
        if (error._tag !== "HttpError") return
        assert.strictEqual(error.status, 400)
        assert.strictEqual(error.detail, "Invalid index")
        assert.strictEqual(error.url, `${baseUrl}/dialogue/task`)
      }))

    it.effect("a name the server lists selects that environment, whichever is the default", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect()
        // `plain` is not the server's default environment (`dialogue` is).
        const env = client.environment("plain")
        const [task] = yield* env.tasks("train")
        assert.strictEqual(task?.environmentName, "plain")
        yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* env.session({ split: "train", index: 0 })
          assert.deepStrictEqual(yield* session.getPrompt, TestServer.plainPrompt)
        }))
        assert.strictEqual(requests("POST", "/plain/tasks").length, 1)
        assert.strictEqual(requests("POST", "/tasks").length, 0)
        assert.deepStrictEqual(requests("POST", "/create")[0]?.body, { split: "train", index: 0, env_name: "plain" })
        assert.strictEqual(requests("GET", "/plain/prompt").length, 1)
        // Names are matched as the server looks them up, ignoring case; a namespace is the platform's.
        yield* client.environment("acme/PLAIN").tasks("train")
        assert.strictEqual(requests("POST", "/plain/tasks").length, 2)
        assert.strictEqual(requests("POST", "/plain/tasks")[1]?.headers["x-deployment"], "acme/PLAIN")
      }))

    it.effect("a name or variant the server does not serve is UnknownEnvironment, listing what it serves", () =>
      Effect.gen(function*() {
        const { baseUrl, client, requests } = yield* TestServer.connect()
        const typo = failure(yield* Effect.exit(client.environment("dialouge").splits))
        assert.deepStrictEqual(
          typo,
          new ClientError.UnknownEnvironment({
            url: baseUrl,
            requested: "dialouge",
            kind: "name",
            served: ["dialogue", "plain"]
          })
        )
        assert.strictEqual(
          typo.message,
          `${baseUrl} does not serve the environment "dialouge"; it serves "dialogue", "plain"`
        )
        const variant = failure(
          yield* Effect.exit(Effect.scoped(
            client.environment("dialogue", { variant: "nope" }).session({ split: "train", index: 0 })
          ))
        )
        assert.deepStrictEqual(
          variant,
          new ClientError.UnknownEnvironment({
            url: baseUrl,
            requested: "nope",
            kind: "variant",
            served: ["dialogue", "plain"]
          })
        )
        // Nothing reached an environment route, and every session id was released.
        assert.strictEqual(requests("POST", "/create").length, 0)
        assert.strictEqual(requests("GET", "/splits").length + requests("GET", "/dialogue/splits").length, 0)
        assert.strictEqual(requests("POST", "/delete_session").length, requests("POST", "/create_session").length)
      }))

    it.effect("a split the environment does not have is UnknownSplit, listing its splits", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer.connect()
        const env = client.environment("dialogue")
        const expected = new ClientError.UnknownSplit({
          environment: "dialogue",
          split: "tset",
          splits: ["train", "test"]
        })
        assert.deepStrictEqual(failure(yield* Effect.exit(env.tasks("tset"))), expected)
        assert.deepStrictEqual(failure(yield* Effect.exit(env.numTasks("tset"))), expected)
        assert.deepStrictEqual(failure(yield* Effect.exit(env.task("tset", 0))), expected)
        assert.deepStrictEqual(failure(yield* Effect.exit(env.taskRange("tset"))), expected)
        assert.deepStrictEqual(
          failure(yield* Effect.exit(Effect.scoped(env.session({ split: "tset", index: 0 })))),
          expected
        )
        assert.strictEqual(
          expected.message,
          `environment "dialogue" has no split "tset"; its splits are "train", "test"`
        )
      }))
  })

  describe("Session lifecycle", () => {
    it.effect("creates, pings every 10 seconds, and deletes when the scope closes", () =>
      Effect.gen(function*() {
        const { client, log, paths, requests, send } = yield* TestServer.connect()
        const env = client.environment("dialogue")
        const sid = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* env.session({ split: "train", index: 1 })
          yield* advance("25 seconds", 1000)
          return session.sid
        }))
        assert.deepStrictEqual(paths(), [
          "POST /create_session",
          "GET /list_environments",
          "POST /create",
          "POST /ping",
          "POST /ping",
          "POST /ping",
          "POST /delete",
          "POST /delete_session"
        ])
        assert.deepStrictEqual(requests("POST", "/create")[0]?.body, { split: "train", index: 1, env_name: "dialogue" })
        // The server no longer holds the session.
        assert.deepStrictEqual(yield* send("POST", "/ping", sid), {
          status: 404,
          body: { detail: "Active environment not found" }
        })
        for (const r of log.slice(1)) assert.strictEqual(r.headers["x-session-id"], sid)
        // The reference sends no X-Deployment on /delete and /delete_session.
        assert.strictEqual(requests("POST", "/delete")[0]?.headers["x-deployment"], undefined)
        // No ping after the scope closed.
        yield* advance("30 seconds", 1000)
        assert.strictEqual(requests("POST", "/ping").length, 3)
      }).pipe(Effect.provide(TestContext.TestContext)))

    it.effect("a Task sends its spec and environment name; a variant session names the environment", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect()
        const env = client.environment("plain", { variant: "plain" })
        const [task] = yield* env.tasks("train")
        // This server has no toolsets: it answers the reference's 400 for an unknown one.
        const toolset = failure(yield* Effect.exit(Effect.scoped(env.session(task!, { toolset: "codex" }))))
        assert.strictEqual(
          toolset._tag === "HttpError" && toolset.detail,
          "unknown toolset 'codex'; valid options are []"
        )
        yield* Effect.scoped(env.session({ split: "train", index: 0 }))
        assert.deepStrictEqual(requests("POST", "/create").map((r) => r.body), [
          { task_spec: { id: "t0", question: "2+2" }, env_name: "plain", toolset_name: "codex" },
          { split: "train", index: 0, env_name: "plain" }
        ])
      }))

    it.effect("secrets travel in X-Secrets (base64 JSON), with the API key as the reference adds it", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect({ apiUrl: "https://api.example.com" })
        yield* Effect.scoped(
          client.environment("dialogue").session({ split: "train", index: 0 }, {
            secrets: {
              OPENAI_API_KEY: "sk-1",
              CUSTOM: "c",
              EXPLICIT: { value: "e", allowedDomains: ["x.example.com"] }
            },
            envOverrides: { OPENAI_BASE_URL: "http://proxy" }
          })
        )
        const header = requests("POST", "/create")[0]?.headers["x-secrets"]
        assert.strictEqual(requests("POST", "/create_session")[0]?.headers["x-secrets"], header)
        assert.deepStrictEqual(requests("POST", "/create_session")[0]?.body, {
          env: { OPENAI_BASE_URL: "http://proxy" }
        })
        const decoded = JSON.parse(Buffer.from(header ?? "", "base64").toString("utf8"))
        const keyDomains = [
          "127.0.0.1",
          "api.example.com",
          "search.openreward.ai",
          // As the reference derives a cluster host from any host of three or more labels, an address too.
          "127.openreward.internal",
          "api.openreward.internal",
          "search.openreward.internal"
        ]
        assert.deepStrictEqual(decoded, {
          OPENAI_API_KEY: { value: "sk-1", allowed_domains: ["api.openai.com"] },
          CUSTOM: { value: "c", allowed_domains: [] },
          EXPLICIT: { value: "e", allowed_domains: ["x.example.com"] },
          api_key: { value: "key-1", allowed_domains: keyDomains },
          OPENREWARD_API_KEY: { value: "key-1", allowed_domains: keyDomains }
        })
      }))

    it.effect("a failed /create still releases the session id", () =>
      Effect.gen(function*() {
        const { baseUrl, client, paths } = yield* TestServer.connect()
        const error = failure(
          yield* Effect.exit(Effect.scoped(
            client.environment("dialogue").session({ split: "train", index: 99 })
          ))
        )
        assert.strictEqual(error.message, `POST ${baseUrl}/create: HTTP 400: Invalid index`)
        // The index is wrong, not the split: the splits are read to tell, and the 400 stands.
        assert.deepStrictEqual(paths(), [
          "POST /create_session",
          "GET /list_environments",
          "POST /create",
          "GET /dialogue/splits",
          "POST /delete_session"
        ])
      }))
  })

  describe("Session.getPrompt and getMessages", () => {
    it.effect("getPrompt, and getMessages in every provider format: the codec's encoding of the conversation", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer.connect()
        const session = yield* client.environment("plain", { variant: "plain" }).session({ split: "train", index: 0 })
        assert.deepStrictEqual(yield* session.getPrompt, TestServer.plainPrompt)
        for (const provider of Provider.all) {
          const wire = yield* session.getMessages({ format: provider })
          assert.deepStrictEqual(wire, Either.getOrThrow(Format.encode(provider, realPlainConversation)))
        }
        assert.deepStrictEqual(yield* session.getMessages({ format: "none" }), realPlainConversation)
      }).pipe(Effect.scoped))

    it.effect("getMessages returns the canonical conversation, from /messages", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect()
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        assert.deepStrictEqual(yield* session.getMessages(), TestServer.dialogueConversation)
        const read = yield* session.readMessages
        assert.strictEqual(read.source, "messages")
        assert.deepStrictEqual(read.skipped, [])
        assert.strictEqual(requests("GET", "/dialogue/messages").length, 2)
        assert.strictEqual(requests("GET", "/dialogue/prompt").length, 0)
      }).pipe(Effect.scoped))

    it.effect("a format that cannot hold the conversation fails with ConversionFailed carrying the codec's error", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer.connect()
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const error = failure(yield* Effect.exit(session.getMessages({ format: "google" })))
        assert.strictEqual(error._tag, "ConversionFailed")
        if (error._tag !== "ConversionFailed") return
        assert.strictEqual(error.error._tag, "UnsupportedBlock")
        assert.deepStrictEqual(
          error.error,
          Either.flip(Format.encode("google", TestServer.dialogueConversation)).pipe(Either.getOrThrow)
        )
        // The session is still usable.
        assert.strictEqual(
          (yield* session.getMessages({ format: "anthropic" })).system,
          "You are a support agent for Acme."
        )
      }).pipe(Effect.scoped))

    it.effect("a 404 that is not about the route still fails: an unknown session is reported, not hidden", () =>
      Effect.gen(function*() {
        const { client, send } = yield* TestServer.connect()
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        // Another client ends the session on the server.
        assert.strictEqual((yield* send("POST", "/delete", session.sid)).status, 200)
        const error = failure(yield* Effect.exit(session.getMessages()))
        assert.strictEqual(error._tag, "HttpError")
        assert.include(error.message, "Active environment not found")
      }).pipe(Effect.scoped))
  })

  describe("Session.listTools", () => {
    it.effect("reads /task_tools, and the block types the server accepts", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect()
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        assert.deepStrictEqual(yield* session.messageBlockTypes, Block.supportedTypes)
        assert.deepStrictEqual(yield* session.listTools(), realTools as never)
        const openrouter = yield* session.listTools({ format: "openrouter" })
        assert.deepStrictEqual(openrouter[0]?.function, { name: "answer", description: "Submit the answer." })
        assert.strictEqual(requests("GET", "/dialogue/task_tools").length, 3)
        assert.strictEqual(requests("GET", "/dialogue/tools").length, 0)
      }).pipe(Effect.scoped))
  })

  describe("Session.callTool", () => {
    it.effect("returns the tool output; a call after the episode finished is refused", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect()
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        assert.deepStrictEqual((yield* session.callTool("submit")).blocks, [Block.text("submitted")])
        assert.deepStrictEqual(requests("POST", "/dialogue/call")[0]?.body, { name: "submit", input: {} })
        const output = yield* session.callTool("answer", { text: "4" })
        assert.deepStrictEqual(output, {
          blocks: [Block.text("you said 4")],
          metadata: { n: 1 },
          reward: 1,
          finished: true
        })
        const call = requests("POST", "/dialogue/call")[1]
        assert.deepStrictEqual(call?.body, { name: "answer", input: { text: "4" } })
        assert.strictEqual(call?.headers.accept, "text/event-stream")
        const after = failure(yield* Effect.exit(session.callTool("submit")))
        assert.strictEqual(after._tag === "ToolCallError" && after.reason, "episode_finished")
      }).pipe(Effect.scoped))

    it.effect("a refused call is a ToolCallError with the server's reason, and the session lives on", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer.connect()
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const error = failure(yield* Effect.exit(session.callTool("nope")))
        assert.deepStrictEqual(
          error,
          new ClientError.ToolCallError({ tool: "nope", reason: "not_found", detail: "'nope' is not a valid tool" })
        )
        const invalid = failure(yield* Effect.exit(session.callTool("answer", { wrong: 1 })))
        assert.strictEqual(invalid._tag === "ToolCallError" && invalid.reason, "input_validation")
        assert.isTrue(Option.isNone(yield* session.terminated))
        yield* session.callTool("submit")
      }).pipe(Effect.scoped))

    it.effect("input that is not a JSON object is refused before any request", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect()
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const error = failure(yield* Effect.exit(session.callTool("answer", [1, 2] as never)))
        assert.deepStrictEqual(
          error,
          new ClientError.ToolCallError({
            tool: "answer",
            reason: "bad_input_shape",
            detail: "Tool input must be a dictionary, got array"
          })
        )
        assert.strictEqual(requests("POST", "/call").length, 0)
      }).pipe(Effect.scoped))

    it.effect("a tool that raises is ToolFailed, and terminates the session: later calls fail, /delete is sent now", () =>
      Effect.gen(function*() {
        const { client, log, requests } = yield* TestServer.connect()
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const error = failure(yield* Effect.exit(session.callTool("explode")))
        // The server sends the exception's message, as the reference sends `str(exc)`.
        assert.deepStrictEqual(error, new ClientError.ToolFailed({ tool: "explode", sid: session.sid, detail: "boom" }))
        yield* flush
        assert.strictEqual(requests("POST", "/delete").length, 1)
        const terminated = new ClientError.SessionTerminated({ sid: session.sid, reason: "boom" })
        assert.deepStrictEqual(yield* session.terminated, Option.some(terminated))
        const sent = log.length
        assert.deepStrictEqual(failure(yield* Effect.exit(session.getPrompt)), terminated)
        assert.deepStrictEqual(failure(yield* Effect.exit(session.callTool("submit"))), terminated)
        assert.strictEqual(log.length, sent)
      }).pipe(Effect.scoped))

    it.effect("a result larger than one event arrives as chunk events and is joined", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer.connect()
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const output = yield* session.callTool("big")
        assert.deepStrictEqual(output.blocks, [Block.text("x".repeat(10_000))])
        assert.strictEqual(output.reward, 0.5)
      }).pipe(Effect.scoped))

    it.effect("a whole session: tasks, messages in a provider format, a large result, then /delete", () =>
      Effect.gen(function*() {
        const { client, paths } = yield* TestServer.connect({ apiKey: "k" })
        const env = client.environment("dialogue")
        const [task] = yield* env.tasks("train")
        const result = yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* env.session(task!)
          return {
            messages: yield* session.getMessages({ format: "anthropic" }),
            output: yield* session.callTool("big")
          }
        }))
        assert.deepStrictEqual(
          result.messages,
          Either.getOrThrow(Format.encode("anthropic", TestServer.dialogueConversation))
        )
        assert.strictEqual(result.output.blocks[0]?.type === "text" && result.output.blocks[0].text.length, 10_000)
        assert.deepStrictEqual(paths().slice(-2), ["POST /delete", "POST /delete_session"])
      }))
  })

  describe("Retries", () => {
    it.effect("a 500 is the environment's own code failing: not retried", () =>
      Effect.gen(function*() {
        const { baseUrl, client, requests } = yield* TestServer.connect()
        // The task has no question: the environment's prompt raises.
        const session = yield* client.environment("plain", { variant: "plain" }).session({ split: "train", index: 2 })
        const error = failure(yield* Effect.exit(session.getPrompt))
        assert.strictEqual(error.message, `GET ${baseUrl}/plain/prompt: HTTP 500: KeyError: 'question'`)
        assert.strictEqual(requests("GET", "/plain/prompt").length, 1)
      }).pipe(Effect.scoped))
  })

  describe("Error mapping", () => {
    it.effect("a string detail, a structured detail", () =>
      Effect.gen(function*() {
        const { client } = yield* TestServer.connect()
        const unknown = failure(
          yield* Effect.exit(Effect.scoped(
            // A task naming an environment the server does not have: the server's own 404.
            client.environment("acme/dialogue-v2").session({
              spec: { id: "t0" },
              environmentName: "nope",
              serverName: "dialogue-v2",
              namespace: "acme"
            })
          ))
        )
        assert.strictEqual(unknown._tag === "HttpError" && unknown.status, 404)
        assert.strictEqual(unknown._tag === "HttpError" && unknown.detail, "unknown environment 'nope'")
        // A 422's list of items is kept as its JSON text.
        const invalid = failure(yield* Effect.exit(client.environment("dialogue").task("train", 1.5)))
        assert.strictEqual(invalid._tag === "HttpError" && invalid.status, 422)
        assert.strictEqual(
          invalid._tag === "HttpError" && invalid.detail,
          JSON.stringify([{
            type: "int_from_float",
            loc: ["body", "index"],
            msg: "Input should be a valid integer, got a number with a fractional part",
            input: 1.5
          }])
        )
      }))
  })

  describe("Configuration", () => {
    it.effect("reads OPENREWARD_SESSION_URL and OPENREWARD_API_KEY when no option says otherwise", () =>
      Effect.gen(function*() {
        const url = yield* TestServer.baseUrl
        const recorded = TestServer.recorder(yield* HttpClient.HttpClient)
        const provider = ConfigProvider.fromMap(
          new Map([["OPENREWARD_SESSION_URL", `${url}/`], ["OPENREWARD_API_KEY", "env-key"]])
        )
        const client = yield* Client.make().pipe(
          Effect.provideService(HttpClient.HttpClient, recorded.http),
          Effect.withConfigProvider(provider)
        )
        assert.strictEqual(client.baseUrl, url)
        yield* client.environment("dialogue").splits
        const [first] = recorded.log
        assert.strictEqual(first?.headers["x-api-key"], "env-key")
        assert.strictEqual(first?.headers["user-agent"], `openreward-effect/${packageVersion}`)
        assert.strictEqual(first?.headers.host, undefined)
      }))

    it.effect("streams send no X-API-Key when the key is empty; plain requests send it empty, as the reference", () =>
      Effect.gen(function*() {
        const { client, requests } = yield* TestServer.connect({ apiKey: "" })
        yield* client.environment("dialogue").splits
        assert.strictEqual(requests("POST", "/create_session")[0]?.headers["x-api-key"], undefined)
        assert.strictEqual(requests("GET", "/dialogue/splits")[0]?.headers["x-api-key"], "")
      }))
  })
})

layer(TestServer.layer({ routeKey: "r1" }), { excludeTestServices: true })("Real server with a route key", (it) => {
  it.effect("a 410 terminates the session at once", () =>
    Effect.gen(function*() {
      const { client, requests, send } = yield* TestServer.connect()
      const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
      assert.match(session.sid, /^r1\./)
      // The session's first ping is answered before the session ends (else the ping meets the 410).
      yield* Effect.repeat(flush, { until: () => requests("POST", "/ping")[0]?.status === 200 })
      // The session ends on the server; an id carrying this replica's route key is then gone (410).
      assert.strictEqual((yield* send("POST", "/delete", session.sid)).status, 200)
      const error = failure(yield* Effect.exit(session.getPrompt))
      assert.deepStrictEqual(
        error,
        new ClientError.SessionTerminated({
          sid: session.sid,
          reason: "server returned 410: Session gone: it ended, or its replica restarted"
        })
      )
      assert.deepStrictEqual(failure(yield* Effect.exit(session.getMessages())), error)
    }).pipe(Effect.scoped))
})

layer(TestServer.layerSlow, { excludeTestServices: true })("Real server with slow setups", (it) => {
  it.effect("a server that is still starting is waited for beyond the retry count", () =>
    Effect.gen(function*() {
      // One ping, at the start: this test moves the clock only to the client's retries.
      const latch = yield* Deferred.make<void>()
      TestServer.slowSetup.latch = latch
      const { client, requests } = yield* TestServer.connect({ pingInterval: "1 hour" })
      const session = yield* client.environment("slow", { variant: "slow" }).session({ split: "train", index: 0 })
      const prompts = () => requests("GET", "/slow/prompt")
      const fiber = yield* Effect.fork(session.getPrompt)
      // The server answers 503 "still starting" (Retry-After: 2) while the setup runs: six times,
      // beyond the three retries, then the setup finishes.
      const exit = yield* drive(fiber, () =>
        prompts().filter((r) => r.status === 503).length === 6
          ? Effect.asVoid(Deferred.succeed(latch, undefined))
          : Effect.void)
      assert.deepStrictEqual(Exit.map(exit, (prompt) => prompt.length), Exit.succeed(2))
      assert.deepStrictEqual(prompts().map((r) => r.status), [503, 503, 503, 503, 503, 503, 200])
      // Each retry waited the Retry-After the server sent.
      assert.strictEqual(yield* Clock.currentTimeMillis, 6 * 2000)
    }).pipe(Effect.scoped, Effect.provide(TestContext.TestContext)))
})

// -----------------------------------------------------------------------------
// against the fake server: answers this library's server never gives
// -----------------------------------------------------------------------------

// Each describe below runs on the in-memory fake (test/client/FakeServer.ts) because what it checks
// is the client's answer to something a real server of this library cannot be made to send: a
// gateway's or proxy's statuses, a stream broken or stalled mid-call, malformed or oddly framed
// bodies, older or newer servers' answers. The comment on each says which.

// Fake: tool specs with a field (`strict`) and a key order this server never writes.
describe("Environment", () => {
  it.effect("listTools keeps the server's key order, which every tool format writes back as the reference does", () => {
    const { run, server } = setup()
    server.toolSpecs = [{ description: "d", name: "f", strict: true, input_schema: { type: "object" } }]
    return run((client) =>
      Effect.gen(function*() {
        const env = client.environment("dialogue")
        assert.deepStrictEqual(Object.keys((yield* env.listTools())[0]!), [
          "description",
          "name",
          "strict",
          "input_schema"
        ])
        const [openai] = yield* env.listTools({ format: "openai" })
        assert.deepStrictEqual(Object.keys(openai!), ["type", "description", "name", "strict", "parameters"])
        const [google] = yield* env.listTools({ format: "google" })
        assert.deepStrictEqual(Object.keys(google!), ["description", "name", "strict", "parameters"])
      })
    )
  })
})

// Fake: a `/delete` answering 400 and a `/delete_session` whose connection is refused.
describe("Session lifecycle", () => {
  it.effect("session errors on close are swallowed", () => {
    const { run, server } = setup()
    server.fail("POST /delete", { kind: "status", status: 400 })
    server.fail("POST /delete_session", { kind: "refuse" }, { kind: "refuse" }, { kind: "refuse" })
    return run((client) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.fork(
          Effect.scoped(client.environment("dialogue").session({ split: "train", index: 0 }))
        )
        yield* advance("5 seconds")
        const exit = yield* Fiber.await(fiber)
        assert.isTrue(Exit.isSuccess(exit))
      })
    )
  })
})

// Fake: blocks of types from a newer server (`video`, `hologram`), and older servers without
// `/messages` (404, also after the redirect of a bare path).
describe("Session.getPrompt and getMessages", () => {
  it.effect("getPrompt keeps text and image blocks and skips the rest", () => {
    const { run } = setup()
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("plain", { variant: "plain" }).session({ split: "train", index: 0 })
        const prompt = yield* session.getPrompt
        assert.deepStrictEqual(prompt.map((b) => b.type), ["text", "image"])
      }))
    )
  })

  it.effect("getMessages returns the canonical conversation, unknown blocks skipped and reported", () => {
    const { run, server } = setup()
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const conversation = yield* session.getMessages()
        assert.deepStrictEqual(conversation, dialogueConversation)
        assert.deepStrictEqual(conversation[1], Message.user("My order #4411 hasn't arrived."))
        const read = yield* session.readMessages
        assert.strictEqual(read.source, "messages")
        assert.deepStrictEqual(read.skipped.map((s) => [s.messageIndex, s.blockIndex, s.blockType]), [[
          1,
          1,
          "hologram"
        ]])
        assert.strictEqual(server.requests("GET", "/dialogue/messages").length, 2)
      }))
    )
  })

  it.effect("getMessages keeps provider blocks, and still skips a block type it does not know", () => {
    const { run, server } = setup()
    const search = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } }
    server.dialogue = [
      { role: "user", blocks: [{ text: "Search.", detail: null, type: "text" }], detail: null },
      {
        role: "assistant",
        blocks: [
          { provider: "anthropic", kind: "server_tool_use", item: search, detail: null, type: "provider" },
          { type: "hologram", frames: 3 },
          { text: "Found.", detail: null, type: "text" }
        ],
        detail: null
      }
    ]
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const conversation = yield* session.getMessages()
        assert.deepStrictEqual(conversation, [
          Message.user("Search."),
          Message.assistant([Block.provider("anthropic", "server_tool_use", search), Block.text("Found.")])
        ])
        const read = yield* session.readMessages
        assert.deepStrictEqual(read.skipped.map((s) => [s.messageIndex, s.blockIndex, s.blockType]), [[
          1,
          1,
          "hologram"
        ]])
      }))
    )
  })

  it.effect("a server without /messages: the prompt as one user message, and /messages is not asked again", () => {
    const { run, server } = setup()
    server.messages = false
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("plain", { variant: "plain" }).session({ split: "train", index: 0 })
        assert.deepStrictEqual(yield* session.getMessages(), plainConversation)
        const read = yield* session.readMessages
        assert.strictEqual(read.source, "prompt")
        assert.deepStrictEqual(read.skipped, [{ messageIndex: 0, blockIndex: 2, path: [2], blockType: "video" }])
        assert.deepStrictEqual(
          yield* session.getMessages({ format: "openai" }),
          Either.getOrThrow(Format.encode("openai", plainConversation))
        )
        assert.strictEqual(server.requests("GET", "/plain/messages").length, 1)
        assert.strictEqual(server.requests("GET", "/plain/prompt").length, 3)
      }))
    )
  })

  it.effect("an old server's bare /messages redirects and then 404s: still the fallback", () => {
    const { run, server } = setup()
    server.messages = false
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        // A platform deployment name the server does not list: bare paths, as the reference sends them.
        const session = yield* client.environment("acme/dialogue-v2").session({ split: "train", index: 0 })
        assert.deepStrictEqual(yield* session.getMessages(), [Message.user("[flattened]")])
        assert.deepStrictEqual(paths(server).filter((p) => p !== "POST /ping").slice(-4), [
          "GET /messages",
          "GET /dialogue/messages",
          "GET /prompt",
          "GET /dialogue/prompt"
        ])
      }))
    )
  })
})

// Fake: an older server without `/task_tools` and without `message_block_types`.
describe("Session.listTools", () => {
  it.effect("falls back to /tools once /task_tools is 404; no message_block_types means text and image", () => {
    const { run, server } = setup()
    server.taskTools = false
    server.blockTypes = false
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("plain", { variant: "plain" }).session({ split: "train", index: 0 })
        assert.deepStrictEqual(yield* session.listTools(), tools as never)
        assert.deepStrictEqual(yield* session.listTools({ format: "google" }), [
          {
            name: "answer",
            description: "Submit the answer.",
            parameters: { properties: { text: { type: "string" } }, required: ["text"], type: "object" }
          },
          { name: "submit", description: "", parameters: null }
        ])
        assert.deepStrictEqual(yield* session.messageBlockTypes, Block.legacyTypes)
        assert.strictEqual(server.requests("GET", "/plain/task_tools").length, 1)
        assert.strictEqual(server.requests("GET", "/plain/tools").length, 2)
      }))
    )
  })
})

// Fake: output blocks of a newer server's types, an older server's refusals without `reason`, a
// result that is not JSON.
describe("Session.callTool", () => {
  it.effect("a newer server's unknown output blocks are skipped", () => {
    const { run } = setup()
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        // The fake's `answer` returns a `sparkle` block after its text.
        const output = yield* session.callTool("answer", { text: "4" })
        assert.deepStrictEqual(output, {
          blocks: [Block.text("you said 4")],
          metadata: { n: 1 },
          reward: 1,
          finished: true
        })
      }))
    )
  })

  it.effect("servers that send no reason: it is read from the error text", () => {
    const { run, server } = setup()
    server.reasons = false
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const invalid = failure(yield* Effect.exit(session.callTool("answer", {})))
        assert.strictEqual(invalid._tag === "ToolCallError" && invalid.reason, "input_validation")
        const missing = failure(yield* Effect.exit(session.callTool("nope")))
        assert.strictEqual(missing._tag === "ToolCallError" && missing.reason, "not_found")
      }))
    )
  })

  it.effect("a result that is not JSON is a MalformedResponse", () => {
    const { run } = setup()
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const error = failure(yield* Effect.exit(session.callTool("bad_json")))
        assert.strictEqual(error._tag, "MalformedResponse")
      }))
    )
  })
})

// Fake: SSE framings this server does not write (CR and CRLF line ends, a keep-alive comment before
// every event, bodies cut into 1- and 7-character reads, results cut into tiny chunks that start
// with spaces).
describe("Server-sent events", () => {
  const framings = [
    { name: "CRLF", eol: "\r\n" },
    { name: "LF", eol: "\n" },
    { name: "CR", eol: "\r" }
  ] as const
  for (const { eol, name } of framings) {
    for (const pieceSize of [undefined, 1, 7]) {
      it.effect(`${name} line ends, ${pieceSize === undefined ? "one read" : `${pieceSize}-character reads`}, keep-alive comments`, () => {
        const { run, server } = setup()
        server.framing = { eol, pieceSize, comments: true, chunkSize: 13 }
        return run((client) =>
          Effect.scoped(Effect.gen(function*() {
            // create_session itself goes through the same framing: its end event carries empty data.
            const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
            assert.match(session.sid, /^sid-\d+$/)
            const output = yield* session.callTool("answer", { text: "4" })
            assert.deepStrictEqual(output.blocks, [Block.text("you said 4")])
          }))
        )
      })
    }
  }

  it.effect("exactly one leading space is stripped from data: chunks may start with spaces", () =>
    Effect.gen(function*() {
      for (const chunkSize of [1, 2, 3, 5, 8, 13]) {
        // The result is Python-style JSON, cut so that some chunks begin with a space.
        const { run, server } = setup()
        server.framing = { eol: "\r\n", chunkSize }
        const output = yield* run((client) =>
          Effect.scoped(Effect.flatMap(
            client.environment("dialogue").session({ split: "train", index: 0 }),
            (session) => session.callTool("spaced")
          ))
        )
        assert.deepStrictEqual(output.blocks, [Block.text("a  b")], `chunk size ${chunkSize}`)
      }
    }))
})

// Fake: a gateway's 429, 502, 503 and 504 (with and without Retry-After, a backend still starting),
// a 500 at a given moment, and refused connections, each scripted for one request.
describe("Retries", () => {
  it.effect("429 then 503, then success: retried after 1 s and 2 s", () => {
    const { run, server } = setup()
    server.fail("GET /plain/prompt", { kind: "status", status: 429 }, { kind: "status", status: 503 })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("plain", { variant: "plain" }).session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(session.getPrompt)
        yield* advance("900 millis")
        assert.strictEqual(server.requests("GET", "/plain/prompt").length, 1)
        yield* advance("1 second")
        assert.strictEqual(server.requests("GET", "/plain/prompt").length, 2)
        yield* advance("2 seconds")
        assert.strictEqual((yield* Fiber.join(fiber)).length, 2)
        assert.strictEqual(server.requests("GET", "/plain/prompt").length, 3)
      }))
    )
  })

  it.effect("gives up after the policy's retries with the last error", () => {
    const { run, server } = setup()
    server.fail(
      "GET /plain/prompt",
      { kind: "status", status: 503 },
      { kind: "status", status: 502 },
      { kind: "status", status: 504 }
    )
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("plain", { variant: "plain" }).session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(Effect.exit(session.getPrompt))
        yield* advance("5 seconds")
        const error = failure(yield* Fiber.join(fiber))
        assert.strictEqual(error._tag === "HttpError" && error.status, 504)
        assert.strictEqual(server.requests("GET", "/plain/prompt").length, 3)
      }))
    )
  })

  it.effect("Retry-After is honoured (capped at 10 s)", () => {
    const { run, server } = setup()
    server.fail("GET /plain/prompt", { kind: "status", status: 429, headers: { "Retry-After": "7" } }, {
      kind: "status",
      status: 429,
      headers: { "Retry-After": "60" }
    })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("plain", { variant: "plain" }).session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(session.getPrompt)
        yield* advance("6900 millis")
        assert.strictEqual(server.requests("GET", "/plain/prompt").length, 1)
        yield* advance("200 millis")
        assert.strictEqual(server.requests("GET", "/plain/prompt").length, 2)
        yield* advance("9800 millis")
        assert.strictEqual(server.requests("GET", "/plain/prompt").length, 2)
        yield* advance("300 millis")
        yield* Fiber.join(fiber)
        assert.strictEqual(server.requests("GET", "/plain/prompt").length, 3)
      }))
    )
  })
})

// Fake: `/call` streams dropped before or after the `task_id` event or stalled mid-call, an error
// status before the stream, and a server that forgot a task mid-call.
describe("Resuming /call", () => {
  it.effect("a connection lost after the task_id is resumed with it: the tool runs once", () => {
    const { run, server } = setup()
    server.fail("POST /dialogue/call", { kind: "drop-after-task-id" })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(session.callTool("answer", { text: "4" }))
        yield* advance("600 millis")
        const output = yield* Fiber.join(fiber)
        assert.strictEqual(output.reward, 1)
        assert.strictEqual(server.runs.get("answer"), 1)
        const calls = server.requests("POST", "/dialogue/call")
        assert.strictEqual(calls.length, 2)
        assert.deepStrictEqual(calls[1]?.body, { name: "answer", input: { text: "4" }, task_id: "task-2" })
      }))
    )
  })

  it.effect("a stream cut right after its task_id every time: the policy's 5 retries, then a TransportError", () => {
    const { run, server } = setup()
    const drop = { kind: "drop-after-task-id" } as const
    server.fail("POST /dialogue/call", drop, drop, drop, drop, drop, drop, drop)
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(Effect.exit(session.callTool("answer", { text: "4" })))
        // The first cut brought the task_id (progress); the same task_id again is none: waits of
        // 0.5, 1, 2, 4 and 8 s, six requests in all.
        yield* advance("15 seconds")
        assert.strictEqual(server.requests("POST", "/dialogue/call").length, 5)
        yield* advance("1 second")
        const error = failure(yield* Fiber.join(fiber))
        assert.strictEqual(error._tag, "TransportError")
        assert.strictEqual(error._tag === "TransportError" && error.retries, 5)
        assert.strictEqual(server.requests("POST", "/dialogue/call").length, 6)
        assert.strictEqual(server.runs.get("answer"), 1)
      }))
    )
  })

  it.effect("a stream silent for 30 s is lost and resumed", () => {
    const { run, server } = setup()
    server.fail("POST /dialogue/call", { kind: "stall-after-task-id" })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(session.callTool("answer", { text: "4" }))
        yield* advance("29 seconds", 500)
        assert.strictEqual(server.requests("POST", "/dialogue/call").length, 1)
        yield* advance("2 seconds")
        assert.strictEqual((yield* Fiber.join(fiber)).reward, 1)
        assert.strictEqual(server.runs.get("answer"), 1)
      }))
    )
  })

  it.effect("a connection lost before the task_id is not retried: the tool may have started", () => {
    const { run, server } = setup()
    server.fail("POST /dialogue/call", { kind: "drop-before-task-id" })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(Effect.exit(session.callTool("answer", { text: "4" })))
        yield* advance("5 seconds")
        const error = failure(yield* Fiber.join(fiber))
        assert.strictEqual(error._tag, "TransportError")
        assert.include(error.message, "could run it twice")
        assert.strictEqual(server.requests("POST", "/dialogue/call").length, 1)
        assert.strictEqual(server.runs.get("answer"), 1)
        // Not a tool failure: the session lives on.
        assert.isTrue(Option.isNone(yield* session.terminated))
      }))
    )
  })

  it.effect("an error status before the stream is retried: the server answered without running the tool", () => {
    const { run, server } = setup()
    server.fail("POST /dialogue/call", { kind: "status", status: 503 }, { kind: "refuse" })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(session.callTool("answer", { text: "4" }))
        yield* advance("2 seconds")
        assert.strictEqual((yield* Fiber.join(fiber)).reward, 1)
        assert.strictEqual(server.runs.get("answer"), 1)
      }))
    )
  })

  it.effect("resuming a task the server forgot is a tool failure", () => {
    const { run, server } = setup()
    server.fail("POST /dialogue/call", { kind: "drop-after-task-id" })
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        const fiber = yield* Effect.fork(Effect.exit(session.callTool("answer", { text: "4" })))
        yield* flush
        server.registry.clear()
        yield* advance("1 second")
        const error = failure(yield* Fiber.join(fiber))
        assert.deepStrictEqual(
          error,
          new ClientError.ToolFailed({ tool: "answer", sid: session.sid, detail: "unknown task_id" })
        )
      }))
    )
  })
})

// Fake: pings that fail (404, 400) at chosen moments while a call's stream stalls.
describe("Termination", () => {
  it.effect("pings that keep failing terminate the session, and interrupt a call in flight", () => {
    const { run, server } = setup()
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        server.pingStatus = 404
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        server.fail("POST /dialogue/call", { kind: "stall-after-task-id" }, { kind: "stall-after-task-id" })
        const call = yield* Effect.fork(Effect.exit(session.callTool("answer", { text: "4" })))
        // Pings at 0, 10, 20, 30 and 40 s fail; the call's stream stalls, is resumed at 30.5 s, stalls again.
        yield* advance("39 seconds", 500)
        assert.isTrue(Option.isNone(yield* session.terminated))
        assert.strictEqual(server.requests("POST", "/dialogue/call").length, 2)
        yield* advance("2 seconds")
        const error = failure(yield* Fiber.join(call))
        assert.strictEqual(error._tag, "SessionTerminated")
        assert.include(error.message, "5 consecutive ping failures")
        assert.include(error.message, "HTTP 404: scripted ping failure")
        assert.deepStrictEqual(failure(yield* Effect.exit(session.getPrompt)), error)
        // No more pings once terminated.
        const pings = server.requests("POST", "/ping").length
        yield* advance("30 seconds", 1000)
        assert.strictEqual(server.requests("POST", "/ping").length, pings)
      }))
    )
  })

  it.effect("a ping success resets the count", () => {
    const { run, server } = setup()
    return run((client) =>
      Effect.scoped(Effect.gen(function*() {
        server.pingStatus = 400
        const session = yield* client.environment("dialogue").session({ split: "train", index: 0 })
        yield* advance("35 seconds", 1000) // pings at 0, 10, 20 and 30 s fail
        server.pingStatus = 200
        yield* advance("10 seconds", 1000)
        server.pingStatus = 400
        yield* advance("40 seconds", 1000)
        assert.isTrue(Option.isNone(yield* session.terminated))
        yield* advance("10 seconds", 1000)
        assert.isTrue(Option.isSome(yield* session.terminated))
      }))
    )
  })
})

// Fake: a gateway's answers (an HTML body, an unknown deployment) and a body that breaks the
// protocol's shape; and the errors' own encoding, with no server.
describe("Error mapping", () => {
  const answer = (status: number, body: string) => {
    const { run, server } = setup()
    server.fail("POST /create_session", { kind: "status", status, body })
    return run((client) => Effect.exit(client.environment("dialogue").splits)).pipe(Effect.map(failure))
  }

  it.effect("a gateway's answers: a body that is not JSON, an unknown deployment", () =>
    Effect.gen(function*() {
      const c = yield* answer(401, "<html>no</html>")
      assert.strictEqual(c._tag === "HttpError" && c.detail, "<html>no</html>")
      const d = yield* answer(404, JSON.stringify({ detail: "Deployment not found." }))
      assert.strictEqual(
        d._tag === "HttpError" && d.detail,
        "Deployment not found. Environment name is case-sensitive, is it correct?"
      )
    }))

  it.effect("a body that does not follow the protocol is a MalformedResponse with a path", () => {
    const { run, server } = setup()
    server.fail("GET /dialogue/splits", {
      kind: "status",
      status: 200,
      body: JSON.stringify([{ name: "train", type: 3 }])
    })
    return run((client) =>
      Effect.gen(function*() {
        const error = failure(yield* Effect.exit(client.environment("dialogue").splits))
        assert.strictEqual(error._tag, "MalformedResponse")
        if (error._tag !== "MalformedResponse") return
        assert.deepStrictEqual(error.path, [0, "type"])
      })
    )
  })

  it.effect("every JSON answer is read by its route's success schema, and a MalformedResponse names the route", () => {
    const { run, server } = setup()
    const cases: ReadonlyArray<{
      readonly route: Protocol.RouteName
      readonly request: string
      readonly body: unknown
      readonly path: ReadonlyArray<string | number>
      readonly run: (env: Client.Environment) => Effect.Effect<unknown, ClientError.ClientError>
    }> = [
      {
        route: "numTasks",
        request: "POST /dialogue/num_tasks",
        body: { num_tasks: "3" },
        path: ["num_tasks"],
        run: (e) => e.numTasks("train")
      },
      {
        route: "tasks",
        request: "POST /dialogue/tasks",
        body: { tasks: [1] },
        path: ["tasks", 0],
        run: (e) => e.tasks("train")
      },
      {
        route: "task",
        request: "POST /dialogue/task",
        body: { task: [] },
        path: ["task"],
        run: (e) => e.task("train", 0)
      },
      {
        route: "taskRange",
        request: "POST /dialogue/task_range",
        body: { tasks: {} },
        path: ["tasks"],
        run: (e) => e.taskRange("train")
      },
      {
        route: "tools",
        request: "GET /dialogue/tools",
        body: { tools: [{ name: 1 }] },
        path: ["tools", 0, "name"],
        run: (e) => e.listTools()
      }
    ]
    for (const c of cases) server.fail(c.request, { kind: "status", status: 200, body: JSON.stringify(c.body) })
    return run((client) =>
      Effect.gen(function*() {
        for (const c of cases) {
          // the route's schema refuses the body, at the same place
          const decoded = Schema.decodeUnknownEither(Protocol.routes[c.route].success as Schema.Schema<unknown>)(c.body)
          assert.isTrue(Either.isLeft(decoded), c.route)
          const error = failure(yield* Effect.exit(c.run(client.environment("dialogue"))))
          assert.strictEqual(error._tag, "MalformedResponse", c.route)
          if (error._tag !== "MalformedResponse") return
          assert.strictEqual(error.route, `/${Protocol.routes[c.route].path}`)
          assert.deepStrictEqual(error.path, c.path, c.route)
        }
      })
    )
  })

  it("errors encode to JSON and back", () => {
    const errors: ReadonlyArray<ClientError.ClientError> = [
      new ClientError.HttpError({ method: "GET", url: "u", status: 404, detail: "d" }),
      new ClientError.TransportError({ method: "POST", url: "u", reason: "r", retries: 2 }),
      new ClientError.MalformedResponse({ method: "GET", url: "u", route: "/splits", path: [0, "a"], reason: "r" }),
      new ClientError.RedirectRefused({
        method: "POST",
        url: "http://a/call",
        status: 307,
        from: "http://a",
        to: "http://b",
        location: "http://b/call",
        reason: "other-origin"
      }),
      new ClientError.UnknownEnvironment({ url: "http://a", requested: "x", kind: "name", served: ["y"] }),
      new ClientError.UnknownSplit({ environment: "e", split: "s", splits: ["train"] }),
      new ClientError.ToolCallError({ tool: "t", reason: "episode_finished", detail: "d" }),
      new ClientError.ToolFailed({ tool: "t", sid: "s", detail: "d" }),
      new ClientError.ScoreGroupUnsupported({ environment: "e", blockTypes: ["tool_call"], detail: "d" }),
      new ClientError.ScoreGroupFailed({ environment: "e", detail: "d" }),
      new ClientError.SessionTerminated({ sid: "s", reason: "r" }),
      new ClientError.ConversionFailed({
        error: Either.flip(Format.encode("google", dialogueConversation)).pipe(Either.getOrThrow)
      })
    ]
    assert.deepStrictEqual(errors.map((e) => e._tag), ClientError.tags)
    for (const error of errors) {
      const json = JSON.parse(JSON.stringify(Schema.encodeSync(ClientError.ClientError)(error)))
      assert.deepStrictEqual(Schema.decodeUnknownSync(ClientError.ClientError)(json), error)
      assert.isTrue(ClientError.isClientError(error))
    }
    assert.strictEqual(errors[1]!.message, "POST u: r (after 2 retries)")
    assert.strictEqual(
      errors[2]!.message,
      "GET u: malformed response at [0,\"a\"]: r"
    )
    assert.strictEqual(
      new ClientError.MalformedResponse({
        method: "GET",
        url: "u",
        route: "/splits",
        path: [],
        reason: "not JSON",
        contentType: "text/html",
        excerpt: "<html>"
      }).message,
      "GET u: malformed response: not JSON (content-type \"text/html\", body \"<html>\")"
    )
    assert.strictEqual(
      errors[3]!.message,
      "POST http://a/call: refused a 307 redirect from http://a to http://b: another origin (list it in allowedRedirectOrigins to follow it)"
    )
  })
})

// No server: where the client's settings come from.
describe("Configuration", () => {
  it.effect("derives the sessions host from OPENREWARD_URL, as the reference does", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      assert.strictEqual(client.baseUrl, "http://sessions.localhost:8080")
    }).pipe(
      Effect.provide(Client.layer().pipe(Layer.provide(NodeHttpClient.layerUndici))),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["OPENREWARD_URL", "http://localhost:8080"]])))
    ))

  it.effect("a malformed OPENREWARD_URL is a ConfigError", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Client.make())
      const error = failure(exit)
      assert.include(String(error), "OPENREWARD_URL")
    }).pipe(
      Effect.provide(NodeHttpClient.layerUndici),
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["OPENREWARD_URL", "not a url"]])))
    ))
})

describe("Against this library's server", () => {
  const Order = Schema.Struct({ order: Schema.String })
  const Support = Environment.make({
    name: "Support",
    task: Order,
    splits: ["train"],
    tasks: { train: [{ order: "4411" }, { order: "12" }] },
    messages: ({ task }) => [
      Message.system("You are a support agent for Acme."),
      Message.user(`My order #${task.order} hasn't arrived.`),
      Message.assistant([
        Block.reasoning("Check the carrier."),
        Block.toolCall("tc_1", "track", { order: task.order })
      ]),
      Message.user([Block.toolResult("tc_1", "stalled at hub")])
    ],
    tools: [
      Tool.make("reply", {
        description: "Reply to the customer.",
        input: Schema.Struct({ text: Schema.String }),
        handler: ({ text }, session: Environment.Session<typeof Order.Type>) =>
          Tool.output("sent", { reward: text.includes(session.task.order) ? 1 : 0, finished: true })
      }),
      Tool.make("crash", { handler: () => Effect.die(new Error("the tracker is down")) })
    ]
  })
  const ServerLive = Server.layer([Support]).pipe(
    Layer.provideMerge(NodeHttpServer.layer(() => Http.createServer(), { port: 0 }))
  )

  it.live("a session end to end over a loopback socket", () =>
    Effect.gen(function*() {
      const { address } = yield* HttpServer.HttpServer
      const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : assert.fail("no port")
      yield* Effect.gen(function*() {
        const client = yield* Client.Client
        const env = client.environment("support")
        assert.deepStrictEqual(yield* env.numTasks("train"), 2)
        const task = yield* env.task("train", 0)
        assert.deepStrictEqual(task.spec, { order: "4411" })
        yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* env.session(task)
          const conversation = yield* session.getMessages()
          assert.strictEqual(conversation.length, 4)
          for (const provider of ["openai", "openrouter", "anthropic"] as const) {
            assert.deepStrictEqual(
              yield* session.getMessages({ format: provider }),
              Either.getOrThrow(Format.encode(provider, conversation))
            )
          }
          assert.strictEqual(
            failure(yield* Effect.exit(session.getMessages({ format: "google" })))._tag,
            "ConversionFailed"
          )
          assert.deepStrictEqual(yield* session.messageBlockTypes, Block.supportedTypes)
          const tools = yield* session.listTools({ format: "openai" })
          assert.deepStrictEqual(tools.map((t) => t.name), ["crash", "reply"])
          const output = yield* session.callTool("reply", { text: "Order 4411 is at the hub." })
          assert.strictEqual(output.reward, 1)
          const refused = failure(yield* Effect.exit(session.callTool("reply", { text: "again" })))
          assert.strictEqual(refused._tag === "ToolCallError" && refused.reason, "episode_finished")
        }))
        yield* Effect.scoped(Effect.gen(function*() {
          const session = yield* env.session({ split: "train", index: 1 })
          const crashed = failure(yield* Effect.exit(session.callTool("crash")))
          assert.strictEqual(crashed._tag, "ToolFailed")
          assert.strictEqual(failure(yield* Effect.exit(session.getPrompt))._tag, "SessionTerminated")
        }))
      }).pipe(Effect.provide(Client.layer({ baseUrl, apiKey: "" })))
    }).pipe(Effect.provide(ServerLive), Effect.provide(NodeHttpClient.layerUndici), Effect.scoped))
})

describe("Over real sockets, with no server", () => {
  it.effect("a refused connection is retried, then reported as a TransportError", () =>
    Effect.gen(function*() {
      // A port nothing listens on any more.
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const listener = net.createServer().listen(0, "127.0.0.1", () => {
            const { port } = listener.address() as net.AddressInfo
            listener.close(() => resolve(port))
          })
        })
      )
      const recorded = TestServer.recorder(yield* HttpClient.HttpClient)
      const client = yield* Client.make({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "k" }).pipe(
        Effect.provideService(HttpClient.HttpClient, recorded.http)
      )
      const fiber = yield* Effect.fork(client.environment("dialogue").splits)
      const error = failure(yield* drive(fiber))
      assert.strictEqual(error._tag, "TransportError")
      if (error._tag !== "TransportError") return
      assert.strictEqual(error.retries, 3)
      assert.include(error.message, "ECONNREFUSED")
      assert.strictEqual(recorded.requests("POST", "/create_session").length, 4)
      // Backing off 0.5, 1 and 2 s.
      assert.strictEqual(yield* Clock.currentTimeMillis, 3500)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})
