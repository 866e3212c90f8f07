/**
 * The Anthropic Messages format: a conversation as `{system, messages}`, ready to spread into a
 * `messages.create` request, and back.
 *
 * **Encoding** reproduces the reference SDK's `convert_messages(messages, "anthropic")` (openreward
 * 0.1.167) key for key:
 *
 * - the leading system messages are hoisted into `system`: their text blocks joined with `"\n\n"`,
 *   or `null` when there is no text; an image there, or a system message after the first
 *   non-system turn, is an error;
 * - every other message becomes `{role, content: [...]}`, one to one (consecutive same-role turns are
 *   not merged; the API combines them);
 * - text → `text`, image → `image` with a base64 `source`, reasoning → `thinking` (`signature` only
 *   when non-empty), tool call → `tool_use`, tool result → `tool_result` (`is_error` only when true),
 *   with the tool results moved to the front of their user message, as the API requires.
 *
 * **Decoding** reads what Anthropic clients really send and store: the reference's `{system,
 * messages}`, a whole request body (its request parameters, `model`, `max_tokens`, `tools`, ..., listed in `requestKeys`, are ignored; any other key is an error) or a bare
 * `messages` array; string or block content; `system` as a string or text blocks; mid-conversation
 * `role: "system"` messages; `redacted_thinking` as a reasoning block with empty text, its data as
 * the signature and `detail: {anthropic: {redacted: true}}` (encoded back as `redacted_thinking`).
 * Content with no canonical form (URL and file images, documents, citations, server-tool blocks) is
 * an `UnsupportedContent` error, never dropped.
 *
 * @example
 * ```ts
 * import { AnthropicFormat, Block, Message } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as assert from "node:assert"
 *
 * const wire = AnthropicFormat.encode([
 *   Message.system("You are a support agent for Acme."),
 *   Message.user("My order hasn't arrived."),
 *   Message.assistant([Block.toolCall("tc_1", "lookup_order", { id: "4411" })]),
 *   Message.user([Block.text("Thanks."), Block.toolResult("tc_1", "stalled at hub")])
 * ])
 * console.dir(Either.getOrThrow(wire).messages[2], { depth: null })
 * ```
 *
 * ```text output
 * {
 *   role: 'user',
 *   content: [
 *     {
 *       type: 'tool_result',
 *       tool_use_id: 'tc_1',
 *       content: [ { type: 'text', text: 'stalled at hub' } ]
 *     },
 *     { type: 'text', text: 'Thanks.' }
 *   ]
 * }
 * ```
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import * as Schema from "effect/Schema"
import * as Block from "./Block.js"
import * as Codec from "./Codec.js"
import * as Conversation from "./Conversation.js"
import * as ConversionError from "./ConversionError.js"
import * as Reasoning from "./internal/anthropic/reasoning.js"
import * as Redacted from "./internal/anthropic/redacted.js"
import * as Guard from "./internal/guard.js"
import * as RequestBody from "./internal/requestBody.js"
import * as Input from "./internal/wireInput.js"
import * as Json from "./Json.js"
import * as Message from "./Message.js"

/**
 * The provider this module speaks.
 *
 * @category constants
 * @since 0.1.0
 */
export const name = "anthropic" as const

// -----------------------------------------------------------------------------
// wire: what encode produces
// -----------------------------------------------------------------------------

/**
 * A text block.
 *
 * @category schemas
 * @since 0.1.0
 */
