/**
 * The fast path of Google decoding: one walk over the input with plain type checks, converting as
 * it goes, for input that decodes without error.
 *
 * Why: the Schema pass of `googleDecode.ts` builds a second copy of the whole transcript from
 * unions tried member by member, after a separate depth pre-walk that keeps a `Map` of every object.
 * That made decoding 9-14x slower than a plain walk, with 20 KiB of garbage per turn
 * (docs/performance.md, "What changed", decoders). Here the depth limit is a counter carried by the walk, and
 * no path is built.
 *
 * The walk accepts only what the Schema path accepts, and gives up (`undefined`) at the first thing
 * it does not expect: any error, and anything the Schema path might read differently (objects with
 * other prototypes than `Object.prototype` or `null`, a `__proto__` key in user data). The caller
 * then runs the Schema path, which finds and explains the error, so every error stays as it was.
 * Function call `args` are copied, as the Schema path copies them.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Block from "../Block.js"
import type * as Conversation from "../Conversation.js"
import type * as Json from "../Json.js"
import * as Message from "../Message.js"
import * as Pairing from "./googlePairing.js"
import * as Input from "./wireInput.js"

type Record = { readonly [key: string]: unknown }

const isUnset = (u: unknown): u is null | undefined => u === undefined || u === null

/** An object the Schema path reads as a struct, and whose fields a property read finds as it does. */
const isRecord: (u: unknown) => u is Record = Input.isPlainObject

/** Both spellings of a field are set. */
const both: unique symbol = Symbol("both")

/** The one spelling of a field that is set (`null` is unset), `undefined` for none, {@link both} for two. */
const oneOf = (snake: unknown, camel: unknown): unknown =>
  isUnset(snake) ? (isUnset(camel) ? undefined : camel) : (isUnset(camel) ? snake : both)

const isOptionalString = (u: unknown): u is string | null | undefined => isUnset(u) || typeof u === "string"

/**
 * Is `value` (at `depth`) JSON as `Json.JsonValue` decodes it, made of plain objects and arrays, so
 * that `JSON.stringify` reads it as it reads the copy Schema decoding makes? Objects deeper than the
 * limit (or cyclic) are refused, as the depth guard refuses them.
 */
const isJson = (value: unknown, depth: number): boolean => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(value)
    case "object": {
      if (value === null) return true
      if (depth > Input.maxDepth) return false
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return false
        for (let i = 0; i < value.length; i++) if (!isJson(value[i], depth + 1)) return false
        return true
      }
      return isJsonObject(value, depth)
    }
    default:
      return false
  }
}

/** A JSON object, as {@link isJson} checks it. */
const isJsonObject = (value: unknown, depth: number): value is Json.JsonObject => {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false
  if (depth > Input.maxDepth) return false
  const record = value as Record
  for (const key in record) {
    if (key === "__proto__" || !isJson(record[key], depth + 1)) return false
  }
  return true
}

/**
 * Do the values under the keys decoding ignores stay within the depth limit? The depth guard walks
 * them too, so a key this walk does not read may still make the input too deep.
 */
const ignoredFit = (record: Record, depth: number, reads: (key: string) => boolean): boolean => {
  for (const key in record) {
    if (reads(key)) continue
    const value = record[key]
    if (typeof value === "object" && value !== null && Input.tooDeep(value, Input.maxDepth - depth - 1) !== undefined) {
      return false
    }
  }
  return true
}

// -----------------------------------------------------------------------------
// the keys each wire object has a meaning for
// -----------------------------------------------------------------------------

const partKeys: ReadonlySet<string> = new Set([
  "text",
  "thought",
  "thought_signature",
  "thoughtSignature",
  "inline_data",
  "inlineData",
  "function_call",
  "functionCall",
  "function_response",
  "functionResponse",
  "file_data",
  "fileData",
  "executable_code",
  "executableCode",
  "code_execution_result",
  "codeExecutionResult",
  "tool_call",
  "toolCall",
  "tool_response",
  "toolResponse"
])
const readsPart = (key: string): boolean => partKeys.has(key)
const readsContent = (key: string): boolean => key === "parts" || key === "role"
const readsSystemContent = (key: string): boolean => key === "parts"
const readsBlob = (key: string): boolean => key === "data" || key === "mime_type" || key === "mimeType"
const readsCall = (key: string): boolean => key === "name" || key === "args" || key === "id"
const readsResponse = (key: string): boolean => key === "name" || key === "response" || key === "id" || key === "parts"
const readsResponsePart = (key: string): boolean =>
  key === "inline_data" || key === "inlineData" || key === "file_data" || key === "fileData"

