import { createOpenAI } from "@ai-sdk/openai"
import type { LanguageModelV3GenerateResult, LanguageModelV3Prompt } from "@ai-sdk/provider"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import { APICallError, generateText, type ModelMessage } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createServer } from "node:http"
import { Block, Conversation, ConversionError, Message } from "openreward-effect"
import * as AiSdk from "openreward-effect/AiSdk"
import * as Client from "openreward-effect/Client"
import * as Episode from "openreward-effect/Episode"
import * as Server from "openreward-effect/Server"
import * as Testing from "openreward-effect/Testing"
import { environments } from "../examples/support.js"
import { encodable, ServerLive } from "./utils/bridges.js"

const ExamplesLive = Server.layer(environments).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) assert.fail(`expected a Right, got ${String(e.left)}`)
  return e.right
}

const left = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) assert.fail(`expected a Left, got ${JSON.stringify(e.right)}`)
  return e.left
}

const png = Buffer.from("not really a png").toString("base64")

const rich: Conversation.Conversation = [
  Message.system([Block.text("You are a support agent."), Block.text("Be brief.")]),
  Message.user([Block.text("Where is order 4411?"), Block.image(png, "image/png")]),
  Message.assistant([
    Block.reasoning("Check the order first.", { signature: "sig-1" }),
    Block.toolCall("tc_1", "lookup_order", { id: "4411" })
  ]),
  Message.user([Block.toolResult("tc_1", "stalled at the hub"), Block.text("Any news?")]),
  Message.assistant("It is stalled at the hub.")
]

describe("AiSdk.encode", () => {
  it("writes the ModelMessage[] the AI SDK reads", () => {
    const messages = right(AiSdk.encode(rich))
    assert.deepStrictEqual(messages, [
      { role: "system", content: "You are a support agent." },
      { role: "system", content: "Be brief.", providerOptions: { openreward: { continues: true } } },
      {
        role: "user",
        content: [
          { type: "text", text: "Where is order 4411?" },
          { type: "image", image: png, mediaType: "image/png" }
        ]
      },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "Check the order first.",
            providerOptions: { anthropic: { signature: "sig-1" }, openreward: { signature: "sig-1" } }
          },
          { type: "tool-call", toolCallId: "tc_1", toolName: "lookup_order", input: { id: "4411" } }
        ]
      },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          toolCallId: "tc_1",
          toolName: "lookup_order",
          output: { type: "text", value: "stalled at the hub" }
        }]
      },
      {
        role: "user",
        content: [{ type: "text", text: "Any news?" }],
        providerOptions: { openreward: { continues: true } }
      },
      { role: "assistant", content: [{ type: "text", text: "It is stalled at the hub." }] }
    ])
    assert.deepStrictEqual(right(AiSdk.decode(messages)), rich)
  })

  it("tool outputs: text, error-text, content, error-json", () => {
    assert.deepStrictEqual(AiSdk.toolOutput([Block.text("ok")], false), { type: "text", value: "ok" })
    assert.deepStrictEqual(AiSdk.toolOutput([Block.text("no")], true), { type: "error-text", value: "no" })
    assert.deepStrictEqual(AiSdk.toolOutput([Block.text("here"), Block.image(png, "image/png")], false), {
      type: "content",
      value: [{ type: "text", text: "here" }, { type: "image-data", data: png, mediaType: "image/png" }]
    })
    assert.deepStrictEqual(AiSdk.toolOutput([Block.image(png, "image/png")], true), {
      type: "error-json",
      value: [{ data: png, mimeType: "image/png", detail: null, type: "image" }]
    })
  })

  it("fails at the block the messages cannot hold", () => {
    const systemImage = left(AiSdk.encode([Message.system([Block.image(png, "image/png")])]))
    assert.strictEqual(systemImage._tag, "UnsupportedBlock")
    assert.strictEqual(systemImage.format, "ai-sdk")
    assert.strictEqual(
      left(AiSdk.encode([Message.user([Block.image(png, "application/pdf")])]))._tag,
      "UnsupportedBlock"
    )
    assert.strictEqual(left(AiSdk.encode([Message.user([Block.toolResult("nope", "x")])]))._tag, "UnmatchedToolResult")
  })
})

