import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { Block, Conversation, ConversionError, Message } from "openreward-effect"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import { codecLaws } from "./utils/codecLaws.js"
import { guardLaws } from "./utils/guardLaws.js"
import { chatLike, normalize } from "./utils/openAiChat.js"

const left = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) return assert.fail(`expected a Left, got ${JSON.stringify(result.right)}`)
  return result.left
}

const right = <A, E>(result: Either.Either<A, E>): A => {
  if (Either.isLeft(result)) return assert.fail(`expected a Right, got ${String(result.left)}`)
  return result.right
}

/** A canonical conversation from its wire JSON (what the reference SDK's `_parse_blocks` reads). */
const canonical = (wire: unknown): Conversation.Conversation => right(Conversation.decode(wire))

const encodeError = Schema.encodeSync(ConversionError.ConversionError)

/** An error's tag and every field, and its message. */
const assertError = (
  error: ConversionError.ConversionError,
  fields: Readonly<Record<string, unknown>>,
  message: string
) => {
  assert.deepStrictEqual(encodeError(error), fields)
  assert.strictEqual(error.message, message)
}

/** Byte-equal JSON, key order included. */
const assertJson = (actual: unknown, expected: unknown) =>
  assert.strictEqual(JSON.stringify(actual), JSON.stringify(expected))

// -----------------------------------------------------------------------------
// golden examples: the expected JSON is the output of the reference SDK (openreward 0.1.167),
// `convert_messages([Message(role, _parse_blocks(blocks)) ...], format="openai")`
// -----------------------------------------------------------------------------

const goldens: ReadonlyArray<{ readonly name: string; readonly input: unknown; readonly expected: unknown }> = [
  {
    name: "the seed page's support dialogue: single text blocks become strings",
    input: [
      { role: "system", blocks: [{ type: "text", text: "You are a support agent for Acme." }] },
      { role: "user", blocks: [{ type: "text", text: "My order hasn't arrived." }] },
      { role: "assistant", blocks: [{ type: "text", text: "Sorry to hear that — what's the order number?" }] },
      { role: "user", blocks: [{ type: "text", text: "It's #4411, ordered two weeks ago." }] }
    ],
    expected: [
      { role: "system", content: "You are a support agent for Acme." },
      { role: "user", content: "My order hasn't arrived." },
      { role: "assistant", content: "Sorry to hear that — what's the order number?" },
      { role: "user", content: "It's #4411, ordered two weeks ago." }
    ]
  },
  {
    name: "the seed page's rich conversation: reasoning_content, tool_calls, a tool message",
    input: [
      { role: "user", blocks: [{ type: "text", text: "My order #4411 hasn't arrived." }] },
      {
        role: "assistant",
        blocks: [
          { type: "reasoning", text: "Two weeks late — check the carrier first." },
          { type: "tool_call", id: "tc_1", name: "lookup_order", input: { id: "4411" } }
        ]
      },
      {
        role: "user",
        blocks: [{
          type: "tool_result",
          tool_call_id: "tc_1",
          blocks: [{ type: "text", text: "{\"status\": \"stalled_at_hub\"}" }]
        }]
      }
    ],
    expected: [
      { role: "user", content: "My order #4411 hasn't arrived." },
      {
        role: "assistant",
        content: null,
        reasoning_content: "Two weeks late — check the carrier first.",
        tool_calls: [{
          id: "tc_1",
          type: "function",
          function: { name: "lookup_order", arguments: "{\"id\": \"4411\"}" }
        }]
      },
      { role: "tool", tool_call_id: "tc_1", content: "{\"status\": \"stalled_at_hub\"}" }
    ]
  },
  {
    name: "parts for several blocks, data-URL images, tool messages before the turn's remaining text",
    input: [
      {
        role: "system",
        blocks: [{ type: "text", text: "Be terse." }, { type: "text", text: "Answer in French." }]
      },
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
      {
        role: "system",
        content: [{ type: "text", text: "Be terse." }, { type: "text", text: "Answer in French." }]
      },
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
  },
  {
    name: "empty messages: [] for a system, nothing for a user, null content for an assistant",
    input: [
      { role: "system", blocks: [] },
      { role: "user", blocks: [] },
      { role: "assistant", blocks: [] },
      { role: "assistant", blocks: [{ type: "reasoning", text: "" }] },
      { role: "assistant", blocks: [{ type: "text", text: "" }] },
      { role: "user", blocks: [{ type: "image", data: "AAAA", mimeType: "image/jpeg" }] }
    ],
    expected: [
      { role: "system", content: [] },
      { role: "assistant", content: null },
      { role: "assistant", content: null, reasoning_content: "" },
      { role: "assistant", content: "" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } }] }
    ]
  },
  {
    name: "assistant blocks regrouped, reasoning joined with a blank line, arguments as Python's json.dumps",
    input: [{
      role: "assistant",
      blocks: [
        {
          type: "tool_call",
          id: "a",
          name: "f",
          input: {
            q: "café ☕ 😀",
            n: [1, -2.5, 1e-7, 2e+20, 0.1],
            nested: { ok: true, none: null },
            quote: "\"\\\n\t"
          }
        },
        { type: "text", text: "first" },
        { type: "reasoning", text: "one" },
        { type: "image", data: "QUJD", mimeType: "image/gif" },
        { type: "reasoning", text: "two" },
        { type: "tool_call", id: "b", name: "g", input: {} }
      ]
    }],
    expected: [{
      role: "assistant",
      content: [
        { type: "text", text: "first" },
        { type: "image_url", image_url: { url: "data:image/gif;base64,QUJD" } }
      ],
      reasoning_content: "one\n\ntwo",
      tool_calls: [
        {
          id: "a",
          type: "function",
          function: {
            name: "f",
            arguments:
              "{\"q\": \"caf\\u00e9 \\u2615 \\ud83d\\ude00\", \"n\": [1, -2.5, 1e-07, 2e+20, 0.1], \"nested\": {\"ok\": true, \"none\": null}, \"quote\": \"\\\"\\\\\\n\\t\"}"
          }
        },
        { id: "b", type: "function", function: { name: "g", arguments: "{}" } }
      ]
    }]
  },
  {
    name: "turns of only tool results emit only tool messages; texts joined with a newline; a later system",
    input: [
      {
        role: "user",
        blocks: [{ type: "tool_result", tool_call_id: "x", blocks: [{ type: "text", text: "only tools" }] }]
      },
      {
        role: "user",
        blocks: [{
          type: "tool_result",
          tool_call_id: "y",
          blocks: [{ type: "text", text: "a" }, { type: "text", text: "" }, { type: "text", text: "b" }]
        }]
      },
      {
        role: "system",
        blocks: [{ type: "text", text: "late system" }, { type: "image", data: "Zg==", mimeType: "image/webp" }]
      }
    ],
    expected: [
      { role: "tool", tool_call_id: "x", content: "only tools" },
      { role: "tool", tool_call_id: "y", content: "a\n\nb" },
      {
        role: "system",
        content: [
          { type: "text", text: "late system" },
          { type: "image_url", image_url: { url: "data:image/webp;base64,Zg==" } }
        ]
      }
    ]
  }
]

