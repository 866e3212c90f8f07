/**
 * What the two toolkit bridges (`EffectAi`, `AiSdk`) share: the `openreward` provider-options key
 * that carries what the toolkits' messages have no field for, how a canonical message splits into
 * toolkit messages, the tool-result JSON convention, base64 images and stop reasons.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Encoding from "effect/Encoding"
import * as Block from "../Block.js"
import * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"
import type * as Json from "../Json.js"
import type * as Message from "../Message.js"
import type * as ModelResponse from "../ModelResponse.js"
import { standard } from "./base64.js"
import * as BlockError from "./blockError.js"
import { isPlainObject } from "./plain.js"
import * as ProviderContent from "./providerContent.js"
import { copyJson, copyJsonObject } from "./wireInput.js"

// -----------------------------------------------------------------------------
// the `openreward` options key
// -----------------------------------------------------------------------------

/** The provider key under which the bridges keep canonical fields the toolkits have no place for. */
export const optionsKey = "openreward"

/**
 * What the `openreward` key may hold. Every field is optional and absent when it would say nothing.
 *
 * - `detail`: the canonical `detail` of the message or block the toolkit message or part stands for.
 * - `blockDetail`: for a system message (whose content is one string), the `detail` of its text block.
 * - `continues`: this toolkit message continues the previous canonical message (a canonical message
 *   became several toolkit messages: a system turn with several text blocks, a user turn that mixes
 *   tool results with other content).
 * - `empty`: a system message that stands for a canonical system turn with no blocks.
 * - `signature`: a reasoning part's canonical signature.
 */
export interface Marks {
  readonly detail?: Json.JsonObject
  readonly blockDetail?: Json.JsonObject
  readonly continues?: true
  readonly empty?: true
  readonly signature?: string
}

/** The `openreward` entry for these marks, or `undefined` when there is nothing to say. */
export const marksEntry = (marks: {
  readonly detail?: Json.JsonObject | null | undefined
  readonly blockDetail?: Json.JsonObject | null | undefined
  readonly continues?: boolean | undefined
  readonly empty?: boolean | undefined
  readonly signature?: string | null | undefined
}): { [key: string]: Json.JsonValue } | undefined => {
  const out: { [key: string]: Json.JsonValue } = {}
  if (marks.detail != null) out.detail = marks.detail
  if (marks.blockDetail != null) out.blockDetail = marks.blockDetail
  if (marks.continues === true) out.continues = true
  if (marks.empty === true) out.empty = true
  if (marks.signature != null) out.signature = marks.signature
  return Object.keys(out).length === 0 ? undefined : out
}

/**
 * Read the `openreward` entry of a toolkit's options. A malformed entry is an error, not ignored:
 * it was written by this library or by someone imitating it.
 */
export const readMarks = (
  format: ConversionError.Bridge,
  options: unknown,
  path: ConversionError.Path,
  messageIndex: number,
  blockIndex?: number
): Either.Either<Marks, ConversionError.MalformedInput> => {
  if (!isPlainObject(options)) return Either.right({})
  const entry = options[optionsKey]
  if (entry === undefined) return Either.right({})
  const at = [...path, optionsKey]
  const fail = (key: string, expected: string) =>
    Either.left(
      new ConversionError.MalformedInput({
        format,
        path: [...at, key],
        messageIndex,
        ...(blockIndex === undefined ? {} : { blockIndex }),
        reason: `expected ${expected}`
      })
    )
  if (!isPlainObject(entry)) {
    return Either.left(
      new ConversionError.MalformedInput({
        format,
        path: at,
        messageIndex,
        ...(blockIndex === undefined ? {} : { blockIndex }),
        reason: "expected an object"
      })
    )
  }
  const marks: { -readonly [K in keyof Marks]: Marks[K] } = {}
  for (const key of ["detail", "blockDetail"] as const) {
    if (entry[key] === undefined) continue
    const detail = copyJsonObject(entry[key], 0)
    if (detail === undefined) return fail(key, "a JSON object")
    marks[key] = detail
  }
  for (const key of ["continues", "empty"] as const) {
    if (entry[key] === undefined) continue
    if (typeof entry[key] !== "boolean") return fail(key, "a boolean")
    if (entry[key] === true) marks[key] = true
  }
  if (entry.signature !== undefined) {
    if (typeof entry.signature !== "string") return fail("signature", "a string")
    marks.signature = entry.signature
  }
  return Either.right(marks)
}

