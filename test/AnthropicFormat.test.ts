import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { Block, Codec, Conversation, ConversionError, type Json, Message } from "openreward-effect"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"
import { unique } from "../src/internal/toolCallIds.js"
import { standardImages } from "./utils/base64.js"
import { codecLaws, typedItems, withProviderBlocks } from "./utils/codecLaws.js"
import { guardLaws } from "./utils/guardLaws.js"

/** `normalize` as the format's page lists it, then image data as every decode reads it (utils/base64.ts). */
function normalize(
  conversation: Conversation.Conversation,
  options?: AnthropicFormat.EncodeOptions
): Conversation.Conversation {
  return standardImages(normalizeAsWritten(conversation, options))
}

const keepHint =
  " decode with providerContent: \"keep\" to keep the block as a provider block, which encode writes back"

const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) assert.fail(`expected a Right, got ${String(e.left)}`)
  return e.right
}

const left = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) assert.fail(`expected a Left, got ${JSON.stringify(e.right)}`)
  return e.left
}

/** Canonical wire JSON in, Anthropic wire JSON (as `JSON.stringify` writes it) out. */
const encodeJson = (canonical: unknown, options?: AnthropicFormat.EncodeOptions): string =>
  JSON.stringify(right(AnthropicFormat.encode(right(Conversation.decode(canonical)), options)))

// -----------------------------------------------------------------------------
// golden examples: each input was fed to the reference SDK (openreward 0.1.167,
// `convert_messages(messages, "anthropic")` over `_parse_blocks`), and its output, dumped with
// `json.dumps(out, separators=(",", ":"), ensure_ascii=False)`, is the expected string. Comparing
// strings checks the key order too.
// -----------------------------------------------------------------------------

const golden: ReadonlyArray<{ readonly name: string; readonly input: unknown; readonly expected: string }> = [
  {
    name: "the seed page's support dialogue: the leading system turn is hoisted",
    input: [
      { role: "system", blocks: [{ type: "text", text: "You are a support agent for Acme." }] },
      { role: "user", blocks: [{ type: "text", text: "My order hasn't arrived." }] },
      { role: "assistant", blocks: [{ type: "text", text: "Sorry to hear that — what's the order number?" }] },
      { role: "user", blocks: [{ type: "text", text: "It's #4411, ordered two weeks ago." }] }
    ],
    expected:
      "{\"system\":\"You are a support agent for Acme.\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"My order hasn't arrived.\"}]},{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Sorry to hear that — what's the order number?\"}]},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"It's #4411, ordered two weeks ago.\"}]}]}"
  },
  {
    name: "the seed page's rich conversation: thinking, tool_use, tool_result",
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
    expected:
      "{\"system\":null,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"My order #4411 hasn't arrived.\"}]},{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"Two weeks late — check the carrier first.\"},{\"type\":\"tool_use\",\"id\":\"tc_1\",\"name\":\"lookup_order\",\"input\":{\"id\":\"4411\"}}]},{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tc_1\",\"content\":[{\"type\":\"text\",\"text\":\"{\\\"status\\\": \\\"stalled_at_hub\\\"}\"}]}]}]}"
  },
  {
    name: "every text block of the leading system run is joined with a blank line",
    input: [
      { role: "system", blocks: [{ type: "text", text: "Be terse." }, { type: "text", text: "Answer in French." }] },
      { role: "system", blocks: [{ type: "text", text: "Never guess." }] },
      { role: "user", blocks: [{ type: "text", text: "Bonjour" }] }
    ],
    expected:
      "{\"system\":\"Be terse.\\n\\nAnswer in French.\\n\\nNever guess.\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Bonjour\"}]}]}"
  },
  {
    name: "an empty system text is a system prompt (\"\"), not null",
    input: [
      { role: "system", blocks: [{ type: "text", text: "" }] },
      { role: "user", blocks: [{ type: "text", text: "Hi" }] }
    ],
    expected: "{\"system\":\"\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}]}]}"
  },
  {
    name: "a system message without blocks gives no system prompt (null)",
    input: [
      { role: "system", blocks: [] },
      { role: "user", blocks: [{ type: "text", text: "Hi" }] }
    ],
    expected: "{\"system\":null,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}]}]}"
  },
  {
    name: "the empty conversation",
    input: [],
    expected: "{\"system\":null,\"messages\":[]}"
  },
  {
    name: "tool results move to the front of their user message, the rest keeps its order",
    input: [
      {
        role: "user",
        blocks: [
          { type: "text", text: "Here are both results." },
          {
            type: "tool_result",
            tool_call_id: "tc_1",
            blocks: [{ type: "text", text: "ok" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }]
          },
          { type: "image", data: "R0lGODlh", mimeType: "image/gif" },
          { type: "tool_result", tool_call_id: "tc_2", blocks: [], is_error: true }
        ]
      }
    ],
    expected:
      "{\"system\":null,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tc_1\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"},{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\",\"data\":\"iVBORw0KGgo=\"}}]},{\"type\":\"tool_result\",\"tool_use_id\":\"tc_2\",\"content\":[],\"is_error\":true},{\"type\":\"text\",\"text\":\"Here are both results.\"},{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/gif\",\"data\":\"R0lGODlh\"}}]}]}"
  },
  {
    name: "signature only when non-empty; empty thinking text is kept",
    input: [
      {
        role: "assistant",
        blocks: [
          { type: "reasoning", text: "", signature: "EqQBCkYIBxgC" },
          { type: "reasoning", text: "unsigned" },
          { type: "reasoning", text: "empty signature", signature: "" },
          { type: "text", text: "Checking." },
          { type: "tool_call", id: "tc_1", name: "get_weather", input: { city: "Paris", days: [1, 2] } }
        ]
      }
    ],
    expected:
      "{\"system\":null,\"messages\":[{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"EqQBCkYIBxgC\"},{\"type\":\"thinking\",\"thinking\":\"unsigned\"},{\"type\":\"thinking\",\"thinking\":\"empty signature\"},{\"type\":\"text\",\"text\":\"Checking.\"},{\"type\":\"tool_use\",\"id\":\"tc_1\",\"name\":\"get_weather\",\"input\":{\"city\":\"Paris\",\"days\":[1,2]}}]}]}"
  },
  {
    name: "consecutive same-role turns are not merged; empty messages and empty text are kept",
    input: [
      { role: "user", blocks: [{ type: "text", text: "a" }] },
      { role: "user", blocks: [{ type: "text", text: "" }] },
      { role: "assistant", blocks: [] },
      { role: "assistant", blocks: [{ type: "text", text: "b" }] }
    ],
    expected:
      "{\"system\":null,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}]},{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\"}]},{\"role\":\"assistant\",\"content\":[]},{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"b\"}]}]}"
  },
  {
    name: "detail is not sent; images in user and assistant turns",
    input: [
      {
        role: "user",
        detail: { source: "crm" },
        blocks: [
          { type: "text", text: "see photo", detail: { lang: "en" } },
          { type: "image", data: "/9j/4AAQ", mimeType: "image/jpeg", detail: { w: 10 } }
        ]
      },
      {
        role: "assistant",
        blocks: [
          { type: "image", data: "UklGR", mimeType: "image/webp" },
          { type: "tool_call", id: "t", name: "f", input: {}, detail: { x: 1 } }
        ]
      }
    ],
    expected:
      "{\"system\":null,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"see photo\"},{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/jpeg\",\"data\":\"/9j/4AAQ\"}}]},{\"role\":\"assistant\",\"content\":[{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/webp\",\"data\":\"UklGR\"}},{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\",\"input\":{}}]}]}"
  }
]

