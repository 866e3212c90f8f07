/**
 * Canonical conversation to a Gemini request. Tool-call names are collected from the whole
 * conversation first (a later call with the same id wins); then one pass encodes the messages.
 * Errors are reported in the reference SDK's order of checks:
 *
 * 1. block placement over the whole conversation (`MisplacedBlock`);
 * 2. system messages, in order: one after the first non-system turn is `UnsupportedMessage` (or,
 *    with `laterSystem: "user"`, a user turn), an image in a leading one is `UnsupportedBlock`;
 * 3. every other block in document order: reasoning (unless sent as thoughts), then for a tool
 *    result its call's name (`UnmatchedToolResult`) before its content (`UnsupportedBlock`).
 *
 * The spelling of keys is abstracted in a {@link Builder}, so one walk serves both casings. Which
 * block may stand in which role is read from `Message.allowedBlockTypes`; what Gemini cannot hold
 * where the canonical form can (an image in the system instruction or in a tool result, reasoning
 * without the `reasoning: "thought"` option) is decided here.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type * as Block from "../../Block.js"
import * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import type * as GoogleFormat from "../../GoogleFormat.js"
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import * as ProviderContent from "../providerContent.js"
import * as ToolCallIds from "../toolCallIds.js"

/** Encode options with every default filled in. */
interface Resolved {
  readonly casing: GoogleFormat.Casing
  readonly systemInstruction: "string" | "content"
  readonly toolCallIds: boolean
  readonly toolErrors: "output" | "error"
  readonly reasoning: "error" | "thought"
  readonly laterSystem: "error" | "user"
  readonly providerContent: ProviderContent.EncodePolicy
}

/** The defaults: exactly the reference SDK's output. */
const defaults: Resolved = {
  casing: "snake",
  systemInstruction: "string",
  toolCallIds: false,
  toolErrors: "output",
  reasoning: "error",
  laterSystem: "error",
  providerContent: "error"
}

/** The options with every default filled in (no allocation for the common call without options). */
const resolve = (options: GoogleFormat.EncodeOptions | undefined): Resolved =>
  options === undefined ? defaults : {
    casing: options.casing ?? "snake",
    systemInstruction: options.systemInstruction ?? "string",
    toolCallIds: options.toolCallIds ?? false,
    toolErrors: options.toolErrors ?? "output",
    reasoning: options.reasoning ?? "error",
    laterSystem: options.laterSystem ?? "error",
    providerContent: options.providerContent ?? "error"
  }

/** Builds parts and the request in one spelling. */
interface Builder<C extends GoogleFormat.Casing> {
  readonly text: (text: string, signature: string | undefined) => GoogleFormat.Part<C>
  readonly thought: (text: string, signature: string | null) => GoogleFormat.Part<C>
  readonly image: (mimeType: string, data: string, signature: string | undefined) => GoogleFormat.Part<C>
  readonly call: (call: GoogleFormat.FunctionCall, signature: string | undefined) => GoogleFormat.Part<C>
  readonly response: (response: GoogleFormat.FunctionResponse) => GoogleFormat.Part<C>
  readonly request: (
    system: GoogleFormat.SystemInstruction,
    contents: ReadonlyArray<GoogleFormat.Content<C>>
  ) => GoogleFormat.Request<C>
}

/** snake_case, the reference SDK's (and the Python SDK's) spelling. */
const snake: Builder<"snake"> = {
  text: (text, signature) => signature === undefined ? { text } : { text, thought_signature: signature },
  thought: (text, signature) =>
    signature === null ? { text, thought: true } : { text, thought: true, thought_signature: signature },
  image: (mime_type, data, signature) =>
    signature === undefined
      ? { inline_data: { mime_type, data } }
      : { inline_data: { mime_type, data }, thought_signature: signature },
  call: (function_call, signature) =>
    signature === undefined ? { function_call } : { function_call, thought_signature: signature },
  response: (function_response) => ({ function_response }),
  request: (system_instruction, contents) => ({ system_instruction, contents })
}

