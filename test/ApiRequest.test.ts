import type Anthropic from "@anthropic-ai/sdk"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import type { GoogleGenAI } from "@google/genai"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Http from "node:http"
import type OpenAI from "openai"
import {
  AnthropicFormat,
  ApiRequest,
  Block,
  Environment,
  GoogleFormat,
  Message,
  OpenAiFormat,
  OpenAiResponsesFormat,
  OpenRouterFormat,
  type Protocol,
  Tool,
  ToolFormat
} from "openreward-effect"
import * as Client from "openreward-effect/Client"
import * as Server from "openreward-effect/Server"

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) assert.fail(`expected Right, got ${String(either.left)}`)
  return either.right
}

const left = <A, E>(either: Either.Either<A, E>): E => {
  if (Either.isRight(either)) assert.fail(`expected Left, got ${JSON.stringify(either.right)}`)
  return either.left
}

const tools: ReadonlyArray<Protocol.ToolSpec> = [
  {
    name: "lookup_order",
    description: "Find an order.",
    input_schema: { type: "object", properties: { id: { type: "string", title: "Id" } }, required: ["id"] }
  },
  { name: "ping", description: "No input.", input_schema: null }
]

const conversation = [
  Message.system("You are a support agent."),
  Message.user("Where is order 4411?"),
  Message.assistant([Block.toolCall("call_1", "lookup_order", { id: "4411" })]),
  Message.user([Block.toolResult("call_1", "stalled at hub")])
]

// The requests spread into each SDK's create call with no cast: these type-check or the suite fails.
export const typed = {
  chat: (client: OpenAI, r: ApiRequest.Request<"openai-chat">) => client.chat.completions.create({ model: "m", ...r }),
  openrouter: (client: OpenAI, r: ApiRequest.Request<"openrouter">) =>
    client.chat.completions.create({ model: "m", ...r }),
  responses: (client: OpenAI, r: ApiRequest.Request<"openai-responses">) =>
    client.responses.create({ model: "m", ...r }),
  anthropic: (client: Anthropic, r: ApiRequest.Request<"anthropic">) =>
    client.messages.create({ model: "m", max_tokens: 1024, ...r }),
  google: (client: GoogleGenAI, r: ApiRequest.Request<"google">) => client.models.generateContent({ model: "m", ...r })
}

