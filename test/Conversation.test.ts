import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Block, Conversation, ConversionError, Message } from "openreward-effect"

const seedRich = [
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
    blocks: [
      {
        type: "tool_result",
        tool_call_id: "tc_1",
        blocks: [{ type: "text", text: "{\"status\": \"stalled_at_hub\"}" }]
      }
    ]
  }
]

const left = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) assert.fail("expected a Left")
  return e.left
}

describe("Conversation.decode", () => {
  it("decodes the seed page's rich conversation and fills in defaults", () => {
    const decoded = Conversation.decode(seedRich)
    assert.isTrue(Either.isRight(decoded))
    assert.deepStrictEqual(
      Either.getOrThrow(decoded),
      [
        Message.user("My order #4411 hasn't arrived."),
        Message.assistant([
          Block.reasoning("Two weeks late — check the carrier first."),
          Block.toolCall("tc_1", "lookup_order", { id: "4411" })
        ]),
        Message.user([Block.toolResult("tc_1", "{\"status\": \"stalled_at_hub\"}")])
      ]
    )
  })

  it("encodes to the reference wire JSON, every default present, in the reference key order", () => {
    const encoded = Conversation.encode(Either.getOrThrow(Conversation.decode(seedRich)))
    assert.strictEqual(
      JSON.stringify(encoded[2]),
      "{\"role\":\"user\",\"blocks\":[{\"tool_call_id\":\"tc_1\",\"blocks\":[{\"text\":\"{\\\"status\\\": \\\"stalled_at_hub\\\"}\",\"detail\":null,\"type\":\"text\"}],\"is_error\":false,\"detail\":null,\"type\":\"tool_result\"}],\"detail\":null}"
    )
  })

  it("rejects a misplaced block with its message index, block index, role and type", () => {
    const error = left(Conversation.decode([
      { role: "user", blocks: [] },
      {
        role: "assistant",
        blocks: [{ type: "text", text: "ok" }, { type: "tool_result", tool_call_id: "x", blocks: [] }]
      }
    ]))
    assert.deepStrictEqual(
      error,
      new ConversionError.MisplacedBlock({
        path: [1, "blocks", 1],
        messageIndex: 1,
        blockIndex: 1,
        role: "assistant",
        blockType: "tool_result"
      })
    )
    assert.strictEqual(
      error.message,
      "canonical: message 1, block 1: a \"tool_result\" block is not valid in an \"assistant\" message: reasoning and tool_call blocks belong in assistant turns, tool_result blocks in user turns"
    )
  })

  it("rejects reasoning and tool calls outside assistant turns, tool results outside user turns", () => {
    const cases: ReadonlyArray<readonly [string, unknown]> = [
      ["user", { type: "reasoning", text: "x" }],
      ["system", { type: "reasoning", text: "x" }],
      ["user", { type: "tool_call", id: "a", name: "b", input: {} }],
      ["system", { type: "tool_call", id: "a", name: "b", input: {} }],
      ["system", { type: "tool_result", tool_call_id: "a", blocks: [] }],
      ["assistant", { type: "tool_result", tool_call_id: "a", blocks: [] }]
    ]
    for (const [role, block] of cases) {
      assert.strictEqual(left(Conversation.decode([{ role, blocks: [block] }]))._tag, "MisplacedBlock")
    }
  })

  it("allows images in every role, empty blocks and empty text", () => {
    for (const role of ["system", "user", "assistant"]) {
      assert.isTrue(
        Either.isRight(
          Conversation.decode([{ role, blocks: [{ type: "image", data: "AA==", mimeType: "image/png" }] }])
        )
      )
      assert.isTrue(
        Either.isRight(Conversation.decode([{ role, blocks: [] }, { role, blocks: [{ type: "text", text: "" }] }]))
      )
    }
  })

  it("rejects unknown block types strictly, naming the type and where", () => {
    const error = left(
      Conversation.decode([{ role: "user", blocks: [{ type: "text", text: "a" }, { type: "audio" }] }])
    )
    assert.deepStrictEqual(
      error,
      new ConversionError.UnknownBlockType({
        path: [0, "blocks", 1],
        messageIndex: 0,
        blockIndex: 1,
        blockType: "audio"
      })
    )
    assert.strictEqual(error.message, "canonical: message 0, block 1: unknown block type \"audio\" at $[0].blocks[1]")
  })

  it("rejects unknown keys (the reference forbids extra fields)", () => {
    const error = left(Conversation.decode([{ role: "user", blocks: [{ type: "text", text: "a", colour: "red" }] }]))
    assert.strictEqual(error._tag, "MalformedInput")
    if (error._tag === "MalformedInput") {
      assert.deepStrictEqual(error.path, [0, "blocks", 0, "colour"])
      assert.strictEqual(error.messageIndex, 0)
      assert.strictEqual(error.blockIndex, 0)
    }
  })

  it("reports wrong field types with a path", () => {
    const error = left(Conversation.decode([
      { role: "assistant", blocks: [{ type: "tool_call", id: "a", name: "b", input: "not an object" }] }
    ]))
    assert.strictEqual(error._tag, "MalformedInput")
    if (error._tag === "MalformedInput") assert.deepStrictEqual(error.path, [0, "blocks", 0, "input"])
  })

  it("reports bad roles and non-arrays", () => {
    const role = left(Conversation.decode([{ role: "tool", blocks: [] }]))
    assert.strictEqual(
      role.message,
      "canonical: message 0: malformed input at $[0].role: expected \"system\" | \"user\" | \"assistant\", actual \"tool\""
    )
    assert.strictEqual(left(Conversation.decode({ messages: [] }))._tag, "MalformedInput")
    assert.strictEqual(left(Conversation.decode([{ role: "user" }]))._tag, "MalformedInput")
  })

  it("reports input nested deeper than the stack allows instead of crashing", () => {
    const deep = JSON.parse("[".repeat(200_000) + "]".repeat(200_000))
    const error = left(
      Conversation.decode([{ role: "assistant", blocks: [{ type: "tool_call", id: "a", name: "b", input: { deep } }] }])
    )
    assert.strictEqual(error._tag, "MalformedInput")
    assert.strictEqual(
      error.message,
      "canonical: message 0, block 0: malformed input at $[0].blocks[0].input: nested more than 512 levels deep (or cyclic)"
    )
  })

  it("rejects rich blocks inside a tool result", () => {
    const error = left(Conversation.decode([
      { role: "user", blocks: [{ type: "tool_result", tool_call_id: "a", blocks: [{ type: "reasoning", text: "x" }] }] }
    ]))
    assert.strictEqual(error._tag, "MalformedInput")
    if (error._tag === "MalformedInput") assert.deepStrictEqual(error.path, [0, "blocks", 0, "blocks", 0])
  })
})

