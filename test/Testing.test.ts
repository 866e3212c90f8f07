/**
 * `openreward-effect/Testing`: the stand-ins' answers are what the SDKs' types say the APIs send;
 * `replay` hands recorded answers (from ../shared/corpora, as the APIs sent them) to the official
 * SDKs whole and streamed, framed as each API frames them, and says so when a call and its
 * recording do not match; `loopback` answers what a route says; `serve` serves environments for a
 * client, with their services, tears their sessions down on close, and rejects what the server
 * refuses. (test/ModelStep.test.ts drives every scripted stand-in with its SDK through whole episodes.)
 */
import Anthropic from "@anthropic-ai/sdk"
import { assert, describe, it } from "@effect/vitest"
import { GoogleGenAI } from "@google/genai"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import OpenAI from "openai"
import type * as OpenAiTypes from "openai/resources/responses/responses"
import {
  AnthropicFormat,
  type ApiRequest,
  Environment,
  GoogleFormat,
  Message,
  type ModelResponse,
  OpenAiFormat,
  OpenAiResponsesFormat,
  Tool
} from "openreward-effect"
import * as OpenReward from "openreward-effect/Promise"
import * as Testing from "openreward-effect/Testing"
import * as AnthropicStandIn from "../src/internal/testing/anthropic.js"
import * as ChatStandIn from "../src/internal/testing/openaiChat.js"
import * as ResponsesStandIn from "../src/internal/testing/openaiResponses.js"

const corpora = path.resolve(__dirname, "..", "..", "shared", "corpora", "aisdk-answers", "fixtures")
const readJson = (file: string): unknown => JSON.parse(fs.readFileSync(path.join(corpora, file), "utf8"))
const readChunks = (file: string): Array<unknown> =>
  fs.readFileSync(path.join(corpora, file), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))

type Decoded = Either.Either<ModelResponse.ModelResponse, unknown>

const fold =
  (decode: (events: Stream.Stream<unknown>) => Effect.Effect<ModelResponse.ModelResponse, unknown>) =>
  async (events: AsyncIterable<unknown> | Iterable<unknown>): Promise<Decoded> => {
    const collected: Array<unknown> = []
    for await (const event of events) collected.push(event)
    return Effect.runSync(Effect.either(decode(Stream.fromIterable(collected))))
  }

/** Each API: a recorded answer whole and streamed, and one call of its SDK against a base URL. */
const apis: ReadonlyArray<{
  readonly api: ApiRequest.Api
  readonly whole: string
  readonly chunks: string
  readonly decode: (answer: unknown) => Decoded
  readonly decodeStream: (events: AsyncIterable<unknown> | Iterable<unknown>) => Promise<Decoded>
  readonly call: (url: string, stream: boolean) => Promise<Decoded>
}> = [
  {
    api: "openai-chat",
    whole: "openai/groq--groq-tool-call.json",
    chunks: "openai/groq--groq-tool-call.chunks.txt",
    decode: (a) => OpenAiFormat.decodeResponse(a),
    decodeStream: fold(OpenAiFormat.decodeStream),
    call: async (url, stream) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "test", maxRetries: 0 })
      const body = { model: "m", messages: [{ role: "user" as const, content: "Weather?" }] }
      return stream
        ? fold(OpenAiFormat.decodeStream)(await client.chat.completions.create({ ...body, stream: true }))
        : OpenAiFormat.decodeResponse(await client.chat.completions.create(body))
    }
  },
  {
    api: "openai-responses",
    whole: "openai-responses/azure--azure-tool-call.1.json",
    chunks: "openai-responses/azure--azure-tool-call.1.chunks.txt",
    decode: (a) => OpenAiResponsesFormat.decodeResponse(a),
    decodeStream: fold(OpenAiResponsesFormat.decodeStream),
    call: async (url, stream) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "test", maxRetries: 0 })
      return stream
        ? fold(OpenAiResponsesFormat.decodeStream)(await client.responses.create({ model: "m", input: "Hi", stream }))
        : OpenAiResponsesFormat.decodeResponse(await client.responses.create({ model: "m", input: "Hi" }))
    }
  },
  {
    api: "anthropic",
    whole: "anthropic/anthropic--anthropic-tool-no-args.json",
    chunks: "anthropic/anthropic--anthropic-tool-no-args.chunks.txt",
    decode: (a) => AnthropicFormat.decodeResponse(a),
    decodeStream: fold(AnthropicFormat.decodeStream),
    call: async (url, stream) => {
      const client = new Anthropic({ baseURL: url, apiKey: "test", maxRetries: 0 })
      const body = { model: "m", max_tokens: 64, messages: [{ role: "user" as const, content: "Hi" }] }
      return stream
        ? fold(AnthropicFormat.decodeStream)(await client.messages.create({ ...body, stream: true }))
        : AnthropicFormat.decodeResponse(await client.messages.create(body))
    }
  },
  {
    api: "google",
    whole: "google/google--google-reasoning.json",
    chunks: "google/google--google-reasoning.chunks.txt",
    decode: (a) => GoogleFormat.decodeResponse(a),
    decodeStream: fold(GoogleFormat.decodeStream),
    call: async (url, stream) => {
      const client = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: url } })
      const body = { model: "gemini-test", contents: "Hi" }
      return stream
        ? fold(GoogleFormat.decodeStream)(await client.models.generateContentStream(body))
        : GoogleFormat.decodeResponse(await client.models.generateContent(body))
    }
  }
]

