// The Promise API as code that does not use Effect sees it. Only the server is started with Effect
// (test infrastructure); everything under test goes through `openreward-effect/Promise`.
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as fs from "node:fs/promises"
import { createServer } from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import * as Block from "openreward-effect/Block"
import * as ClientError from "openreward-effect/ClientError"
import * as ConversionError from "openreward-effect/ConversionError"
import * as Message from "openreward-effect/Message"
import * as OpenReward from "openreward-effect/Promise"
import * as Server from "openreward-effect/Server"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { environments } from "../examples/support.js"

const server = ManagedRuntime.make(
  Server.layer(environments).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  )
)
let baseUrl = ""

beforeAll(async () => {
  const address = await server.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
  baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
})
afterAll(() => server.dispose())

const caught = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (e) {
    return e
  }
  return assert.fail("expected a rejection")
}

describe("Promise API", () => {
  it("a session: messages in a provider's shape, tools, a tool call, closed by await using", async () => {
    await using client = OpenReward.connect({ baseUrl, apiKey: "" })
    const env = client.environment("dialogueenv", { variant: "dialogueenv" })
    const [task] = await env.tasks("train")
    let sid = ""
    {
      await using session = await env.session(task!)
      sid = session.sid
      const messages = await session.getMessages({ format: "openai" })
      assert.deepStrictEqual(messages.map((m) => m.role), ["system", "user", "assistant", "user"])
      const tools = await session.listTools()
      assert.deepStrictEqual(tools.map((t) => t.name), ["submit"])
      const output = await session.callTool("submit", { answer: "Order 4411 ships today." })
      assert.strictEqual(output.reward, 1)
    }
    assert.isAbove(sid.length, 0)
  })

  it("without a variant: the server's redirect of /tasks to its default environment is followed, body and all", async () => {
    // Node's fetch detaches a Uint8Array body when it sends it, so a 308 could not be followed
    await using client = OpenReward.connect({ baseUrl, apiKey: "" })
    const env = client.environment("dialogueenv")
    const tasks = await env.tasks("train")
    assert.strictEqual(tasks.length, 1)
    const task = tasks[0]
    await using session = await env.session(task!)
    assert.deepStrictEqual((await session.listTools()).map((t) => t.name), ["submit"])
  })

  it("a failure rejects with the tagged error itself", async () => {
    const client = OpenReward.connect({ baseUrl, apiKey: "" })
    try {
      const env = client.environment("triviaenv", { variant: "triviaenv" })
      const session = await env.session({ split: "train", index: 0 })
      const refused = await caught(session.callTool("no_such_tool", {}))
      assert.isTrue(ClientError.isClientError(refused))
      assert.instanceOf(refused, Error)
      assert.strictEqual((refused as ClientError.ClientError)._tag, "ToolCallError")
      await session.close()
      await session.close() // closing twice is harmless

      const missing = await caught(client.environment("nosuchenv", { variant: "nosuchenv" }).splits())
      assert.isTrue(ClientError.isClientError(missing))
      assert.strictEqual((missing as ClientError.ClientError)._tag, "UnknownEnvironment")
    } finally {
      await client.close()
    }
  })

  it("runs episodes with an async model step and matches a failure's _tag", async () => {
    const client = OpenReward.connect({ baseUrl, apiKey: "" })
    try {
      const env = client.environment("triviaenv", { variant: "triviaenv" })
      const seen: Array<number | null> = []
      const episodes = await env.runEpisodes(
        [{ split: "train", index: 0 }, { split: "train", index: 1 }, { split: "nosuchsplit", index: 0 }],
        async ({ conversation }) => {
          const text = JSON.stringify(conversation)
          return {
            message: Message.assistant([
              Block.toolCall("c", "answer", { answer: text.includes("France") ? "Paris" : "?" })
            ]),
            stopReason: "tool_calls",
            usage: {}
          }
        },
        { progress: false, onEpisode: (e) => void seen.push(e.totalReward) }
      )
      assert.deepStrictEqual(episodes.map((e) => e.totalReward), [1, 0, null])
      assert.strictEqual(seen.length, 3)
      const failed = episodes[2]!.stop
      assert.strictEqual(failed._tag, "Failed")
      if (failed._tag === "Failed") assert.isTrue(ClientError.isClientError(failed.error))

      // a step that rejects ends its episode as Failed with the rejection kept
      const session = await env.session({ split: "train", index: 0 })
      const episode = await session.runEpisode(() => Promise.reject(new Error("model down")))
      await session.close()
      assert.strictEqual(episode.stop._tag, "Failed")
    } finally {
      await client.close()
    }
  })

  it("appendJsonl: one record per episode, as they end, each with its task; a failed one marked failed", async () => {
    const client = OpenReward.connect({ baseUrl, apiKey: "" })
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "promise-jsonl-"))
    const file = path.join(dir, "episodes.jsonl")
    try {
      const env = client.environment("triviaenv", { variant: "triviaenv" })
      const sources = [{ split: "train", index: 0 }, { split: "train", index: 1 }, { split: "nosuchsplit", index: 0 }]
      await env.runEpisodes(
        sources,
        async () => ({
          message: Message.assistant([Block.toolCall("c", "answer", { answer: "Paris" })]),
          stopReason: "tool_calls",
          usage: { inputTokens: 3 }
        }),
        { progress: false, onEpisode: OpenReward.appendJsonl(file) }
      )
      const text = await fs.readFile(file, "utf8")
      assert.isTrue(text.endsWith("\n"))
      const records = text.trimEnd().split("\n").map((l) => JSON.parse(l))
      assert.sameDeepMembers(records.map((r) => r.task), sources)
      const failed = records.find((r) => r.task.split === "nosuchsplit")
      assert.strictEqual(failed.failed, true)
      assert.strictEqual(failed.stop.reason, "Failed")
      assert.isString(failed.stop.error.tag)
      assert.notInclude(failed.stop.error.message, "    at ")
      for (const r of records.filter((r) => !r.failed)) {
        assert.strictEqual(r.stop.reason, "Finished")
        assert.strictEqual(r.usage.inputTokens, 3)
        assert.deepStrictEqual(r.tools.map((t: { name: string }) => t.name), ["answer", "hint"])
      }
      // and toJsonLine is the same line, newline included
      assert.isTrue(OpenReward.toJsonLine.length === 1)
    } finally {
      await client.close()
      await fs.rm(dir, { recursive: true, force: true })
    }
  })

  it("codecs: ...OrThrow forms throw the tagged error", () => {
    const conversation = [Message.assistant([Block.reasoning("hmm"), Block.text("hi")])]
    assert.strictEqual(OpenReward.encodeOrThrow("anthropic", conversation).messages.length, 1)
    let error: unknown
    try {
      OpenReward.encodeOrThrow("google", conversation)
    } catch (e) {
      error = e
    }
    assert.isTrue(ConversionError.isConversionError(error))
    assert.strictEqual((error as ConversionError.ConversionError)._tag, "UnsupportedBlock")
    assert.throws(() => OpenReward.decodeOrThrow("openai", { nope: true }), /openai/)
    assert.deepStrictEqual(OpenReward.readOrThrow("canonical", [{ role: "user", blocks: [] }]).length, 1)
    // a lone user turn flattens to its blocks, as the reference does
    assert.deepStrictEqual(OpenReward.writeOrThrow("prompt", [Message.user("hi")]), [
      { type: "text", text: "hi", detail: null }
    ])
  })
})
