// Every ready-made step, driving a real session with the provider's official SDK pointed at a
// loopback stand-in of its HTTP API, one answer and streaming.
import Anthropic from "@anthropic-ai/sdk"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert } from "@effect/vitest"
import { GoogleGenAI } from "@google/genai"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import OpenAI from "openai"
import * as Client from "openreward-effect/Client"
import * as Episode from "openreward-effect/Episode"
import * as ModelStep from "openreward-effect/ModelStep"
import * as Server from "openreward-effect/Server"
import * as Testing from "openreward-effect/Testing"
import { environments } from "../examples/support.js"
import { layer } from "./utils/layer.js"

const ServerLive = Server.layer(environments).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)
const ClientLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { address } = yield* HttpServer.HttpServer
  const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  return Client.layer({ baseUrl, apiKey: "" })
}))
const TestLive = ClientLive.pipe(Layer.provideMerge(ServerLive), Layer.provide(NodeHttpClient.layerUndici))

const reply = "Sorry for the wait: order #4411 is delayed at the carrier, tracking follows today."

const standIn = Testing.scoped

/** One episode on DialogueEnv's task with the given step. */
const episode = (step: Episode.Step<ModelStep.StepError>) =>
  Effect.gen(function*() {
    const client = yield* Client.Client
    const env = client.environment("dialogueenv", { variant: "dialogueenv" })
    const [result] = yield* Episode.runMany(env, [{ split: "train", index: 0 }], step, { progress: false })
    return result!
  })

const cases: ReadonlyArray<{
  readonly name: string
  readonly start: () => Promise<Testing.StandIn>
  readonly step: (url: string, stream: boolean) => Episode.Step<ModelStep.StepError>
  /** The request's tool list, in the API's own shape, as the stand-in received it. */
  readonly toolName: (body: any) => unknown
}> = [
  {
    name: "openAiChat",
    start: () => Testing.standIn("openai-chat", { toolInput: () => ({ answer: reply }) }),
    step: (url, stream) =>
      ModelStep.openAiChat(new OpenAI({ baseURL: `${url}/v1`, apiKey: "k", maxRetries: 0 }), { model: "m" }, {
        stream
      }),
    toolName: (body) => body.tools[0].function.name
  },
  {
    name: "openRouter",
    start: () => Testing.standIn("openrouter", { toolInput: () => ({ answer: reply }) }),
    step: (url, stream) =>
      ModelStep.openRouter(new OpenAI({ baseURL: `${url}/v1`, apiKey: "k", maxRetries: 0 }), { model: "m" }, {
        stream
      }),
    toolName: (body) => body.tools[0].function.name
  },
  {
    name: "openAiResponses",
    start: () => Testing.standIn("openai-responses", { toolInput: () => ({ answer: reply }) }),
    step: (url, stream) =>
      ModelStep.openAiResponses(
        new OpenAI({ baseURL: `${url}/v1`, apiKey: "k", maxRetries: 0 }),
        { model: "m", store: false },
        { stream }
      ),
    toolName: (body) => body.tools[0].name
  },
  {
    name: "anthropic",
    start: () => Testing.standIn("anthropic", { toolInput: () => ({ answer: reply }) }),
    step: (url, stream) =>
      ModelStep.anthropic(new Anthropic({ baseURL: url, apiKey: "k", maxRetries: 0 }), {
        model: "m",
        max_tokens: 256
      }, { stream }),
    toolName: (body) => body.tools[0].name
  },
  {
    name: "google",
    start: () => Testing.standIn("google", { toolInput: () => ({ answer: reply }) }),
    step: (url, stream) =>
      ModelStep.google(new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: url } }), {
        model: "gemini-2.5-flash",
        config: { temperature: 0 }
      }, { stream }),
    toolName: (body) => body.tools[0].functionDeclarations[0].name
  }
]

layer(TestLive, { timeout: 30_000 })("ModelStep", (it) => {
  for (const c of cases) {
    for (const stream of [false, true]) {
      it.scoped(`${c.name}${stream ? ", streaming" : ""}: the SDK call, matched tools, the answer back`, () =>
        Effect.gen(function*() {
          const model = yield* standIn(c.start)
          const result = yield* episode(c.step(model.url, stream))
          assert.deepStrictEqual(result.stop, { _tag: "Finished", tool: "submit" })
          assert.strictEqual(result.totalReward, 1)
          assert.deepStrictEqual(result.calls.map((call) => [call.name, call.input]), [["submit", { answer: reply }]])
          assert.strictEqual(model.requests.length, 1)
          assert.strictEqual(c.toolName(model.requests[0]!.body), "submit")
          // the assistant turn is in the conversation, with the call the tool answered
          const turn = result.conversation.at(-2)!
          assert.strictEqual(turn.role, "assistant")
          assert.isTrue(turn.blocks.some((b) => b.type === "tool_call" && b.name === "submit"))
          assert.isAbove(result.usage.inputTokens ?? 0, 0)
        }))
    }
  }

  it.scoped("a failed call is a ModelCallFailed with the status and no stack, ending the episode", () =>
    Effect.gen(function*() {
      const model = yield* standIn(() =>
        Testing.loopback(() => ({
          _tag: "json",
          status: 401,
          body: { error: { message: "bad key", type: "invalid_request_error" } }
        }))
      )
      const result = yield* episode(
        ModelStep.openAiChat(new OpenAI({ baseURL: `${model.url}/v1`, apiKey: "k", maxRetries: 0 }), { model: "m" })
      )
      assert.strictEqual(result.stop._tag, "Failed")
      const error = result.stop._tag === "Failed" ? result.stop.error : undefined
      assert.strictEqual(error?._tag, "ModelCallFailed")
      if (error?._tag === "ModelCallFailed") {
        assert.strictEqual(error.status, 401)
        assert.notInclude(error.message, "\n")
        assert.notInclude(error.message, "node_modules")
      }
      assert.strictEqual(result.turns, 0)
    }))
})
