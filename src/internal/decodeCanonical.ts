/**
 * Reading canonical wire JSON into messages, with errors that say exactly where input went wrong.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Block from "../Block.js"
import * as ConversionError from "../ConversionError.js"
import * as Message from "../Message.js"

/** A block that lenient decoding left out. */
export interface SkippedBlock {
  readonly messageIndex: number
  readonly blockIndex: number
  readonly path: ConversionError.Path
  readonly blockType: string
}

export interface Options {
  readonly lenient: boolean
}

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const roleSchemas = {
  system: Message.SystemMessage,
  user: Message.UserMessage,
  assistant: Message.AssistantMessage
} as const

type Decoder = (u: unknown) => Either.Either<Message.Message, ParseResult.ParseError>

const decoders = (onExcessProperty: "error" | "ignore"): { readonly [R in Message.Role]: Decoder } => ({
  system: Schema.decodeUnknownEither(roleSchemas.system, { onExcessProperty }),
  user: Schema.decodeUnknownEither(roleSchemas.user, { onExcessProperty }),
  assistant: Schema.decodeUnknownEither(roleSchemas.assistant, { onExcessProperty })
})

const strictDecoders = decoders("error")
const lenientDecoders = decoders("ignore")

const malformed = (
  path: ConversionError.Path,
  reason: string,
  messageIndex: number | undefined,
  blockIndex?: number
) =>
  new ConversionError.MalformedInput({
    format: "canonical",
    path,
    reason,
    ...(messageIndex === undefined ? {} : { messageIndex }),
    ...(blockIndex === undefined ? {} : { blockIndex })
  })

/** Turn a ParseError into a MalformedInput located under `prefix`. */
export const fromParseError = (
  error: ParseResult.ParseError,
  prefix: ConversionError.Path,
  messageIndex: number | undefined
): ConversionError.MalformedInput => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  const path = issue === undefined ? [] : issue.path.filter((p): p is string | number => typeof p !== "symbol")
  const blockIndex = path[0] === "blocks" && typeof path[1] === "number" ? path[1] : undefined
  return malformed([...prefix, ...path], issue?.message ?? error.message, messageIndex, blockIndex)
}

const contentTypes: ReadonlySet<string> = new Set(["text", "image"])

/**
 * Check block types and placement of one raw message, returning the blocks to keep.
 */
const screenBlocks = (
  role: Message.Role,
  blocks: ReadonlyArray<unknown>,
  i: number,
  options: Options,
  skipped: Array<SkippedBlock>
): Either.Either<ReadonlyArray<unknown>, ConversionError.ValidationError> => {
  const kept: Array<unknown> = []
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]
    const path = [i, "blocks", j]
    if (!isRecord(block)) return Either.left(malformed(path, "expected a block object", i, j))
    const type = block["type"]
    if (typeof type !== "string") {
      return Either.left(malformed([...path, "type"], "expected a string block type", i, j))
    }
    if (!Block.isSupportedType(type)) {
      if (!options.lenient) {
        return Either.left(
          new ConversionError.UnknownBlockType({ path, messageIndex: i, blockIndex: j, blockType: type })
        )
      }
      skipped.push({ messageIndex: i, blockIndex: j, path, blockType: type })
      continue
    }
    if (!Message.isAllowed(role, type)) {
      return Either.left(
        new ConversionError.MisplacedBlock({ path, messageIndex: i, blockIndex: j, role, blockType: type })
      )
    }
    if (type === "tool_result" && Array.isArray(block["blocks"])) {
      const inner: Array<unknown> = []
      const innerBlocks: ReadonlyArray<unknown> = block["blocks"]
      for (let k = 0; k < innerBlocks.length; k++) {
        const b = innerBlocks[k]
        const innerPath = [...path, "blocks", k]
        const innerType = isRecord(b) ? b["type"] : undefined
        if (typeof innerType === "string" && !contentTypes.has(innerType)) {
          if (Block.isSupportedType(innerType)) {
            return Either.left(
              malformed(innerPath, `a tool_result may hold only text and image blocks, not ${innerType}`, i, j)
            )
          }
          if (!options.lenient) {
            return Either.left(
              new ConversionError.UnknownBlockType({
                path: innerPath,
                messageIndex: i,
                blockIndex: j,
                blockType: innerType
              })
            )
          }
          skipped.push({ messageIndex: i, blockIndex: j, path: innerPath, blockType: innerType })
          continue
        }
        inner.push(b)
      }
      kept.push(inner.length === innerBlocks.length ? block : { ...block, blocks: inner })
      continue
    }
    kept.push(block)
  }
  return Either.right(kept.length === blocks.length && kept.every((b, j) => b === blocks[j]) ? blocks : kept)
}