export const TextBlock = Schema.Struct({
  type: Schema.tag("text"),
  text: Schema.String
}).annotations({ identifier: "AnthropicTextBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export interface TextBlock extends Schema.Schema.Type<typeof TextBlock> {}

/**
 * Inline image data: bare base64 `data` and its `media_type`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Base64ImageSource = Schema.Struct({
  type: Schema.tag("base64"),
  media_type: Schema.String,
  data: Schema.String
}).annotations({ identifier: "AnthropicBase64ImageSource" })

/**
 * @category models
 * @since 0.1.0
 */
export interface Base64ImageSource extends Schema.Schema.Type<typeof Base64ImageSource> {}

/**
 * An image block with inline (base64) data: the only image source encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImageBlock = Schema.Struct({
  type: Schema.tag("image"),
  source: Base64ImageSource
}).annotations({ identifier: "AnthropicImageBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ImageBlock extends Schema.Schema.Type<typeof ImageBlock> {}

/**
 * Extended-thinking text, with the `signature` Anthropic needs to accept it back (absent when the
 * canonical reasoning has none).
 *
 * @category schemas
 * @since 0.1.0
 */
export const ThinkingBlock = Schema.Struct({
  type: Schema.tag("thinking"),
  thinking: Schema.String,
  signature: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "AnthropicThinkingBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ThinkingBlock extends Schema.Schema.Type<typeof ThinkingBlock> {}

/**
 * A client tool call.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolUseBlock = Schema.Struct({
  type: Schema.tag("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Json.JsonObject
}).annotations({ identifier: "AnthropicToolUseBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolUseBlock extends Schema.Schema.Type<typeof ToolUseBlock> {}

/**
 * What a tool result holds: text and images.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolResultContent = Schema.Union(TextBlock, ImageBlock)

/**
 * @category models
 * @since 0.1.0
 */
export type ToolResultContent = TextBlock | ImageBlock

/**
 * The result of a tool call, answering the `tool_use` with the same id. `is_error` is present only
 * when true.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolResultBlock = Schema.Struct({
  type: Schema.tag("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Array(ToolResultContent),
  is_error: Schema.optionalWith(Schema.Literal(true), { exact: true })
}).annotations({ identifier: "AnthropicToolResultBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export interface ToolResultBlock extends Schema.Schema.Type<typeof ToolResultBlock> {}

/**
 * Encrypted thinking: opaque `data` with no text. Read as a reasoning block with empty text, the
 * data as its signature and `detail: {anthropic: {redacted: true}}`, and encoded back from that.
 *
 * @category schemas
 * @since 0.1.0
 */
export const RedactedThinkingBlock = Schema.Struct({
  type: Schema.Literal("redacted_thinking"),
  data: Schema.String
}).annotations({ identifier: "AnthropicRedactedThinkingBlock" })

/**
 * Any block encoding produces.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ContentBlock = Schema.Union(
  TextBlock,
  ImageBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  ToolResultBlock
)

/**
 * @category models
 * @since 0.1.0
 */
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | ThinkingBlock
  | typeof RedactedThinkingBlock.Type
  | ToolUseBlock
  | ToolResultBlock

/**
 * One entry of `messages`. Encoding emits `role: "system"` only with `laterSystem: "inline"`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const WireMessage = Schema.Struct({
  role: Schema.Literal("user", "assistant", "system"),
  content: Schema.Array(ContentBlock)
}).annotations({ identifier: "AnthropicMessage" })

/**
 * @category models
 * @since 0.1.0
 */
export interface WireMessage extends Schema.Schema.Type<typeof WireMessage> {}

/**
 * The encoded conversation: the `system` parameter (a string, or text blocks with `system:
 * "blocks"`; `null` when the conversation has no leading system text) and the `messages`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Wire = Schema.Struct({
  system: Schema.NullOr(Schema.Union(Schema.String, Schema.Array(TextBlock))),
  messages: Schema.Array(WireMessage)
}).annotations({ identifier: "AnthropicConversation" })

/**
 * @category models
 * @since 0.1.0
 */
export interface Wire extends Schema.Schema.Type<typeof Wire> {}

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

const describe = (u: unknown): string =>
  u === null
    ? "null"
    : Array.isArray(u)
    ? "an array"
    : typeof u === "object"
    ? "an object"
    : typeof u === "string"
    ? JSON.stringify(u)
    : typeof u === "number" || typeof u === "boolean" || typeof u === "bigint"
    ? String(u)
    : typeof u

// `string | Array<B>`, with one clear message when the input is neither (a failed union otherwise
// reports each member separately).
const stringOr = <B extends Schema.Schema.Any>(blocks: B, what: string) =>
  Schema.Union(Schema.String, Schema.Array(blocks)).annotations({
    message: (issue) =>
      typeof issue.actual === "string" || Array.isArray(issue.actual)
        ? { message: "", override: false }
        : { message: `Expected a string or an array of ${what}, actual ${describe(issue.actual)}`, override: true }
  })

// A block of a type this format does not read. Its `type` is branded, so that ruling such a block
// out narrows a block union to the known members.
const otherThan = (known: ReadonlyArray<string>) => {
  const set: ReadonlySet<string> = new Set(known)
  return Schema.Struct({
    type: Schema.String.pipe(
      Schema.filter((type) => !set.has(type), { message: () => "a block of a known type must match its schema" }),
      Schema.brand("AnthropicOtherBlockType")
    )
  })
}

/**
 * A text block as decoding reads it. `citations` are accepted so that non-empty ones can be
 * reported (they have no canonical form); `cache_control` and other keys are ignored.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputTextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  citations: Schema.optionalWith(Schema.NullOr(Schema.Array(Schema.Unknown)), { exact: true })
}).annotations({ identifier: "AnthropicInputTextBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export interface InputTextBlock extends Schema.Schema.Type<typeof InputTextBlock> {}

/**
 * An image by URL (no canonical form).
 *
 * @category schemas
 * @since 0.1.0
 */
export const UrlImageSource = Schema.Struct({
  type: Schema.Literal("url"),
  url: Schema.String
}).annotations({ identifier: "AnthropicUrlImageSource" })

/**
 * An image uploaded with the Files API (no canonical form).
 *
 * @category schemas
 * @since 0.1.0
 */
export const FileImageSource = Schema.Struct({
  type: Schema.Literal("file"),
  file_id: Schema.String
}).annotations({ identifier: "AnthropicFileImageSource" })

/**
 * Every image source the API accepts.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ImageSource = Schema.Union(Base64ImageSource, UrlImageSource, FileImageSource)

/**
 * An image block as decoding reads it: any source.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: ImageSource
}).annotations({ identifier: "AnthropicInputImageBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export interface InputImageBlock extends Schema.Schema.Type<typeof InputImageBlock> {}

/**
 * A thinking block as decoding reads it: the signature may be absent or `null`, and the thinking
 * text may be empty (adaptive thinking returns `""` with a signature).
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })
}).annotations({ identifier: "AnthropicInputThinkingBlock" })

/**
 * Any other block (`document`, `search_result`, `server_tool_use`, `web_search_tool_result`, ...):
 * only its `type` is read, to report it.
 *
 * @category schemas
 * @since 0.1.0
 */
export const OtherBlock = otherThan(["text", "image", "thinking", "redacted_thinking", "tool_use", "tool_result"])
  .annotations({ identifier: "AnthropicOtherBlock" })

const OtherToolResultContent = otherThan(["text", "image"]).annotations({ identifier: "AnthropicOtherBlock" })

/**
 * A tool result as decoding reads it: `content` may be absent, a string, or blocks; `is_error` may
 * be absent or `null`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.optionalWith(
    stringOr(Schema.Union(InputTextBlock, InputImageBlock, OtherToolResultContent), "tool result blocks"),
    { exact: true }
  ),
  is_error: Schema.optionalWith(Schema.NullOr(Schema.Boolean), { exact: true })
}).annotations({ identifier: "AnthropicInputToolResultBlock" })

/**
 * @category models
 * @since 0.1.0
 */
export interface InputToolResultBlock extends Schema.Schema.Type<typeof InputToolResultBlock> {}

/**
 * Any block decoding reads.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputBlock = Schema.Union(
  InputTextBlock,
  InputImageBlock,
  InputThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  InputToolResultBlock,
  OtherBlock
)

/**
 * @category models
 * @since 0.1.0
 */
export type InputBlock = typeof InputBlock.Type

const Role = Schema.Literal("user", "assistant", "system").annotations({
  message: (issue) => ({
    message: `Expected "user" | "assistant" | "system", actual ${describe(issue.actual)}`,
    override: true
  })
})

/**
 * One message as decoding reads it: `content` is a string or blocks; `role: "system"` is a
 * mid-conversation system message.
 *
 * @category schemas
 * @since 0.1.0
 */
export const InputMessage = Schema.Struct({
  role: Role,
  content: stringOr(InputBlock, "content blocks")
}).annotations({ identifier: "AnthropicInputMessage" })

/**
 * @category models
 * @since 0.1.0
 */
export interface InputMessage extends Schema.Schema.Type<typeof InputMessage> {}

/**
 * A text block of the `system` parameter. A system prompt does not cite, so `citations` must be
 * absent, `null` or empty.
 *
 * @category schemas
 * @since 0.1.0
 */
export const SystemTextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  citations: Schema.optionalWith(
    Schema.Union(Schema.Null, Schema.Tuple()).annotations({
      message: () => ({ message: "a system prompt cannot carry citations", override: true })
    }),
    { exact: true }
  )
}).annotations({ identifier: "AnthropicSystemTextBlock" })

/**
 * A request body as decoding reads it: `system` (a string or text blocks) and `messages`. Every
 * request parameter ({@link requestKeys}: `model`, `max_tokens`, `tools`, `thinking`, ...) is ignored; a
 * key that is neither is a `MalformedInput`.
 *
 * @category schemas
 * @since 0.1.0
 */
export const Request = Schema.Struct({
  system: Schema.optionalWith(
    Schema.NullOr(stringOr(SystemTextBlock, "text blocks")),
    { exact: true }
  ),
  messages: Schema.Array(InputMessage)
}).annotations({ identifier: "AnthropicRequest" })

/**
 * @category models
 * @since 0.1.0
 */
export interface Request extends Schema.Schema.Type<typeof Request> {}

/**
 * Exported as {@link Input} (the module's decoder uses that name for an internal helper).
 *
 * @category schemas
 * @since 0.2.0
 */
const AnthropicInput = Schema.Union(
  // suspended: `requestKeys` is declared further down
  Schema.suspend((): Schema.Schema<Request, typeof Request.Encoded> =>
    Codec.requestBody(Request.fields, requestKeys.parameters).annotations({ identifier: "AnthropicInputRequest" })
  ).annotations({ identifier: "AnthropicInputRequest" }),
  Schema.Array(InputMessage)
).annotations({ identifier: "AnthropicInput" })

/**
 * The type of {@link Input}.
 *
 * @category models
 * @since 0.2.0
 */
type AnthropicInput = typeof AnthropicInput.Type

export {
  /**
   * Everything {@link decode} reads, as one Schema that only validates: a request body (`system`,
   * `messages`, and the request parameters of {@link requestKeys}, accepted and ignored) or a bare
   * `messages` array. It is the encoded side of {@link schema}, so `JSONSchema.make` and
   * `Schema.encodedSchema` of that describe the wire. `Input` is its type too.
   *
   * @category schemas
   * @since 0.2.0
   */
  AnthropicInput as Input
}

// -----------------------------------------------------------------------------
// options
// -----------------------------------------------------------------------------

/**
 * Encoding options. Every default reproduces the reference SDK.
 *
 * @category models
 * @since 0.1.0
 */
export interface EncodeOptions {
  /**
   * The shape of the hoisted system prompt. `"string"` (default): the text blocks of the leading
   * system messages joined with `"\n\n"`. `"blocks"`: one text block per canonical text block, so
   * that a `cache_control` breakpoint can be put on one of them.
   */
  readonly system?: "string" | "blocks" | undefined
  /**
   * What to do with a system message after the first non-system turn. `"error"` (default): an
   * `UnsupportedMessage` error. `"user"`: send it in place as a user turn with the same content.
   * `"inline"`: send it in place as a `role: "system"` message (mid-conversation system messages,
   * Claude Opus 4.8 and later; text only).
   */
  readonly laterSystem?: "error" | "user" | "inline" | undefined
  /**
   * What to do with an assistant reasoning block without a signature, which the Messages API rejects
   * (400) as a `thinking` block: `"send"` (default, as the reference): a `thinking` block without
   * `signature`, for servers that accept it. `"text"`: a text block. `"omit"`: leave it out (a turn
   * of only such blocks is then empty). `"fail"`: an `UnsupportedBlock` error.
   */
  readonly unsignedReasoning?: "send" | "text" | "omit" | "fail" | undefined
}

/**
 * Decoding options (none yet: every accepted shape is read the same way).
 *
 * @category models
 * @since 0.1.0
 */
export interface DecodeOptions {}

// -----------------------------------------------------------------------------
// encoding
// -----------------------------------------------------------------------------

// Encoding is one pass over the conversation that checks block placement as it goes, in the switch
// that encodes each block: a separate `Conversation.validate` pass cost about a quarter of encode
// (docs/performance.md, "What changed", encoders). The reference reports a misplaced block before any
// other error, wherever it is, so when the pass fails, `Conversation.validate` runs and its error,
// if it finds one, is the one returned.

const encodeContent = (block: Block.ContentBlock): ToolResultContent => {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text }
    case "image":
      return { type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } }
    default:
      return absurd(block)
  }
}