/** What a failed SDK call threw: its status and message. */
const failure = async (call: Promise<unknown>): Promise<{ readonly status: unknown; readonly message: string }> => {
  try {
    await call
  } catch (e) {
    return { status: (e as { status?: unknown }).status, message: e instanceof Error ? e.message : String(e) }
  }
  return assert.fail("expected the call to fail")
}

describe("Testing stand-ins", () => {
  it("the scripted answers are what the SDKs' types say the APIs send", () => {
    // type-level: each assignment compiles only if the SDK's type accepts the stand-in's shape
    const chat: OpenAI.ChatCompletion = ChatStandIn.completion({ tools: [{ function: { name: "f" } }] }, 0)
    const message: Anthropic.Message = AnthropicStandIn.message({ tools: [{ name: "f" }] }, 0)
    const response: OpenAiTypes.Response = ResponsesStandIn.answer({ tools: [{ type: "function", name: "f" }] }, 0)
    assert.strictEqual(chat.choices[0]!.finish_reason, "tool_calls")
    assert.strictEqual(message.stop_reason, "tool_use")
    assert.deepStrictEqual(response.output.map((o) => o.type), ["reasoning", "function_call"])
  })

  for (const { api, call, chunks, decode, decodeStream, whole } of apis) {
    it(`replay ${api}: recorded answers reach the SDK as recorded, whole and streamed, in order`, async () => {
      const recorded = readJson(whole)
      const events = readChunks(chunks)
      await using model = await Testing.replay(api, [{ body: recorded }, { events }])
      const first = await call(model.url, false)
      assert.isTrue(Either.isRight(first), `${api}: ${String(Either.isLeft(first) && first.left)}`)
      assert.deepStrictEqual(first, decode(recorded))
      const second = await call(model.url, true)
      assert.isTrue(Either.isRight(second), `${api} stream: ${String(Either.isLeft(second) && second.left)}`)
      assert.deepStrictEqual(second, await decodeStream(events))
      assert.strictEqual(model.requests.length, 2)
      // a third call has no recording: a 400 saying so, which the SDK does not retry
      const third = await failure(call(model.url, false))
      assert.strictEqual(third.status, 400)
      assert.include(third.message, "the replay has 2 recorded answer(s); this is call 3")
      assert.strictEqual(model.requests.length, 3)
    })

    it(`replay ${api}: a call that does not match its recording is a 400 that says which`, async () => {
      await using model = await Testing.replay(api, [{ body: readJson(whole) }, { events: readChunks(chunks) }])
      // a request that is not the API's model call gets its 404 and uses no recording
      const stray = await fetch(`${model.url}/v1/models`)
      assert.strictEqual(stray.status, 404)
      assert.include(await stray.text(), "the replay has no route GET /v1/models")
      const streamed = await failure(call(model.url, true))
      assert.strictEqual(streamed.status, 400)
      assert.include(streamed.message, "call 1 asks for a stream, but recording 1 is a whole answer")
      const whole2 = await failure(call(model.url, false))
      assert.include(whole2.message, "call 2 asks for a whole answer, but recording 2 is a stream")
    })

    it(`standIn ${api}: the API's 404 for what it does not answer, every request recorded`, async () => {
      await using model = await Testing.standIn(api)
      const response = await fetch(`${model.url}/v1/nothing?x=1`, { method: "POST", body: "not json" })
      assert.strictEqual(response.status, 404)
      const body = await response.json() as { error: { message: string } }
      assert.include(body.error.message, "no route POST /v1/nothing")
      assert.deepStrictEqual(model.requests.map((r) => [r.method, r.path, r.query, r.body]), [
        ["POST", "/v1/nothing", "?x=1", "not json"]
      ])
    })
  }

  it("replay: a raw server-sent event stream is sent as recorded; an error answer keeps its status", async () => {
    const raw = fs.readFileSync(
      path.join(
        corpora,
        "..",
        "..",
        "provider-answers",
        "fixtures",
        "anthropic",
        "pydantic--test_anthropic_model_thinking_part_stream.0.sse"
      ),
      "utf8"
    )
    const error = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }
    await using model = await Testing.replay("anthropic", [{ sse: raw }, { body: error, status: 529 }])
    const client = new Anthropic({ baseURL: model.url, apiKey: "test", maxRetries: 0 })
    const body = { model: "m", max_tokens: 64, messages: [{ role: "user" as const, content: "Hi" }] }
    const streamed = await fold(AnthropicFormat.decodeStream)(await client.messages.create({ ...body, stream: true }))
    assert.isTrue(Either.isRight(streamed))
    assert.deepStrictEqual(
      Either.getOrThrow(streamed).message.blocks.map((b) => b.type),
      ["reasoning", "text"]
    )
    const overloaded = await failure(client.messages.create(body))
    assert.strictEqual(overloaded.status, 529)
    assert.include(overloaded.message, "Overloaded")
  })

  it("standIn: the scripted agent streams what it answers whole (Gemini's query, `?alt=sse`, recorded)", async () => {
    await using model = await Testing.standIn("google", { toolInput: () => ({ id: "7" }), model: "gemini-x" })
    const client = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: model.url } })
    const body = {
      model: "gemini-test",
      contents: "Where is order 7?",
      config: { tools: [{ functionDeclarations: [{ name: "lookup_order" }] }] }
    }
    const whole = GoogleFormat.decodeResponse(await client.models.generateContent(body))
    const streamed = await fold(GoogleFormat.decodeStream)(await client.models.generateContentStream(body))
    // the same answer (ids and signatures count the requests, so they differ)
    const shape = (d: Decoded) =>
      Either.map(
        d,
        (r) => [r.stopReason, r.message.blocks.map((b) => [b.type, b.type === "tool_call" ? b.input : null])]
      )
    assert.deepStrictEqual(shape(streamed), shape(whole))
    assert.strictEqual(Either.getOrThrow(whole).model, "gemini-x")
    assert.deepStrictEqual(model.requests.map((r) => [r.path, r.query]), [
      ["/v1beta/models/gemini-test:generateContent", ""],
      ["/v1beta/models/gemini-test:streamGenerateContent", "?alt=sse"]
    ])
  })

  it("loopback: any answer; a route that throws is a 500 saying what it threw; close is idempotent", async () => {
    const model = await Testing.loopback((request, index) => {
      if (index === 1) throw new Error("no second answer")
      return { _tag: "text", status: 202, contentType: "text/plain", body: `hello ${request.path}` }
    })
    const first = await fetch(`${model.url}/a`)
    assert.deepStrictEqual([first.status, await first.text()], [202, "hello /a"])
    const second = await fetch(`${model.url}/b`)
    assert.strictEqual(second.status, 500)
    assert.include(await second.text(), "the stand-in's route threw: no second answer")
    await Promise.all([model.close(), model.close()])
    await model[Symbol.asyncDispose]()
    const refused = await fetch(`${model.url}/c`).then(() => "answered", () => "refused")
    assert.strictEqual(refused, "refused")
  })

  it.effect("scoped: a stand-in closes with its scope", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const model = yield* Testing.scoped(() => Testing.standIn("openai-chat")).pipe(Scope.extend(scope))
      const url = model.url
      const before = yield* Effect.promise(() => fetch(`${url}/v1/chat/completions`, { method: "POST", body: "{}" }))
      assert.strictEqual(before.status, 200)
      yield* Scope.close(scope, Exit.void)
      const after = yield* Effect.promise(() =>
        fetch(`${url}/v1/chat/completions`).then(() => "answered", () => "refused")
      )
      assert.strictEqual(after, "refused")
    }))
})