/** The canonical `detail` for a mark: `null` when absent. */
export const detailOf = (detail: Json.JsonObject | undefined): Json.JsonObject | null => detail ?? null

// -----------------------------------------------------------------------------
// splitting canonical messages
// -----------------------------------------------------------------------------

/** A run of consecutive blocks of one canonical message that becomes one toolkit message. */
export interface Segment<B> {
  readonly kind: "system" | "user" | "tool" | "assistant"
  /** The blocks with their index in the canonical message. */
  readonly blocks: ReadonlyArray<readonly [B, number]>
  /** Is this segment not the first of its canonical message? */
  readonly continues: boolean
}

/**
 * Split a canonical message into the toolkit messages it becomes: a system turn into one message per
 * text block (toolkit system content is one string), a user turn into runs of tool results (`tool`
 * messages) and of other content (`user` messages), an assistant turn into one message. Every
 * message gives at least one segment, so an empty turn is not lost.
 */
export const segments = (message: Message.Message): ReadonlyArray<Segment<Block.Block>> => {
  const blocks = message.blocks as ReadonlyArray<Block.Block>
  if (message.role === "assistant") {
    return [{ kind: "assistant", blocks: blocks.map((b, i) => [b, i] as const), continues: false }]
  }
  if (message.role === "system") {
    if (blocks.length === 0) return [{ kind: "system", blocks: [], continues: false }]
    return blocks.map((b, i) => ({ kind: "system", blocks: [[b, i] as const], continues: i > 0 }))
  }
  if (blocks.length === 0) return [{ kind: "user", blocks: [], continues: false }]
  const out: Array<{ kind: "user" | "tool"; blocks: Array<readonly [Block.Block, number]>; continues: boolean }> = []
  blocks.forEach((block, i) => {
    const kind = block.type === "tool_result" ? "tool" : "user"
    const last = out[out.length - 1]
    if (last !== undefined && last.kind === kind) last.blocks.push([block, i])
    else out.push({ kind, blocks: [[block, i]], continues: out.length > 0 })
  })
  return out
}

/** What a bridge writes beside a toolkit message or part (see {@link marksEntry}). */
export type MarksInput = Parameters<typeof marksEntry>[0]

/** Where a reasoning block's signature is written besides the `openreward` key. */
export type SignatureTarget = "anthropic" | "google" | "none"

/** Encoding options both bridges take. */
export interface EncodeOptions {
  readonly signatures?: SignatureTarget | undefined
  /** A provider block: an `UnsupportedBlock` (default), left out, or its text. */
  readonly providerContent?: ProviderContent.EncodePolicy | undefined
}

/**
 * A toolkit's constructors, one per piece of a canonical conversation: what {@link encodeWith}
 * folds a conversation into. `Message` is the toolkit's message; `User`, `Tool` and `Assistant` the
 * parts of its user, tool and assistant messages.
 */
export interface Toolkit<Out, Message, User, Tool, Assistant> {
  readonly format: ConversionError.Bridge
  /** The toolkit's name in a reason (`"an @effect/ai system message ..."`). */
  readonly name: string
  readonly system: (content: string, marks: MarksInput) => Message
  readonly user: (content: Array<User>, marks: MarksInput) => Message
  readonly tool: (content: Array<Tool>, marks: MarksInput) => Message
  readonly assistant: (content: Array<Assistant>, marks: MarksInput) => Message
  readonly text: (block: Block.TextBlock) => User & Assistant
  /** An image in a user message, or why the toolkit cannot carry it. */
  readonly userImage: (
    block: Block.ImageBlock,
    messageIndex: number,
    blockIndex: number
  ) => Either.Either<User, ConversionError.UnsupportedBlock>
  /** An image in an assistant message, or why the toolkit cannot carry it. */
  readonly assistantImage: (
    block: Block.ImageBlock,
    messageIndex: number,
    blockIndex: number
  ) => Either.Either<Assistant, ConversionError.UnsupportedBlock>
  readonly reasoning: (block: Block.ReasoningBlock, signatures: SignatureTarget) => Assistant
  readonly toolCall: (block: Block.ToolCallBlock) => Assistant
  /** A tool result, with the name of the tool its call named. */
  readonly toolResult: (block: Block.ToolResultBlock, name: string) => Tool
  readonly finish: (messages: Array<Message>) => Out
}