describe("AiSdk.decode", () => {
  it("reads messages written without this library, message by message", () => {
    const messages: Array<ModelMessage> = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "hm", providerOptions: { google: { thoughtSignature: "g" } } },
          { type: "tool-call", toolCallId: "c", toolName: "f", input: { x: 1 } }
        ]
      },
      {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: "c", toolName: "f", output: { type: "json", value: { ok: true } } },
          { type: "tool-result", toolCallId: "d", toolName: "f", output: { type: "error-json", value: "boom" } }
        ]
      },
      {
        role: "user",
        content: [{ type: "image", image: new Uint8Array(Buffer.from("not really a png")), mediaType: "image/png" }]
      },
      { role: "user", content: [{ type: "file", data: `data:image/png;base64,${png}`, mediaType: "image/png" }] }
    ]
    assert.deepStrictEqual(right(AiSdk.decode(messages)), [
      Message.system("Be brief."),
      Message.user("Hi"),
      Message.assistant([Block.reasoning("hm", { signature: "g" }), Block.toolCall("c", "f", { x: 1 })]),
      Message.user([
        Block.toolResult("c", "{\"ok\":true}"),
        Block.toolResult("d", "\"boom\"", { isError: true })
      ]),
      Message.user([Block.image(png, "image/png")]),
      Message.user([Block.image(png, "image/png")])
    ])
  })

  const failures: ReadonlyArray<readonly [string, ReadonlyArray<unknown>, string, string]> = [
    [
      "an image URL",
      [{ role: "user", content: [{ type: "image", image: "https://x.test/a.png", mediaType: "image/png" }] }],
      "UnsupportedContent",
      "image URL"
    ],
    [
      "an image without a media type",
      [{ role: "user", content: [{ type: "image", image: png }] }],
      "UnsupportedContent",
      "mediaType"
    ],
    [
      "a PDF",
      [{ role: "user", content: [{ type: "file", data: png, mediaType: "application/pdf" }] }],
      "UnsupportedContent",
      "application/pdf"
    ],
    [
      "a provider-executed call",
      [{
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c", toolName: "web", input: {}, providerExecuted: true }]
      }],
      "UnsupportedContent",
      "provider-executed"
    ],
    [
      "a denied execution",
      [{
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c", toolName: "f", output: { type: "execution-denied" } }]
      }],
      "UnsupportedContent",
      "execution-denied"
    ],
    [
      "input that is not an object",
      [{ role: "assistant", content: [{ type: "tool-call", toolCallId: "c", toolName: "f", input: "x" }] }],
      "InvalidToolArguments",
      "invalid tool arguments"
    ],
    ["an unknown role", [{ role: "developer", content: "x" }], "MalformedInput", "developer"]
  ]
  for (const [name, messages, tag, what] of failures) {
    it(`fails on ${name}`, () => {
      const error = left(AiSdk.decode(messages))
      assert.strictEqual(error._tag, tag)
      assert.strictEqual(error.messageIndex, 0)
      assert.include(error.message, what)
    })
  }

  it("reads Anthropic's redacted thinking in the canonical form, and writes it back", () => {
    const conversation = right(AiSdk.decode([{
      role: "assistant",
      content: [{ type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: "opaque" } } }]
    }]))
    assert.deepStrictEqual(conversation, [
      Message.assistant([Block.reasoning("", { signature: "opaque", detail: { anthropic: { redacted: true } } })])
    ])
    const [message] = right(AiSdk.encode(conversation))
    const part = message?.role === "assistant" && typeof message.content !== "string" ? message.content[0] : undefined
    assert.deepStrictEqual(part?.type === "reasoning" ? part.providerOptions?.anthropic : undefined, {
      redactedData: "opaque"
    })
  })

  it.prop("never throws", [FastCheck.anything()], ([input]) => {
    const result = AiSdk.decode(input)
    if (Either.isLeft(result)) assert.isTrue(ConversionError.isConversionError(result.left))
  })

  it.prop(
    "never throws on messages whose parts are arbitrary values",
    [FastCheck.array(FastCheck.record({
      role: FastCheck.constantFrom("system", "user", "assistant", "tool"),
      content: FastCheck.oneof(
        FastCheck.string(),
        FastCheck.array(FastCheck.record({
          type: FastCheck.constantFrom("text", "image", "file", "reasoning", "tool-call", "tool-result"),
          text: FastCheck.anything(),
          image: FastCheck.anything(),
          data: FastCheck.anything(),
          mediaType: FastCheck.anything(),
          input: FastCheck.anything(),
          output: FastCheck.anything(),
          providerOptions: FastCheck.anything()
        }, { requiredKeys: ["type"] }))
      )
    }))],
    ([input]) => {
      const result = AiSdk.decode(input)
      if (Either.isLeft(result)) assert.isTrue(ConversionError.isConversionError(result.left))
    }
  )
})

