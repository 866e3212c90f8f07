/**
 * Hand-written canonical <-> Gemini conversion: the same mapping as `src/GoogleFormat.ts` with
 * default options, as plain loops over plain objects.
 */
import type * as Block from "../../../src/Block.js"
import type * as Conversation from "../../../src/Conversation.js"
import type * as Json from "../../../src/Json.js"
import type * as Message from "../../../src/Message.js"
import { base64, fail, isRecord, jsonObject, string } from "./check.js"

type Part = { readonly [key: string]: unknown }

/** A Gemini request's conversation, loosely typed: the benchmark compares values, not types. */
export interface Wire {
  readonly system_instruction: string | null
  readonly contents: Array<{ readonly role: "user" | "model"; readonly parts: Array<Part> }>
}

const toolText = (block: Block.ToolResultBlock): string => {
  const inner = block.blocks
  let out = ""
  for (let k = 0; k < inner.length; k++) {
    const b = inner[k]!
    if (b.type !== "text") fail("function responses are text-only")
    out = k === 0 ? b.text : out + "\n" + b.text
  }
  return out
}

/** Canonical conversation to `{system_instruction, contents}`. Throws on what the codec rejects. */
export const encode = (conversation: Conversation.Conversation): Wire => {
  // Function responses are addressed by name: index the calls first.
  const names = new Map<string, string>()
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (message.role !== "assistant") continue
    const blocks = message.blocks
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      if (block.type === "tool_call") names.set(block.id, block.name)
    }
  }
  let system: string | null = null
  const contents: Array<{ readonly role: "user" | "model"; readonly parts: Array<Part> }> = []
  let leading = true
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    const blocks = message.blocks
    if (message.role === "system") {
      if (!leading) fail(`message ${i}: system message after the first non-system turn`)
      for (let j = 0; j < blocks.length; j++) {
        const block = blocks[j]!
        if (block.type !== "text") fail(`message ${i}, block ${j}: system instructions hold text only`)
        system = system === null ? block.text : system + "\n\n" + block.text
      }
      continue
    }
    leading = false
    const parts: Array<Part> = new Array(blocks.length)
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      switch (block.type) {
        case "text":
          parts[j] = { text: block.text }
          break
        case "image":
          parts[j] = { inline_data: { mime_type: block.mimeType, data: block.data } }
          break
        case "reasoning":
          return fail(`message ${i}, block ${j}: no input representation for reasoning`)
        case "tool_call":
          if (message.role !== "assistant") fail(`message ${i}, block ${j}: misplaced tool_call`)
          parts[j] = { function_call: { name: block.name, args: block.input } }
          break
        case "tool_result": {
          if (message.role !== "user") fail(`message ${i}, block ${j}: misplaced tool_result`)
          const name = names.get(block.tool_call_id)
          if (name === undefined) fail(`message ${i}, block ${j}: no tool_call ${block.tool_call_id}`)
          parts[j] = { function_response: { name, response: { output: toolText(block) } } }
          break
        }
      }
    }
    contents.push({ role: message.role === "assistant" ? "model" : "user", parts })
  }
  return { system_instruction: system, contents }
}

// -----------------------------------------------------------------------------
// decode
// -----------------------------------------------------------------------------

const textBlock = (value: string): Block.TextBlock => ({ text: value, detail: null, type: "text" })

const reasoningBlock = (value: string, signature: string | null): Block.ReasoningBlock => ({
  text: value,
  signature,
  detail: null,
  type: "reasoning"
})

const isSet = (u: unknown): boolean => u !== undefined && u !== null

/** The value of the one spelling of a field that is set (`null` is unset); both set is an error. */
const either = (record: { readonly [key: string]: unknown }, snake: string, camel: string): unknown => {
  const s = record[snake]
  const c = record[camel]
  if (s !== undefined && s !== null) {
    if (c !== undefined && c !== null) fail(`${snake} and ${camel} are both set`)
    return s
  }
  return c !== undefined && c !== null ? c : undefined
}

