/**
 * The Chat Completions encoders (`openai`, `openrouter`) take a shortcut for speed
 * (docs/performance.md): encode checks block placement only once encoding has failed. These tests
 * hold it to what the straightforward way gives, errors included. (Decoding has no second
 * implementation: its guard is compiled from the wire schema, test/OpenAiFormat.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { Block, Conversation, ConversionError, Message } from "openreward-effect"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import * as OpenRouterFormat from "openreward-effect/OpenRouterFormat"

const encodeError = Schema.encodeSync(ConversionError.ConversionError)

const assertSameError = (actual: ConversionError.ConversionError, expected: ConversionError.ConversionError) => {
  assert.deepStrictEqual(encodeError(actual), encodeError(expected))
  assert.strictEqual(actual.message, expected.message)
}

// Any block in any role: misplaced blocks, images in tool results and valid messages mixed.
const anyPlacement = fc.array(
  fc.record({
    role: fc.constantFrom("system", "user", "assistant"),
    blocks: fc.array(Arbitrary.make(Block.Block), { maxLength: 4 }),
    detail: fc.constant(null)
  }),
  { maxLength: 5 }
).map((messages) => messages as unknown as Conversation.Conversation)

const encodeOptions = fc.record({
  reasoningField: fc.constantFrom("reasoning_content" as const, "reasoning" as const, "omit" as const),
  reasoningOnToolCalls: fc.boolean(),
  toolResultImages: fc.constantFrom("error" as const, "user-message" as const, "tool-message" as const),
  toolArguments: fc.constantFrom("python" as const, "json" as const)
}, { requiredKeys: [] })

describe("Chat Completions encode: placement checked only when encoding fails", () => {
  it.prop(
    "reports what checking placement first reports, whatever else fails",
    [anyPlacement, encodeOptions, fc.boolean()],
    ([conversation, options, openRouter]) => {
      const result = openRouter
        ? OpenRouterFormat.encode(conversation, options)
        : OpenAiFormat.encode(conversation, {
          ...options,
          toolResultImages: options.toolResultImages === "tool-message" ? "error" : options.toolResultImages
        })
      const placed = Conversation.validate(conversation)
      if (Either.isLeft(placed)) {
        assert.isTrue(Either.isLeft(result))
        if (Either.isLeft(result)) assertSameError(result.left, placed.left)
      } else if (Either.isLeft(result)) {
        assert.strictEqual(result.left._tag, "UnsupportedBlock")
      }
    },
    { fastCheck: { numRuns: 500 } }
  )
})

describe("Chat Completions encode: placement is Message's", () => {
  it("a block Message allowed in a role the encoder has no form for is an UnsupportedBlock, not dropped", () => {
    // what would happen if Message.allowedBlockTypes let system messages hold reasoning before the
    // encoder learnt to write it: Conversation.validate passes, so the error is the encoder's own
    const allowed = Message.allowedBlockTypes.system as Set<string>
    allowed.add("reasoning")
    try {
      const conversation = [{
        role: "system",
        blocks: [Block.text("a"), Block.reasoning("b")],
        detail: null
      }] as unknown as Conversation.Conversation
      assert.isTrue(Either.isRight(Conversation.validate(conversation)))
      const result = OpenRouterFormat.encode(conversation)
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result)) {
        assert.deepStrictEqual(encodeError(result.left), {
          _tag: "UnsupportedBlock",
          format: "openrouter",
          path: [0, "blocks", 1],
          messageIndex: 0,
          blockIndex: 1,
          blockType: "reasoning",
          reason: "the openrouter format has no encoding for a \"reasoning\" block in a \"system\" message"
        })
      }
    } finally {
      allowed.delete("reasoning")
    }
    assert.strictEqual(
      Either.getOrThrow(
        Either.flip(OpenAiFormat.encode([{ role: "system", blocks: [Block.reasoning("b")], detail: null }] as never))
      )._tag,
      "MisplacedBlock"
    )
  })
})
