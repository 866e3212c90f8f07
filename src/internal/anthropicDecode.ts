/**
 * The Anthropic decoder's fast path: one walk over the input with plain type checks that builds the
 * canonical conversation as it goes.
 *
 * It exists because the Schema decoder in `AnthropicFormat.ts` first copies the whole transcript
 * through unions tried member by member, after a separate depth pass (`wireInput.tooDeep`) that
 * keeps a `Map` of every object: 17 KiB allocated per turn, 0.02-0.03× the hand-written decoder
 * (docs/performance.md, "What changed", decoders). This walk does the same checks on the way: the depth limit
 * is a depth counter, and no error is ever built here.
 *
 * It only answers successes. On anything it does not expect (a wrong type, a missing or `undefined`
 * key, content with no canonical form, a misplaced block, an inherited key where the Schema reads
 * only own keys, input nested too deeply or cyclic) it returns `undefined`, and the caller runs the
 * Schema decoder, which reports the failure exactly as before. So whenever it returns a conversation,
 * the Schema decoder returns the same one: it accepts a subset of what that accepts.
 *
 * @internal
 */
import * as Block from "../Block.js"
import type * as Conversation from "../Conversation.js"
import * as Message from "../Message.js"
import * as Input from "./wireInput.js"

type Record = { readonly [key: string]: unknown }

const hasOwnProperty = Object.prototype.hasOwnProperty

// A JSON-parsed object; the Schema's `Struct` reads arrays as no record.
const isRecord = (u: unknown): u is Record => typeof u === "object" && u !== null && !Array.isArray(u)

// `scan` reports which of these keys a record has as own keys: the Schema reads them only then (the
// optional keys, and the `type` a union picks its member by).
const TYPE = 1
const CITATIONS = 2
const SIGNATURE = 4
const CONTENT = 8
const IS_ERROR = 16

const ownBit = (key: string): number => {
  switch (key) {
    case "type":
      return TYPE
    case "citations":
      return CITATIONS
    case "signature":
      return SIGNATURE
    case "content":
      return CONTENT
    case "is_error":
      return IS_ERROR
    default:
      return 0
  }
}

/**
 * One pass over a record's own enumerable keys, the keys `wireInput.tooDeep` walks: the bits of
 * those of them `ownBit` names, or -1 when a key the walk does not read (`cache_control`, ...) holds
 * a value nested too deeply. The Schema ignores such a key, but `tooDeep` does not. `depth` is the
 * record's level; `known` are the keys the walk reads, and checks, itself.
 */
const scan = (record: Record, depth: number, known: ReadonlyArray<string>): number => {
  let own = 0
  for (const key in record) {
    if (!hasOwnProperty.call(record, key)) continue
    own |= ownBit(key)
    const value = record[key]
    if (
      typeof value === "object" && value !== null && !known.includes(key) &&
      Input.tooDeep(value, Input.maxDepth - depth - 1) !== undefined
    ) return -1
  }
  return own
}

// A key a Schema `optionalWith(..., { exact: true })` reads, given the record's `scan`: `absent` when
// it is no key of the record, `undefined` when the Schema would not take it as it is (an own key
// holding `undefined`; or a key that is inherited or not enumerable, which this walk leaves to it).
const absent: unique symbol = Symbol("absent")
const optional = (record: Record, own: number, bit: number, key: string): unknown =>
  (own & bit) !== 0 ? record[key] : key in record ? undefined : absent

const textKeys = ["type", "text", "citations"]
const imageKeys = ["type", "source"]
const sourceKeys = ["type", "media_type", "data"]
const thinkingKeys = ["type", "thinking", "signature"]
const toolUseKeys = ["type", "id", "name", "input"]
const toolResultKeys = ["type", "tool_use_id", "content", "is_error"]
const messageKeys = ["role", "content"]

// The `scan` of a record the Schema picks a union member for by its `type`, which must be an own key.
const scanTyped = (record: Record, depth: number, known: ReadonlyArray<string>): number => {
  const own = scan(record, depth, known)
  return own >= 0 && (own & TYPE) !== 0 ? own : -1
}

// Citations with no sources (absent, `null` or empty) are no citations.
const noCitations = (record: Record, own: number): boolean => {
  const citations = optional(record, own, CITATIONS, "citations")
  return citations === absent || citations === null || (Array.isArray(citations) && citations.length === 0)
}

const text = (record: Record, depth: number): Block.TextBlock | undefined => {
  const text = record["text"]
  const own = scanTyped(record, depth, textKeys)
  return typeof text === "string" && own >= 0 && noCitations(record, own) ? Block.text(text) : undefined
}

const image = (record: Record, depth: number): Block.ImageBlock | undefined => {
  const source = record["source"]
  if (!isRecord(source) || source["type"] !== "base64" || scanTyped(source, depth + 1, sourceKeys) < 0) {
    return undefined
  }
  const data = source["data"]
  const mediaType = source["media_type"]
  return typeof data === "string" && typeof mediaType === "string" && scanTyped(record, depth, imageKeys) >= 0
    ? Block.image(data, mediaType)
    : undefined
}

const reasoning = (record: Record, depth: number): Block.ReasoningBlock | undefined => {
  const thinking = record["thinking"]
  const own = scanTyped(record, depth, thinkingKeys)
  if (typeof thinking !== "string" || own < 0) return undefined
  const signature = optional(record, own, SIGNATURE, "signature")
  return signature === absent || signature === null || typeof signature === "string"
    ? Block.reasoning(thinking, { signature: signature === absent ? null : signature })
    : undefined
}

