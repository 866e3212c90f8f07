/**
 * Function calls whose arguments Gemini streams in parts (Vertex AI and Gemini 3 with
 * `toolConfig.functionCallingConfig.streamFunctionCallArguments`), assembled into one whole
 * `functionCall` part, as the same answer sent whole would hold it.
 *
 * What Google documents (`FunctionCall`, `PartialArg` in the API reference and `@google/genai`):
 *
 * - `FunctionCall.willContinue: true` says another part of the **same** call follows;
 *   `FunctionCall.name` is optional on those later parts, and `args` may be left out.
 * - `FunctionCall.partialArgs` lists `PartialArg`s: `jsonPath` (RFC 9535, e.g.
 *   `"$.recipe.steps[0]"`) and one of `stringValue`, `numberValue`, `boolValue`, `nullValue`.
 * - `PartialArg.willContinue: true` says the value at that path goes on in a later `PartialArg`
 *   (a string sent in pieces).
 *
 * What the recorded streams add: a call starts with `{name, willContinue: true}` (its
 * `thoughtSignature` beside it), each argument string ends with a piece `""` without
 * `willContinue`, and the call ends with an empty `functionCall: {}`, or with a last fragment that
 * says nothing follows.
 *
 * The rules, one per fact:
 *
 * 1. A `functionCall` is a **fragment** when it has `partialArgs`, or `willContinue: true`, or no
 *    `name`; any other `functionCall` is a whole call and is kept as it is.
 * 2. A fragment with a `name` **starts** a call, in the part's place; one without continues the call
 *    that is open (none open is an `IncompleteStream`, unless the fragment is empty, as a second
 *    terminator is: it ends nothing, and the rest of its part stays a part). A call that starts
 *    while another is open is an `IncompleteStream` naming the open one: its arguments never
 *    completed.
 * 3. Each `PartialArg` sets the value at its path, creating the objects and arrays on the way (an
 *    index segment makes an array); a string continues a string already at that path; a value of
 *    another type over a value already there, or a path through a value of the wrong kind, is an
 *    `IncompleteStream` naming the call and the path. A `PartialArg` with no value and no
 *    `willContinue` makes an empty object there (an empty array when the path ends in `[]`, as the
 *    AI SDK reads Vertex AI), unless something is there already.
 * 4. `args` on a fragment sets its keys at the root (the same rule), `id` and `thoughtSignature` are
 *    the call's (a second, different one is an `IncompleteStream`), and any other key of the part is
 *    kept on the assembled part.
 * 5. The call **ends** at a fragment that says nothing follows: no `willContinue` on the
 *    `FunctionCall` and none on its `PartialArg`s (an empty `functionCall: {}` included). The stream
 *    ending with a call still open is an `IncompleteStream` naming it; so is an array left with a
 *    hole (an index that never came).
 *
 * Both spellings of every key are read (`partial_args`, `json_path`, ..., as a Python SDK dump
 * writes them), `null` as unset, except that a `nullValue` key set to anything means the value
 * `null` (proto3 JSON writes `google.protobuf.NullValue` as `null`).
 *
 * @internal
 */
import * as ConversionError from "../../ConversionError.js"
import { isRecord, maxDepth } from "../plain.js"

type Json = Record<string, unknown>
type Path = ReadonlyArray<string | number>
type Segment = string | number

const format = "google" as const
const hasOwn = Object.prototype.hasOwnProperty

// -----------------------------------------------------------------------------
// keys in either spelling
// -----------------------------------------------------------------------------

/** A field in its camelCase or snake_case spelling (`null` as unset), or why it cannot be read. */
const field = (
  record: Json,
  camel: string,
  snake: string
): { readonly key: string; readonly value: unknown } | undefined | { readonly both: string } => {
  const c = hasOwn.call(record, camel) ? record[camel] : undefined
  const s = hasOwn.call(record, snake) ? record[snake] : undefined
  const hasC = c !== undefined && c !== null
  const hasS = s !== undefined && s !== null
  if (hasC && hasS) return { both: `"${snake}" and "${camel}" are both set; use one spelling` }
  if (hasC) return { key: camel, value: c }
  if (hasS) return { key: snake, value: s }
  return undefined
}

/** The `functionCall` of a part (either spelling), the key it is under, or why it cannot be read. */
export const functionCallOf = (
  part: Json
): { readonly key: string; readonly value: Json } | undefined | { readonly reason: string; readonly key: string } => {
  const found = field(part, "functionCall", "function_call")
  if (found === undefined) return undefined
  if ("both" in found) return { reason: found.both, key: "functionCall" }
  if (!isRecord(found.value)) return { reason: "expected a FunctionCall object", key: found.key }
  return { key: found.key, value: found.value as Json }
}

