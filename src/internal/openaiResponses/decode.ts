/**
 * OpenAI Responses `input` items to a canonical conversation (docs/formats/openai-responses.md).
 * The output items of a `Response` are input items too, so `response.ts` reads them with the item
 * decoding here.
 *
 * @internal
 */
import type * as Brand from "effect/Brand"
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import * as Schema from "effect/Schema"
import * as Block from "../../Block.js"
import type * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import type * as Format from "../../OpenAiResponsesFormat.js"
import { standard } from "../base64.js"
import * as Decoder from "../decoder.js"
import { isRecord } from "../plain.js"
import * as ProviderContent from "../providerContent.js"
import { copyJson, copyJsonObject, toolCallOfArguments, unsupportedContent } from "../wireInput.js"
import * as Wire from "./schema.js"

const format = "openai-responses" as const

/** Where an item sits: its path and index in the item list, and the block index where one applies. */
export interface Where {
  readonly path: ConversionError.Path
  readonly messageIndex: number
  readonly blockIndex?: number | undefined
}

const at = (where: Where, key: string | number, blockIndex?: number): Where =>
  blockIndex === undefined
    ? { ...where, path: [...where.path, key] }
    : { ...where, path: [...where.path, key, blockIndex], blockIndex }

export const unsupported = (where: Where, contentType: string, reason: string) =>
  unsupportedContent({ format, ...where }, contentType, reason)

/** `detail` holding what a block keeps of its item, or `null` when it keeps nothing. */
export const detailOf = (meta: Format.ItemDetail): Json.JsonObject | null => {
  const out: { [key: string]: Json.JsonValue } = {}
  if (meta.id !== undefined) out["id"] = meta.id
  if (meta.phase !== undefined) out["phase"] = meta.phase
  if (meta.part !== undefined) out["part"] = meta.part
  if (meta.annotations !== undefined) out["annotations"] = meta.annotations
  if (meta.logprobs !== undefined) out["logprobs"] = meta.logprobs
  if (meta.item !== undefined) out["item"] = meta.item
  return Object.keys(out).length === 0 ? null : { [Wire.detailKey]: out }
}

// the keys of each item (and of an output_text part) that its blocks hold otherwise
const itemKeys = {
  message: new Set(["type", "role", "content", "id", "phase"]),
  reasoning: new Set(["type", "id", "summary", "content", "encrypted_content"]),
  function_call: new Set(["type", "call_id", "name", "arguments", "id"])
} as const

/**
 * The item's keys outside `known` with something in them (a function call's `caller` and
 * `namespace`, a `status` other than `completed`, ...), as JSON: what its blocks keep of it in
 * `detail.openai.item`. A finished item's `completed` status is what encoding writes by default.
 */
const itemRest = (raw: unknown, known: ReadonlySet<string>): { readonly item?: Json.JsonObject } => {
  if (!isRecord(raw)) return {}
  const out: { [key: string]: Json.JsonValue } = {}
  for (const key of Object.keys(raw)) {
    if (known.has(key)) continue
    const value = raw[key]
    if (value === undefined || value === null || key === "status" && value === "completed") continue
    const copied = copyJson(value, 1)
    if (copied !== undefined) out[key] = copied
  }
  return Object.keys(out).length === 0 ? {} : { item: out }
}

/** An output_text part's `annotations` and `logprobs`, when it has any. */
const partRest = (
  raw: unknown
): { readonly annotations?: ReadonlyArray<Json.JsonObject>; readonly logprobs?: ReadonlyArray<Json.JsonValue> } => {
  if (!isRecord(raw)) return {}
  const out: { annotations?: ReadonlyArray<Json.JsonObject>; logprobs?: ReadonlyArray<Json.JsonValue> } = {}
  for (const key of ["annotations", "logprobs"] as const) {
    const value = raw[key]
    if (!Array.isArray(value) || value.length === 0) continue
    const copied = copyJson(value, 1)
    if (copied !== undefined) (out as Record<string, unknown>)[key] = copied
  }
  return out
}

