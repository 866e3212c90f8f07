/**
 * A provider request body read as a transcript: every key it holds is either where the conversation
 * is (`messages`, `system`, `contents`, ...) or a request parameter of that API (`model`, `tools`,
 * `temperature`, ...), which decoding accepts and ignores. Any other key is an error, never dropped:
 * it is most often another provider's transcript read with the wrong format, whose system prompt
 * (Anthropic's `system`, Gemini's `system_instruction`, Responses' `instructions`) would otherwise
 * vanish without a word.
 *
 * Each format declares its own keys (`XFormat.requestKeys`); this module holds the one check all
 * of them run, and the table of which format a conversation key belongs to, for the error's hint.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as ConversionError from "../ConversionError.js"
import type * as Provider from "../Provider.js"

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
const conversationKeys: ReadonlyArray<readonly [string, ReadonlyArray<Provider.Format>]> = [
  ["messages", ["openai", "openrouter", "anthropic"]],
  ["system", ["anthropic"]],
  ["contents", ["google"]],
  ["system_instruction", ["google"]],
  ["systemInstruction", ["google"]],
  ["input", ["openai-responses"]],
  ["instructions", ["openai-responses"]]
]

const owners = new Map(conversationKeys)

const hasOwn = Object.prototype.hasOwnProperty

const article = (word: string): string => /^[aeiou]/.test(word) ? "an" : "a"

/** A checker for one format's request bodies, built once from its declared keys. */
export const checker = (format: ConversionError.FormatName, keys: Keys) => {
  const known = new Set([...keys.conversation, ...keys.parameters])
  /**
   * The first own key of `body` that `format`'s request body does not have, as a `MalformedInput`
   * at that key, or `undefined` when every key is known.
   */
  return (body: { readonly [key: string]: unknown }): ConversionError.MalformedInput | undefined => {
    for (const key in body) {
      if (!hasOwn.call(body, key) || known.has(key)) continue
      const elsewhere = (owners.get(key) ?? []).filter((f) => f !== format)
      const why = elsewhere.length > 0
        ? `: it belongs to the ${elsewhere.join(" or ")} format's conversation; decode the input with that format`
        : ` (the conversation is in ${keys.conversation.join(", ")}; ${
          keys.parameters.slice(0, 3).join(", ")
        }, ... are request parameters, ignored)`
      return new ConversionError.MalformedInput({
        format,
        path: [key],
        reason: `${JSON.stringify(key)} is not a key of ${article(format)} ${format} request body${why}`
      })
    }
    return undefined
  }
}
