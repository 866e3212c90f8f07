import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { Block, Conversation, ConversionError, Message } from "openreward-effect"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import * as OpenRouterFormat from "openreward-effect/OpenRouterFormat"
import { codecLaws } from "./utils/codecLaws.js"
import { chatLike, normalize } from "./utils/openAiChat.js"

const left = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) return assert.fail(`expected a Left, got ${JSON.stringify(result.right)}`)
  return result.left
}

const right = <A, E>(result: Either.Either<A, E>): A => {
  if (Either.isLeft(result)) return assert.fail(`expected a Right, got ${String(result.left)}`)
  return result.right
}

const canonical = (wire: unknown): Conversation.Conversation => right(Conversation.decode(wire))

const encodeError = Schema.encodeSync(ConversionError.ConversionError)

const assertError = (
  error: ConversionError.ConversionError,
  fields: Readonly<Record<string, unknown>>,
  message: string
) => {
  assert.deepStrictEqual(encodeError(error), fields)
  assert.strictEqual(error.message, message)
}

const assertJson = (actual: unknown, expected: unknown) =>
  assert.strictEqual(JSON.stringify(actual), JSON.stringify(expected))

// -----------------------------------------------------------------------------
// golden example: the expected JSON is the output of the reference SDK (openreward 0.1.167),
// `convert_messages(..., format="openrouter")`, which is the same as its openai output
// -----------------------------------------------------------------------------

const rich = {
  input: [
    { role: "system", blocks: [{ type: "text", text: "Be terse." }, { type: "text", text: "Answer in French." }] },
    {
      role: "user",
      blocks: [
        { type: "text", text: "What's the weather here?" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", detail: { source: "camera" } }
      ]
    },
    {
      role: "assistant",
      blocks: [
        { type: "reasoning", text: "Need the weather tool.", signature: "EqQBCkYIBxgCKkB" },
        { type: "text", text: "Checking." },
        { type: "tool_call", id: "call_1", name: "get_weather", input: { city: "Paris" } },
        { type: "tool_call", id: "call_2", name: "get_time", input: {} }
      ]
    },
    {
      role: "user",
      blocks: [
        {
          type: "tool_result",
          tool_call_id: "call_1",
          blocks: [{ type: "text", text: "18 C" }, { type: "text", text: "cloudy" }],
          is_error: false
        },
        { type: "text", text: "Also, is it windy?" },
        { type: "tool_result", tool_call_id: "call_2", blocks: [], is_error: true }
      ]
    }
  ],
  expected: [
    { role: "system", content: [{ type: "text", text: "Be terse." }, { type: "text", text: "Answer in French." }] },
    {
      role: "user",
      content: [
        { type: "text", text: "What's the weather here?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=" } }
      ]
    },
    {
      role: "assistant",
      content: "Checking.",
      reasoning_content: "Need the weather tool.",
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "get_weather", arguments: "{\"city\": \"Paris\"}" } },
        { id: "call_2", type: "function", function: { name: "get_time", arguments: "{}" } }
      ]
    },
    { role: "tool", tool_call_id: "call_1", content: "18 C\ncloudy" },
    { role: "tool", tool_call_id: "call_2", content: "" },
    { role: "user", content: "Also, is it windy?" }
  ]
}