describe("OpenAiFormat.encode", () => {
  for (const golden of goldens) {
    it(`matches the reference: ${golden.name}`, () => {
      assertJson(right(OpenAiFormat.encode(canonical(golden.input))), golden.expected)
    })
  }

  it("produces values of the Wire schema", () => {
    for (const golden of goldens) {
      assert.isTrue(Schema.is(OpenAiFormat.Wire)(right(OpenAiFormat.encode(canonical(golden.input)))))
    }
  })

  it("drops what the wire has no slot for: detail, signature, is_error", () => {
    const encoded = right(OpenAiFormat.encode([
      Message.user([Block.text("hi", { detail: { a: 1 } })], { detail: { b: 2 } }),
      Message.assistant([Block.reasoning("r", { signature: "sig" })]),
      Message.user([Block.toolResult("t", "boom", { isError: true, detail: { c: 3 } })])
    ]))
    assertJson(encoded, [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, reasoning_content: "r" },
      { role: "tool", tool_call_id: "t", content: "boom" }
    ])
  })

  it("fails on an image inside a tool result, naming the tool result and the path to the image", () => {
    const error = left(OpenAiFormat.encode([
      Message.user("hi"),
      Message.assistant("x"),
      Message.user([Block.text("see"), Block.toolResult("t", [Block.text("a"), Block.image("AA", "image/png")])])
    ]))
    assertError(
      error,
      {
        _tag: "UnsupportedBlock",
        format: "openai",
        path: [2, "blocks", 1, "blocks", 1],
        messageIndex: 2,
        blockIndex: 1,
        blockType: "image",
        reason:
          "tool messages carry text only; set toolResultImages to \"user-message\" to send the images in a user message after the tool messages"
      },
      "openai: message 2, block 1: cannot represent an \"image\" block: tool messages carry text only; set toolResultImages to \"user-message\" to send the images in a user message after the tool messages"
    )
  })

  it("re-checks placement first, for the whole conversation, as the reference does", () => {
    // The reference raises the placement error here although message 0 already holds an image in a
    // tool result.
    const misplaced = [
      Message.user([Block.toolResult("t", [Block.image("AA", "image/png")])]),
      { role: "assistant", blocks: [Block.toolResult("t", [])], detail: null }
    ] as unknown as Conversation.Conversation
    assertError(
      left(OpenAiFormat.encode(misplaced)),
      {
        _tag: "MisplacedBlock",
        path: [1, "blocks", 0],
        messageIndex: 1,
        blockIndex: 0,
        role: "assistant",
        blockType: "tool_result"
      },
      "canonical: message 1, block 0: a \"tool_result\" block is not valid in an \"assistant\" message: reasoning and tool_call blocks belong in assistant turns, tool_result blocks in user turns"
    )
  })

  it("rejects every block in a role that may not hold it, with its path", () => {
    const cases: ReadonlyArray<readonly [Message.Role, Block.Block]> = [
      ["user", Block.reasoning("r")],
      ["system", Block.toolCall("a", "b")],
      ["system", Block.toolResult("a", "x")]
    ]
    for (const [role, block] of cases) {
      const conversation = [{
        role,
        blocks: [Block.text("ok"), block],
        detail: null
      }] as unknown as Conversation.Conversation
      const error = left(OpenAiFormat.encode(conversation))
      assert.strictEqual(error._tag, "MisplacedBlock")
      assert.deepStrictEqual(error.path, [0, "blocks", 1])
    }
  })
})

