/**
 * An episode whose model uses a provider-hosted tool (Anthropic's web search; the Responses API's
 * web search), with `providerContent: "keep"`: loopback stand-ins of the two APIs answer the first
 * turn with the hosted items as the live API sent them (from the shared corpora, read in place) and
 * a call of the environment's tool, the second with the call that finishes the episode.
 *
 * Checked: the episode runs to the end; the second request sends the hosted items back byte for
 * byte, in their place (as the APIs require); the episode's JSONL line converts back to the same
 * provider (`Dataset.convertRecord`, the `rollout` record) with the items byte for byte, and to
 * exactly what the second request sent; without the option the first turn is a step failure naming
 * the item.
 */
import Anthropic from "@anthropic-ai/sdk"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import { createServer } from "node:http"
import * as path from "node:path"
import OpenAI from "openai"
import * as Block from "openreward-effect/Block"
import * as Client from "openreward-effect/Client"
import * as Dataset from "openreward-effect/Dataset"
import * as Environment from "openreward-effect/Environment"
import * as Episode from "openreward-effect/Episode"
import * as ModelStep from "openreward-effect/ModelStep"
import * as Server from "openreward-effect/Server"
import * as Testing from "openreward-effect/Testing"
import * as Tool from "openreward-effect/Tool"
import * as Corpus from "./utils/corpus.js"
import { layer } from "./utils/layer.js"

type Record = { readonly [key: string]: unknown }
const text = (u: unknown): string => JSON.stringify(u)
const recording = (file: string): Record =>
  JSON.parse(fs.readFileSync(path.join(Corpus.root, "aisdk-answers", "fixtures", file), "utf8")) as Record

const Weather = Environment.make({
  name: "Weather",
  splits: ["train"],
  tasks: { train: [{ city: "Paris" }] },
  prompt: () => [Block.text("What is the weather in Paris? Search the web, save a note, then report.")],
  tools: [
    Tool.make("save_note", {
      description: "Save a note.",
      input: Schema.Struct({ text: Schema.String }),
      handler: ({ text }) => Tool.output(`saved: ${text}`)
    }),
    Tool.make("report", {
      description: "Report the forecast; ends the episode.",
      input: Schema.Struct({ forecast: Schema.String }),
      handler: () => Tool.output("thanks", { reward: 1, finished: true })
    })
  ]
})

const ServerLive = Server.layer([Weather]).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)
const ClientLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { address } = yield* HttpServer.HttpServer
  const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  return Client.layer({ baseUrl, apiKey: "" })
}))
const TestLive = ClientLive.pipe(Layer.provideMerge(ServerLive), Layer.provide(NodeHttpClient.layerUndici))

const standIn = (route: Testing.Route) =>
  Effect.acquireRelease(Effect.promise(() => Testing.loopback(route)), (s) => Effect.promise(() => s.close()))

const runEpisode = <E>(step: Episode.Step<E>, providerContent?: "keep") =>
  Effect.gen(function*() {
    const client = yield* Client.Client
    const env = client.environment("weather", { variant: "weather" })
    return yield* Effect.scoped(Effect.flatMap(
      env.session({ split: "train", index: 0 }),
      (session) => Episode.run(session, step, providerContent === undefined ? {} : { providerContent })
    ))
  })

/** The rollout record of an episode, as its JSONL line holds it, converted to `to`. */
const converted = (episode: Episode.Episode<unknown>, to: "anthropic" | "openai-responses") => {
  const record: unknown = JSON.parse(Episode.toJsonLine(episode))
  return Either.getOrThrow(Dataset.convertRecord(record, { to, record: "rollout" })).value as Record
}

// -----------------------------------------------------------------------------
// Anthropic
// -----------------------------------------------------------------------------

const anthropicSearch = recording("anthropic/anthropic--anthropic-web-search-tool.1.json")
const anthropicContent = anthropicSearch["content"] as ReadonlyArray<Record>
const anthropicHosted = anthropicContent.filter((b) => b["type"] !== "text")

const anthropicRoute: Testing.Route = (_request, index) => ({
  _tag: "json",
  body: index % 2 === 0
    ? {
      ...anthropicSearch,
      content: [
        ...anthropicContent,
        { type: "tool_use", id: "toolu_note", name: "save_note", input: { text: "sunny" } }
      ],
      stop_reason: "tool_use"
    }
    : {
      ...anthropicSearch,
      id: "msg_second",
      content: [{ type: "tool_use", id: "toolu_report", name: "report", input: { forecast: "Sunny, 24°C" } }],
      stop_reason: "tool_use"
    }
})

// -----------------------------------------------------------------------------
// Responses
// -----------------------------------------------------------------------------

