/**
 * A provider request body read as a transcript: the keys that hold the conversation (`messages`,
 * `system`, `contents`, ...) are read; the API's request parameters (`model`, `tools`, `temperature`,
 * ...) and keys it does not know (`anthropic_version` of Bedrock, Vertex's `modelArmorConfig`,
 * OpenRouter's `preset`, a dataset's `id`) are left out of the conversation and reported as lost
 * when the caller asks (`onLoss`). A key that holds another format's conversation is an error, never
 * left out: it is most often another provider's transcript read with the wrong format, whose system
 * prompt (Anthropic's `system`, Gemini's `system_instruction`, Responses' `instructions`) would
 * otherwise vanish without a word.
 *
 * Each format declares its own keys (`XFormat.requestKeys`); this module holds the one check all
 * of them run, and the table of which format a conversation key belongs to, for the error's hint.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as ConversionError from "../ConversionError.js"
import { decodeLoss, type Report } from "./report.js"

/**
 * The keys of one format's request body: where its conversation is, and the API's other request
 * parameters (accepted and ignored).
 */
export interface Keys {
  readonly conversation: ReadonlyArray<string>
  readonly parameters: ReadonlyArray<string>
}

/**
 * A request body as a format's `Input` declares it: `fields`, where the conversation is, and the
 * API's request parameters (`parameters`), each optional and any value, which decoding accepts and
 * ignores. So `JSONSchema.make` of it lists every key a body may hold (a key that is neither is an
 * error of `decode`). Its `Type` is that of `fields`.
 */
export const schema = <Fields extends Schema.Struct.Fields>(
  fields: Fields,
  parameters: ReadonlyArray<string>
): Schema.Schema<Schema.Struct.Type<Fields>, Schema.Struct.Encoded<Fields>, Schema.Struct.Context<Fields>> =>
  Schema.Struct({
    ...fields,
    ...Object.fromEntries(
      parameters.filter((key) => !Object.hasOwn(fields, key)).map((key) => [key, Schema.optional(Schema.Unknown)])
    )
  }) as any

/** Which format keeps its conversation (or part of it) under a key. */
const conversationKeys: ReadonlyArray<readonly [string, ReadonlyArray<ConversionError.FormatName>]> = [
  ["messages", ["openai", "openrouter", "anthropic"]],
  ["system", ["anthropic"]],
  ["contents", ["google"]],
  ["system_instruction", ["google"]],
  ["systemInstruction", ["google"]],
  ["input", ["openai-responses"]],
  ["instructions", ["openai-responses"]],
  ["conversations", ["sharegpt"]]
]

const owners = new Map(conversationKeys)

const hasOwn = Object.prototype.hasOwnProperty

const article = (word: string): string => /^[aeiou]/.test(word) ? "an" : "a"

/** An OpenAI preference fine-tuning line: three conversations, not one. */
const isPreferenceRecord = (body: { readonly [key: string]: unknown }): boolean =>
  hasOwn.call(body, "input") && (hasOwn.call(body, "preferred_output") || hasOwn.call(body, "non_preferred_output"))

/**
 * What a body read as one conversation cannot be: a record holding several (an OpenAI preference
 * fine-tuning line), as a `MalformedInput` saying what it is; `undefined` otherwise.
 */
export const notOneConversation = (
  format: ConversionError.FormatName,
  body: { readonly [key: string]: unknown }
): ConversionError.MalformedInput | undefined =>
  isPreferenceRecord(body)
    ? new ConversionError.MalformedInput({
      format,
      path: [],
      reason: "an OpenAI preference fine-tuning record (input, preferred_output, non_preferred_output) holds three " +
        "conversations, not one; read it as the openai-dpo record shape (Dataset, convert --record openai-dpo), or " +
        "decode input.messages and each output on its own"
    })
    : undefined

/**
 * A checker for one format's request bodies, built once from its declared keys. The API's request
 * parameters and keys it does not know are left out of the conversation: each is reported as lost
 * when a `report` is given (a parameter that is `null` holds nothing and is not). A key that holds
 * another format's conversation is an error, never left out: it is most often another provider's
 * body read with the wrong format, whose system prompt would otherwise vanish.
 */
export const checker = (format: ConversionError.FormatName, keys: Keys, api: string) => {
  const conversation = new Set(keys.conversation)
  const parameters = new Set(keys.parameters)
  /**
   * The first key of `body` that belongs to another format's conversation, as a `MalformedInput` at
   * that key (or the error of a record that is no one conversation), or `undefined`; every other key
   * that is not the conversation goes to `report`.
   */
  return (
    body: { readonly [key: string]: unknown },
    report: Report | undefined
  ): ConversionError.MalformedInput | undefined => {
    const record = notOneConversation(format, body)
    if (record !== undefined) return record
    let lost: Array<ConversionError.Lost> | undefined
    for (const key in body) {
      if (!hasOwn.call(body, key) || conversation.has(key)) continue
      if (!parameters.has(key)) {
        const elsewhere = (owners.get(key) ?? []).filter((f) => f !== format)
        if (elsewhere.length > 0) {
          return new ConversionError.MalformedInput({
            format,
            path: [key],
            reason: `${JSON.stringify(key)} is not a key of ${
              article(format)
            } ${format} request body: it belongs to the ${
              elsewhere.join(" or ")
            } format's conversation; decode the input with that format`
          })
        }
      }
      if (report === undefined) continue
      const value = body[key]
      if (value === null || value === undefined) continue
      ;(lost ??= []).push(
        decodeLoss(
          format,
          [key],
          key,
          parameters.has(key)
            ? `a request parameter of the ${api}, not part of the conversation`
            : `not a request parameter of the ${api} this library knows, nor part of the conversation`
        )
      )
    }
    if (lost !== undefined && report !== undefined) { for (const loss of lost) report(loss) }
    return undefined
  }
}