const flag = (record: Json, camel: string, snake: string): boolean => {
  const found = field(record, camel, snake)
  return found !== undefined && "value" in found && found.value === true
}

/** Rule 1: is this `functionCall` a fragment of a call streamed in parts? */
export const isFragment = (call: Json): boolean =>
  field(call, "partialArgs", "partial_args") !== undefined || flag(call, "willContinue", "will_continue") ||
  call["name"] === null || call["name"] === undefined

// -----------------------------------------------------------------------------
// JSON paths
// -----------------------------------------------------------------------------

/** A parsed `jsonPath`: its segments, and whether it ends in `[]` (an empty array there). */
export interface JsonPath {
  readonly segments: ReadonlyArray<Segment>
  readonly emptyArray: boolean
}

const escapes: Readonly<Record<string, string>> = {
  "b": "\b",
  "f": "\f",
  "n": "\n",
  "r": "\r",
  "t": "\t",
  "/": "/",
  "\\": "\\",
  "'": "'",
  "\"": "\""
}

/**
 * A singular JSON path (RFC 9535): `$`, then `.name` (any name without `.` or `[`), `['name']` or
 * `["name"]` (with the RFC's escapes) and `[index]` segments, and `[]` at the very end. Anything else
 * (wildcards, slices, filters, negative indices) names no single place: the reason is returned.
 */
export const parseJsonPath = (text: string): JsonPath | string => {
  if (text[0] !== "$") return "a JSON path starts with \"$\""
  const segments: Array<Segment> = []
  let i = 1
  while (i < text.length) {
    if (segments.length > maxDepth) return `nested more than ${maxDepth} levels deep`
    const c = text[i]
    if (c === ".") {
      let end = i + 1
      while (end < text.length && text[end] !== "." && text[end] !== "[") end++
      const name = text.slice(i + 1, end)
      if (name === "" || name === "*") return `"${text.slice(0, end)}" names no member`
      segments.push(name)
      i = end
      continue
    }
    if (c !== "[") return `unexpected ${JSON.stringify(c)} at ${i}`
    const next = text[i + 1]
    if (next === "]") {
      if (i + 2 !== text.length) return "\"[]\" may only end a path"
      return { segments, emptyArray: true }
    }
    if (next === "'" || next === "\"") {
      let name = ""
      let j = i + 2
      for (;; j++) {
        if (j >= text.length) return "a quoted name is not closed"
        const d = text[j]!
        if (d === next) break
        if (d !== "\\") {
          name += d
          continue
        }
        const e = text[++j]
        if (e === "u") {
          const hex = text.slice(j + 1, j + 5)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) return `a bad escape at ${j - 1}`
          name += String.fromCharCode(parseInt(hex, 16))
          j += 4
        } else if (e !== undefined && hasOwn.call(escapes, e)) name += escapes[e]
        else return `a bad escape at ${j - 1}`
      }
      if (text[j + 1] !== "]") return `expected "]" at ${j + 1}`
      segments.push(name)
      i = j + 2
      continue
    }
    const match = /^\[(0|[1-9][0-9]*)\]/.exec(text.slice(i))
    if (match === null) return `"${text.slice(i)}" is not a member name or an array index`
    const index = Number(match[1])
    if (!Number.isSafeInteger(index)) return `the index ${match[1]} is too large`
    segments.push(index)
    i += match[0].length
  }
  if (segments.length > maxDepth) return `nested more than ${maxDepth} levels deep`
  return { segments, emptyArray: false }
}

/** A path as text, in the spelling Gemini sends (`$.a.b[0]`, `$['a b']`). */
export const pathText = (segments: ReadonlyArray<Segment>): string =>
  "$" +
  segments.map((s) =>
    typeof s === "number" ? `[${s}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`
  ).join("")

// -----------------------------------------------------------------------------
// building the arguments
// -----------------------------------------------------------------------------

type Container = Json | Array<unknown>

const own = (container: Container, key: Segment): unknown =>
  hasOwn.call(container, key) ? (container as Record<Segment, unknown>)[key] : undefined

// a property defined, not assigned: a key such as "__proto__" is data, not the prototype
const put = (container: Container, key: Segment, value: unknown): void => {
  Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true })
}

const kind = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : typeof value