/**
 * A canonical conversation folded into a toolkit's messages with its constructors: placement
 * checked first, each message split into {@link segments}, each segment one toolkit message with
 * the marks that bring the canonical message back, each block one part. A system message holds
 * one string, so a system block that is not text is an `UnsupportedBlock`; a tool result names its
 * tool, taken from the call before it, so a result without one is an `UnmatchedToolResult`.
 */
export const encodeWith = <Out, Message, User, Tool, Assistant>(
  toolkit: Toolkit<Out, Message, User, Tool, Assistant>
) =>
(
  conversation: Conversation.Conversation,
  options?: EncodeOptions
): Either.Either<Out, ConversionError.EncodeError> => {
  const placement = Conversation.validate(conversation)
  if (Either.isLeft(placement)) return Either.left(placement.left)
  const { format, name } = toolkit
  const signatures = options?.signatures ?? "anthropic"
  const names: ToolNames = new Map()
  const messages: Array<Message> = []
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    for (const segment of segments(message)) {
      const detail = segment.continues ? null : message.detail
      const continues = segment.continues
      switch (segment.kind) {
        case "system": {
          const entry = segment.blocks[0]
          if (entry === undefined) {
            messages.push(toolkit.system("", { detail, empty: true }))
            break
          }
          const [block, j] = entry
          if (block.type !== "text") {
            return Either.left(
              BlockError.unsupported(format, i, j, block.type, `an ${name} system message holds one string only`)
            )
          }
          messages.push(toolkit.system(block.text, { detail, blockDetail: block.detail, continues }))
          break
        }
        case "user": {
          const content: Array<User> = []
          for (const [block, j] of segment.blocks) {
            if (block.type === "text") content.push(toolkit.text(block))
            else if (block.type === "image") {
              const part = toolkit.userImage(block, i, j)
              if (Either.isLeft(part)) return Either.left(part.left)
              content.push(part.right)
            } else if (block.type === "provider") {
              const text = providerText(format, block, i, j, options?.providerContent)
              if (text instanceof ConversionError.UnsupportedBlock) return Either.left(text)
              if (text !== undefined) content.push(toolkit.text(text))
            }
          }
          messages.push(toolkit.user(content, { detail, continues }))
          break
        }
        case "tool": {
          const content: Array<Tool> = []
          for (const [block, j] of segment.blocks) {
            if (block.type !== "tool_result") continue
            const tool = names.get(block.tool_call_id)
            if (tool === undefined) {
              return Either.left(
                new ConversionError.UnmatchedToolResult({
                  format,
                  path: [i, "blocks", j],
                  messageIndex: i,
                  blockIndex: j,
                  toolCallId: block.tool_call_id,
                  reason: `an ${name} tool result names its tool, taken from the tool call before it`
                })
              )
            }
            content.push(toolkit.toolResult(block, tool))
          }
          messages.push(toolkit.tool(content, { detail, continues }))
          break
        }
        case "assistant": {
          const content: Array<Assistant> = []
          for (const [block, j] of segment.blocks) {
            switch (block.type) {
              case "text":
                content.push(toolkit.text(block))
                break
              case "image": {
                const part = toolkit.assistantImage(block, i, j)
                if (Either.isLeft(part)) return Either.left(part.left)
                content.push(part.right)
                break
              }
              case "reasoning":
                content.push(toolkit.reasoning(block, signatures))
                break
              case "tool_call":
                names.set(block.id, block.name)
                content.push(toolkit.toolCall(block))
                break
              case "provider": {
                const text = providerText(format, block, i, j, options?.providerContent)
                if (text instanceof ConversionError.UnsupportedBlock) return Either.left(text)
                if (text !== undefined) content.push(toolkit.text(text))
                break
              }
            }
          }
          messages.push(toolkit.assistant(content, { detail }))
          break
        }
      }
    }
  }
  return Either.right(toolkit.finish(messages))
}

