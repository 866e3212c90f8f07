/**
 * What real Chat Completions servers send beyond OpenAI's own answers, read by `decodeResponse` and
 * `decodeStream` of the `openai` and `openrouter` formats: each case is built from the provider's
 * documented shapes (OpenRouter's streaming and error pages, Gemini's OpenAI compatibility page,
 * Mistral's `ThinkChunk`, Perplexity's response, vLLM's error body), and each streamed case is
 * checked against the same answer sent whole. test/corpus/*.test.ts reads the recorded answers.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { Block, Message, OpenAiFormat, OpenRouterFormat } from "../src/index.js"
import type * as ModelResponse from "../src/ModelResponse.js"

const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) assert.fail(`expected a Right, got ${JSON.stringify(e.left)}`)
  return e.right
}
const left = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) assert.fail(`expected a Left, got ${JSON.stringify(e.right)}`)
  return e.left
}
const stream = (format: typeof OpenAiFormat | typeof OpenRouterFormat, events: ReadonlyArray<unknown>) =>
  Effect.runSync(Effect.either(format.decodeStream(Stream.fromIterable(events))))

const chunk = (fields: Record<string, unknown>, choice?: Record<string, unknown>) => ({
  id: "gen-1",
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  ...fields,
  ...(choice === undefined ? {} : { choices: [{ index: 0, finish_reason: null, ...choice }] })
})

describe("OpenRouter streams: the chunks after finish_reason", () => {
  // OpenRouter's streaming page: the usage comes on a last chunk, after the one with finish_reason;
  // some upstreams repeat the finish reason on it, some send an empty delta with no reason
  const usage = { prompt_tokens: 43, completion_tokens: 10, total_tokens: 53, cost: 0.0001, is_byok: false }
  const events = [
    chunk({ provider: "Anthropic" }, { delta: { role: "assistant", content: "Hel" } }),
    chunk({ provider: "Anthropic" }, { delta: { content: "lo" }, finish_reason: "stop", native_finish_reason: "stop" }),
    chunk({ provider: "Anthropic" }, { delta: { content: "" }, finish_reason: "stop", native_finish_reason: "stop" }),
    chunk({ provider: "Anthropic", usage }, { delta: { role: "assistant", content: "" }, native_finish_reason: null })
  ]

  it("reads them (the usage too) into the answer sent whole", () => {
    const r = right(stream(OpenRouterFormat, events))
    assert.deepStrictEqual(r.message, Message.assistant([Block.text("Hello")]))
    assert.deepStrictEqual(r.usage, { inputTokens: 43, outputTokens: 10, totalTokens: 53 })
    assert.deepStrictEqual(
      r,
      right(OpenRouterFormat.decodeResponse({
        id: "gen-1",
        object: "chat.completion",
        created: 1,
        model: "m",
        provider: "Anthropic",
        choices: [{
          index: 0,
          finish_reason: "stop",
          native_finish_reason: "stop",
          message: { role: "assistant", content: "Hello", refusal: null }
        }],
        usage
      }))
    )
    assert.deepStrictEqual(r.detail?.["openrouter"], {
      created: 1,
      provider: "Anthropic",
      object: "chat.completion",
      usage,
      choice: { native_finish_reason: "stop" }
    })
  })

  it("a chunk after finish_reason that still holds content, or another finish reason, does not fit", () => {
    for (
      const late of [
        { delta: { content: "more" } },
        { delta: { tool_calls: [{ index: 0, id: "c", function: { name: "f", arguments: "{}" } }] } },
        { delta: {}, finish_reason: "length" }
      ]
    ) {
      const e = left(stream(OpenRouterFormat, [...events.slice(0, 2), chunk({}, late)]))
      assert.strictEqual(e._tag, "IncompleteStream")
      assert.strictEqual(e._tag === "IncompleteStream" && e.eventIndex, 2)
    }
  })
})

describe("annotations", () => {
  const citation = (url: string) => ({
    type: "url_citation",
    url_citation: { url, title: "t", start_index: 0, end_index: 5, content: "c" }
  })

  it.effect("streamed (one per delta, OpenRouter's web plugin) are kept as the whole answer keeps them", () =>
    Effect.gen(function*() {
      const streamed = yield* OpenRouterFormat.decodeStream(Stream.fromIterable([
        chunk({}, { delta: { role: "assistant", content: "Pydantic" } }),
        chunk({}, { delta: { content: "", annotations: [citation("https://a.example")] } }),
        chunk({}, { delta: { content: "", annotations: [citation("https://b.example")] } }),
        chunk({}, { delta: { content: "" }, finish_reason: "stop" })
      ]))
      const whole = right(OpenRouterFormat.decodeResponse({
        id: "gen-1",
        object: "chat.completion",
        created: 1,
        model: "m",
        choices: [{
          index: 0,
          finish_reason: "stop",
          message: {
            role: "assistant",
            content: "Pydantic",
            annotations: [citation("https://a.example"), citation("https://b.example")]
          }
        }]
      }))
      assert.deepStrictEqual(streamed, whole)
      assert.deepStrictEqual(streamed.message.detail, {
        openrouter: { annotations: [citation("https://a.example"), citation("https://b.example")] }
      })
    }))
})

describe("the provider's errors", () => {
  it("an error body is a ProviderError with the provider's code and message", () => {
    // OpenAI (and every OpenAI-compatible API): {error: {message, type, param, code}}
    const quota = left(OpenAiFormat.decodeResponse({
      error: { message: "You exceeded your current quota.", type: "insufficient_quota", param: null, code: null }
    }))
    assert.strictEqual(quota._tag, "ProviderError")
    assert.strictEqual(
      quota.message,
      "openai: the provider answered with an error (insufficient_quota): You exceeded your current quota."
    )
    // OpenRouter: {error: {code: <number>, message, metadata}}
    const credits = left(OpenRouterFormat.decodeResponse({
      error: { code: 402, message: "Insufficient credits", metadata: { provider_name: null } }
    }))
    assert.deepStrictEqual(
      credits._tag === "ProviderError" && [credits.format, credits.code, credits.reason, credits.path, credits.body],
      ["openrouter", 402, "Insufficient credits", ["error"], {
        code: 402,
        message: "Insufficient credits",
        metadata: { provider_name: null }
      }]
    )
    // vLLM and SGLang: {object: "error", message, type, param, code}
    const vllm = left(OpenAiFormat.decodeResponse({
      object: "error",
      message: "This model's maximum context length is 4096 tokens.",
      type: "BadRequestError",
      param: null,
      code: 400
    }))
    assert.deepStrictEqual(vllm._tag === "ProviderError" && [vllm.code, vllm.reason], [
      400,
      "This model's maximum context length is 4096 tokens."
    ])
  })

  it("a stream's error chunk is a ProviderError at that event: OpenRouter mid-stream, OpenAI's error event", () => {
    // OpenRouter's streaming page: an error after tokens were sent comes as a chunk with a top-level
    // `error` and finish_reason "error"
    const e = left(stream(OpenRouterFormat, [
      chunk({ provider: "openai" }, { delta: { content: "Once upon" } }),
      chunk({
        provider: "openai",
        error: { code: "server_error", message: "Provider disconnected unexpectedly" }
      }, { delta: { content: "" }, finish_reason: "error" })
    ]))
    assert.deepStrictEqual(
      e._tag === "ProviderError" && [e.eventIndex, e.code, e.reason, e.path],
      [1, "server_error", "Provider disconnected unexpectedly", [1, "error"]]
    )
    assert.strictEqual(
      e.message,
      "openrouter: event 1: the provider answered with an error (server_error): Provider disconnected unexpectedly"
    )
    const openai = left(stream(OpenAiFormat, [
      chunk({}, { delta: { content: "x" } }),
      { error: { message: "The server had an error.", type: "server_error", param: null, code: null } }
    ]))
    assert.deepStrictEqual(openai._tag === "ProviderError" && [openai.eventIndex, openai.code], [1, "server_error"])
  })

  it("an OpenRouter choice that failed keeps its partial turn, the error beside it", () => {
    const r = right(OpenRouterFormat.decodeResponse({
      index: 0,
      finish_reason: "error",
      message: { role: "assistant", content: "par" },
      error: { code: 502, message: "upstream failed" }
    }))
    assert.deepStrictEqual(r.message.detail, { openrouter: { error: { code: 502, message: "upstream failed" } } })
    assert.strictEqual(r.stopReason, "other")
  })
})

describe("tool calls", () => {
  it("OpenRouter: a call without arguments (a tool whose parameters are all optional) has input {}", () => {
    const r = right(OpenRouterFormat.decodeResponse({
      id: "gen-2",
      choices: [{
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: "",
          tool_calls: [{ index: 0, id: "toolu_1", type: "function", function: { name: "list_files" } }]
        }
      }]
    }))
    assert.deepStrictEqual(r.message.blocks, [Block.toolCall("toolu_1", "list_files", {})])
  })

  // Gemini's OpenAI compatibility page: a thinking model's tool call carries
  // `extra_content.google.thought_signature`, which must come back with the call; its `id` is ""
  const signed = {
    id: "",
    type: "function",
    function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" },
    extra_content: { google: { thought_signature: "CsgBAdHtim8" } }
  }
  const gemini = {
    id: "resp-7",
    object: "chat.completion",
    created: 2,
    model: "gemini-3-pro-preview",
    choices: [{
      index: 0,
      finish_reason: "tool_calls",
      message: {
        role: "assistant",
        content: null,
        tool_calls: [signed, { id: "", type: "function", function: { name: "now", arguments: "{}" } }]
      }
    }]
  }

  it("Gemini: an empty id gets one made from the completion id (or a prefix), the signature kept and sent back", () => {
    const r = right(OpenAiFormat.decodeResponse(gemini))
    const kept = { detail: { openai: { extra_content: { google: { thought_signature: "CsgBAdHtim8" } } } } }
    assert.deepStrictEqual(r.message.blocks, [
      Block.toolCall("call_resp-7_0", "get_weather", { city: "Paris" }, kept),
      Block.toolCall("call_resp-7_1", "now", {})
    ])
    assert.deepStrictEqual(
      right(OpenAiFormat.decodeResponse(gemini, { toolCallIdPrefix: "g" })).message.blocks.map((b) =>
        b.type === "tool_call" && b.id
      ),
      ["g_0", "g_1"]
    )
    // without a completion id, a hash of the message: the same answer gets the same ids
    const { id: _, ...anonymous } = gemini
    const ids = right(OpenAiFormat.decodeResponse(anonymous)).message.blocks.map((b) => b.type === "tool_call" && b.id)
    assert.match(String(ids[0]), /^call_[0-9a-f]{8}_0$/)
    assert.deepStrictEqual(
      right(OpenAiFormat.decodeResponse(structuredClone(anonymous))).message.blocks.map((b) =>
        b.type === "tool_call" && b.id
      ),
      ids
    )
    // encoding sends the signature back on its call
    const [message] = right(OpenAiFormat.encode([r.message], { toolArguments: "json" }))
    assert.deepStrictEqual<unknown>(message, {
      role: "assistant",
      content: null,
      tool_calls: [
        { ...signed, id: "call_resp-7_0" },
        { id: "call_resp-7_1", type: "function", function: { name: "now", arguments: "{}" } }
      ]
    })
    // and decoding the request reads it back: the round trip is exact
    assert.deepStrictEqual(right(OpenAiFormat.decode([message])), [r.message])
  })

  it("Gemini: a signature on the message (a turn without calls) is kept and sent back", () => {
    const message = {
      role: "assistant",
      content: "It is sunny.",
      extra_content: { google: { thought_signature: "Cq0BAdHt" } }
    }
    const r = right(OpenAiFormat.decodeResponse({ id: "r", choices: [{ index: 0, finish_reason: "stop", message }] }))
    assert.deepStrictEqual(
      r.message,
      Message.assistant([Block.text("It is sunny.")], {
        detail: { openai: { extra_content: { google: { thought_signature: "Cq0BAdHt" } } } }
      })
    )
    assert.deepStrictEqual<unknown>(right(OpenAiFormat.encode([r.message])), [message])
  })

  it("Gemini streamed: the signature on the call's delta, the empty id, as the answer sent whole", () => {
    const r = right(stream(OpenAiFormat, [
      chunk({ id: "resp-7" }, { delta: { role: "assistant", tool_calls: [{ ...signed, index: 0 }] } }),
      chunk({ id: "resp-7" }, {
        delta: { tool_calls: [{ index: 1, id: "", type: "function", function: { name: "now", arguments: "{}" } }] }
      }),
      chunk({ id: "resp-7" }, { delta: {}, finish_reason: "tool_calls" })
    ]))
    assert.deepStrictEqual(r.message, right(OpenAiFormat.decodeResponse(gemini)).message)
  })

  it("Mistral: calls sent whole in one delta without index are one call each; a fragment with a known id continues it", () => {
    const r = right(stream(OpenAiFormat, [
      chunk({}, { delta: { role: "assistant", content: "" } }),
      chunk({}, {
        delta: {
          content: null,
          tool_calls: [
            { id: "gSIMJiOkT", function: { name: "weather", arguments: "{\"location\": \"Paris\"}" } },
            { id: "h7Kq2", function: { name: "weather", arguments: "{\"location\": " } }
          ]
        }
      }),
      chunk({}, { delta: { tool_calls: [{ id: "h7Kq2", function: { arguments: "\"Rome\"}" } }] } }),
      chunk({}, { delta: { content: "" }, finish_reason: "tool_calls" })
    ]))
    assert.deepStrictEqual(r.message.blocks, [
      Block.toolCall("gSIMJiOkT", "weather", { location: "Paris" }),
      Block.toolCall("h7Kq2", "weather", { location: "Rome" })
    ])
  })

  it("without index or id (or with an empty one): a fragment naming a function is a new call, others continue", () => {
    const r = right(stream(OpenAiFormat, [
      chunk({ id: "g-1" }, {
        delta: { tool_calls: [{ id: "", type: "function", function: { name: "f", arguments: "{\"a\":" } }] }
      }),
      chunk({ id: "g-1" }, { delta: { tool_calls: [{ function: { arguments: "1}" } }] } }),
      chunk({ id: "g-1" }, { delta: { tool_calls: [{ id: "", function: { name: "g", arguments: "{}" } }] } }),
      chunk({ id: "g-1" }, { delta: {}, finish_reason: "tool_calls" })
    ]))
    assert.deepStrictEqual(r.message.blocks, [
      Block.toolCall("call_g-1_0", "f", { a: 1 }),
      Block.toolCall("call_g-1_1", "g", {})
    ])
  })

  it("a call's keys not read are kept in its detail, whole and streamed alike (index only numbers it)", () => {
    const whole = right(OpenAiFormat.decodeResponse({
      id: "c-2",
      choices: [{
        index: 0,
        finish_reason: "tool_calls",
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{
            index: 0,
            id: "call_1",
            type: "function",
            function: { name: "f", arguments: "{}" },
            origin: { server: "s1" }
          }]
        }
      }]
    }))
    assert.deepStrictEqual(whole.message.blocks, [
      Block.toolCall("call_1", "f", {}, { detail: { openai: { origin: { server: "s1" } } } })
    ])
    const streamed = right(stream(OpenAiFormat, [
      chunk({ id: "c-2" }, {
        delta: {
          role: "assistant",
          tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }]
        }
      }),
      chunk({ id: "c-2" }, {
        delta: { tool_calls: [{ index: 0, function: { arguments: "{}" }, origin: { server: "s1" } }] }
      }),
      chunk({ id: "c-2" }, { delta: {}, finish_reason: "tool_calls" })
    ]))
    assert.deepStrictEqual(streamed.message, whole.message)
  })

  it("Azure: the first chunk (prompt filter results) has an empty id and model; the answer's are the next ones", () => {
    const filters = [{ prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: "safe" } } }]
    const r = right(stream(OpenAiFormat, [
      { choices: [], created: 0, id: "", model: "", object: "", prompt_filter_results: filters },
      chunk({ id: "chatcmpl-A", model: "gpt-5-nano" }, { delta: { role: "assistant", content: "Hi" } }),
      chunk({ id: "chatcmpl-A", model: "gpt-5-nano" }, { delta: {}, finish_reason: "stop" })
    ]))
    assert.deepStrictEqual([r.id, r.model], ["chatcmpl-A", "gpt-5-nano"])
    assert.deepStrictEqual((r.detail?.["openai"] as any)?.prompt_filter_results, filters)
  })

  it("OpenRouter: generated images streamed one a delta are all kept, as in the answer sent whole", () => {
    const image = (n: number) => ({ type: "image_url", image_url: { url: `data:image/png;base64,iVBORw0KGgo${n}` } })
    const r = right(stream(OpenRouterFormat, [
      chunk({}, { delta: { role: "assistant", content: "Here they are.", images: [image(1)] } }),
      chunk({}, { delta: { images: [image(2)] } }),
      chunk({}, { delta: {}, finish_reason: "stop" })
    ]))
    assert.deepStrictEqual(r.message.detail, { openrouter: { images: [image(1), image(2)] } })
  })

  it("Groq: x_groq's seed (first chunk) and usage (last chunk) are both kept", () => {
    const r = right(stream(OpenAiFormat, [
      chunk({ x_groq: { id: "req_1", seed: 42 } }, { delta: { role: "assistant", content: "Hi" } }),
      chunk({}, { delta: {}, finish_reason: "stop" }),
      { ...chunk({ x_groq: { id: "req_1", usage: { queue_time: 0.04 } } }), choices: [] }
    ]))
    assert.deepStrictEqual((r.detail?.["openai"] as any)?.x_groq, {
      id: "req_1",
      seed: 42,
      usage: { queue_time: 0.04 }
    })
  })

  it("an empty refusal is no refusal, whole and streamed", () => {
    const whole = right(OpenAiFormat.decodeResponse({
      id: "c-3",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Hi", refusal: "" } }]
    }))
    const streamed = right(stream(OpenAiFormat, [
      chunk({ id: "c-3" }, { delta: { role: "assistant", content: "Hi", refusal: "" } }),
      chunk({ id: "c-3" }, { delta: {}, finish_reason: "stop" })
    ]))
    for (const r of [whole, streamed]) {
      assert.deepStrictEqual([r.stopReason, r.refusal, r.message.blocks], ["stop", undefined, [Block.text("Hi")]])
    }
  })

  it("a server that leaves out the choice's index: the choice at its place", () => {
    const events = [
      chunk({ id: "c-4" }, { delta: { role: "assistant", content: "Hel" } }),
      chunk({ id: "c-4" }, { delta: { content: "lo" }, finish_reason: "stop" })
    ]
    const without = events.map((e) => ({ ...e, choices: (e.choices ?? []).map(({ index: _, ...c }) => c) }))
    assert.deepStrictEqual(right(stream(OpenAiFormat, without)), right(stream(OpenAiFormat, events)))
    assert.deepStrictEqual(right(stream(OpenAiFormat, without)).message.blocks, [Block.text("Hello")])
  })

  it("a server that numbers every call 0: another id at a known index is another call", () => {
    const r = right(stream(OpenAiFormat, [
      chunk({}, {
        delta: { tool_calls: [{ index: 0, id: "a", type: "function", function: { name: "f", arguments: "" } }] }
      }),
      chunk({}, { delta: { tool_calls: [{ index: 0, function: { arguments: "{}" } }] } }),
      chunk({}, {
        delta: { tool_calls: [{ index: 0, id: "b", type: "function", function: { name: "g", arguments: "{}" } }] }
      }),
      chunk({}, { delta: {}, finish_reason: "tool_calls" })
    ]))
    assert.deepStrictEqual(r.message.blocks, [Block.toolCall("a", "f", {}), Block.toolCall("b", "g", {})])
  })
})

describe("Mistral's thinking parts", () => {
  // Mistral's API: assistant content as chunks, `ThinkChunk` {type: "thinking", thinking: [TextChunk |
  // ReferenceChunk], closed?}
  const whole = {
    id: "a4e29c5b",
    object: "chat.completion",
    created: 3,
    model: "magistral-medium-2507",
    choices: [{
      index: 0,
      finish_reason: "stop",
      message: {
        role: "assistant",
        content: [
          {
            type: "thinking",
            thinking: [{ type: "text", text: "The user asks for 2+2. " }, { type: "text", text: "It is 4." }]
          },
          { type: "text", text: "2 + 2 = 4" }
        ]
      }
    }],
    usage: { prompt_tokens: 10, completion_tokens: 46, total_tokens: 56 }
  }

  it("are reasoning blocks, in their place among the content", () => {
    const r = right(OpenAiFormat.decodeResponse(whole))
    assert.deepStrictEqual(
      r.message,
      Message.assistant([
        Block.reasoning("The user asks for 2+2. It is 4."),
        Block.text("2 + 2 = 4")
      ])
    )
    assert.deepStrictEqual(right(OpenAiFormat.decode([whole.choices[0]!.message])), [r.message])
  })

  it("streamed as parts, they join as the answer sent whole", () => {
    const streamed = right(stream(OpenAiFormat, [
      chunk({ id: "a4e29c5b", created: 3, model: "magistral-medium-2507" }, {
        delta: {
          role: "assistant",
          content: [{ type: "thinking", thinking: [{ type: "text", text: "The user asks" }] }]
        }
      }),
      chunk({ id: "a4e29c5b", created: 3, model: "magistral-medium-2507" }, {
        delta: { content: [{ type: "thinking", thinking: [{ type: "text", text: " for 2+2. It is 4." }] }] }
      }),
      chunk({ id: "a4e29c5b", created: 3, model: "magistral-medium-2507" }, {
        delta: { content: [{ type: "text", text: "2 + 2 " }] }
      }),
      chunk({ id: "a4e29c5b", created: 3, model: "magistral-medium-2507" }, { delta: { content: "= 4" } }),
      chunk({ id: "a4e29c5b", created: 3, model: "magistral-medium-2507", usage: whole.usage }, {
        delta: { content: "" },
        finish_reason: "stop"
      })
    ]))
    assert.deepStrictEqual(streamed, right(OpenAiFormat.decodeResponse(whole)))
  })

  it("a reference chunk keeps the whole thinking list in the block's detail", () => {
    const thinking = [{ type: "text", text: "Per the doc " }, { type: "reference", reference_ids: [1] }]
    const r = right(OpenAiFormat.decodeResponse({
      choices: [{
        index: 0,
        finish_reason: "stop",
        message: { role: "assistant", content: [{ type: "thinking", thinking }] }
      }]
    }))
    assert.deepStrictEqual(r.message.blocks, [Block.reasoning("Per the doc ", { detail: { openai: { thinking } } })])
  })
})

describe("nothing the provider sends is dropped", () => {
  it("Perplexity: citations and search results are kept with the message, streamed or whole", () => {
    const search_results = [{ title: "Population", url: "https://a.example", date: "2025-01-01" }]
    const citations = ["https://a.example", "https://b.example"]
    const base = { id: "p-1", model: "sonar", created: 4, citations, search_results }
    const whole = right(OpenAiFormat.decodeResponse({
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "About 800k [1][2]." } }]
    }))
    assert.deepStrictEqual(whole.message.detail, { openai: { citations, search_results } })
    // every chunk repeats them
    const streamed = right(stream(OpenAiFormat, [
      {
        ...base,
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { role: "assistant", content: "About 800k" } }]
      },
      { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: " [1][2]." } }] },
      { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }
    ]))
    assert.deepStrictEqual(streamed, whole)
  })

  it("keys of the message it does not read are kept in its detail; the call's metadata in the answer's detail", () => {
    const executed_tools = [{ index: 0, type: "search", arguments: "{\"query\": \"weather\"}", output: "Title: ..." }]
    const logprobs = { content: [{ token: "Hi", logprob: -0.1, bytes: [72, 105], top_logprobs: [] }], refusal: null }
    const r: ModelResponse.ModelResponse = right(OpenAiFormat.decodeResponse({
      id: "chatcmpl-9",
      object: "chat.completion",
      created: 5,
      model: "groq/compound",
      system_fingerprint: "fp_1",
      service_tier: "default",
      x_groq: { id: "req_1" },
      choices: [{
        index: 0,
        finish_reason: "stop",
        logprobs,
        message: { role: "assistant", content: "Hi", refusal: null, annotations: [], audio: null, executed_tools }
      }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, queue_time: 0.01 }
    }))
    assert.deepStrictEqual(r.message, Message.assistant([Block.text("Hi")], { detail: { openai: { executed_tools } } }))
    assert.deepStrictEqual(r.detail?.["openai"], {
      object: "chat.completion",
      created: 5,
      system_fingerprint: "fp_1",
      service_tier: "default",
      x_groq: { id: "req_1" },
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2, queue_time: 0.01 },
      choice: { logprobs }
    })
  })

  it("streamed: logprobs lists are appended, other keys keep their last value, obfuscation is not kept", () => {
    const token = (t: string) => ({ token: t, logprob: -0.5, bytes: null, top_logprobs: [] })
    const r = right(stream(OpenAiFormat, [
      chunk({ system_fingerprint: "fp_2", obfuscation: "a1" }, {
        delta: { role: "assistant", content: "Hi" },
        logprobs: { content: [token("Hi")], refusal: null }
      }),
      chunk({ system_fingerprint: "fp_2", obfuscation: "b22" }, {
        delta: { content: "!" },
        logprobs: { content: [token("!")], refusal: null }
      }),
      chunk({ system_fingerprint: "fp_2", obfuscation: "c333" }, { delta: {}, finish_reason: "stop", logprobs: null })
    ]))
    assert.deepStrictEqual(r.detail?.["openai"], {
      created: 1,
      object: "chat.completion",
      system_fingerprint: "fp_2",
      choice: { logprobs: { content: [token("Hi"), token("!")], refusal: null } }
    })
  })
})
