/**
 * Tool-call arguments that are not a JSON object (issue 19 part 4): every format whose calls carry
 * their arguments as text (Chat Completions and OpenRouter, the Responses API, Anthropic streams'
 * `input_json_delta`) fails with `InvalidToolArguments` by default, and with
 * `invalidToolArguments: "keep"` keeps the call (input `{}`, the text and the reason under
 * `detail.invalid_arguments`), whole or streamed, transcript or answer; `ModelStep` keeps them
 * unless told otherwise, so that `Episode.run` answers them.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"
import * as Block from "openreward-effect/Block"
import * as Message from "openreward-effect/Message"
import type * as ModelResponse from "openreward-effect/ModelResponse"
import * as ModelStep from "openreward-effect/ModelStep"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import * as OpenAiResponsesFormat from "openreward-effect/OpenAiResponsesFormat"
import * as OpenRouterFormat from "openreward-effect/OpenRouterFormat"

const cut = "{\"city\": \"Par"
const array = "[1, 2]"

/** The turn's calls: a good one, one cut off, one whose arguments are an array. */
const expected = [
  Block.toolCall("c1", "weather", { city: "Oslo" }),
  Block.toolCallWithInvalidArguments("c2", "weather", { raw: cut, reason: "not valid JSON" }),
  Block.toolCallWithInvalidArguments("c3", "weather", { raw: array, reason: "expected a JSON object, actual an array" })
]
const args = ["{\"city\": \"Oslo\"}", cut, array]

const chatCompletion = {
  id: "chatcmpl-1",
  model: "m",
  choices: [{
    index: 0,
    finish_reason: "length",
    message: {
      role: "assistant",
      content: null,
      tool_calls: args.map((a, k) => ({
        id: `c${k + 1}`,
        type: "function",
        function: { name: "weather", arguments: a }
      }))
    }
  }]
}

const chatChunks = [
  { id: "chatcmpl-1", model: "m", choices: [{ index: 0, delta: { role: "assistant", content: null } }] },
  ...args.flatMap((a, k) => [
    {
      id: "chatcmpl-1",
      model: "m",
      choices: [{
        index: 0,
        delta: {
          tool_calls: [{ index: k, id: `c${k + 1}`, type: "function", function: { name: "weather", arguments: "" } }]
        }
      }]
    },
    // the arguments in two pieces
    ...[a.slice(0, 4), a.slice(4)].map((piece) => ({
      id: "chatcmpl-1",
      model: "m",
      choices: [{ index: 0, delta: { tool_calls: [{ index: k, function: { arguments: piece } }] } }]
    }))
  ]),
  { id: "chatcmpl-1", model: "m", choices: [{ index: 0, delta: {}, finish_reason: "length" }] }
]

const responsesItems = args.map((a, k) => ({
  type: "function_call",
  id: `fc_${k + 1}`,
  call_id: `c${k + 1}`,
  name: "weather",
  arguments: a,
  status: "completed"
}))
const responsesResponse = { id: "resp_1", model: "m", status: "completed", output: responsesItems }
const responsesEvents = [
  ...responsesItems.flatMap((item, k) => [
    { type: "response.output_item.added", output_index: k, item: { ...item, arguments: "" } },
    { type: "response.function_call_arguments.delta", output_index: k, delta: item.arguments },
    { type: "response.output_item.done", output_index: k, item }
  ]),
  { type: "response.completed", response: { ...responsesResponse, output: [] } }
]

const anthropicEvents = [
  {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "m",
      content: [],
      stop_reason: null,
      usage: { input_tokens: 3, output_tokens: 0 }
    }
  },
  ...args.flatMap((a, k) => [
    {
      type: "content_block_start",
      index: k,
      content_block: { type: "tool_use", id: `c${k + 1}`, name: "weather", input: {} }
    },
    { type: "content_block_delta", index: k, delta: { type: "input_json_delta", partial_json: a.slice(0, 3) } },
    { type: "content_block_delta", index: k, delta: { type: "input_json_delta", partial_json: a.slice(3) } },
    { type: "content_block_stop", index: k }
  ]),
  { type: "message_delta", delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 9 } },
  { type: "message_stop" }
]

/** Where the cut call is, by format, in the error (the first invalid call stops the default decode). */
const paths = {
  openai: ["choices", 0, "message", "tool_calls", 1, "function", "arguments"],
  responses: ["output", 1, "arguments"],
  anthropic: ["content", 1, "input"]
} as const

type Decoders = {
  readonly [name: string]: {
    readonly path: ReadonlyArray<string | number>
    readonly run: (
      options: { readonly invalidToolArguments?: "error" | "keep" } | undefined
    ) => Effect.Effect<ModelResponse.ModelResponse, { readonly _tag: string; readonly path?: unknown }>
  }
}

