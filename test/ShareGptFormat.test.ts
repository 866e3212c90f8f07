import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { Block, Codec, Conversation, type ConversionError, Dataset, Format, Message } from "openreward-effect"
import * as ShareGptFormat from "openreward-effect/ShareGptFormat"
import * as ProviderContent from "../src/internal/providerContent.js"
import { codecLaws, typedItems, withProviderBlocks } from "./utils/codecLaws.js"
import { guardLaws } from "./utils/guardLaws.js"

type Options = ShareGptFormat.EncodeOptions

const right = <A, E>(result: Either.Either<A, E>): A => {
  if (Either.isLeft(result)) return assert.fail(`expected a Right, got ${String(result.left)}`)
  return result.right
}

const left = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) return assert.fail(`expected a Left, got ${JSON.stringify(result.right)}`)
  return result.left
}

/** A message's texts, with the text of its provider blocks under `providerContent: "text"`. */
const textsOf = (blocks: ReadonlyArray<Block.Block>, options?: Options): Array<string> =>
  blocks.flatMap((b) =>
    b.type === "text"
      ? [b.text]
      : b.type === "provider" && options?.providerContent === "text"
      ? [ProviderContent.render(b).text]
      : []
  )

type SimTurn =
  | { readonly kind: "system" | "human" | "gpt" | "observation"; readonly value: string }
  | {
    readonly kind: "function_call"
    readonly calls: ReadonlyArray<{ name: string; input: Block.ToolCallBlock["input"] }>
  }

/**
 * `decode(encode(c))` as docs/formats/sharegpt.md says it comes back, written from the page, not
 * from the encoder: texts joined with "\n" in one block (an empty message: one empty text), results
 * before the user's text, `detail` and `is_error` gone, reasoning gone (`reasoning: "omit"`),
 * ids `call_<turn>_<k>`, an assistant turn with calls only joined to the assistant turn before it.
 */
function normalize(conversation: Conversation.Conversation, options?: Options): Conversation.Conversation {
  const turns: Array<SimTurn> = []
  let system: string | undefined
  conversation.forEach((message, i) => {
    const blocks = message.blocks as ReadonlyArray<Block.Block>
    const texts = textsOf(blocks, options)
    switch (message.role) {
      case "system":
        if (i === 0 && options?.systemPrompt !== "turn") system = texts.join("\n")
        else turns.push({ kind: "system", value: texts.join("\n") })
        break
      case "user": {
        const results = blocks.filter((b): b is Block.ToolResultBlock => b.type === "tool_result")
        for (const r of results) turns.push({ kind: "observation", value: textsOf(r.blocks).join("\n") })
        if (texts.length > 0 || results.length === 0) turns.push({ kind: "human", value: texts.join("\n") })
        break
      }
      case "assistant": {
        const calls = blocks.filter((b): b is Block.ToolCallBlock => b.type === "tool_call")
        if (texts.length > 0 || calls.length === 0) turns.push({ kind: "gpt", value: texts.join("\n") })
        if (calls.length > 0) {
          turns.push({ kind: "function_call", calls: calls.map((c) => ({ name: c.name, input: c.input })) })
        }
        break
      }
    }
  })
  const out: Array<Message.Message> = system === undefined ? [] : [Message.system(system)]
  let results: Array<Block.ToolResultBlock> = []
  let assistant: Array<Message.AssistantBlock> | undefined
  const pending: Array<string> = []
  const close = () => {
    if (assistant !== undefined) out.push(Message.assistant(assistant))
    assistant = undefined
  }
  const flush = () => {
    if (results.length > 0) out.push(Message.user(results))
    results = []
  }
  turns.forEach((turn, t) => {
    switch (turn.kind) {
      case "system":
        close()
        flush()
        out.push(Message.system(turn.value))
        break
      case "human":
        close()
        out.push(Message.user([...results, Block.text(turn.value)]))
        results = []
        break
      case "observation":
        close()
        results.push(Block.toolResult(pending.shift()!, turn.value))
        break
      case "gpt":
        close()
        flush()
        assistant = [Block.text(turn.value)]
        break
      case "function_call":
        flush()
        assistant ??= []
        turn.calls.forEach((call, k) => {
          assistant!.push(Block.toolCall(`call_${t}_${k}`, call.name, call.input))
          pending.push(`call_${t}_${k}`)
        })
    }
  })
  close()
  flush()
  return out
}

