/**
 * The ShareGPT wire shapes, declared once: what encoding writes (`Wire`, `Turn`), what decoding
 * reads (`Input`, `InputTurn`, the role names), and the keys of a record. `ShareGptFormat`
 * re-exports each with its documentation; the decoder compiles its guard from them.
 *
 * @internal
 */
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as RequestBody from "../requestBody.js"
import { describe } from "../wireInput.js"

export const name = "sharegpt" as const

// -----------------------------------------------------------------------------
// roles
// -----------------------------------------------------------------------------

/** Every `from` decoding reads, by the canonical role (or tool turn) it stands for. */
export const roles = {
  system: ["system"],
  user: ["human", "user"],
  assistant: ["gpt", "assistant", "chatgpt", "bing", "bard", "model"],
  functionCall: ["function_call"],
  observation: ["observation"]
} as const

/** What a `from` stands for. */
export type Kind = keyof typeof roles

export const kindOf: { readonly [from: string]: Kind } = Object.fromEntries(
  (Object.keys(roles) as ReadonlyArray<Kind>).flatMap((kind) => roles[kind].map((from) => [from, kind] as const))
)

// -----------------------------------------------------------------------------
// wire: what encode produces
// -----------------------------------------------------------------------------

export const From = Schema.Literal("system", "human", "gpt", "function_call", "observation").annotations({
  identifier: "ShareGptFrom"
})

export const Turn = Schema.Struct({
  from: From,
  value: Schema.String
}).annotations({ identifier: "ShareGptTurn" })

export const Wire = Schema.Struct({
  conversations: Schema.Array(Turn),
  system: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "ShareGptRecord" })

/** A function call as a `function_call` turn's value holds it (JSON text of this, or a list of it). */
export const FunctionCall = Schema.Struct({
  name: Schema.String,
  arguments: Schema.Unknown
}).annotations({ identifier: "ShareGptFunctionCall" })

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

const everyFrom: ReadonlyArray<string> = Object.values(roles).flat()

const objectExpected = (what: string) => (issue: ParseResult.ParseIssue) =>
  typeof issue.actual === "object" && issue.actual !== null && !Array.isArray(issue.actual)
    ? { message: "", override: false }
    : { message: `Expected ${what} object, actual ${describe(issue.actual)}`, override: true }

export const InputFrom = Schema.Literal(...(everyFrom as [string, ...Array<string>])).annotations({
  identifier: "ShareGptInputFrom",
  message: (issue) => ({
    message: `Expected a ShareGPT role (${everyFrom.join(", ")}), actual ${describe(issue.actual)}`,
    override: true
  })
})

export const InputTurn = Schema.Struct({
  from: InputFrom,
  value: Schema.String
}).annotations({ identifier: "ShareGptInputTurn", message: objectExpected("a ShareGPT turn") })

export const Record = Schema.Struct({
  conversations: Schema.Array(InputTurn),
  system: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })
}).annotations({ identifier: "ShareGptInputRecord" })

/**
 * The keys of a record: where the conversation is, and the record keys LLaMA-Factory reads beside it
 * (`tools`, a JSON string of tool definitions; the media lists, which decoding refuses when they hold
 * anything: the canonical form has no file paths).
 */
export const requestKeys: RequestBody.Keys = {
  conversation: ["conversations", "system"],
  parameters: ["tools", "images", "videos", "audios"]
}

/** The record keys whose entries are media files the turns refer to. */
export const mediaKeys = ["images", "videos", "audios"] as const

/** The record keys of a preference (DPO, KTO) ShareGPT record: more than one conversation. */
export const preferenceKeys = ["chosen", "rejected"] as const

export const Input = Schema.Union(
  RequestBody.schema(Record.fields, requestKeys.parameters).annotations({ identifier: "ShareGptInputRecord" }),
  Schema.Array(InputTurn)
).annotations({ identifier: "ShareGptInput" })
