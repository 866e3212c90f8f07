/**
 * The Responses API answer back into the conversation, tested with the official `openai` SDK: its
 * own types for `Response` objects and stream events, and its client talking to a loopback stand-in
 * of the API (examples/standin/openaiResponses.ts), in a harness loop over a session of this
 * library's server.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Http from "node:http"
import OpenAI from "openai"
import type * as OpenAiTypes from "openai/resources/responses/responses"
import {
  ApiRequest,
  Block,
  type Conversation,
  Environment,
  Message,
  type ModelResponse,
  OpenAiResponsesFormat,
  Tool,
  ToolFormat
} from "openreward-effect"
import * as Client from "openreward-effect/Client"
import * as Server from "openreward-effect/Server"
import * as Testing from "openreward-effect/Testing"
import * as StandIn from "../src/internal/testing/openaiResponses.js"

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) assert.fail(`expected Right, got ${String(either.left)}`)
  return either.right
}

const left = <A, E>(either: Either.Either<A, E>): E => {
  if (Either.isRight(either)) assert.fail(`expected Left, got ${JSON.stringify(either.right)}`)
  return either.left
}

const base: OpenAiTypes.Response = StandIn.answer({ model: "gpt-test", input: [] }, 0)

const withOutput = (
  output: Array<OpenAiTypes.ResponseOutputItem>,
  patch: Partial<OpenAiTypes.Response> = {}
): OpenAiTypes.Response => ({ ...base, output, ...patch })

const openai = (meta: { readonly id?: string; readonly phase?: string; readonly part?: string }) => ({
  detail: { openai: meta }
})

describe("OpenAiResponsesFormat.decodeResponse", () => {
  it("reads every kind of output item an SDK Response holds, in order", () => {
    const response = withOutput([
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "Look it up." }, { type: "summary_text", text: "Then answer." }],
        encrypted_content: "ENC"
      },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        phase: "commentary",
        content: [{ type: "output_text", text: "Checking.", annotations: [] }]
      },
      {
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "lookup_order",
        arguments: "{\"id\":\"4411\"}",
        status: "completed"
      }
    ])
    const decoded: ModelResponse.ModelResponse = right(OpenAiResponsesFormat.decodeResponse(response))
    assert.deepStrictEqual(
      decoded.message,
      Message.assistant([
        Block.reasoning("Look it up.", { signature: "ENC", ...openai({ id: "rs_1" }) }),
        Block.reasoning("Then answer.", { signature: "ENC", ...openai({ id: "rs_1" }) }),
        Block.text("Checking.", openai({ id: "msg_1", phase: "commentary" })),
        Block.toolCall("call_1", "lookup_order", { id: "4411" }, openai({ id: "fc_1" }))
      ])
    )
    assert.strictEqual(decoded.stopReason, "tool_calls")
    assert.strictEqual(decoded.providerStopReason, "completed")
    assert.strictEqual(decoded.id, "resp_0")
    assert.strictEqual(decoded.model, "gpt-test")
    assert.deepStrictEqual(decoded.usage, {
      inputTokens: 0,
      outputTokens: 5,
      totalTokens: 5,
      reasoningTokens: 0,
      cachedInputTokens: 0
    })
    // the turn goes back as the same items
    assert.deepStrictEqual(right(OpenAiResponsesFormat.encode([decoded.message], { toolArguments: "json" })), [
      {
        type: "reasoning",
        id: "rs_1",
        summary: response.output[0]!.type === "reasoning" ? response.output[0]!.summary : [],
        encrypted_content: "ENC"
      },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Checking.", annotations: [] }],
        phase: "commentary"
      },
      { type: "function_call", call_id: "call_1", name: "lookup_order", arguments: "{\"id\":\"4411\"}", id: "fc_1" }
    ])
  })

  it("a refusal is text in the turn, the refusal, and the stop reason", () => {
    const decoded = right(OpenAiResponsesFormat.decodeResponse(withOutput([{
      type: "message",
      id: "msg_2",
      role: "assistant",
      status: "completed",
      content: [{ type: "refusal", refusal: "I can't help with that." }]
    }])))
    assert.strictEqual(decoded.refusal, "I can't help with that.")
    assert.strictEqual(decoded.stopReason, "refusal")
    assert.deepStrictEqual(decoded.message.blocks, [
      Block.text("I can't help with that.", openai({ id: "msg_2", part: "refusal" }))
    ])
  })

  it("incomplete responses: max_output_tokens and content_filter", () => {
    for (
      const [reason, stop] of [["max_output_tokens", "max_tokens"], ["content_filter", "content_filter"]] as const
    ) {
      const decoded = right(OpenAiResponsesFormat.decodeResponse(
        withOutput([], { status: "incomplete", incomplete_details: { reason } })
      ))
      assert.strictEqual(decoded.stopReason, stop)
      assert.strictEqual(decoded.providerStopReason, reason)
    }
  })

  it("items with no canonical form and failed responses are errors, never dropped", () => {
    const search = left(OpenAiResponsesFormat.decodeResponse(withOutput([
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "q" } }
    ])))
    assert.strictEqual(search._tag, "UnsupportedContent")
    assert.deepStrictEqual(search.path, ["output", 0, "type"])
    assert.include(search.message, "web_search_call")
    const failed = left(OpenAiResponsesFormat.decodeResponse(withOutput([], {
      status: "failed",
      error: { code: "server_error", message: "The model crashed." }
    })))
    assert.deepStrictEqual(
      failed._tag === "ProviderError" && [failed.code, failed.reason, failed.path],
      ["server_error", "The model crashed.", ["error"]]
    )
    assert.strictEqual(
      failed.message,
      "openai-responses: the provider answered with an error (server_error): The model crashed."
    )
    const args = left(OpenAiResponsesFormat.decodeResponse(withOutput([
      { type: "function_call", call_id: "c", name: "f", arguments: "{oops" }
    ])))
    assert.strictEqual(args._tag, "InvalidToolArguments")
    assert.deepStrictEqual(args.path, ["output", 0, "arguments"])
    assert.strictEqual(left(OpenAiResponsesFormat.decodeResponse({ id: 1 }))._tag, "MalformedInput")
  })
})

const run = (events: ReadonlyArray<OpenAiTypes.ResponseStreamEvent | unknown>) =>
  Effect.either(OpenAiResponsesFormat.decodeStream(Stream.fromIterable(events)))

describe("OpenAiResponsesFormat.decodeStream", () => {
  const request = {
    model: "gpt-test",
    input: [{ role: "user", content: "Hi" }],
    tools: [{ type: "function", name: "f" }]
  }
  const response = StandIn.answer(request, 3)
  const events = StandIn.events(response) as Array<OpenAiTypes.ResponseStreamEvent>

  it.effect("folds SDK-typed events into what decodeResponse gives for the final response", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(right(yield* run(events)), right(OpenAiResponsesFormat.decodeResponse(response)))
    }))

  it.effect("rebuilds the items from added and delta events when the final response lists no output", () =>
    Effect.gen(function*() {
      const withoutDone = events
        .filter((e) => e.type !== "response.output_item.done")
        .map((e) => e.type === "response.completed" ? { ...e, response: { ...e.response, output: [] } } : e)
      const rebuilt = right(yield* run(withoutDone))
      const expected = right(OpenAiResponsesFormat.decodeResponse(response))
      // the added reasoning item had no encrypted content yet: only the done item brings it
      assert.deepStrictEqual(rebuilt.message.blocks.map((b) => b.type), expected.message.blocks.map((b) => b.type))
      assert.deepStrictEqual(rebuilt.message.blocks[1], expected.message.blocks[1])
      assert.strictEqual(
        rebuilt.message.blocks[0]?.type === "reasoning" && rebuilt.message.blocks[0].text,
        "I should call f."
      )
    }))

  it.effect("a stream cut short, an error event and a non-event are errors", () =>
    Effect.gen(function*() {
      const cut = left(yield* run(events.slice(0, -1)))
      assert.strictEqual(cut._tag, "IncompleteStream")
      assert.include(cut.message, "without response.completed")
      // a second response after the first one's last event is not part of it
      const twice = left(yield* run([...events, ...events]))
      assert.deepStrictEqual(
        twice._tag === "IncompleteStream" && [twice.eventIndex, twice.reason],
        [
          events.length,
          `the stream goes on after its response ended (response.created of response ${response.id} after ` +
          "completed): a stream holds one response"
        ]
      )
      const error: OpenAiTypes.ResponseErrorEvent = {
        type: "error",
        code: "rate_limit_exceeded",
        message: "Slow down.",
        param: null,
        sequence_number: 1
      }
      const failed = left(yield* run([events[0], error]))
      assert.strictEqual(
        failed.message,
        "openai-responses: event 1: the provider answered with an error (rate_limit_exceeded): Slow down."
      )
      assert.strictEqual(left(yield* run([5]))._tag, "MalformedInput")
    }))
})

describe("the official openai client against the stand-in", () => {
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
        handler: ({ id }) => Tool.output(`order ${id}: stalled at the Leeds hub`)
      })
    ]
  })
  const ServerLive = Server.layer([Support]).pipe(
    Layer.provideMerge(NodeHttpServer.layer(() => Http.createServer(), { port: 0 }))
  )

  /** One model call, streamed or not, decoded. */
  const call = (client: OpenAI, request: ApiRequest.Request<"openai-responses">, stream: boolean) =>
    stream
      ? Effect.flatMap(
        Effect.promise(() => client.responses.create({ model: "gpt-test", ...request, stream: true })),
        (events) => OpenAiResponsesFormat.decodeStream(Stream.fromAsyncIterable(events, (e) => e))
      )
      : Effect.flatMap(
        Effect.promise(() => client.responses.create({ model: "gpt-test", ...request })),
        (response) => OpenAiResponsesFormat.decodeResponse(response)
      )

  for (const stream of [false, true]) {
    it.live(`a harness loop: answer, tool call, tool result, final answer (stream: ${stream})`, () =>
      Effect.gen(function*() {
        const { address } = yield* HttpServer.HttpServer
        const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : assert.fail("no port")
        const standIn = yield* Testing.scoped(() =>
          Testing.standIn("openai-responses", { toolInput: () => ({ id: "4411" }) })
        )
        const openai = new OpenAI({ apiKey: "test", baseURL: `${standIn.url}/v1`, maxRetries: 0 })
        const client = yield* Layer.build(
          Client.layer({ baseUrl, apiKey: "k" }).pipe(Layer.provide(NodeHttpClient.layerUndici))
        ).pipe(Effect.map(Context.get(Client.Client)))
        const session = yield* client.environment("support").session({ split: "train", index: 0 })

        let conversation: Conversation.Conversation = yield* session.getMessages()
        const first = yield* call(openai, yield* session.request("openai-responses"), stream)
        assert.strictEqual(first.stopReason, "tool_calls")
        conversation = [...conversation, first.message]
        const calls = first.message.blocks.filter((b) => b.type === "tool_call")
        assert.deepStrictEqual(calls.map((c) => [c.name, c.input]), [["lookup_order", { id: "4411" }]])
        const results = []
        for (const c of calls) {
          const output = yield* session.callTool(c.name, c.input)
          results.push(Block.toolResult(c.id, output.blocks))
        }
        conversation = [...conversation, Message.user(results)]

        const tools = yield* session.listTools()
        const second = yield* call(openai, right(ApiRequest.make("openai-responses", conversation, tools)), stream)
        assert.strictEqual(second.stopReason, "stop")
        assert.deepStrictEqual(second.message.blocks.map((b) => b.type === "text" && b.text), [
          "The tool said: order 4411: stalled at the Leeds hub"
        ])
        conversation = [...conversation, second.message]
        assert.strictEqual(conversation.length, 5)

        // what the stand-in received: the reasoning and the call went back by their ids
        const sent = standIn.requests[1]!.body as OpenAiTypes.ResponseCreateParams
        assert.strictEqual(sent.stream ?? false, stream)
        const input = sent.input as Array<OpenAiTypes.ResponseInputItem>
        assert.deepStrictEqual(input.slice(2).map((i) => i.type), [
          "reasoning",
          "function_call",
          "function_call_output"
        ])
        assert.deepStrictEqual(input[2], {
          type: "reasoning",
          id: "rs_0",
          summary: [{ type: "summary_text", text: "I should call lookup_order." }],
          encrypted_content: "enc_0"
        })
      }).pipe(Effect.scoped, Effect.provide(ServerLive)))
  }

  it.live("tools in the Chat Completions shape are a 400, as from the API; the matched request is not", () =>
    Effect.gen(function*() {
      const standIn = yield* Testing.scoped(() => Testing.standIn("openai-responses"))
      const openai = new OpenAI({ apiKey: "test", baseURL: `${standIn.url}/v1`, maxRetries: 0 })
      const specs = [{ name: "lookup_order", description: "Find an order.", input_schema: null }]
      const chatTools = right(ToolFormat.convert(specs, "openai-compatible"))
      const input = right(ApiRequest.make("openai-responses", [Message.user("Hi")], [])).input
      const error = yield* Effect.flip(Effect.tryPromise(() =>
        // what the mismatch looks like: chat-shaped tools sent to the Responses API
        openai.responses.create({ model: "m", input, tools: chatTools as unknown as Array<OpenAiTypes.Tool> })
      ))
      assert.instanceOf(error.error, OpenAI.BadRequestError)
      assert.include(String(error.error), "tools[0].name")
      const ok = yield* Effect.promise(() =>
        openai.responses.create({
          model: "m",
          ...right(ApiRequest.make("openai-responses", [Message.user("Hi")], specs))
        })
      )
      assert.strictEqual(right(OpenAiResponsesFormat.decodeResponse(ok)).stopReason, "tool_calls")
    }).pipe(Effect.scoped))
})