/** Any canonical conversation, its tool results made to answer the calls in the order they were made. */
const paired = Arbitrary.make(Conversation.Conversation).map((conversation): Conversation.Conversation => {
  const pending: Array<string> = []
  return conversation.map((m): Message.Message => {
    switch (m.role) {
      case "assistant":
        for (const b of m.blocks) if (b.type === "tool_call") pending.push(b.id)
        return m
      case "user":
        return {
          ...m,
          blocks: m.blocks.flatMap((b): ReadonlyArray<Message.UserBlock> =>
            b.type !== "tool_result" ? [b] : pending.length === 0 ? [] : [{ ...b, tool_call_id: pending.shift()! }]
          )
        }
      default:
        return m
    }
  })
})

codecLaws("ShareGptFormat", ShareGptFormat, {
  normalize,
  options: [undefined, { systemPrompt: "turn", reasoning: "omit" }],
  conversations: paired,
  isWire: Schema.is(ShareGptFormat.Wire)
})

codecLaws("ShareGptFormat (any conversation)", ShareGptFormat, {
  normalize,
  options: [{ reasoning: "omit" }],
  isWire: Schema.is(ShareGptFormat.Wire)
})

// provider blocks (another provider's: no provider writes ShareGPT) under each providerContent policy
codecLaws("ShareGptFormat (provider blocks)", ShareGptFormat, {
  normalize,
  options: [undefined, { providerContent: "omit" }, { providerContent: "text", reasoning: "omit" }],
  conversations: withProviderBlocks(
    "anthropic",
    typedItems(FastCheck.constantFrom("server_tool_use", "web_search_tool_result")),
    (item) => String(item["type"]),
    paired
  ),
  isWire: Schema.is(ShareGptFormat.Wire)
})

// -----------------------------------------------------------------------------
// examples
// -----------------------------------------------------------------------------

