/**
 * The codec benchmark compares our codecs with hand-written converters and with the AI SDK. The
 * comparison is only honest if the hand-written converters do exactly the same job: these tests
 * check them against our codecs (differentially, on generated input, both ways, failures included),
 * and check the pieces the benchmark is built from. Nothing here is timed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { Block, Conversation, Format, Json, Message, Provider } from "openreward-effect"
import * as AiSdk from "../bench/internal/aiSdk.js"
import * as Generate from "../bench/internal/generate.js"
import * as Harness from "../bench/internal/harness.js"
import * as PlainAnthropic from "../bench/internal/plain/anthropic.js"
import * as PlainGoogle from "../bench/internal/plain/google.js"
import * as PlainOpenAi from "../bench/internal/plain/openAi.js"
import * as PlainJson from "../bench/internal/plain/pythonJson.js"
import { dumps } from "../src/internal/pythonJson.js"
import { firstReused } from "../src/internal/toolCallIds.js"
import { withoutProviderBlocks } from "./utils/bridges.js"

const plain = {
  openai: PlainOpenAi,
  openrouter: { ...PlainOpenAi, decode: (input: unknown) => PlainOpenAi.decode(input, "openrouter") },
  anthropic: PlainAnthropic,
  google: PlainGoogle
} as const

const numRuns = { fastCheck: { numRuns: 100 } }

/** Same JSON value, key order included. */
const assertSameJson = (actual: unknown, expected: unknown): void => {
  assert.deepStrictEqual(actual, expected)
  assert.strictEqual(JSON.stringify(actual), JSON.stringify(expected))
}

/** `ours` succeeded and the hand-written run returns the same value, or both failed. */
const assertAgree = (ours: Either.Either<unknown, unknown>, run: () => unknown): void => {
  if (Either.isRight(ours)) assertSameJson(run(), ours.right)
  else assert.throws(run)
}

/**
 * Conversations most formats can encode: system messages first and text only, tool calls named
 * "f" or "g" (so that Gemini's by-name pairing meets same-name calls), tool results answering
 * existing calls with text only, and reasoning only when asked.
 */
// the hand-written encoders are the reference's formats: conversations without provider blocks
const anyConversation = Arbitrary.make(Conversation.Conversation).map(withoutProviderBlocks)

const encodable = (reasoning: boolean) =>
  anyConversation.map((conversation): Conversation.Conversation => {
    const ids = conversation.flatMap((m) =>
      (m.blocks as ReadonlyArray<Block.Block>).flatMap((b) => b.type === "tool_call" ? [b.id] : [])
    )
    let next = 0
    const system = conversation.flatMap((m) =>
      m.role === "system" ? [Message.system(m.blocks.filter((b) => b.type === "text"))] : []
    )
    const rest = conversation.flatMap((m): ReadonlyArray<Message.Message> => {
      switch (m.role) {
        case "system":
          return []
        case "assistant":
          return [
            Message.assistant(
              m.blocks.flatMap((b): ReadonlyArray<Message.AssistantBlock> =>
                b.type === "reasoning" && !reasoning
                  ? []
                  : b.type === "tool_call"
                  ? [Block.toolCall(b.id, b.id.length % 2 === 0 ? "f" : "g", b.input)]
                  : [b]
              )
            )
          ]
        case "user":
          return [Message.user(m.blocks.flatMap((b): ReadonlyArray<Message.UserBlock> =>
            b.type !== "tool_result"
              ? [b]
              : ids.length === 0
              ? []
              : [Block.toolResult(ids[next++ % ids.length]!, b.blocks.filter((x) => x.type === "text"), {
                isError: b.is_error
              })]
          ))]
      }
    })
    return [...system, ...rest]
  })

