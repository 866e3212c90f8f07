/**
 * The `unsignedReasoning` option of the Anthropic format: a pass over the conversation, before
 * encoding, that decides what becomes of assistant reasoning blocks without a signature (the
 * Messages API takes a `thinking` block only with the signature it issued).
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Block from "../../Block.js"
import type * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import * as Message from "../../Message.js"

/** What to do with an unsigned reasoning block. */
export type UnsignedReasoning = "send" | "text" | "omit" | "fail"

const isUnsigned = (block: Block.Block): block is Block.ReasoningBlock =>
  block.type === "reasoning" && (block.signature === null || block.signature === "")

/**
 * The conversation with every unsigned reasoning block of an assistant turn sent as it is
 * (`"send"`, the reference's behaviour: a `thinking` block without `signature`), turned into a
 * text block (`"text"`), left out (`"omit"`), or reported (`"fail"`). Other turns are left to the
 * encoder, which reports misplaced blocks.
 */
export const prepare = (
  conversation: Conversation.Conversation,
  policy: UnsignedReasoning = "send"
): Either.Either<Conversation.Conversation, ConversionError.UnsupportedBlock> => {
  if (policy === "send") return Either.right(conversation)
  let changed = false
  const out: Array<Message.Message> = []
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (message.role !== "assistant" || !message.blocks.some(isUnsigned)) {
      out.push(message)
      continue
    }
    if (policy === "fail") {
      const j = message.blocks.findIndex(isUnsigned)
      return Either.left(
        new ConversionError.UnsupportedBlock({
          format: "anthropic",
          path: [i, "blocks", j],
          messageIndex: i,
          blockIndex: j,
          blockType: "reasoning",
          reason: "the Messages API takes a thinking block only with the signature it issued (without one it " +
            "answers 400: \"thinking.signature: Field required\"); set unsignedReasoning to \"text\" or \"omit\""
        })
      )
    }
    changed = true
    const blocks = message.blocks.flatMap((block): Array<Message.AssistantBlock> =>
      !isUnsigned(block) ? [block] : policy === "text" ? [Block.text(block.text, { detail: block.detail })] : []
    )
    out.push(Message.assistant(blocks, { detail: message.detail }))
  }
  return Either.right(changed ? out : conversation)
}
