/**
 * A Gemini transcript to a canonical conversation.
 *
 * Input a guard compiled from the wire schemas passes (guard.ts) is converted as it is; the rest
 * goes through the wire schemas once (structure and JSON types, both
 * spellings, `null` as unset); then each part is classified, turned into canonical pieces and placed
 * by role; then function responses are paired with their calls and ids are settled
 * (`googlePairing.ts`). Errors come in that order: structure, then the system instruction, then
 * parts in document order, then pairing in document order.
 *
 * Locations: `messageIndex` and `blockIndex` are the index of the content in `contents` and of the
 * part in its `parts`; `path` is the full path from the root of the input.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Block from "../Block.js"
import type * as Conversation from "../Conversation.js"
import * as ConversionError from "../ConversionError.js"
import type * as GoogleFormat from "../GoogleFormat.js"
import type * as Json from "../Json.js"
import * as Message from "../Message.js"
import * as Pairing from "./googlePairing.js"
import * as Wire from "./googleWire.js"
import * as Guard from "./guard.js"
import { issueOf } from "./parseIssue.js"
import * as RequestBody from "./requestBody.js"
import * as Input from "./wireInput.js"

type Path = ReadonlyArray<string | number>
type DecodeError = GoogleFormat.DecodeError

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

// -----------------------------------------------------------------------------
// errors
// -----------------------------------------------------------------------------

interface Location {
  readonly messageIndex?: number
  readonly blockIndex?: number
}

const malformed = (path: Path, reason: string, location: Location = {}): ConversionError.MalformedInput =>
  new ConversionError.MalformedInput({ format: "google", path, reason, ...location })

/** The content and part a path into the input points into (`contents[c].parts[p]`), if any. */
const locate = (path: Path): Location => {
  const inContents = path[0] === "contents" ? path.slice(1) : path
  const c = inContents[0]
  const p = inContents[1] === "parts" ? inContents[2] : undefined
  if (typeof c !== "number") return {}
  return typeof p === "number" ? { messageIndex: c, blockIndex: p } : { messageIndex: c }
}

/** A parse error as `MalformedInput` at its most specific place. */
const fromParseError = (error: ParseResult.ParseError): ConversionError.MalformedInput => {
  const { message, path } = issueOf(error, "specific")
  return malformed(path, message, locate(path))
}

/**
 * Schema decoding recurses once per level of nesting: input nested deeper than the guard allows (or
 * cyclic) is reported before it is decoded. Only what decoding reads is walked.
 */
const nestedTooDeeply = (input: unknown): ConversionError.MalformedInput | undefined => {
  let read: unknown = input
  if (isRecord(input)) {
    const config = input["config"]
    read = {
      contents: input["contents"],
      system_instruction: input["system_instruction"],
      systemInstruction: input["systemInstruction"],
      config: isRecord(config)
        ? { system_instruction: config["system_instruction"], systemInstruction: config["systemInstruction"] }
        : config
    }
  }
  const path = Input.tooDeep(read)
  return path === undefined
    ? undefined
    : malformed(path, `nested more than ${Input.maxDepth} levels deep (or cyclic)`, locate(path))
}

// -----------------------------------------------------------------------------
// spelling
// -----------------------------------------------------------------------------

interface Field<A> {
  readonly key: string
  readonly value: A
}

/** The one spelling of a field that is set, or an error if both are. `null` counts as unset. */
const spelled = <A>(
  snake: readonly [string, A | null | undefined],
  camel: readonly [string, A | null | undefined],
  at: Path,
  location: Location
): Either.Either<Field<A> | undefined, ConversionError.MalformedInput> => {
  const [snakeKey, snakeValue] = snake
  const [camelKey, camelValue] = camel
  const hasSnake = snakeValue !== null && snakeValue !== undefined
  const hasCamel = camelValue !== null && camelValue !== undefined
  if (hasSnake && hasCamel) {
    return Either.left(
      malformed(
        [...at, camelKey],
        `${JSON.stringify(snakeKey)} and ${JSON.stringify(camelKey)} are both set; use one spelling`,
        location
      )
    )
  }
  if (hasSnake) return Either.right({ key: snakeKey, value: snakeValue })
  if (hasCamel) return Either.right({ key: camelKey, value: camelValue })
  return Either.right(undefined)
}

const isSet = <A>(value: A | null | undefined): value is A => value !== null && value !== undefined

// -----------------------------------------------------------------------------
// parts
// -----------------------------------------------------------------------------