describe("hand-written encoders", () => {
  for (const provider of Provider.all) {
    it.prop(`${provider}: same output as our codec, or both fail (any conversation)`, [anyConversation], ([c]) => {
      const ours: Either.Either<unknown, unknown> = Format.codecs[provider].encode(c)
      assertAgree(ours, () => plain[provider].encode(c))
    }, numRuns)

    it.prop(
      `${provider}: same output as our codec (encodable conversations)`,
      [encodable(provider !== "google")],
      ([c]) => {
        // reused tool-call ids: Anthropic refuses them, Gemini pairs by position (the hand-written
        // encoders follow the reference there, tests/ToolCallIds.test.ts checks ours)
        if ((provider === "anthropic" || provider === "google") && firstReused(c) !== undefined) return
        const ours: Either.Either<unknown, unknown> = Format.codecs[provider].encode(c)
        assert.isTrue(Either.isRight(ours))
        assertAgree(ours, () => plain[provider].encode(c))
      },
      numRuns
    )
  }
})

// Wire inputs for the decoders: our encodings under every option that changes the wire shape.
const wires: { readonly [P in Provider.Provider]: ReadonlyArray<(c: Conversation.Conversation) => unknown> } = {
  openai: [
    (c) => Format.codecs.openai.encode(c),
    (c) => Format.codecs.openai.encode(c, { reasoningField: "reasoning", reasoningOnToolCalls: true }),
    (c) => Format.codecs.openai.encode(c, { toolResultImages: "user-message" })
  ],
  openrouter: [
    (c) => Format.codecs.openrouter.encode(c),
    (c) => Format.codecs.openrouter.encode(c, { reasoningField: "reasoning", toolResultImages: "tool-message" })
  ],
  anthropic: [
    (c) => Format.codecs.anthropic.encode(c),
    (c) => Format.codecs.anthropic.encode(c, { system: "blocks", laterSystem: "inline" })
  ],
  google: [
    (c) => Format.codecs.google.encode(c),
    (c) =>
      Format.codecs.google.encode(c, {
        casing: "camel",
        systemInstruction: "content",
        toolCallIds: true,
        toolErrors: "error",
        reasoning: "thought"
      }),
    (c) => Format.codecs.google.encode(c, { toolCallIds: true, reasoning: "thought", laterSystem: "user" })
  ]
}

