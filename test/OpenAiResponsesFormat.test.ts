import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import type * as OpenAi from "openai/resources/responses/responses"
import { Block, Conversation, ConversionError, Format, Message } from "openreward-effect"
import * as Codec from "openreward-effect/Codec"
import * as OpenAiResponsesFormat from "openreward-effect/OpenAiResponsesFormat"
import { codecLaws, typedItems, withProviderBlocks } from "./utils/codecLaws.js"
import { guardLaws } from "./utils/guardLaws.js"
import { itemLike, normalize } from "./utils/openAiResponses.js"

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) assert.fail(`expected Right, got ${String(either.left)}`)
  return either.right
}

const left = <A, E>(either: Either.Either<A, E>): E => {
  if (Either.isRight(either)) assert.fail(`expected Left, got ${JSON.stringify(either.right)}`)
  return either.left
}

const openai = (meta: { readonly id?: string; readonly phase?: string; readonly part?: string }) => ({
  detail: { openai: meta }
})

describe("OpenAiResponsesFormat.encode", () => {
  it("writes messages, function calls and outputs in order", () => {
    const conversation = [
      Message.system("Be terse."),
      Message.user([Block.text("Look:"), Block.image("AAAA", "image/png")]),
      Message.assistant([Block.text("Checking."), Block.toolCall("call_1", "lookup", { id: "4411", n: 1.5 })]),
      Message.user([Block.toolResult("call_1", [Block.text("a"), Block.image("BB", "image/jpeg")]), Block.text("and?")])
    ]
    const input = right(OpenAiResponsesFormat.encode(conversation))
    assert.deepStrictEqual(input, [
      { type: "message", role: "system", content: "Be terse." },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "Look:" },
          { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" }
        ]
      },
      { type: "message", role: "assistant", content: "Checking." },
      { type: "function_call", call_id: "call_1", name: "lookup", arguments: "{\"id\": \"4411\", \"n\": 1.5}" },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [
          { type: "input_text", text: "a" },
          { type: "input_image", image_url: "data:image/jpeg;base64,BB", detail: "auto" }
        ]
      },
      { type: "message", role: "user", content: "and?" }
    ])
    assert.deepStrictEqual(right(OpenAiResponsesFormat.decode(input)), conversation)
  })

  it("sends blocks that came from Responses items back as those items", () => {
    const conversation = [
      Message.user("Hi"),
      Message.assistant([
        Block.reasoning("First,", { signature: "ENC", ...openai({ id: "rs_1" }) }),
        Block.reasoning("then.", { signature: "ENC", ...openai({ id: "rs_1" }) }),
        Block.reasoning("raw", { signature: "ENC", ...openai({ id: "rs_1", part: "reasoning_text" }) }),
        Block.text("Hello", openai({ id: "msg_1", phase: "final_answer" })),
        Block.text("No.", openai({ id: "msg_1", phase: "final_answer", part: "refusal" })),
        Block.reasoning("", openai({ id: "rs_2" })),
        Block.toolCall("call_9", "f", {}, openai({ id: "fc_9" }))
      ])
    ]
    const input = right(OpenAiResponsesFormat.encode(conversation, { toolArguments: "json" }))
    assert.deepStrictEqual(input.slice(1), [
      {
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "First," }, { type: "summary_text", text: "then." }],
        encrypted_content: "ENC",
        content: [{ type: "reasoning_text", text: "raw" }]
      },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Hello", annotations: [] }, { type: "refusal", refusal: "No." }],
        phase: "final_answer"
      },
      { type: "reasoning", id: "rs_2", summary: [] },
      { type: "function_call", call_id: "call_9", name: "f", arguments: "{}", id: "fc_9" }
    ])
    assert.deepStrictEqual(right(OpenAiResponsesFormat.decode(input)), conversation)
  })

  it("fails on reasoning without an item id by default, and omits or sends it as text on request", () => {
    const conversation = [Message.user("Why?"), Message.assistant([Block.reasoning("Because."), Block.text("So.")])]
    const error = left(OpenAiResponsesFormat.encode(conversation))
    assert.strictEqual(error._tag, "UnsupportedBlock")
    assert.deepStrictEqual(error.path, [1, "blocks", 0])
    assert.include(error.message, "reasoningWithoutId")
    assert.deepStrictEqual(right(OpenAiResponsesFormat.encode(conversation, { reasoningWithoutId: "omit" }))[1], {
      type: "message",
      role: "assistant",
      content: "So."
    })
    assert.deepStrictEqual(
      right(OpenAiResponsesFormat.encode(conversation, { reasoningWithoutId: "text" })).slice(1),
      [
        { type: "message", role: "assistant", content: "Because." },
        { type: "message", role: "assistant", content: "So." }
      ]
    )
  })

  it("fails on an image in an assistant turn, and reports a misplaced block first", () => {
    const image = left(OpenAiResponsesFormat.encode([Message.assistant([Block.image("AA", "image/png")])]))
    assert.strictEqual(image._tag, "UnsupportedBlock")
    const misplaced = left(OpenAiResponsesFormat.encode([
      Message.assistant([Block.image("AA", "image/png")]),
      { role: "user", blocks: [Block.reasoning("x")], detail: null } as unknown as Message.Message
    ]))
    assert.strictEqual(misplaced._tag, "MisplacedBlock")
  })

  it("sends system turns with the developer role on request", () => {
    assert.deepStrictEqual(
      right(OpenAiResponsesFormat.encode([Message.system("S")], { systemRole: "developer" })),
      [{ type: "message", role: "developer", content: "S" }]
    )
  })

  it("is registered in Format", () => {
    assert.include(Format.sources, "openai-responses")
    assert.include(Format.targets, "openai-responses")
    assert.strictEqual(Format.codecs["openai-responses"], OpenAiResponsesFormat.codec)
    assert.deepStrictEqual(
      right(Format.convert([{ role: "user", content: "Hi" }], { from: "openai", to: "openai-responses" })),
      [{ type: "message", role: "user", content: "Hi" }]
    )
  })
})

