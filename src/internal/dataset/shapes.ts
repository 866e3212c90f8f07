/**
 * The dataset shapes known by name, detection, and the one converter every surface (the `Dataset`
 * module, the command line, its worker threads) builds from a {@link Spec}. Codecs are passed in by
 * format, so a caller decides how they are loaded.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as ConversionError from "../../ConversionError.js"
import type * as DatasetError from "../../DatasetError.js"
import * as Record from "./record.js"

/** The record shapes known by name. */
export const shapes = [
  "body",
  "openai-sft",
  "openai-rft",
  "openai-dpo",
  "anthropic-bedrock",
  "gemini-tuning",
  "sharegpt",
  "rollout"
] as const

export type Shape = typeof shapes[number]

const root: ReadonlyArray<Record.Slot> = [{ kind: "body", at: [] }]

/** Each shape's conversations, and the format they are in (`body`: the caller says). */
export const layouts: {
  readonly [S in Shape]: { readonly from: Record.Source | undefined; readonly slots: ReadonlyArray<Record.Slot> }
} = {
  body: { from: undefined, slots: root },
  "openai-sft": { from: "openai", slots: root },
  "openai-rft": { from: "openai", slots: root },
  "openai-dpo": {
    from: "openai",
    slots: [
      { kind: "body", at: ["input"] },
      { kind: "list", at: ["preferred_output"] },
      { kind: "list", at: ["non_preferred_output"] }
    ]
  },
  "anthropic-bedrock": { from: "anthropic", slots: root },
  "gemini-tuning": { from: "google", slots: root },
  sharegpt: { from: "sharegpt", slots: root },
  rollout: { from: "canonical", slots: root }
}

/** What to convert: where the conversations are, from which format to which. */
export interface Spec {
  readonly to: Record.Target
  /** Default: the record's shape says; else `"canonical"`. */
  readonly from?: Record.Source | undefined
  /** A named shape, or `"auto"` to tell each record's shape from its keys. */
  readonly record?: Shape | "auto" | undefined
  /** The message list's path (a field, or a JSON pointer's steps); its parent holds the rest of the body. */
  readonly messagesAt?: ReadonlyArray<string | number> | undefined
  readonly unsupported?: Record.Unsupported | undefined
  readonly lost?: Record.Lost | undefined
  readonly casing?: "snake" | "camel" | undefined
}

const isObj = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const anthropicBlocks: ReadonlySet<string> = new Set([
  "tool_use",
  "tool_result",
  "redacted_thinking",
  "document",
  "search_result"
])

const looksAnthropic = (messages: ReadonlyArray<unknown>): boolean =>
  messages.some((m) =>
    isObj(m) && Array.isArray(m["content"]) &&
    m["content"].some((b) => isObj(b) && typeof b["type"] === "string" && anthropicBlocks.has(b["type"]))
  )

const responsesItems: ReadonlySet<string> = new Set(["message", "function_call", "function_call_output", "reasoning"])

/** The format of a bare message list, from its messages' keys, or `undefined` when nothing stands out. */
export const listFormat = (list: ReadonlyArray<unknown>): Record.Source | undefined => {
  for (const message of list.slice(0, 50)) {
    if (!isObj(message)) return undefined
    if ("blocks" in message) return "canonical"
    if ("from" in message && "value" in message) return "sharegpt"
    if (typeof message["type"] === "string" && responsesItems.has(message["type"])) return "openai-responses"
    if ("parts" in message) return "google"
    if ("tool_calls" in message || message["role"] === "tool" || message["role"] === "system") return "openai"
  }
  if (looksAnthropic(list)) return "anthropic"
  return list.length > 0 && isObj(list[0]) && "content" in list[0] ? "openai" : undefined
}

/**
 * A record's shape, told from its keys, or `undefined` when it has none of the known ones. A bare
 * message list is a `body` holding nothing else, in the format its messages look like.
 */
