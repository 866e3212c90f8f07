/**
 * Reading canonical wire JSON into messages, with errors that say exactly where input went wrong.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Block from "../Block.js"
import * as ConversionError from "../ConversionError.js"
import type * as Json from "../Json.js"
import * as Message from "../Message.js"
import * as Decoder from "./decoder.js"
import * as Guard from "./guard.js"
import { issueOf } from "./parseIssue.js"
import { isRecord } from "./plain.js"

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

const ConversationSchema = Schema.Array(Message.Message)

/**
 * What canonical decoding reads, strictly (every key known, the schemas' own `onExcessProperty:
 * "error"`) and leniently (unexpected keys ignored: the schemas without their own option): the whole
 * conversation, each role's message, and prompt blocks. Each is compiled on first use.
 */
const shapes = (onExcessProperty: "error" | "ignore") => {
  const read = <A, I>(schema: Schema.Schema<A, I>) =>
    Decoder.shape(onExcessProperty === "error" ? schema : Guard.relax(schema), { onExcessProperty })
  return {
    conversation: read(ConversationSchema),
    roles: {
      system: read(Message.SystemMessage),
      user: read(Message.UserMessage),
      assistant: read(Message.AssistantMessage)
    } as { readonly [R in Message.Role]: Decoder.Shape<Message.Message> }
  }
}

const strict = shapes("error")
const lenient = shapes("ignore")

/** Prompt blocks, strictly. */
export const strictPrompt = Decoder.shape(Schema.Array(Block.ContentBlock), { onExcessProperty: "error" })
/** A prompt block, leniently. */
export const lenientContent = Decoder.shape(Guard.relax(Block.ContentBlock), { onExcessProperty: "ignore" })

type Raw = { readonly [key: string]: unknown }

const detailOf = (raw: Raw): Json.JsonObject | null => {
  const detail = raw["detail"] as Json.JsonObject | null | undefined
  return detail === undefined || detail === null ? null : Guard.copyJsonObject(detail)
}

/** A content block a guard has passed, as the Schema decode makes it. */
export const contentBlock = (raw: Raw): Block.ContentBlock =>
  raw["type"] === "text"
    ? { text: raw["text"] as string, detail: detailOf(raw), type: "text" }
    : { data: raw["data"] as string, mimeType: raw["mimeType"] as string, detail: detailOf(raw), type: "image" }

/** A block a guard has passed, as the Schema decode makes it: defaults in, keys in schema order. */
const block = (raw: Raw): Block.Block => {
  switch (raw["type"] as Block.BlockType) {
    case "text":
    case "image":
      return contentBlock(raw)
    case "reasoning":
      return {
        text: raw["text"] as string,
        signature: (raw["signature"] as string | null | undefined) ?? null,
        detail: detailOf(raw),
        type: "reasoning"
      }
    case "tool_call":
      return {
        id: raw["id"] as string,
        name: raw["name"] as string,
        input: Guard.copyJsonObject(raw["input"] as Json.JsonObject),
        detail: detailOf(raw),
        type: "tool_call"
      }
    case "tool_result": {
      const inner = raw["blocks"] as ReadonlyArray<Raw>
      const blocks: Array<Block.ContentBlock> = new Array(inner.length)
      for (let k = 0; k < inner.length; k++) blocks[k] = contentBlock(inner[k]!)
      return {
        tool_call_id: raw["tool_call_id"] as string,
        blocks,
        is_error: (raw["is_error"] as boolean | undefined) ?? false,
        detail: detailOf(raw),
        type: "tool_result"
      }
    }
    case "provider":
      return {
        provider: raw["provider"] as string,
        kind: raw["kind"] as string,
        item: Guard.copyJsonObject(raw["item"] as Json.JsonObject),
        detail: detailOf(raw),
        type: "provider"
      }
  }
}

/** A message a guard has passed, as the Schema decode makes it. */
export const message = (raw: Raw): Message.Message => {
  const input = raw["blocks"] as ReadonlyArray<Raw>
  const blocks: Array<Block.Block> = new Array(input.length)
  for (let j = 0; j < input.length; j++) blocks[j] = block(input[j]!)
  return { role: raw["role"], blocks, detail: detailOf(raw) } as Message.Message
}