type Data =
  | { readonly _tag: "text"; readonly key: string; readonly value: string }
  | { readonly _tag: "inline_data"; readonly key: string; readonly value: typeof Wire.Blob.Type }
  | { readonly _tag: "function_call"; readonly key: string; readonly value: typeof Wire.FunctionCall.Type }
  | { readonly _tag: "function_response"; readonly key: string; readonly value: typeof Wire.FunctionResponse.Type }
  | { readonly _tag: "unsupported"; readonly key: string; readonly contentType: string; readonly reason: string }

const fileDataReason = "it references a file by URI, and canonical images carry their bytes inline"

/** The data fields of a part that have no canonical form, and why. */
const unsupportedFields: ReadonlyArray<
  readonly [snake: keyof typeof Wire.Part.Type, camel: keyof typeof Wire.Part.Type, reason: string]
> = [
  ["file_data", "fileData", fileDataReason],
  ["executable_code", "executableCode", "it is code the model wrote for Gemini's code-execution tool"],
  ["code_execution_result", "codeExecutionResult", "it is the output of Gemini's code-execution tool"],
  ["tool_call", "toolCall", "it is a call to a Gemini server-side tool"],
  ["tool_response", "toolResponse", "it is the output of a Gemini server-side tool"]
]

interface Classified {
  readonly data: Data | undefined
  readonly thought: boolean
  readonly signature: Field<string> | undefined
}

/** Which data field a part sets (at most one), its `thought` flag and its signature. */
const classify = (
  part: typeof Wire.Part.Type,
  at: Path,
  location: Location
): Either.Either<Classified, ConversionError.MalformedInput> => {
  const found: Array<Data> = []
  if (isSet(part.text)) found.push({ _tag: "text", key: "text", value: part.text })
  const inline = spelled(["inline_data", part.inline_data], ["inlineData", part.inlineData], at, location)
  if (Either.isLeft(inline)) return Either.left(inline.left)
  if (inline.right) found.push({ _tag: "inline_data", ...inline.right })
  const call = spelled(["function_call", part.function_call], ["functionCall", part.functionCall], at, location)
  if (Either.isLeft(call)) return Either.left(call.left)
  if (call.right) found.push({ _tag: "function_call", ...call.right })
  const response = spelled(
    ["function_response", part.function_response],
    ["functionResponse", part.functionResponse],
    at,
    location
  )
  if (Either.isLeft(response)) return Either.left(response.left)
  if (response.right) found.push({ _tag: "function_response", ...response.right })
  for (const [snake, camel, reason] of unsupportedFields) {
    const field = spelled([snake, part[snake]], [camel, part[camel]], at, location)
    if (Either.isLeft(field)) return Either.left(field.left)
    if (field.right) found.push({ _tag: "unsupported", key: field.right.key, contentType: snake, reason })
  }
  if (found.length > 1) {
    return Either.left(
      malformed(
        at,
        `a part must set exactly one data field, but this one sets ${
          found.map((d) => JSON.stringify(d.key)).join(" and ")
        }`,
        location
      )
    )
  }
  const signature = spelled(
    ["thought_signature", part.thought_signature],
    ["thoughtSignature", part.thoughtSignature],
    at,
    location
  )
  if (Either.isLeft(signature)) return Either.left(signature.left)
  return Either.right({ data: found[0], thought: part.thought === true, signature: signature.right })
}

const noData = "a part must set one of text, inline_data, function_call or function_response"

/** What one part becomes, before placement by role. */
type Piece =
  | { readonly _tag: "Content"; readonly block: Block.ContentBlock }
  | { readonly _tag: "Reasoning"; readonly block: Block.ReasoningBlock }
  | Pairing.Call
  | Pairing.Response

const content = (block: Block.ContentBlock): Piece => ({ _tag: "Content", block })
const reasoning = (text: string, signature: string | null): Piece => ({
  _tag: "Reasoning",
  block: Block.reasoning(text, { signature })
})

const isJsonObject = (value: Json.JsonValue): value is Json.JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const image = (
  blob: Field<typeof Wire.Blob.Type>,
  at: Path,
  location: Location
): Either.Either<Block.ImageBlock, ConversionError.MalformedInput> => {
  const here = [...at, blob.key]
  const mime = spelled(["mime_type", blob.value.mime_type], ["mimeType", blob.value.mimeType], here, location)
  if (Either.isLeft(mime)) return Either.left(mime.left)
  if (mime.right === undefined) {
    const key = blob.key === "inlineData" ? "mimeType" : "mime_type"
    return Either.left(malformed([...here, key], "is missing", location))
  }
  return Either.right(Block.image(blob.value.data, mime.right.value))
}