// -----------------------------------------------------------------------------
// options
// -----------------------------------------------------------------------------

describe("OpenAiFormat.EncodeOptions", () => {
  const turn = Message.assistant([
    Block.reasoning("think"),
    Block.text("Calling."),
    Block.toolCall("c1", "f", { a: 1 })
  ])
  const plain = Message.assistant([Block.toolCall("c2", "g")])

  it("explicit defaults are the reference's", () => {
    const conversation = canonical(goldens[2]!.input)
    assertJson(
      right(OpenAiFormat.encode(conversation, {
        reasoningField: "reasoning_content",
        reasoningOnToolCalls: false,
        toolResultImages: "error",
        toolArguments: "python"
      })),
      goldens[2]!.expected
    )
  })

  it("reasoningField: \"reasoning\" writes the reasoning where vLLM and OpenRouter read it", () => {
    assertJson(right(OpenAiFormat.encode([turn], { reasoningField: "reasoning" })), [{
      role: "assistant",
      content: "Calling.",
      reasoning: "think",
      tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{\"a\": 1}" } }]
    }])
  })

  it("reasoningField: \"omit\" sends no reasoning", () => {
    assertJson(
      right(OpenAiFormat.encode([turn, Message.assistant([Block.reasoning("only")])], { reasoningField: "omit" })),
      [
        {
          role: "assistant",
          content: "Calling.",
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{\"a\": 1}" } }]
        },
        { role: "assistant", content: null }
      ]
    )
  })

  it("toolArguments: \"json\" writes the arguments as JSON.stringify does; the value is the same", () => {
    const input = { q: "naïve \"x\"", n: [1.5, 1e-7, 1e21, 12345678901234567890], o: { "2": null, a: true } }
    const conversation = [Message.assistant([Block.toolCall("c1", "f", input)])]
    const [json] = right(OpenAiFormat.encode(conversation, { toolArguments: "json" }))
    const [python] = right(OpenAiFormat.encode(conversation))
    const argumentsOf = (message: OpenAiFormat.ChatMessage | undefined) =>
      message?.role === "assistant" ? message.tool_calls?.[0]?.function.arguments : undefined
    assert.strictEqual(argumentsOf(json), JSON.stringify(input))
    assert.strictEqual(
      argumentsOf(python),
      "{\"q\": \"na\\u00efve \\\"x\\\"\", \"n\": [1.5, 1e-07, 1e+21, 1.2345678901234567e+19], \"o\": {\"2\": null, \"a\": true}}"
    )
    assert.deepStrictEqual(JSON.parse(argumentsOf(json)!), JSON.parse(argumentsOf(python)!))
    assert.deepStrictEqual(right(OpenAiFormat.decode([json])), right(OpenAiFormat.decode([python])))
  })

  it("reasoningOnToolCalls writes an empty reasoning field on tool-call turns that have none", () => {
    const conversation = [turn, plain, Message.assistant("no tools")]
    assertJson(right(OpenAiFormat.encode(conversation, { reasoningOnToolCalls: true })), [
      {
        role: "assistant",
        content: "Calling.",
        reasoning_content: "think",
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{\"a\": 1}" } }]
      },
      {
        role: "assistant",
        content: null,
        reasoning_content: "",
        tool_calls: [{ id: "c2", type: "function", function: { name: "g", arguments: "{}" } }]
      },
      { role: "assistant", content: "no tools" }
    ])
    assertJson(right(OpenAiFormat.encode([plain], { reasoningOnToolCalls: true, reasoningField: "reasoning" })), [{
      role: "assistant",
      content: null,
      reasoning: "",
      tool_calls: [{ id: "c2", type: "function", function: { name: "g", arguments: "{}" } }]
    }])
    assertJson(right(OpenAiFormat.encode([plain], { reasoningOnToolCalls: true, reasoningField: "omit" })), [{
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c2", type: "function", function: { name: "g", arguments: "{}" } }]
    }])
  })

  it("toolResultImages: \"user-message\" moves the images into the user message after the tool messages", () => {
    const conversation = [
      Message.user([
        Block.toolResult("c1", [Block.text("chart:"), Block.image("AAAA", "image/png")]),
        Block.text("What does it show?"),
        Block.toolResult("c2", [Block.image("BBBB", "image/jpeg")])
      ]),
      Message.user([Block.toolResult("c3", [Block.image("CCCC", "image/gif")])])
    ]
    assertJson(right(OpenAiFormat.encode(conversation, { toolResultImages: "user-message" })), [
      { role: "tool", tool_call_id: "c1", content: "chart:" },
      { role: "tool", tool_call_id: "c2", content: "" },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          { type: "image_url", image_url: { url: "data:image/jpeg;base64,BBBB" } },
          { type: "text", text: "What does it show?" }
        ]
      },
      { role: "tool", tool_call_id: "c3", content: "" },
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/gif;base64,CCCC" } }] }
    ])
  })
})