const responsesSearch = recording("openai-responses/openai--openai-web-search-tool.1.json")
const responsesOutput = responsesSearch["output"] as ReadonlyArray<Record>
const responsesHosted = responsesOutput.filter((i) => i["type"] === "web_search_call")

const call = (id: string, name: string, args: unknown) => ({
  type: "function_call",
  id: `fc_${id}`,
  call_id: `call_${id}`,
  name,
  arguments: JSON.stringify(args),
  status: "completed"
})

const responsesRoute: Testing.Route = (_request, index) => ({
  _tag: "json",
  body: index % 2 === 0
    ? { ...responsesSearch, output: [...responsesOutput, call("note", "save_note", { text: "sunny" })] }
    : { ...responsesSearch, id: "resp_second", output: [call("report", "report", { forecast: "Sunny, 24°C" })] }
})

layer(TestLive, { timeout: 60_000 })("an episode with provider-hosted web search", (it) => {
  it.effect("Anthropic: runs to the end, sends the hosted blocks back as they came, and its JSONL converts back", () =>
    Effect.scoped(Effect.gen(function*() {
      const model = yield* standIn(anthropicRoute)
      const anthropic = new Anthropic({ baseURL: model.url, apiKey: "test", maxRetries: 0 })
      const step = ModelStep.anthropic(anthropic, { model: "claude-sonnet-4-5", max_tokens: 1024 })
      const episode = yield* runEpisode(step, "keep")
      assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "report" })
      assert.deepStrictEqual(episode.calls.map((c) => c.name), ["save_note", "report"])
      // the web search stayed in the turn, as provider blocks, and was not run through the session
      const kept = episode.conversation[1]!.blocks.filter((b) => b.type === "provider")
      assert.deepStrictEqual(kept.map((b) => text(b.type === "provider" ? b.item : null)), anthropicHosted.map(text))

      // the second request sends the turn back with the hosted blocks in their place, byte for byte
      const second = model.requests[1]!.body as { readonly messages: ReadonlyArray<Record> }
      const sentTurn = second.messages[1]!["content"] as ReadonlyArray<Record>
      assert.deepStrictEqual(
        sentTurn.filter((b) => b["type"] !== "text" && b["type"] !== "tool_use").map(text),
        anthropicHosted.map(text)
      )
      assert.deepStrictEqual(
        sentTurn.map((b) => b["type"]),
        [...anthropicContent.map((b) => b["type"]), "tool_use"]
      )

      // the JSONL line converts back to Anthropic: what the second request sent, then the rest
      const back = converted(episode, "anthropic")
      const messages = back["messages"] as ReadonlyArray<unknown>
      assert.strictEqual(text(messages.slice(0, second.messages.length)), text(second.messages))

      // without the option, the first answer is a step failure naming the hosted block
      const refused = yield* runEpisode(step)
      assert.strictEqual(refused.stop._tag, "Failed")
      if (refused.stop._tag === "Failed") assert.include(String(refused.stop.error.message), "server_tool_use")
    })))

  it.effect("Responses: runs to the end, sends the hosted items back as they came, and its JSONL converts back", () =>
    Effect.scoped(Effect.gen(function*() {
      const model = yield* standIn(responsesRoute)
      const openai = new OpenAI({ baseURL: `${model.url}/v1`, apiKey: "test", maxRetries: 0 })
      const step = ModelStep.openAiResponses(openai, { model: "gpt-5", store: false })
      const episode = yield* runEpisode(step, "keep")
      assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "report" })
      assert.deepStrictEqual(episode.calls.map((c) => c.name), ["save_note", "report"])
      const kept = episode.conversation[1]!.blocks.filter((b) => b.type === "provider")
      assert.deepStrictEqual(kept.map((b) => text(b.type === "provider" ? b.item : null)), responsesHosted.map(text))

      // the second request's input: the prompt, then the first turn's items (the web searches
      // byte for byte, in their place among the reasoning items), then the tool's output
      const second = model.requests[1]!.body as { readonly input: ReadonlyArray<Record> }
      const sent = second.input
      assert.deepStrictEqual(
        sent.filter((i) => i["type"] === "web_search_call").map(text),
        responsesHosted.map(text)
      )
      assert.deepStrictEqual(
        sent.slice(1, 1 + responsesOutput.length + 1).map((i) => i["type"]),
        [...responsesOutput.map((i) => i["type"]), "function_call"]
      )

      const back = converted(episode, "openai-responses")
      // a Responses rollout record holds its conversation under `input`
      const items = back["input"] as ReadonlyArray<unknown>
      assert.strictEqual(text(items.slice(0, sent.length)), text(sent))

      const refused = yield* runEpisode(step)
      assert.strictEqual(refused.stop._tag, "Failed")
      if (refused.stop._tag === "Failed") assert.include(String(refused.stop.error.message), "web_search_call")
    })))
})
