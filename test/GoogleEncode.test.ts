/**
 * The Google codec's single-pass encoder (docs/performance.md) against what it replaces: the
 * encoder's errors against the reference's order of checks. (Decoding has no second implementation:
 * its guard is compiled from the wire schema, test/GoogleFormat.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { Block, Conversation } from "openreward-effect"
import * as GoogleFormat from "openreward-effect/GoogleFormat"

// -----------------------------------------------------------------------------
// encode: error precedence
// -----------------------------------------------------------------------------

type Options = GoogleFormat.EncodeOptions

const left = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) return assert.fail(`expected a Left, got ${JSON.stringify(result.right)}`)
  return result.left
}

interface Located {
  readonly _tag: string
  readonly path: ReadonlyArray<string | number>
}

/**
 * The error the reference raises, checked in its order (and in the order of the encoder before the
 * single pass): placement anywhere, then system messages in order, then the other blocks in order.
 */
const referenceError = (conversation: Conversation.Conversation, options: Options): Located | undefined => {
  const placed = Conversation.validate(conversation)
  if (Either.isLeft(placed)) return placed.left
  const names = new Set<string>()
  for (const message of conversation) {
    for (const block of message.blocks as ReadonlyArray<Block.Block>) {
      if (block.type === "tool_call") names.add(block.id)
    }
  }
  const rest: Array<number> = []
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (message.role !== "system" || (rest.length > 0 && options.laterSystem === "user")) {
      rest.push(i)
      continue
    }
    if (rest.length > 0) return { _tag: "UnsupportedMessage", path: [i] }
    const j = message.blocks.findIndex((block) => block.type !== "text")
    if (j !== -1) return { _tag: "UnsupportedBlock", path: [i, "blocks", j] }
  }
  for (const i of rest) {
    const blocks = conversation[i]!.blocks as ReadonlyArray<Block.Block>
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      if (block.type === "reasoning" && options.reasoning !== "thought") {
        return { _tag: "UnsupportedBlock", path: [i, "blocks", j] }
      }
      if (block.type === "tool_result") {
        if (!names.has(block.tool_call_id)) return { _tag: "UnmatchedToolResult", path: [i, "blocks", j] }
        const k = block.blocks.findIndex((inner) => inner.type !== "text")
        if (k !== -1) return { _tag: "UnsupportedBlock", path: [i, "blocks", j, "blocks", k] }
      }
    }
  }
  return undefined
}

const text = FastCheck.constantFrom("", "a", "b").map((t) => Block.text(t))
const image = FastCheck.constant(Block.image("AA==", "image/png"))
const block: FastCheck.Arbitrary<Block.Block> = FastCheck.oneof(
  text,
  image,
  FastCheck.record({ text: FastCheck.constantFrom("", "r"), signature: FastCheck.constantFrom(null, "sig") })
    .map(({ signature, text }) => Block.reasoning(text, { signature })),
  FastCheck.record({ id: FastCheck.constantFrom("a", "b"), name: FastCheck.constantFrom("f", "g") })
    .map(({ id, name }) => Block.toolCall(id, name, { x: 1 })),
  FastCheck.record({
    id: FastCheck.constantFrom("a", "b", "z"),
    blocks: FastCheck.array(FastCheck.oneof(text, text, image), { maxLength: 2 }),
    isError: FastCheck.boolean()
  }).map(({ blocks, id, isError }) => Block.toolResult(id, blocks, { isError }))
)

/** Any blocks in any role, placement unchecked (a conversation built with a cast). */
const unchecked: FastCheck.Arbitrary<Conversation.Conversation> = FastCheck.array(
  FastCheck.record({
    role: FastCheck.constantFrom("system", "user", "assistant"),
    blocks: FastCheck.array(block, { maxLength: 4 })
  }).map(({ blocks, role }) => ({ role, blocks, detail: null })),
  { maxLength: 6 }
) as unknown as FastCheck.Arbitrary<Conversation.Conversation>

const options: FastCheck.Arbitrary<Options> = FastCheck.record({
  casing: FastCheck.constantFrom("snake" as const, "camel" as const),
  reasoning: FastCheck.constantFrom("error" as const, "thought" as const),
  laterSystem: FastCheck.constantFrom("error" as const, "user" as const)
})

describe("GoogleFormat.encode in one pass", () => {
  it.prop(
    "reports the error the reference raises first, and succeeds when it raises none",
    [unchecked, options],
    ([conversation, options]) => {
      const expected = referenceError(conversation, options)
      const result = GoogleFormat.encode(conversation, options)
      if (expected === undefined) {
        assert.isTrue(Either.isRight(result), Either.isLeft(result) ? result.left.message : "")
      } else {
        const error = left(result)
        assert.deepStrictEqual([error._tag, error.path], [expected._tag, expected.path])
        if (expected._tag === "MisplacedBlock") assert.deepStrictEqual(error, expected)
      }
    },
    { fastCheck: { numRuns: 2000 } }
  )

  it("a block of no known type (a cast) is a MisplacedBlock, not an exception", () => {
    const conversation = [
      { role: "user", blocks: [{ type: "video", detail: null }], detail: null }
    ] as unknown as Conversation.Conversation
    assert.strictEqual(left(GoogleFormat.encode(conversation))._tag, "MisplacedBlock")
  })
})
