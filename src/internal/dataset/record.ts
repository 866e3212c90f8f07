/**
 * Converting a record: a JSON value with one or more conversations in it, each at a {@link Slot},
 * every other key carried through as it is. The codecs are passed in (already bound to their
 * format and options), so the command line can load only the two it needs.
 *
 * - A `whole` slot: the record is the conversation, in whatever shape the source reads (a message
 *   list or a request body) and out in whatever shape the target writes. Tool settings in a body
 *   have no place in that output: each is a problem (an error, or a reported loss).
 * - A `body` slot: the object at `at` is a request body (plus any keys of its own). Its conversation
 *   keys (`messages`; Anthropic's `system`; Gemini's `contents` and system instruction; Responses'
 *   `input` and `instructions`) and tool settings are replaced by the target's, at the place of the
 *   first of them; the rest stay as they are. `messagesKey` names the key of the message list when
 *   it is not the format's own, and then the converted list stays under that key.
 * - A `list` slot: the value at `at` is a bare message list (a preference record's outputs), and
 *   becomes the target's message list; a system prompt the target would keep beside the list is an
 *   error.
 *
 * Error paths are paths into the record.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import * as DatasetError from "../../DatasetError.js"
import * as Tools from "./tools.js"

type Path = ConversionError.Path
type Obj = { readonly [key: string]: unknown }

export type Source = Tools.Source
export type Target = Tools.Target

/** Where a conversation is in a record. */
export type Slot =
  | { readonly kind: "whole" }
  | { readonly kind: "body"; readonly at: Path; readonly messagesKey?: string | undefined }
  | { readonly kind: "list"; readonly at: Path }

/** The conversations of a record, all in one format. */
export interface Layout {
  readonly from: Source
  readonly slots: ReadonlyArray<Slot>
}

/**
 * The two codecs a conversion needs, bound to their formats and options. Given `onLoss`, each
 * reports what it loses by its format's documented rules (`Codec.Reporting`).
 */
export interface Codecs {
  readonly read: (
    input: unknown,
    onLoss?: (loss: ConversionError.Lost) => void
  ) => Either.Either<Conversation.Conversation, ConversionError.ConversionError>
  readonly write: (
    conversation: Conversation.Conversation,
    onLoss?: (loss: ConversionError.Lost) => void
  ) => Either.Either<unknown, ConversionError.ConversionError>
}

/** What a conversion does with a setting the target has no place for. */
export type Unsupported = "error" | "report"

/**
 * What a conversion does with what the codecs lose by their formats' documented rules
 * (`ConversionError.Lost`): `"ignore"` (the default: not looked for, costs nothing), `"report"`
 * (listed in `losses`), `"error"` (the record fails with the first).
 */
export type Lost = "ignore" | "report" | "error"

export interface Options {
  readonly to: Target
  /** Default `"error"`. */
  readonly unsupported?: Unsupported | undefined
  /** Default `"ignore"`. */
  readonly lost?: Lost | undefined
  /** Gemini's key spelling for tool settings (the codec's `casing`, default `"snake"`). */
  readonly casing?: "snake" | "camel" | undefined
}

/** A converted record, and what was left out of it under `unsupported: "report"`. */
export interface Converted {
  readonly value: unknown
  readonly losses: ReadonlyArray<DatasetError.Loss>
}

const isObj = (u: unknown): u is Obj => typeof u === "object" && u !== null && !Array.isArray(u)
const hasOwn = (o: Obj, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key)

/** The key of a body's message list, by format. */
export const messagesKeys: { readonly [T in Target]: string } = {
  canonical: "messages",
  openai: "messages",
  openrouter: "messages",
  anthropic: "messages",
  google: "contents",
  "openai-responses": "input",
  sharegpt: "conversations",
  prompt: "prompt"
}

/** The other keys of a body's conversation, by source format. */
const sideKeys: { readonly [S in Source]: ReadonlyArray<string> } = {
  canonical: [],
  openai: [],
  openrouter: [],
  anthropic: ["system"],
  google: ["system_instruction", "systemInstruction"],
  "openai-responses": ["instructions"],
  sharegpt: ["system"]
}

/** The keys of `config` (Gemini's SDK shape) that belong to the conversation or its tools. */
const googleConfigKeys: ReadonlyArray<string> = ["systemInstruction", "tools", "toolConfig"]

// -----------------------------------------------------------------------------
// errors
// -----------------------------------------------------------------------------

const malformed = (format: Source, path: Path, reason: string) =>
  new ConversionError.MalformedInput({ format, path, reason })