/** A conversation a guard has passed. */
export const conversationOf = (raw: ReadonlyArray<unknown>): Array<Message.Message> => {
  const out: Array<Message.Message> = new Array(raw.length)
  for (let i = 0; i < raw.length; i++) out[i] = message(raw[i] as Raw)
  return out
}

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
  const { message, path } = issueOf(error, "first")
  const blockIndex = path[0] === "blocks" && typeof path[1] === "number" ? path[1] : undefined
  return malformed([...prefix, ...path], message, messageIndex, blockIndex)
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
    if (!Block.isType(type)) {
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
          if (Block.isType(innerType)) {
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
  const shape = (options.lenient ? lenient : strict).roles[role]
  if (shape.is(input)) return Either.right(message(input))
  let decoded: Either.Either<Message.Message, ParseResult.ParseError>
  try {
    decoded = shape.decode(input)
  } catch (e) {
    // JSON.parse builds arbitrarily deep values; a JSON value nested deeper than the stack allows (or
    // a cyclic object passed in directly) is bad input, not a crash.
    if (e instanceof RangeError) return Either.left(malformed([i], "input is nested too deeply (or cyclic)", i))
    throw e
  }
  return Either.isLeft(decoded) ? Either.left(fromParseError(decoded.left, [i], i)) : Either.right(decoded.right)
}

/** The result of decoding a conversation: the messages, and the blocks a lenient reading left out. */
export interface Decoded {
  readonly conversation: ReadonlyArray<Message.Message>
  readonly skipped: ReadonlyArray<SkippedBlock>
}

/**
 * A raw conversation (a JSON array of messages), read by the one decode sequence
 * (internal/decoder.ts): a conversation the guard passes is converted as it is; anything else is
 * explained message by message (block types and placement first, then each message's Schema decode).
 */
const conversationDecoder = (options: Options) =>
  Decoder.make({
    format: "canonical",
    issue: "first",
    depthLimit: false,
    target: (input: unknown): Decoder.Target<ReadonlyArray<Message.Message>> => ({
      shape: (options.lenient ? lenient : strict).conversation,
      value: input,
      path: []
    }),
    convert: (raw): Either.Either<Decoded, ConversionError.ValidationError> =>
      Either.right({ conversation: conversationOf(raw), skipped: [] }),
    explain: ({ value: input }): Either.Either<Decoded, ConversionError.ValidationError> => {
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
  })

/** Decode a raw conversation strictly: unknown block types and keys are errors. */
export const decodeStrict = conversationDecoder({ lenient: false })
/** Decode a raw conversation leniently: unknown block types are skipped, unexpected keys ignored. */
export const decodeLenient = conversationDecoder({ lenient: true })

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

// -----------------------------------------------------------------------------
// writing: the wire JSON of values known valid, without a Schema encode
// -----------------------------------------------------------------------------

/** The wire JSON of a content block, every default present, keys in the reference's order. */
export const encodeContentBlock = (block: Block.ContentBlock): typeof Block.ContentBlock.Encoded =>
  block.type === "text"
    ? { text: block.text, detail: block.detail ?? null, type: "text" }
    : { data: block.data, mimeType: block.mimeType, detail: block.detail ?? null, type: "image" }

/** The wire JSON of a block, as `Schema.encodeSync(Block.Block)` writes it. */
export const encodeBlock = (block: Block.Block): typeof Block.Block.Encoded => {
  switch (block.type) {
    case "text":
    case "image":
      return encodeContentBlock(block)
    case "reasoning":
      return { text: block.text, signature: block.signature ?? null, detail: block.detail ?? null, type: "reasoning" }
    case "tool_call":
      return { id: block.id, name: block.name, input: block.input, detail: block.detail ?? null, type: "tool_call" }
    case "tool_result": {
      const inner: ReadonlyArray<Block.ContentBlock> = block.blocks
      const blocks: Array<typeof Block.ContentBlock.Encoded> = new Array(inner.length)
      for (let k = 0; k < inner.length; k++) blocks[k] = encodeContentBlock(inner[k]!)
      return {
        tool_call_id: block.tool_call_id,
        blocks,
        is_error: block.is_error ?? false,
        detail: block.detail ?? null,
        type: "tool_result"
      }
    }
    case "provider":
      return {
        provider: block.provider,
        kind: block.kind,
        item: block.item,
        detail: block.detail ?? null,
        type: "provider"
      }
  }
}

/** The wire JSON of a message, as `Schema.encodeSync(Message.Message)` writes it. */
export const encodeMessage = (message: Message.Message): Message.Encoded => {
  const input: ReadonlyArray<Block.Block> = message.blocks
  const blocks: Array<typeof Block.Block.Encoded> = new Array(input.length)
  for (let j = 0; j < input.length; j++) blocks[j] = encodeBlock(input[j]!)
  return { role: message.role, blocks, detail: message.detail ?? null } as Message.Encoded
}

/** The wire JSON of a conversation. */
export const encodeConversation = (conversation: ReadonlyArray<Message.Message>): Array<Message.Encoded> => {
  const out: Array<Message.Encoded> = new Array(conversation.length)
  for (let i = 0; i < conversation.length; i++) out[i] = encodeMessage(conversation[i]!)
  return out
}

// a decoded value passes the strict decode guard (its defaults are present, which the wire allows)
const isConversationValue = strict.conversation.is
const isPromptValue = strictPrompt.is
const schemaEncodeConversation = Schema.encodeEither(ConversationSchema)
const schemaEncodePrompt = Schema.encodeEither(Schema.Array(Block.ContentBlock))

/**
 * The wire JSON of a conversation that came from code the library does not control (an
 * environment's `get_messages`): written plainly when a guard finds it a valid conversation, else
 * by the Schema encode, which says what is wrong with it.
 */
export const encodeConversationEither = (
  conversation: ReadonlyArray<Message.Message>
): Either.Either<ReadonlyArray<Message.Encoded>, ParseResult.ParseError> =>
  isConversationValue(conversation)
    ? Either.right(encodeConversation(conversation))
    : schemaEncodeConversation(conversation)

/** The wire JSON of prompt blocks from code the library does not control, as {@link encodeConversationEither}. */
export const encodePromptEither = (
  prompt: ReadonlyArray<Block.ContentBlock>
): Either.Either<ReadonlyArray<typeof Block.ContentBlock.Encoded>, ParseResult.ParseError> =>
  isPromptValue(prompt) ? Either.right(prompt.map(encodeContentBlock)) : schemaEncodePrompt(prompt)