/** lowerCamelCase, the REST API's canonical and the JS SDK's only spelling. */
const camel: Builder<"camel"> = {
  text: (text, signature) => signature === undefined ? { text } : { text, thoughtSignature: signature },
  thought: (text, signature) =>
    signature === null ? { text, thought: true } : { text, thought: true, thoughtSignature: signature },
  image: (mimeType, data, signature) =>
    signature === undefined
      ? { inlineData: { mimeType, data } }
      : { inlineData: { mimeType, data }, thoughtSignature: signature },
  call: (functionCall, signature) =>
    signature === undefined ? { functionCall } : { functionCall, thoughtSignature: signature },
  response: (functionResponse) => ({ functionResponse }),
  request: (systemInstruction, contents) => ({ systemInstruction, contents })
}

const reasons = {
  lateSystem:
    "Gemini takes one system_instruction, built from the system messages that open the conversation; move this message to the start",
  systemImage: "system_instruction is text only, so a system message may hold only text blocks",
  reasoning:
    "Gemini has no input form for plain-text reasoning; encode with { reasoning: \"thought\" } to send it as thought parts, or use the anthropic format",
  unmatched:
    "no tool_call in the conversation has this id, and Gemini addresses a function_response by the function's name",
  resultImage: "a function_response carries text only (in response.output), so a tool result may not hold images"
} as const

/**
 * Which block types each role may carry, read once from `Message.allowedBlockTypes` into flags of
 * one shape, which the encoding switch tests by name: a `Set` lookup per block, or indexing a table
 * by the role, made encoding 1.2-1.8x slower.
 */
type Placement = { readonly [T in Block.BlockType]: boolean }

const placementOf = (role: Message.Role | undefined): Placement => {
  const may = (type: Block.BlockType) => role !== undefined && Message.isAllowed(role, type)
  return {
    text: may("text"),
    image: may("image"),
    reasoning: may("reasoning"),
    tool_call: may("tool_call"),
    tool_result: may("tool_result"),
    provider: may("provider")
  }
}

const assistantPlacement = placementOf("assistant")
const userPlacement = placementOf("user")
const systemPlacement = placementOf("system")
/** A role of no known kind (a conversation built with a cast) may carry nothing. */
const noPlacement = placementOf(undefined)

const placement = (role: Message.Role): Placement =>
  role === "assistant"
    ? assistantPlacement
    : role === "user"
    ? userPlacement
    : role === "system"
    ? systemPlacement
    : noPlacement

/** Does a signature-only reasoning block ride on the part that follows it? */
const carriesSignatureOf = (next: Block.Block | undefined): boolean =>
  next !== undefined && (next.type === "text" || next.type === "image" || next.type === "tool_call")

/**
 * Canonical to Gemini, in the spelling the options ask for.
 */
export const encode = (
  conversation: Conversation.Conversation,
  options: GoogleFormat.EncodeOptions | undefined
): Either.Either<GoogleFormat.Wire, GoogleFormat.EncodeError> => {
  const resolved = resolve(options)
  // responses are named after the call they pair with by position (toolCallIds.ts); ids sent must
  // be unique, checked once the rest encodes (the other errors come first)
  const reused = ToolCallIds.firstReused(conversation)
  const input = reused === undefined ? conversation : ToolCallIds.unique(conversation)
  const encoded: Either.Either<GoogleFormat.Wire, GoogleFormat.EncodeError> = resolved.casing === "camel"
    ? encodeWith(input, resolved, camel)
    : encodeWith(input, resolved, snake)
  if (reused === undefined || Either.isLeft(encoded) || !resolved.toolCallIds) return encoded
  return options?.reusedToolCallIds === "rename"
    ? encoded
    : Either.left(ToolCallIds.reusedError("google", reused, "Gemini (with toolCallIds)"))
}

/**
 * Canonical to Gemini with the given spelling.
 *
 * One pass over the conversation, with block placement checked in the same switch that encodes the
 * blocks: a separate `Conversation.validate` pass cost a tenth of the time (docs/performance.md,
 * "What changed", encoders). The reference reports a misplaced block anywhere before any other error, and
 * a system message error before any block error, so when encoding stops, {@link reported} looks for
 * those first.
 */