describe("Conversation.decodeLenient", () => {
  it("skips unknown block types, also inside tool results, and reports them", () => {
    const result = Either.getOrThrow(Conversation.decodeLenient([
      {
        role: "user",
        blocks: [
          { type: "text", text: "a" },
          { type: "video", url: "x" },
          { type: "tool_result", tool_call_id: "t", blocks: [{ type: "audio" }, { type: "text", text: "b" }] }
        ]
      }
    ]))
    assert.deepStrictEqual(result.conversation, [Message.user([Block.text("a"), Block.toolResult("t", "b")])])
    assert.deepStrictEqual(result.skipped.map((s) => [s.blockType, s.path]), [
      ["video", [0, "blocks", 1]],
      ["audio", [0, "blocks", 2, "blocks", 0]]
    ])
  })

  it("ignores unknown keys but still enforces placement", () => {
    const ok = Either.getOrThrow(
      Conversation.decodeLenient([{ role: "user", blocks: [{ type: "text", text: "a", x: 1 }], y: 2 }])
    )
    assert.deepStrictEqual(ok.conversation, [Message.user("a")])
    assert.strictEqual(
      left(Conversation.decodeLenient([{ role: "user", blocks: [{ type: "reasoning", text: "a" }] }]))._tag,
      "MisplacedBlock"
    )
  })
})