describe("ShareGptFormat.decode", () => {
  it("reads every role name, the record's system, and LLaMA-Factory's tool turns", () => {
    const record = {
      system: "Be brief.",
      tools: "[{\"name\": \"weather\", \"parameters\": {\"type\": \"object\"}}]",
      conversations: [
        { from: "user", value: "Weather in Oslo?" },
        { from: "function_call", value: "{\"name\": \"weather\", \"arguments\": {\"city\": \"Oslo\"}}" },
        { from: "observation", value: "-3C" },
        { from: "chatgpt", value: "Cold: -3C." },
        { from: "human", value: "And Rome, Paris?" },
        { from: "model", value: "Checking." },
        {
          from: "function_call",
          value: "[{\"name\": \"weather\", \"arguments\": \"{\\\"city\\\": \\\"Rome\\\"}\"}, {\"name\": \"weather\"}]"
        },
        { from: "observation", value: "12C" },
        { from: "observation", value: "8C" },
        { from: "system", value: "Now be verbose." },
        { from: "bard", value: "Rome 12C, Paris 8C." }
      ]
    }
    assert.deepStrictEqual(right(ShareGptFormat.decode(record)), [
      Message.system("Be brief."),
      Message.user("Weather in Oslo?"),
      Message.assistant([Block.toolCall("call_1_0", "weather", { city: "Oslo" })]),
      Message.user([Block.toolResult("call_1_0", "-3C")]),
      Message.assistant("Cold: -3C."),
      Message.user("And Rome, Paris?"),
      Message.assistant([
        Block.text("Checking."),
        Block.toolCall("call_6_0", "weather", { city: "Rome" }),
        Block.toolCall("call_6_1", "weather", {})
      ]),
      Message.user([Block.toolResult("call_6_0", "12C"), Block.toolResult("call_6_1", "8C")]),
      Message.system("Now be verbose."),
      Message.assistant("Rome 12C, Paris 8C.")
    ])
  })

  it("reads a bare list of turns, and reports every key it leaves out", () => {
    const losses: Array<ConversionError.Lost> = []
    const input = { id: "a1", tools: "[]", conversations: [{ from: "human", value: "hi", markdown: "hi" }] }
    assert.deepStrictEqual(right(ShareGptFormat.decode(input, { onLoss: (l) => losses.push(l) })), [Message.user("hi")])
    assert.deepStrictEqual(losses.map((l) => [l.field, l.path]), [
      ["id", ["id"]],
      ["tools", ["tools"]],
      ["markdown", ["conversations", 0, "markdown"]]
    ])
    assert.deepStrictEqual(right(ShareGptFormat.decode([{ from: "gpt", value: "x" }])), [Message.assistant("x")])
    const reported = right(Codec.decodeReport(ShareGptFormat.codec, input))
    assert.strictEqual(reported.losses.length, 3)
  })

  it("refuses what it cannot hold, with a typed error at a path in the input", () => {
    const unknownRole = left(ShareGptFormat.decode({ conversations: [{ from: "robot", value: "x" }] }))
    assert.strictEqual(unknownRole._tag, "MalformedInput")
    assert.deepStrictEqual(unknownRole.path, ["conversations", 0, "from"])
    const badCall = left(ShareGptFormat.decode([{ from: "function_call", value: "weather(Oslo)" }]))
    assert.strictEqual(badCall._tag, "MalformedInput")
    assert.deepStrictEqual(badCall.path, [0, "value"])
    const noName = left(ShareGptFormat.decode([{ from: "function_call", value: "{\"arguments\": {}}" }]))
    assert.strictEqual(noName._tag, "MalformedInput")
    const args = left(
      ShareGptFormat.decode([{ from: "function_call", value: "{\"name\": \"f\", \"arguments\": \"{oops\"}" }])
    )
    assert.strictEqual(args._tag, "InvalidToolArguments")
    const kept = right(
      ShareGptFormat.decode([{ from: "function_call", value: "{\"name\": \"f\", \"arguments\": \"{oops\"}" }], {
        invalidToolArguments: "keep"
      })
    )
    assert.deepStrictEqual(Block.invalidArguments(kept[0]!.blocks[0] as Block.ToolCallBlock)?.raw, "{oops")
    const orphan = left(ShareGptFormat.decode([{ from: "human", value: "x" }, { from: "observation", value: "r" }]))
    assert.strictEqual(orphan._tag, "UnmatchedToolResult")
    assert.deepStrictEqual(orphan.path, [1])
    const media = left(
      ShareGptFormat.decode({ images: ["a.png"], conversations: [{ from: "human", value: "<image>What is this?" }] })
    )
    assert.strictEqual(media._tag, "UnsupportedContent")
    assert.deepStrictEqual(media.path, ["images"])
    const preference = left(ShareGptFormat.decode({ conversations: [], chosen: {}, rejected: {} }))
    assert.strictEqual(preference._tag, "MalformedInput")
    const other = left(ShareGptFormat.decode({ messages: [] }))
    assert.strictEqual(other._tag, "MalformedInput")
    assert.match(other.message, /openai/)
    assert.strictEqual(left(ShareGptFormat.decode(5))._tag, "MalformedInput")
  })

  it("another format's decoder names sharegpt for a ShareGPT record", () => {
    const error = left(Format.decode("openai", { conversations: [] }))
    assert.match(error.message, /sharegpt/)
  })
})