type Other = { readonly type: string & Brand.Brand<"ResponsesOtherType"> }

const isOther = <A extends { readonly type?: string | undefined }>(
  value: A | Other,
  known: ReadonlySet<string>
): value is Other => value.type !== undefined && !known.has(value.type)

const partTypes: ReadonlySet<string> = new Set(["input_text", "output_text", "refusal", "input_image"])
const itemTypes: ReadonlySet<string> = new Set(["message", "reasoning", "function_call", "function_call_output"])

/** Is this item one of the kinds decoding converts? */
export const isKnownItem = (
  item: Format.InputItem
): item is Exclude<Format.InputItem, Other> => !isOther(item, itemTypes)

const base64DataUrl = /^data:(.*?);base64,/is

const decodePart = (
  part: Format.InputPart,
  where: Where,
  assistant: boolean
): Either.Either<
  { readonly block: Block.ContentBlock; readonly refusal: boolean },
  ConversionError.UnsupportedContent
> => {
  if (isOther(part, partTypes)) {
    return unsupported(where, part.type, "a canonical message holds text and images (base64 data URLs) only")
  }
  switch (part.type) {
    case "input_text":
    case "output_text":
      return Either.right({ block: Block.text(part.text), refusal: false })
    case "refusal":
      return assistant
        ? Either.right({ block: Block.text(part.refusal), refusal: true })
        : unsupported(where, "refusal", "a refusal part belongs in an assistant message")
    case "input_image": {
      const url = part.image_url
      const match = typeof url === "string" ? base64DataUrl.exec(url) : null
      if (typeof url === "string" && match !== null) {
        return Either.right({
          block: Block.image(standard(url.slice(match[0].length)), match[1] ?? ""),
          refusal: false
        })
      }
      return unsupported(
        at(where, typeof url === "string" ? "image_url" : "file_id"),
        "input_image",
        "only a base64 data URL (data:<mime>;base64,<data>) has a canonical form; fetch the image and inline it"
      )
    }
    default:
      return absurd(part)
  }
}

/** The parts of an item's `key` (a message's `content`, a function call output's `output`). */
const decodeContent = (
  content: string | ReadonlyArray<Format.InputPart>,
  where: Where,
  assistant: boolean,
  key: "content" | "output" = "content"
): Either.Either<
  Array<{ readonly block: Block.ContentBlock; readonly refusal: boolean }>,
  ConversionError.UnsupportedContent
> => {
  if (typeof content === "string") return Either.right([{ block: Block.text(content), refusal: false }])
  const out: Array<{ readonly block: Block.ContentBlock; readonly refusal: boolean }> = []
  for (let k = 0; k < content.length; k++) {
    const decoded = decodePart(content[k]!, at(where, key, k), assistant)
    if (Either.isLeft(decoded)) return Either.left(decoded.left)
    out.push(decoded.right)
  }
  return Either.right(out)
}

const keepHint = "decode with providerContent: \"keep\" to keep the item as a provider block, which encode writes back"

const otherItem = (type: string): string =>
  (type === "item_reference"
    ? "an item_reference points at state stored by OpenAI, which a canonical conversation does not hold"
    : "only messages, reasoning, function calls and function call outputs have a canonical form") + `; ${keepHint}`

/**
 * Does an item with no canonical form belong to the user's side of a transcript? What a client
 * sends back: an approval (`mcp_approval_response`) or the output of a call (`*_output`: a custom
 * tool's, a shell's, a patch's, a computer's, a tool search's). Everything else is the model's.
 */
export const userSideItem = (type: string): boolean => type === "mcp_approval_response" || type.endsWith("_output")

/**
 * An item with no canonical form kept whole (`providerContent: "keep"`) as a provider block of
 * kind `type`: a copy of the item as it was sent (every key, in its order), which encode writes back.
 */