const encodeToolResult = (block: Block.ToolResultBlock): ToolResultBlock => {
  const content = block.blocks.map(encodeContent)
  return block.is_error
    ? { type: "tool_result", tool_use_id: block.tool_call_id, content, is_error: true }
    : { type: "tool_result", tool_use_id: block.tool_call_id, content }
}

// The error `Conversation.validate` reports for this block.
const misplacedBlock = (
  role: Message.Role,
  messageIndex: number,
  blockIndex: number,
  blockType: Block.BlockType
): ConversionError.MisplacedBlock =>
  new ConversionError.MisplacedBlock({
    path: [messageIndex, "blocks", blockIndex],
    messageIndex,
    blockIndex,
    role,
    blockType
  })

/**
 * Encode `blocks` of a `role` message into `content`, or return the error for the first block that
 * role may not hold. `blocks` may be reordered (see {@link toolResultsFirst}); `original` is the
 * message's own block list, where a misplaced block is located.
 */
const encodeBlocks = (
  role: Message.Role,
  blocks: ReadonlyArray<Block.Block>,
  original: ReadonlyArray<Block.Block>,
  messageIndex: number,
  content: Array<ContentBlock>
): ConversionError.MisplacedBlock | undefined => {
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    switch (block.type) {
      case "text":
      case "image":
        content.push(encodeContent(block))
        continue
      case "reasoning": {
        if (role !== "assistant") break
        const redacted = Redacted.dataOf(block)
        content.push(
          redacted !== undefined
            ? { type: "redacted_thinking", data: redacted }
            : block.signature
            ? { type: "thinking", thinking: block.text, signature: block.signature }
            : { type: "thinking", thinking: block.text }
        )
        continue
      }
      case "tool_call":
        if (role !== "assistant") break
        content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input })
        continue
      case "tool_result":
        if (role !== "user") break
        content.push(encodeToolResult(block))
        continue
    }
    // a reordering keeps the other blocks in order, so the first misplaced block met is the first
    // of the message, and the first occurrence of its object is where it is
    return misplacedBlock(role, messageIndex, original.indexOf(block), block.type)
  }
  return undefined
}

