/**
 * decodeResponse and the stream accumulators of the chat, Anthropic and Gemini formats: fed
 * response objects typed with the providers' own SDK types (no casts), and driven end to end by
 * the official SDK clients against the loopback stand-ins, streaming and not.
 */
import Anthropic from "@anthropic-ai/sdk"
import { assert, describe, it } from "@effect/vitest"
import {
  BlockedReason,
  type Content,
  type ContentUnion,
  FinishReason,
  type FunctionDeclaration,
  GenerateContentResponse,
  GoogleGenAI,
  HarmCategory,
  HarmProbability,
  MediaModality,
  TrafficType,
  UrlRetrievalStatus
} from "@google/genai"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Stream from "effect/Stream"
import OpenAI from "openai"
import * as Testing from "openreward-effect/Testing"
import {
  AnthropicFormat,
  Block,
  Conversation,
  GoogleFormat,
  type Json,
  Message,
  OpenAiFormat,
  OpenRouterFormat,
  ToolFormat
} from "../src/index.js"
import * as AnthropicStandIn from "../src/internal/testing/anthropic.js"
import * as GoogleStandIn from "../src/internal/testing/google.js"
import * as OpenAiStandIn from "../src/internal/testing/openaiChat.js"
import type * as ModelResponse from "../src/ModelResponse.js"

const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) assert.fail(`expected a Right, got ${JSON.stringify(e.left)}`)
  return e.right
}
const left = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) assert.fail(`expected a Left, got ${JSON.stringify(e.right)}`)
  return e.left
}
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))

// -----------------------------------------------------------------------------
// OpenAI Chat Completions
// -----------------------------------------------------------------------------

const completion: OpenAI.ChatCompletion = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-test",
  choices: [{
    index: 0,
    finish_reason: "tool_calls",
    logprobs: null,
    message: {
      role: "assistant",
      content: "Checking.",
      refusal: null,
      annotations: [{
        type: "url_citation",
        url_citation: { url: "https://example.com", title: "Example", start_index: 0, end_index: 3 }
      }],
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "lookup", arguments: "{\"id\":\"7\"}" } },
        { id: "call_2", type: "function", function: { name: "lookup", arguments: "" } }
      ]
    }
  }],
  usage: {
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    completion_tokens_details: { reasoning_tokens: 2 },
    prompt_tokens_details: { cached_tokens: 4 }
  }
}