// -----------------------------------------------------------------------------
// decoding
// -----------------------------------------------------------------------------

describe("OpenAiFormat.decode", () => {
  it("reads the reference's output back (the seed page's rich conversation)", () => {
    assert.deepStrictEqual(right(OpenAiFormat.decode(goldens[1]!.expected)), canonical(goldens[1]!.input))
  })

  it("reads a DeepSeek thinking-mode tool loop", () => {
    const transcript = [
      { role: "system", content: "You are helpful." },
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: "",
        reasoning_content: "I should call the tool.",
        tool_calls: [{
          index: 0,
          id: "call_0",
          type: "function",
          function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" }
        }]
      },
      { role: "tool", tool_call_id: "call_0", content: "18 C" },
      { role: "assistant", content: "It is 18 C.", reasoning_content: "Report it." }
    ]
    assert.deepStrictEqual(right(OpenAiFormat.decode(transcript)), [
      Message.system("You are helpful."),
      Message.user("Weather in Paris?"),
      Message.assistant([
        Block.reasoning("I should call the tool."),
        Block.text(""),
        Block.toolCall("call_0", "get_weather", { city: "Paris" })
      ]),
      Message.user([Block.toolResult("call_0", "18 C")]),
      Message.assistant([Block.reasoning("Report it."), Block.text("It is 18 C.")])
    ])
  })

  it("reads a request body: developer messages, parts, names and unknown keys ignored", () => {
    const body = {
      model: "gpt-5.2",
      temperature: 0.2,
      tools: [{ type: "function", function: { name: "f", parameters: {} } }],
      messages: [
        { role: "developer", content: [{ type: "text", text: "Be terse." }] },
        {
          role: "user",
          name: "alice",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" } }
          ]
        },
        { role: "assistant", content: [{ type: "text", text: "A logo." }], refusal: null, annotations: [] }
      ]
    }
    assert.deepStrictEqual(right(OpenAiFormat.decode(body)), [
      Message.system("Be terse."),
      Message.user([Block.text("What is this?"), Block.image("iVBORw0KGgo=", "image/png")]),
      Message.assistant("A logo.")
    ])
  })

  it("reads data URLs case-insensitively, the media type up to the first ;base64,", () => {
    const decoded = right(OpenAiFormat.decode([{
      role: "user",
      content: [
        { type: "image_url", image_url: { url: "DATA:image/png;BASE64,AAAA" } },
        { type: "image_url", image_url: { url: "data:image/svg+xml;charset=utf-8;base64,PHN2Zy8+" } }
      ]
    }]))
    assert.deepStrictEqual(decoded, [
      Message.user([Block.image("AAAA", "image/png"), Block.image("PHN2Zy8+", "image/svg+xml;charset=utf-8")])
    ])
  })

  it("reads vLLM's reasoning field, reasoning_content and reasoning once each, \"\" as empty reasoning", () => {
    assert.deepStrictEqual(
      right(OpenAiFormat.decode([
        { role: "assistant", content: "a", reasoning: "vllm" },
        { role: "assistant", content: "b", reasoning_content: "same", reasoning: "same" },
        { role: "assistant", content: "c", reasoning_content: "first", reasoning: "second" },
        { role: "assistant", content: "d", reasoning_content: null, reasoning: null },
        { role: "assistant", content: "e", reasoning_content: "", audio: null, function_call: null }
      ])),
      [
        Message.assistant([Block.reasoning("vllm"), Block.text("a")]),
        Message.assistant([Block.reasoning("same"), Block.text("b")]),
        Message.assistant([Block.reasoning("first"), Block.reasoning("second"), Block.text("c")]),
        Message.assistant("d"),
        Message.assistant([Block.reasoning(""), Block.text("e")])
      ]
    )
  })

  it("reads refusals as text: refusal parts and the message's refusal", () => {
    assert.deepStrictEqual(
      right(OpenAiFormat.decode([
        { role: "assistant", content: [{ type: "text", text: "Well," }, { type: "refusal", refusal: "no." }] },
        { role: "assistant", content: null, refusal: "I can't help with that." }
      ])),
      [
        Message.assistant([Block.text("Well,"), Block.text("no.")]),
        Message.assistant("I can't help with that.")
      ]
    )
  })

  it("reads tool calls: empty arguments, arguments stored as an object, a missing type", () => {
    assert.deepStrictEqual(
      right(OpenAiFormat.decode([{
        role: "assistant",
        tool_calls: [
          { id: "a", type: "function", function: { name: "now", arguments: "" } },
          { id: "b", type: "function", function: { name: "f", arguments: { city: "Paris" } } },
          { id: "c", function: { name: "g", arguments: "{\"n\": [1, 2.5]}" } }
        ]
      }])),
      [Message.assistant([
        Block.toolCall("a", "now", {}),
        Block.toolCall("b", "f", { city: "Paris" }),
        Block.toolCall("c", "g", { n: [1, 2.5] })
      ])]
    )
  })

  it("groups tool messages with the user message right after them into one user turn", () => {
    assert.deepStrictEqual(
      right(OpenAiFormat.decode([
        { role: "assistant", content: null, tool_calls: [] },
        { role: "tool", tool_call_id: "a", content: "A" },
        { role: "tool", tool_call_id: "b", content: [{ type: "text", text: "B1" }, { type: "text", text: "B2" }] },
        { role: "user", content: "and?" },
        { role: "user", content: "hello?" },
        { role: "tool", tool_call_id: "c", content: "C" },
        { role: "assistant", content: "done" },
        { role: "tool", tool_call_id: "d", content: "" }
      ])),
      [
        Message.assistant([]),
        Message.user([
          Block.toolResult("a", "A"),
          Block.toolResult("b", [Block.text("B1"), Block.text("B2")]),
          Block.text("and?")
        ]),
        Message.user("hello?"),
        Message.user([Block.toolResult("c", "C")]),
        Message.assistant("done"),
        Message.user([Block.toolResult("d", "")])
      ]
    )
  })

  it("reads an empty list as an empty conversation", () => {
    assert.deepStrictEqual(right(OpenAiFormat.decode([])), [])
    assert.deepStrictEqual(right(OpenAiFormat.decode({ messages: [] })), [])
  })
})