describe("ApiRequest.make", () => {
  it("openai-chat: the Chat Completions messages and nested tools, parameters always an object", () => {
    const request = right(ApiRequest.make("openai-chat", conversation, tools))
    assert.deepStrictEqual(request.messages, right(OpenAiFormat.encode(conversation)))
    assert.deepStrictEqual(request.tools, [
      {
        type: "function",
        function: {
          name: "lookup_order",
          description: "Find an order.",
          parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }
        }
      },
      {
        type: "function",
        function: { name: "ping", description: "No input.", parameters: { type: "object", properties: {} } }
      }
    ])
  })

  it("openrouter: OpenRouter's messages, with its options, and the same nested tools", () => {
    const request = right(ApiRequest.make("openrouter", conversation, tools, { reasoningField: "reasoning" }))
    assert.deepStrictEqual(
      request.messages,
      right(OpenRouterFormat.encode(conversation, { reasoningField: "reasoning" }))
    )
    assert.deepStrictEqual(request.tools, right(ApiRequest.make("openai-chat", conversation, tools)).tools)
  })

  it("openai-responses: input items and flat tools with strict: false", () => {
    const request = right(ApiRequest.make("openai-responses", conversation, tools))
    assert.deepStrictEqual<unknown>(request.input, right(OpenAiResponsesFormat.encode(conversation)))
    assert.deepStrictEqual(
      request.tools,
      right(ToolFormat.convert(tools, "openai")).map((tool) => ({ ...tool, strict: false as const }))
    )
  })

  it("anthropic: system only when there is one, tools with object input schemas", () => {
    const request = right(ApiRequest.make("anthropic", conversation, tools))
    const wire = right(AnthropicFormat.encode(conversation))
    assert.deepStrictEqual(request, {
      system: wire.system as string,
      messages: wire.messages as Array<ApiRequest.AnthropicMessage>,
      tools: right(ToolFormat.convert(tools, "anthropic")) as Array<ApiRequest.AnthropicTool>
    })
    assert.isFalse("system" in right(ApiRequest.make("anthropic", conversation.slice(1), [])))
  })

  it("google: camelCase contents, the system instruction and the function declarations in config", () => {
    const request = right(ApiRequest.make("google", conversation, tools))
    const wire = right(GoogleFormat.encode(conversation, { casing: "camel" }))
    assert.deepStrictEqual(request.contents, wire.contents as ApiRequest.GoogleRequest["contents"])
    assert.deepStrictEqual(request.config, {
      systemInstruction: "You are a support agent.",
      tools: [{
        functionDeclarations: [
          {
            name: "lookup_order",
            description: "Find an order.",
            parametersJsonSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }
          },
          { name: "ping", description: "No input." }
        ]
      }]
    })
    assert.deepStrictEqual(right(ApiRequest.make("google", [Message.user("Hi")], [])).config, { tools: [] })
  })

  it("rejects what the API would reject and the format lets through", () => {
    const systemImage = [Message.system([Block.image("AA", "image/png")]), Message.user("Hi")]
    assert.isTrue(Either.isRight(OpenAiFormat.encode(systemImage)))
    const chat = left(ApiRequest.make("openai-chat", systemImage, []))
    assert.strictEqual(chat._tag, "UnsupportedBlock")
    assert.deepStrictEqual(chat._tag === "UnsupportedBlock" && chat.path, [0, "blocks", 0])

    const unsigned = [Message.user("Why?"), Message.assistant([Block.reasoning("Because."), Block.text("So.")])]
    assert.isTrue(Either.isRight(AnthropicFormat.encode(unsigned)))
    assert.strictEqual(left(ApiRequest.make("anthropic", unsigned, []))._tag, "UnsupportedBlock")
    assert.deepStrictEqual(
      right(ApiRequest.make("anthropic", unsigned, [], { unsignedReasoning: "text" })).messages[1],
      {
        role: "assistant",
        content: [{ type: "text", text: "Because." }, { type: "text", text: "So." }]
      }
    )

    const tiff = [Message.user([Block.toolResult("t", [Block.image("AA", "image/tiff")])])]
    const media = left(ApiRequest.make("anthropic", tiff, []))
    assert.deepStrictEqual(media._tag === "UnsupportedBlock" && media.path, [0, "blocks", 0, "blocks", 0])

    const arraySchema = [{ name: "list", description: "", input_schema: { type: "array", items: {} } }]
    const schema = left(ApiRequest.make("anthropic", [], arraySchema))
    assert.strictEqual(schema._tag, "MalformedInput")
    assert.include(schema.message, "object schemas only")
  })

  it("lists every API", () => {
    assert.deepStrictEqual(ApiRequest.apis, ["openai-chat", "openai-responses", "anthropic", "google", "openrouter"])
  })
})

describe("Session.request against this library's server", () => {
  const Order = Schema.Struct({ order: Schema.String })
  const Support = Environment.make({
    name: "Support",
    task: Order,
    splits: ["train"],
    tasks: { train: [{ order: "4411" }] },
    messages: ({ task }) => [
      Message.system("You are a support agent for Acme."),
      Message.user(`My order #${task.order} hasn't arrived.`)
    ],
    tools: [
      Tool.make("lookup_order", {
        description: "Find an order.",
        input: Schema.Struct({ id: Schema.String }),
        handler: ({ id }) => Tool.output(`order ${id}: stalled at hub`)
      })
    ]
  })
  const ServerLive = Server.layer([Support]).pipe(
    Layer.provideMerge(NodeHttpServer.layer(() => Http.createServer(), { port: 0 }))
  )

  it.live("returns, for every API, make over the session's conversation and tools", () =>
    Effect.gen(function*() {
      const { address } = yield* HttpServer.HttpServer
      const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : assert.fail("no port")
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* Client.Client
        const session = yield* client.environment("support").session({ split: "train", index: 0 })
        const conversation = yield* session.getMessages()
        const specs = yield* session.listTools()
        for (const api of ApiRequest.apis) {
          assert.deepStrictEqual(yield* session.request(api), right(ApiRequest.make(api, conversation, specs)))
        }
        const responses = yield* session.request("openai-responses", { systemRole: "developer" })
        assert.deepStrictEqual(responses.input[0], {
          type: "message",
          role: "developer",
          content: "You are a support agent for Acme."
        })
        assert.deepStrictEqual(responses.tools.map((t) => [t.name, t.strict]), [["lookup_order", false]])
        const chat = yield* session.request("openai-chat")
        assert.deepStrictEqual(chat.tools.map((t) => t.function.name), ["lookup_order"])
      })).pipe(Effect.provide(Client.layer({ baseUrl, apiKey: "k" }).pipe(Layer.provide(NodeHttpClient.layerUndici))))
    }).pipe(Effect.provide(ServerLive)))
})