describe("OpenAiFormat.decodeResponse", () => {
  it("reads a ChatCompletion: text, tool calls, annotations, stop reason, usage", () => {
    const r = right(OpenAiFormat.decodeResponse(completion))
    assert.deepStrictEqual(
      r.message,
      Message.assistant([
        Block.text("Checking."),
        Block.toolCall("call_1", "lookup", { id: "7" }),
        Block.toolCall("call_2", "lookup", {})
      ], {
        detail: {
          openai: {
            annotations: [{
              type: "url_citation",
              url_citation: { url: "https://example.com", title: "Example", start_index: 0, end_index: 3 }
            }]
          }
        }
      })
    )
    assert.strictEqual(r.stopReason, "tool_calls")
    assert.strictEqual(r.providerStopReason, "tool_calls")
    assert.deepStrictEqual(r.usage, {
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      reasoningTokens: 2,
      cachedInputTokens: 4
    })
    assert.strictEqual(r.id, "chatcmpl-1")
    assert.strictEqual(r.model, "gpt-test")
  })

  it("reads one choice", () => {
    const choice: OpenAI.ChatCompletion.Choice = completion.choices[0]!
    const r = right(OpenAiFormat.decodeResponse(choice))
    assert.strictEqual(r.message.blocks.length, 3)
    assert.deepStrictEqual(r.usage, {})
  })

  it("a refusal is the refusal text, a text block, and stopReason refusal", () => {
    const refused: OpenAI.ChatCompletion = {
      ...completion,
      choices: [{
        index: 0,
        finish_reason: "stop",
        logprobs: null,
        message: { role: "assistant", content: null, refusal: "I can't help with that." }
      }]
    }
    const r = right(OpenAiFormat.decodeResponse(refused))
    assert.strictEqual(r.stopReason, "refusal")
    assert.strictEqual(r.providerStopReason, "stop")
    assert.strictEqual(r.refusal, "I can't help with that.")
    assert.deepStrictEqual(r.message.blocks, [Block.text("I can't help with that.")])
  })

  it("maps finish reasons", () => {
    const at = (finish_reason: OpenAI.ChatCompletion.Choice["finish_reason"]) =>
      right(OpenAiFormat.decodeResponse({
        ...completion,
        choices: [{
          index: 0,
          finish_reason,
          logprobs: null,
          message: { role: "assistant", content: "x", refusal: null }
        }]
      })).stopReason
    assert.strictEqual(at("stop"), "stop")
    assert.strictEqual(at("length"), "max_tokens")
    assert.strictEqual(at("content_filter"), "content_filter")
    assert.strictEqual(
      right(OpenAiFormat.decodeResponse({ ...completion.choices[0]!, finish_reason: "stop" })).stopReason,
      "tool_calls"
    )
    assert.strictEqual(
      right(OpenAiFormat.decodeResponse({ ...completion.choices[0]!, finish_reason: "constructor" })).stopReason,
      "other"
    )
  })

  it("several choices: an error unless one is chosen", () => {
    const two: OpenAI.ChatCompletion = {
      ...completion,
      choices: [completion.choices[0]!, {
        index: 1,
        finish_reason: "stop",
        logprobs: null,
        message: { role: "assistant", content: "second", refusal: null }
      }]
    }
    const e = left(OpenAiFormat.decodeResponse(two))
    assert.strictEqual(e._tag, "MultipleChoices")
    assert.deepStrictEqual(e._tag === "MultipleChoices" && e.indices, [0, 1])
    assert.deepStrictEqual(right(OpenAiFormat.decodeResponse(two, { choice: 1 })).message.blocks, [
      Block.text("second")
    ])
    assert.strictEqual(left(OpenAiFormat.decodeResponse(two, { choice: 5 }))._tag, "NoAnswer")
    assert.strictEqual(left(OpenAiFormat.decodeResponse({ ...completion, choices: [] }))._tag, "NoAnswer")
  })

  it("errors point into the response", () => {
    const bad: OpenAI.ChatCompletion = {
      ...completion,
      choices: [{
        ...completion.choices[0]!,
        message: {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "[1]" } }]
        }
      }]
    }
    const e = left(OpenAiFormat.decodeResponse(bad))
    assert.strictEqual(e._tag, "InvalidToolArguments")
    assert.deepStrictEqual(e._tag === "InvalidToolArguments" && e.path, [
      "choices",
      0,
      "message",
      "tool_calls",
      0,
      "function",
      "arguments"
    ])
    const custom: OpenAI.ChatCompletion = {
      ...completion,
      choices: [{
        ...completion.choices[0]!,
        message: {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [{ id: "c", type: "custom", custom: { name: "f", input: "x" } }]
        }
      }]
    }
    assert.strictEqual(left(OpenAiFormat.decodeResponse(custom))._tag, "UnsupportedContent")
    const audio: OpenAI.ChatCompletion = {
      ...completion,
      choices: [{
        ...completion.choices[0]!,
        message: {
          role: "assistant",
          content: null,
          refusal: null,
          audio: { id: "a", data: "AAAA", expires_at: 1, transcript: "hi" }
        }
      }]
    }
    assert.strictEqual(left(OpenAiFormat.decodeResponse(audio))._tag, "UnsupportedContent")
    for (const hostile of [null, 5, [], { choices: 5 }, { choices: [{ message: 5 }] }]) {
      assert.strictEqual(left(OpenAiFormat.decodeResponse(hostile))._tag, "MalformedInput")
    }
  })

  it("OpenRouter: reasoning fields, errors named openrouter", () => {
    const r = right(OpenRouterFormat.decodeResponse({
      id: "gen-1",
      choices: [{
        index: 0,
        finish_reason: "stop",
        message: { role: "assistant", content: "4", reasoning: "2+2", refusal: null }
      }]
    }))
    assert.deepStrictEqual(r.message.blocks, [Block.reasoning("2+2"), Block.text("4")])
    const failed = right(OpenRouterFormat.decodeResponse({
      choices: [{
        index: 0,
        finish_reason: "error",
        message: { role: "assistant", content: "par" },
        error: { code: 502, message: "upstream failed" }
      }]
    }))
    assert.deepStrictEqual([failed.stopReason, failed.providerStopReason], ["other", "error"])
    assert.deepStrictEqual(failed.message.detail, { openrouter: { error: { code: 502, message: "upstream failed" } } })
    const e = left(OpenRouterFormat.decodeResponse({ choices: [] }))
    assert.strictEqual(e._tag === "NoAnswer" && e.format, "openrouter")
  })
})

describe("OpenAiFormat.decodeStream", () => {
  const chunksOf = (c: OpenAI.ChatCompletion, usage = true) => Stream.fromIterable(OpenAiStandIn.chunks(c, usage))

  it.effect("folds chunks into what decodeResponse reads from the whole completion", () =>
    Effect.gen(function*() {
      const streamed = yield* OpenAiFormat.decodeStream(chunksOf(completion))
      const whole = right(
        OpenAiFormat.decodeResponse({
          ...completion,
          choices: [{ ...completion.choices[0]!, message: { ...completion.choices[0]!.message, annotations: [] } }]
        })
      )
      assert.deepStrictEqual(streamed, whole)
    }))

  it.effect("an interrupted stream is an IncompleteStream", () =>
    Effect.gen(function*() {
      const chunks = OpenAiStandIn.chunks(completion, false)
      const e = yield* Effect.flip(OpenAiFormat.decodeStream(Stream.fromIterable(chunks.slice(0, -1))))
      assert.strictEqual(e._tag, "IncompleteStream")
    }))

  it.effect("reasoning fragments are joined", () =>
    Effect.gen(function*() {
      const base = { id: "x", object: "chat.completion.chunk", created: 1, model: "m" }
      const r = yield* OpenRouterFormat.decodeStream(Stream.fromIterable([
        { ...base, choices: [{ index: 0, delta: { reasoning: "2+" }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: { reasoning: "2" }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: { content: "4" }, finish_reason: "stop" }] }
      ]))
      assert.deepStrictEqual(r.message.blocks, [Block.reasoning("2+2"), Block.text("4")])
    }))

  const text = FastCheck.string({ maxLength: 40 })
  const call = FastCheck.record({
    name: FastCheck.stringMatching(/^[a-z_]{1,10}$/),
    input: FastCheck.dictionary(
      FastCheck.stringMatching(/^[a-z]{1,5}$/),
      FastCheck.oneof(FastCheck.string(), FastCheck.integer())
    )
  })
  it.prop(
    "decodeStream(chunks of c) equals decodeResponse(c)",
    [FastCheck.option(text.filter((t) => t.length > 0), { nil: null }), FastCheck.array(call, { maxLength: 3 })],
    ([content, calls]) => {
      const c: OpenAI.ChatCompletion = {
        ...completion,
        choices: [{
          index: 0,
          finish_reason: calls.length > 0 ? "tool_calls" : "stop",
          logprobs: null,
          message: {
            role: "assistant",
            content,
            refusal: null,
            ...(calls.length > 0
              ? {
                tool_calls: calls.map((k, i) => ({
                  id: `call_${i}`,
                  type: "function" as const,
                  function: { name: k.name, arguments: JSON.stringify(k.input) }
                }))
              }
              : {})
          }
        }]
      }
      const streamed = Effect.runSync(Effect.either(OpenAiFormat.decodeStream(chunksOf(c))))
      assert.deepStrictEqual(streamed, OpenAiFormat.decodeResponse(c))
    }
  )
})