describe("AiSdk laws", () => {
  it.prop(
    "encode succeeds or fails at an existing message and block",
    [Conversation.Conversation],
    ([conversation]) => {
      const result = AiSdk.encode(conversation)
      if (Either.isRight(result)) return
      const error = result.left
      assert.oneOf(error._tag, ["UnsupportedBlock", "UnmatchedToolResult"])
      if (error._tag !== "UnsupportedBlock" && error._tag !== "UnmatchedToolResult") return
      assert.strictEqual(error.format, "ai-sdk")
      assert.deepStrictEqual(error.path, [error.messageIndex, "blocks", error.blockIndex])
      const block = conversation[error.messageIndex]?.blocks[error.blockIndex]
      assert.isDefined(block)
      if (error._tag === "UnsupportedBlock") assert.strictEqual(block!.type, error.blockType)
      else assert.strictEqual(block!.type, "tool_result")
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "decode(encode(c)) = c, also through JSON",
    [encodable],
    ([conversation]) => {
      const messages = right(AiSdk.encode(conversation))
      assert.deepStrictEqual(right(AiSdk.decode(messages)), conversation)
      assert.deepStrictEqual(right(AiSdk.decode(JSON.parse(JSON.stringify(messages)))), conversation)
    },
    { fastCheck: { numRuns: 200 } }
  )
})

// -----------------------------------------------------------------------------
// generateText against MockLanguageModelV3, tools run on a real session
// -----------------------------------------------------------------------------

const usage = (input: number, output: number): LanguageModelV3GenerateResult["usage"] => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined }
})

const answers: ReadonlyArray<LanguageModelV3GenerateResult> = [
  {
    content: [
      { type: "reasoning", text: "Look it up.", providerMetadata: { anthropic: { signature: "sig" } } },
      { type: "tool-call", toolCallId: "call_1", toolName: "lookup_order", input: JSON.stringify({ id: "4411" }) }
    ],
    finishReason: { unified: "tool-calls", raw: "tool_use" },
    usage: usage(10, 5),
    warnings: [],
    response: { id: "resp_1", modelId: "mock-1" }
  },
  {
    content: [{
      type: "tool-call",
      toolCallId: "call_2",
      toolName: "reply",
      input: JSON.stringify({ text: "Order 4411 is stalled at the hub." })
    }],
    finishReason: { unified: "tool-calls", raw: "tool_use" },
    usage: usage(20, 6),
    warnings: []
  }
]

/** A model that answers from a script, by how many assistant turns the prompt holds. */
const scripted = (seen: Array<LanguageModelV3Prompt>) =>
  new MockLanguageModelV3({
    doGenerate: (options) => {
      seen.push(options.prompt)
      const turn = options.prompt.filter((m) => m.role === "assistant").length
      return Promise.resolve(answers[turn]!)
    }
  })

