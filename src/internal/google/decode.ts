/**
 * A Gemini transcript to a canonical conversation.
 *
 * Input a guard compiled from the wire schemas (`GoogleFormat.InputRequest`, `InputContents`;
 * guard.ts) passes is converted as it is; the rest goes through the wire schemas once (structure and
 * JSON types, both spellings, `null` as unset); then each part is classified, turned into canonical
 * pieces and placed by role; then function responses are paired with their calls and ids are
 * settled (the pairing section). Errors come in that order: structure, then the system
 * instruction, then parts in document order, then pairing in document order.
 *
 * Locations: `messageIndex` and `blockIndex` are the index of the content in `contents` and of the
 * part in its `parts`; `path` is the full path from the root of the input.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import * as Block from "../../Block.js"
import type * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import type * as Format from "../../GoogleFormat.js"
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import { standard } from "../base64.js"
import * as Decoder from "../decoder.js"
import * as Guard from "../guard.js"
import { isRecord } from "../plain.js"
import * as ProviderContent from "../providerContent.js"
import { copyJsonObject } from "../wireInput.js"
import * as Wire from "./schema.js"

type Path = ReadonlyArray<string | number>
type DecodeError = Format.DecodeError

// -----------------------------------------------------------------------------
// errors
// -----------------------------------------------------------------------------

interface Location {
  readonly messageIndex?: number
  readonly blockIndex?: number
}

const malformed = (path: Path, reason: string, location: Location = {}): ConversionError.MalformedInput =>
  new ConversionError.MalformedInput({ format: "google", path, reason, ...location })

// -----------------------------------------------------------------------------
// spelling
// -----------------------------------------------------------------------------

interface Field<A> {
  readonly key: string
  readonly value: A
}

const bothSpellings = (snakeKey: string, camelKey: string, at: Path, location: Location) =>
  malformed(
    [...at, camelKey],
    `${JSON.stringify(snakeKey)} and ${JSON.stringify(camelKey)} are both set; use one spelling`,
    location
  )

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
  if (hasSnake && hasCamel) return Either.left(bothSpellings(snakeKey, camelKey, at, location))
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
  | { readonly _tag: "inline_data"; readonly key: string; readonly value: Format.InputBlob }
  | { readonly _tag: "function_call"; readonly key: string; readonly value: Format.InputFunctionCall }
  | { readonly _tag: "function_response"; readonly key: string; readonly value: Format.InputFunctionResponse }
  | {
    readonly _tag: "unsupported"
    readonly key: string
    readonly contentType: string
    /** the field's camelCase name: a kept part's kind */
    readonly kind: string
    readonly reason: string
  }

const fileDataReason = "it references a file by URI, and canonical images carry their bytes inline"

/** The data fields of a part that have no canonical form, and why. */
const unsupportedFields: ReadonlyArray<
  readonly [snake: keyof Format.InputPart, camel: keyof Format.InputPart, reason: string]
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

/**
 * The data fields of a part, in the order their errors are reported: each with its spellings (text
 * has one) and what it becomes.
 */
const dataFields: ReadonlyArray<{
  readonly tag: Data["_tag"]
  readonly snake: string
  readonly camel: string | undefined
  readonly reason: string
}> = [
  { tag: "text", snake: "text", camel: undefined, reason: "" },
  { tag: "inline_data", snake: "inline_data", camel: "inlineData", reason: "" },
  { tag: "function_call", snake: "function_call", camel: "functionCall", reason: "" },
  { tag: "function_response", snake: "function_response", camel: "functionResponse", reason: "" },
  ...unsupportedFields.map(([snake, camel, reason]) => ({ tag: "unsupported" as const, snake, camel, reason }))
]

/** A spelling of a data field: the field's index in {@link dataFields}, and whether it is camelCase. */
interface DataKey {
  readonly index: number
  readonly camel: boolean
}

/** Each spelling of a data field. */
const dataKeys = new Map<string, DataKey>(
  dataFields.flatMap((field, index) => [
    [field.snake, { index, camel: false }] as const,
    ...(field.camel === undefined ? [] : [[field.camel, { index, camel: true }] as const])
  ])
)

const hasOwn = Object.prototype.hasOwnProperty