describe("hand-written decoders", () => {
  for (const provider of Provider.all) {
    for (const [k, wire] of wires[provider].entries()) {
      it.prop(
        `${provider}: same conversation as our codec from encoded input (options ${k})`,
        [encodable(true)],
        ([c]) => {
          const encoded = wire(c) as Either.Either<unknown, unknown>
          if (Either.isLeft(encoded)) return
          const input: unknown = JSON.parse(JSON.stringify(encoded.right))
          const ours = Format.codecs[provider].decode(input)
          assert.isTrue(Either.isRight(ours))
          assertAgree(ours, () => plain[provider].decode(input))
        },
        numRuns
      )
    }
    it.prop(`${provider}: both fail on input that is not a transcript`, [FastCheck.jsonValue()], ([input]) => {
      const ours = Format.codecs[provider].decode(input)
      if (Either.isLeft(ours)) assert.throws(() => plain[provider].decode(input))
    }, numRuns)
  }

  // Gemini pairs function responses with calls by id, else by name: generate transcripts that
  // exercise every branch (repeated names, shared and unknown ids, responses before calls).
  const name = FastCheck.constantFrom("f", "g")
  // Calls mostly without ids (as Gemini sends them); responses with ids no call has ("c") too.
  const callId = FastCheck.oneof(
    { weight: 3, arbitrary: FastCheck.constant(undefined) },
    { weight: 1, arbitrary: FastCheck.constantFrom("a", "b") }
  )
  const responseId = FastCheck.oneof(FastCheck.constant(undefined), FastCheck.constantFrom("a", "b", "c"))
  const call = FastCheck.record({ name, id: callId }).map(({ id, name }) => ({
    function_call: id === undefined ? { name, args: {} } : { id, name, args: {} }
  }))
  const response = FastCheck.record({ name, id: responseId, error: FastCheck.boolean() }).map((
    { error, id, name }
  ) => ({
    function_response: {
      ...(id === undefined ? {} : { id }),
      name,
      response: error ? { error: "e" } : { output: "o" }
    }
  }))
  const content = FastCheck.oneof(
    FastCheck.array(FastCheck.oneof(call, FastCheck.constant({ text: "t" })), { minLength: 1, maxLength: 3 }).map((
      parts
    ) => ({ role: "model", parts })),
    FastCheck.array(FastCheck.oneof(response, FastCheck.constant({ text: "u" })), { minLength: 1, maxLength: 3 })
      .map((parts) => ({ role: "user", parts }))
  )

  it.prop(
    "google: same pairing of responses with calls as our codec, or both fail",
    [FastCheck.array(content, { maxLength: 8 })],
    ([contents]) => {
      const input = { contents }
      assertAgree(Format.codecs.google.decode(input), () => PlainGoogle.decode(input))
    },
    { fastCheck: { numRuns: 1000 } }
  )

  // Chat transcripts as OpenAI-compatible servers store them: developer messages, both reasoning
  // fields, OpenRouter details, refusals, argument objects and empty argument strings.
  const chatMessage = FastCheck.oneof(
    FastCheck.record({ role: FastCheck.constantFrom("system", "developer", "user"), content: FastCheck.string() }),
    FastCheck.record({
      role: FastCheck.constant("tool"),
      tool_call_id: FastCheck.constantFrom("a", "b"),
      content: FastCheck.oneof(FastCheck.string(), FastCheck.constant([{ type: "text", text: "x" }]))
    }),
    FastCheck.record({
      role: FastCheck.constant("assistant"),
      content: FastCheck.oneof(FastCheck.constant(null), FastCheck.string()),
      reasoning_content: FastCheck.constantFrom("r", "s", null),
      reasoning: FastCheck.constantFrom("r", "t", null),
      reasoning_details: FastCheck.constantFrom(null, [], [{ type: "reasoning.text", text: "d", signature: "sig" }], [
        { type: "reasoning.summary", summary: "sum" }
      ]),
      refusal: FastCheck.constantFrom(null, "no"),
      tool_calls: FastCheck.constantFrom(
        null,
        [{ id: "a", type: "function", function: { name: "f", arguments: "{\"x\": 1}" } }],
        [{ id: "b", function: { name: "g", arguments: "" } }, {
          id: "c",
          function: { name: "f", arguments: { y: [1] } }
        }],
        [{ id: "d", function: { name: "f", arguments: "[1]" } }],
        [{ id: "e", function: { name: "f", arguments: "{\"n\": 1e999}" } }]
      )
    }, { requiredKeys: ["role"] })
  )

  for (const provider of ["openai", "openrouter"] as const) {
    it.prop(
      `${provider}: same conversation as our codec from stored chat transcripts, or both fail`,
      [FastCheck.array(chatMessage, { maxLength: 6 })],
      ([messages]) => {
        assertAgree(Format.codecs[provider].decode(messages), () => plain[provider].decode(messages))
      },
      { fastCheck: { numRuns: 300 } }
    )
  }
})

describe("hand-written json.dumps", () => {
  it.prop("writes what src/internal/pythonJson writes", [Json.JsonValue], ([value]) => {
    assert.strictEqual(PlainJson.dumps(value), dumps(value))
  }, { fastCheck: { numRuns: 300 } })

  it("agrees on the edges: DEL, non-ASCII, astral and lone surrogates, float exponents", () => {
    const value = ["\u007f", "é", "😀", "\ud800", 1e16, 1e-5, 1.5e300, 0.1, -2.5e-7, 123456789012345680000, 1e15]
    assert.strictEqual(PlainJson.dumps(value), dumps(value))
    assert.strictEqual(
      PlainJson.dumps(value),
      "[\"\\u007f\", \"\\u00e9\", \"\\ud83d\\ude00\", \"\\ud800\", 1e+16, 1e-05, 1.5e+300, 0.1, -2.5e-07, " +
        "1.2345678901234568e+20, 1000000000000000]"
    )
  })
})