describe("ShareGptFormat.encode", () => {
  it("writes LLaMA-Factory's record: system beside the turns, tool calls and observations", () => {
    const conversation = [
      Message.system("Be brief."),
      Message.user("Rome and Paris?"),
      Message.assistant([
        Block.text("Checking."),
        Block.toolCall("a", "weather", { city: "Rome" }),
        Block.toolCall("b", "weather", { city: "Paris" })
      ]),
      Message.user([Block.toolResult("a", "12C"), Block.toolResult("b", ["8C", "rain"].map((t) => Block.text(t)))])
    ]
    assert.strictEqual(
      JSON.stringify(right(ShareGptFormat.encode(conversation))),
      JSON.stringify({
        system: "Be brief.",
        conversations: [
          { from: "human", value: "Rome and Paris?" },
          { from: "gpt", value: "Checking." },
          {
            from: "function_call",
            value:
              "[{\"name\":\"weather\",\"arguments\":{\"city\":\"Rome\"}},{\"name\":\"weather\",\"arguments\":{\"city\":\"Paris\"}}]"
          },
          { from: "observation", value: "12C" },
          { from: "observation", value: "8C\nrain" }
        ]
      })
    )
    assert.deepStrictEqual(right(ShareGptFormat.encode([Message.system("s")], { systemPrompt: "turn" })), {
      conversations: [{ from: "system", value: "s" }]
    })
  })

  it("refuses images, reasoning (unless omitted) and results out of call order", () => {
    const image = left(ShareGptFormat.encode([Message.user([Block.image("aGk=", "image/png")])]))
    assert.strictEqual(image._tag, "UnsupportedBlock")
    assert.deepStrictEqual(image.path, [0, "blocks", 0])
    const reasoning = [Message.assistant([Block.reasoning("hmm"), Block.text("ok")])]
    const refused = left(ShareGptFormat.encode(reasoning))
    assert.strictEqual(refused._tag, "UnsupportedBlock")
    assert.match(refused.message, /reasoning: "omit"/)
    const losses: Array<ConversionError.Lost> = []
    assert.deepStrictEqual(
      right(ShareGptFormat.encode(reasoning, { reasoning: "omit", onLoss: (l) => losses.push(l) })),
      {
        conversations: [{ from: "gpt", value: "ok" }]
      }
    )
    assert.deepStrictEqual(losses.map((l) => l.field), ["reasoning"])
    const swapped = left(ShareGptFormat.encode([
      Message.assistant([Block.toolCall("a", "f", {}), Block.toolCall("b", "f", {})]),
      Message.user([Block.toolResult("b", "2"), Block.toolResult("a", "1")])
    ]))
    assert.strictEqual(swapped._tag, "UnmatchedToolResult")
    assert.deepStrictEqual(swapped.path, [1, "blocks", 0])
  })

  it("reports the tool-call ids and error flags it leaves out", () => {
    const losses: Array<ConversionError.Lost> = []
    right(ShareGptFormat.encode([
      Message.assistant([Block.toolCall("a", "f", {})]),
      Message.user([Block.toolResult("a", "boom", { isError: true })])
    ], { onLoss: (l) => losses.push(l) }))
    assert.deepStrictEqual(losses.map((l) => [l.field, l.path]), [
      ["is_error", [1, "blocks", 0, "is_error"]],
      ["id", [0, "blocks", 0, "id"]],
      ["tool_call_id", [1, "blocks", 0, "tool_call_id"]]
    ])
  })

  it("is in the Format registry, loaded on demand, and converts both ways", async () => {
    assert.strictEqual(Format.codecs.sharegpt, ShareGptFormat.codec)
    assert.strictEqual(await Format.load("sharegpt"), ShareGptFormat.codec)
    assert.include(Format.sources, "sharegpt")
    assert.include(Format.targets, "sharegpt")
    const openai = right(
      Format.convert({ conversations: [{ from: "human", value: "hi" }] }, { from: "sharegpt", to: "openai" })
    )
    assert.deepStrictEqual(openai, [{ role: "user", content: "hi" }])
    assert.deepStrictEqual(right(Format.convert(openai, { from: "openai", to: "sharegpt" })), {
      conversations: [{ from: "human", value: "hi" }]
    })
  })
})

describe("ShareGptFormat.decode: one declaration, read by the guard and the Schema", () => {
  guardLaws("Record", ShareGptFormat.InputRecord, { onExcessProperty: "ignore" })
  guardLaws("turns", Schema.Array(ShareGptFormat.InputTurn), { onExcessProperty: "ignore" })

  it("never throws on hostile function_call values: deep nesting, huge numbers, not objects", () => {
    const deep = "{\"name\": \"f\", \"arguments\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}"
    const deepString = "{\"name\": \"f\", \"arguments\": " + JSON.stringify("[".repeat(100_000) + "]".repeat(100_000)) +
      "}"
    for (
      const value of [deep, deepString, "{\"name\": \"f\", \"arguments\": {\"n\": 1e400}}", "null", "[1]", "\"f\""]
    ) {
      const result = ShareGptFormat.decode([{ from: "function_call", value }])
      if (Either.isLeft(result)) assert.include(ShareGptFormat.decodeErrors, result.left._tag)
      else assert.isTrue(Either.isRight(Conversation.validate(result.right)))
    }
    const huge = left(
      ShareGptFormat.decode([{ from: "function_call", value: "{\"name\": \"f\", \"arguments\": {\"n\": 1e400}}" }])
    )
    assert.strictEqual(huge._tag, "InvalidToolArguments")
    if (huge._tag === "InvalidToolArguments") assert.strictEqual(huge.reason, "a number is too large to represent")
  })
})