export const detect = (record: unknown): { readonly shape: Shape; readonly from: Record.Source } | undefined => {
  if (Array.isArray(record)) {
    const from = listFormat(record)
    return from === undefined ? undefined : { shape: "body", from }
  }
  if (!isObj(record)) return undefined
  if (isObj(record["input"]) && ("preferred_output" in record || "non_preferred_output" in record)) {
    return { shape: "openai-dpo", from: "openai" }
  }
  if ("contents" in record) return { shape: "gemini-tuning", from: "google" }
  if (Array.isArray(record["conversations"])) return { shape: "sharegpt", from: "sharegpt" }
  const messages = record["messages"]
  if (Array.isArray(messages)) {
    const first = messages.find(isObj)
    if (first !== undefined && "blocks" in first) return { shape: "rollout", from: "canonical" }
    if ("system" in record || looksAnthropic(messages)) return { shape: "anthropic-bedrock", from: "anthropic" }
    return { shape: "openai-sft", from: "openai" }
  }
  if (Array.isArray(record["input"]) || typeof record["input"] === "string") {
    return { shape: "body", from: "openai-responses" }
  }
  return undefined
}

/** The layout `spec` gives, when it does not depend on the record. */
export const layoutOf = (spec: Spec): Record.Layout | undefined => {
  if (spec.messagesAt !== undefined) {
    const path = spec.messagesAt
    const key = path[path.length - 1]
    return {
      from: spec.from ?? "canonical",
      slots: key === undefined
        ? [{ kind: "whole" }]
        : [{ kind: "body", at: path.slice(0, -1), messagesKey: String(key) }]
    }
  }
  if (spec.record === undefined) return { from: spec.from ?? "canonical", slots: [{ kind: "whole" }] }
  if (spec.record === "auto") return undefined
  const shape = layouts[spec.record]
  return { from: spec.from ?? shape.from ?? "canonical", slots: shape.slots }
}

/** A converted record, with the shape it was read as when `record` is `"auto"`. */
export interface Converted extends Record.Converted {
  readonly shape?: Shape | undefined
}

/** The converter for `spec`, with the codecs `codecsFor` gives for each source format. */
export const converter = (spec: Spec, codecsFor: (from: Record.Source) => Record.Codecs) => {
  const options: Record.Options = {
    to: spec.to,
    unsupported: spec.unsupported,
    lost: spec.lost,
    casing: spec.casing
  }
  const fixed = layoutOf(spec)
  if (fixed !== undefined) {
    const convert = Record.converter(fixed, codecsFor(fixed.from), options)
    if (fixed.slots[0]?.kind !== "whole") return convert
    // a bare conversation: a preference record is none (no format holds its three conversations as one)
    return (record: unknown): Either.Either<Converted, DatasetError.RecordError> =>
      detect(record)?.shape === "openai-dpo"
        ? Either.left(
          new ConversionError.MalformedInput({
            format: fixed.from,
            path: [],
            reason:
              "an OpenAI preference fine-tuning record (input, preferred_output, non_preferred_output) holds three " +
              "conversations, not one; read it as the openai-dpo record shape"
          })
        )
        : convert(record)
  }
  const byShape = new Map<string, (record: unknown) => Either.Either<Record.Converted, DatasetError.RecordError>>()
  return (record: unknown): Either.Either<Converted, DatasetError.RecordError> => {
    const found = detect(record)
    if (found === undefined) {
      const keys = isObj(record) ? Object.keys(record) : []
      return Either.left(
        new ConversionError.MalformedInput({
          format: spec.from ?? "canonical",
          path: [],
          reason: `not a record of a known shape (${
            isObj(record)
              ? keys.length === 0 ? "no keys" : `keys: ${keys.slice(0, 8).join(", ")}${keys.length > 8 ? ", ..." : ""}`
              : Array.isArray(record)
              ? "an array"
              : JSON.stringify(record)
          }); name its shape, or where its messages are`
        })
      )
    }
    const from = spec.from ?? found.from
    const key = `${found.shape}/${from}`
    let convert = byShape.get(key)
    if (convert === undefined) {
      convert = Record.converter({ from, slots: layouts[found.shape].slots }, codecsFor(from), options)
      byShape.set(key, convert)
    }
    return Either.map(convert(record), (converted) => ({ ...converted, shape: found.shape }))
  }
}