/** The value fields of a `PartialArg` (a proto `oneof`), in both spellings, and their JSON type. */
const valueFields: ReadonlyArray<readonly [camel: string, snake: string, type: "string" | "number" | "boolean"]> = [
  ["stringValue", "string_value", "string"],
  ["numberValue", "number_value", "number"],
  ["boolValue", "bool_value", "boolean"]
]

/** The value a `PartialArg` sets, `undefined` for none, or why it cannot be read. */
const valueOf = (arg: Json): { readonly value: unknown } | undefined | string => {
  const found: Array<{ readonly key: string; readonly value: unknown }> = []
  for (const [camel, snake, type] of valueFields) {
    const f = field(arg, camel, snake)
    if (f === undefined) continue
    if ("both" in f) return f.both
    if (typeof f.value !== type) return `${f.key} must be a ${type}`
    if (typeof f.value === "number" && !Number.isFinite(f.value)) return `${f.key} must be a finite number`
    found.push(f)
  }
  // proto3 JSON writes google.protobuf.NullValue as null, so the key set to anything means null
  for (const key of ["nullValue", "null_value"]) {
    if (hasOwn.call(arg, key) && arg[key] !== undefined) found.push({ key, value: null })
  }
  if (found.length > 1) return `a PartialArg sets one value, and this one sets ${found.map((f) => f.key).join(" and ")}`
  return found[0] === undefined ? undefined : { value: found[0].value }
}

/** Set `value` at `segments` of `root` (rule 3), or say why not. `value` `undefined`: an empty container. */
const setAt = (
  root: Json,
  segments: ReadonlyArray<Segment>,
  value: { readonly value: unknown } | undefined,
  emptyArray: boolean
): string | undefined => {
  let container: Container = root
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    const here = pathText(segments.slice(0, i))
    if (typeof segment === "number" ? !Array.isArray(container) : Array.isArray(container)) {
      return `${here} is ${kind(container)}, so ${pathText(segments.slice(0, i + 1))} cannot be in it`
    }
    const existing = own(container, segment)
    if (i < segments.length - 1) {
      const wantsArray = typeof segments[i + 1] === "number"
      if (existing === undefined) {
        const child: Container = wantsArray ? [] : {}
        put(container, segment, child)
        container = child
      } else if (wantsArray ? Array.isArray(existing) : isRecord(existing)) {
        container = existing as Container
      } else {
        return `${pathText(segments.slice(0, i + 1))} is ${kind(existing)}, so ${
          pathText(segments.slice(0, i + 2))
        } cannot be in it`
      }
      continue
    }
    const at = pathText(segments)
    if (value === undefined) {
      if (existing === undefined) put(container, segment, emptyArray ? [] : {})
      else if (emptyArray ? !Array.isArray(existing) : !isRecord(existing)) {
        return `${at} is ${kind(existing)}, and a later fragment makes it an empty ${emptyArray ? "array" : "object"}`
      }
      return undefined
    }
    if (existing === undefined) put(container, segment, value.value)
    else if (typeof existing === "string" && typeof value.value === "string") {
      put(container, segment, existing + value.value)
    } else {
      return `${at} is ${kind(existing)} already, and a later fragment sets it to ${kind(value.value)}`
    }
  }
  return undefined
}

/** The first index an array in `value` never got, as a path, or `undefined` (walked without recursion). */
const firstHole = (value: unknown): ReadonlyArray<Segment> | undefined => {
  const stack: Array<{ readonly value: unknown; readonly path: ReadonlyArray<Segment> }> = [{ value, path: [] }]
  while (stack.length > 0) {
    const { path, value: v } = stack.pop()!
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (!hasOwn.call(v, i)) return [...path, i]
        stack.push({ value: v[i], path: [...path, i] })
      }
    } else if (isRecord(v)) {
      for (const key of Object.keys(v)) stack.push({ value: v[key], path: [...path, key] })
    }
  }
  return undefined
}

// -----------------------------------------------------------------------------
// the calls of one candidate
// -----------------------------------------------------------------------------

/** A call being assembled. */
export interface Open {
  readonly name: string
  /** Its place in the candidate's parts, filled when it ends. */
  readonly part: Json
  readonly position: number
  readonly args: Json
  /** Fields of the fragments' `functionCall`s this reader does not know, kept on the whole call. */
  readonly call: Json
  readonly event: number
  id: string | undefined
  signature: { readonly key: string; readonly value: string } | undefined
  /** The event of the last fragment. */
  last: number
}

