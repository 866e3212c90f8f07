/**
 * The error an encoder reports for a canonical block it cannot write, built in one place: every
 * such error points at block `blockIndex` of message `messageIndex` of the conversation.
 *
 * @internal
 */
import type * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"
import { withArticle } from "./article.js"

/** An `UnsupportedBlock` at `[messageIndex, "blocks", blockIndex]`. */
export const unsupported = (
  format: ConversionError.UnsupportedBlock["format"],
  messageIndex: number,
  blockIndex: number,
  blockType: string,
  reason: string
): ConversionError.UnsupportedBlock =>
  new ConversionError.UnsupportedBlock({
    format,
    path: [messageIndex, "blocks", blockIndex],
    messageIndex,
    blockIndex,
    blockType,
    reason
  })

/**
 * Where an encoder stopped: a block `Message` allows in its message's role that the encoder has no
 * encoding for. The encoder reports what `Conversation.validate` says of the conversation first (a
 * `MisplacedBlock`, by `Message`'s rules), else {@link noEncoding}.
 */
export class NoEncoding {
  constructor(readonly messageIndex: number, readonly blockIndex: number) {}
}

/** The `UnsupportedBlock` for a {@link NoEncoding}: an error, never a dropped block. */
export const noEncoding = (
  format: ConversionError.UnsupportedBlock["format"],
  conversation: Conversation.Conversation,
  { blockIndex, messageIndex }: NoEncoding
): ConversionError.UnsupportedBlock => {
  const message = conversation[messageIndex]!
  const blockType = message.blocks[blockIndex]!.type
  return unsupported(
    format,
    messageIndex,
    blockIndex,
    blockType,
    `the ${format} format has no encoding for ${withArticle(JSON.stringify(blockType))} block in ${
      withArticle(JSON.stringify(message.role))
    } message`
  )
}
