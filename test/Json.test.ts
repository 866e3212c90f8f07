import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import { Json } from "openreward-effect"

const nested = (levels: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < levels; i++) value = { a: value }
  return value
}

const schemas: ReadonlyArray<readonly [string, Schema.Schema<any>]> = [["JsonValue", Json.JsonValue], [
  "JsonObject",
  Json.JsonObject
]]

describe("Json schemas", () => {
  for (const [name, schema] of schemas) {
    describe(name, () => {
      it("a value nested 100,000 levels deep is answered with a message, not a stack overflow", () => {
        const deep = nested(100_000)
        assert.isFalse(Schema.is(schema)(deep))
        const decoded = Schema.decodeUnknownEither(schema)(deep)
        if (Either.isRight(decoded)) return assert.fail("too deep")
        assert.include(decoded.left.message, "nested more than 512 levels deep (or cyclic)")
        const encoded = Schema.encodeUnknownEither(schema)(deep)
        assert.isTrue(Either.isLeft(encoded))
      })

      it("512 levels is the limit: 512 objects inside one another pass, 513 do not", () => {
        assert.isTrue(Schema.is(schema)(nested(512)))
        assert.isTrue(Either.isRight(Schema.decodeUnknownEither(schema)(nested(512))))
        assert.isFalse(Schema.is(schema)(nested(513)))
        assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(schema)(nested(513))))
      })

      it("a cyclic value is refused, not walked for ever", () => {
        const cyclic: Record<string, unknown> = {}
        cyclic["self"] = cyclic
        assert.isFalse(Schema.is(schema)(cyclic))
        assert.include(
          Either.getOrThrowWith(Either.flip(Schema.decodeUnknownEither(schema)(cyclic)), () => "refused").message,
          "(or cyclic)"
        )
      })

      it("an invalid value inside is pointed at by the structure's issue", () => {
        const decoded = Schema.decodeUnknownEither(schema)({ a: [1, { b: Number.NaN }] })
        if (Either.isRight(decoded)) return assert.fail("NaN is not JSON")
        assert.include(decoded.left.message, "[\"a\"]")
        assert.include(decoded.left.message, "[\"b\"]")
        assert.include(decoded.left.message, "a JSON number must be finite")
      })

      it("a __proto__ key stays an own data key, decoding and encoding, and pollutes nothing", () => {
        const value: unknown = JSON.parse("{\"__proto__\": {\"polluted\": true}, \"a\": 1}")
        const decoded = Either.getOrThrow(Schema.decodeUnknownEither(schema)(value))
        assert.deepStrictEqual(Object.keys(decoded as object), ["__proto__", "a"])
        const encoded = Either.getOrThrow(Schema.encodeUnknownEither(schema)(decoded))
        assert.strictEqual(JSON.stringify(encoded), "{\"__proto__\":{\"polluted\":true},\"a\":1}")
        assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
      })
    })
  }

  it.prop("decode keeps every JSON value as it is", [FastCheck.jsonValue()], ([value]) => {
    const decoded = Schema.decodeUnknownEither(Json.JsonValue)(value)
    if (Either.isLeft(decoded)) return assert.fail(decoded.left.message)
    assert.strictEqual(JSON.stringify(decoded.right), JSON.stringify(value))
  })

  it("the JSON Schema describes the structure (the recursion named JsonValue)", () => {
    const described = JSONSchema.make(Json.JsonValue) as { $defs: Record<string, { anyOf: ReadonlyArray<unknown> }> }
    assert.strictEqual(described.$defs["JsonValue"]!.anyOf.length, 6)
    assert.deepStrictEqual(JSONSchema.make(Schema.encodedSchema(Json.JsonValue)), JSONSchema.make(Json.JsonValue))
  })
})