export const providerItem = (
  raw: unknown,
  type: string,
  where: Where
): Either.Either<Block.ProviderBlock, ConversionError.MalformedInput> => {
  const item = copyJsonObject(raw, 0)
  return item === undefined
    ? Either.left(
      new ConversionError.MalformedInput({
        format,
        path: where.path,
        messageIndex: where.messageIndex,
        reason: "expected an item of JSON values"
      })
    )
    : Either.right(Block.provider(format, type, item))
}

/**
 * The canonical blocks of one assistant-side item (an assistant message, reasoning, a function call).
 * `raw` is the item as sent (decoding keeps only the keys the schema declares), whose other keys the
 * blocks keep in their detail.
 */
export const decodeAssistantItem = (
  item: Format.InputItem,
  where: Where,
  options: Format.DecodeOptions | undefined,
  raw: unknown = item
): Either.Either<Array<Message.AssistantBlock>, Format.DecodeError> => {
  if (isOther(item, itemTypes)) {
    return ProviderContent.keeps(options)
      ? Either.map(providerItem(raw, item.type, where), (block) => [block])
      : unsupported(at(where, "type"), item.type, otherItem(item.type))
  }
  switch (item.type) {
    case "reasoning": {
      const id = item.id ?? undefined
      const signature = item.encrypted_content ?? null
      const rest = itemRest(raw, itemKeys.reasoning)
      const entries: Array<{ readonly text: string; readonly part?: "reasoning_text" }> = [
        ...item.summary.map((s) => ({ text: s.text })),
        ...(item.content ?? []).map((c) => ({ text: c.text, part: "reasoning_text" as const }))
      ]
      if (entries.length === 0) entries.push({ text: "" })
      return Either.right(entries.map((e) =>
        Block.reasoning(e.text, {
          signature,
          detail: detailOf({
            ...(id === undefined ? {} : { id }),
            ...(e.part === undefined ? {} : { part: e.part }),
            ...rest
          })
        })
      ))
    }
    case "function_call": {
      const id = item.id ?? undefined
      const rest = itemRest(raw, itemKeys.function_call)
      return Either.map(
        toolCallOfArguments(
          () => ({ format, ...at(where, "arguments") }),
          { id: item.call_id, name: item.name, raw: item.arguments },
          options?.invalidToolArguments,
          { detail: detailOf({ ...(id === undefined ? {} : { id }), ...rest }) }
        ),
        (call) => [call]
      )
    }
    case undefined:
    case "message": {
      if (!("role" in item)) return Either.right([])
      const id = item.id ?? undefined
      const phase = item.phase ?? undefined
      const rest = itemRest(raw, itemKeys.message)
      const rawParts = isRecord(raw) && Array.isArray(raw["content"]) ? raw["content"] as ReadonlyArray<unknown> : []
      return Either.map(
        decodeContent(item.content, where, true),
        (parts) =>
          parts.map(({ block, refusal }, k) =>
            block.type === "text"
              ? Block.text(block.text, {
                detail: detailOf({
                  ...(id === undefined ? {} : { id }),
                  ...(phase === undefined ? {} : { phase }),
                  ...(refusal ? { part: "refusal" as const } : {}),
                  ...partRest(rawParts[k]),
                  ...rest
                })
              })
              : block
          )
      )
    }
    case "function_call_output":
      return unsupported(at(where, "type"), item.type, "a tool output belongs in a user turn")
    default:
      return absurd(item)
  }
}