const toolCall = (record: Record, depth: number): Block.ToolCallBlock | undefined => {
  const id = record["id"]
  const name = record["name"]
  const input = record["input"]
  if (typeof id !== "string" || typeof name !== "string" || !isRecord(input)) return undefined
  const copy = Input.copyJsonObject(input, depth + 1)
  return copy !== undefined && scanTyped(record, depth, toolUseKeys) >= 0 ? Block.toolCall(id, name, copy) : undefined
}

const toolResult = (record: Record, depth: number): Block.ToolResultBlock | undefined => {
  const id = record["tool_use_id"]
  const own = scanTyped(record, depth, toolResultKeys)
  if (typeof id !== "string" || own < 0) return undefined
  const isError = optional(record, own, IS_ERROR, "is_error")
  if (!(isError === absent || isError === null || typeof isError === "boolean")) return undefined
  const content = toolResultContent(optional(record, own, CONTENT, "content"), depth + 1)
  return content === undefined ? undefined : Block.toolResult(id, content, { isError: isError === true })
}

// A tool result's `content` at level `depth`: absent, a string, or text and image blocks.
const toolResultContent = (value: unknown, depth: number): Array<Block.ContentBlock> | undefined => {
  if (value === absent) return []
  if (typeof value === "string") return [Block.text(value)]
  if (!Array.isArray(value)) return undefined
  const out: Array<Block.ContentBlock> = new Array(value.length)
  for (let k = 0; k < value.length; k++) {
    const item: unknown = value[k]
    if (!isRecord(item)) return undefined
    const type = item["type"]
    const decoded = type === "text" ? text(item, depth + 1) : type === "image" ? image(item, depth + 1) : undefined
    if (decoded === undefined) return undefined
    out[k] = decoded
  }
  return out
}

// A block of a `role` message at level `depth`, if it decodes and that role may hold it.
const block = (record: Record, role: Message.Role, depth: number): Block.Block | undefined => {
  switch (record["type"]) {
    case "text":
      return text(record, depth)
    case "image":
      return image(record, depth)
    case "thinking":
      return role === "assistant" ? reasoning(record, depth) : undefined
    case "tool_use":
      return role === "assistant" ? toolCall(record, depth) : undefined
    case "tool_result":
      return role === "user" ? toolResult(record, depth) : undefined
    default:
      return undefined
  }
}

// A message at level `depth`.
const message = (value: unknown, depth: number): Message.Message | undefined => {
  if (!isRecord(value)) return undefined
  const role = value["role"]
  if (role !== "user" && role !== "assistant" && role !== "system") return undefined
  const raw = value["content"]
  let blocks: Array<Block.Block>
  if (typeof raw === "string") {
    blocks = [Block.text(raw)]
  } else if (Array.isArray(raw)) {
    blocks = new Array(raw.length)
    for (let j = 0; j < raw.length; j++) {
      const item: unknown = raw[j]
      const decoded = isRecord(item) ? block(item, role, depth + 2) : undefined
      if (decoded === undefined) return undefined
      blocks[j] = decoded
    }
  } else {
    return undefined
  }
  if (scan(value, depth, messageKeys) < 0) return undefined
  switch (role) {
    case "system":
      // reasoning, tool calls and tool results were refused above: text and image remain
      return Message.system(blocks as Array<Message.SystemBlock>)
    case "user":
      return Message.user(blocks as Array<Message.UserBlock>)
    case "assistant":
      return Message.assistant(blocks as Array<Message.AssistantBlock>)
  }
}

// The messages array at level `depth`, appended to `out`.
const messages = (value: unknown, depth: number, out: Array<Message.Message>): boolean => {
  if (!Array.isArray(value)) return false
  for (let i = 0; i < value.length; i++) {
    const decoded = message(value[i], depth + 1)
    if (decoded === undefined) return false
    out.push(decoded)
  }
  return true
}

// The `system` parameter (at level 1) as a leading system message, `null` for none.
const system = (value: unknown): Message.Message | null | undefined => {
  if (value === absent || value === null) return null
  if (typeof value === "string") return Message.system(value)
  if (!Array.isArray(value)) return undefined
  if (value.length === 0) return null
  const blocks: Array<Block.TextBlock> = new Array(value.length)
  for (let k = 0; k < value.length; k++) {
    const item: unknown = value[k]
    if (!isRecord(item) || item["type"] !== "text") return undefined
    const text = item["text"]
    const own = scan(item, 2, textKeys)
    if (typeof text !== "string" || own < 0 || !noCitations(item, own)) return undefined
    blocks[k] = Block.text(text)
  }
  return Message.system(blocks)
}

/**
 * The conversation of a `{system?, messages}` request body or a bare messages array, or `undefined`
 * when anything is unexpected: then the Schema decoder has the answer, an error or (rarely) a
 * conversation this walk does not take.
 */
export const decode = (input: unknown): Conversation.Conversation | undefined => {
  const out: Array<Message.Message> = []
  // levels as `wireInput.tooDeep` counts them: a bare array is level 0; a request body is walked as
  // `{system, messages}`, so that its `messages` are at level 1
  if (Array.isArray(input)) return messages(input, 0, out) ? out : undefined
  if (!isRecord(input)) return undefined
  // (the one optional key outside `scan`: a request body's other keys are not walked)
  const leading = system(Object.hasOwn(input, "system") ? input["system"] : "system" in input ? undefined : absent)
  if (leading === undefined) return undefined
  if (leading !== null) out.push(leading)
  return messages(input["messages"], 1, out) ? out : undefined
}