/** A part sets a data field that has no canonical form (always an error). */
const setsUnsupported = (part: Record): boolean =>
  !isUnset(part.file_data) || !isUnset(part.fileData) || !isUnset(part.executable_code) ||
  !isUnset(part.executableCode) || !isUnset(part.code_execution_result) || !isUnset(part.codeExecutionResult) ||
  !isUnset(part.tool_call) || !isUnset(part.toolCall) || !isUnset(part.tool_response) || !isUnset(part.toolResponse)

// -----------------------------------------------------------------------------
// values
// -----------------------------------------------------------------------------

/** `inline_data` (at `depth`) as an image block. */
const image = (blob: unknown, depth: number): Block.ImageBlock | undefined => {
  if (!isRecord(blob)) return undefined
  const data = blob.data
  const mimeType = oneOf(blob.mime_type, blob.mimeType)
  if (typeof data !== "string" || typeof mimeType !== "string" || !ignoredFit(blob, depth, readsBlob)) return undefined
  return Block.image(data, mimeType)
}

/** A `function_call` (at `depth`) waiting for its id. */
const functionCall = (value: unknown, c: number, p: number, depth: number): Pairing.Call | undefined => {
  if (!isRecord(value)) return undefined
  const { args, id, name } = value
  if (typeof name !== "string" || !isOptionalString(id)) return undefined
  const input = isUnset(args) ? {} : Input.copyJsonObject(args, depth + 1)
  if (input === undefined || !ignoredFit(value, depth, readsCall)) return undefined
  return {
    _tag: "Call",
    c,
    p,
    name,
    input,
    explicitId: isUnset(id) ? undefined : id,
    adopted: undefined,
    answered: false,
    id: ""
  }
}

/** A `function_response` (at `depth`, under `key`) waiting for its call. */
const functionResponse = (
  value: unknown,
  root: ReadonlyArray<string | number>,
  key: string,
  c: number,
  p: number,
  depth: number
): Pairing.Response | undefined => {
  if (!isRecord(value)) return undefined
  const { id, name, parts, response } = value
  if (typeof name !== "string" || !isOptionalString(id)) return undefined
  if (!(isUnset(response) || isJsonObject(response, depth + 1))) return undefined
  if (!(isUnset(parts) || Array.isArray(parts)) || !ignoredFit(value, depth, readsResponse)) return undefined
  const blocks: Array<Block.ContentBlock> = []
  let isError = false
  if (!isUnset(response)) {
    // `{output: string}` is the text, `{error: string}` an error's text, any other object its JSON
    let count = 0
    let output: unknown = undefined
    let error: unknown = undefined
    for (const k in response) {
      count++
      if (k === "output") output = response[k]
      else if (k === "error") error = response[k]
    }
    if (count === 1 && typeof output === "string") {
      blocks.push(Block.text(output))
    } else if (count === 1 && typeof error === "string") {
      blocks.push(Block.text(error))
      isError = true
    } else {
      blocks.push(Block.text(JSON.stringify(response)))
      isError = !isUnset(error)
    }
  }
  if (!isUnset(parts)) {
    for (let k = 0; k < parts.length; k++) {
      const part: unknown = parts[k]
      if (!isRecord(part) || !isUnset(part.file_data) || !isUnset(part.fileData)) return undefined
      if (!ignoredFit(part, depth + 2, readsResponsePart)) return undefined
      const block = image(oneOf(part.inline_data, part.inlineData), depth + 3)
      if (block === undefined) return undefined
      blocks.push(block)
    }
  }
  return {
    _tag: "Response",
    c,
    p,
    root,
    key,
    name,
    id: isUnset(id) ? undefined : id,
    blocks,
    isError,
    call: undefined
  }
}