// -----------------------------------------------------------------------------
// Anthropic
// -----------------------------------------------------------------------------

const usage: Anthropic.Usage = {
  input_tokens: 10,
  output_tokens: 7,
  cache_creation_input_tokens: 2,
  cache_read_input_tokens: 3,
  cache_creation: null,
  inference_geo: null,
  output_tokens_details: { thinking_tokens: 4 },
  server_tool_use: null,
  service_tier: "standard",
  speed: null
}
const message: Anthropic.Message = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-test",
  container: null,
  diagnostics: null,
  stop_details: null,
  stop_reason: "tool_use",
  stop_sequence: null,
  usage,
  content: [
    { type: "thinking", thinking: "Look it up.", signature: "sig1" },
    {
      type: "text",
      text: "Checking.",
      citations: [{
        type: "char_location",
        cited_text: "order 7",
        document_index: 0,
        document_title: null,
        end_char_index: 7,
        file_id: null,
        start_char_index: 0
      }]
    },
    { type: "tool_use", id: "toolu_1", name: "lookup", input: { id: "7" }, caller: { type: "direct" } }
  ]
}

describe("AnthropicFormat.decodeResponse", () => {
  it("reads a Message: thinking, text with citations, tool use, stop reason, usage", () => {
    const r = right(AnthropicFormat.decodeResponse(message))
    assert.deepStrictEqual(r.message.blocks, [
      Block.reasoning("Look it up.", { signature: "sig1" }),
      Block.text("Checking.", {
        detail: {
          anthropic: {
            citations: [{
              type: "char_location",
              cited_text: "order 7",
              document_index: 0,
              document_title: null,
              end_char_index: 7,
              file_id: null,
              start_char_index: 0
            }]
          }
        }
      }),
      Block.toolCall("toolu_1", "lookup", { id: "7" })
    ])
    assert.strictEqual(r.stopReason, "tool_calls")
    assert.deepStrictEqual(r.usage, {
      inputTokens: 15,
      outputTokens: 7,
      totalTokens: 22,
      reasoningTokens: 4,
      cachedInputTokens: 3
    })
    assert.strictEqual(r.id, "msg_1")
  })

  it("maps stop reasons; a refusal carries the explanation", () => {
    const at = (stop_reason: Anthropic.StopReason) =>
      right(AnthropicFormat.decodeResponse({ ...message, content: [], stop_reason })).stopReason
    assert.strictEqual(at("end_turn"), "stop")
    assert.strictEqual(at("stop_sequence"), "stop")
    assert.strictEqual(at("max_tokens"), "max_tokens")
    assert.strictEqual(at("model_context_window_exceeded"), "max_tokens")
    assert.strictEqual(at("pause_turn"), "pause")
    const refused: Anthropic.Message = {
      ...message,
      content: [{ type: "text", text: "I", citations: null }],
      stop_reason: "refusal",
      stop_details: { type: "refusal", category: "cyber", explanation: "Declined." }
    }
    const r = right(AnthropicFormat.decodeResponse(refused))
    assert.strictEqual(r.stopReason, "refusal")
    assert.strictEqual(r.refusal, "Declined.")
    assert.deepStrictEqual(r.message.blocks, [Block.text("I")])
  })

  it("redacted thinking is kept (and encoded back); server tool blocks are an error, or left out when asked", () => {
    const withRedacted: Anthropic.Message = {
      ...message,
      content: [
        { type: "redacted_thinking", data: "EmwK" },
        {
          type: "server_tool_use",
          id: "srvtoolu_1",
          name: "web_search",
          input: { query: "x" },
          caller: { type: "direct" }
        },
        { type: "text", text: "Done.", citations: null }
      ],
      stop_reason: "end_turn"
    }
    const e = left(AnthropicFormat.decodeResponse(withRedacted))
    assert.strictEqual(e._tag, "UnsupportedContent")
    assert.deepStrictEqual(e._tag === "UnsupportedContent" && [e.path, e.blockIndex, e.contentType], [
      ["content", 1],
      1,
      "server_tool_use"
    ])
    const r = right(AnthropicFormat.decodeResponse(withRedacted, { omit: ["server_tool_use"] }))
    const redacted = Block.reasoning("", { signature: "EmwK", detail: { anthropic: { redacted: true } } })
    assert.deepStrictEqual(r.message.blocks, [redacted, Block.text("Done.")])
    const sent = right(AnthropicFormat.encode([Message.user("q"), r.message]))
    assert.deepStrictEqual(sent.messages[1]!.content, [
      { type: "redacted_thinking", data: "EmwK" },
      { type: "text", text: "Done." }
    ])
    const omitted = right(
      AnthropicFormat.decodeResponse(withRedacted, { omit: ["redacted_thinking", "server_tool_use"] })
    )
    assert.deepStrictEqual(omitted.message.blocks, [Block.text("Done.")])
  })

  it("hostile input is a MalformedInput", () => {
    for (const hostile of [null, "x", { content: 5 }, { content: [5] }]) {
      assert.strictEqual(left(AnthropicFormat.decodeResponse(hostile))._tag, "MalformedInput")
    }
  })
})