describe("OpenAiFormat.decode errors", () => {
  it("MalformedInput: neither a message list nor a request body", () => {
    assertError(
      left(OpenAiFormat.decode("hello")),
      {
        _tag: "MalformedInput",
        format: "openai",
        path: [],
        reason: "expected an array of chat messages or a request body {messages: [...]}, actual \"hello\""
      },
      "openai: malformed input at $: expected an array of chat messages or a request body {messages: [...]}, actual \"hello\""
    )
    assertError(
      left(OpenAiFormat.decode({ model: "gpt-5.2" })),
      {
        _tag: "MalformedInput",
        format: "openai",
        path: [],
        reason:
          "expected an array of chat messages or a request body {messages: [...]}, actual an object without messages"
      },
      "openai: malformed input at $: expected an array of chat messages or a request body {messages: [...]}, actual an object without messages"
    )
  })

  it("MalformedInput: a message that is not an object, an unknown role", () => {
    assertError(left(OpenAiFormat.decode([5])), {
      _tag: "MalformedInput",
      format: "openai",
      path: [0],
      messageIndex: 0,
      reason: "Expected a chat message object, actual 5"
    }, "openai: message 0: malformed input at $[0]: Expected a chat message object, actual 5")
    assertError(
      left(OpenAiFormat.decode([{ role: "user", content: "a" }, { role: "bogus", content: "x" }])),
      {
        _tag: "MalformedInput",
        format: "openai",
        path: [1, "role"],
        messageIndex: 1,
        reason:
          "Expected \"system\" | \"developer\" | \"user\" | \"assistant\" | \"tool\" | \"function\", actual \"bogus\""
      },
      "openai: message 1: malformed input at $[1].role: Expected \"system\" | \"developer\" | \"user\" | \"assistant\" | \"tool\" | \"function\", actual \"bogus\""
    )
  })

  it("MalformedInput: bad content, with the path into a request body", () => {
    assertError(
      left(OpenAiFormat.decode({ messages: [{ role: "user", content: 5 }] })),
      {
        _tag: "MalformedInput",
        format: "openai",
        path: ["messages", 0, "content"],
        messageIndex: 0,
        reason: "Expected a string or an array of content parts, actual 5"
      },
      "openai: message 0: malformed input at $.messages[0].content: Expected a string or an array of content parts, actual 5"
    )
    assertError(
      left(OpenAiFormat.decode([{ role: "assistant", content: 5 }])),
      {
        _tag: "MalformedInput",
        format: "openai",
        path: [0, "content"],
        messageIndex: 0,
        reason: "Expected a string, an array of content parts or null, actual 5"
      },
      "openai: message 0: malformed input at $[0].content: Expected a string, an array of content parts or null, actual 5"
    )
  })

  it("MalformedInput: the deepest failing field of a part, a tool call or a tool message", () => {
    assertError(
      left(OpenAiFormat.decode([{ role: "user", content: [{ type: "text", text: "a" }, { type: "text" }] }])),
      {
        _tag: "MalformedInput",
        format: "openai",
        path: [0, "content", 1, "text"],
        messageIndex: 0,
        blockIndex: 1,
        reason: "is missing"
      },
      "openai: message 0, block 1: malformed input at $[0].content[1].text: is missing"
    )
    assertError(left(OpenAiFormat.decode([{ role: "user", content: [null] }])), {
      _tag: "MalformedInput",
      format: "openai",
      path: [0, "content", 0],
      messageIndex: 0,
      blockIndex: 0,
      reason: "Expected a content part object, actual null"
    }, "openai: message 0, block 0: malformed input at $[0].content[0]: Expected a content part object, actual null")
    assertError(
      left(OpenAiFormat.decode([{
        role: "assistant",
        tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: 5 } }]
      }])),
      {
        _tag: "MalformedInput",
        format: "openai",
        path: [0, "tool_calls", 0, "function", "arguments"],
        messageIndex: 0,
        blockIndex: 0,
        reason: "Expected a JSON string or a JSON object, actual 5"
      },
      "openai: message 0, block 0: malformed input at $[0].tool_calls[0].function.arguments: Expected a JSON string or a JSON object, actual 5"
    )
    assertError(
      left(OpenAiFormat.decode([{ role: "assistant", tool_calls: ["call_1"] }])),
      {
        _tag: "MalformedInput",
        format: "openai",
        path: [0, "tool_calls", 0],
        messageIndex: 0,
        blockIndex: 0,
        reason: "Expected a tool call object, actual \"call_1\""
      },
      "openai: message 0, block 0: malformed input at $[0].tool_calls[0]: Expected a tool call object, actual \"call_1\""
    )
    assertError(
      left(OpenAiFormat.decode({ messages: [{ role: "user", content: "a" }, { role: "tool", content: "x" }] })),
      {
        _tag: "MalformedInput",
        format: "openai",
        path: ["messages", 1, "tool_call_id"],
        messageIndex: 1,
        reason: "is missing"
      },
      "openai: message 1: malformed input at $.messages[1].tool_call_id: is missing"
    )
  })

  it("MalformedInput is reported before any other error, for the whole input", () => {
    const error = left(OpenAiFormat.decode([
      { role: "user", content: [{ type: "input_audio", input_audio: { data: "AA", format: "wav" } }] },
      { role: "user", content: 5 }
    ]))
    assert.strictEqual(error._tag, "MalformedInput")
    assert.deepStrictEqual(error.path, [1, "content"])
  })

  it("MalformedInput: input nested too deeply to decode, or cyclic, instead of a stack overflow", () => {
    let deep: unknown = "leaf"
    for (let i = 0; i < 10_000; i++) deep = { a: deep }
    const error = left(OpenAiFormat.decode({
      messages: [{
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: deep } }]
      }]
    }))
    assert.strictEqual(error._tag, "MalformedInput")
    if (error._tag !== "MalformedInput") return
    assert.deepStrictEqual(error.path.slice(0, 7), ["messages", 0, "tool_calls", 0, "function", "arguments", "a"])
    assert.strictEqual(error.path.length, 514)
    assert.strictEqual(error.messageIndex, 0)
    assert.strictEqual(error.blockIndex, 0)
    assert.strictEqual(error.reason, "nested more than 512 levels deep (or cyclic)")
    const cyclic: Record<string, unknown> = { type: "text" }
    cyclic["text"] = cyclic
    const cycle = left(OpenAiFormat.decode([{ role: "user", content: [cyclic] }]))
    assert.strictEqual(cycle._tag, "MalformedInput")
    assert.deepStrictEqual(cycle.path.slice(0, 5), [0, "content", 0, "text", "text"])
    // JSON text nested as deep becomes InvalidToolArguments, with the text kept
    const text = "{\"a\": ".repeat(600) + "1" + "}".repeat(600)
    const tooDeep = left(OpenAiFormat.decode([{
      role: "assistant",
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: text } }]
    }]))
    assert.strictEqual(tooDeep._tag, "InvalidToolArguments")
    if (tooDeep._tag === "InvalidToolArguments") {
      assert.strictEqual(tooDeep.raw, text)
      assert.strictEqual(tooDeep.reason, "nested more than 512 levels deep")
    }
    // nesting a transcript really has is fine
    const fine = "{\"a\": ".repeat(100) + "1" + "}".repeat(100)
    assert.isTrue(Either.isRight(OpenAiFormat.decode([{
      role: "assistant",
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: fine } }]
    }])))
  })

  it("UnsupportedContent: an image by URL, or a data URL that is not base64", () => {
    const reason =
      "only a base64 data URL (data:<mime>;base64,<data>) has a canonical form; fetch the image and inline it"
    assertError(
      left(OpenAiFormat.decode([{
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } }
        ]
      }])),
      {
        _tag: "UnsupportedContent",
        format: "openai",
        path: [0, "content", 1, "image_url", "url"],
        messageIndex: 0,
        blockIndex: 1,
        contentType: "image_url",
        reason
      },
      `openai: message 0, block 1: "image_url" content has no canonical form: ${reason}`
    )
    const svg = left(OpenAiFormat.decode([
      { role: "user", content: [{ type: "image_url", image_url: { url: "data:image/svg+xml,<svg/>" } }] }
    ]))
    assert.strictEqual(svg._tag, "UnsupportedContent")
    assert.deepStrictEqual(svg.path, [0, "content", 0, "image_url", "url"])
  })

  it("UnsupportedContent: audio, files and other parts", () => {
    const reason = "a canonical message holds text and images (base64 data URLs) only"
    assertError(
      left(OpenAiFormat.decode([{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AA" } }] }])),
      {
        _tag: "UnsupportedContent",
        format: "openai",
        path: [0, "content", 0],
        messageIndex: 0,
        blockIndex: 0,
        contentType: "input_audio",
        reason
      },
      `openai: message 0, block 0: "input_audio" content has no canonical form: ${reason}`
    )
    for (
      const [role, part] of [
        ["user", { type: "file", file: { file_id: "file-1" } }],
        ["user", { type: "video_url", video_url: { url: "https://example.com/v.mp4" } }],
        ["user", { type: "refusal", refusal: "a refusal belongs to an assistant" }],
        ["tool", { type: "input_audio", input_audio: { data: "AA" } }],
        ["system", { type: "file", file: { file_id: "file-1" } }]
      ] as const
    ) {
      const error = left(OpenAiFormat.decode([{ role, tool_call_id: "t", content: [part] }]))
      assert.strictEqual(error._tag, "UnsupportedContent")
      if (error._tag === "UnsupportedContent") assert.strictEqual(error.contentType, part.type)
    }
  })

  it("UnsupportedContent: custom tool calls, function_call, audio and the function role", () => {
    assertError(
      left(OpenAiFormat.decode([{
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "a", type: "function", function: { name: "f", arguments: "{}" } },
          { id: "b", type: "custom", custom: { name: "g", input: "x" } }
        ]
      }])),
      {
        _tag: "UnsupportedContent",
        format: "openai",
        path: [0, "tool_calls", 1, "type"],
        messageIndex: 0,
        blockIndex: 1,
        contentType: "custom tool call",
        reason: "only function tool calls have a canonical form"
      },
      "openai: message 0, block 1: \"custom tool call\" content has no canonical form: only function tool calls have a canonical form"
    )
    assertError(
      left(OpenAiFormat.decode([{ role: "assistant", content: null, function_call: { name: "f", arguments: "{}" } }])),
      {
        _tag: "UnsupportedContent",
        format: "openai",
        path: [0, "function_call"],
        messageIndex: 0,
        contentType: "function_call",
        reason: "the deprecated function_call has no id to pair with a result; use tool_calls"
      },
      "openai: message 0: \"function_call\" content has no canonical form: the deprecated function_call has no id to pair with a result; use tool_calls"
    )
    assertError(left(OpenAiFormat.decode([{ role: "assistant", content: null, audio: { id: "audio_1" } }])), {
      _tag: "UnsupportedContent",
      format: "openai",
      path: [0, "audio"],
      messageIndex: 0,
      contentType: "audio",
      reason: "a canonical message holds text and images only"
    }, "openai: message 0: \"audio\" content has no canonical form: a canonical message holds text and images only")
    assertError(
      left(OpenAiFormat.decode([{ role: "user", content: "a" }, { role: "function", name: "f", content: "x" }])),
      {
        _tag: "UnsupportedContent",
        format: "openai",
        path: [1, "role"],
        messageIndex: 1,
        contentType: "function message",
        reason: "the deprecated function role has no tool_call_id to pair with a tool call; use tool messages"
      },
      "openai: message 1: \"function message\" content has no canonical form: the deprecated function role has no tool_call_id to pair with a tool call; use tool messages"
    )
  })

  it("UnsupportedContent: encrypted reasoning with encryptedReasoning: \"error\"; left out with \"drop\"", () => {
    const transcript = [{
      role: "assistant",
      content: "x",
      reasoning: "r",
      reasoning_details: [{ type: "reasoning.text", text: "r" }, { type: "reasoning.encrypted", data: "gAAAA" }]
    }]
    const reason = "encrypted reasoning is opaque data and encryptedReasoning is \"error\"; set it to \"keep\" (the " +
      "default) to keep it as the signature of a reasoning block with no text, or to \"drop\" to leave it out"
    assertError(left(OpenAiFormat.decode(transcript, { encryptedReasoning: "error" })), {
      _tag: "UnsupportedContent",
      format: "openai",
      path: [0, "reasoning_details", 1],
      messageIndex: 0,
      blockIndex: 1,
      contentType: "reasoning.encrypted",
      reason
    }, `openai: message 0, block 1: "reasoning.encrypted" content has no canonical form: ${reason}`)
    assert.deepStrictEqual(right(OpenAiFormat.decode(transcript, { encryptedReasoning: "drop" })), [
      Message.assistant([
        Block.reasoning("r", { detail: { openai: { reasoning_detail: { type: "reasoning.text" } } } }),
        Block.text("x")
      ])
    ])
  })

  it("InvalidToolArguments: arguments that are not a JSON object keep the raw text", () => {
    const call = (args: string) => [{
      role: "assistant",
      content: null,
      tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: args } }]
    }]
    assertError(left(OpenAiFormat.decode(call("{\"city\": "))), {
      _tag: "InvalidToolArguments",
      format: "openai",
      path: [0, "tool_calls", 0, "function", "arguments"],
      messageIndex: 0,
      blockIndex: 0,
      raw: "{\"city\": ",
      reason: "not valid JSON"
    }, "openai: message 0, block 0: invalid tool arguments \"{\\\"city\\\": \": not valid JSON")
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["[1, 2]", "expected a JSON object, actual an array"],
      ["null", "expected a JSON object, actual null"],
      ["\"x\"", "expected a JSON object, actual \"x\""],
      ["42", "expected a JSON object, actual 42"],
      ["  ", "not valid JSON"],
      ["{\"n\": 1e400}", "a number is too large to represent"]
    ]
    for (const [raw, reason] of cases) {
      const error = left(OpenAiFormat.decode(call(raw)))
      assert.strictEqual(error._tag, "InvalidToolArguments")
      if (error._tag === "InvalidToolArguments") {
        assert.strictEqual(error.raw, raw)
        assert.strictEqual(error.reason, reason)
      }
    }
  })
})