/** Where a fragment is: its event, and its place in that event. */
export interface Where {
  readonly event: number
  /** The path of the part in the event (`[event, "candidates", c, "content", "parts", j]`). */
  readonly path: Path
  readonly candidate: number
}

/** What a candidate's parts are while the stream is read: the parts, and the call still open. */
export interface Parts {
  readonly parts: Array<Json>
  open: Open | undefined
}

const describeCall = (call: Open, candidate: number): string =>
  `the function call ${JSON.stringify(call.name)} (candidate ${candidate}, part ${call.position}${
    call.id === undefined ? "" : `, id ${JSON.stringify(call.id)}`
  }, started at event ${call.event})`

const incomplete = (where: Where, reason: string): ConversionError.IncompleteStream =>
  new ConversionError.IncompleteStream({ format, eventIndex: where.event, reason })

const malformed = (path: Path, reason: string): ConversionError.MalformedInput =>
  new ConversionError.MalformedInput({ format, path, reason })

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * Read one fragment (rules 2 to 5) into `state`: start a call in the parts, or continue the open
 * one, and end it when the fragment says nothing follows.
 */
export const read = (
  state: Parts,
  part: Json,
  call: { readonly key: string; readonly value: Json },
  where: Where
): ConversionError.ResponseError | undefined => {
  const fc = call.value
  const at = [...where.path, call.key]
  const named = fc["name"] === null || fc["name"] === undefined ? undefined : { value: fc["name"] }
  if (named !== undefined && typeof named.value !== "string") return malformed([...at, "name"], "expected a string")
  let open = state.open
  if (named !== undefined) {
    if (open !== undefined) {
      return incomplete(
        where,
        `${describeCall(open, where.candidate)} never completes: the function call ${
          JSON.stringify(named.value)
        } starts before a fragment ends it`
      )
    }
    const placeholder: Json = {}
    open = {
      name: named.value as string,
      part: placeholder,
      position: state.parts.length,
      args: {},
      call: {},
      event: where.event,
      id: undefined,
      signature: undefined,
      last: where.event
    }
    state.parts.push(placeholder)
    state.open = open
  } else if (open === undefined) {
    // an empty fragment (a second terminator) ends nothing; what else the part holds stays a part
    if (Object.keys(fc).every((k) => fc[k] === null || fc[k] === undefined)) {
      const rest: Json = {}
      for (const key of Object.keys(part)) {
        if (key !== call.key && part[key] !== null && part[key] !== undefined) put(rest, key, part[key])
      }
      if (Object.keys(rest).length > 0) state.parts.push(rest)
      return undefined
    }
    return incomplete(
      where,
      "a functionCall fragment without a name continues no call: no fragment with a name and willContinue came " +
        "before it"
    )
  }
  open.last = where.event
  const error = fragment(open, part, call, at, where)
  if (error !== undefined) return error
  const continues = flag(fc, "willContinue", "will_continue") ||
    partialArgs(fc).some((a) => isRecord(a) && flag(a as Json, "willContinue", "will_continue"))
  return continues ? undefined : end(state, where)
}

const partialArgs = (fc: Json): ReadonlyArray<unknown> => {
  const found = field(fc, "partialArgs", "partial_args")
  return found !== undefined && "value" in found && Array.isArray(found.value) ? found.value : []
}