const imageBlock = (blob: unknown): Block.ImageBlock => {
  if (!isRecord(blob)) return fail("inline_data must be an object")
  const mime = either(blob, "mime_type", "mimeType")
  return {
    data: base64(string(blob.data, "data")),
    mimeType: mime === undefined ? fail("mime_type is missing") : string(mime, "mime_type"),
    detail: null,
    type: "image"
  }
}

const unsupported = [
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
]

interface Call {
  readonly c: number
  readonly p: number
  readonly name: string
  readonly input: Json.JsonObject
  readonly explicitId: string | undefined
  adopted: string | undefined
  answered: boolean
  id: string
}

interface Response {
  readonly c: number
  readonly name: string
  readonly id: string | undefined
  readonly blocks: Array<Block.ContentBlock>
  readonly isError: boolean
  call: Call | undefined
}

/** The calls of one name, in document order, and the first of them not yet answered. */
interface ByName {
  readonly calls: Array<Call>
  next: number
}

const responseContent = (
  fr: { readonly [key: string]: unknown }
): { blocks: Array<Block.ContentBlock>; isError: boolean } => {
  const blocks: Array<Block.ContentBlock> = []
  let isError = false
  const response = fr.response
  if (isSet(response)) {
    const object = jsonObject(response, "response")
    let count = 0
    for (const _ in object) count++
    const output = object.output
    const error = object.error
    if (count === 1 && typeof output === "string") blocks.push(textBlock(output))
    else if (count === 1 && typeof error === "string") {
      blocks.push(textBlock(error))
      isError = true
    } else {
      blocks.push(textBlock(JSON.stringify(object)))
      isError = error !== undefined && error !== null
    }
  }
  const parts = fr.parts
  if (isSet(parts)) {
    if (!Array.isArray(parts)) fail("function_response parts must be an array")
    for (let k = 0; k < parts.length; k++) {
      const part = parts[k]
      if (!isRecord(part)) return fail("a function_response part must be an object")
      const inline = either(part, "inline_data", "inlineData")
      if (either(part, "file_data", "fileData") !== undefined) fail("file_data is not canonical")
      if (inline === undefined) fail("a function_response part must set inline_data")
      blocks.push(imageBlock(inline))
    }
  }
  return { blocks, isError }
}

const systemMessage = (instruction: unknown): Message.SystemMessage => {
  if (typeof instruction === "string") return { role: "system", blocks: [textBlock(instruction)], detail: null }
  if (!isRecord(instruction)) return fail("system_instruction must be a string or a Content")
  const parts = isSet(instruction.parts) ? instruction.parts : []
  if (!Array.isArray(parts)) return fail("parts must be an array")
  const blocks: Array<Block.ContentBlock> = new Array(parts.length)
  for (let j = 0; j < parts.length; j++) {
    const part = parts[j]
    if (!isRecord(part)) return fail("a part must be an object")
    if (part.thought === true || either(part, "thought_signature", "thoughtSignature") !== undefined) {
      fail("a system part may not be a thought or signed")
    }
    const inline = either(part, "inline_data", "inlineData")
    if (isSet(part.text)) {
      if (inline !== undefined) fail("a part must set exactly one data field")
      blocks[j] = textBlock(string(part.text, "text"))
    } else if (inline !== undefined) blocks[j] = imageBlock(inline)
    else fail("a system part must be text or inline_data")
  }
  return { role: "system", blocks, detail: null }
}