const responseContent = (
  field: Field<typeof Wire.FunctionResponse.Type>,
  at: Path,
  location: Location & { readonly messageIndex: number; readonly blockIndex: number }
): Either.Either<{ readonly blocks: ReadonlyArray<Block.ContentBlock>; readonly isError: boolean }, DecodeError> => {
  const { parts, response } = field.value
  const blocks: Array<Block.ContentBlock> = []
  let isError = false
  if (isSet(response)) {
    const keys = Object.keys(response)
    const only = keys.length === 1 ? keys[0] : undefined
    const output = Object.hasOwn(response, "output") ? response["output"] : undefined
    const error = Object.hasOwn(response, "error") ? response["error"] : undefined
    if (only === "output" && typeof output === "string") {
      blocks.push(Block.text(output))
    } else if (only === "error" && typeof error === "string") {
      blocks.push(Block.text(error))
      isError = true
    } else {
      blocks.push(Block.text(JSON.stringify(response)))
      isError = error !== undefined && error !== null
    }
  }
  if (isSet(parts)) {
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k]!
      const here = [...at, field.key, "parts", k]
      const inline = spelled(["inline_data", part.inline_data], ["inlineData", part.inlineData], here, location)
      if (Either.isLeft(inline)) return Either.left(inline.left)
      const file = spelled(["file_data", part.file_data], ["fileData", part.fileData], here, location)
      if (Either.isLeft(file)) return Either.left(file.left)
      if (inline.right && file.right) {
        return Either.left(
          malformed(
            here,
            `a part must set exactly one data field, but this one sets "${inline.right.key}" and "${file.right.key}"`,
            location
          )
        )
      }
      if (file.right) {
        return Either.left(
          new ConversionError.UnsupportedContent({
            format: "google",
            path: [...here, file.right.key],
            ...location,
            contentType: "file_data",
            reason: fileDataReason
          })
        )
      }
      if (inline.right === undefined) {
        return Either.left(malformed(here, "a function_response part must set inline_data", location))
      }
      const decoded = image(inline.right, here, location)
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
      blocks.push(decoded.right)
    }
  }
  return Either.right({ blocks, isError })
}

/** One part of a content to canonical pieces. Placement by role is checked by the caller. */
const decodePart = (
  part: typeof Wire.Part.Type,
  role: "user" | "assistant",
  root: Path,
  at: Path,
  c: number,
  p: number
): Either.Either<ReadonlyArray<Piece>, DecodeError> => {
  const location = { messageIndex: c, blockIndex: p }
  const classified = classify(part, at, location)
  if (Either.isLeft(classified)) return Either.left(classified.left)
  const { data, signature, thought } = classified.right
  if (data?._tag === "unsupported") {
    return Either.left(
      new ConversionError.UnsupportedContent({
        format: "google",
        path: [...at, data.key],
        ...location,
        contentType: data.contentType,
        reason: data.reason
      })
    )
  }
  if (thought && data !== undefined && data._tag !== "text") {
    return Either.left(
      new ConversionError.UnsupportedContent({
        format: "google",
        path: [...at, "thought"],
        ...location,
        contentType: "thought",
        reason: `only a text thought has a canonical form (reasoning), and this thought part holds ${data.key}`
      })
    )
  }
  if (signature !== undefined && role === "user") {
    return Either.left(
      new ConversionError.UnsupportedContent({
        format: "google",
        path: [...at, signature.key],
        ...location,
        contentType: "thought_signature",
        reason: "thought signatures belong to model turns, and a canonical user message cannot carry one"
      })
    )
  }
  if (data === undefined) {
    return signature === undefined
      ? Either.left(malformed(at, noData, location))
      : Either.right([reasoning("", signature.value)])
  }
  if (data._tag === "text" && thought) {
    return Either.right([reasoning(data.value, signature?.value ?? null)])
  }
  const signed: ReadonlyArray<Piece> = signature === undefined ? [] : [reasoning("", signature.value)]
  switch (data._tag) {
    case "text":
      return Either.right([...signed, content(Block.text(data.value))])
    case "inline_data":
      return Either.map(image(data, at, location), (block) => [...signed, content(block)])
    case "function_call": {
      const { args, id, name } = data.value
      const input = isSet(args) ? args : {}
      if (!isJsonObject(input)) {
        return Either.left(
          new ConversionError.InvalidToolArguments({
            format: "google",
            path: [...at, data.key, "args"],
            ...location,
            raw: JSON.stringify(input),
            reason: "function_call args must be a JSON object"
          })
        )
      }
      const call: Pairing.Call = {
        _tag: "Call",
        c,
        p,
        name,
        // a copy, so that the conversation shares no mutable object with the input
        input: Guard.copyJsonObject(input),
        explicitId: isSet(id) ? id : undefined,
        adopted: undefined,
        answered: false,
        id: ""
      }
      return Either.right([...signed, call])
    }
    case "function_response": {
      const result = responseContent(data, at, location)
      if (Either.isLeft(result)) return Either.left(result.left)
      const { id, name } = data.value
      const response: Pairing.Response = {
        _tag: "Response",
        c,
        p,
        root,
        key: data.key,
        name,
        id: isSet(id) ? id : undefined,
        blocks: result.right.blocks,
        isError: result.right.isError,
        call: undefined
      }
      return Either.right([...signed, response])
    }
    default:
      return absurd(data)
  }
}