describe("AnthropicFormat.encode matches the reference SDK", () => {
  for (const { expected, input, name } of golden) {
    it(name, () => {
      assert.strictEqual(encodeJson(input), expected)
      assert.strictEqual(encodeJson(input, { system: "string", laterSystem: "error" }), expected)
    })
  }

  it("produces values of the Wire schema", () => {
    for (const { input } of golden) {
      const wire = right(AnthropicFormat.encode(right(Conversation.decode(input))))
      assert.isTrue(Schema.is(AnthropicFormat.Wire)(wire))
    }
  })

  it("is usable as typed data", () => {
    const wire = right(AnthropicFormat.encode([
      Message.system("Be terse."),
      Message.user([Block.text("Look:"), Block.toolResult("tc_1", "done", { isError: true })])
    ]))
    assert.strictEqual(wire.system, "Be terse.")
    assert.deepStrictEqual(wire.messages[0]?.content[0], {
      type: "tool_result",
      tool_use_id: "tc_1",
      content: [{ type: "text", text: "done" }],
      is_error: true
    })
  })
})

// -----------------------------------------------------------------------------
// errors: where the reference raises `ValueError`
// -----------------------------------------------------------------------------

describe("AnthropicFormat.encode errors", () => {
  it("a system message after the first non-system turn: UnsupportedMessage", () => {
    // reference: "anthropic cannot represent a system message after the first non-system turn; ..."
    const error = left(AnthropicFormat.encode([Message.user("Hi"), Message.system("Now be formal.")]))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnsupportedMessage({
        format: "anthropic",
        path: [1],
        messageIndex: 1,
        role: "system",
        reason: "a system message after the first non-system turn cannot be hoisted into the system parameter; " +
          "move it to the start of the conversation, or set laterSystem to \"user\" or \"inline\""
      })
    )
    assert.strictEqual(
      error.message,
      "anthropic: message 1: cannot represent this \"system\" message: a system message after the first non-system " +
        "turn cannot be hoisted into the system parameter; move it to the start of the conversation, or set " +
        "laterSystem to \"user\" or \"inline\""
    )
  })

  it("an image in a leading system message: UnsupportedBlock", () => {
    // reference: "anthropic system messages must be text-only."
    const error = left(AnthropicFormat.encode([
      Message.system([Block.text("Logo:"), Block.image("iVBORw0KGgo=", "image/png")]),
      Message.user("Hi")
    ]))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnsupportedBlock({
        format: "anthropic",
        path: [0, "blocks", 1],
        messageIndex: 0,
        blockIndex: 1,
        blockType: "image",
        reason: "the system parameter holds text only"
      })
    )
    assert.strictEqual(
      error.message,
      "anthropic: message 0, block 1: cannot represent an \"image\" block: the system parameter holds text only"
    )
  })

  it("the first problem in conversation order wins, as in the reference", () => {
    // reference: a late system message with an image raises the placement-in-time error ...
    const late = left(AnthropicFormat.encode([
      Message.user("Hi"),
      Message.system([Block.image("iVBORw0KGgo=", "image/png")])
    ]))
    assert.strictEqual(late._tag, "UnsupportedMessage")
    // ... and an image in the leading run is reported before a later system message
    const image = left(AnthropicFormat.encode([
      Message.system([Block.image("iVBORw0KGgo=", "image/png")]),
      Message.user("Hi"),
      Message.system("late")
    ]))
    assert.strictEqual(image._tag, "UnsupportedBlock")
    assert.deepStrictEqual(image.path, [0, "blocks", 0])
  })

  it("placement is re-checked first, over the whole conversation: MisplacedBlock", () => {
    // reference: "A 'tool_result' block is not valid in a 'assistant' message: ...", raised before
    // the late system message at index 1 is looked at
    const misplaced = [
      Message.user("Hi"),
      Message.system("late"),
      { role: "assistant", blocks: [Block.toolResult("tc_1", [])], detail: null } as unknown as Message.Message
    ]
    const error = left(AnthropicFormat.encode(misplaced))
    assert.deepStrictEqual(
      error,
      new ConversionError.MisplacedBlock({
        path: [2, "blocks", 0],
        messageIndex: 2,
        blockIndex: 0,
        role: "assistant",
        blockType: "tool_result"
      })
    )
    assert.strictEqual(
      error.message,
      "canonical: message 2, block 0: a \"tool_result\" block is not valid in an \"assistant\" message: reasoning and " +
        "tool_call blocks belong in assistant turns, tool_result blocks in user turns"
    )
  })
})

