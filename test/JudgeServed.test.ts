/**
 * The pairwise judge behind a served environment's `scoreGroup`: `/score_group` answers with the
 * judge's scores (metadata echoed as the reference's `GroupScore`), and a judge that never gives a
 * verdict fails the group with its `JudgeFailure` message, scoring nothing. And the chat model
 * channel built per session in `setup`: without a key the session fails as it starts. Raw HTTP, as a
 * trainer posts it.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { createServer } from "node:http"
import * as ChatModel from "openreward-effect/ChatModel"
import * as Environment from "openreward-effect/Environment"
import * as Judge from "openreward-effect/Judge"
import * as Message from "openreward-effect/Message"
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"
import * as Scripted from "./utils/scriptedModel.js"

/** A judge model that prefers the candidate naming the order, and cannot decide about "???". */
const model = Scripted.scripted((_, prompt) => {
  const user = Scripted.toOpenAi(prompt)[1] as { content: ReadonlyArray<{ text?: string }> }
  const text = user.content.map((p) => p.text ?? "").join("\n")
  if (text.includes("???")) return "I cannot tell."
  const [, a = "", b = ""] = text.split(/<candidate_[ab]>/)
  const winner = a.includes("4411") === b.includes("4411") ? "tie" : a.includes("4411") ? "A" : "B"
  return `{"winner": "${winner}"}`
})

const JudgeEnv = Environment.make({
  name: "JudgeEnv",
  splits: ["train"],
  tasks: { train: [{ question: "Where is my order #4411?" }] },
  messages: ({ task }) => [Message.user(String(task["question"]))],
  tools: [Tool.make("reply", { handler: () => Tool.output("noted") })],
  scoreGroup: (candidates, session) =>
    Judge.scoreGroup(candidates, { context: [Message.user(String(session.task["question"]))] })
})

/** A judge per session, on a channel built in `setup` from the session's own secrets. */
const ChannelEnv = Environment.make({
  name: "ChannelEnv",
  splits: ["train"],
  tasks: { train: [{ question: "Where is my order #4411?" }] },
  setup: (session) => ChatModel.make({ model: "judge-1", secrets: session.secrets }),
  messages: ({ task }) => [Message.user(String(task["question"]))],
  tools: [Tool.make("reply", { handler: () => Tool.output("noted") })]
})

let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown> | undefined
let url = ""

beforeAll(async () => {
  runtime = ManagedRuntime.make(
    Server.layer([JudgeEnv, ChannelEnv]).pipe(
      Layer.provide(Judge.layerPairwise({ seed: 1, maxAttempts: 2 })),
      Layer.provide(Layer.effect(LanguageModel.LanguageModel, model.model)),
      Layer.provide(NodeHttpClient.layerUndici),
      // the channel's URL is the server's configuration: dedicated mode, so a key must come with the session
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson({ CHAT_BASE_URL: "http://127.0.0.1:9/v1" }))),
      Layer.provide(Logger.minimumLogLevel(LogLevel.None)),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
  url = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
})

afterAll(() => runtime?.dispose())

const post = async (path: string, body: unknown, sid: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-session-id": sid, ...headers },
    body: JSON.stringify(body)
  })
  return { status: response.status, text: await response.text() }
}

/** The SSE stream's result, or its error event. */
const outcome = (body: string): { readonly result?: any; readonly error?: string } => {
  const events = body.split("\n\n").filter((b) => b.startsWith("event:")).map((b) => {
    const [head, ...data] = b.split("\n")
    return { event: head!.slice(7), data: data.map((l) => l.slice(6)).join("\n") }
  })
  const error = events.find((e) => e.event === "error")
  if (error !== undefined) return { error: error.data }
  return {
    result: JSON.parse(events.filter((e) => e.event === "chunk" || e.event === "end").map((e) => e.data).join(""))
  }
}

const candidate = (reply: string, metadata: unknown = null) => ({
  messages: [{ role: "assistant", blocks: [{ type: "text", text: reply }] }],
  metadata
})

describe("Judge behind /score_group", () => {
  it("scores the group with the judge, index-aligned, metadata as the judge writes it", async () => {
    await post("/create", { env_name: "judgeenv", split: "train", index: 0 }, "judged-1")
    const reply = await post("/judgeenv/score_group", {
      candidates: [candidate("Please wait."), candidate("Order #4411 ships tomorrow.", { rollout: 7 })]
    }, "judged-1")
    assert.strictEqual(reply.status, 200)
    const { result } = outcome(reply.text)
    assert.deepStrictEqual(result.scores.map((s: { reward: number }) => s.reward), [0, 1])
    assert.deepStrictEqual(result.scores[1].metadata, {
      topology: "round_robin",
      aggregator: "winrate",
      games: [{ opponent: 0, result: "win" }]
    })
    // every comparison saw the task
    assert.isTrue(model.prompts.every((p) => JSON.stringify(Scripted.toOpenAi(p)).includes("<task>")))
    await post("/delete", undefined, "judged-1")
  })

  it("a judge that never gives a verdict fails the group with JudgeFailure; nothing is scored", async () => {
    await post("/create", { env_name: "judgeenv", split: "train", index: 0 }, "judged-2")
    const reply = await post("/judgeenv/score_group", {
      candidates: [candidate("???"), candidate("Order #4411 ships tomorrow.")]
    }, "judged-2")
    const { error, result } = outcome(reply.text)
    assert.isUndefined(result)
    assert.strictEqual(
      error,
      "the pairwise judge gave no verdict it could read in 2 attempt(s): the reply does not end with a JSON object that has a \"winner\" key"
    )
    await post("/delete", undefined, "judged-2")
  })

  it("a channel built in setup from the session's secrets: no key fails the session as it starts, never leaking one", async () => {
    await post("/create", { env_name: "channelenv", split: "train", index: 0 }, "channel-1")
    const prompt = await fetch(`${url}/channelenv/prompt`, { headers: { "x-session-id": "channel-1" } })
    const text = await prompt.text()
    assert.notStrictEqual(prompt.status, 200)
    assert.include(text, "no API key for the chat model (openai, dedicated mode)")
    await post("/delete", undefined, "channel-1")

    const key = "sk-session-key-0123456789"
    const secrets = Buffer.from(JSON.stringify({ chat_api_key: { value: key, allowed_domains: [] } })).toString(
      "base64"
    )
    await post("/create", { env_name: "channelenv", split: "train", index: 0 }, "channel-2", { "x-secrets": secrets })
    const served = await fetch(`${url}/channelenv/prompt`, { headers: { "x-session-id": "channel-2" } })
    const body = await served.text()
    assert.strictEqual(served.status, 200, body)
    assert.notInclude(body, key)
    await post("/delete", undefined, "channel-2")
  })
})
