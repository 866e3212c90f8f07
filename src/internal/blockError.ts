/**
 * The error an encoder reports for a canonical block it cannot write, built in one place: every
 * such error points at block `blockIndex` of message `messageIndex` of the conversation.
 *
 * @internal
 */
import * as ConversionError from "../ConversionError.js"

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