describe("AnthropicFormat.decodeStream", () => {
  const plain: Anthropic.Message = {
    ...message,
    content: message.content.map((b) => b.type === "text" ? { ...b, citations: null } : b)
  }
  it.effect("folds events into what decodeResponse reads from the whole message", () =>
    Effect.gen(function*() {
      const streamed = yield* AnthropicFormat.decodeStream(Stream.fromIterable(AnthropicStandIn.events(plain)))
      assert.deepStrictEqual(streamed, right(AnthropicFormat.decodeResponse(plain)))
    }))

  it.effect("citations deltas, and an interrupted stream", () =>
    Effect.gen(function*() {
      const events = AnthropicStandIn.events(plain) as Array<Anthropic.MessageStreamEvent>
      const e = yield* Effect.flip(AnthropicFormat.decodeStream(Stream.fromIterable(events.slice(0, -1))))
      assert.strictEqual(e._tag, "IncompleteStream")
      const cited: Array<Anthropic.MessageStreamEvent> = [
        events[0]!,
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "", citations: null } },
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
        {
          type: "content_block_delta",
          index: 0,
          delta: {
            type: "citations_delta",
            citation: {
              type: "char_location",
              cited_text: "x",
              document_index: 0,
              document_title: null,
              end_char_index: 1,
              file_id: null,
              start_char_index: 0
            }
          }
        },
        { type: "content_block_stop", index: 0 },
        ...events.slice(-2)
      ]
      const r = yield* AnthropicFormat.decodeStream(Stream.fromIterable(cited))
      assert.deepStrictEqual(r.message.blocks[0]?.detail, {
        anthropic: {
          citations: [{
            type: "char_location",
            cited_text: "x",
            document_index: 0,
            document_title: null,
            end_char_index: 1,
            file_id: null,
            start_char_index: 0
          }]
        }
      })
    }))

  it.prop(
    "decodeStream(events of m) equals decodeResponse(m)",
    [FastCheck.array(
      FastCheck.oneof(
        FastCheck.record({ kind: FastCheck.constant("text" as const), text: FastCheck.string({ maxLength: 30 }) }),
        FastCheck.record({ kind: FastCheck.constant("thinking" as const), text: FastCheck.string({ maxLength: 30 }) }),
        FastCheck.record({
          kind: FastCheck.constant("tool" as const),
          text: FastCheck.stringMatching(/^[a-z]{1,8}$/),
          input: FastCheck.dictionary(FastCheck.stringMatching(/^[a-z]{1,5}$/), FastCheck.integer())
        })
      ),
      { maxLength: 4 }
    )],
    ([blocks]) => {
      const m: Anthropic.Message = {
        ...message,
        content: blocks.map((b, i): Anthropic.ContentBlock =>
          b.kind === "text"
            ? { type: "text", text: b.text, citations: null }
            : b.kind === "thinking"
            ? { type: "thinking", thinking: b.text, signature: `s${i}` }
            : {
              type: "tool_use",
              id: `toolu_${i}`,
              name: b.text,
              input: "input" in b ? b.input : {},
              caller: { type: "direct" }
            }
        )
      }
      const streamed = Effect.runSync(
        Effect.either(AnthropicFormat.decodeStream(Stream.fromIterable(AnthropicStandIn.events(m))))
      )
      assert.deepStrictEqual(streamed, AnthropicFormat.decodeResponse(m))
    }
  )
})

// -----------------------------------------------------------------------------
// Gemini
// -----------------------------------------------------------------------------

const gemini = (fields: Partial<GenerateContentResponse>): GenerateContentResponse =>
  Object.assign(new GenerateContentResponse(), fields)

const geminiAnswer = gemini({
  responseId: "resp-1",
  modelVersion: "gemini-test",
  candidates: [{
    index: 0,
    finishReason: FinishReason.STOP,
    content: {
      role: "model",
      parts: [
        { text: "Look it up.", thought: true },
        { functionCall: { name: "lookup", args: { id: "7" } }, thoughtSignature: "c2ln" },
        { functionCall: { name: "lookup", args: { id: "8" } } }
      ]
    },
    citationMetadata: { citations: [{ startIndex: 0, endIndex: 3, uri: "https://example.com" }] }
  }],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 3, totalTokenCount: 18 }
})