const decoders: Decoders = {
  "openai decodeResponse": {
    path: paths.openai,
    run: (options) => OpenAiFormat.decodeResponse(chatCompletion, options)
  },
  "openai decodeStream": {
    path: paths.openai,
    run: (options) => OpenAiFormat.decodeStream(Stream.fromIterable(chatChunks), options)
  },
  "openrouter decodeResponse": {
    path: paths.openai,
    run: (options) => OpenRouterFormat.decodeResponse(chatCompletion, options)
  },
  "openrouter decodeStream": {
    path: paths.openai,
    run: (options) => OpenRouterFormat.decodeStream(Stream.fromIterable(chatChunks), options)
  },
  "openai-responses decodeResponse": {
    path: paths.responses,
    run: (options) => OpenAiResponsesFormat.decodeResponse(responsesResponse, options)
  },
  "openai-responses decodeStream": {
    path: paths.responses,
    run: (options) => OpenAiResponsesFormat.decodeStream(Stream.fromIterable(responsesEvents), options)
  },
  "anthropic decodeStream": {
    path: paths.anthropic,
    run: (options) => AnthropicFormat.decodeStream(Stream.fromIterable(anthropicEvents), options)
  }
}

const calls = (response: ModelResponse.ModelResponse) => response.message.blocks.filter((b) => b.type === "tool_call")

/** A block's `detail` without what a format keeps of its own (the Responses item id). */
const withoutFormatDetail = (block: Block.ToolCallBlock): Block.ToolCallBlock => {
  const { openai: _, ...rest } = block.detail ?? {}
  return { ...block, detail: Object.keys(rest).length === 0 ? null : rest }
}

describe("invalid tool arguments", () => {
  for (const [name, { path, run }] of Object.entries(decoders)) {
    it.effect(`${name}: an InvalidToolArguments by default, the call kept with "keep"`, () =>
      Effect.gen(function*() {
        for (const options of [undefined, { invalidToolArguments: "error" as const }]) {
          const error = yield* Effect.flip(run(options))
          assert.strictEqual(error._tag, "InvalidToolArguments", name)
          assert.deepStrictEqual(error.path, path, name)
        }
        const kept = yield* run({ invalidToolArguments: "keep" })
        assert.deepStrictEqual(calls(kept).map(withoutFormatDetail), expected, name)
        assert.strictEqual(kept.stopReason === "max_tokens" || kept.stopReason === "tool_calls", true)
        assert.deepStrictEqual(calls(kept).map(Block.invalidArguments), [
          undefined,
          { raw: cut, reason: "not valid JSON" },
          { raw: array, reason: "expected a JSON object, actual an array" }
        ])
      }))
  }

  it("transcripts: decode keeps them too (Chat Completions, OpenRouter, Responses)", () => {
    const chat = [chatCompletion.choices[0]!.message]
    for (const codec of [OpenAiFormat, OpenRouterFormat]) {
      const strict = codec.decode(chat)
      assert.isTrue(Either.isLeft(strict) && strict.left._tag === "InvalidToolArguments")
      const kept = Either.getOrThrow(codec.decode(chat, { invalidToolArguments: "keep" }))
      assert.deepStrictEqual(kept, [Message.assistant(expected)])
    }
    const strict = OpenAiResponsesFormat.decode(responsesItems)
    assert.isTrue(Either.isLeft(strict) && strict.left._tag === "InvalidToolArguments")
    const kept = Either.getOrThrow(OpenAiResponsesFormat.decode(responsesItems, { invalidToolArguments: "keep" }))
    assert.deepStrictEqual(kept[0]?.blocks.map((b) => withoutFormatDetail(b as Block.ToolCallBlock)), expected)
  })

  it("a kept call encodes with input {} (the raw text rides in detail, which no provider writes)", () => {
    const encoded = Either.getOrThrow(OpenAiFormat.encode([Message.user("Weather?"), Message.assistant(expected)]))
    const message = encoded[1] as { tool_calls: ReadonlyArray<{ function: { arguments: string } }> }
    assert.deepStrictEqual(message.tool_calls.map((c) => c.function.arguments), ["{\"city\": \"Oslo\"}", "{}", "{}"])
  })

  it.effect("ModelStep keeps them by default; invalidToolArguments: \"error\" fails the step", () =>
    Effect.gen(function*() {
      const client = { chat: { completions: { create: () => Promise.resolve(chatCompletion) } } }
      const input = { conversation: [Message.user("Weather?")], tools: [], turn: 0 }
      const kept = yield* ModelStep.openAiChat(client, { model: "m" })(input)
      assert.deepStrictEqual(calls(kept), expected)
      assert.strictEqual(kept.stopReason, "max_tokens")
      const failed = yield* Effect.flip(
        ModelStep.openAiChat(client, { model: "m" }, { invalidToolArguments: "error" })(input)
      )
      assert.strictEqual(failed._tag, "InvalidToolArguments")
      const anthropic = { messages: { create: () => Promise.resolve(toAsync(anthropicEvents)) } }
      const streamed = yield* ModelStep.anthropic(anthropic, { model: "m", max_tokens: 10 }, { stream: true })(input)
      assert.deepStrictEqual(calls(streamed), expected)
      const responses = { responses: { create: () => Promise.resolve(responsesResponse) } }
      const read = yield* ModelStep.openAiResponses(responses, { model: "m" })(input)
      assert.deepStrictEqual(calls(read).map(withoutFormatDetail), expected)
    }))
})

async function* toAsync<A>(items: ReadonlyArray<A>): AsyncGenerator<A> {
  for (const item of items) yield item
}