/** `error` with its path moved by `move` (a decoder's paths are into what it was given). */
const rebase = <E extends ConversionError.ConversionError | ConversionError.Lost>(
  error: E,
  move: (path: Path) => Path
): E => {
  const Class = error.constructor as new(props: object) => E
  const { _tag: _, ...fields } = error as E & { readonly path: Path }
  return new Class({ ...fields, path: move(error.path) })
}

const problemError = (format: Target, problem: Tools.Problem) =>
  new DatasetError.UnsupportedParameter({
    format,
    path: problem.path,
    parameter: problem.parameter,
    reason: problem.reason
  })

// -----------------------------------------------------------------------------
// paths
// -----------------------------------------------------------------------------

/** The value at `path` in `value`, or the first step that is not there. */
const at = (value: unknown, path: Path): { readonly found: unknown } | { readonly missing: number } => {
  let current = value
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!
    if (Array.isArray(current) && typeof step === "number" && step < current.length) current = current[step]
    else if (isObj(current) && typeof step === "string" && hasOwn(current, step)) current = current[step]
    else return { missing: i }
  }
  return { found: current }
}

/** `value` with the value at `path` replaced (copies along the path only). */
const replaceAt = (value: unknown, path: Path, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const [step, ...rest] = path
  if (Array.isArray(value)) {
    const copy = value.slice()
    copy[step as number] = replaceAt(value[step as number], rest, replacement)
    return copy
  }
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value as Obj)) {
    copy[key] = key === step ? replaceAt((value as Obj)[key], rest, replacement) : (value as Obj)[key]
  }
  return copy
}

const describePath = (path: Path): string =>
  path.length === 0 ? "the record" : "$" + path.map((p) => typeof p === "number" ? `[${p}]` : `.${p}`).join("")

// -----------------------------------------------------------------------------
// slots
// -----------------------------------------------------------------------------

interface Context {
  readonly layout: Layout
  readonly codecs: Codecs
  readonly options: Options
  readonly losses: Array<DatasetError.Loss>
  /** Where the codecs' losses go (`undefined` under `lost: "ignore"`), their paths moved by `move`. */
  readonly lost: ((move: (path: Path) => Path) => (loss: ConversionError.Lost) => void) | undefined
}

/** The codecs' losses, their paths in the record (a decode loss) or in the conversation (encode). */
const losses = (context: Context, move: (path: Path) => Path) => context.lost?.(move)

/** A problem is an error, or (under `"report"`) a loss; `undefined` when it is reported. */
const settle = (
  context: Context,
  problems: ReadonlyArray<Tools.Problem>
): DatasetError.UnsupportedParameter | undefined => {
  for (const problem of problems) {
    const error = problemError(context.options.to, problem)
    if (context.options.unsupported !== "report") return error
    context.losses.push(error)
  }
  return undefined
}

/** The target's message list from what its encoder wrote (`list` slots). */
const messageList = (
  target: Target,
  wire: unknown,
  at: Path
): Either.Either<unknown, ConversionError.ConversionError> => {
  if (Array.isArray(wire) || !isObj(wire)) return Either.right(wire)
  const system = target === "anthropic" || target === "sharegpt"
    ? wire["system"]
    : wire["system_instruction"] ?? wire["systemInstruction"]
  if (system !== undefined && system !== null) {
    return Either.left(
      new ConversionError.UnsupportedMessage({
        format: target === "anthropic" || target === "sharegpt" ? target : "google",
        path: [0],
        messageIndex: 0,
        role: "system",
        reason: `a list of messages (at ${
          describePath(at)
        }) has no place for the system prompt, which ${target} keeps beside the messages; convert the record as a body`
      })
    )
  }
  return Either.right(wire[messagesKeys[target]])
}

/** The target's body keys from what its encoder wrote, the message list under `key`. */
const bodyEntries = (target: Target, wire: unknown, key: string): ReadonlyArray<readonly [string, unknown]> => {
  if (!isObj(wire)) return [[key, wire]]
  const entries: Array<readonly [string, unknown]> = []
  const own = messagesKeys[target]
  for (const [k, v] of Object.entries(wire)) {
    if (k === own) entries.push([key, v])
    else if (v !== null && v !== undefined) entries.push([k, v])
  }
  return entries
}

const convertList = (context: Context, record: unknown, slot: Slot & { kind: "list" }) => {
  const { layout, codecs, options } = context
  const found = at(record, slot.at)
  if ("missing" in found) {
    return Either.left(
      malformed(layout.from, slot.at.slice(0, found.missing + 1), `${describePath(slot.at)} is missing`)
    )
  }
  if (!Array.isArray(found.found)) {
    return Either.left(malformed(layout.from, slot.at, `${describePath(slot.at)} must be a list of messages`))
  }
  const move = (p: Path): Path => [...slot.at, ...p]
  return codecs.read(found.found, losses(context, move)).pipe(
    Either.mapLeft((e) => rebase(e, move)),
    Either.flatMap((conversation) => codecs.write(conversation, losses(context, identity))),
    Either.flatMap((wire) => messageList(options.to, wire, slot.at)),
    Either.map((list) => (value: unknown) => replaceAt(value, slot.at, list))
  )
}