describe("OpenAiResponsesFormat.decode", () => {
  it("reads a request body: instructions lead, a string input is one user message", () => {
    assert.deepStrictEqual(
      right(OpenAiResponsesFormat.decode({ instructions: "Be terse.", input: "Hi", model: "gpt-5" })),
      [Message.system("Be terse."), Message.user("Hi")]
    )
  })

  it("reads SDK-typed items: EasyInputMessage without type, developer, output messages, outputs before a user message", () => {
    const items: Array<OpenAi.ResponseInputItem> = [
      { role: "developer", content: "D" },
      { role: "user", content: [{ type: "input_text", text: "Q" }] },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "A", annotations: [] }]
      },
      { type: "function_call", call_id: "c1", name: "f", arguments: "" },
      { type: "function_call_output", call_id: "c1", output: "R" },
      { role: "user", content: "more" }
    ]
    assert.deepStrictEqual(right(OpenAiResponsesFormat.decode(items)), [
      Message.system("D"),
      Message.user("Q"),
      Message.assistant([Block.text("A", openai({ id: "msg_1" })), Block.toolCall("c1", "f", {})]),
      Message.user([Block.toolResult("c1", "R"), Block.text("more")])
    ])
  })

  it("reports what has no canonical form, with its place", () => {
    const reference = left(OpenAiResponsesFormat.decode([{ role: "user", content: "x" }, {
      type: "item_reference",
      id: "msg_1"
    }]))
    assert.strictEqual(reference._tag, "UnsupportedContent")
    assert.deepStrictEqual(reference.path, [1, "type"])
    assert.include(reference.message, "item_reference")
    const url = left(OpenAiResponsesFormat.decode({
      input: [{ role: "user", content: [{ type: "input_image", image_url: "https://x.test/a.png", detail: "auto" }] }]
    }))
    assert.strictEqual(url._tag, "UnsupportedContent")
    assert.deepStrictEqual(url.path, ["input", 0, "content", 0, "image_url"])
    const args = left(
      OpenAiResponsesFormat.decode([{ type: "function_call", call_id: "c", name: "f", arguments: "[1]" }])
    )
    assert.strictEqual(args._tag, "InvalidToolArguments")
    // the same reasons as the Chat Completions formats give (one parser for both)
    assert.include(args.message, "expected a JSON object, actual an array")
    const shape = left(OpenAiResponsesFormat.decode({ model: "gpt-5" }))
    assert.strictEqual(shape._tag, "MalformedInput")
    assert.include(shape.message, "expected an array of input items or a request body {input: [...]}")
    const chat = left(OpenAiResponsesFormat.decode({ messages: [] }))
    assert.include(chat.message, "\"messages\" is not a key of an openai-responses request body")
  })
})