describe("OpenRouterFormat.encode", () => {
  it("matches the reference: the openai shape, reasoning in reasoning_content", () => {
    assertJson(right(OpenRouterFormat.encode(canonical(rich.input))), rich.expected)
  })

  it.prop(
    "is OpenAiFormat.encode with default options",
    [Conversation.Conversation],
    ([conversation]) => {
      const openRouter = OpenRouterFormat.encode(conversation)
      const openAi = OpenAiFormat.encode(conversation)
      if (Either.isRight(openAi)) return assertJson(right(openRouter), openAi.right)
      // The same error, but for its format name and the ways out its reason suggests.
      const error = left(openRouter)
      assert.strictEqual(error._tag, "UnsupportedBlock")
      if (error._tag !== "UnsupportedBlock") return
      assert.strictEqual(error.format, "openrouter")
      const other = openAi.left
      assert.strictEqual(other._tag, "UnsupportedBlock")
      if (other._tag !== "UnsupportedBlock") return
      assert.deepStrictEqual(
        [error.path, error.messageIndex, error.blockIndex, error.blockType],
        [other.path, other.messageIndex, other.blockIndex, other.blockType]
      )
    },
    { fastCheck: { numRuns: 100 } }
  )

  it("fails on an image inside a tool result, naming openrouter and its two ways out", () => {
    const error = left(OpenRouterFormat.encode([
      Message.user([Block.toolResult("c1", [Block.text("chart:"), Block.image("AAAA", "image/png")])])
    ]))
    const reason =
      "tool messages carry text only by default; set toolResultImages to \"user-message\" to send the images in a user message after the tool messages, or to \"tool-message\" to send them as image parts of the tool message"
    assertError(error, {
      _tag: "UnsupportedBlock",
      format: "openrouter",
      path: [0, "blocks", 0, "blocks", 1],
      messageIndex: 0,
      blockIndex: 0,
      blockType: "image",
      reason
    }, `openrouter: message 0, block 0: cannot represent an "image" block: ${reason}`)
  })

  it("toolResultImages: \"tool-message\" sends an image-holding result as parts of its tool message", () => {
    const conversation = [
      Message.user([
        Block.toolResult("c1", [Block.text("chart:"), Block.image("AAAA", "image/png"), Block.text("(2024)")]),
        Block.toolResult("c2", [Block.text("a"), Block.text("b")]),
        Block.text("What does it show?")
      ])
    ]
    const encoded = right(OpenRouterFormat.encode(conversation, { toolResultImages: "tool-message" }))
    assertJson(encoded, [
      {
        role: "tool",
        tool_call_id: "c1",
        content: [
          { type: "text", text: "chart:" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          { type: "text", text: "(2024)" }
        ]
      },
      { role: "tool", tool_call_id: "c2", content: "a\nb" },
      { role: "user", content: "What does it show?" }
    ])
    assert.deepStrictEqual(right(OpenRouterFormat.decode(encoded)), [
      Message.user([
        Block.toolResult("c1", [Block.text("chart:"), Block.image("AAAA", "image/png"), Block.text("(2024)")]),
        Block.toolResult("c2", "a\nb"),
        Block.text("What does it show?")
      ])
    ])
  })

  it("reasoningField: \"reasoning\" writes OpenRouter's documented field", () => {
    assertJson(
      right(
        OpenRouterFormat.encode([Message.assistant([Block.reasoning("a"), Block.reasoning("b"), Block.text("x")])], {
          reasoningField: "reasoning"
        })
      ),
      [{ role: "assistant", content: "x", reasoning: "a\n\nb" }]
    )
  })
})

describe("OpenRouterFormat.decode", () => {
  it("keeps the signature of a signed reasoning.text detail (Anthropic through OpenRouter)", () => {
    const transcript = [{
      role: "assistant",
      content: "Checking.",
      reasoning: "Need the weather tool.",
      reasoning_details: [{
        type: "reasoning.text",
        text: "Need the weather tool.",
        signature: "EqQBCkYIBxgCKkB",
        format: "anthropic-claude-v1",
        index: 0
      }],
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" }
      }]
    }]
    const decoded = right(OpenRouterFormat.decode(transcript))
    assert.deepStrictEqual(decoded, [
      Message.assistant([
        Block.reasoning("Need the weather tool.", {
          signature: "EqQBCkYIBxgCKkB",
          detail: {
            openrouter: { reasoning_detail: { type: "reasoning.text", format: "anthropic-claude-v1", index: 0 } }
          }
        }),
        Block.text("Checking."),
        Block.toolCall("call_1", "get_weather", { city: "Paris" })
      ])
    ])
    // and encoding sends the entry back, with its format, next to the flat text
    const [message] = right(OpenRouterFormat.encode(decoded, { reasoningField: "reasoning", toolArguments: "json" }))
    assert.deepStrictEqual<unknown>(message, {
      role: "assistant",
      content: "Checking.",
      reasoning: "Need the weather tool.",
      reasoning_details: [transcript[0]!.reasoning_details[0]!],
      tool_calls: [transcript[0]!.tool_calls[0]!]
    })
  })

  it("reads one reasoning block per text or summary detail; the flat fields are then not read", () => {
    const transcript = [{
      role: "assistant",
      content: "ok",
      reasoning: "First.Second.",
      reasoning_content: "not read either",
      reasoning_details: [
        { type: "reasoning.text", text: "First.", signature: "s1", index: 0 },
        { type: "reasoning.text", text: "Second.", signature: null, index: 1 },
        { type: "reasoning.summary", summary: "In short.", index: 2 },
        { type: "reasoning.text", signature: "s3", index: 3 }
      ]
    }]
    const entry = (type: string, index: number) => ({ detail: { openrouter: { reasoning_detail: { type, index } } } })
    assert.deepStrictEqual(right(OpenRouterFormat.decode(transcript)), [
      Message.assistant([
        Block.reasoning("First.", { signature: "s1", ...entry("reasoning.text", 0) }),
        Block.reasoning("Second.", entry("reasoning.text", 1)),
        Block.reasoning("In short.", entry("reasoning.summary", 2)),
        Block.reasoning("", { signature: "s3", ...entry("reasoning.text", 3) }),
        Block.text("ok")
      ])
    ])
  })

  it("reads the flat reasoning when the details carry no text (empty, or encrypted and dropped)", () => {
    assert.deepStrictEqual(
      right(OpenRouterFormat.decode([
        { role: "assistant", content: "a", reasoning: "DeepSeek", reasoning_details: [] },
        {
          role: "assistant",
          content: "b",
          reasoning: "o-series summary",
          reasoning_details: [{ type: "reasoning.encrypted", data: "gAAAA", format: "openai-responses-v1" }]
        }
      ], { encryptedReasoning: "drop" })),
      [
        Message.assistant([Block.reasoning("DeepSeek"), Block.text("a")]),
        Message.assistant([Block.reasoning("o-series summary"), Block.text("b")])
      ]
    )
  })

  it("keeps encrypted reasoning by default (sent back as it came), fails with \"error\", and on details of other types", () => {
    const body = {
      model: "openai/gpt-5",
      messages: [{
        role: "assistant",
        content: "b",
        reasoning: "Summary.",
        reasoning_details: [
          { type: "reasoning.summary", summary: "Summary.", format: "openai-responses-v1", index: 0 },
          { type: "reasoning.encrypted", data: "gAAAA", id: "rs_1", format: "openai-responses-v1", index: 0 }
        ]
      }]
    }
    const kept = right(OpenRouterFormat.decode(body))
    assert.deepStrictEqual(kept, [
      Message.assistant([
        Block.reasoning("Summary.", {
          detail: {
            openrouter: { reasoning_detail: { type: "reasoning.summary", format: "openai-responses-v1", index: 0 } }
          }
        }),
        Block.reasoning("", {
          signature: "gAAAA",
          detail: {
            openrouter: {
              reasoning_detail: { type: "reasoning.encrypted", id: "rs_1", format: "openai-responses-v1", index: 0 }
            }
          }
        }),
        Block.text("b")
      ])
    ])
    // the encrypted entry adds nothing to the flat text, and goes back whole in reasoning_details
    assert.deepStrictEqual<unknown>(right(OpenRouterFormat.encode(kept, { reasoningField: "reasoning" })), [
      { role: "assistant", content: "b", reasoning: "Summary.", reasoning_details: body.messages[0]!.reasoning_details }
    ])
    assert.deepStrictEqual(right(OpenRouterFormat.decode(right(OpenRouterFormat.encode(kept)))), kept)
    // "omit" sends no reasoning at all
    assert.deepStrictEqual(right(OpenRouterFormat.encode(kept, { reasoningField: "omit" })), [
      { role: "assistant", content: "b" }
    ])
    const encrypted = left(OpenRouterFormat.decode(body, { encryptedReasoning: "error" }))
    const reason = "encrypted reasoning is opaque data and encryptedReasoning is \"error\"; set it to \"keep\" (the " +
      "default) to keep it as the signature of a reasoning block with no text, or to \"drop\" to leave it out"
    assertError(encrypted, {
      _tag: "UnsupportedContent",
      format: "openrouter",
      path: ["messages", 0, "reasoning_details", 1],
      messageIndex: 0,
      blockIndex: 1,
      contentType: "reasoning.encrypted",
      reason
    }, `openrouter: message 0, block 1: "reasoning.encrypted" content has no canonical form: ${reason}`)
    assertError(
      left(OpenRouterFormat.decode([{
        role: "assistant",
        content: "x",
        reasoning_details: [{ type: "reasoning.server_tool_call", tool_name: "web_search", arguments: {}, result: {} }]
      }], { encryptedReasoning: "drop" })),
      {
        _tag: "UnsupportedContent",
        format: "openrouter",
        path: [0, "reasoning_details", 0],
        messageIndex: 0,
        blockIndex: 0,
        contentType: "reasoning.server_tool_call",
        reason: "a canonical reasoning block holds text and a signature only"
      },
      "openrouter: message 0, block 0: \"reasoning.server_tool_call\" content has no canonical form: a canonical reasoning block holds text and a signature only"
    )
  })

  it("reports malformed details with their path", () => {
    assertError(
      left(
        OpenRouterFormat.decode([{
          role: "assistant",
          content: "x",
          reasoning_details: [{ type: "reasoning.summary" }]
        }])
      ),
      {
        _tag: "MalformedInput",
        format: "openrouter",
        path: [0, "reasoning_details", 0, "summary"],
        messageIndex: 0,
        blockIndex: 0,
        reason: "is missing"
      },
      "openrouter: message 0, block 0: malformed input at $[0].reasoning_details[0].summary: is missing"
    )
  })

  it("reads image parts inside tool messages into the tool result", () => {
    assert.deepStrictEqual(
      right(OpenRouterFormat.decode([{
        role: "tool",
        tool_call_id: "c1",
        content: [{ type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/" } }]
      }])),
      [Message.user([Block.toolResult("c1", [Block.image("/9j/", "image/jpeg")])])]
    )
  })

  it("names openrouter in every error", () => {
    for (const input of [5, [{ role: "user", content: [{ type: "input_audio" }] }]]) {
      const error = left(OpenRouterFormat.decode(input))
      assert.isTrue(error._tag === "MalformedInput" || error._tag === "UnsupportedContent")
      if (error._tag === "MalformedInput" || error._tag === "UnsupportedContent") {
        assert.strictEqual(error.format, "openrouter")
      }
    }
  })
})

codecLaws("OpenRouterFormat", OpenRouterFormat, {
  normalize,
  options: [
    undefined,
    {
      reasoningField: "reasoning",
      reasoningOnToolCalls: true,
      toolResultImages: "user-message",
      toolArguments: "json"
    },
    { reasoningField: "omit", reasoningOnToolCalls: false, toolResultImages: "tool-message", toolArguments: "python" },
    { reasoningField: "reasoning_content", toolResultImages: "error" }
  ],
  isWire: Schema.is(OpenRouterFormat.Wire)
})

describe("OpenRouterFormat laws", () => {
  it.prop(
    "decode never throws, and fails only with a DecodeError",
    [fc.oneof(fc.anything(), fc.jsonValue(), fc.record({ messages: fc.array(fc.anything()) }), chatLike(fc))],
    ([input]) => {
      const result = OpenRouterFormat.decode(input)
      if (Either.isLeft(result)) {
        assert.include(
          ["MalformedInput", "MisplacedBlock", "UnmatchedToolResult", "InvalidToolArguments", "UnsupportedContent"],
          result.left._tag
        )
      } else {
        assert.isTrue(Schema.is(Conversation.Conversation)(result.right))
      }
    },
    { fastCheck: { numRuns: 100 } }
  )
})

describe("OpenRouterFormat.codec and schema", () => {
  it("the codec is the module's functions", () => {
    assert.strictEqual(OpenRouterFormat.codec.name, "openrouter")
    assert.strictEqual(OpenRouterFormat.codec.encode, OpenRouterFormat.encode)
    assert.strictEqual(OpenRouterFormat.codec.decode, OpenRouterFormat.decode)
  })

  it("the schema composes with Schema.parseJson", () => {
    const json = Schema.parseJson(OpenRouterFormat.schema)
    const conversation = canonical(rich.input)
    const text = Schema.encodeSync(json)(conversation)
    assert.strictEqual(text, JSON.stringify(rich.expected))
    assert.deepStrictEqual(Schema.decodeUnknownSync(json)(text), normalize(conversation))
    const failure = Schema.encodeEither(json)([
      Message.user([Block.toolResult("t", [Block.image("AA", "image/png")])])
    ])
    assert.isTrue(Either.isLeft(failure))
    if (Either.isLeft(failure)) assert.include(failure.left.message, "openrouter: message 0, block 0: cannot represent")
  })
})