/** The data a part sets under one spelling of a field. */
const dataOf = (known: DataKey, value: unknown): Data => {
  const field = dataFields[known.index]!
  const key = known.camel ? field.camel! : field.snake
  return field.tag === "unsupported"
    ? { _tag: "unsupported", key, contentType: field.snake, kind: field.camel ?? field.snake, reason: field.reason }
    : { _tag: field.tag, key, value } as Data
}

/**
 * Which data field a part sets (at most one), its `thought` flag and its signature, in one pass over
 * the part's own keys (`null` counts as unset). A field set in both spellings, or two data fields,
 * is an error, reported in the order of {@link dataFields}, then a signature in both spellings.
 */
const classify = (
  part: Format.InputPart,
  at: Path,
  location: Location
): Either.Either<Classified, ConversionError.MalformedInput> => {
  const record = part as { readonly [key: string]: unknown }
  // the first data field set, and (only when there is more than one) every one in key order
  let first: { readonly known: DataKey; readonly value: unknown } | undefined
  let all: Array<{ readonly known: DataKey; readonly value: unknown }> | undefined
  let snakeSignature: unknown
  let camelSignature: unknown
  for (const key in record) {
    if (!hasOwn.call(record, key)) continue
    const value = record[key]
    if (value === null || value === undefined) continue
    if (key === "thought_signature") snakeSignature = value
    else if (key === "thoughtSignature") camelSignature = value
    else {
      const known = dataKeys.get(key)
      if (known === undefined) continue
      if (first === undefined) first = { known, value }
      else (all ??= [first]).push({ known, value })
    }
  }
  const found: Array<Data> = []
  if (all === undefined) {
    if (first !== undefined) found.push(dataOf(first.known, first.value))
  } else {
    // per data field set: its value under each spelling
    const set = new Map<number, { snake?: unknown; camel?: unknown }>()
    for (const { known, value } of all) {
      const entry = set.get(known.index) ?? {}
      if (known.camel) entry.camel = value
      else entry.snake = value
      set.set(known.index, entry)
    }
    for (const index of [...set.keys()].sort((x, y) => x - y)) {
      const field = dataFields[index]!
      const entry = set.get(index)!
      const both = entry.snake !== undefined && entry.camel !== undefined
      if (both) return Either.left(bothSpellings(field.snake, field.camel!, at, location))
      found.push(
        dataOf(dataKeys.get(entry.snake !== undefined ? field.snake : field.camel!)!, entry.snake ?? entry.camel)
      )
    }
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
  if (snakeSignature !== undefined && camelSignature !== undefined) {
    return Either.left(bothSpellings("thought_signature", "thoughtSignature", at, location))
  }
  const signature = snakeSignature !== undefined
    ? { key: "thought_signature", value: snakeSignature as string }
    : camelSignature !== undefined
    ? { key: "thoughtSignature", value: camelSignature as string }
    : undefined
  return Either.right({ data: found[0], thought: part.thought === true, signature })
}

/**
 * A repeated field that the API also takes as a single object (`contents`, `parts`): its items, and
 * the path of item `i` in the input (`at` itself for a single object, so every path exists there).
 */
const repeated = <A>(
  value: ReadonlyArray<A> | A | null | undefined,
  at: Path
): { readonly parts: ReadonlyArray<A>; readonly at: (i: number) => Path } =>
  value === null || value === undefined
    ? { parts: [], at: (i) => [...at, i] }
    : Array.isArray(value)
    ? { parts: value as ReadonlyArray<A>, at: (i) => [...at, i] }
    : { parts: [value as A], at: () => at }

const noData = "a part must set one of text, inline_data, function_call or function_response"

/**
 * The keys of a part that describe other parts or the request, not content: the API accepts a part
 * holding only these (Google's own examples send `videoMetadata` alone). Such a part becomes no
 * block; what it held is reported as lost (decoder.ts) when the caller asks.
 */
const metadataKeys: ReadonlySet<string> = new Set([
  "video_metadata",
  "videoMetadata",
  "part_metadata",
  "partMetadata",
  "media_resolution",
  "mediaResolution"
])

/** Does the part hold metadata and nothing else (no data, no signature, `thought` unset or false)? */
const onlyMetadata = (part: Format.InputPart): boolean => {
  let any = false
  for (const key in part) {
    if (!hasOwn.call(part, key)) continue
    const value = (part as { readonly [key: string]: unknown })[key]
    if (value === null || value === undefined) continue
    if (metadataKeys.has(key)) any = true
    else if (!(key === "thought" && value === false)) return false
  }
  return any
}

/** What one part becomes, before placement by role. */
type Piece =
  | { readonly _tag: "Content"; readonly block: Block.ContentBlock }
  | { readonly _tag: "Provider"; readonly block: Block.ProviderBlock }
  | { readonly _tag: "Reasoning"; readonly block: Block.ReasoningBlock }
  | Call
  | Response

const content = (block: Block.ContentBlock): Piece => ({ _tag: "Content", block })
const reasoning = (text: string, signature: string | null): Piece => ({
  _tag: "Reasoning",
  block: Block.reasoning(text, { signature })
})

const isJsonObject = (value: Json.JsonValue): value is Json.JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const image = (
  blob: Field<Format.InputBlob>,
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
  return Either.right(Block.image(standard(blob.value.data), mime.right.value))
}

const responseContent = (
  field: Field<Format.InputFunctionResponse>,
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

/**
 * The key that makes a function call a fragment of one streamed in parts (`partialArgs` with
 * arguments in them, or `willContinue: true`), or `undefined` for a whole call.
 */
const fragmentOf = (call: Format.InputFunctionCall): string | undefined => {
  for (const key of ["partialArgs", "partial_args"] as const) {
    const value = call[key]
    if (isSet(value) && value.length > 0) return key
  }
  for (const key of ["willContinue", "will_continue"] as const) if (call[key] === true) return key
  return undefined
}

const keepHint = "decode with providerContent: \"keep\" to keep the part as a provider block, which encode writes back"

/** One part of a content to canonical pieces. Placement by role is checked by the caller. */
const decodePart = (
  part: Format.InputPart,
  role: "user" | "assistant",
  root: Path,
  at: Path,
  c: number,
  p: number,
  keep: boolean
): Either.Either<ReadonlyArray<Piece>, DecodeError> => {
  const location = { messageIndex: c, blockIndex: p }
  const classified = classify(part, at, location)
  if (Either.isLeft(classified)) return Either.left(classified.left)
  const { data, signature, thought } = classified.right
  if (data?._tag === "unsupported") {
    if (keep) {
      // the whole part as it came (its signature, its spelling), which encode writes back
      const item = copyJsonObject(part, 0)
      return item === undefined
        ? Either.left(malformed(at, "expected a part of JSON values", location))
        : Either.right([{ _tag: "Provider", block: Block.provider("google", data.kind, item) }])
    }
    return Either.left(
      new ConversionError.UnsupportedContent({
        format: "google",
        path: [...at, data.key],
        ...location,
        contentType: data.contentType,
        reason: `${data.reason}; ${keepHint}`
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
    return signature !== undefined
      ? Either.right([reasoning("", signature.value)])
      : onlyMetadata(part)
      ? Either.right([])
      : Either.left(malformed(at, noData, location))
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
      const fragment = fragmentOf(data.value)
      if (fragment !== undefined) {
        return Either.left(
          malformed(
            [...at, data.key, fragment],
            "a fragment of a function call whose arguments were streamed in parts: a transcript or a whole " +
              "answer holds whole calls (decodeStream assembles the fragments of a stream)",
            location
          )
        )
      }
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
      const call: Call = {
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
      const response: Response = {
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
  instruction: Field<Format.InputSystemInstruction>,
  root: Path
): Either.Either<Message.SystemMessage, ConversionError.MalformedInput> => {
  if (typeof instruction.value === "string") return Either.right(Message.system(instruction.value))
  const { at: partAt, parts } = repeated(instruction.value.parts, [...root, instruction.key, "parts"])
  const blocks: Array<Message.SystemBlock> = []
  for (let j = 0; j < parts.length; j++) {
    const at = partAt(j)
    const classified = classify(parts[j]!, at, {})
    if (Either.isLeft(classified)) return Either.left(classified.left)
    const { data, signature, thought } = classified.right
    if (data === undefined) {
      if (signature === undefined && onlyMetadata(parts[j]!)) continue
      return Either.left(malformed(at, noData))
    }
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
// pairing: function responses with their calls, call ids settled, messages built
// -----------------------------------------------------------------------------

/** A function call waiting for its final id. */
interface Call {
  readonly _tag: "Call"
  readonly c: number
  readonly p: number
  readonly name: string
  readonly input: Json.JsonObject
  readonly explicitId: string | undefined
  adopted: string | undefined
  answered: boolean
  id: string
}

/** A function response waiting for its call. */
interface Response {
  readonly _tag: "Response"
  readonly c: number
  readonly p: number
  /** where the part sits: `[...root, c, "parts", p, key]` (built only for an error) */
  readonly root: ConversionError.Path
  readonly key: string
  readonly name: string
  readonly id: string | undefined
  readonly blocks: ReadonlyArray<Block.ContentBlock>
  readonly isError: boolean
  call: Call | undefined
}

/** One content before pairing: its blocks, with calls and responses still to be settled. */
type Draft =
  | { readonly role: "user"; readonly items: ReadonlyArray<UserItem> }
  | { readonly role: "assistant"; readonly items: ReadonlyArray<AssistantItem> }

type UserItem = Block.ContentBlock | Block.ProviderBlock | Response
type AssistantItem = Block.ContentBlock | Block.ReasoningBlock | Block.ProviderBlock | Call

const effectiveId = (call: Call): string | undefined => call.explicitId ?? call.adopted

/** The calls of one function name in document order, with cursors past the calls already answered. */
interface Group {
  readonly calls: Array<Call>
  /** every call before this index is answered */
  unanswered: number
  /** every call before this index is answered or has an id */
  unansweredWithoutId: number
}

/** How many of the calls (in document order) sit in contents before `c`. */
const before = (calls: ReadonlyArray<Call>, c: number): number => {
  let lo = 0
  let hi = calls.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (calls[mid]!.c < c) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The call a response pairs with by name: the earliest unanswered call before it, else the latest
 * call before it, else the first call after it; only calls without an id when `withoutId`.
 */
const byName = (group: Group, c: number, withoutId: boolean): Call | undefined => {
  const { calls } = group
  let first: Call | undefined
  if (withoutId) {
    while (
      group.unansweredWithoutId < calls.length &&
      (calls[group.unansweredWithoutId]!.answered || !isEligible(calls[group.unansweredWithoutId]!, withoutId))
    ) group.unansweredWithoutId++
    first = calls[group.unansweredWithoutId]
  } else {
    while (group.unanswered < calls.length && calls[group.unanswered]!.answered) group.unanswered++
    first = calls[group.unanswered]
  }
  if (first !== undefined && first.c < c) return first
  const end = before(calls, c)
  for (let i = end - 1; i >= 0; i--) if (isEligible(calls[i]!, withoutId)) return calls[i]
  for (let i = end; i < calls.length; i++) if (isEligible(calls[i]!, withoutId)) return calls[i]
  return undefined
}

// (no closures in these loops: under tsx, which keeps function names, each one costs an allocation
// and a `defineProperty`)
const isEligible = (call: Call, withoutId: boolean): boolean => !withoutId || effectiveId(call) === undefined

const named = (calls: ReadonlyArray<Call>, name: string): Call | undefined => {
  for (let i = 0; i < calls.length; i++) if (calls[i]!.name === name) return calls[i]
  return undefined
}

const unmatched = (response: Response, reason: string) =>
  Either.left(
    new ConversionError.UnmatchedToolResult({
      format: "google",
      path: [...response.root, response.c, "parts", response.p, response.key],
      messageIndex: response.c,
      blockIndex: response.p,
      toolCallId: response.id ?? "",
      reason
    })
  )

/**
 * Pair every response with a call: by id when a call carries that id (the names must agree), else by
 * name (see {@link byName}). A response with an id pairs by name only with a call that has no id,
 * and that call takes the response's id.
 */
const pair = (
  calls: ReadonlyArray<Call>,
  responses: ReadonlyArray<Response>
): Either.Either<void, ConversionError.UnmatchedToolResult> => {
  const groups = new Map<string, Group>()
  const withId = new Map<string, Array<Call>>()
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!
    const group = groups.get(call.name)
    if (group === undefined) groups.set(call.name, { calls: [call], unanswered: 0, unansweredWithoutId: 0 })
    else group.calls.push(call)
    if (call.explicitId !== undefined) {
      const same = withId.get(call.explicitId)
      if (same === undefined) withId.set(call.explicitId, [call])
      else same.push(call)
    }
  }
  for (let r = 0; r < responses.length; r++) {
    const response = responses[r]!
    const sameId = response.id === undefined ? undefined : withId.get(response.id)
    if (sameId !== undefined) {
      const match = named(sameId, response.name)
      if (match === undefined) {
        return unmatched(
          response,
          `function_call ${JSON.stringify(response.id)} is named ${
            JSON.stringify(sameId[0]!.name)
          }, but this function_response names ${JSON.stringify(response.name)}`
        )
      }
      match.answered = true
      response.call = match
      continue
    }
    const group = groups.get(response.name)
    const match = group === undefined ? undefined : byName(group, response.c, response.id !== undefined)
    if (match === undefined) {
      return unmatched(
        response,
        response.id === undefined
          ? `no function_call in the transcript is named ${JSON.stringify(response.name)}`
          : `no function_call in the transcript has this id, and none named ${
            JSON.stringify(response.name)
          } is without an id`
      )
    }
    match.answered = true
    if (response.id !== undefined && effectiveId(match) === undefined) {
      match.adopted = response.id
      withId.set(response.id, [match])
    }
    response.call = match
  }
  return Either.right(undefined)
}

/** Settle every call's id: its own, the one it adopted, or `call_<content>_<part>` made unique. */
const assignIds = (calls: ReadonlyArray<Call>, taken: Set<string>): void => {
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!
    const known = effectiveId(call)
    if (known !== undefined) {
      call.id = known
      continue
    }
    const base = `call_${call.c}_${call.p}`
    let id = base
    for (let n = 1; taken.has(id); n++) id = `${base}_${n}`
    taken.add(id)
    call.id = id
  }
}

/**
 * Pair the responses with their calls, settle the ids, and append one message per draft to
 * `messages`. `taken` holds every id the transcript itself uses.
 */
const settle = (
  messages: Array<Message.Message>,
  drafts: ReadonlyArray<Draft>,
  calls: ReadonlyArray<Call>,
  responses: ReadonlyArray<Response>,
  taken: Set<string>
): Either.Either<Conversation.Conversation, ConversionError.UnmatchedToolResult> => {
  const paired = pair(calls, responses)
  if (Either.isLeft(paired)) return Either.left(paired.left)
  assignIds(calls, taken)
  for (let d = 0; d < drafts.length; d++) {
    const draft = drafts[d]!
    messages.push(
      draft.role === "user" ? Message.user(userBlocks(draft.items)) : Message.assistant(assistantBlocks(draft.items))
    )
  }
  return Either.right(messages)
}

const userBlocks = (items: ReadonlyArray<UserItem>): Array<Message.UserBlock> => {
  const blocks: Array<Message.UserBlock> = new Array(items.length)
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!
    // `pair` has given every response its call
    blocks[k] = "_tag" in item ? Block.toolResult(item.call!.id, item.blocks, { isError: item.isError }) : item
  }
  return blocks
}

const assistantBlocks = (items: ReadonlyArray<AssistantItem>): Array<Message.AssistantBlock> => {
  const blocks: Array<Message.AssistantBlock> = new Array(items.length)
  for (let k = 0; k < items.length; k++) {
    const item = items[k]!
    blocks[k] = "_tag" in item ? Block.toolCall(item.id, item.name, item.input) : item
  }
  return blocks
}

// -----------------------------------------------------------------------------
// transcript
// -----------------------------------------------------------------------------

const misplaced = (role: Message.Role, blockType: Block.BlockType, at: Path, c: number, p: number) =>
  Either.left(
    new ConversionError.MisplacedBlock({ format: "google", path: at, messageIndex: c, blockIndex: p, role, blockType })
  )

interface Instruction {
  readonly field: Field<Format.InputSystemInstruction>
  readonly at: Path
}

/** The system instruction, at the top level or in an SDK `config`, in either spelling (only one of them). */
const resolveSystem = (
  request: Format.InputRequest
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

const contentList = Decoder.shape(Wire.InputContents, { onExcessProperty: "ignore" })
const request = Decoder.shape(Wire.InputRequest, { onExcessProperty: "ignore" })
const atRequest = { messages: ["contents"], blocks: ["parts"] }
const atList = { messages: [], blocks: ["parts"] }

// only what decoding reads is held to the depth limit
const readOfRequest = (body: unknown) => {
  const input = body as { readonly [key: string]: unknown }
  const config = input["config"]
  return {
    contents: input["contents"],
    system_instruction: input["system_instruction"],
    systemInstruction: input["systemInstruction"],
    config: isRecord(config)
      ? { system_instruction: config["system_instruction"], systemInstruction: config["systemInstruction"] }
      : config
  }
}

type Read = ReadonlyArray<Format.InputContent> | Format.InputRequest

/** Where `decode` reads its input: a bare `contents` array or a request body. */
const target = (input: unknown): Decoder.Target<Read> | Decoder.Result<never, never> => {
  if (Array.isArray(input)) {
    return { shape: contentList, value: input, path: [], locator: atList }
  }
  if (!isRecord(input)) {
    return Either.left(
      malformed([], "expected a Gemini request ({ contents, system_instruction }) or an array of contents")
    )
  }
  return { shape: request, value: input, path: [], locator: atRequest, read: readOfRequest }
}

const sequence = {
  format: "google",
  requestKeys: Wire.requestKeys,
  api: "Gemini API",
  issue: "specific",
  depthLimit: true,
  target
} as const

/**
 * Decode a Gemini transcript: a request body or a bare `contents` array, read by the one decode
 * sequence (internal/decoder.ts).
 */
export const decode: Decoder.Decode<Format.DecodeOptions, DecodeError> = Decoder.make({
  ...sequence,
  convert: (value, _target, options: Format.DecodeOptions | undefined) =>
    Array.isArray(value)
      ? convert(value as ReadonlyArray<Format.InputContent>, undefined, undefined, ProviderContent.keeps(options))
      : convert(undefined, value as Format.InputRequest, undefined, ProviderContent.keeps(options))
})

/**
 * {@link decode} that also says where each block came from: `origins[c][k]` is the index, in
 * `contents[c].parts`, of the part that the `k`-th block of the message of content `c` was read
 * from (a response decoder keeps what else the part holds on its block).
 */
export const decodeTracked: (input: unknown, options?: Format.DecodeOptions) => Decoder.Result<{
  readonly conversation: Conversation.Conversation
  readonly origins: ReadonlyArray<ReadonlyArray<number>>
}, DecodeError> = Decoder.make({
  ...sequence,
  convert: (value, _target, options: Format.DecodeOptions | undefined) => {
    const origins: Array<Array<number>> = []
    const keep = ProviderContent.keeps(options)
    const converted = Array.isArray(value)
      ? convert(value as ReadonlyArray<Format.InputContent>, undefined, origins, keep)
      : convert(undefined, value as Format.InputRequest, origins, keep)
    return Either.map(converted, (conversation) => ({ conversation, origins }))
  }
})

/** The conversion of a bare `contents` array or a request body that decodes. */
const convert = (
  bare: ReadonlyArray<Format.InputContent> | undefined,
  request: Format.InputRequest | undefined,
  origins: Array<Array<number>> | undefined,
  keep: boolean
): Either.Either<Conversation.Conversation, DecodeError> => {
  let contents: ReadonlyArray<Format.InputContent>
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
    contents = Array.isArray(request!.contents) ? request!.contents : [request!.contents as Format.InputContent]
    root = ["contents"]
  }
  // a single content (not in a list), as Google's REST examples send it: paths without its index
  const single = bare === undefined && !Array.isArray(request!.contents)

  const calls: Array<Call> = []
  const responses: Array<Response> = []
  const taken = new Set<string>()
  const drafts: Array<Draft> = []
  for (let c = 0; c < contents.length; c++) {
    const content = contents[c]!
    const role = content.role === "model" ? "assistant" : "user"
    const { at: partAt, parts } = repeated(content.parts, single ? [...root, "parts"] : [...root, c, "parts"])
    const userItems: Array<UserItem> = []
    const assistantItems: Array<AssistantItem> = []
    const origin: Array<number> | undefined = origins === undefined ? undefined : []
    for (let p = 0; p < parts.length; p++) {
      const at = partAt(p)
      const pieces = decodePart(parts[p]!, role, root, at, c, p, keep)
      if (Either.isLeft(pieces)) return Either.left(pieces.left)
      for (const piece of pieces.right) {
        origin?.push(p)
        switch (piece._tag) {
          case "Content":
          case "Provider":
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
    if (origin !== undefined) origins!.push(origin)
  }

  return settle(messages, drafts, calls, responses, taken)
}