const encodeWith = <C extends GoogleFormat.Casing>(
  conversation: Conversation.Conversation,
  options: Resolved,
  builder: Builder<C>
): Either.Either<GoogleFormat.Request<C>, GoogleFormat.EncodeError> => {
  const callNames = collectCallNames(conversation)
  let system: string | undefined = undefined
  const contents: Array<GoogleFormat.Content<C>> = []
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (message.role === "system" && (contents.length === 0 || options.laterSystem === "error")) {
      const texts = systemText(message, i, contents.length === 0)
      if (typeof texts !== "string") return Either.left(reported(conversation, options, texts))
      if (message.blocks.length > 0) system = system === undefined ? texts : system + "\n\n" + texts
      continue
    }
    const content = encodeContent(message, i, callNames, options, builder)
    if (ConversionError.isConversionError(content)) return Either.left(reported(conversation, options, content))
    contents.push(content)
  }
  return Either.right(builder.request(systemInstruction(system, options), contents))
}

/** The name of every tool call by id (a later call with the same id wins). */
const collectCallNames = (conversation: Conversation.Conversation): Map<string, string> => {
  const callNames = new Map<string, string>()
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (!placement(message.role).tool_call) continue // a tool call there is misplaced
    const blocks: ReadonlyArray<Block.Block> = message.blocks
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      if (block.type === "tool_call") callNames.set(block.id, block.name)
    }
  }
  return callNames
}

/**
 * The error the reference raises for a conversation that failed to encode at `found`: a misplaced
 * block anywhere comes first, then system messages in order, then `found`.
 */
const reported = (
  conversation: Conversation.Conversation,
  options: Resolved,
  found: GoogleFormat.EncodeError
): GoogleFormat.EncodeError => {
  const placed = Conversation.validate(conversation)
  if (Either.isLeft(placed)) return placed.left
  return systemError(conversation, options) ?? found
}

/** The first error among the system messages, checked in order. */
const systemError = (
  conversation: Conversation.Conversation,
  options: Resolved
): GoogleFormat.EncodeError | undefined => {
  let leading = true
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (message.role !== "system") leading = false
    else if (leading || options.laterSystem === "error") {
      const texts = systemText(message, i, leading)
      if (typeof texts !== "string") return texts
    }
  }
  return undefined
}

/** A system message's text blocks joined with a blank line, or why it cannot be sent as one. */
const systemText = (
  message: Message.Message,
  i: number,
  leading: boolean
): string | GoogleFormat.EncodeError => {
  if (!leading) {
    return new ConversionError.UnsupportedMessage({
      format: "google",
      path: [i],
      messageIndex: i,
      role: "system",
      reason: reasons.lateSystem
    })
  }
  const blocks: ReadonlyArray<Block.Block> = message.blocks
  let text = ""
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    if (block.type !== "text") {
      return Message.isAllowed("system", block.type)
        ? unsupportedBlock([i, "blocks", j], i, j, block.type, reasons.systemImage)
        : misplaced(message, i, j)
    }
    text = j === 0 ? block.text : text + "\n\n" + block.text
  }
  return text
}

const unsupportedBlock = (
  path: ConversionError.Path,
  messageIndex: number,
  blockIndex: number,
  blockType: Block.BlockType,
  reason: string
) => new ConversionError.UnsupportedBlock({ format: "google", path, messageIndex, blockIndex, blockType, reason })

/** A block its message's role may not carry ({@link reported} then finds the first such block). */
const misplaced = (message: Message.Message, i: number, j: number) =>
  new ConversionError.MisplacedBlock({
    path: [i, "blocks", j],
    messageIndex: i,
    blockIndex: j,
    role: message.role,
    blockType: (message.blocks[j] as Block.Block).type
  })