// -----------------------------------------------------------------------------
// laws
// -----------------------------------------------------------------------------

const decodeErrorTags: ReadonlyArray<string> = [
  "MalformedInput",
  "MisplacedBlock",
  "UnmatchedToolResult",
  "InvalidToolArguments",
  "UnsupportedContent"
]

codecLaws("OpenAiFormat", OpenAiFormat, {
  normalize,
  options: [
    undefined,
    {
      reasoningField: "reasoning",
      reasoningOnToolCalls: true,
      toolResultImages: "user-message",
      toolArguments: "json"
    },
    { reasoningField: "omit", reasoningOnToolCalls: false, toolResultImages: "error", toolArguments: "python" }
  ],
  isWire: Schema.is(OpenAiFormat.Wire)
})

describe("OpenAiFormat laws", () => {
  it.prop(
    "decode never throws, and fails only with a DecodeError",
    [fc.oneof(fc.anything(), fc.jsonValue(), fc.record({ messages: fc.array(fc.anything()) }), chatLike(fc))],
    ([input]) => {
      const result = OpenAiFormat.decode(input)
      if (Either.isLeft(result)) assert.include(decodeErrorTags, result.left._tag)
      else assert.isTrue(Schema.is(Conversation.Conversation)(result.right))
    },
    { fastCheck: { numRuns: 100 } }
  )

  it("the laws see images in tool results both ways", () => {
    const conversation = [Message.user([Block.toolResult("t", [Block.text("a"), Block.image("AA", "image/png")])])]
    assert.isTrue(Either.isLeft(OpenAiFormat.encode(conversation)))
    assert.deepStrictEqual(
      right(OpenAiFormat.decode(right(OpenAiFormat.encode(conversation, { toolResultImages: "user-message" })))),
      normalize(conversation, { toolResultImages: "user-message" })
    )
  })
})