// The API wants a user message's tool results first; everything else keeps its order. Most user
// messages already have them first (or have none), and are returned as they are.
const toolResultsFirst = (blocks: ReadonlyArray<Message.UserBlock>): ReadonlyArray<Message.UserBlock> => {
  let other = false
  for (let j = 0; j < blocks.length; j++) {
    if (blocks[j]!.type !== "tool_result") other = true
    else if (other) return partition(blocks)
  }
  return blocks
}

const partition = (blocks: ReadonlyArray<Message.UserBlock>): ReadonlyArray<Message.UserBlock> => {
  const results: Array<Message.UserBlock> = []
  const rest: Array<Message.UserBlock> = []
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    if (block.type === "tool_result") results.push(block)
    else rest.push(block)
  }
  return results.concat(rest)
}

const textOnly = (
  message: Message.SystemMessage,
  messageIndex: number,
  reason: string,
  texts: Array<string>
): ConversionError.UnsupportedBlock | undefined => {
  const blocks = message.blocks
  for (let blockIndex = 0; blockIndex < blocks.length; blockIndex++) {
    const block = blocks[blockIndex]!
    if (block.type !== "text") {
      return new ConversionError.UnsupportedBlock({
        format: name,
        path: [messageIndex, "blocks", blockIndex],
        messageIndex,
        blockIndex,
        blockType: block.type,
        reason
      })
    }
    texts.push(block.text)
  }
  return undefined
}