/**
 * A provider block in a toolkit's messages: the toolkits have no part for content a provider's API
 * hosts, so it is an `UnsupportedBlock` (default), left out, or its text, as `policy` says.
 */
const providerText = (
  format: ConversionError.Bridge,
  block: Block.ProviderBlock,
  messageIndex: number,
  blockIndex: number,
  policy: ProviderContent.EncodePolicy | undefined
): Block.TextBlock | ConversionError.UnsupportedBlock | undefined => {
  const other = ProviderContent.foreign(format, block, messageIndex, blockIndex, policy)
  return other instanceof ConversionError.UnsupportedBlock ? other : other._tag === "text" ? other.block : undefined
}

/**
 * Appends decoded toolkit messages to a canonical conversation, merging a message marked
 * `continues` into the previous canonical message when it has the same role.
 */
export class ConversationBuilder {
  private readonly messages: Array<{ role: Message.Role; blocks: Array<Block.Block>; detail: Json.JsonObject | null }> =
    []
  /** The index the next message started by {@link push} will have. */
  get nextIndex(): number {
    return this.messages.length
  }
  /** The index of the canonical message a toolkit message with these marks goes to. */
  indexFor(role: Message.Role, continues: boolean): number {
    const last = this.messages[this.messages.length - 1]
    return continues && last !== undefined && last.role === role ? this.messages.length - 1 : this.messages.length
  }
  push(role: Message.Role, blocks: ReadonlyArray<Block.Block>, detail: Json.JsonObject | null, continues: boolean) {
    const last = this.messages[this.messages.length - 1]
    if (continues && last !== undefined && last.role === role) last.blocks.push(...blocks)
    else this.messages.push({ role, blocks: [...blocks], detail })
  }
  /** The conversation; placement is correct by construction of the decoders. */
  result(): ReadonlyArray<Message.Message> {
    return this.messages as ReadonlyArray<Message.Message>
  }
}

/** Tool names by call id, filled in conversation order so a result finds the call before it. */
export type ToolNames = Map<string, string>

// -----------------------------------------------------------------------------
// images
// -----------------------------------------------------------------------------

/**
 * The bytes of canonical base64 image data, or `undefined` when the data is not base64 that encodes
 * back to the same text (the toolkits carry bytes, so anything else would not round-trip).
 */
export const bytesOf = (data: string): Uint8Array | undefined => {
  const bytes = Encoding.decodeBase64(data)
  if (Either.isLeft(bytes)) return undefined
  return Encoding.encodeBase64(bytes.right) === data ? bytes.right : undefined
}

/** Why an image whose type is not `image/*` is refused: it would come back as a file, not an image. */
export const notImageType = (mimeType: string): string =>
  `the mimeType ${JSON.stringify(mimeType)} is not image/*, so the file part would not read back as an image`

/** Bare base64 of bytes. */
export const base64Of = (bytes: Uint8Array): string => Encoding.encodeBase64(bytes)

const dataUrl = /^data:([^;,]*)(;[^,]*)?,(.*)$/s

/**
 * The bare base64 of a toolkit's string image data: a `data:` URL's payload (which must be base64),
 * or the string itself, base64url rewritten to base64 (base64.ts). `undefined` for a `data:` URL that is not base64.
 */
export const base64OfString = (data: string): { readonly data: string; readonly mediaType?: string } | undefined => {
  const match = dataUrl.exec(data)
  if (match === null) return { data: standard(data) }
  if (!(match[2] ?? "").split(";").includes("base64")) return undefined
  return match[1] === undefined || match[1] === "" ? { data: standard(match[3] ?? "") } : {
    data: standard(match[3] ?? ""),
    mediaType: match[1]
  }
}