const withSession = <A, E>(body: (session: Client.Session) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
    return yield* Effect.gen(function*() {
      const client = yield* Client.Client
      const session = yield* client.environment("support").session({ split: "train", index: 0 })
      return yield* body(session)
    }).pipe(Effect.scoped, Effect.provide(Client.layer({ baseUrl })))
  }).pipe(Effect.provide(ServerLive), Effect.provide(NodeHttpClient.layerUndici), Effect.scoped)

describe("AiSdk with generateText", () => {
  it.live("session tools run the calls; the answer feeds back into the conversation", () =>
    withSession((session) =>
      Effect.gen(function*() {
        const seen: Array<LanguageModelV3Prompt> = []
        const model = scripted(seen)
        const tools = yield* AiSdk.sessionToolSet(session)
        let conversation = yield* session.getMessages()
        const rewards: Array<number | null> = []
        for (let step = 0; step < 2; step++) {
          const messages = right(AiSdk.encode(conversation))
          const result = yield* Effect.promise(() => generateText({ model, messages, tools }))
          for (const { output } of AiSdk.toolOutputs(result)) rewards.push(output.reward)
          const turn = right(AiSdk.decodeResponse(result))
          assert.strictEqual(turn.stopReason, "tool_calls")
          assert.strictEqual(turn.providerStopReason, "tool_use")
          conversation = [...conversation, turn.message, ...(turn.toolResults ? [turn.toolResults] : [])]
        }
        assert.deepStrictEqual(rewards, [null, 1])
        assert.deepStrictEqual(conversation.slice(2), [
          Message.assistant([
            Block.reasoning("Look it up.", { signature: "sig" }),
            Block.toolCall("call_1", "lookup_order", { id: "4411" })
          ]),
          Message.user([Block.toolResult("call_1", "stalled at the hub")]),
          Message.assistant([Block.toolCall("call_2", "reply", { text: "Order 4411 is stalled at the hub." })]),
          Message.user([Block.toolResult("call_2", "sent")])
        ])
        // the second call sent the first turn back, signature included, and the result as text
        const assistant = seen[1]!.find((m) => m.role === "assistant")
        assert.deepStrictEqual(assistant?.content[0], {
          type: "reasoning",
          text: "Look it up.",
          providerOptions: { anthropic: { signature: "sig" }, openreward: { signature: "sig" } }
        })
        const tool = seen[1]!.find((m) => m.role === "tool")
        assert.deepStrictEqual(tool?.content[0] as unknown, {
          type: "tool-result",
          toolCallId: "call_1",
          toolName: "lookup_order",
          output: { type: "text", value: "stalled at the hub" },
          providerOptions: undefined
        })
      })
    ))

  it.live("plain tools leave the calls to the harness, with the server's schemas", () =>
    withSession((session) =>
      Effect.gen(function*() {
        const specs = yield* session.listTools()
        const model = new MockLanguageModelV3({ doGenerate: answers[0]! })
        const result = yield* Effect.promise(() =>
          generateText({ model, messages: right(AiSdk.encode(rich.slice(0, 2))), tools: right(AiSdk.tools(specs)) })
        )
        const turn = right(AiSdk.decodeResponse(result))
        assert.isUndefined(turn.toolResults)
        assert.strictEqual(turn.id, "resp_1")
        assert.strictEqual(turn.model, "mock-1")
        assert.deepStrictEqual(turn.usage, { inputTokens: 10, outputTokens: 5, totalTokens: 15 })
        assert.deepStrictEqual(turn.message.blocks.at(-1), Block.toolCall("call_1", "lookup_order", { id: "4411" }))
        const sent = model.doGenerateCalls[0]!.tools ?? []
        assert.deepStrictEqual(
          sent.map((t) => t.type === "function" ? t.inputSchema : undefined),
          specs.map((s): unknown => s.input_schema)
        )
      })
    ))

  it.live("a refused call reaches the model as an error result and the conversation as is_error", () =>
    withSession((session) =>
      Effect.gen(function*() {
        const tools = right(AiSdk.sessionTools([{ name: "nope", description: "", input_schema: null }], session))
        const model = new MockLanguageModelV3({
          doGenerate: {
            content: [{ type: "tool-call", toolCallId: "c", toolName: "nope", input: "{}" }],
            finishReason: { unified: "tool-calls", raw: undefined },
            usage: usage(1, 1),
            warnings: []
          }
        })
        const result = yield* Effect.promise(() => generateText({ model, prompt: "go", tools }))
        const error = result.content.find((p) => p.type === "tool-error")
        assert.strictEqual((error?.error as { _tag?: string })._tag, "ToolCallError")
        const turn = right(AiSdk.decodeResponse(result))
        const [block] = turn.toolResults?.blocks ?? []
        assert.strictEqual(block?.type, "tool_result")
        if (block?.type === "tool_result") {
          assert.isTrue(block.is_error)
          assert.include(block.blocks[0]?.type === "text" ? block.blocks[0].text : "", "nope")
        }
      })
    ))
})

