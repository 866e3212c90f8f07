import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import type { Conversation } from "openreward-effect"
import { AnthropicFormat, Block, Message } from "openreward-effect"

const conversation = [
  Message.user("Why is the sky blue?"),
  Message.assistant([
    Block.reasoning("Rayleigh scattering."),
    Block.reasoning("Signed.", { signature: "sig_1" }),
    Block.text("Scattering.")
  ])
]

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) assert.fail(`expected Right, got ${String(either.left)}`)
  return either.right
}

describe("AnthropicFormat unsignedReasoning", () => {
  it("sends an unsigned thinking block by default, as the reference does", () => {
    const { messages } = right(AnthropicFormat.encode(conversation))
    assert.deepStrictEqual(messages[1]!.content, [
      { type: "thinking", thinking: "Rayleigh scattering." },
      { type: "thinking", thinking: "Signed.", signature: "sig_1" },
      { type: "text", text: "Scattering." }
    ])
    assert.deepStrictEqual(
      right(AnthropicFormat.encode(conversation, { unsignedReasoning: "send" })),
      right(AnthropicFormat.encode(conversation))
    )
  })

  it("sends it as text, omits it, or fails, on request; signed thinking is kept", () => {
    assert.deepStrictEqual(right(AnthropicFormat.encode(conversation, { unsignedReasoning: "text" })).messages[1], {
      role: "assistant",
      content: [
        { type: "text", text: "Rayleigh scattering." },
        { type: "thinking", thinking: "Signed.", signature: "sig_1" },
        { type: "text", text: "Scattering." }
      ]
    })
    assert.deepStrictEqual(right(AnthropicFormat.encode(conversation, { unsignedReasoning: "omit" })).messages[1], {
      role: "assistant",
      content: [{ type: "thinking", thinking: "Signed.", signature: "sig_1" }, { type: "text", text: "Scattering." }]
    })
    const failed = AnthropicFormat.encode(conversation, { unsignedReasoning: "fail" })
    assert.isTrue(Either.isLeft(failed))
    if (Either.isLeft(failed)) {
      assert.strictEqual(failed.left._tag, "UnsupportedBlock")
      assert.deepStrictEqual(failed.left.path, [1, "blocks", 0])
      assert.include(failed.left.message, "unsignedReasoning")
    }
  })

  it("an empty signature is no signature", () => {
    const c = [Message.assistant([Block.reasoning("x", { signature: "" })])]
    assert.deepStrictEqual(right(AnthropicFormat.encode(c, { unsignedReasoning: "omit" })).messages[0]!.content, [])
  })

  it("a misplaced block is still reported first", () => {
    const bad = [
      Message.assistant([Block.reasoning("x")]),
      { role: "user", blocks: [Block.toolCall("t", "f")], detail: null }
    ] as unknown as Conversation.Conversation
    const failed = AnthropicFormat.encode(bad, { unsignedReasoning: "fail" })
    assert.isTrue(Either.isLeft(failed) && failed.left._tag === "MisplacedBlock")
  })
})