describe("GoogleFormat.decodeResponse", () => {
  it("reads a GenerateContentResponse: thoughts, signed calls with tagged ids, citations, usage", () => {
    const r = right(GoogleFormat.decodeResponse(geminiAnswer))
    assert.deepStrictEqual(
      r.message,
      Message.assistant([
        Block.reasoning("Look it up."),
        Block.reasoning("", { signature: "c2ln" }),
        Block.toolCall("call_resp-1_1", "lookup", { id: "7" }),
        Block.toolCall("call_resp-1_2", "lookup", { id: "8" })
      ], {
        detail: {
          google: { citationMetadata: { citations: [{ startIndex: 0, endIndex: 3, uri: "https://example.com" }] } }
        }
      })
    )
    assert.strictEqual(r.stopReason, "tool_calls")
    assert.strictEqual(r.providerStopReason, "STOP")
    assert.deepStrictEqual(r.usage, {
      inputTokens: 10,
      outputTokens: 8,
      totalTokens: 18,
      reasoningTokens: 3
    })
    assert.strictEqual(r.model, "gemini-test")
    assert.deepStrictEqual(r.detail, {
      google: {
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 3, totalTokenCount: 18 }
      }
    })
  })

  it("keeps every field Gemini sends: on the block, the message or the response, under google", () => {
    const logprobsResult = { chosenCandidates: [{ token: "Hi", logProbability: -0.1 }], topCandidates: [] }
    const answer = gemini({
      responseId: "resp-2",
      modelVersion: "gemini-test",
      createTime: "2026-05-04T20:01:02.264968Z",
      promptFeedback: {
        safetyRatings: [{ category: HarmCategory.HARM_CATEGORY_HARASSMENT, probability: HarmProbability.NEGLIGIBLE }]
      },
      candidates: [{
        index: 0,
        finishReason: FinishReason.STOP,
        finishMessage: "done",
        tokenCount: 2,
        avgLogprobs: -0.1,
        logprobsResult,
        safetyRatings: [{ category: HarmCategory.HARM_CATEGORY_HATE_SPEECH, probability: HarmProbability.LOW }],
        groundingMetadata: { webSearchQueries: ["hi"], groundingChunks: [{ web: { uri: "https://a.example" } }] },
        urlContextMetadata: {
          urlMetadata: [{
            retrievedUrl: "https://a.example",
            urlRetrievalStatus: UrlRetrievalStatus.URL_RETRIEVAL_STATUS_SUCCESS
          }]
        },
        citationMetadata: { citations: [{ startIndex: 0, endIndex: 2, uri: "https://a.example" }] },
        content: {
          role: "model",
          parts: [
            { text: "Hi", thoughtSignature: "c2ln", partMetadata: { source: "x" } },
            { inlineData: { mimeType: "image/png", data: "AA==", displayName: "dot.png" } },
            { functionCall: { name: "f", args: {} }, videoMetadata: { fps: 1 } }
          ]
        }
      }],
      usageMetadata: {
        promptTokenCount: 10,
        toolUsePromptTokenCount: 4,
        candidatesTokenCount: 5,
        thoughtsTokenCount: 3,
        totalTokenCount: 22,
        trafficType: TrafficType.ON_DEMAND,
        promptTokensDetails: [{ modality: MediaModality.TEXT, tokenCount: 10 }]
      }
    })
    // the SDK's own additions are not Gemini's answer
    Object.assign(answer, {
      sdkHttpResponse: { headers: { "x-request-id": "1" } },
      automaticFunctionCallingHistory: []
    })
    const r = right(GoogleFormat.decodeResponse(answer))
    assert.deepStrictEqual(r.message.blocks, [
      Block.reasoning("", { signature: "c2ln" }),
      Block.text("Hi", { detail: { google: { partMetadata: { source: "x" } } } }),
      Block.image("AA==", "image/png", { detail: { google: { inlineData: { displayName: "dot.png" } } } }),
      Block.toolCall("call_resp-2_2", "f", {}, { detail: { google: { videoMetadata: { fps: 1 } } } })
    ])
    const candidate = answer.candidates![0]!
    assert.deepStrictEqual(r.message.detail, {
      google: {
        finishMessage: "done",
        tokenCount: 2,
        avgLogprobs: -0.1,
        logprobsResult,
        safetyRatings: candidate.safetyRatings!,
        groundingMetadata: candidate.groundingMetadata!,
        urlContextMetadata: candidate.urlContextMetadata!,
        citationMetadata: candidate.citationMetadata!
      }
    } as unknown as Json.JsonObject)
    assert.deepStrictEqual(r.detail, {
      google: {
        createTime: "2026-05-04T20:01:02.264968Z",
        promptFeedback: answer.promptFeedback!,
        usageMetadata: answer.usageMetadata!
      }
    } as unknown as Json.JsonObject)
    // tool-use prompt tokens (what server-side tools put in the prompt) are input: the counts add up
    assert.deepStrictEqual(r.usage, {
      inputTokens: 14,
      outputTokens: 8,
      totalTokens: 22,
      reasoningTokens: 3
    })
    // fields no release of the API has yet are kept the same way
    const future = right(GoogleFormat.decodeResponse({
      candidates: [{
        finishReason: "STOP",
        futureCandidateField: 1,
        content: { parts: [{ text: "a", futurePartField: true }], futureContentField: "c" }
      }],
      futureResponseField: { a: 1 }
    }))
    assert.deepStrictEqual(future.message.blocks, [Block.text("a", { detail: { google: { futurePartField: true } } })])
    assert.deepStrictEqual(future.message.detail, {
      google: { futureCandidateField: 1, content: { futureContentField: "c" } }
    })
    assert.deepStrictEqual(future.detail, { google: { futureResponseField: { a: 1 } } })
  })

  it("reads one candidate; ids from a hash of the parts, or a prefix", () => {
    const candidate = geminiAnswer.candidates![0]!
    const r = right(GoogleFormat.decodeResponse(candidate))
    const ids = r.message.blocks.flatMap((b) => b.type === "tool_call" ? [b.id] : [])
    assert.match(ids[0]!, /^call_[0-9a-f]{8}_1$/)
    assert.deepStrictEqual(
      right(GoogleFormat.decodeResponse(candidate, { toolCallIdPrefix: "turn3" })).message.blocks.flatMap((b) =>
        b.type === "tool_call" ? [b.id] : []
      ),
      ["turn3_1", "turn3_2"]
    )
  })

  it("a blocked prompt, several candidates, finish reasons", () => {
    const blocked = gemini({
      promptFeedback: { blockReason: BlockedReason.SAFETY },
      usageMetadata: { promptTokenCount: 3 }
    })
    const e = left(GoogleFormat.decodeResponse(blocked))
    assert.deepStrictEqual(e._tag === "NoAnswer" && e.blockReason, "SAFETY")
    const two = gemini({
      candidates: [
        { index: 0, finishReason: FinishReason.STOP, content: { role: "model", parts: [{ text: "a" }] } },
        { index: 1, finishReason: FinishReason.MAX_TOKENS, content: { role: "model", parts: [{ text: "b" }] } }
      ]
    })
    assert.strictEqual(left(GoogleFormat.decodeResponse(two))._tag, "MultipleChoices")
    const b = right(GoogleFormat.decodeResponse(two, { candidate: 1 }))
    assert.deepStrictEqual([b.message.blocks, b.stopReason], [[Block.text("b")], "max_tokens"])
    const safety = right(GoogleFormat.decodeResponse(gemini({ candidates: [{ finishReason: FinishReason.SAFETY }] })))
    assert.deepStrictEqual([safety.message.blocks, safety.stopReason], [[], "content_filter"])
  })

  it("parts with no canonical form are errors located in the response", () => {
    const code = gemini({
      candidates: [{
        finishReason: FinishReason.STOP,
        content: { role: "model", parts: [{ text: "x" }, { executableCode: { code: "print(1)" } }] }
      }]
    })
    const e = left(GoogleFormat.decodeResponse(code))
    assert.deepStrictEqual(e._tag === "UnsupportedContent" && e.path, [
      "candidates",
      0,
      "content",
      "parts",
      1,
      "executableCode"
    ])
  })
})