const convertBody = (
  context: Context,
  record: unknown,
  slot: Slot & { kind: "body" }
): Either.Either<(value: unknown) => unknown, DatasetError.RecordError> => {
  const { layout, codecs, options } = context
  const from = layout.from
  const found = at(record, slot.at)
  if ("missing" in found) {
    return Either.left(malformed(from, slot.at.slice(0, found.missing + 1), `${describePath(slot.at)} is missing`))
  }
  const body = found.found
  if (!isObj(body)) {
    return Either.left(
      malformed(
        from,
        slot.at,
        `${describePath(slot.at)} must be a JSON object, got ${Array.isArray(body) ? "an array" : JSON.stringify(body)}`
      )
    )
  }
  const ownKey = messagesKeys[from]
  const keyIn = slot.messagesKey ?? ownKey
  if (!hasOwn(body, keyIn)) {
    const keys = Object.keys(body)
    return Either.left(
      malformed(
        from,
        [...slot.at, keyIn],
        `no ${JSON.stringify(keyIn)} key${slot.at.length === 0 ? "" : ` at ${describePath(slot.at)}`} (${
          keys.length === 0 ? "no keys" : `keys: ${keys.slice(0, 8).join(", ")}${keys.length > 8 ? ", ..." : ""}`
        })`
      )
    )
  }
  // the conversation as the decoder reads it, under its own keys
  const config = from === "google" && isObj(body["config"]) ? body["config"] : undefined
  const sides = sideKeys[from].filter((k) => hasOwn(body, k))
  let input: unknown = body[keyIn]
  // a format with keys beside its message list reads a body (Responses' `input` may be one string)
  if (sideKeys[from].length > 0) {
    const decoded: Record<string, unknown> = { [ownKey]: body[keyIn] }
    for (const k of sides) decoded[k] = body[k]
    if (config !== undefined && hasOwn(config, "systemInstruction")) {
      decoded["config"] = { systemInstruction: config["systemInstruction"] }
    }
    input = decoded
  }
  const move = (p: Path): Path =>
    input === body[keyIn]
      ? [...slot.at, keyIn, ...p]
      : p[0] === ownKey
      ? [...slot.at, keyIn, ...p.slice(1)]
      : [...slot.at, ...p]

  const settingsRead = Tools.read(from, body, slot.at)
  if ("_tag" in settingsRead) return Either.left(malformed(from, settingsRead.path, settingsRead.reason))
  const problem = settle(context, settingsRead.problems)
  if (problem !== undefined) return Either.left(problem)

  const conversation = Either.mapLeft(codecs.read(input, losses(context, move)), (e) => rebase(e, move))
  if (Either.isLeft(conversation)) return Either.left(conversation.left)
  const wire = codecs.write(conversation.right, losses(context, identity))
  if (Either.isLeft(wire)) return Either.left(wire.left)

  const keyOut = slot.messagesKey ?? messagesKeys[options.to]
  const written = Tools.write(options.to, settingsRead.settings, settingsRead.origins, { casing: options.casing })
  const problemOut = settle(context, written.problems)
  if (problemOut !== undefined) return Either.left(problemOut)
  const entries = [...bodyEntries(options.to, wire.right, keyOut), ...written.entries]

  // replace the consumed keys, at the place of the first of them
  const consumed = new Set([keyIn, ...sides, ...settingsRead.keys])
  let configRest: Record<string, unknown> | undefined
  if (config !== undefined) {
    configRest = {}
    for (const [k, v] of Object.entries(config)) if (!googleConfigKeys.includes(k)) configRest[k] = v
    if (Object.keys(configRest).length === 0) consumed.add("config")
  }
  for (const [k] of entries) {
    if (hasOwn(body, k) && !consumed.has(k) && !(k === "config" && configRest !== undefined)) {
      return Either.left(
        malformed(
          from,
          [...slot.at, k],
          `the record has a key ${JSON.stringify(k)} of its own, where the converted ${options.to} ${
            k === keyOut ? "messages go" : "body puts its own"
          }; move it or convert a different part of the record`
        )
      )
    }
  }
  const out: Record<string, unknown> = {}
  let placed = false
  for (const [k, v] of Object.entries(body)) {
    if (consumed.has(k)) {
      if (!placed) {
        for (const [ek, ev] of entries) out[ek] = ev
        placed = true
      }
      continue
    }
    out[k] = k === "config" && configRest !== undefined ? configRest : v
  }
  if (!placed) { for (const [ek, ev] of entries) out[ek] = ev }
  return Either.right((value: unknown) => replaceAt(value, slot.at, out))
}

