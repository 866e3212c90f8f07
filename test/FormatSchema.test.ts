/**
 * `XFormat.schema` has the format's `Input` as its encoded side (src/Codec.ts, docs/formats.md "The
 * Schema adapters"): `JSONSchema.make` of it is a real description of the wire, for every format;
 * decoding runs `decode` on the input as it came, and every failure carries its tagged error. The
 * laws that hold for every format (the schema writes what `encode` writes and reads what `decode`
 * reads) are in test/utils/codecLaws.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import {
  AnthropicFormat,
  Codec,
  type Conversation,
  type ConversionError,
  GoogleFormat,
  OpenAiFormat,
  OpenAiResponsesFormat,
  OpenRouterFormat
} from "openreward-effect"

// a JSON Schema as plain JSON, read by the test
type Json = { readonly [key: string]: any }

interface Case {
  readonly name: string
  readonly Input: Schema.Schema<any, any>
  readonly schema: Schema.Schema<Conversation.Conversation, any>
  readonly decode: (input: unknown) => Either.Either<Conversation.Conversation, ConversionError.DecodeError>
  readonly requestKeys: { readonly conversation: ReadonlyArray<string>; readonly parameters: ReadonlyArray<string> }
  /** The key of a request body holding the list, and the keys every list entry declares. */
  readonly list: string
  readonly entryKeys: ReadonlyArray<string>
  /** A request body holding `value` where the Input takes any JSON value (tool-call input, ...). */
  readonly withValue: (value: unknown) => unknown
  /** Is that value a JSON value the Input's Schema decode walks (tool-call input: yes; ignored keys: no)? */
  /** An entry of the Input's shape with no canonical form, and the tagged message it gets. */
  readonly unconvertible: readonly [unknown, string]
}

const chat = (format: typeof OpenAiFormat | typeof OpenRouterFormat, name: string): Case => ({
  name,
  Input: format.Input,
  schema: format.schema,
  decode: format.decode,
  requestKeys: format.requestKeys,
  list: "messages",
  entryKeys: ["role", "content"],
  // tool-call arguments are a string: the value goes where the Input takes anything (read only to report)
  withValue: (audio) => ({ messages: [{ role: "assistant", content: "a", audio }] }),
  unconvertible: [
    { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "https://x/y.png" } }] }] },
    `${name}: message 0, block 0: "image_url" content has no canonical form`
  ]
})

const cases: ReadonlyArray<Case> = [
  {
    name: "anthropic",
    Input: AnthropicFormat.Input,
    schema: AnthropicFormat.schema,
    decode: AnthropicFormat.decode,
    requestKeys: AnthropicFormat.requestKeys,
    list: "messages",
    entryKeys: ["role", "content"],
    withValue: (input) => ({
      messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input }] }]
    }),
    unconvertible: [
      { messages: [{ role: "user", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }] },
      "anthropic: message 0, block 0: a \"tool_call\" block is not valid in a \"user\" message"
    ]
  },
  chat(OpenAiFormat, "openai"),
  chat(OpenRouterFormat, "openrouter"),
  {
    name: "google",
    Input: GoogleFormat.Input,
    schema: GoogleFormat.schema,
    decode: GoogleFormat.decode,
    requestKeys: GoogleFormat.requestKeys,
    list: "contents",
    entryKeys: ["role", "parts"],
    withValue: (args) => ({ contents: [{ role: "model", parts: [{ functionCall: { id: "t", name: "f", args } }] }] }),
    unconvertible: [
      { contents: [{ role: "user", parts: [{ fileData: { fileUri: "gs://x" } }] }] },
      "google: message 0, block 0:"
    ]
  },
  {
    name: "openai-responses",
    Input: OpenAiResponsesFormat.Input,
    schema: OpenAiResponsesFormat.schema,
    decode: OpenAiResponsesFormat.decode,
    requestKeys: OpenAiResponsesFormat.requestKeys,
    list: "input",
    entryKeys: ["type", "role", "content"],
    // tool-call arguments are a string: the value goes in a key the Input ignores
    withValue: (action) => ({ input: [{ type: "web_search_call", id: "ws_1", action }] }),
    unconvertible: [
      { input: [{ type: "web_search_call", id: "ws_1" }] },
      "openai-responses: message 0:"
    ]
  }
]

/** Follow a `$ref` into `$defs`. */
const resolve = (root: Json, schema: Json): Json => {
  if ("$ref" in schema && typeof schema.$ref === "string") {
    const def: Json | undefined = root["$defs"]?.[schema.$ref.replace("#/$defs/", "")]
    assert.isDefined(def, `${schema.$ref} is defined`)
    return resolve(root, def!)
  }
  return schema
}

const members = (root: Json, schema: Json): ReadonlyArray<Json> => {
  const resolved = resolve(root, schema)
  return "anyOf" in resolved ? (resolved["anyOf"] as ReadonlyArray<Json>).flatMap((m) => members(root, m)) : [resolved]
}

const left = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) return assert.fail("expected a failure")
  return result.left
}