describe("GoogleFormat.decodeStream", () => {
  it.effect("folds chunks (a late signature on an empty part) into what decodeResponse reads", () =>
    Effect.gen(function*() {
      const final = GoogleStandIn.response({
        contents: [{ parts: [{ functionResponse: { response: { output: "ok" } } }] }]
      }, 1)
      const streamed = yield* GoogleFormat.decodeStream(Stream.fromIterable(GoogleStandIn.chunks(final)))
      assert.deepStrictEqual(streamed, right(GoogleFormat.decodeResponse(final)))
      const e = yield* Effect.flip(
        GoogleFormat.decodeStream(Stream.fromIterable(GoogleStandIn.chunks(final).slice(0, -1)))
      )
      assert.strictEqual(e._tag, "IncompleteStream")
    }))

  it.effect("leaves out the empty text part Gemini sends beside the finishReason, not one that carries a signature", () =>
    Effect.gen(function*() {
      const chunk = (part: object, finishReason?: FinishReason) =>
        gemini({
          responseId: "e",
          candidates: [{
            index: 0,
            content: { role: "model", parts: [part] },
            ...(finishReason === undefined ? {} : { finishReason })
          }]
        })
      const call = chunk({ functionCall: { name: "f", args: {} } })
      const plain = yield* GoogleFormat.decodeStream(Stream.make(call, chunk({ text: "" }, FinishReason.STOP)))
      assert.deepStrictEqual(plain.message.blocks, [Block.toolCall("call_e_0", "f", {})])
      const signed = yield* GoogleFormat.decodeStream(
        Stream.make(call, chunk({ text: "", thoughtSignature: "c2ln" }, FinishReason.STOP))
      )
      assert.deepStrictEqual(signed.message.blocks, [
        Block.toolCall("call_e_0", "f", {}),
        Block.reasoning("", { signature: "c2ln" }),
        Block.text("")
      ])
    }))

  it.effect("merges the candidate's metadata over the chunks: snapshots keep the last, pieces keep every piece", () =>
    Effect.gen(function*() {
      const rating = { category: HarmCategory.HARM_CATEGORY_HARASSMENT, probability: HarmProbability.NEGLIGIBLE }
      const cite = (uri: string) => ({ startIndex: 0, endIndex: 1, uri })
      const grounding = { webSearchQueries: ["q"], groundingChunks: [{ web: { uri: "https://a.example" } }] }
      const chunk = (text: string, fields: object) =>
        gemini({
          responseId: "s",
          candidates: [{ index: 0, content: { role: "model", parts: [{ text }] }, ...fields }]
        })
      const r = yield* GoogleFormat.decodeStream(Stream.make(
        // Gemini sends an empty groundingMetadata until the last chunk, and the same ratings again
        chunk("a", { groundingMetadata: {}, safetyRatings: [rating], citationMetadata: { citations: [cite("1")] } }),
        chunk("b", { groundingMetadata: {}, safetyRatings: [rating], citationMetadata: { citations: [cite("2")] } }),
        chunk("c", { groundingMetadata: grounding, safetyRatings: [rating], finishReason: FinishReason.STOP })
      ))
      assert.deepStrictEqual(r.message.blocks, [Block.text("abc")])
      assert.deepStrictEqual(r.message.detail, {
        google: {
          groundingMetadata: grounding,
          safetyRatings: [rating],
          citationMetadata: { citations: [cite("1"), cite("2")] }
        }
      } as unknown as Json.JsonObject)
    }))

  it.prop(
    "decodeStream(chunks of r) equals decodeResponse(r)",
    [
      FastCheck.array(
        FastCheck.oneof(
          FastCheck.record({ text: FastCheck.string({ minLength: 1, maxLength: 20 }), thought: FastCheck.boolean() }),
          FastCheck.record({
            name: FastCheck.stringMatching(/^[a-z]{1,8}$/),
            id: FastCheck.option(FastCheck.stringMatching(/^[a-z]{1,4}$/), { nil: undefined })
          })
        ),
        { minLength: 1, maxLength: 4 }
      ).filter((parts) =>
        parts.every((p, i) =>
          !("text" in p) ||
          !(i > 0 && "text" in parts[i - 1]! && (parts[i - 1] as { thought: boolean }).thought === p.thought)
        )
      )
    ],
    ([parts]) => {
      const r = gemini({
        responseId: "r",
        modelVersion: "gemini-test",
        candidates: [{
          index: 0,
          finishReason: FinishReason.STOP,
          content: {
            role: "model",
            parts: parts.map((p) =>
              "text" in p
                ? (p.thought ? { text: p.text, thought: true } : { text: p.text })
                : { functionCall: { name: p.name, args: {}, ...(p.id === undefined ? {} : { id: p.id }) } }
            )
          }
        }],
        usageMetadata: { promptTokenCount: 1, totalTokenCount: 2 }
      })
      const streamed = Effect.runSync(
        Effect.either(GoogleFormat.decodeStream(Stream.fromIterable(GoogleStandIn.chunks(r))))
      )
      assert.deepStrictEqual(streamed, GoogleFormat.decodeResponse(r))
    }
  )
})

