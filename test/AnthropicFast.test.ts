/**
 * The Anthropic codec's fast paths (docs/performance.md, sections 1 and 2) against what they
 * replace: encoding that checks placement as it goes against "`Conversation.validate` first, then
 * encode"; the plain decoding walk against the Schema decoder, successes and failures alike.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { absurd } from "effect/Function"
import * as Schema from "effect/Schema"
import { Block, Conversation, ConversionError, Message } from "openreward-effect"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"
import * as Generate from "../bench/internal/generate.js"
import * as AnthropicDecode from "../src/internal/anthropicDecode.js"

// -----------------------------------------------------------------------------
// encode
// -----------------------------------------------------------------------------

type Wire = AnthropicFormat.Wire
type WireMessage = AnthropicFormat.WireMessage

const content = (block: Block.ContentBlock): AnthropicFormat.ToolResultContent =>
  block.type === "text"
    ? { type: "text", text: block.text }
    : { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } }

const wireBlock = (block: Block.Block): AnthropicFormat.ContentBlock => {
  switch (block.type) {
    case "text":
    case "image":
      return content(block)
    case "reasoning":
      return block.signature
        ? { type: "thinking", thinking: block.text, signature: block.signature }
        : { type: "thinking", thinking: block.text }
    case "tool_call":
      return { type: "tool_use", id: block.id, name: block.name, input: block.input }
    case "tool_result":
      return block.is_error
        ? { type: "tool_result", tool_use_id: block.tool_call_id, content: block.blocks.map(content), is_error: true }
        : { type: "tool_result", tool_use_id: block.tool_call_id, content: block.blocks.map(content) }
  }
}

const left = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) assert.fail("expected a Left")
  return e.left
}

const unsupportedBlock = (i: number, j: number, block: Block.Block, reason: string) =>
  Either.left(
    new ConversionError.UnsupportedBlock({
      format: "anthropic",
      path: [i, "blocks", j],
      messageIndex: i,
      blockIndex: j,
      blockType: block.type,
      reason
    })
  )

/** The encoder as it was before the fast path: `Conversation.validate` first, then one error at a time. */
const referenceEncode = (
  conversation: Conversation.Conversation,
  options: AnthropicFormat.EncodeOptions = {}
): Either.Either<Wire, ConversionError.EncodeError> => {
  const placed = Conversation.validate(conversation)
  if (Either.isLeft(placed)) return Either.left(placed.left)
  const system: Array<string> = []
  const messages: Array<WireMessage> = []
  let leading = true
  for (const [i, message] of conversation.entries()) {
    if (message.role === "system") {
      const policy = leading ? "hoist" : options.laterSystem ?? "error"
      if (policy === "error") {
        return Either.left(
          new ConversionError.UnsupportedMessage({
            format: "anthropic",
            path: [i],
            messageIndex: i,
            role: "system",
            reason: "a system message after the first non-system turn cannot be hoisted into the system parameter; " +
              "move it to the start of the conversation, or set laterSystem to \"user\" or \"inline\""
          })
        )
      }
      if (policy === "user") {
        messages.push({ role: "user", content: message.blocks.map(content) })
        continue
      }
      const texts: Array<string> = []
      for (const [j, block] of message.blocks.entries()) {
        if (block.type !== "text") {
          return unsupportedBlock(
            i,
            j,
            block,
            policy === "hoist"
              ? "the system parameter holds text only"
              : "a mid-conversation system message holds text only"
          )
        }
        texts.push(block.text)
      }
      if (policy === "hoist") system.push(...texts)
      else messages.push({ role: "system", content: texts.map((text) => ({ type: "text", text })) })
    } else if (message.role === "user") {
      leading = false
      const blocks = [
        ...message.blocks.filter((b) => b.type === "tool_result"),
        ...message.blocks.filter((b) => b.type !== "tool_result")
      ]
      messages.push({ role: "user", content: blocks.map(wireBlock) })
    } else if (message.role === "assistant") {
      leading = false
      messages.push({ role: "assistant", content: message.blocks.map(wireBlock) })
    } else {
      return absurd(message)
    }
  }
  return Either.right({
    system: system.length === 0
      ? null
      : options.system === "blocks"
      ? system.map((text) => ({ type: "text" as const, text }))
      : system.join("\n\n"),
    messages
  })
}