const toConversation = (
  items: ReadonlyArray<Format.InputItem>,
  raw: ReadonlyArray<unknown>,
  prefix: ConversionError.Path,
  leading: ReadonlyArray<Message.Message>,
  options: Format.DecodeOptions | undefined
): Either.Either<Conversation.Conversation, Format.DecodeError> => {
  const keep = ProviderContent.keeps(options)
  const out: Array<Message.Message> = [...leading]
  // tool outputs and other items a client sends back, before the next user message or model item
  let results: Array<Block.ToolResultBlock | Block.ProviderBlock> = []
  let assistant: Array<Message.AssistantBlock> | undefined
  const flushResults = () => {
    if (results.length > 0) out.push(Message.user(results))
    results = []
  }
  const flushAssistant = () => {
    if (assistant !== undefined) out.push(Message.assistant(assistant))
    assistant = undefined
  }
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!
    const where: Where = { path: [...prefix, i], messageIndex: i }
    if ((item.type === undefined || item.type === "message") && "role" in item && item.role !== "assistant") {
      const content = decodeContent(item.content, where, false)
      if (Either.isLeft(content)) return Either.left(content.left)
      const blocks = content.right.map((p) => p.block)
      flushAssistant()
      if (item.role === "user") {
        out.push(Message.user([...results, ...blocks]))
        results = []
      } else {
        flushResults()
        out.push(Message.system(blocks))
      }
      continue
    }
    if (!isOther(item, itemTypes) && item.type === "function_call_output") {
      const content = decodeContent(item.output, where, false, "output")
      if (Either.isLeft(content)) return Either.left(content.left)
      flushAssistant()
      results.push(Block.toolResult(item.call_id, content.right.map((p) => p.block)))
      continue
    }
    if (keep && isOther(item, itemTypes) && userSideItem(item.type)) {
      const block = providerItem(raw[i], item.type, where)
      if (Either.isLeft(block)) return Either.left(block.left)
      flushAssistant()
      results.push(block.right)
      continue
    }
    const blocks = decodeAssistantItem(item, where, options, raw[i])
    if (Either.isLeft(blocks)) return Either.left(blocks.left)
    flushResults()
    ;(assistant ??= []).push(...blocks.right)
  }
  flushAssistant()
  flushResults()
  return Either.right(out)
}

const itemList = Decoder.shape(Schema.Array(Wire.InputItem), { onExcessProperty: "ignore" })

/** Where the item list is, and the messages its request body puts before it (`instructions`). */
interface Target extends Decoder.Target<ReadonlyArray<Format.InputItem>> {
  readonly leading: ReadonlyArray<Message.Message>
}

const atList = { messages: [], blocks: ["content"] }
const atRequest = { messages: ["input"], blocks: ["content"] }

const describe = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : isRecord(u) ? "an object without input" : typeof u

/**
 * `OpenAiResponsesFormat.decode`: an item list, or a request body with `input` (a string or items)
 * and `instructions`, read by the one decode sequence (internal/decoder.ts).
 */
export const decode: Decoder.Decode<Format.DecodeOptions, Format.DecodeError> = Decoder.make({
  format,
  requestKeys: Wire.requestKeys,
  api: "Responses API",
  issue: "deepest",
  depthLimit: true,
  target: (input): Target | Decoder.Result<Conversation.Conversation, never> => {
    if (Array.isArray(input)) return { shape: itemList, value: input, path: [], locator: atList, leading: [] }
    if (!isRecord(input) || !("input" in input)) {
      return Either.left(
        new ConversionError.MalformedInput({
          format,
          path: [],
          reason: `expected an array of input items or a request body {input: [...]}, actual ${describe(input)}`
        })
      )
    }
    const instructions = input["instructions"]
    if (instructions !== undefined && instructions !== null && typeof instructions !== "string") {
      return Either.left(
        new ConversionError.MalformedInput({
          format,
          path: ["instructions"],
          reason: "expected instructions to be a string or null"
        })
      )
    }
    const leading = typeof instructions === "string" ? [Message.system(instructions)] : []
    const items = input["input"]
    if (typeof items === "string") return Either.right([...leading, Message.user(items)])
    return { shape: itemList, value: items, path: atRequest.messages, locator: atRequest, leading }
  },
  convert: (items, target, options) =>
    toConversation(
      items,
      // the items as they were sent (a provider block keeps its item whole, not the decoded shape)
      Array.isArray(target.value) ? target.value : items,
      target.path,
      target.leading,
      options
    )
})