// -----------------------------------------------------------------------------
// contents
// -----------------------------------------------------------------------------

/** What the walk collects on its way: calls and responses in document order, and the ids in use. */
interface State {
  readonly calls: Array<Pairing.Call>
  readonly responses: Array<Pairing.Response>
  readonly taken: Set<string>
}

/**
 * One part (at `depth`) of content `c`, appended to `items` as canonical blocks, calls and
 * responses; `false` at anything unexpected.
 */
const decodePart = (
  part: unknown,
  role: "user" | "assistant",
  root: ReadonlyArray<string | number>,
  c: number,
  p: number,
  depth: number,
  items: Array<Block.ContentBlock | Block.ReasoningBlock | Pairing.Call | Pairing.Response>,
  state: State
): boolean => {
  if (!isRecord(part)) return false
  const { text, thought } = part
  const signature = oneOf(part.thought_signature, part.thoughtSignature)
  if (!isOptionalString(text) || !(isUnset(thought) || typeof thought === "boolean")) return false
  if (!isOptionalString(signature) || (signature !== undefined && role === "user")) return false
  const inline = oneOf(part.inline_data, part.inlineData)
  const call = oneOf(part.function_call, part.functionCall)
  const responseKey = isUnset(part.function_response) ? "functionResponse" : "function_response"
  const response = oneOf(part.function_response, part.functionResponse)
  const set = (isUnset(text) ? 0 : 1) + (inline === undefined ? 0 : 1) + (call === undefined ? 0 : 1) +
    (response === undefined ? 0 : 1)
  if (set > 1 || setsUnsupported(part) || !ignoredFit(part, depth, readsPart)) return false
  if (set === 0 || (thought === true && typeof text === "string")) {
    // a thought, or a signature on its own: reasoning
    if (role === "user" || (set === 0 && signature === undefined)) return false
    items.push(Block.reasoning(typeof text === "string" ? text : "", { signature: signature ?? null }))
    return true
  }
  if (thought === true) return false // only a text thought has a canonical form
  if (signature !== undefined) items.push(Block.reasoning("", { signature }))
  if (typeof text === "string") {
    items.push(Block.text(text))
  } else if (inline !== undefined) {
    const block = image(inline, depth + 1)
    if (block === undefined) return false
    items.push(block)
  } else if (call !== undefined) {
    const decoded = role === "user" ? undefined : functionCall(call, c, p, depth + 1)
    if (decoded === undefined) return false
    if (decoded.explicitId !== undefined) state.taken.add(decoded.explicitId)
    state.calls.push(decoded)
    items.push(decoded)
  } else {
    const decoded = role === "assistant" ? undefined : functionResponse(response, root, responseKey, c, p, depth + 1)
    if (decoded === undefined) return false
    if (decoded.id !== undefined) state.taken.add(decoded.id)
    state.responses.push(decoded)
    items.push(decoded)
  }
  return true
}

/** The contents (their elements at `depth`) as drafts; `undefined` at anything unexpected. */
const decodeContents = (
  contents: ReadonlyArray<unknown>,
  root: ReadonlyArray<string | number>,
  depth: number,
  state: State
): Array<Pairing.Draft> | undefined => {
  const drafts: Array<Pairing.Draft> = new Array(contents.length)
  for (let c = 0; c < contents.length; c++) {
    const content = contents[c]
    if (!isRecord(content)) return undefined
    const { parts, role } = content
    if (!(isUnset(role) || role === "user" || role === "model" || role === "function")) return undefined
    if (!(isUnset(parts) || Array.isArray(parts)) || !ignoredFit(content, depth, readsContent)) return undefined
    const canonicalRole = role === "model" ? "assistant" : "user"
    const items: Array<Block.ContentBlock | Block.ReasoningBlock | Pairing.Call | Pairing.Response> = []
    if (!isUnset(parts)) {
      for (let p = 0; p < parts.length; p++) {
        if (!decodePart(parts[p], canonicalRole, root, c, p, depth + 2, items, state)) return undefined
      }
    }
    // `decodePart` placed every item by role
    drafts[c] = { role: canonicalRole, items } as Pairing.Draft
  }
  return drafts
}