class Greeting extends Context.Tag("test/Greeting")<Greeting, string>() {}

describe("Testing.serve", () => {
  it("serves environments to a client; close ends the sessions still open (teardown runs)", async () => {
    const torn: Array<string> = []
    const Env = Environment.make({
      name: "greeter",
      splits: ["train"],
      tasks: { train: [{ who: "Ada" }] },
      messages: ({ task }) => [Message.user(`Greet ${task.who}.`)],
      setup: ({ id }) => Effect.addFinalizer(() => Effect.sync(() => torn.push(id))),
      tools: [
        Tool.make("greet", {
          description: "Greet.",
          input: Schema.Struct({ name: Schema.String }),
          handler: ({ name }) =>
            Effect.map(Greeting, (g) => Tool.output(`${g}, ${name}!`, { reward: 1, finished: true }))
        })
      ]
    })
    // @ts-expect-error the environment needs Greeting: serve asks for a layer that provides it
    void (() => Testing.serve([Env]))
    const served = await Testing.serve([Env], { layer: Layer.succeed(Greeting, "Hello") })
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/)
    const client = OpenReward.connect({ baseUrl: served.url, retry: { requests: { retries: 0 } } })
    const env = client.environment("greeter")
    const session = await env.session({ split: "train", index: 0 })
    assert.deepStrictEqual(await session.getMessages({ format: "openai" }), [{ role: "user", content: "Greet Ada." }])
    const output = await session.callTool("greet", { name: "Ada" })
    assert.deepStrictEqual([output.blocks, output.reward], [[{ type: "text", text: "Hello, Ada!", detail: null }], 1])
    await served.close()
    assert.deepStrictEqual(torn, [session.sid])
    await client.close().catch(() => undefined) // its DELETE finds no server, and does not retry
    await served[Symbol.asyncDispose]() // a second close waits for the first
  })

  it("what the server refuses rejects with its InvalidDefinition, and nothing is left listening", async () => {
    const error = await Testing.serve([]).then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, Environment.InvalidDefinition)
    assert.include((error as Environment.InvalidDefinition).reason, "at least one environment")
  })
})