// -----------------------------------------------------------------------------
// options beyond the reference
// -----------------------------------------------------------------------------

describe("AnthropicFormat.encode options", () => {
  const leadingRun = [
    Message.system([Block.text("Be terse."), Block.text("Answer in French.")]),
    Message.system("Never guess."),
    Message.user("Bonjour")
  ]

  it("system: \"blocks\" sends one text block per canonical text block", () => {
    const wire = right(AnthropicFormat.encode(leadingRun, { system: "blocks" }))
    assert.deepStrictEqual(wire.system, [
      { type: "text", text: "Be terse." },
      { type: "text", text: "Answer in French." },
      { type: "text", text: "Never guess." }
    ])
    assert.deepStrictEqual(wire.messages, [{ role: "user", content: [{ type: "text", text: "Bonjour" }] }])
  })

  it("system: \"blocks\" still gives null when there is no system text", () => {
    assert.isNull(right(AnthropicFormat.encode([Message.system([]), Message.user("Hi")], { system: "blocks" })).system)
    assert.isNull(right(AnthropicFormat.encode([], { system: "blocks" })).system)
  })

  it("laterSystem: \"user\" sends a later system message in place as a user turn", () => {
    const wire = right(AnthropicFormat.encode(
      [
        Message.system("Be terse."),
        Message.user("Hi"),
        Message.assistant("Hello."),
        Message.system([Block.text("Now be formal."), Block.image("iVBORw0KGgo=", "image/png")])
      ],
      { laterSystem: "user" }
    ))
    assert.strictEqual(wire.system, "Be terse.")
    assert.deepStrictEqual(wire.messages[2], {
      role: "user",
      content: [
        { type: "text", text: "Now be formal." },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }
      ]
    })
  })

  it("laterSystem: \"inline\" sends a later system message in place as role \"system\"", () => {
    const wire = right(AnthropicFormat.encode(
      [Message.system("Be terse."), Message.user("Hi"), Message.system("Now be formal.")],
      { laterSystem: "inline" }
    ))
    assert.deepStrictEqual(wire, {
      system: "Be terse.",
      messages: [
        { role: "user", content: [{ type: "text", text: "Hi" }] },
        { role: "system", content: [{ type: "text", text: "Now be formal." }] }
      ]
    })
  })

  it("laterSystem: \"inline\" refuses an image (mid-conversation system content is text only)", () => {
    const error = left(AnthropicFormat.encode(
      [Message.user("Hi"), Message.system([Block.text("See:"), Block.image("iVBORw0KGgo=", "image/png")])],
      { laterSystem: "inline" }
    ))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnsupportedBlock({
        format: "anthropic",
        path: [1, "blocks", 1],
        messageIndex: 1,
        blockIndex: 1,
        blockType: "image",
        reason: "a mid-conversation system message holds text only"
      })
    )
    assert.strictEqual(
      error.message,
      "anthropic: message 1, block 1: cannot represent an \"image\" block: a mid-conversation system message holds " +
        "text only"
    )
  })

  it("no option changes how the leading run is read: an image there is an error whatever laterSystem says", () => {
    const conversation = [Message.system([Block.image("iVBORw0KGgo=", "image/png")]), Message.user("Hi")]
    for (const laterSystem of ["error", "user", "inline"] as const) {
      assert.strictEqual(left(AnthropicFormat.encode(conversation, { laterSystem }))._tag, "UnsupportedBlock")
    }
  })
})

// -----------------------------------------------------------------------------
// decoding
// -----------------------------------------------------------------------------