// Any block in any role (placement unchecked), so that every error and its precedence is reached.
const anyConversation = FastCheck.array(
  FastCheck.record({
    role: FastCheck.constantFrom("system", "user", "assistant"),
    blocks: FastCheck.array(Arbitrary.make(Block.Block), { maxLength: 5 }),
    detail: FastCheck.constant(null)
  }),
  { maxLength: 6 }
).map((messages) => messages as unknown as Conversation.Conversation)

const optionSets: ReadonlyArray<AnthropicFormat.EncodeOptions> = [
  {},
  { system: "blocks" },
  { laterSystem: "user" },
  { laterSystem: "inline", system: "blocks" }
]

describe("AnthropicFormat.encode checks placement as it encodes", () => {
  for (const options of optionSets) {
    it.prop(
      `the same result as validating first, for any blocks in any role (${JSON.stringify(options)})`,
      [anyConversation],
      ([conversation]) => {
        assert.deepStrictEqual(AnthropicFormat.encode(conversation, options), referenceEncode(conversation, options))
      },
      { fastCheck: { numRuns: 300 } }
    )
  }

  const misplaced = (role: Message.Role, blocks: ReadonlyArray<Block.Block>) =>
    ({ role, blocks, detail: null }) as unknown as Message.Message
  const cases: ReadonlyArray<readonly [string, Conversation.Conversation, AnthropicFormat.EncodeOptions]> = [
    [
      "a misplaced block in a user message whose tool results move to the front",
      [misplaced("user", [
        Block.text("a"),
        Block.toolResult("tc_1", "r"),
        Block.reasoning("x"),
        Block.toolResult("tc_2", "r")
      ])],
      {}
    ],
    [
      "a misplaced block after an image in the leading system run",
      [misplaced("system", [Block.image("AA==", "image/png"), Block.toolCall("tc_1", "f")]), Message.user("Hi")],
      {}
    ],
    [
      "a misplaced block after a late system message",
      [Message.user("Hi"), Message.system("late"), misplaced("assistant", [Block.toolResult("tc_1", "r")])],
      {}
    ],
    [
      "a misplaced block in a late system message sent as a user turn",
      [Message.user("Hi"), misplaced("system", [Block.text("a"), Block.toolCall("tc_1", "f")])],
      { laterSystem: "user" }
    ],
    [
      "an image in an inline system message",
      [Message.user("Hi"), Message.system([Block.text("a"), Block.image("AA==", "image/png")])],
      { laterSystem: "inline" }
    ]
  ]
  for (const [name, conversation, options] of cases) {
    it(name, () => {
      const error = AnthropicFormat.encode(conversation, options)
      assert.isTrue(Either.isLeft(error))
      assert.deepStrictEqual(error, referenceEncode(conversation, options))
    })
  }
})

// -----------------------------------------------------------------------------
// decode
// -----------------------------------------------------------------------------

/** The fast path answers only successes, and then what the Schema decoder answers; `decode` is always the latter. */
const agree = (input: unknown): Either.Either<Conversation.Conversation, ConversionError.DecodeError> => {
  const slow = AnthropicFormat.decodeWithSchema(input)
  const fast = AnthropicDecode.decode(input)
  if (fast !== undefined) assert.deepStrictEqual(Either.right(fast), slow)
  assert.deepStrictEqual(AnthropicFormat.decode(input), slow)
  return slow
}

const wireOf = (conversation: Conversation.Conversation, options?: AnthropicFormat.EncodeOptions): unknown =>
  JSON.parse(JSON.stringify(Either.getOrThrow(AnthropicFormat.encode(conversation, options))))

const nested = (levels: number, leaf: unknown = {}): unknown => {
  let value = leaf
  for (let i = 0; i < levels; i++) value = { a: value }
  return value
}

const cyclic = (): unknown => {
  const value: { self?: unknown; list: Array<unknown> } = { list: [] }
  value.self = value
  value.list.push(value)
  return value
}

// A valid request body: every kind of block, each where it may be.
const sample = (): { system: unknown; messages: Array<{ role: string; content: unknown }> } => ({
  system: [{ type: "text", text: "Be terse." }],
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "Hi", citations: [] },
        { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } }
      ]
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "hm", signature: "sig" },
        { type: "text", text: "Looking." },
        { type: "tool_use", id: "tc_1", name: "f", input: { q: [1, -0, 2.5, "x", null, true, { r: {} }] } }
      ]
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "tc_1",
          content: [{ type: "text", text: "ok" }, {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: "AA==" }
          }],
          is_error: null
        },
        { type: "tool_result", tool_use_id: "tc_1", content: "ok", is_error: true },
        { type: "tool_result", tool_use_id: "tc_1" }
      ]
    },
    { role: "system", content: "late" }
  ]
})