describe("ShareGptFormat.encode: provider blocks", () => {
  const hosted = Block.provider("anthropic", "server_tool_use", {
    type: "server_tool_use",
    id: "s1",
    name: "web_search"
  })
  const conversation = [Message.user("Search."), Message.assistant([hosted, Block.text("Found it.")])]

  it("follows providerContent as every format does: an error, left out (reported), or its text", () => {
    const refused = left(ShareGptFormat.encode(conversation))
    assert.strictEqual(refused._tag, "UnsupportedBlock")
    assert.deepStrictEqual(refused.path, [1, "blocks", 0])
    const losses: Array<ConversionError.Lost> = []
    assert.deepStrictEqual(
      right(ShareGptFormat.encode(conversation, { providerContent: "omit", onLoss: (l) => losses.push(l) })),
      { conversations: [{ from: "human", value: "Search." }, { from: "gpt", value: "Found it." }] }
    )
    assert.deepStrictEqual(losses.map((l) => [l.field, l.path]), [["provider", [1, "blocks", 0]]])
    const text = right(ShareGptFormat.encode(conversation, { providerContent: "text" }))
    assert.strictEqual(
      text.conversations[1]!.value,
      `${ProviderContent.render(hosted).text}\nFound it.`
    )
  })
})

describe("ShareGPT records as a dataset (Dataset.convertRecord)", () => {
  const record = (tools: unknown) => ({ id: "r", tools, conversations: [{ from: "human", value: "hi" }] })

  it("reads LLaMA-Factory's tools: JSON text or a list, flat or OpenAI's nested function tools", () => {
    const flat = { name: "f", description: "does f", parameters: { type: "object" } }
    const expected = [{ name: "f", description: "does f", input_schema: { type: "object" } }]
    for (const tools of [JSON.stringify([flat]), [flat], JSON.stringify([{ type: "function", function: flat }])]) {
      const out = right(Dataset.convertRecord(record(tools), { record: "sharegpt", to: "canonical" }))
      assert.deepStrictEqual((out.value as { tools: unknown }).tools, expected, JSON.stringify(tools))
    }
    // an empty list, as LLaMA-Factory writes for a line without tools, converts to an empty list
    const none = right(Dataset.convertRecord(record("[]"), { record: "sharegpt", to: "openai" }))
    assert.deepStrictEqual((none.value as { tools: unknown }).tools, [])
  })

  it("refuses tools that are not JSON, at a path that exists in the record", () => {
    const error = left(Dataset.convertRecord(record("[{name: f}]"), { record: "sharegpt", to: "openai" }))
    assert.strictEqual(error._tag, "MalformedInput")
    assert.deepStrictEqual(error.path, ["tools"])
    const unnamed = left(
      Dataset.convertRecord(record("[{\"description\": \"x\"}]"), { record: "sharegpt", to: "openai" })
    )
    assert.deepStrictEqual(unnamed.path, ["tools"])
  })

  it("writes a tool choice nowhere: an error, or left out and reported", () => {
    const sft = { messages: [{ role: "user", content: "hi" }], tools: [], tool_choice: "required" }
    const error = left(Dataset.convertRecord(sft, { record: "openai-sft", to: "sharegpt" }))
    assert.strictEqual(error._tag, "UnsupportedParameter")
    const reported = right(Dataset.convertRecord(sft, { record: "openai-sft", to: "sharegpt", unsupported: "report" }))
    assert.deepStrictEqual(reported.value, { conversations: [{ from: "human", value: "hi" }] })
    assert.strictEqual(reported.losses.length, 1)
  })
})