describe("AnthropicFormat.decode", () => {
  it("reads the reference's output back", () => {
    const conversation = right(Conversation.decode(golden[1]!.input))
    assert.deepStrictEqual(right(AnthropicFormat.decode(JSON.parse(golden[1]!.expected))), conversation)
    assert.deepStrictEqual(right(AnthropicFormat.decode(JSON.parse(golden[0]!.expected))), [
      Message.system("You are a support agent for Acme."),
      Message.user("My order hasn't arrived."),
      Message.assistant("Sorry to hear that — what's the order number?"),
      Message.user("It's #4411, ordered two weeks ago.")
    ])
  })

  it("reads a whole request body: other keys, cache_control and null citations are ignored", () => {
    const body = {
      model: "claude-opus-4-8",
      max_tokens: 1024,
      temperature: 1,
      thinking: { type: "enabled", budget_tokens: 2048 },
      tools: [{ name: "lookup_order", input_schema: { type: "object", properties: { id: { type: "string" } } } }],
      system: [
        { type: "text", text: "You are a support agent for Acme." },
        { type: "text", text: "Policy: refunds after 14 days.", cache_control: { type: "ephemeral" } }
      ],
      messages: [
        { role: "user", content: "My order #4411 hasn't arrived." },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Check the carrier.", signature: "EqQBCkYIBxgC" },
            { type: "text", text: "Let me check.", citations: null },
            {
              type: "tool_use",
              id: "toolu_01",
              name: "lookup_order",
              input: { id: "4411" },
              cache_control: { type: "ephemeral" }
            }
          ]
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_01", content: "stalled at hub" },
            { type: "text", text: "Any news?" }
          ]
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "", signature: "Ep8CCkYIBxgC" },
            { type: "text", text: "It is stalled at the hub." }
          ]
        }
      ]
    }
    assert.deepStrictEqual(right(AnthropicFormat.decode(body)), [
      Message.system([Block.text("You are a support agent for Acme."), Block.text("Policy: refunds after 14 days.")]),
      Message.user("My order #4411 hasn't arrived."),
      Message.assistant([
        Block.reasoning("Check the carrier.", { signature: "EqQBCkYIBxgC" }),
        Block.text("Let me check."),
        Block.toolCall("toolu_01", "lookup_order", { id: "4411" })
      ]),
      Message.user([Block.toolResult("toolu_01", "stalled at hub"), Block.text("Any news?")]),
      Message.assistant([Block.reasoning("", { signature: "Ep8CCkYIBxgC" }), Block.text("It is stalled at the hub.")])
    ])
  })

  it("reads a bare messages array", () => {
    assert.deepStrictEqual(
      right(AnthropicFormat.decode([{ role: "user", content: "Hi" }, { role: "assistant", content: [] }])),
      [Message.user("Hi"), Message.assistant([])]
    )
  })

  it("system: a string is one text block, an empty string is kept, null / absent / [] give no system message", () => {
    const messages = [{ role: "user", content: "Hi" }]
    assert.deepStrictEqual(right(AnthropicFormat.decode({ system: "Be terse.", messages })), [
      Message.system("Be terse."),
      Message.user("Hi")
    ])
    assert.deepStrictEqual(right(AnthropicFormat.decode({ system: "", messages })), [
      Message.system(""),
      Message.user("Hi")
    ])
    for (const body of [{ system: null, messages }, { messages }, { system: [], messages }]) {
      assert.deepStrictEqual(right(AnthropicFormat.decode(body)), [Message.user("Hi")])
    }
  })

  it("a mid-conversation role \"system\" message is a system message in place", () => {
    assert.deepStrictEqual(
      right(AnthropicFormat.decode({
        system: "Be terse.",
        messages: [
          { role: "user", content: "Hi" },
          { role: "system", content: [{ type: "text", text: "Now be formal." }] },
          { role: "assistant", content: "Good day." }
        ]
      })),
      [
        Message.system("Be terse."),
        Message.user("Hi"),
        Message.system("Now be formal."),
        Message.assistant("Good day.")
      ]
    )
  })

  it("images with a base64 source; tool results with block content, no content, is_error", () => {
    assert.deepStrictEqual(
      right(AnthropicFormat.decode([
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            {
              type: "tool_result",
              tool_use_id: "toolu_01",
              content: [
                { type: "text", text: "screenshot:" },
                { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } }
              ]
            },
            { type: "tool_result", tool_use_id: "toolu_02" },
            { type: "tool_result", tool_use_id: "toolu_03", content: "boom", is_error: true },
            { type: "tool_result", tool_use_id: "toolu_04", content: "", is_error: null }
          ]
        }
      ])),
      [
        Message.user([
          Block.image("iVBORw0KGgo=", "image/png"),
          Block.toolResult("toolu_01", [Block.text("screenshot:"), Block.image("/9j/4AAQ", "image/jpeg")]),
          Block.toolResult("toolu_02", []),
          Block.toolResult("toolu_03", "boom", { isError: true }),
          Block.toolResult("toolu_04", "")
        ])
      ]
    )
  })

  it("thinking: a missing or null signature is null; an empty one is kept", () => {
    assert.deepStrictEqual(
      right(AnthropicFormat.decode([
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "a" },
            { type: "thinking", thinking: "b", signature: null },
            { type: "thinking", thinking: "c", signature: "" }
          ]
        }
      ])),
      [
        Message.assistant([
          Block.reasoning("a"),
          Block.reasoning("b"),
          Block.reasoning("c", { signature: "" })
        ])
      ]
    )
  })

  it("does not reorder or merge: what comes in is what goes out", () => {
    assert.deepStrictEqual(
      right(AnthropicFormat.decode([
        { role: "user", content: [{ type: "text", text: "first" }, { type: "tool_result", tool_use_id: "t" }] },
        { role: "user", content: "second" }
      ])),
      [Message.user([Block.text("first"), Block.toolResult("t", [])]), Message.user("second")]
    )
  })
})