// -----------------------------------------------------------------------------
// Conversation.append
// -----------------------------------------------------------------------------

describe("Conversation.append", () => {
  const start = [Message.user("Where is order 7?")]
  const turn = Message.assistant([Block.toolCall("tc_1", "lookup", { id: "7" }), Block.toolCall("tc_2", "lookup")])
  it("appends an assistant turn and the results answering it", () => {
    const next = right(
      Conversation.append(start, turn, Message.user([Block.toolResult("tc_2", "b"), Block.toolResult("tc_1", "a")]))
    )
    assert.strictEqual(next.length, 3)
    assert.strictEqual(start.length, 1)
  })
  it("rejects results that answer nothing, twice, or not all calls, and misplaced blocks", () => {
    const stray = left(Conversation.append(start, Message.user([Block.toolResult("tc_9", "x")])))
    assert.deepStrictEqual(stray._tag === "UnmatchedToolResult" && [stray.format, stray.messageIndex], ["canonical", 1])
    const twice = left(
      Conversation.append(start, turn, Message.user([Block.toolResult("tc_1", "a"), Block.toolResult("tc_1", "a")]))
    )
    assert.strictEqual(twice._tag, "UnmatchedToolResult")
    const partial = left(Conversation.append(start, turn, Message.user([Block.toolResult("tc_1", "a")])))
    assert.deepStrictEqual(partial._tag === "UnansweredToolCall" && partial.toolCallIds, ["tc_2"])
    const misplaced = {
      role: "assistant",
      blocks: [Block.toolResult("tc_1", "a")],
      detail: null
    } as unknown as Message.Message
    assert.strictEqual(left(Conversation.append(start, misplaced))._tag, "MisplacedBlock")
  })
})

// -----------------------------------------------------------------------------
// the official SDKs against the stand-ins
// -----------------------------------------------------------------------------

const specs = [{
  name: "lookup_order",
  description: "Look an order up",
  input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] }
}]
const question = [Message.system("You are a support agent."), Message.user("Where is order 7?")]
const toolOutput = "stalled at the Leeds hub"

/** Run the two-step agent loop with `call` answering each turn; return the conversation. */
const loop = async (call: (conversation: Conversation.Conversation) => Promise<ModelResponse.ModelResponse>) => {
  const first = await call(question)
  assert.strictEqual(first.stopReason, "tool_calls")
  const calls = first.message.blocks.filter((b): b is Block.ToolCallBlock => b.type === "tool_call")
  assert.strictEqual(calls.length, 1)
  assert.deepStrictEqual(calls[0]!.input, { id: "7" })
  const withResults = right(
    Conversation.append(question, first.message, Message.user(calls.map((c) => Block.toolResult(c.id, toolOutput))))
  )
  const second = await call(withResults)
  assert.strictEqual(second.stopReason, "stop")
  return right(Conversation.append(withResults, second.message))
}