const isRole = (u: unknown): u is Message.Role => u === "system" || u === "user" || u === "assistant"

/** Decode one raw message at index `i`. */
export const decodeMessage = (
  raw: unknown,
  i: number,
  options: Options,
  skipped: Array<SkippedBlock>
): Either.Either<Message.Message, ConversionError.ValidationError> => {
  if (!isRecord(raw)) return Either.left(malformed([i], "expected a message object", i))
  const role = raw["role"]
  if (!isRole(role)) {
    return Either.left(
      malformed(
        [i, "role"],
        `expected "system" | "user" | "assistant", actual ${JSON.stringify(role) ?? "undefined"}`,
        i
      )
    )
  }
  const blocks = raw["blocks"]
  if (!Array.isArray(blocks)) return Either.left(malformed([i, "blocks"], "expected an array of blocks", i))
  const screened = screenBlocks(role, blocks, i, options, skipped)
  if (Either.isLeft(screened)) return Either.left(screened.left)
  const input = screened.right === blocks ? raw : { ...raw, blocks: screened.right }
  let decoded: Either.Either<Message.Message, ParseResult.ParseError>
  try {
    decoded = (options.lenient ? lenientDecoders : strictDecoders)[role](input)
  } catch (e) {
    // JSON.parse builds arbitrarily deep values; a JSON value nested deeper than the stack allows (or
    // a cyclic object passed in directly) is bad input, not a crash.
    if (e instanceof RangeError) return Either.left(malformed([i], "input is nested too deeply (or cyclic)", i))
    throw e
  }
  return Either.isLeft(decoded) ? Either.left(fromParseError(decoded.left, [i], i)) : Either.right(decoded.right)
}

/** Decode a raw conversation (a JSON array of messages). */
export const decodeConversation = (
  input: unknown,
  options: Options
): Either.Either<
  { readonly conversation: ReadonlyArray<Message.Message>; readonly skipped: ReadonlyArray<SkippedBlock> },
  ConversionError.ValidationError
> => {
  if (!Array.isArray(input)) return Either.left(malformed([], "expected an array of messages", undefined))
  const skipped: Array<SkippedBlock> = []
  const conversation: Array<Message.Message> = []
  for (let i = 0; i < input.length; i++) {
    const message = decodeMessage(input[i], i, options, skipped)
    if (Either.isLeft(message)) return Either.left(message.left)
    conversation.push(message.right)
  }
  return Either.right({ conversation, skipped })
}

/** Re-check placement of messages that did not come through a decoder (for example built by a cast). */
export const checkPlacement = (
  conversation: ReadonlyArray<Message.Message>
): ConversionError.MisplacedBlock | undefined => {
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    const blocks: ReadonlyArray<Block.Block> = message.blocks
    for (let j = 0; j < blocks.length; j++) {
      const type = blocks[j]!.type
      if (!Message.isAllowed(message.role, type)) {
        return new ConversionError.MisplacedBlock({
          path: [i, "blocks", j],
          messageIndex: i,
          blockIndex: j,
          role: message.role,
          blockType: type
        })
      }
    }
  }
  return undefined
}