describe("AnthropicFormat: redacted_thinking", () => {
  it("decodes to a marked reasoning block and encodes back unchanged", () => {
    const wire = [{
      role: "assistant" as const,
      content: [{ type: "redacted_thinking" as const, data: "EmwKAhgBEgy3" }, { type: "text" as const, text: "Hi" }]
    }]
    const decoded = Either.getOrThrow(AnthropicFormat.decode(wire))
    assert.deepStrictEqual(decoded, [
      Message.assistant([
        Block.reasoning("", { signature: "EmwKAhgBEgy3", detail: { anthropic: { redacted: true } } }),
        Block.text("Hi")
      ])
    ])
    assert.deepStrictEqual(Either.getOrThrow(AnthropicFormat.encode(decoded)).messages, wire)
  })
  it("only an empty, signed, marked reasoning block is redacted", () => {
    const marked = { detail: { anthropic: { redacted: true } } }
    const encoded = Either.getOrThrow(AnthropicFormat.encode([
      Message.assistant([
        Block.reasoning("text", { signature: "s", ...marked }),
        Block.reasoning("", marked),
        Block.reasoning("", { signature: "s" })
      ])
    ]))
    assert.deepStrictEqual(encoded.messages[0]!.content, [
      { type: "thinking", thinking: "text", signature: "s" },
      { type: "thinking", thinking: "" },
      { type: "thinking", thinking: "", signature: "s" }
    ])
  })
})

