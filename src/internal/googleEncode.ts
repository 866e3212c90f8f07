/**
 * Canonical conversation to a Gemini request, in the reference SDK's order of checks:
 *
 * 1. block placement over the whole conversation (`MisplacedBlock`);
 * 2. tool-call names collected from the whole conversation (a later call with the same id wins);
 * 3. system messages, in order: one after the first non-system turn is `UnsupportedMessage` (or,
 *    with `laterSystem: "user"`, a user turn), an image in a leading one is `UnsupportedBlock`;
 * 4. every other block in document order: reasoning (unless sent as thoughts), then for a tool
 *    result its call's name (`UnmatchedToolResult`) before its content (`UnsupportedBlock`).
 *
 * The spelling of keys is abstracted in a {@link Builder}, so one walk serves both casings.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import type * as Block from "../Block.js"
import * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"
import type * as GoogleFormat from "../GoogleFormat.js"
import type * as Json from "../Json.js"

/** Encode options with every default filled in. */
export interface Resolved {
  readonly casing: GoogleFormat.Casing
  readonly systemInstruction: "string" | "content"
  readonly toolCallIds: boolean
  readonly toolErrors: "output" | "error"
  readonly reasoning: "error" | "thought"
  readonly laterSystem: "error" | "user"
}

/** The defaults: exactly the reference SDK's output. */
export const resolve = (options: GoogleFormat.EncodeOptions | undefined): Resolved => ({
  casing: options?.casing ?? "snake",
  systemInstruction: options?.systemInstruction ?? "string",
  toolCallIds: options?.toolCallIds ?? false,
  toolErrors: options?.toolErrors ?? "output",
  reasoning: options?.reasoning ?? "error",
  laterSystem: options?.laterSystem ?? "error"
})

/** Builds parts and the request in one spelling. */
export interface Builder<C extends GoogleFormat.Casing> {
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
export const snake: Builder<"snake"> = {
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
export const camel: Builder<"camel"> = {
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

/** Does a signature-only reasoning block ride on the part that follows it? */
const carriesSignatureOf = (next: Block.Block | undefined): boolean =>
  next !== undefined && (next.type === "text" || next.type === "image" || next.type === "tool_call")

/** Canonical to Gemini with the given spelling. */
export const encode = <C extends GoogleFormat.Casing>(
  conversation: Conversation.Conversation,
  options: Resolved,
  builder: Builder<C>
): Either.Either<GoogleFormat.Request<C>, ConversionError.EncodeError> => {
  const placed = Conversation.validate(conversation)
  if (Either.isLeft(placed)) return Either.left(placed.left)

  const callNames = new Map<string, string>()
  for (const message of conversation) {
    const blocks: ReadonlyArray<Block.Block> = message.blocks
    for (const block of blocks) {
      if (block.type === "tool_call") callNames.set(block.id, block.name)
    }
  }

  const systemTexts: Array<string> = []
  const rest: Array<number> = []
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (message.role !== "system" || (rest.length > 0 && options.laterSystem === "user")) {
      rest.push(i)
      continue
    }
    if (rest.length > 0) {
      return Either.left(
        new ConversionError.UnsupportedMessage({
          format: "google",
          path: [i],
          messageIndex: i,
          role: "system",
          reason: reasons.lateSystem
        })
      )
    }
    for (let j = 0; j < message.blocks.length; j++) {
      const block = message.blocks[j]!
      if (block.type !== "text") {
        return Either.left(
          new ConversionError.UnsupportedBlock({
            format: "google",
            path: [i, "blocks", j],
            messageIndex: i,
            blockIndex: j,
            blockType: block.type,
            reason: reasons.systemImage
          })
        )
      }
      systemTexts.push(block.text)
    }
  }

  const contents: Array<GoogleFormat.Content<C>> = []
  for (const i of rest) {
    const message = conversation[i]!
    const blocks: ReadonlyArray<Block.Block> = message.blocks
    const parts: Array<GoogleFormat.Part<C>> = []
    let signature: string | undefined = undefined
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      switch (block.type) {
        case "text":
          parts.push(builder.text(block.text, signature))
          signature = undefined
          break
        case "image":
          parts.push(builder.image(block.mimeType, block.data, signature))
          signature = undefined
          break
        case "reasoning":
          if (options.reasoning === "error") {
            return Either.left(
              new ConversionError.UnsupportedBlock({
                format: "google",
                path: [i, "blocks", j],
                messageIndex: i,
                blockIndex: j,
                blockType: "reasoning",
                reason: reasons.reasoning
              })
            )
          }
          if (block.text === "" && block.signature !== null && carriesSignatureOf(blocks[j + 1])) {
            signature = block.signature
          } else {
            parts.push(builder.thought(block.text, block.signature))
          }
          break
        case "tool_call":
          parts.push(builder.call(functionCall(block, options), signature))
          signature = undefined
          break
        case "tool_result": {
          const name = callNames.get(block.tool_call_id)
          if (name === undefined) {
            return Either.left(
              new ConversionError.UnmatchedToolResult({
                format: "google",
                path: [i, "blocks", j],
                messageIndex: i,
                blockIndex: j,
                toolCallId: block.tool_call_id,
                reason: reasons.unmatched
              })
            )
          }
          const texts: Array<string> = []
          for (let k = 0; k < block.blocks.length; k++) {
            const inner = block.blocks[k]!
            if (inner.type === "image") {
              return Either.left(
                new ConversionError.UnsupportedBlock({
                  format: "google",
                  path: [i, "blocks", j, "blocks", k],
                  messageIndex: i,
                  blockIndex: j,
                  blockType: "image",
                  reason: reasons.resultImage
                })
              )
            }
            texts.push(inner.text)
          }
          parts.push(builder.response(functionResponse(block, name, texts.join("\n"), options)))
          break
        }
        default:
          return absurd(block)
      }
    }
    contents.push({ role: message.role === "assistant" ? "model" : "user", parts })
  }

  return Either.right(builder.request(systemInstruction(systemTexts, options), contents))
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

const systemInstruction = (
  texts: ReadonlyArray<string>,
  options: Resolved
): GoogleFormat.SystemInstruction => {
  if (texts.length === 0) return null
  const text = texts.join("\n\n")
  return options.systemInstruction === "content" ? { parts: [{ text }] } : text
}