const nested = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

describe("XFormat.schema: the wire Input as its encoded side", () => {
  for (const c of cases) {
    describe(c.name, () => {
      const decodeSchema = Schema.decodeUnknownEither(c.schema)

      it("JSONSchema.make describes the wire: a request body with its keys, or the bare list, of entries", () => {
        const root: Json = JSONSchema.make(c.schema)
        const [body, list] = members(root, root)
        assert.strictEqual(members(root, root).length, 2)
        // the request body: the conversation's keys and every request parameter, nothing else
        assert.strictEqual(body!["type"], "object")
        const object = body!
        assert.include(object["required"], c.list)
        assert.deepStrictEqual(
          new Set(Object.keys(object["properties"])),
          new Set([...c.requestKeys.conversation, ...c.requestKeys.parameters])
        )
        assert.strictEqual(object["additionalProperties"], false)
        // the bare list, the same as the body's
        assert.strictEqual(list!["type"], "array")
        const entries: Json = list!["items"]
        const bodyList = members(root, object["properties"][c.list]).find((m) => m["type"] === "array")
        assert.deepStrictEqual(bodyList?.["items"], entries)
        // its entries are objects that declare the entry keys
        const objects = members(root, entries).filter((m) => m["type"] === "object")
        assert.isAbove(objects.length, 0)
        for (const key of c.entryKeys) {
          assert.isTrue(objects.some((o) => key in o["properties"]), `an entry declares ${key}`)
        }
      })

      it("input of the Input's shape that cannot be converted: the tagged error's message", () => {
        const [input, message] = c.unconvertible
        assert.isTrue(Schema.is(c.Input)(input))
        const direct = c.decode(input)
        assert.isTrue(Either.isLeft(direct))
        const read = decodeSchema(input)
        if (Either.isRight(read) || Either.isRight(direct)) return assert.fail("decoding fails")
        assert.include(direct.left.message, message)
        assert.include(read.left.message, direct.left.message)
      })

      it("a request-body key of another format's conversation reaches decode, which names it (nothing is stripped first)", () => {
        const foreign = c.name === "anthropic" ? "contents" : "system"
        const input = { ...(c.withValue({}) as object), [foreign]: "x" }
        assert.isTrue(Schema.is(c.Input)(input))
        const read = decodeSchema(input)
        if (Either.isRight(read)) return assert.fail("another format's conversation key is an error")
        assert.include(read.left.message, `${c.name}: malformed input at $.${foreign}: "${foreign}" is not a key`)
        // a key of no conversation is left out (decode reports it as lost when asked: RequestBody.test.ts)
        const extra = { ...(c.withValue({}) as object), extra: 1 }
        assert.deepStrictEqual(decodeSchema(extra), decodeSchema(c.withValue({})))
      })

      it("input not of the Input's shape: decode's MalformedInput, at the place, given back by Codec.errorOf", () => {
        const input = { [c.list]: 5 }
        const read = decodeSchema(input)
        if (Either.isRight(read)) return assert.fail("not the Input")
        const direct = left(c.decode(input))
        assert.strictEqual(direct._tag, "MalformedInput")
        assert.deepStrictEqual(direct.path, [c.list])
        assert.include(read.left.message, direct.message)
        assert.include(read.left.message, "actual 5")
        assert.deepStrictEqual(Option.getOrThrow(Codec.errorOf(read.left)), direct)
      })

      it("nesting: decode's limit (512 levels) answers through the schema", () => {
        const read = decodeSchema(c.withValue({ x: nested(600) }))
        if (Either.isRight(read)) return assert.fail("too deep")
        assert.include(read.left.message, "nested more than 512 levels deep")
      })

      it("nesting: a value nested thousands of levels deep is answered, never overflows the stack", () => {
        const deeper = c.withValue({ x: nested(20_000) })
        assert.isTrue(Either.isLeft(c.decode(deeper)))
        assert.include(left(decodeSchema(deeper)).message, "nested more than 512 levels deep")
      })
    })
  }

  it("a __proto__ key inside tool-call input: kept by encode and when written through the Schema", () => {
    const input: Record<string, unknown> = JSON.parse("{\"__proto__\": {\"x\": 1}, \"a\": 1}")
    const conversation = Either.getOrThrow(AnthropicFormat.decode({
      messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input }] }]
    }))
    const direct = JSON.stringify(Either.getOrThrow(AnthropicFormat.encode(conversation)))
    const viaSchema = JSON.stringify(Either.getOrThrow(Schema.encodeEither(AnthropicFormat.schema)(conversation)))
    assert.include(direct, "\"input\":{\"__proto__\":{\"x\":1},\"a\":1}")
    assert.strictEqual(viaSchema, direct)
    const read = Either.getOrThrow(Schema.decodeUnknownEither(Schema.parseJson(AnthropicFormat.schema))(direct))
    assert.deepStrictEqual(read, conversation)
    assert.strictEqual(({} as Record<string, unknown>)["x"], undefined)
  })
})