describe("OpenAiResponsesFormat: hosted items (providerContent)", () => {
  // a turn with web search, an MCP approval asked and given, then the answer (shapes from the API's docs)
  const search = {
    id: "ws_1",
    type: "web_search_call",
    status: "completed",
    action: { type: "search", query: "Paris weather" }
  }
  const approval = {
    id: "mcpr_1",
    type: "mcp_approval_request",
    arguments: "{\"city\":\"Paris\"}",
    name: "forecast",
    server_label: "weather"
  }
  const approved = { type: "mcp_approval_response", approval_request_id: "mcpr_1", approve: true }
  const answer = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text: "Sunny.", annotations: [] }]
  }
  const items = [{ role: "user", content: "Weather in Paris?" }, search, approval, approved, answer]

  it("refuses them by default, naming the item, its place and the option", () => {
    const error = left(OpenAiResponsesFormat.decode(items))
    assert.strictEqual(error._tag, "UnsupportedContent")
    assert.deepStrictEqual(error.path, [1, "type"])
    assert.include(error.message, "\"web_search_call\"")
    assert.include(error.message, "providerContent: \"keep\"")
    const response = OpenAiResponsesFormat.decodeResponse({ output: [search, answer] })
    assert.isTrue(Either.isLeft(response))
    if (Either.isLeft(response)) assert.deepStrictEqual(response.left.path, ["output", 0, "type"])
  })

  it("keeps each as a provider block in its place, and encode writes it back as it came", () => {
    const decoded = OpenAiResponsesFormat.decode(items, { providerContent: "keep" })
    assert.isTrue(Either.isRight(decoded))
    if (Either.isLeft(decoded)) return
    const conversation = decoded.right
    // the approval given is the client's (a user turn); the model's items are the assistant's
    assert.deepStrictEqual(
      conversation.map((m) => [m.role, m.blocks.map((b) => b.type === "provider" ? b.kind : b.type)]),
      [
        ["user", ["text"]],
        ["assistant", ["web_search_call", "mcp_approval_request"]],
        ["user", ["mcp_approval_response"]],
        ["assistant", ["text"]]
      ]
    )
    assert.deepStrictEqual(conversation[1]!.blocks[0], Block.provider("openai-responses", "web_search_call", search))
    assert.isTrue(Either.isRight(Conversation.validate(conversation)))
    const back = OpenAiResponsesFormat.encode(conversation)
    assert.isTrue(Either.isRight(back))
    if (Either.isRight(back)) {
      assert.strictEqual(JSON.stringify(back.right.slice(1, 4)), JSON.stringify([search, approval, approved]))
    }
    // an answer: every item the assistant's, in order
    const response = OpenAiResponsesFormat.decodeResponse({ output: [search, answer] }, { providerContent: "keep" })
    assert.isTrue(Either.isRight(response))
    if (Either.isRight(response)) {
      assert.deepStrictEqual(response.right.message.blocks.map((b) => b.type), ["provider", "text"])
      assert.strictEqual(response.right.stopReason, "stop")
    }
  })

  it("to another format: an error by default, left out or text on request", () => {
    const conversation = Either.getOrThrow(OpenAiResponsesFormat.decode(items, { providerContent: "keep" }))
    const refused = Format.encode("anthropic", conversation)
    assert.isTrue(Either.isLeft(refused))
    if (Either.isLeft(refused)) {
      assert.strictEqual(refused.left._tag, "UnsupportedBlock")
      assert.include(refused.left.message, "\"openai-responses\" content (\"web_search_call\")")
    }
    const omitted = Either.getOrThrow(Format.encode("openai", conversation, { providerContent: "omit" }))
    assert.deepStrictEqual(JSON.stringify(omitted).includes("web_search_call"), false)
    const text = Either.getOrThrow(Format.encode("openai", conversation, { providerContent: "text" }))
    assert.include(JSON.stringify(text), "[provider openai-responses web_search_call] {")
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

codecLaws("OpenAiResponsesFormat", OpenAiResponsesFormat, {
  normalize,
  options: [
    undefined,
    { reasoningWithoutId: "omit", systemRole: "developer", toolArguments: "json" },
    { reasoningWithoutId: "text", systemRole: "system", toolArguments: "python" }
  ],
  isWire: Schema.is(OpenAiResponsesFormat.Wire)
})

// The API's own hosted items, in assistant turns, go back as they came and read back, with
// providerContent: "keep", byte for byte.
const keep = { providerContent: "keep" } as const
codecLaws(
  "OpenAiResponsesFormat (providerContent: keep)",
  {
    ...OpenAiResponsesFormat,
    decode: (input: unknown) => OpenAiResponsesFormat.decode(input, keep),
    schema: Codec.toSchema(OpenAiResponsesFormat.codec, { decode: keep })
  },
  {
    normalize,
    options: [undefined, { reasoningWithoutId: "text", systemRole: "system", toolArguments: "python" }],
    conversations: withProviderBlocks(
      "openai-responses",
      typedItems(fc.constantFrom(
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "compaction"
      )),
      (item) => String(item["type"]),
      undefined,
      ["assistant"]
    )
  }
)

describe("OpenAiResponsesFormat laws", () => {
  it.prop(
    "decode never throws, and fails only with a DecodeError",
    [fc.oneof(fc.anything(), fc.jsonValue(), itemLike(fc))],
    ([input]) => {
      const result = OpenAiResponsesFormat.decode(input)
      if (Either.isLeft(result)) assert.include(decodeErrorTags, result.left._tag)
      else assert.isTrue(Schema.is(Conversation.Conversation)(result.right))
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "blocks decoded from Responses items encode back to the same items",
    [
      fc.array(
        fc.oneof(
          fc.record({ kind: fc.constant("text" as const), text: fc.string(), id: fc.constantFrom("msg_1", "msg_2") }),
          fc.record({
            kind: fc.constant("reasoning" as const),
            text: fc.string(),
            id: fc.constantFrom("rs_1", "rs_2"),
            signature: fc.option(fc.constantFrom("E1", "E2"))
          }),
          fc.record({ kind: fc.constant("call" as const), id: fc.constantFrom("fc_1", "fc_2"), name: fc.string() })
        ),
        { minLength: 1, maxLength: 6 }
      )
    ],
    ([specs]) => {
      const blocks = specs.map((s, i): Message.AssistantBlock =>
        s.kind === "text"
          ? Block.text(s.text, openai({ id: s.id }))
          : s.kind === "reasoning"
          ? Block.reasoning(s.text, { signature: s.signature, ...openai({ id: s.id }) })
          : Block.toolCall(`call_${i}`, s.name, {}, openai({ id: s.id }))
      )
      // an item with a single empty summary entry is sent with none, and reads back as that entry
      const conversation = [Message.assistant(blocks)]
      const encoded = right(OpenAiResponsesFormat.encode(conversation))
      assert.deepStrictEqual(right(OpenAiResponsesFormat.decode(encoded)), conversation)
    },
    { fastCheck: { numRuns: 100 } }
  )
})

describe("OpenAiResponsesFormat.codec and schema", () => {
  it("the codec is the module's functions, and the schema composes with Schema.parseJson", () => {
    assert.strictEqual(OpenAiResponsesFormat.codec.name, "openai-responses")
    assert.strictEqual(OpenAiResponsesFormat.codec.encode, OpenAiResponsesFormat.encode)
    const json = Schema.parseJson(OpenAiResponsesFormat.schema)
    const conversation = [Message.user("Hi")]
    const text = Schema.encodeSync(json)(conversation)
    assert.strictEqual(text, "[{\"type\":\"message\",\"role\":\"user\",\"content\":\"Hi\"}]")
    assert.deepStrictEqual(Schema.decodeUnknownSync(json)(text), conversation)
  })

  it("errors carry the format name and cross the wire", () => {
    const error = left(OpenAiResponsesFormat.decode([{ type: "web_search_call" }]))
    assert.strictEqual(error.format, "openai-responses")
    const encoded = Schema.encodeSync(ConversionError.ConversionError)(error)
    assert.deepStrictEqual(Schema.decodeUnknownSync(ConversionError.ConversionError)(encoded), error)
  })
})

describe("OpenAiResponsesFormat.decode: one declaration, read by the guard and the Schema", () => {
  guardLaws("input items", Schema.Array(OpenAiResponsesFormat.InputItem), { onExcessProperty: "ignore" })
})