/** Does a string name a remote resource rather than carry data? */
export const isRemoteUrl = (data: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(data)

// -----------------------------------------------------------------------------
// the tool-result JSON convention
// -----------------------------------------------------------------------------

export const encodeContent = (block: Block.ContentBlock): Json.JsonObject =>
  block.type === "text"
    ? { text: block.text, detail: block.detail, type: "text" }
    : { data: block.data, mimeType: block.mimeType, detail: block.detail, type: "image" }

/**
 * A tool result's content as one JSON value, for toolkits whose tool results are one JSON value
 * (`@effect/ai`) or for JSON error outputs (AI SDK `error-json`): exactly one text block without
 * `detail` is its string; anything else is the array of canonical wire blocks
 * (`{"text", "detail", "type"}`, `{"data", "mimeType", "detail", "type"}`).
 */
export const resultJson = (blocks: ReadonlyArray<Block.ContentBlock>): Json.JsonValue => {
  const [first] = blocks
  if (blocks.length === 1 && first !== undefined && first.type === "text" && first.detail === null) return first.text
  return blocks.map(encodeContent)
}

const decodeContent = (value: unknown): Block.ContentBlock | undefined => {
  if (!isPlainObject(value)) return undefined
  const detail = value.detail === undefined || value.detail === null ? null : copyJsonObject(value.detail, 0)
  if (detail === undefined) return undefined
  if (value.type === "text") {
    if (typeof value.text !== "string") return undefined
    if (Object.keys(value).some((k) => k !== "text" && k !== "detail" && k !== "type")) return undefined
    return Block.text(value.text, { detail })
  }
  if (value.type === "image") {
    if (typeof value.data !== "string" || typeof value.mimeType !== "string") return undefined
    if (Object.keys(value).some((k) => k !== "data" && k !== "mimeType" && k !== "detail" && k !== "type")) {
      return undefined
    }
    return Block.image(value.data, value.mimeType, { detail })
  }
  return undefined
}

/**
 * The canonical content of a JSON tool result, the inverse of {@link resultJson}: a string is one
 * text block, an array of canonical wire blocks is those blocks, and any other JSON value (what a
 * handler that is not this library's returned) is one text block of its JSON text, which is what the
 * toolkits' providers send the model. `undefined` when the value is not JSON.
 */
export const resultBlocks = (result: unknown): ReadonlyArray<Block.ContentBlock> | undefined => {
  if (typeof result === "string") return [Block.text(result)]
  if (Array.isArray(result)) {
    const blocks: Array<Block.ContentBlock> = []
    for (const item of result) {
      const block = decodeContent(item)
      if (block === undefined) break
      blocks.push(block)
    }
    if (blocks.length === result.length) return blocks
  }
  const json = copyJson(result, 0)
  return json === undefined ? undefined : [Block.text(JSON.stringify(json))]
}

/**
 * Content blocks from a JSON value that is not a plain string result: an array of canonical wire
 * blocks is those blocks, any other value one text block of its JSON text (what providers show the
 * model). `undefined` when the value is not JSON.
 */
export const jsonBlocks = (value: unknown): ReadonlyArray<Block.ContentBlock> | undefined =>
  typeof value === "string" ? [Block.text(JSON.stringify(value))] : resultBlocks(value)

/** Tool specs with unique names, or the index of the first repeated name. */
export const repeatedName = (specs: ReadonlyArray<{ readonly name: string }>): number | undefined => {
  const names = new Set<string>()
  for (let i = 0; i < specs.length; i++) {
    const name = specs[i]!.name
    if (names.has(name)) return i
    names.add(name)
  }
  return undefined
}

/** A JSON object copy of tool-call input, or `undefined` when it is not one. */
export const inputObject = (input: unknown): Json.JsonObject | undefined => copyJsonObject(input, 0)

/** Text for an error message about a value that may not be JSON. */
export const show = (value: unknown): string => {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? String(value) : text
  } catch {
    return String(value)
  }
}

// -----------------------------------------------------------------------------
// stop reasons
// -----------------------------------------------------------------------------

/** A toolkit's finish reason (both use the same words) normalised. */
export const stopReason = (reason: string | undefined): ModelResponse.StopReason => {
  switch (reason) {
    case "stop":
      return "stop"
    case "tool-calls":
      return "tool_calls"
    case "length":
      return "max_tokens"
    case "content-filter":
      return "content_filter"
    case "pause":
      return "pause"
    default:
      return "other"
  }
}

/** A usage record without the counts that are absent. */
export const usage = (
  counts: { readonly [K in keyof ModelResponse.Usage]?: number | undefined }
): ModelResponse.Usage => {
  const out: { -readonly [K in keyof ModelResponse.Usage]: number } = {}
  for (const key of ["inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens"] as const) {
    const value = counts[key]
    if (typeof value === "number") out[key] = value
  }
  return out
}