// Every place of `sample()` that holds a record, as [path to it, the block/record kind].
const places: ReadonlyArray<ReadonlyArray<string | number>> = [
  ["system", 0],
  ["messages", 0],
  ["messages", 0, "content", 0],
  ["messages", 0, "content", 1],
  ["messages", 0, "content", 1, "source"],
  ["messages", 1, "content", 0],
  ["messages", 1, "content", 2],
  ["messages", 1, "content", 2, "input"],
  ["messages", 1, "content", 2, "input", "q", 6],
  ["messages", 2, "content", 0],
  ["messages", 2, "content", 0, "content", 0],
  ["messages", 2, "content", 0, "content", 1, "source"],
  ["messages", 2, "content", 2]
]

const at = (root: unknown, path: ReadonlyArray<string | number>): Record<string, unknown> =>
  path.reduce((value: any, key) => value[key], root)

describe("AnthropicFormat.decode: the plain walk and the Schema decoder agree", () => {
  it("generated transcripts take the fast path, with every option set", () => {
    for (const turns of [1, 2, 10, 100]) {
      const conversation = Generate.conversation(turns, { reasoning: true })
      for (const options of optionSets) {
        const wire = wireOf(conversation, options)
        assert.isDefined(AnthropicDecode.decode(wire))
        assert.isTrue(Either.isRight(agree(wire)))
        const messages = (wire as { messages: unknown }).messages
        assert.isDefined(AnthropicDecode.decode(messages))
        assert.isTrue(Either.isRight(agree(messages)))
      }
    }
    assert.isDefined(AnthropicDecode.decode(sample()))
    agree(sample())
  })

  it("a wrong value, a missing key, an undefined key or an extra key at every place", () => {
    const values: ReadonlyArray<unknown> = [
      undefined,
      null,
      0,
      NaN,
      Infinity,
      -0,
      "text",
      "",
      true,
      [],
      [undefined],
      {},
      Object.create(null),
      new Date(0),
      () => 1,
      Symbol("s"),
      10n,
      nested(600),
      nested(3),
      cyclic(),
      [{ type: "text", text: "x" }]
    ]
    let cases = 0
    for (const place of places) {
      const keys = [...Object.keys(at(sample(), place)), "extra", "cache_control", "citations", "signature"]
      for (const key of keys) {
        for (const value of values) {
          // (the Schema decoder throws on a `type` it cannot make a string of: not the walk's to fix)
          if (key === "type" && typeof value === "object" && value !== null && !("toString" in value)) continue
          const input = sample()
          at(input, place)[key] = value
          agree(input)
          cases++
        }
        const input = sample()
        delete at(input, place)[key]
        agree(input)
      }
    }
    assert.isAbove(cases, 1000)
  })

  it("the depth limit, to the level, in every place the walk reads or skips, and cycles", () => {
    // the deepest level `wireInput.tooDeep` lets through is 512
    for (const place of places) {
      for (const key of ["extra", "input"]) {
        for (const levels of [490, 500, 505, 506, 507, 508, 509, 510, 511, 512]) {
          for (const bare of [false, true]) {
            const body = sample()
            at(body, place)[key] = nested(levels)
            const input = bare ? body.messages : body
            if (bare && place[0] === "system") continue
            agree(input)
          }
        }
        const body = sample()
        at(body, place)[key] = cyclic()
        agree(body)
      }
    }
    // right at the limit: a tool input whose deepest object is at level 512 decodes, fast; 513 does not
    const deepest = (levels: number) => {
      const body = sample()
      at(body, ["messages", 1, "content", 2])["input"] = nested(levels)
      return body
    }
    // the input is at level 5 (body 0, messages 1, message 2, content 3, block 4)
    assert.isDefined(AnthropicDecode.decode(deepest(507)))
    assert.isTrue(Either.isRight(agree(deepest(507))))
    assert.isUndefined(AnthropicDecode.decode(deepest(508)))
    assert.strictEqual(left(agree(deepest(508)))._tag, "MalformedInput")
    const extra = (levels: number) => {
      const body = sample()
      at(body, ["messages", 0, "content", 0])["cache_control"] = nested(levels)
      return body
    }
    assert.isDefined(AnthropicDecode.decode(extra(507)))
    assert.strictEqual(left(agree(extra(508)))._tag, "MalformedInput")
    // 100,000 levels, in what is read and in what is skipped
    for (const key of ["input", "extra"]) {
      const body = sample()
      at(body, ["messages", 1, "content", 2])[key] = nested(100_000)
      assert.strictEqual(left(agree(body))._tag, "MalformedInput")
    }
  })

  it("keys the Schema reads only as own keys: inherited, non-enumerable, null prototypes", () => {
    const inherit = (proto: object, own: object) => Object.assign(Object.create(proto), own)
    const withBlock = (block: unknown) => ({ messages: [{ role: "assistant", content: [block] }] })
    const cases: ReadonlyArray<unknown> = [
      withBlock(inherit({ type: "text" }, { text: "x" })),
      withBlock(inherit({ text: "x" }, { type: "text" })),
      withBlock(inherit({ signature: "inherited" }, { type: "thinking", thinking: "t" })),
      withBlock(inherit({ citations: [1] }, { type: "text", text: "x" })),
      withBlock(inherit({ citations: undefined }, { type: "text", text: "x" })),
      withBlock(Object.defineProperty({ type: "thinking", thinking: "t" }, "signature", { value: undefined })),
      withBlock(Object.defineProperty({ type: "thinking", thinking: "t" }, "signature", { value: "hidden" })),
      withBlock(Object.defineProperty({ text: "x" }, "type", { value: "text" })),
      withBlock(Object.assign(Object.create(null), { type: "text", text: "x" })),
      withBlock({
        type: "tool_use",
        id: "a",
        name: "b",
        input: Object.assign(Object.create(null), { k: Object.assign(Object.create(null), { v: 1 }) })
      }),
      withBlock({ type: "tool_use", id: "a", name: "b", input: JSON.parse("{\"__proto__\": {\"x\": 1}, \"y\": 2}") }),
      withBlock({ type: "tool_use", id: "a", name: "b", input: inherit({ inherited: 1 }, { own: 2 }) }),
      withBlock({
        type: "tool_use",
        id: "a",
        name: "b",
        input: { d: new Date(0), n: new Number(1), s: new String("ab") }
      }),
      withBlock({ type: "tool_use", id: "a", name: "b", input: { sparse: [1, , 3] } }),
      withBlock({ type: "tool_use", id: "a", name: "b", input: [] }),
      withBlock({ type: "tool_use", id: "a", name: "b" }),
      { messages: [inherit({ role: "user", content: "hi" }, {})] },
      inherit({ system: "inherited" }, { messages: [] }),
      inherit({ messages: [] }, {}),
      { system: undefined, messages: [] },
      Object.assign(Object.create(null), { system: "s", messages: [{ role: "user", content: "hi" }] }),
      {
        system: [{ type: "text", text: "a", citations: null }, { type: "text", text: "b", citations: [] }],
        messages: []
      },
      { system: [{ type: "text", text: "a", citations: [{}] }], messages: [] },
      { system: [], messages: [] },
      { system: [inherit({ type: "text" }, { text: "a" })], messages: [] },
      { messages: [{ role: "user", content: [{ type: "text", text: "x" }, , { type: "text", text: "y" }] }] },
      [],
      {},
      null,
      "messages"
    ]
    for (const input of cases) agree(input)
  })

  it.prop(
    "any value of the Request schema, and any transcript, gives the same answer",
    [FastCheck.oneof(
      Arbitrary.make(AnthropicFormat.Request),
      Arbitrary.make(Schema.Array(AnthropicFormat.InputMessage))
    )],
    ([input]) => {
      agree(input)
      agree(JSON.parse(JSON.stringify(input)))
    },
    { fastCheck: { numRuns: 300 } }
  )

  it.prop(
    "any value and any JSON give the same answer",
    [FastCheck.oneof(FastCheck.anything(), FastCheck.jsonValue())],
    ([input]) => {
      agree(input)
      agree({ messages: input })
      agree({ messages: [{ role: "assistant", content: [{ type: "tool_use", id: "a", name: "b", input }] }] })
    },
    { fastCheck: { numRuns: 300 } }
  )
})