describe("AnthropicFormat.decode: content with no canonical form is UnsupportedContent", () => {
  const cases: ReadonlyArray<{
    readonly name: string
    readonly block: unknown
    readonly path: ConversionError.Path
    readonly contentType: string
    readonly message: string
  }> = [
    {
      name: "an image by URL",
      block: { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      path: ["messages", 1, "content", 0, "source"],
      contentType: "url image source",
      message: "anthropic: message 1, block 0: \"url image source\" content has no canonical form: canonical images " +
        "carry base64 data; fetch the image and send it as a base64 source, or" + keepHint
    },
    {
      name: "an image from the Files API",
      block: { type: "image", source: { type: "file", file_id: "file_011" } },
      path: ["messages", 1, "content", 0, "source"],
      contentType: "file image source",
      message: "anthropic: message 1, block 0: \"file image source\" content has no canonical form: canonical images " +
        "carry base64 data; download the file and send it as a base64 source, or" + keepHint
    },
    ...([
      ["document", "a \"document\" block", { source: {} }],
      ["search_result", "a \"search_result\" block", { source: "https://x.test" }],
      ["server_tool_use", "a call of Anthropic's server tool \"web_search\" (x), which Anthropic ran", {
        id: "x",
        name: "web_search",
        input: {}
      }],
      ["web_search_tool_result", "the result of the server-side call srvtoolu_01", {
        tool_use_id: "srvtoolu_01",
        content: []
      }],
      ["container_upload", "a file for the code execution container", { file_id: "file_01" }]
    ] as const).map(([type, what, fields]) => ({
      name: type,
      block: { type, ...fields },
      path: ["messages", 1, "content", 0],
      contentType: type,
      message: `anthropic: message 1, block 0: ${JSON.stringify(type)} content has no canonical form: it is ${what}, ` +
        "and the canonical blocks are text, image, reasoning (thinking), tool_call (tool_use) and tool_result;" +
        keepHint
    })),
    {
      name: "a document inside a tool result",
      block: {
        type: "tool_result",
        tool_use_id: "toolu_01",
        content: [{ type: "text", text: "ok" }, { type: "document", source: { type: "text", data: "x" } }]
      },
      path: ["messages", 1, "content", 0, "content", 1],
      contentType: "document",
      message: "anthropic: message 1, block 0: \"document\" content has no canonical form: a canonical tool result " +
        "holds only text and image content;" + keepHint
    },
    {
      name: "an image by URL inside a tool result",
      block: {
        type: "tool_result",
        tool_use_id: "toolu_01",
        content: [{ type: "image", source: { type: "url", url: "https://example.com/a.png" } }]
      },
      path: ["messages", 1, "content", 0, "content", 0, "source"],
      contentType: "url image source",
      message: "anthropic: message 1, block 0: \"url image source\" content has no canonical form: canonical images " +
        "carry base64 data; fetch the image and send it as a base64 source, or" + keepHint
    }
  ]
  for (const c of cases) {
    it(c.name, () => {
      const error = left(AnthropicFormat.decode({
        system: "ignored by the indices",
        messages: [{ role: "user", content: "Hi" }, { role: "user", content: [c.block] }]
      }))
      assert.strictEqual(error.message, c.message)
      assert.deepStrictEqual(
        error,
        new ConversionError.UnsupportedContent({
          format: "anthropic",
          path: c.path,
          messageIndex: 1,
          blockIndex: 0,
          contentType: c.contentType,
          reason: c.message.slice(c.message.indexOf("content has no canonical form: ") + 31)
        })
      )
    })
  }
})

describe("AnthropicFormat.decode: misplaced blocks", () => {
  it("a tool_use in a user message", () => {
    const error = left(AnthropicFormat.decode([
      { role: "user", content: [{ type: "text", text: "x" }, { type: "tool_use", id: "t", name: "f", input: {} }] }
    ]))
    assert.deepStrictEqual(
      error,
      new ConversionError.MisplacedBlock({
        format: "anthropic",
        path: [0, "content", 1],
        messageIndex: 0,
        blockIndex: 1,
        role: "user",
        blockType: "tool_call"
      })
    )
    assert.strictEqual(
      error.message,
      "anthropic: message 0, block 1: a \"tool_call\" block is not valid in a \"user\" message: reasoning and " +
        "tool_call blocks belong in assistant turns, tool_result blocks in user turns"
    )
  })

  it("a tool_result in an assistant message, thinking in a system message", () => {
    const toolResult = left(AnthropicFormat.decode({
      messages: [{ role: "assistant", content: [{ type: "tool_result", tool_use_id: "t" }] }]
    }))
    assert.deepStrictEqual(toolResult.path, ["messages", 0, "content", 0])
    assert.strictEqual(toolResult._tag === "MisplacedBlock" && toolResult.blockType, "tool_result")
    const thinking = left(AnthropicFormat.decode([{ role: "system", content: [{ type: "thinking", thinking: "" }] }]))
    assert.strictEqual(thinking._tag === "MisplacedBlock" && thinking.role, "system")
  })
})

describe("AnthropicFormat.decode: malformed input", () => {
  const cases: ReadonlyArray<{ readonly input: unknown; readonly message: string }> = [
    {
      input: 5,
      message:
        "anthropic: malformed input at $: expected a request body {system?, messages} or an array of messages, " +
        "actual 5"
    },
    {
      input: null,
      message:
        "anthropic: malformed input at $: expected a request body {system?, messages} or an array of messages, actual null"
    },
    { input: { model: "claude" }, message: "anthropic: malformed input at $.messages: is missing" },
    {
      input: { messages: [{ role: "bob", content: "" }] },
      message: "anthropic: message 0: malformed input at $.messages[0].role: Expected \"user\" | \"assistant\" | " +
        "\"system\", actual \"bob\""
    },
    {
      input: { messages: [{ role: "user", content: 5 }] },
      message: "anthropic: message 0: malformed input at $.messages[0].content: Expected a string or an array of " +
        "content blocks, actual 5"
    },
    {
      input: { messages: [{ role: "user" }] },
      message: "anthropic: message 0: malformed input at $.messages[0].content: is missing"
    },
    {
      input: [{ role: "user", content: "ok" }, { role: "user", content: [{ type: "text", text: 5 }] }],
      message: "anthropic: message 1, block 0: malformed input at $[1].content[0].text: Expected string, actual 5"
    },
    {
      input: [{ role: "user", content: [{ type: "text" }] }],
      message: "anthropic: message 0, block 0: malformed input at $[0].content[0].text: is missing"
    },
    {
      input: [{ role: "user", content: [{ text: "no type" }] }],
      message: "anthropic: message 0, block 0: malformed input at $[0].content[0].type: is missing"
    },
    {
      input: [{ role: "user", content: [{ type: "image", source: { type: "base64", data: "x" } }] }],
      message: "anthropic: message 0, block 0: malformed input at $[0].content[0].source.media_type: is missing"
    },
    {
      input: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: "{}" }] }],
      message: "anthropic: message 0, block 0: malformed input at $[0].content[0].input: Expected JsonObject, " +
        "actual \"{}\""
    },
    {
      input: [{
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: 1 }] }]
      }],
      message: "anthropic: message 0, block 0: malformed input at $[0].content[0].content[0].text: Expected string, " +
        "actual 1"
    },
    {
      input: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: 7 }] }],
      message: "anthropic: message 0, block 0: malformed input at $[0].content[0].content: Expected a string or an " +
        "array of tool result blocks, actual 7"
    },
    {
      input: { system: 5, messages: [] },
      message: "anthropic: malformed input at $.system: Expected a string or an array of text blocks, actual 5"
    },
    {
      input: { system: [{ type: "text", text: "a" }, { type: "image", source: {} }], messages: [] },
      message: "anthropic: malformed input at $.system[1].type: Expected \"text\", actual \"image\""
    },
    {
      input: { system: [{ type: "text", text: "a", citations: [{ type: "char_location" }] }], messages: [] },
      message: "anthropic: malformed input at $.system[0].citations: a system prompt cannot carry citations"
    }
  ]
  for (const c of cases) {
    it(c.message, () => {
      const error = left(AnthropicFormat.decode(c.input))
      assert.strictEqual(error._tag, "MalformedInput")
      assert.strictEqual(error.message, c.message)
    })
  }

  it("input nested too deeply to decode (or cyclic) is MalformedInput, not a stack overflow", () => {
    const nested = (levels: number): unknown => {
      let value: unknown = 1
      for (let i = 0; i < levels; i++) value = [value]
      return value
    }
    const body = (x: unknown) => ({
      messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: { x } }] }]
    })
    // the outermost array sits at level 6 (messages, 0, content, 0, input, x): arrays up to level 512 are read
    assert.isTrue(Either.isRight(AnthropicFormat.decode(body(nested(507)))))
    const tooDeep = left(AnthropicFormat.decode(body(nested(508))))
    assert.deepStrictEqual(
      tooDeep,
      new ConversionError.MalformedInput({
        format: "anthropic",
        path: ["messages", 0, "content", 0, "input", "x", ...Array.from({ length: 507 }, () => 0)],
        messageIndex: 0,
        blockIndex: 0,
        reason: "nested more than 512 levels deep (or cyclic)"
      })
    )
    // what `JSON.parse` builds from 100,000 brackets
    const parsed = JSON.parse(`{"messages":[{"role":"user","content":${"[".repeat(100_000)}${"]".repeat(100_000)}}]}`)
    assert.strictEqual(left(AnthropicFormat.decode(parsed))._tag, "MalformedInput")
    const cyclic: { self?: unknown } = {}
    cyclic.self = cyclic
    assert.strictEqual(
      left(AnthropicFormat.decode(body(cyclic))).reason,
      "nested more than 512 levels deep (or cyclic)"
    )
    // keys that are not read are not walked
    assert.isTrue(Either.isRight(AnthropicFormat.decode({ ...body({}), tools: nested(100_000) })))
  })

  it("carries format, path and indices as fields", () => {
    assert.deepStrictEqual(
      left(AnthropicFormat.decode({ messages: [{ role: "user", content: "ok" }, { role: "user", content: [{}] }] })),
      new ConversionError.MalformedInput({
        format: "anthropic",
        path: ["messages", 1, "content", 0, "type"],
        messageIndex: 1,
        blockIndex: 0,
        reason: "is missing"
      })
    )
  })
})

