import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Block, Message, Prompt } from "openreward-effect"

const wire = (prompt: Prompt.Prompt) => JSON.stringify(Schema.encodeSync(Prompt.Prompt)(prompt))

describe("Prompt.flatten", () => {
  it("returns exactly one plain user message's blocks verbatim", () => {
    const blocks = [Block.text("hi", { detail: { k: 1 } }), Block.image("AA==", "image/png")]
    assert.strictEqual(Prompt.flatten([Message.user(blocks)]), blocks)
    assert.isTrue(Prompt.isPlain([Message.user(blocks)]))
  })

  it("tags every message with a [role] header otherwise", () => {
    const prompt = Prompt.flatten([
      Message.system("You are a support agent for Acme."),
      Message.user("My order hasn't arrived."),
      Message.assistant("Sorry to hear that — what's the order number?"),
      Message.user("It's #4411, ordered two weeks ago.")
    ])
    assert.strictEqual(
      wire(prompt),
      "[{\"text\":\"[system]\",\"detail\":{\"role\":\"system\"},\"type\":\"text\"},{\"text\":\"You are a support agent for Acme.\",\"detail\":null,\"type\":\"text\"},{\"text\":\"[user]\",\"detail\":{\"role\":\"user\"},\"type\":\"text\"},{\"text\":\"My order hasn't arrived.\",\"detail\":null,\"type\":\"text\"},{\"text\":\"[assistant]\",\"detail\":{\"role\":\"assistant\"},\"type\":\"text\"},{\"text\":\"Sorry to hear that — what's the order number?\",\"detail\":null,\"type\":\"text\"},{\"text\":\"[user]\",\"detail\":{\"role\":\"user\"},\"type\":\"text\"},{\"text\":\"It's #4411, ordered two weeks ago.\",\"detail\":null,\"type\":\"text\"}]"
    )
  })

  it("renders reasoning, tool calls (Python json.dumps) and tool results, images in place", () => {
    const prompt = Prompt.flatten([
      Message.assistant([Block.reasoning("think"), Block.toolCall("tc_1", "lookup", { id: "44é", n: [1, 0.5] })]),
      Message.user([
        Block.toolResult("tc_1", [Block.text("ok"), Block.image("AA==", "image/png")]),
        Block.toolResult("tc_2", "boom", { isError: true })
      ])
    ])
    assert.deepStrictEqual(prompt.map((b) => b.type === "text" ? [b.text, b.detail] : [b.type, b.detail]), [
      ["[assistant]", { role: "assistant" }],
      ["<think>think</think>", { type: "reasoning" }],
      ["[tool_call lookup] {\"id\": \"44\\u00e9\", \"n\": [1, 0.5]}", { type: "tool_call", id: "tc_1" }],
      ["[user]", { role: "user" }],
      ["[tool_result]", { type: "tool_result", tool_call_id: "tc_1" }],
      ["ok", null],
      ["image", null],
      ["[tool_result (error)]", { type: "tool_result", tool_call_id: "tc_2" }],
      ["boom", null]
    ])
  })

  it("does not treat a single user message with a tool result, or a single system message, as plain", () => {
    assert.isFalse(Prompt.isPlain([Message.user([Block.toolResult("a", "x")])]))
    assert.isFalse(Prompt.isPlain([Message.system("x")]))
    assert.isFalse(Prompt.isPlain([]))
    assert.deepStrictEqual(Prompt.flatten([]), [])
    assert.strictEqual(Prompt.flatten([Message.system("x")]).length, 2)
  })
})

describe("Prompt.toConversation", () => {
  it("wraps a prompt as one user message, and flattening it gives the prompt back", () => {
    const prompt = [Block.text("a"), Block.image("AA==", "image/jpeg")]
    const conversation = Prompt.toConversation(prompt)
    assert.deepStrictEqual(conversation, [Message.user(prompt)])
    assert.deepStrictEqual(Prompt.flatten(conversation), prompt)
  })

  it.prop("flatten(toConversation(p)) = p", [Prompt.Prompt], ([prompt]) => {
    assert.deepStrictEqual(Prompt.flatten(Prompt.toConversation(prompt)), prompt)
  })
})

describe("Prompt.decode", () => {
  it("strictly accepts text and image blocks only", () => {
    assert.deepStrictEqual(Either.getOrThrow(Prompt.decode([{ type: "text", text: "a" }])), [Block.text("a")])
    const error = Prompt.decode([{ type: "text", text: "a" }, { type: "reasoning", text: "b" }])
    assert.isTrue(Either.isLeft(error))
  })

  it("leniently skips other block types and reports them", () => {
    const result = Either.getOrThrow(
      Prompt.decodeLenient([{ type: "reasoning", text: "b" }, { type: "text", text: "a", extra: 1 }])
    )
    assert.deepStrictEqual(result.prompt, [Block.text("a")])
    assert.deepStrictEqual(result.skipped, [{ index: 0, blockType: "reasoning" }])
  })

  it("an entry that is not a block object with a string type is malformed, not skipped", () => {
    const path = (input: unknown) =>
      Either.match(Prompt.decodeLenient(input), { onLeft: (e) => e.path, onRight: () => "ok" })
    assert.deepStrictEqual(path([{ type: "text", text: "a" }, 1]), [1])
    assert.deepStrictEqual(path([null]), [0])
    assert.deepStrictEqual(path([[{ type: "text", text: "a" }]]), [0])
    assert.deepStrictEqual(path([{ text: "a" }]), [0, "type"])
    assert.deepStrictEqual(path([{ type: 3 }]), [0, "type"])
  })
})