describe("AiSdk.decodeResponse", () => {
  it("refuses a result of several steps, pointing at its messages", () => {
    const error = left(AiSdk.decodeResponse({
      response: {
        messages: [
          { role: "assistant", content: "a" },
          { role: "tool", content: [] },
          { role: "assistant", content: "b" }
        ]
      }
    }))
    assert.strictEqual(error._tag, "MalformedInput")
    assert.deepStrictEqual(error.path, ["response", "messages"])
    const inner = left(
      AiSdk.decodeResponse({ response: { messages: [{ role: "assistant", content: [{ type: "x" }] }] } })
    )
    assert.deepStrictEqual(inner.path, ["response", "messages", 0, "content", 0, "type"])
  })
})

// -----------------------------------------------------------------------------
// AiSdk.step: an Episode step on a LanguageModel
// -----------------------------------------------------------------------------

describe("AiSdk.step", () => {
  it.live("runs an episode on a MockLanguageModelV3: calls unresolved, each run once by the episode", () =>
    withSession((session) =>
      Effect.gen(function*() {
        const seen: Array<LanguageModelV3Prompt> = []
        const model = scripted(seen)
        const episode = yield* Episode.run(session, AiSdk.step(model, { temperature: 0 }))
        assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "reply" })
        assert.deepStrictEqual(episode.rewards, [1])
        assert.deepStrictEqual(episode.calls.map((c) => [c.name, c.input]), [
          ["lookup_order", { id: "4411" }],
          ["reply", { text: "Order 4411 is stalled at the hub." }]
        ])
        assert.deepStrictEqual(episode.usage, { inputTokens: 30, outputTokens: 11, totalTokens: 41 })
        assert.deepStrictEqual(episode.conversation.slice(2), [
          Message.assistant([
            Block.reasoning("Look it up.", { signature: "sig" }),
            Block.toolCall("call_1", "lookup_order", { id: "4411" })
          ]),
          Message.user([Block.toolResult("call_1", "stalled at the hub")]),
          Message.assistant([Block.toolCall("call_2", "reply", { text: "Order 4411 is stalled at the hub." })]),
          Message.user([Block.toolResult("call_2", "sent")])
        ])
        // one model call per turn, the settings passed, the tools with the server's schemas
        assert.strictEqual(model.doGenerateCalls.length, 2)
        assert.strictEqual(model.doGenerateCalls[0]!.temperature, 0)
        const specs = yield* session.listTools()
        assert.deepStrictEqual(
          (model.doGenerateCalls[0]!.tools ?? []).map((t) => t.type === "function" ? [t.name, t.inputSchema] : t),
          specs.map((s): unknown => [s.name, s.input_schema])
        )
        // the second call carried the first turn and the session's result
        const tool = seen[1]!.find((m) => m.role === "tool")
        assert.deepStrictEqual((tool?.content[0] as { output?: unknown }).output, {
          type: "text",
          value: "stalled at the hub"
        })
      })
    ))

  it.live("a call of a tool the model was not offered goes to the server, which refuses it", () =>
    withSession((session) =>
      Effect.gen(function*() {
        const model = new MockLanguageModelV3({
          doGenerate: (options) =>
            Promise.resolve(
              options.prompt.some((m) => m.role === "tool")
                ? { ...answers[1]! }
                : {
                  content: [{ type: "tool-call", toolCallId: "c0", toolName: "nope", input: "{}" }],
                  finishReason: { unified: "tool-calls", raw: undefined },
                  usage: usage(1, 1),
                  warnings: []
                }
            )
        })
        const episode = yield* Episode.run(session, AiSdk.step(model))
        assert.deepStrictEqual(episode.calls.map((c) => [c.name, c.refused]), [["nope", true], ["reply", false]])
        assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "reply" })
        // the refusal was answered once, by the episode
        const results = episode.conversation.flatMap((m): ReadonlyArray<Block.Block> => m.blocks).flatMap((b) =>
          b.type === "tool_result" ? [[b.tool_call_id, b.is_error]] : []
        )
        assert.deepStrictEqual(results, [
          ["c0", true],
          ["call_2", false]
        ])
      })
    ))

  it.live("a failed call is a ModelCallFailed ending the episode, the conversation kept", () =>
    withSession((session) =>
      Effect.gen(function*() {
        const model = new MockLanguageModelV3({
          doGenerate: () =>
            Promise.reject(
              new APICallError({
                message: "bad key",
                url: "http://127.0.0.1/v1",
                requestBodyValues: {},
                statusCode: 401,
                isRetryable: false
              })
            )
        })
        const episode = yield* Episode.run(session, AiSdk.step(model, { maxRetries: 0 }))
        assert.strictEqual(episode.stop._tag, "Failed")
        const error = Option.getOrThrow(Episode.failure(episode))
        assert.strictEqual(error._tag, "ModelCallFailed")
        if (error._tag === "ModelCallFailed") {
          assert.deepStrictEqual([error.api, error.status, error.reason], ["ai-sdk", 401, "bad key"])
        }
        assert.strictEqual(episode.conversation.length, 2)
      })
    ))

  for (const stream of [false, true]) {
    for (const api of ["chat", "responses"] as const) {
      it.live(`@ai-sdk/openai ${api} on the stand-in${stream ? ", streaming" : ""}: DialogueEnv's reward`, () =>
        Effect.gen(function*() {
          const reply = "Sorry for the wait: order #4411 is delayed at the carrier."
          const standIn = yield* Testing.scoped(() =>
            Testing.standIn(api === "chat" ? "openai-chat" : "openai-responses", {
              toolInput: () => ({ answer: reply })
            })
          )
          const provider = createOpenAI({ baseURL: `${standIn.url}/v1`, apiKey: "stand-in" })
          const model = api === "chat" ? provider.chat("gpt-4.1-mini") : provider.responses("gpt-4.1-mini")
          const { address } = yield* HttpServer.HttpServer
          const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
          const episodes = yield* Effect.gen(function*() {
            const env = yield* Client.environment("dialogueenv", { variant: "dialogueenv" })
            return yield* Episode.runMany(env, [{ split: "train", index: 0 }], AiSdk.step(model, { stream }), {
              progress: false
            })
          }).pipe(Effect.provide(Client.layer({ baseUrl, apiKey: "" })))
          const [episode] = episodes
          assert.deepStrictEqual(episode?.stop, { _tag: "Finished", tool: "submit" })
          assert.strictEqual(episode?.totalReward, 1)
          assert.deepStrictEqual(episode?.calls.map((c) => [c.name, c.input]), [["submit", { answer: reply }]])
          assert.isAbove(episode?.usage.inputTokens ?? 0, 0)
          assert.strictEqual(standIn.requests.length, 1)
          assert.strictEqual((standIn.requests[0]!.body as { stream?: boolean }).stream === true, stream)
        }).pipe(Effect.provide(ExamplesLive), Effect.provide(NodeHttpClient.layerUndici), Effect.scoped))
    }
  }
})
