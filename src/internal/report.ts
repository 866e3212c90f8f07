/**
 * Reporting what a conversion loses (`ConversionError.Lost`), written once for every format: the
 * `onLoss` option every codec takes, the buffering that reports losses only for a conversion that
 * succeeds, and the losses every encoder shares (a message's or block's `detail`).
 *
 * A codec reports only when asked: without `onLoss`, nothing here runs. Encoders report through a
 * separate pass over the canonical conversation (each format's `losses.ts`: its documented rules),
 * run only once the encoding has succeeded; decoders report from the one decode sequence
 * (decoder.ts: request keys and keys the wire schema does not declare) and, for what a conversion
 * chooses to leave out, from their own code.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type * as Block from "../Block.js"
import type * as Codec from "../Codec.js"
import type * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"
import type * as Json from "../Json.js"

/** Where a loss goes. */
export type Report = (loss: ConversionError.Lost) => void

/** The option every codec takes to be told what it lost (`Codec.Reporting`). */
export type Reporting = Codec.Reporting

type Path = ConversionError.Path

/** A loss of decoding, at `path` in the input. */
export const decodeLoss = (
  format: ConversionError.FormatName,
  path: Path,
  field: string,
  reason: string,
  location: { readonly messageIndex?: number | undefined; readonly blockIndex?: number | undefined } = {}
): ConversionError.Lost =>
  new ConversionError.Lost({
    format,
    direction: "decode",
    path,
    ...(location.messageIndex === undefined ? {} : { messageIndex: location.messageIndex }),
    ...(location.blockIndex === undefined ? {} : { blockIndex: location.blockIndex }),
    field,
    reason
  })

/** A loss of encoding, at `path` in the canonical conversation (`[m]`, `[m, "blocks", b, ...]`). */
export const encodeLoss = (
  format: ConversionError.FormatName,
  path: Path,
  field: string,
  reason: string
): ConversionError.Lost => {
  const messageIndex = typeof path[0] === "number" ? path[0] : undefined
  const blockIndex = path[1] === "blocks" && typeof path[2] === "number" ? path[2] : undefined
  return new ConversionError.Lost({
    format,
    direction: "encode",
    path,
    ...(messageIndex === undefined ? {} : { messageIndex }),
    ...(blockIndex === undefined ? {} : { blockIndex }),
    field,
    reason
  })
}

/**
 * Run a conversion whose losses go to `onLoss` only if it succeeds: `run` is given a report that
 * buffers (or none when nobody asked).
 */
export const buffered = <A, E>(
  onLoss: Report | undefined,
  run: (report: Report | undefined) => Either.Either<A, E>
): Either.Either<A, E> => {
  if (onLoss === undefined) return run(undefined)
  const found: Array<ConversionError.Lost> = []
  const result = run((loss) => found.push(loss))
  if (Either.isRight(result)) { for (const loss of found) onLoss(loss) }
  return result
}

/**
 * An encoder that reports: `encode` as it is without `onLoss`; with it, once `encode` succeeded,
 * `losses` (the format's rules, a pass over the conversation) reports what the output has no place
 * for.
 */
export const encoding = <O extends Reporting, W, E>(
  encode: (conversation: Conversation.Conversation, options: O | undefined) => Either.Either<W, E>,
  losses: (conversation: Conversation.Conversation, options: O | undefined, report: Report) => void
) =>
(conversation: Conversation.Conversation, options?: O): Either.Either<W, E> => {
  const onLoss = options?.onLoss
  const result = encode(conversation, options)
  if (onLoss !== undefined && Either.isRight(result)) losses(conversation, options, onLoss)
  return result
}

/** Which keys of a `detail` the target keeps (none by default). */
export type Kept = (detail: Json.JsonObject, where: "message" | "block") => ReadonlyArray<string>

const describeKeys = (keys: ReadonlyArray<string>): string => keys.map((k) => JSON.stringify(k)).join(", ")

/**
 * Report every `detail` (of a message, a block, a block inside a tool result) the target has no
 * place for, or the keys of it that it drops (`kept` says which it keeps).
 */
export const detailLosses = (
  format: ConversionError.FormatName,
  conversation: Conversation.Conversation,
  report: Report,
  kept: Kept = () => []
): void => {
  const check = (detail: Json.JsonObject | null, where: "message" | "block", path: Path) => {
    if (detail === null) return
    const keep = kept(detail, where)
    const lost = Object.keys(detail).filter((key) => !keep.includes(key))
    if (lost.length === 0) return
    report(
      encodeLoss(
        format,
        [...path, "detail"],
        "detail",
        `the ${format} format has no place for ${
          lost.length === Object.keys(detail).length ? "a" : "part of a"
        } ${where}'s detail (${describeKeys(lost)})`
      )
    )
  }
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    check(message.detail, "message", [i])
    const blocks: ReadonlyArray<Block.Block> = message.blocks
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      check(block.detail, "block", [i, "blocks", j])
      if (block.type === "tool_result") {
        for (let k = 0; k < block.blocks.length; k++) {
          check(block.blocks[k]!.detail, "block", [i, "blocks", j, "blocks", k])
        }
      }
    }
  }
}

/** Report `is_error: true` on every tool result, for a target with no error flag. */
export const errorFlagLosses = (
  format: ConversionError.FormatName,
  conversation: Conversation.Conversation,
  report: Report,
  reason: string
): void => {
  for (let i = 0; i < conversation.length; i++) {
    const blocks: ReadonlyArray<Block.Block> = conversation[i]!.blocks
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      if (block.type === "tool_result" && block.is_error) {
        report(encodeLoss(format, [i, "blocks", j, "is_error"], "is_error", reason))
      }
    }
  }
}