/** A Gemini request or a bare `contents` array to a canonical conversation. Throws on bad input. */
export const decode = (input: unknown): Conversation.Conversation => {
  const out: Array<Message.Message> = []
  let contents: unknown
  if (Array.isArray(input)) contents = input
  else if (isRecord(input)) {
    contents = input.contents
    let instruction = either(input, "system_instruction", "systemInstruction")
    const config = input.config
    if (isSet(config)) {
      if (!isRecord(config)) return fail("config must be an object")
      const nested = either(config, "system_instruction", "systemInstruction")
      if (nested !== undefined) {
        if (instruction !== undefined) fail("the system instruction is set twice")
        instruction = nested
      }
    }
    if (instruction !== undefined) out.push(systemMessage(instruction))
  } else return fail("expected a Gemini request or an array of contents")
  if (!Array.isArray(contents)) return fail("contents must be an array")

  // Decode every part; calls and responses wait for pairing.
  const drafts: Array<{ readonly role: "user" | "assistant"; readonly items: Array<unknown> }> = new Array(
    contents.length
  )
  const calls: Array<Call> = []
  const responses: Array<Response> = []
  const byName = new Map<string, ByName>()
  const byId = new Map<string, Array<Call>>()
  const taken = new Set<string>()
  for (let c = 0; c < contents.length; c++) {
    const content = contents[c]
    if (!isRecord(content)) return fail("a content must be an object")
    const rawRole = content.role
    if (isSet(rawRole) && rawRole !== "user" && rawRole !== "model" && rawRole !== "function") fail("bad role")
    const role = rawRole === "model" ? "assistant" : "user"
    const parts = isSet(content.parts) ? content.parts : []
    if (!Array.isArray(parts)) return fail("parts must be an array")
    const items: Array<unknown> = []
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p]
      if (!isRecord(part)) return fail("a part must be an object")
      for (let u = 0; u < unsupported.length; u++) {
        if (isSet(part[unsupported[u]!])) fail(`${unsupported[u]} is not canonical`)
      }
      const text = part.text
      const inline = either(part, "inline_data", "inlineData")
      const call = either(part, "function_call", "functionCall")
      const response = either(part, "function_response", "functionResponse")
      const set = (isSet(text) ? 1 : 0) + (inline === undefined ? 0 : 1) + (call === undefined ? 0 : 1) +
        (response === undefined ? 0 : 1)
      if (set > 1) fail("a part must set exactly one data field")
      const thought = part.thought
      if (isSet(thought) && typeof thought !== "boolean") fail("thought must be a boolean")
      const rawSignature = either(part, "thought_signature", "thoughtSignature")
      const signature = rawSignature === undefined ? undefined : string(rawSignature, "thought_signature")
      if (thought === true && set === 1 && !isSet(text)) fail("only a text thought is canonical")
      if (signature !== undefined && role === "user") fail("a user part cannot be signed")
      if (set === 0) {
        if (signature === undefined) fail("a part must set a data field")
        items.push(reasoningBlock("", signature!))
        continue
      }
      if (isSet(text) && thought === true) {
        items.push(reasoningBlock(string(text, "text"), signature ?? null))
        continue
      }
      if (signature !== undefined) items.push(reasoningBlock("", signature))
      if (isSet(text)) items.push(textBlock(string(text, "text")))
      else if (inline !== undefined) items.push(imageBlock(inline))
      else if (call !== undefined) {
        if (role === "user") fail("misplaced function_call")
        if (!isRecord(call)) return fail("function_call must be an object")
        const args = isSet(call.args) ? call.args : {}
        const id = isSet(call.id) ? string(call.id, "id") : undefined
        const entry: Call = {
          c,
          p,
          name: string(call.name, "name"),
          input: jsonObject(args, "args"),
          explicitId: id,
          adopted: undefined,
          answered: false,
          id: ""
        }
        if (id !== undefined) {
          taken.add(id)
          const same = byId.get(id)
          if (same === undefined) byId.set(id, [entry])
          else same.push(entry)
        }
        const named = byName.get(entry.name)
        if (named === undefined) byName.set(entry.name, { calls: [entry], next: 0 })
        else named.calls.push(entry)
        calls.push(entry)
        items.push(entry)
      } else {
        if (role === "assistant") fail("misplaced function_response")
        if (!isRecord(response)) return fail("function_response must be an object")
        const id = isSet(response.id) ? string(response.id, "id") : undefined
        if (id !== undefined) taken.add(id)
        const entry: Response = {
          c,
          name: string(response.name, "name"),
          id,
          ...responseContent(response),
          call: undefined
        }
        responses.push(entry)
        items.push(entry)
      }
    }
    drafts[c] = { role, items }
  }

  // Pair responses with calls: by id, else by name (earliest unanswered earlier call, else the
  // latest earlier one, else the first later one). Indexed by id and by name.
  for (let r = 0; r < responses.length; r++) {
    const response = responses[r]!
    let match: Call | undefined
    if (response.id !== undefined) {
      const same = byId.get(response.id)
      if (same !== undefined && same.length > 0) {
        for (let k = 0; k < same.length && match === undefined; k++) {
          if (same[k]!.name === response.name) match = same[k]
        }
        if (match === undefined) fail(`function_call ${response.id} has another name`)
      }
    }
    if (match === undefined) {
      const named = byName.get(response.name)
      if (named !== undefined) {
        const list = named.calls
        if (response.id === undefined) {
          while (named.next < list.length && list[named.next]!.answered) named.next++
          const first = list[named.next]
          if (first !== undefined && first.c < response.c) match = first
          else {
            // Calls are in document order: binary search for the last one before the response.
            let lo = 0
            let hi = list.length
            while (lo < hi) {
              const mid = (lo + hi) >> 1
              if (list[mid]!.c < response.c) lo = mid + 1
              else hi = mid
            }
            match = lo > 0 ? list[lo - 1] : list[lo]
          }
        } else {
          // A response with an unknown id pairs only with calls that have no id yet.
          let lastEarlier: Call | undefined
          for (let k = 0; k < list.length; k++) {
            const call = list[k]!
            if ((call.explicitId ?? call.adopted) !== undefined) continue
            if (call.c < response.c) {
              if (!call.answered) {
                match = call
                break
              }
              lastEarlier = call
            } else {
              match = lastEarlier ?? call
              break
            }
          }
          match ??= lastEarlier
        }
      }
      if (match === undefined) fail(`no function_call for function_response ${response.name}`)
      if (response.id !== undefined && (match!.explicitId ?? match!.adopted) === undefined) {
        match!.adopted = response.id
        const same = byId.get(response.id)
        if (same === undefined) byId.set(response.id, [match!])
        else {
          // Keep document order, which decides between two same-named calls with this id.
          let at = same.length
          while (
            at > 0 && (same[at - 1]!.c > match!.c || (same[at - 1]!.c === match!.c && same[at - 1]!.p > match!.p))
          ) at--
          same.splice(at, 0, match!)
        }
      }
    }
    match!.answered = true
    response.call = match
  }

  // Settle ids: explicit, adopted, or call_<content>_<part> made unique.
  for (let k = 0; k < calls.length; k++) {
    const call = calls[k]!
    const known = call.explicitId ?? call.adopted
    if (known !== undefined) {
      call.id = known
      continue
    }
    const base = "call_" + call.c + "_" + call.p
    let id = base
    for (let n = 1; taken.has(id); n++) id = base + "_" + n
    taken.add(id)
    call.id = id
  }

  for (let c = 0; c < drafts.length; c++) {
    const draft = drafts[c]!
    const items = draft.items
    const blocks: Array<Block.Block> = new Array(items.length)
    for (let k = 0; k < items.length; k++) {
      const item = items[k] as Block.Block | Call | Response
      if ("type" in item) blocks[k] = item
      else if ("input" in item) {
        blocks[k] = { id: item.id, name: item.name, input: item.input, detail: null, type: "tool_call" }
      } else {
        blocks[k] = {
          tool_call_id: item.call!.id,
          blocks: item.blocks,
          is_error: item.isError,
          detail: null,
          type: "tool_result"
        }
      }
    }
    out.push({ role: draft.role, blocks, detail: null } as Message.Message)
  }
  return out
}