// -----------------------------------------------------------------------------
// system instruction
// -----------------------------------------------------------------------------

const systemPartReason = "a system_instruction part may only be text or inline_data, not a thought, and unsigned"

const decodeSystem = (
  instruction: Field<typeof Wire.SystemInstruction.Type>,
  root: Path
): Either.Either<Message.SystemMessage, ConversionError.MalformedInput> => {
  if (typeof instruction.value === "string") return Either.right(Message.system(instruction.value))
  const parts = instruction.value.parts ?? []
  const blocks: Array<Message.SystemBlock> = []
  for (let j = 0; j < parts.length; j++) {
    const at = [...root, instruction.key, "parts", j]
    const classified = classify(parts[j]!, at, {})
    if (Either.isLeft(classified)) return Either.left(classified.left)
    const { data, signature, thought } = classified.right
    if (data === undefined) return Either.left(malformed(at, noData))
    if (thought || signature !== undefined) return Either.left(malformed(at, systemPartReason))
    switch (data._tag) {
      case "text":
        blocks.push(Block.text(data.value))
        break
      case "inline_data": {
        const decoded = image(data, at, {})
        if (Either.isLeft(decoded)) return Either.left(decoded.left)
        blocks.push(decoded.right)
        break
      }
      default:
        return Either.left(malformed([...at, data.key], systemPartReason))
    }
  }
  return Either.right(Message.system(blocks))
}

// -----------------------------------------------------------------------------
// transcript
// -----------------------------------------------------------------------------

const misplaced = (role: Message.Role, blockType: Block.BlockType, at: Path, c: number, p: number) =>
  Either.left(
    new ConversionError.MisplacedBlock({ format: "google", path: at, messageIndex: c, blockIndex: p, role, blockType })
  )

const decodeContents = Schema.decodeUnknownEither(Wire.Contents)
const decodeRequest = Schema.decodeUnknownEither(Wire.Request)

interface Instruction {
  readonly field: Field<typeof Wire.SystemInstruction.Type>
  readonly at: Path
}

/** The system instruction, at the top level or in an SDK `config`, in either spelling (only one of them). */
const resolveSystem = (
  request: typeof Wire.Request.Type
): Either.Either<Instruction | undefined, ConversionError.MalformedInput> => {
  const top = spelled(
    ["system_instruction", request.system_instruction],
    ["systemInstruction", request.systemInstruction],
    [],
    {}
  )
  if (Either.isLeft(top)) return Either.left(top.left)
  const config = request.config
  if (!isSet(config)) return Either.right(top.right && { field: top.right, at: [] })
  const nested = spelled(
    ["system_instruction", config.system_instruction],
    ["systemInstruction", config.systemInstruction],
    ["config"],
    {}
  )
  if (Either.isLeft(nested)) return Either.left(nested.left)
  if (nested.right === undefined) return Either.right(top.right && { field: top.right, at: [] })
  if (top.right !== undefined) {
    return Either.left(
      malformed(["config", nested.right.key], "the system instruction is set both at the top level and in config")
    )
  }
  return Either.right({ field: nested.right, at: ["config"] })
}

// what decoding reads, compiled to guards once (guard.ts)
const isRequest = Guard.compile(Wire.Request, { onExcessProperty: "ignore" })
const isContents = Guard.compile(Wire.Contents, { onExcessProperty: "ignore" })