const encodeLaterSystem = (
  message: Message.SystemMessage,
  messageIndex: number,
  policy: "error" | "user" | "inline"
): Either.Either<WireMessage, EncodeError> => {
  switch (policy) {
    case "error":
      return Either.left(
        new ConversionError.UnsupportedMessage({
          format: name,
          path: [messageIndex],
          messageIndex,
          role: "system",
          reason: "a system message after the first non-system turn cannot be hoisted into the system parameter; " +
            "move it to the start of the conversation, or set laterSystem to \"user\" or \"inline\""
        })
      )
    case "user": {
      const content: Array<ContentBlock> = []
      const error = encodeBlocks("system", message.blocks, message.blocks, messageIndex, content)
      return error === undefined ? Either.right({ role: "user", content }) : Either.left(error)
    }
    case "inline": {
      const texts: Array<string> = []
      const error = textOnly(message, messageIndex, "a mid-conversation system message holds text only", texts)
      return error === undefined
        ? Either.right({ role: "system", content: texts.map((text): TextBlock => ({ type: "text", text })) })
        : Either.left(error)
    }
    default:
      return absurd(policy)
  }
}

const encodeConversation = (
  conversation: Conversation.Conversation,
  options: EncodeOptions | undefined
): Either.Either<Wire, EncodeError> => {
  const laterSystem = options?.laterSystem ?? "error"
  const system: Array<string> = []
  const messages: Array<WireMessage> = []
  let leading = true
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    switch (message.role) {
      case "system": {
        if (leading) {
          const error = textOnly(message, i, "the system parameter holds text only", system)
          if (error !== undefined) return Either.left(error)
        } else {
          const encoded = encodeLaterSystem(message, i, laterSystem)
          if (Either.isLeft(encoded)) return Either.left(encoded.left)
          messages.push(encoded.right)
        }
        break
      }
      case "user":
      case "assistant": {
        leading = false
        const blocks = message.role === "user" ? toolResultsFirst(message.blocks) : message.blocks
        const content: Array<ContentBlock> = []
        const error = encodeBlocks(message.role, blocks, message.blocks, i, content)
        if (error !== undefined) return Either.left(error)
        messages.push({ role: message.role, content })
        break
      }
      default:
        return absurd(message)
    }
  }
  return Either.right({
    system: system.length === 0
      ? null
      : options?.system === "blocks"
      ? system.map((text): TextBlock => ({ type: "text", text }))
      : system.join("\n\n"),
    messages
  })
}

/**
 * The tag of every error {@link encode} can fail with: {@link EncodeError} is exactly these.
 *
 * @category errors
 * @since 0.1.0
 */
export const encodeErrors = ["MisplacedBlock", "UnsupportedBlock", "UnsupportedMessage"] as const

/**
 * What {@link encode} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.1.0
 */
export type EncodeError = ConversionError.Tagged<typeof encodeErrors[number]>

/**
 * The tag of every error {@link decode} can fail with: {@link DecodeError} is exactly these.
 *
 * @category errors
 * @since 0.1.0
 */
export const decodeErrors = ["MalformedInput", "MisplacedBlock", "UnsupportedContent"] as const

/**
 * What {@link decode} can fail with, and nothing else.
 *
 * @category errors
 * @since 0.1.0
 */
export type DecodeError = ConversionError.Tagged<typeof decodeErrors[number]>

/**
 * Convert a canonical conversation to Anthropic's `{system, messages}`. With default options the
 * result is, key order included, what the reference SDK's `convert_messages(messages, "anthropic")`
 * returns.
 *
 * Fails with `MisplacedBlock` (a block in a role that may not hold it), `UnsupportedBlock` (an image
 * in a hoisted system message) or `UnsupportedMessage` (a system message after the first
 * non-system turn, unless `laterSystem` says otherwise).
 *
 * @category encoding
 * @since 0.1.0
 */
