/**
 * The Anthropic encoder's fast path (docs/performance.md) against what it replaces: encoding that
 * checks placement as it goes against "`Conversation.validate` first, then encode". (Decoding has
 * no second implementation: its guard is compiled from the schema, test/AnthropicFormat.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { absurd } from "effect/Function"
import { Block, Conversation, ConversionError, Message } from "openreward-effect"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"

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
    case "provider":
      return block.item as AnthropicFormat.ContentBlock
  }
}

/** The first provider block of `blocks` that encode refuses (another provider's, by default), as its error. */
const refusedProvider = (
  i: number,
  blocks: ReadonlyArray<Block.Block>,
  original: ReadonlyArray<Block.Block>
): Either.Either<never, ConversionError.UnsupportedBlock> | undefined => {
  for (const block of blocks) {
    if (block.type !== "provider") continue
    const j = original.indexOf(block)
    if (block.provider !== "anthropic") {
      return unsupportedBlock(
        i,
        j,
        block,
        `it is ${JSON.stringify(block.provider)} content (${JSON.stringify(block.kind)}), which only ${
          JSON.stringify(block.provider)
        } reads; set providerContent to "omit" to leave it out or "text" to send it as text`
      )
    }
    if (typeof block.item["type"] !== "string") {
      return unsupportedBlock(i, j, block, "an Anthropic provider block's item is a content block, with a string type")
    }
  }
  return undefined
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
      const refused = refusedProvider(i, blocks, message.blocks)
      if (refused !== undefined) return refused
      messages.push({ role: "user", content: blocks.map(wireBlock) })
    } else if (message.role === "assistant") {
      leading = false
      const refused = refusedProvider(i, message.blocks, message.blocks)
      if (refused !== undefined) return refused
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