describe("OpenAiFormat.codec and schema", () => {
  it("the codec is the module's functions", () => {
    assert.strictEqual(OpenAiFormat.codec.name, "openai")
    assert.strictEqual(OpenAiFormat.codec.encode, OpenAiFormat.encode)
    assert.strictEqual(OpenAiFormat.codec.decode, OpenAiFormat.decode)
  })

  it("the schema composes with Schema.parseJson", () => {
    const json = Schema.parseJson(OpenAiFormat.schema)
    const conversation = canonical(goldens[1]!.input)
    const text = Schema.encodeSync(json)(conversation)
    assert.strictEqual(text, JSON.stringify(goldens[1]!.expected))
    assert.deepStrictEqual(Schema.decodeUnknownSync(json)(text), conversation)
    // well formed, but with no canonical form: the tagged error's message
    const failure = Schema.decodeUnknownEither(json)(
      "[{\"role\": \"user\", \"content\": [{\"type\": \"image_url\", \"image_url\": {\"url\": \"https://x/y.png\"}}]}]"
    )
    assert.isTrue(Either.isLeft(failure))
    if (Either.isLeft(failure)) {
      assert.include(failure.left.message, "openai: message 0, block 0: \"image_url\" content has no canonical form")
    }
    // not of the Input's shape: decode's MalformedInput, at the same place
    const malformed = Schema.decodeUnknownEither(json)("[{\"role\": \"user\", \"content\": 5}]")
    assert.isTrue(Either.isLeft(malformed))
    if (Either.isLeft(malformed)) {
      assert.include(malformed.left.message, "openai: message 0: malformed input at $[0].content")
      assert.include(malformed.left.message, "Expected a string or an array of content parts, actual 5")
      const tagged = OpenAiFormat.schema.decodeError(malformed.left)
      assert.strictEqual(tagged._tag, "MalformedInput")
    }
  })
})

describe("OpenAiFormat.decode: one declaration, read by the guard and the Schema", () => {
  guardLaws("messages", Schema.Array(OpenAiFormat.InputMessage), { onExcessProperty: "ignore" })
})