describe("Conversation laws", () => {
  it.prop(
    "decode(encode(c)) = c for every conversation",
    [Conversation.Conversation],
    ([conversation]) => {
      const roundTripped = Conversation.decode(JSON.parse(JSON.stringify(Conversation.encode(conversation))))
      assert.deepStrictEqual(Either.getOrThrow(roundTripped), conversation)
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "the Message schema and Conversation.decode accept the same messages",
    [Schema.Struct({ role: Message.Role, blocks: Schema.Array(Block.Block) })],
    ([raw]) => {
      const wire = JSON.parse(
        JSON.stringify({ ...raw, blocks: Schema.encodeSync(Schema.Array(Block.Block))(raw.blocks) })
      )
      const bySchema = Schema.decodeUnknownEither(Message.Message)(wire)
      const byDecoder = Conversation.decode([wire])
      assert.strictEqual(Either.isRight(bySchema), Either.isRight(byDecoder))
      assert.strictEqual(Either.isRight(byDecoder), Either.isRight(Conversation.validate([raw as Message.Message])))
    },
    { fastCheck: { numRuns: 200 } }
  )
})

/**
 * The reference server's pydantic model coerces what its lax mode takes for a boolean; we read only
 * `true` and `false` (docs/compatibility.md, `is-error-as-string`; the vectors `is-error-as-*`).
 */
describe("is_error is a JSON boolean", () => {
  // every value pydantic 2 coerces to a bool, checked against openreward 0.1.167's ToolResultBlock (and
  // null, which it rejects too)
  const coerced: ReadonlyArray<unknown> = [
    1,
    0,
    1.0,
    0.0,
    "true",
    "false",
    "True",
    "FALSE",
    "1",
    "0",
    "yes",
    "no",
    "on",
    "off",
    "t",
    "f",
    "y",
    "n",
    "YES"
  ]
  const conversation = (isError: unknown) => [
    { role: "assistant", blocks: [{ type: "tool_call", id: "c", name: "f", input: {} }] },
    {
      role: "user",
      blocks: [{
        type: "tool_result",
        tool_call_id: "c",
        blocks: [],
        ...(isError === undefined ? {} : { is_error: isError })
      }]
    }
  ]
  const surfaces: ReadonlyArray<
    readonly [string, (input: unknown) => Either.Either<Conversation.Conversation, ConversionError.ValidationError>]
  > = [
    ["Conversation.decode", Conversation.decode],
    ["Conversation.decodeLenient", (input) => Either.map(Conversation.decodeLenient(input), (r) => r.conversation)]
  ]

  for (const [name, decode] of surfaces) {
    it(`${name}: what pydantic coerces is a MalformedInput at is_error`, () => {
      for (const value of coerced) {
        const result = decode(conversation(value))
        assert.isTrue(Either.isLeft(result), `${JSON.stringify(value)} was read`)
        if (Either.isLeft(result)) {
          assert.strictEqual(result.left._tag, "MalformedInput")
          assert.deepStrictEqual(result.left.path, [1, "blocks", 0, "is_error"])
        }
      }
    })

    it(`${name}: true, false and absent are read`, () => {
      for (const [value, expected] of [[true, true], [false, false], [undefined, false]] as const) {
        const result = decode(conversation(value))
        const read = Either.getOrThrow(result)
        assert.strictEqual((read[1]!.blocks[0] as Block.ToolResultBlock).is_error, expected)
      }
    })
  }
})

describe("messages name a role or a block type with the right article", () => {
  it("an \"assistant\" message, an \"image\" block, a \"user\" message, a \"text\" block", () => {
    const misplaced = (role: string, blockType: string) =>
      new ConversionError.MisplacedBlock({ path: [0], messageIndex: 0, blockIndex: 0, role, blockType }).reason
    assert.match(misplaced("assistant", "tool_result"), /^a "tool_result" block is not valid in an "assistant" message/)
    assert.match(misplaced("user", "image"), /^an "image" block is not valid in a "user" message/)
    assert.match(misplaced("system", "unknown"), /^an "unknown" block is not valid in a "system" message/)
    const unsupported = (blockType: string) =>
      new ConversionError.UnsupportedBlock({
        format: "google",
        path: [0],
        messageIndex: 0,
        blockIndex: 0,
        blockType,
        reason: "r"
      }).message
    assert.include(unsupported("image"), "cannot represent an \"image\" block")
    assert.include(unsupported("reasoning"), "cannot represent a \"reasoning\" block")
  })
})