// -----------------------------------------------------------------------------
// the Schema adapter
// -----------------------------------------------------------------------------

describe("AnthropicFormat.schema", () => {
  const json = Schema.parseJson(AnthropicFormat.schema)

  it("composes with Schema.parseJson both ways", () => {
    const conversation = right(Conversation.decode(golden[1]!.input))
    assert.strictEqual(right(Schema.encodeEither(json)(conversation)), golden[1]!.expected)
    assert.deepStrictEqual(right(Schema.decodeUnknownEither(json)(golden[1]!.expected)), conversation)
  })

  it("reports conversion errors as parse issues carrying the tagged error's message", () => {
    const error = left(Schema.encodeEither(json)([Message.user("Hi"), Message.system("late")]))
    assert.include(error.message, "anthropic: message 1: cannot represent this \"system\" message")
    const decodeError = left(
      Schema.decodeUnknownEither(json)(
        "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"tool_use\", \"id\": \"t\", \"name\": \"f\", \"input\": {}}]}]}"
      )
    )
    assert.include(
      decodeError.message,
      "anthropic: message 0, block 0: a \"tool_call\" block is not valid in a \"user\" message"
    )
  })

  it("input that is not of the Input's shape is answered by decode's MalformedInput, at the place", () => {
    const error = left(Schema.decodeUnknownEither(json)("{\"messages\": 5}"))
    assert.include(
      error.message,
      "anthropic: malformed input at $.messages: Expected ReadonlyArray<AnthropicInputMessage>, actual 5"
    )
    const tagged = AnthropicFormat.schema.decodeError(error)
    assert.strictEqual(tagged._tag, "MalformedInput")
    if (tagged._tag === "MalformedInput") assert.deepStrictEqual(tagged.path, ["messages"])
  })

  it("the codec record names the provider", () => {
    assert.strictEqual(AnthropicFormat.codec.name, "anthropic")
    assert.strictEqual(AnthropicFormat.name, "anthropic")
  })
})

// -----------------------------------------------------------------------------
// laws
// -----------------------------------------------------------------------------

// what a block's detail keeps under `anthropic`, as the format reads it back
const isRecord = (u: unknown): u is Json.JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)
const anthropicDetail = (detail: Json.JsonObject | null): Json.JsonObject => {
  const anthropic = detail?.["anthropic"]
  return isRecord(anthropic) ? anthropic : {}
}

// 1. a text block keeps non-empty citations (an array of objects) in detail.anthropic.citations
const stripText = (block: Block.TextBlock): Block.TextBlock => {
  const citations = anthropicDetail(block.detail)["citations"]
  return Array.isArray(citations) && citations.length > 0 && citations.every(isRecord)
    ? Block.text(block.text, { detail: { anthropic: { citations } } })
    : Block.text(block.text)
}

// 1. a tool call keeps its caller (an object other than {type: "direct"}) in detail.anthropic.caller
const stripToolCall = (block: Block.ToolCallBlock): Block.ToolCallBlock => {
  const caller = anthropicDetail(block.detail)["caller"]
  return isRecord(caller) && !(Object.keys(caller).length === 1 && caller["type"] === "direct")
    ? Block.toolCall(block.id, block.name, block.input, { detail: { anthropic: { caller } } })
    : Block.toolCall(block.id, block.name, block.input)
}

const stripContent = (block: Block.ContentBlock): Block.ContentBlock =>
  block.type === "text" ? stripText(block) : Block.image(block.data, block.mimeType)

const strip = <B extends Block.Block>(block: B): B => {
  const b: Block.Block = block
  switch (b.type) {
    case "text":
    case "image":
      return stripContent(b) as B
    case "reasoning":
      return Block.reasoning(b.text, { signature: b.signature === "" ? null : b.signature }) as B
    case "tool_call":
      return stripToolCall(b) as B
    case "tool_result":
      return Block.toolResult(b.tool_call_id, b.blocks.map(stripContent), { isError: b.is_error }) as B
    case "provider":
      // an Anthropic provider block comes back as it went, its kind the item's type
      return Block.provider(b.provider, String(b.item["type"]), b.item) as B
  }
}

/**
 * The conversation `decode(encode(c, options))` gives back: exactly the losses listed in
 * docs/formats/anthropic.md, nothing else.
 */
const normalizeAsWritten = (
  conversation: Conversation.Conversation,
  options: AnthropicFormat.EncodeOptions = {}
): Conversation.Conversation => {
  const system: Array<string> = []
  const rest: Array<Message.Message> = []
  for (const message of conversation) {
    switch (message.role) {
      case "system":
        if (rest.length === 0) {
          // 2. the leading run becomes one system message (its texts joined, or kept as blocks)
          for (const block of message.blocks) if (block.type === "text") system.push(block.text)
        } else {
          // 5. a later system message is sent as a user turn (laterSystem: "user")
          rest.push(
            options.laterSystem === "user"
              ? Message.user(message.blocks.map(strip))
              : Message.system(message.blocks.map(strip))
          )
        }
        break
      case "user":
        // 3. tool results move to the front (1. and 4. inside `strip`: detail, empty signature)
        rest.push(Message.user([
          ...message.blocks.filter((b) => b.type === "tool_result"),
          ...message.blocks.filter((b) => b.type !== "tool_result")
        ].map(strip)))
        break
      case "assistant":
        rest.push(Message.assistant(message.blocks.map(strip)))
        break
    }
  }
  const leading = system.length === 0
    ? []
    : [Message.system(options.system === "blocks" ? system.map((t) => Block.text(t)) : system.join("\n\n"))]
  return [...leading, ...rest]
}