describe("official SDK clients against the stand-ins", () => {
  for (const stream of [false, true]) {
    it(`openai chat.completions${stream ? " (streaming)" : ""}`, async () => {
      const standIn = await Testing.standIn("openai-chat", { toolInput: () => ({ id: "7" }) })
      try {
        const client = new OpenAI({ baseURL: `${standIn.url}/v1`, apiKey: "test", maxRetries: 0 })
        const tools = right(ToolFormat.convert(specs, "openai-compatible")) as Array<OpenAI.ChatCompletionTool>
        const done = await loop(async (conversation) => {
          // the encoded shapes are readonly; the SDK's parameter types are mutable
          const messages = right(OpenAiFormat.encode(conversation)) as Array<OpenAI.ChatCompletionMessageParam>
          if (!stream) {
            return right(OpenAiFormat.decodeResponse(
              await client.chat.completions.create({ model: "gpt-test", messages: [...messages], tools: [...tools] })
            ))
          }
          const events = await client.chat.completions.create({
            model: "gpt-test",
            messages: [...messages],
            tools: [...tools],
            stream: true,
            stream_options: { include_usage: true }
          })
          return right(await run(OpenAiFormat.decodeStream(Stream.fromAsyncIterable(events, (e) => e))))
        })
        assert.deepStrictEqual(done[done.length - 1], Message.assistant(`The tool said: ${toolOutput}`))
        const body = standIn.requests[1]!.body as { messages: Array<{ role: string }>; tools: Array<unknown> }
        assert.deepStrictEqual(body.messages.map((m) => m.role), ["system", "user", "assistant", "tool"])
        assert.deepStrictEqual(body.tools, tools)
      } finally {
        await standIn.close()
      }
    })

    it(`anthropic messages${stream ? " (streaming)" : ""}`, async () => {
      const standIn = await Testing.standIn("anthropic", { toolInput: () => ({ id: "7" }) })
      try {
        const client = new Anthropic({ baseURL: standIn.url, apiKey: "test", maxRetries: 0 })
        const tools = right(ToolFormat.convert(specs, "anthropic"))
        const done = await loop(async (conversation) => {
          const { messages, system } = right(AnthropicFormat.encode(conversation))
          const params = {
            model: "claude-test",
            max_tokens: 1024,
            ...(system === null ? {} : { system: system as string | Array<Anthropic.TextBlockParam> }),
            messages: messages as Array<Anthropic.MessageParam>,
            tools: tools as Array<Anthropic.Tool>
          }
          if (!stream) return right(AnthropicFormat.decodeResponse(await client.messages.create(params)))
          const events = await client.messages.create({ ...params, stream: true })
          return right(await run(AnthropicFormat.decodeStream(Stream.fromAsyncIterable(events, (e) => e))))
        })
        // the signed thinking went back as it came
        const body = standIn.requests[1]!.body as {
          messages: Array<{ role: string; content: Array<{ type: string }> }>
        }
        assert.deepStrictEqual(body.messages[1]!.content.map((b) => b.type), ["thinking", "text", "tool_use"])
        assert.deepStrictEqual(done[done.length - 1], Message.assistant(`The tool said: ${toolOutput}`))
      } finally {
        await standIn.close()
      }
    })

    it(`google generateContent${stream ? " (streaming)" : ""}`, async () => {
      const standIn = await Testing.standIn("google", {
        toolInput: () => ({ id: "7" }),
        answer: (r) => `The tool said: ${r}`
      })
      try {
        const client = new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: standIn.url } })
        const tools = right(ToolFormat.convert(specs, "google"))
        const done = await loop(async (conversation) => {
          const request = right(GoogleFormat.encode(conversation, { casing: "camel", reasoning: "thought" }))
          const params = {
            model: "gemini-test",
            contents: request.contents as Array<Content>,
            config: {
              ...(request.systemInstruction === null || request.systemInstruction === undefined
                ? {}
                : { systemInstruction: request.systemInstruction as ContentUnion }),
              tools: [{ functionDeclarations: tools as unknown as Array<FunctionDeclaration> }]
            }
          }
          if (!stream) return right(GoogleFormat.decodeResponse(await client.models.generateContent(params)))
          const events = await client.models.generateContentStream(params)
          return right(await run(GoogleFormat.decodeStream(Stream.fromAsyncIterable(events, (e) => e))))
        })
        const body = standIn.requests[1]!.body as {
          contents: Array<{ role: string; parts: Array<Record<string, unknown>> }>
        }
        // the signature went back on the call it signed
        assert.strictEqual(body.contents[1]!.parts[1]!["thoughtSignature"], "c2lnLXN0YW5kaW4t0")
        assert.match(JSON.stringify(done[done.length - 1]), /The tool said/)
      } finally {
        await standIn.close()
      }
    })
  }
})

describe("accumulators on hostile events", () => {
  const decoders: ReadonlyArray<
    (events: Stream.Stream<unknown>) => Effect.Effect<ModelResponse.ModelResponse, { readonly _tag: string }>
  > = [OpenAiFormat.decodeStream, AnthropicFormat.decodeStream, GoogleFormat.decodeStream]
  const hostile: ReadonlyArray<unknown> = [null, 5, "x", [], { type: 5 }, { choices: 5 }, { candidates: [5] }]
  it.effect("fail with a tagged error, never throw", () =>
    Effect.gen(function*() {
      for (const event of hostile) {
        const events = Stream.make(event)
        for (const decode of decoders) {
          const e = yield* Effect.flip(decode(events))
          assert.include(["MalformedInput", "IncompleteStream", "NoAnswer"], e._tag)
        }
      }
      const revoked = Proxy.revocable({}, {})
      revoked.revoke()
      for (const decode of decoders) {
        const e = yield* Effect.flip(decode(Stream.make(revoked.proxy)))
        assert.include(["MalformedInput", "IncompleteStream"], e._tag)
      }
    }))

  it.effect("an empty stream is an IncompleteStream", () =>
    Effect.gen(function*() {
      for (const decode of decoders) {
        const e = yield* Effect.flip(decode(Stream.empty))
        assert.strictEqual(e._tag, "IncompleteStream")
      }
    }))
})