/**
 * Decode a Gemini transcript: a request body or a bare `contents` array. Input the guards pass is
 * converted as it is; anything else goes through the Schema path below, which reports the error.
 */
export const decode = (input: unknown): Either.Either<Conversation.Conversation, DecodeError> =>
  Input.total("google", () => {
    if (Array.isArray(input)) {
      return isContents(input) ? convert(input as typeof Wire.Contents.Type, undefined) : decodeWithSchema(input)
    }
    if (typeof input === "object" && input !== null) {
      const unknown = unknownRequestKey(input as { readonly [key: string]: unknown })
      if (unknown !== undefined) return Either.left(unknown)
    }
    return isRequest(input) ? convert(undefined, input as typeof Wire.Request.Type) : decodeWithSchema(input)
  })

const unknownRequestKey = RequestBody.checker("google", Wire.requestKeys)

/** Decode through the wire schemas: where errors are found (and odd values the guards leave to it). */
export const decodeWithSchema = (input: unknown): Either.Either<Conversation.Conversation, DecodeError> => {
  const deep = nestedTooDeeply(input)
  if (deep !== undefined) return Either.left(deep)
  if (Array.isArray(input)) {
    const decoded = decodeContents(input)
    return Either.isLeft(decoded) ? Either.left(fromParseError(decoded.left)) : convert(decoded.right, undefined)
  }
  if (isRecord(input)) {
    const decoded = decodeRequest(input)
    return Either.isLeft(decoded) ? Either.left(fromParseError(decoded.left)) : convert(undefined, decoded.right)
  }
  return Either.left(
    malformed([], "expected a Gemini request ({ contents, system_instruction }) or an array of contents")
  )
}

/** The conversion of a bare `contents` array or a request body that decodes. */
const convert = (
  bare: ReadonlyArray<typeof Wire.Content.Type> | undefined,
  request: typeof Wire.Request.Type | undefined
): Either.Either<Conversation.Conversation, DecodeError> => {
  let contents: ReadonlyArray<typeof Wire.Content.Type>
  let root: Path
  const messages: Array<Message.Message> = []
  if (bare !== undefined) {
    contents = bare
    root = []
  } else {
    const instruction = resolveSystem(request!)
    if (Either.isLeft(instruction)) return Either.left(instruction.left)
    if (instruction.right !== undefined) {
      const system = decodeSystem(instruction.right.field, instruction.right.at)
      if (Either.isLeft(system)) return Either.left(system.left)
      messages.push(system.right)
    }
    contents = request!.contents
    root = ["contents"]
  }

  const calls: Array<Pairing.Call> = []
  const responses: Array<Pairing.Response> = []
  const taken = new Set<string>()
  const drafts: Array<Pairing.Draft> = []
  for (let c = 0; c < contents.length; c++) {
    const content = contents[c]!
    const role = content.role === "model" ? "assistant" : "user"
    const parts = content.parts ?? []
    const userItems: Array<Block.ContentBlock | Pairing.Response> = []
    const assistantItems: Array<Block.ContentBlock | Block.ReasoningBlock | Pairing.Call> = []
    for (let p = 0; p < parts.length; p++) {
      const at = [...root, c, "parts", p]
      const pieces = decodePart(parts[p]!, role, root, at, c, p)
      if (Either.isLeft(pieces)) return Either.left(pieces.left)
      for (const piece of pieces.right) {
        switch (piece._tag) {
          case "Content":
            if (role === "user") userItems.push(piece.block)
            else assistantItems.push(piece.block)
            break
          case "Reasoning":
            if (role === "user") return misplaced(role, "reasoning", at, c, p)
            assistantItems.push(piece.block)
            break
          case "Call":
            if (role === "user") return misplaced(role, "tool_call", at, c, p)
            if (piece.explicitId !== undefined) taken.add(piece.explicitId)
            calls.push(piece)
            assistantItems.push(piece)
            break
          case "Response":
            if (role === "assistant") return misplaced(role, "tool_result", at, c, p)
            if (piece.id !== undefined) taken.add(piece.id)
            responses.push(piece)
            userItems.push(piece)
            break
          default:
            return absurd(piece)
        }
      }
    }
    drafts.push(role === "user" ? { role, items: userItems } : { role, items: assistantItems })
  }

  return Pairing.settle(messages, drafts, calls, responses, taken)
}