/** A system instruction (at `depth`): a string or a `Content` of text and inline image parts. */
const decodeSystem = (instruction: unknown, depth: number): Message.SystemMessage | undefined => {
  if (typeof instruction === "string") return Message.system(instruction)
  if (!isRecord(instruction)) return undefined
  const parts = instruction.parts
  if (!(isUnset(parts) || Array.isArray(parts)) || !ignoredFit(instruction, depth, readsSystemContent)) {
    return undefined
  }
  const blocks: Array<Message.SystemBlock> = []
  if (!isUnset(parts)) {
    for (let j = 0; j < parts.length; j++) {
      const part: unknown = parts[j]
      if (!isRecord(part)) return undefined
      const { text, thought } = part
      if (!isOptionalString(text) || !(isUnset(thought) || thought === false)) return undefined
      if (oneOf(part.thought_signature, part.thoughtSignature) !== undefined) return undefined
      if (oneOf(part.function_call, part.functionCall) !== undefined) return undefined
      if (oneOf(part.function_response, part.functionResponse) !== undefined) return undefined
      if (setsUnsupported(part) || !ignoredFit(part, depth + 2, readsPart)) return undefined
      const inline = oneOf(part.inline_data, part.inlineData)
      if (typeof text === "string") {
        if (inline !== undefined) return undefined
        blocks.push(Block.text(text))
      } else {
        const block = image(inline, depth + 3)
        if (block === undefined) return undefined
        blocks.push(block)
      }
    }
  }
  return Message.system(blocks)
}

/**
 * The system instruction of a request body, at the top level or in an SDK `config` (one place, one
 * spelling), with its depth; `undefined` for none, `false` at anything unexpected.
 */
const systemInstruction = (
  request: Record
): { readonly value: unknown; readonly depth: number } | undefined | false => {
  const top = oneOf(request.system_instruction, request.systemInstruction)
  if (top === both) return false
  const config = request.config
  let nested: unknown = undefined
  if (!isUnset(config)) {
    if (!isRecord(config)) return false
    nested = oneOf(config.system_instruction, config.systemInstruction)
    if (nested === both || (nested !== undefined && top !== undefined)) return false
  }
  if (nested !== undefined) return { value: nested, depth: 2 }
  return top === undefined ? undefined : { value: top, depth: 1 }
}

const requestRoot: ReadonlyArray<string | number> = ["contents"]
const bareRoot: ReadonlyArray<string | number> = []

/**
 * A Gemini transcript that decodes without error, as a canonical conversation; `undefined` for any
 * other input (the Schema path then decodes it, and explains).
 *
 * Depths are those of the depth guard, which walks the request as `{contents, system_instruction,
 * systemInstruction, config: {system_instruction, systemInstruction}}`: a bare contents array is at
 * depth 0, the `contents` of a request at depth 1.
 */
export const decode = (input: unknown): Conversation.Conversation | undefined => {
  const messages: Array<Message.Message> = []
  let contents: unknown
  let root: ReadonlyArray<string | number>
  let depth: number // of an element of `contents`
  if (Array.isArray(input)) {
    contents = input
    root = bareRoot
    depth = 1
  } else if (isRecord(input)) {
    const instruction = systemInstruction(input)
    if (instruction === false) return undefined
    if (instruction !== undefined) {
      const system = decodeSystem(instruction.value, instruction.depth)
      if (system === undefined) return undefined
      messages.push(system)
    }
    contents = input.contents
    root = requestRoot
    depth = 2
  } else {
    return undefined
  }
  if (!Array.isArray(contents)) return undefined
  const state: State = { calls: [], responses: [], taken: new Set() }
  const drafts = decodeContents(contents, root, depth, state)
  if (drafts === undefined) return undefined
  const settled = Pairing.settle(messages, drafts, state.calls, state.responses, state.taken)
  return Either.isRight(settled) ? settled.right : undefined
}