/** Read one fragment's fields into the open call (rules 3 and 4). */
const fragment = (
  open: Open,
  part: Json,
  call: { readonly key: string; readonly value: Json },
  at: Path,
  where: Where
): ConversionError.ResponseError | undefined => {
  const fc = call.value
  const name = (reason: string) => incomplete(where, `${describeCall(open, where.candidate)}: ${reason}`)
  for (const [camel, snake] of [["willContinue", "will_continue"], ["partialArgs", "partial_args"]] as const) {
    const found = field(fc, camel, snake)
    if (found !== undefined && "both" in found) return malformed([...at, camel], found.both)
  }
  for (const key of Object.keys(fc)) {
    const value = fc[key]
    if (value === null || value === undefined) continue
    switch (key) {
      case "name":
        break
      case "willContinue":
      case "will_continue":
        if (typeof value !== "boolean") return malformed([...at, key], "expected a boolean")
        break
      case "id":
        if (typeof value !== "string") return malformed([...at, key], "expected a string")
        if (open.id !== undefined && open.id !== value) {
          return name(`a later fragment gives it the id ${JSON.stringify(value)}`)
        }
        open.id = value
        break
      case "args": {
        if (!isRecord(value)) return malformed([...at, key], "expected a JSON object")
        for (const k of Object.keys(value)) {
          const existing = own(open.args, k)
          if (existing !== undefined && !sameJson(existing, value[k])) {
            return name(`${pathText([k])} is set twice, to different values`)
          }
          put(open.args, k, value[k])
        }
        break
      }
      case "partialArgs":
      case "partial_args": {
        if (!Array.isArray(value)) return malformed([...at, key], "expected an array")
        for (let k = 0; k < value.length; k++) {
          const arg: unknown = value[k]
          const here = [...at, key, k]
          if (!isRecord(arg)) return malformed(here, "expected a PartialArg object")
          const error = partialArg(open, arg as Json, here, name)
          if (error !== undefined) return error
        }
        break
      }
      default: {
        // a field this reader does not know stays on the assembled call, for the whole-call reader
        const existing = own(open.call, key)
        if (existing !== undefined && !sameJson(existing, value)) {
          return name(`two fragments set its ${JSON.stringify(key)} to different values`)
        }
        put(open.call, key, value)
      }
    }
  }
  for (const key of Object.keys(part)) {
    const value = part[key]
    if (key === call.key || value === null || value === undefined) continue
    if (key === "thoughtSignature" || key === "thought_signature") {
      if (typeof value !== "string") return malformed([...where.path, key], "expected a string")
      if (open.signature !== undefined && open.signature.value !== value) {
        return name("two fragments carry different thought signatures")
      }
      open.signature = { key, value }
      continue
    }
    const existing = own(open.part, key)
    if (existing !== undefined && !sameJson(existing, value)) {
      return name(`two fragments set the part's ${JSON.stringify(key)} to different values`)
    }
    put(open.part, key, value)
  }
  return undefined
}

const partialArg = (
  open: Open,
  arg: Json,
  at: Path,
  name: (reason: string) => ConversionError.IncompleteStream
): ConversionError.ResponseError | undefined => {
  const path = field(arg, "jsonPath", "json_path")
  if (path === undefined) return malformed([...at, "jsonPath"], "is missing")
  if ("both" in path) return malformed([...at, "jsonPath"], path.both)
  if (typeof path.value !== "string") return malformed([...at, path.key], "expected a string")
  const parsed = parseJsonPath(path.value)
  if (typeof parsed === "string") {
    return malformed([...at, path.key], `${JSON.stringify(path.value)} is not a path to one value: ${parsed}`)
  }
  const value = valueOf(arg)
  if (typeof value === "string") return malformed(at, value)
  const continues = flag(arg, "willContinue", "will_continue")
  if (value === undefined && continues) return undefined
  if (parsed.segments.length === 0) {
    if (value === undefined && !parsed.emptyArray) return undefined
    return name(`${path.value} sets the arguments themselves, which must be an object`)
  }
  if (value !== undefined && parsed.emptyArray) {
    return malformed([...at, path.key], `a value at ${JSON.stringify(path.value)}: "[]" ends a path to an empty array`)
  }
  const error = setAt(open.args, parsed.segments, value, parsed.emptyArray)
  return error === undefined ? undefined : name(error)
}

/** End the open call (rule 5): its part becomes a whole `functionCall`. */
const end = (state: Parts, where: Where): ConversionError.IncompleteStream | undefined => {
  const open = state.open!
  state.open = undefined
  const hole = firstHole(open.args)
  if (hole !== undefined) {
    return incomplete(
      where,
      `${describeCall(open, where.candidate)} ends without ${pathText(hole)}, though later items of that array came`
    )
  }
  const extras = { ...open.part }
  for (const key of Object.keys(open.part)) delete open.part[key]
  const whole: Json = { ...(open.id === undefined ? {} : { id: open.id }), name: open.name, args: open.args }
  for (const key of Object.keys(open.call)) put(whole, key, open.call[key])
  open.part["functionCall"] = whole
  if (open.signature !== undefined) open.part[open.signature.key] = open.signature.value
  for (const key of Object.keys(extras)) put(open.part, key, extras[key])
  return undefined
}

/** The error for a stream that ends while a call is still open (rule 5). */
export const unfinished = (open: Open, candidate: number): ConversionError.IncompleteStream =>
  new ConversionError.IncompleteStream({
    format,
    eventIndex: open.last,
    reason:
      `${describeCall(open, candidate)} never completes: the stream ended after its fragment at event ${open.last}, ` +
      "which said more would follow (willContinue)"
  })