/** One non-leading-system message as a content, or the first error in its blocks. */
const encodeContent = <C extends GoogleFormat.Casing>(
  message: Message.Message,
  i: number,
  callNames: ReadonlyMap<string, string>,
  options: Resolved,
  builder: Builder<C>
): GoogleFormat.Content<C> | GoogleFormat.EncodeError => {
  const blocks: ReadonlyArray<Block.Block> = message.blocks
  const role = message.role
  const may = placement(role)
  // one part per block, except a signature-only reasoning block, whose signature rides on the next
  const parts: Array<GoogleFormat.Part<C>> = new Array(blocks.length)
  let n = 0
  let signature: string | undefined = undefined
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]!
    switch (block.type) {
      case "text":
        if (!may.text) return misplaced(message, i, j)
        parts[n++] = builder.text(block.text, signature)
        signature = undefined
        break
      case "image":
        if (!may.image) return misplaced(message, i, j)
        parts[n++] = builder.image(block.mimeType, block.data, signature)
        signature = undefined
        break
      case "reasoning":
        if (!may.reasoning) return misplaced(message, i, j)
        if (options.reasoning === "error") {
          return unsupportedBlock([i, "blocks", j], i, j, "reasoning", reasons.reasoning)
        }
        if (block.text === "" && block.signature !== null && carriesSignatureOf(blocks[j + 1])) {
          signature = block.signature
        } else {
          parts[n++] = builder.thought(block.text, block.signature)
        }
        break
      case "tool_call":
        if (!may.tool_call) return misplaced(message, i, j)
        parts[n++] = builder.call(functionCall(block, options), signature)
        signature = undefined
        break
      case "tool_result": {
        if (!may.tool_result) return misplaced(message, i, j)
        const response = encodeToolResult(block, i, j, callNames, options)
        if (ConversionError.isConversionError(response)) return response
        parts[n++] = builder.response(response)
        break
      }
      case "provider": {
        if (!may.provider) return misplaced(message, i, j)
        if (block.provider === "google") {
          // a part as Gemini sent it, written back as it came (in its own spelling)
          parts[n++] = block.item as GoogleFormat.Part<C>
          break
        }
        const other = ProviderContent.foreign("google", block, i, j, options.providerContent)
        if (other instanceof ConversionError.UnsupportedBlock) return other
        if (other._tag === "text") {
          parts[n++] = builder.text(other.block.text, signature)
          signature = undefined
        }
        break
      }
      default:
        return misplaced(message, i, j) // a block of no known type (a conversation built with a cast)
    }
  }
  if (n < parts.length) parts.length = n
  return { role: role === "assistant" ? "model" : "user", parts }
}

const encodeToolResult = (
  block: Block.ToolResultBlock,
  i: number,
  j: number,
  callNames: ReadonlyMap<string, string>,
  options: Resolved
): GoogleFormat.FunctionResponse | GoogleFormat.EncodeError => {
  const name = callNames.get(block.tool_call_id)
  if (name === undefined) {
    return new ConversionError.UnmatchedToolResult({
      format: "google",
      path: [i, "blocks", j],
      messageIndex: i,
      blockIndex: j,
      toolCallId: block.tool_call_id,
      reason: reasons.unmatched
    })
  }
  const inner: ReadonlyArray<Block.ContentBlock> = block.blocks
  let text = ""
  for (let k = 0; k < inner.length; k++) {
    const content = inner[k]!
    if (content.type !== "text") {
      return unsupportedBlock([i, "blocks", j, "blocks", k], i, j, "image", reasons.resultImage)
    }
    text = k === 0 ? content.text : text + "\n" + content.text
  }
  return functionResponse(block, name, text, options)
}

const functionCall = (block: Block.ToolCallBlock, options: Resolved): GoogleFormat.FunctionCall => {
  const args: Json.JsonObject = block.input
  return options.toolCallIds ? { id: block.id, name: block.name, args } : { name: block.name, args }
}

const functionResponse = (
  block: Block.ToolResultBlock,
  name: string,
  text: string,
  options: Resolved
): GoogleFormat.FunctionResponse => {
  const response: GoogleFormat.ResponsePayload = options.toolErrors === "error" && block.is_error
    ? { error: text }
    : { output: text }
  return options.toolCallIds ? { id: block.tool_call_id, name, response } : { name, response }
}

const systemInstruction = (text: string | undefined, options: Resolved): GoogleFormat.SystemInstruction => {
  if (text === undefined) return null
  return options.systemInstruction === "content" ? { parts: [{ text }] } : text
}