export const encode = (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Wire, EncodeError> => {
  const prepared = Reasoning.prepare(conversation, options?.unsignedReasoning)
  const encoded: Either.Either<Wire, EncodeError> = Either.isLeft(prepared)
    ? Either.left(prepared.left)
    : encodeConversation(prepared.right, options)
  if (Either.isRight(encoded)) return encoded
  const placed = Conversation.validate(conversation)
  return Either.isLeft(placed) ? Either.left(placed.left) : encoded
}

// -----------------------------------------------------------------------------
// decoding
// -----------------------------------------------------------------------------

const decodeRequest = Schema.decodeUnknownEither(Request, { onExcessProperty: "ignore" })
const decodeMessageArray = Schema.decodeUnknownEither(Schema.Array(InputMessage), { onExcessProperty: "ignore" })

const canonicalBlocks = "text, image, reasoning (thinking), tool_call (tool_use) and tool_result"

// Where a block sits: its message and block index, and the prefix of the messages array in the
// input. Paths are built only for an error.
// One cursor per message, moved from block to block: an error copies what it needs at once.
interface Where {
  readonly prefix: ConversionError.Path
  readonly messageIndex: number
  blockIndex: number
}

type Failed = ConversionError.UnsupportedContent

const failed = (u: object): u is Failed => u instanceof ConversionError.UnsupportedContent

const blockPath = (where: Where): ConversionError.Path => [
  ...where.prefix,
  where.messageIndex,
  "content",
  where.blockIndex
]

const unsupported = (
  where: Where,
  contentType: string,
  reason: string,
  path: ConversionError.Path = blockPath(where)
) =>
  new ConversionError.UnsupportedContent({
    format: name,
    path,
    messageIndex: where.messageIndex,
    blockIndex: where.blockIndex,
    contentType,
    reason
  })

type InputContent = typeof InputTextBlock.Type | typeof InputImageBlock.Type

// A decoded block of no type this format reads is the `OtherBlock` member: its `type` is none of
// the other members' tags, which the schema's own filter (`otherThan`) says.
const knownBlockTypes: ReadonlySet<string> = new Set([
  "text",
  "image",
  "thinking",
  "redacted_thinking",
  "tool_use",
  "tool_result"
])
const isOtherBlock = (block: InputBlock): block is typeof OtherBlock.Type => !knownBlockTypes.has(block.type)
const isOtherContent = (
  block: InputToolResultBlock["content"] extends infer C ? C extends ReadonlyArray<infer B> ? B : never : never
): block is typeof OtherToolResultContent.Type => block.type !== "text" && block.type !== "image"

const contentPath = (where: Where, inner: number | undefined, key: string): ConversionError.Path =>
  inner === undefined ? [...blockPath(where), key] : [...blockPath(where), "content", inner, key]

// `inner` is the index of the content inside a tool result, when the block is one
const decodeContent = (
  block: InputContent,
  where: Where,
  inner?: number
): Block.ContentBlock | Failed => {
  switch (block.type) {
    case "text":
      return block.citations !== undefined && block.citations !== null && block.citations.length > 0
        ? unsupported(
          where,
          "citations",
          "a canonical text block has no place for its sources; strip them to keep the text alone",
          contentPath(where, inner, "citations")
        )
        : Block.text(block.text)
    case "image": {
      const source = block.source
      switch (source.type) {
        case "base64":
          return Block.image(source.data, source.media_type)
        case "url":
          return unsupported(
            where,
            "url image source",
            "canonical images carry base64 data; fetch the image and send it as a base64 source",
            contentPath(where, inner, "source")
          )
        case "file":
          return unsupported(
            where,
            "file image source",
            "canonical images carry base64 data; download the file and send it as a base64 source",
            contentPath(where, inner, "source")
          )
        default:
          return absurd(source)
      }
    }
    default:
      return absurd(block)
  }
}

const decodeToolResult = (
  block: InputToolResultBlock,
  where: Where
): Block.ToolResultBlock | Failed => {
  const content = block.content ?? []
  let inner: Array<Block.ContentBlock>
  if (typeof content === "string") {
    inner = [Block.text(content)]
  } else {
    inner = new Array(content.length)
    for (let k = 0; k < content.length; k++) {
      const item = content[k]!
      if (isOtherContent(item)) {
        return unsupported(
          where,
          item.type,
          "a canonical tool result holds only text and image content",
          [...blockPath(where), "content", k]
        )
      }
      const decoded = decodeContent(item, where, k)
      if (failed(decoded)) return decoded
      inner[k] = decoded
    }
  }
  return Block.toolResult(block.tool_use_id, inner, { isError: block.is_error ?? false })
}

const decodeBlock = (
  block: InputBlock,
  where: Where
): Block.Block | Failed => {
  if (isOtherBlock(block)) {
    return unsupported(where, block.type, `the canonical blocks are ${canonicalBlocks}`)
  }
  switch (block.type) {
    case "text":
    case "image":
      return decodeContent(block, where)
    case "thinking":
      return Block.reasoning(block.thinking, { signature: block.signature ?? null })
    case "redacted_thinking":
      return Redacted.block(block.data)
    case "tool_use":
      // a copy, so that the conversation shares no mutable object with the input
      return Block.toolCall(block.id, block.name, Guard.copyJsonObject(block.input))
    case "tool_result":
      return decodeToolResult(block, where)
    default:
      return absurd(block)
  }
}

const withBlocks = (role: Message.Role, blocks: ReadonlyArray<Block.Block>): Message.Message =>
  role === "system"
    ? Message.system(blocks as ReadonlyArray<Message.SystemBlock>)
    : role === "user"
    ? Message.user(blocks as ReadonlyArray<Message.UserBlock>)
    : Message.assistant(blocks as ReadonlyArray<Message.AssistantBlock>)

const decodeMessage = (
  message: InputMessage,
  messageIndex: number,
  prefix: ConversionError.Path
): Either.Either<Message.Message, DecodeError> => {
  const role = message.role
  const content = message.content
  if (typeof content === "string") return Either.right(withBlocks(role, [Block.text(content)]))
  const blocks: Array<Block.Block> = new Array(content.length)
  const where: Where = { prefix, messageIndex, blockIndex: 0 }
  for (let blockIndex = 0; blockIndex < content.length; blockIndex++) {
    where.blockIndex = blockIndex
    const decoded = decodeBlock(content[blockIndex]!, where)
    if (failed(decoded)) return Either.left(decoded)
    blocks[blockIndex] = decoded
  }
  // placement after every block decoded: content with no canonical form is reported first
  for (let blockIndex = 0; blockIndex < blocks.length; blockIndex++) {
    const type = blocks[blockIndex]!.type
    if (!Message.isAllowed(role, type)) {
      return Either.left(
        new ConversionError.MisplacedBlock({
          format: "anthropic",
          path: [...prefix, messageIndex, "content", blockIndex],
          messageIndex,
          blockIndex,
          role,
          blockType: type
        })
      )
    }
  }
  return Either.right(withBlocks(role, blocks))
}

const decodeMessages = (
  messages: ReadonlyArray<InputMessage>,
  prefix: ConversionError.Path,
  out: Array<Message.Message>
): Either.Either<Conversation.Conversation, DecodeError> => {
  for (let i = 0; i < messages.length; i++) {
    const decoded = decodeMessage(messages[i]!, i, prefix)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    out.push(decoded.right)
  }
  return Either.right(out)
}

// what decoding reads, compiled to guards once (src/internal/guard.ts)
const isRequest = Guard.compile(Request, { onExcessProperty: "ignore" })
const isMessageArray = Guard.compile(Schema.Array(InputMessage), { onExcessProperty: "ignore" })

// the conversion of a request body or messages array that decodes
const convert = (
  input: Request | ReadonlyArray<InputMessage>
): Either.Either<Conversation.Conversation, DecodeError> => {
  if (isArray(input)) return decodeMessages(input, [], [])
  const { messages, system } = input
  const out: Array<Message.Message> = []
  if (typeof system === "string") out.push(Message.system(system))
  else if (system !== undefined && system !== null && system.length > 0) {
    out.push(Message.system(system.map((block) => Block.text(block.text))))
  }
  return decodeMessages(messages, ["messages"], out)
}

const isArray = (u: unknown): u is ReadonlyArray<any> => Array.isArray(u)

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * {@link decode} without its guard: the Schema decode of the whole input, then the conversion. Every
 * malformed input is reported from here.
 *
 * @internal
 */
export const decodeWithSchema = (
  input: unknown
): Either.Either<Conversation.Conversation, DecodeError> => {
  const locator: Input.Locator = { messages: Array.isArray(input) ? [] : ["messages"], blocks: "content" }
  // only what is read is walked: a request body's `tools` and the like are ignored
  const deep = isRecord(input)
    ? Input.tooDeep({ system: input["system"], messages: input["messages"] })
    : Input.tooDeep(input)
  if (deep !== undefined) {
    return Either.left(
      new ConversionError.MalformedInput({
        format: name,
        path: deep,
        reason: `nested more than ${Input.maxDepth} levels deep (or cyclic)`,
        ...Input.locate(deep, locator)
      })
    )
  }
  if (Array.isArray(input)) {
    const messages = decodeMessageArray(input)
    return Either.isLeft(messages)
      ? Either.left(Input.malformed(messages.left, name, locator))
      : convert(messages.right)
  }
  if (!isRecord(input)) {
    return Either.left(
      new ConversionError.MalformedInput({
        format: name,
        path: [],
        reason: `expected a request body {system?, messages} or an array of messages, actual ${describe(input)}`
      })
    )
  }
  const request = decodeRequest(input)
  return Either.isLeft(request) ? Either.left(Input.malformed(request.left, name, locator)) : convert(request.right)
}

/**
 * Read an Anthropic transcript into a canonical conversation. Accepts a `{system?, messages}` object
 * (the reference's output, or a whole request body whose request parameters are ignored) or a bare
 * `messages` array. A `system` string, or a list of text blocks, becomes one leading system message
 * (none when it is `null`, absent or an empty list).
 *
 * Errors locate the input: `path` is the full path into it and `messageIndex` / `blockIndex` index
 * its `messages` and their `content`. Fails with `MalformedInput` (not the Anthropic shape: checked
 * first, for the whole input), `UnsupportedContent` (content with no canonical form) or
 * `MisplacedBlock` (for example a `tool_use` in a user message). Never throws.
 *
 * @category decoding
 * @since 0.1.0
 */
export const decode = (
  input: unknown,
  _options?: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => {
  // input the guard passes is converted as it is; anything else is the Schema decoder's to answer,
  // which builds the exact error (docs/performance.md)
  return Input.total("anthropic", () => {
    if (typeof input === "object" && input !== null && !Array.isArray(input)) {
      const unknown = unknownRequestKey(input as { readonly [key: string]: unknown })
      if (unknown !== undefined) return Either.left(unknown)
    }
    return (Array.isArray(input) ? isMessageArray(input) : isRequest(input))
      ? convert(input as Request | ReadonlyArray<InputMessage>)
      : decodeWithSchema(input)
  })
}

/**
 * The keys of a request body: where the conversation is (`system`, `messages`) and the Messages
 * API's other request parameters (`MessageCreateParams` of `@anthropic-ai/sdk` 1.16, with
 * `temperature`, `top_k`, `top_p`, `mcp_servers` and `betas` of earlier versions and the beta API),
 * which decoding accepts and ignores. Any other key is a `MalformedInput`: nothing is dropped
 * unseen, and an OpenAI body read as Anthropic says so.
 *
 * @category schemas
 * @since 0.1.0
 */
export const requestKeys: RequestBody.Keys = {
  conversation: ["system", "messages"],
  parameters: [
    "model",
    "max_tokens",
    "betas",
    "cache_control",
    "container",
    "context_management",
    "diagnostics",
    "inference_geo",
    "mcp_servers",
    "metadata",
    "output_config",
    "output_format",
    "service_tier",
    "speed",
    "stop_sequences",
    "stream",
    "temperature",
    "thinking",
    "tool_choice",
    "tools",
    "top_k",
    "top_p",
    "user_profile_id",
    "workspace_id"
  ]
}

const unknownRequestKey = RequestBody.checker("anthropic", requestKeys)

/**
 * The Anthropic format as a {@link Codec.Codec}.
 *
 * @category codecs
 * @since 0.1.0
 */
export const codec: Codec.Codec<Wire, EncodeOptions, DecodeOptions, EncodeError, DecodeError> = { name, encode, decode }

/**
 * A Schema from the Anthropic wire shape to a canonical conversation (default options), for Schema
 * pipelines such as `Schema.parseJson(AnthropicFormat.schema)`. Its encoded side is {@link Input}:
 * `Schema.encodedSchema` and `JSONSchema.make` of it describe the wire. Input that is not of that
 * shape fails with `Input`'s parse issue; conversion errors become parse issues carrying the tagged
 * error's message.
 *
 * @category schemas
 * @since 0.1.0
 */
export const schema: Schema.Schema<Conversation.Conversation, typeof AnthropicInput.Encoded> = Codec.toSchema(
  codec,
  AnthropicInput
)

// -----------------------------------------------------------------------------
// model responses
// -----------------------------------------------------------------------------

/**
 * Options of {@link decodeResponse} and {@link decodeStream}. `omit`: content block types to leave
 * out of the assistant turn instead of failing on them, for blocks with no canonical form that the
 * caller chooses not to keep: the server-tool blocks (`server_tool_use`, `web_search_tool_result`,
 * `web_fetch_tool_result`, `code_execution_tool_result`, ...). Without it, such a block is an
 * `UnsupportedContent` error. (`redacted_thinking` is read as {@link decode} reads it, and can be
 * left out too.)
 *
 * @category models
 * @since 0.2.0
 */
export interface ResponseOptions extends AnthropicResponse.ResponseOptions {}

/**
 * Read an Anthropic `Message`, as `messages.create` returns it, into a
 * {@link ModelResponse.ModelResponse}: the assistant turn (its content read as {@link decode}
 * reads an assistant message; a text block's `citations` kept in that block's `detail`), the stop
 * reason (`end_turn` / `stop_sequence` → `stop`, `tool_use` → `tool_calls`, `max_tokens` /
 * `model_context_window_exceeded` → `max_tokens`, `refusal` → `refusal` with
 * `stop_details.explanation` as the refusal text, `pause_turn` → `pause`) and the usage
 * (`inputTokens` counts cache reads and writes). Never throws.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeResponse = (
  input: unknown,
  options?: ResponseOptions
): Either.Either<ModelResponse.ModelResponse, ConversionError.ResponseError> =>
  AnthropicResponse.decodeResponse(input, options)

/**
 * Fold a stream of `MessageStreamEvent`s (what `messages.create({ stream: true })` yields; from the
 * SDK's async iterable with `Stream.fromAsyncIterable`) into the response {@link decodeResponse}
 * gives for the same message sent whole. A stream that ends before `message_stop` fails with
 * `IncompleteStream`.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeStream = <E, R>(
  events: Stream.Stream<unknown, E, R>,
  options?: ResponseOptions
): Effect.Effect<ModelResponse.ModelResponse, E | ConversionError.ResponseError, R> =>
  AnthropicStream.decodeStream(events, options)

import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import * as AnthropicResponse from "./internal/anthropic/response.js"
import * as AnthropicStream from "./internal/anthropic/stream.js"
import type * as ModelResponse from "./ModelResponse.js"