describe("generated conversations", () => {
  it("have exactly the requested number of turns, and are deterministic", () => {
    for (const turns of [1, 2, 5, 100, 1001]) {
      const c = Generate.conversation(turns, { reasoning: true })
      assert.strictEqual(c.length, turns)
      assert.deepStrictEqual(Generate.conversation(turns, { reasoning: true }), c)
    }
  })

  it("are valid canonical conversations that every format encodes", () => {
    for (const provider of Provider.all) {
      const c = Generate.conversation(203, { reasoning: provider !== "google" })
      assert.isTrue(Schema.is(Conversation.Conversation)(c))
      assert.deepStrictEqual(Either.getOrThrow(Conversation.decode(Conversation.encode(c))), c)
      const encoded: Either.Either<unknown, unknown> = Format.codecs[provider].encode(c)
      assert.isTrue(Either.isRight(encoded))
    }
  })

  it("hold every block type, reasoning only when asked", () => {
    const types = (c: Conversation.Conversation) => new Set(Conversation.blocks(c).map((b) => b.type))
    assert.deepStrictEqual(
      [...types(Generate.conversation(30, { reasoning: true }))].sort(),
      ["image", "reasoning", "text", "tool_call", "tool_result"]
    )
    assert.isFalse(types(Generate.conversation(30, { reasoning: false })).has("reasoning"))
    assert.strictEqual(Generate.conversation(1, { reasoning: true })[0]?.role, "user")
  })

  it("count blocks, tool-result content included", () => {
    const c = [Message.user([Block.text("a"), Block.toolResult("t", [Block.text("b"), Block.text("c")])])]
    assert.strictEqual(Generate.blockCount(c), 4)
  })
})

describe("harness statistics", () => {
  it("median of odd and even lists", () => {
    assert.strictEqual(Harness.median([3, 1, 2]), 2)
    assert.strictEqual(Harness.median([4, 1, 3, 2]), 2.5)
  })

  it("pairs ratios by round, so a slow round does not skew the ratio", () => {
    const a = { name: "a", batch: 1, samples: [10, 100, 12], median: 12 }
    const b = { name: "b", batch: 1, samples: [5, 50, 6], median: 6 }
    assert.strictEqual(Harness.pairedRatio(a, b), 2)
  })
})

describe("AI SDK input", () => {
  it("carries the same content: tool results as a tool message first, signatures as provider options", () => {
    const prompt = AiSdk.toPrompt([
      Message.system("s"),
      Message.assistant([
        Block.reasoning("think", { signature: "sig" }),
        Block.text("t"),
        Block.toolCall("c1", "lookup", { a: 1 })
      ]),
      Message.user([Block.text("after"), Block.toolResult("c1", "out", { isError: true })])
    ])
    assert.deepStrictEqual(prompt, [
      { role: "system", content: "s" },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "think", providerOptions: { anthropic: { signature: "sig" } } },
          { type: "text", text: "t" },
          { type: "tool-call", toolCallId: "c1", toolName: "lookup", input: { a: 1 } }
        ]
      },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          toolCallId: "c1",
          toolName: "lookup",
          output: { type: "error-text", value: "out" }
        }]
      },
      { role: "user", content: [{ type: "text", text: "after" }] }
    ])
  })

  for (const provider of Provider.all) {
    it.effect(`${provider}: the driver converts offline and captures the request body`, () =>
      Effect.gen(function*() {
        const driver = AiSdk.driver(provider)
        const conversation = Generate.conversation(9, { reasoning: provider !== "google" })
        yield* Effect.promise(() => Promise.resolve(driver.generate(AiSdk.toPrompt(conversation))))
        const body = driver.lastBody()
        for (const block of Conversation.blocks(conversation)) {
          if (block.type === "tool_call") assert.include(body, JSON.stringify(block.id))
        }
      }))
  }
})