const reason = "a bare conversation has no place for the body's tool settings; convert the input as a request " +
  "body record to carry them into the target's request"

/** Tool settings in a body converted as a bare conversation: none of them has a place in the output. */
const wholeProblems = (from: Source, record: unknown): ReadonlyArray<Tools.Problem> => {
  if (!isObj(record)) return []
  const problems: Array<Tools.Problem> = []
  for (const key of Tools.settingKeys[from]) {
    const value = record[key]
    if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue
    problems.push({
      path: [key],
      parameter: key,
      reason
    })
  }
  if (from === "google" && isObj(record["config"])) {
    for (const key of ["tools", "toolConfig"]) {
      const value = record["config"][key]
      if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) continue
      problems.push({
        path: ["config", key],
        parameter: key,
        reason
      })
    }
  }
  return problems
}

/** A converter for records of `layout`. */
export const converter =
  (layout: Layout, codecs: Codecs, options: Options) =>
  (record: unknown): Either.Either<Converted, DatasetError.RecordError> => {
    const found: Array<DatasetError.Loss> = []
    const lost = options.lost === "report" || options.lost === "error"
      ? (move: (path: Path) => Path) => (loss: ConversionError.Lost) =>
        found.push(loss.direction === "decode" ? rebase(loss, move) : loss)
      : undefined
    const context: Context = { layout, codecs, options, losses: found, lost }
    let value = record
    for (const slot of layout.slots) {
      if (slot.kind === "whole") {
        const problem = settle(context, wholeProblems(layout.from, record))
        if (problem !== undefined) return Either.left(problem)
        const converted = whole(context, record)
        if (Either.isLeft(converted)) return Either.left(converted.left)
        value = converted.right
        continue
      }
      if (Array.isArray(record) && slot.kind === "body" && slot.at.length === 0) {
        // a bare message list: a body that holds nothing else
        const converted = whole(context, record)
        if (Either.isLeft(converted)) return Either.left(converted.left)
        value = converted.right
        continue
      }
      if (!isObj(record)) {
        return Either.left(
          malformed(
            layout.from,
            [],
            `a record must be a JSON object, got ${Array.isArray(record) ? "an array" : JSON.stringify(record)}`
          )
        )
      }
      const fitted = { ...slot, at: fitPath(slot.at, record) }
      const replace = fitted.kind === "body"
        ? convertBody(context, record, fitted)
        : convertList(context, record, fitted)
      if (Either.isLeft(replace)) return Either.left(replace.left)
      value = replace.right(value)
    }
    if (options.lost === "error") {
      const first = found.find((loss): loss is ConversionError.Lost => loss._tag === "Lost")
      if (first !== undefined) return Either.left(first)
    }
    return Either.right({ value, losses: found })
  }

const identity = (path: Path): Path => path

/** The record as one conversation, read and written whole. */
const whole = (context: Context, record: unknown) =>
  Either.flatMap(
    context.codecs.read(record, losses(context, identity)),
    (conversation) => context.codecs.write(conversation, losses(context, identity))
  )

// -----------------------------------------------------------------------------
// JSON pointers
// -----------------------------------------------------------------------------

/**
 * The steps of a JSON pointer (RFC 6901): `""` is the whole record, `/a/b` key `b` of key `a`, a
 * step of digits an index when the value there is an array. Returns a reason when it is not one.
 */
export const parsePointer = (pointer: string): Path | string => {
  if (pointer === "") return []
  if (!pointer.startsWith("/")) return `a JSON pointer starts with "/" (got ${JSON.stringify(pointer)})`
  const steps: Array<string | number> = []
  for (const raw of pointer.slice(1).split("/")) {
    if (/~[^01]|~$/.test(raw)) return `"~" in a JSON pointer must be "~0" or "~1" (got ${JSON.stringify(pointer)})`
    const step = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    steps.push(/^(0|[1-9]\d*)$/.test(step) ? Number(step) : step)
  }
  return steps
}

/**
 * A pointer's steps made to fit `record`: a step of digits stays an index only where the value is an
 * array (in an object it is a key).
 */
export const fitPath = (path: Path, record: unknown): Path => {
  const out: Array<string | number> = []
  let current = record
  for (const step of path) {
    const fitted = typeof step === "number" && !Array.isArray(current) ? String(step) : step
    out.push(fitted)
    current = Array.isArray(current) && typeof fitted === "number"
      ? current[fitted]
      : isObj(current)
      ? current[String(fitted)]
      : undefined
  }
  return out
}