// Anthropic transcripts made only of content with a canonical form, each block in a role that may
// hold it, string or block content: what a well-behaved client stores.
const stringOr = <A, I>(blocks: Schema.Schema<A, I>) => Schema.Union(Schema.String, Schema.Array(blocks))
// a system prompt does not cite
const SystemText = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })
const transcript = Schema.Struct({
  system: Schema.NullOr(stringOr(SystemText)),
  messages: Schema.Array(Schema.Union(
    Schema.Struct({ role: Schema.Literal("system"), content: stringOr(AnthropicFormat.TextBlock) }),
    Schema.Struct({
      role: Schema.Literal("user"),
      content: stringOr(
        Schema.Union(AnthropicFormat.TextBlock, AnthropicFormat.ImageBlock, AnthropicFormat.ToolResultBlock)
      )
    }),
    Schema.Struct({
      role: Schema.Literal("assistant"),
      content: stringOr(Schema.Union(
        AnthropicFormat.TextBlock,
        AnthropicFormat.ImageBlock,
        AnthropicFormat.ThinkingBlock,
        AnthropicFormat.ToolUseBlock
      ))
    })
  ))
})

const optionSets: ReadonlyArray<AnthropicFormat.EncodeOptions> = [
  {},
  { system: "blocks" },
  { laterSystem: "user" },
  { laterSystem: "inline", system: "blocks" }
]

const decodeTags: ReadonlyArray<string> = [
  "MalformedInput",
  "MisplacedBlock",
  "UnmatchedToolResult",
  "InvalidToolArguments",
  "UnsupportedContent"
]

codecLaws("AnthropicFormat", AnthropicFormat, { normalize, options: optionSets })

// Anthropic's own provider blocks (block types this format does not read, as the API sends them)
// go back as they came and read back, with providerContent: "keep", byte for byte.
const keep = { providerContent: "keep" } as const
codecLaws(
  "AnthropicFormat (providerContent: keep)",
  {
    ...AnthropicFormat,
    decode: (input: unknown) => AnthropicFormat.decode(input, keep),
    schema: Codec.toSchema(AnthropicFormat.codec, { decode: keep })
  },
  {
    normalize,
    options: optionSets,
    conversations: withProviderBlocks(
      "anthropic",
      typedItems(FastCheck.constantFrom(
        "server_tool_use",
        "web_search_tool_result",
        "code_execution_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "compaction",
        "container_upload",
        "document"
      )),
      (item) => String(item["type"])
    )
  }
)

describe("AnthropicFormat laws", () => {
  it.prop(
    "every value of the Request schema decodes, or fails only for content with no canonical form or placement",
    [AnthropicFormat.Request],
    ([request]) => {
      const result = AnthropicFormat.decode(request)
      if (Either.isLeft(result)) assert.oneOf(result.left._tag, ["UnsupportedContent", "MisplacedBlock"])
    },
    { fastCheck: { numRuns: 100 } }
  )

  it.prop(
    "a transcript of canonical content always decodes, and encode (inline, blocks) writes it back up to the losses",
    [transcript],
    ([request]) => {
      const options: AnthropicFormat.EncodeOptions = {
        laterSystem: "inline",
        system: "blocks",
        reusedToolCallIds: "rename"
      }
      const conversation = right(AnthropicFormat.decode(request))
      const wire = right(AnthropicFormat.encode(conversation, options))
      assert.deepStrictEqual(right(AnthropicFormat.decode(wire)), normalize(unique(conversation), options))
    },
    { fastCheck: { numRuns: 100 } }
  )

  it.prop(
    "decode never throws on messages whose parts are arbitrary values",
    [FastCheck.array(
      FastCheck.record({
        role: FastCheck.constantFrom("user", "assistant", "system", "tool"),
        content: FastCheck.oneof(
          FastCheck.string(),
          FastCheck.array(
            FastCheck.oneof(
              FastCheck.record({
                type: FastCheck.constantFrom("text", "image", "thinking", "tool_use", "tool_result", "document"),
                text: FastCheck.anything(),
                source: FastCheck.anything(),
                content: FastCheck.anything(),
                input: FastCheck.anything()
              }, { requiredKeys: ["type"] }),
              FastCheck.anything()
            )
          )
        )
      })
    )],
    ([messages]) => {
      const result = AnthropicFormat.decode({ messages })
      if (Either.isLeft(result)) assert.oneOf(result.left._tag, [...decodeTags])
    },
    { fastCheck: { numRuns: 100 } }
  )
})

describe("AnthropicFormat.decode: one declaration, read by the guard and the Schema", () => {
  guardLaws("Request", AnthropicFormat.Request, { onExcessProperty: "ignore" })
  guardLaws("messages array", Schema.Array(AnthropicFormat.InputMessage), { onExcessProperty: "ignore" })

  it("keeps a __proto__ key of tool input as an own data key, polluting nothing", () => {
    const input = JSON.parse(
      `{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"__proto__":{"polluted":true},"a":1}}]}]}`
    )
    const [message] = Either.getOrThrow(AnthropicFormat.decode(input))
    const block = message!.blocks[0] as Block.ToolCallBlock
    assert.deepStrictEqual(Object.keys(block.input), ["__proto__", "a"])
    assert.strictEqual(Object.getPrototypeOf(block.input), Object.prototype)
    assert.strictEqual(JSON.stringify(block.input), `{"__proto__":{"polluted":true},"a":1}`)
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })
})
