/**
 * JSON values as Effect Schemas.
 *
 * Tool-call inputs and the free-form `detail` field of every block are arbitrary JSON. These schemas
 * accept exactly what `JSON.parse` can produce (finite numbers, no `undefined`), so a decoded value
 * always survives `JSON.stringify` unchanged.
 *
 * @since 0.1.0
 */
import type * as Arbitrary from "effect/Arbitrary"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { copyJson as jsonCopy, JsonCopyAnnotationId, JsonDepthAnnotationId } from "./internal/guard.js"
import { maxDepth, withinDepth } from "./internal/plain.js"

/**
 * Any JSON value.
 *
 * @category models
 * @since 0.1.0
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | ReadonlyArray<JsonValue>
  | { readonly [key: string]: JsonValue }

/**
 * A JSON object (what the reference SDK calls `JSONObject`).
 *
 * @category models
 * @since 0.1.0
 */
export interface JsonObject {
  readonly [key: string]: JsonValue
}

// A finite number that is never `-0` (`JSON.stringify(-0)` is `"0"`, so `-0` cannot round-trip).
const JsonNumber = Schema.Number.pipe(
  Schema.filter((n) => Number.isFinite(n) || "a JSON number must be finite"),
  Schema.annotations({
    identifier: "JsonNumber",
    arbitrary: () => jsonNumber
  })
)

// The structure of a JSON value, as a Schema: what is checked, and where an error points. The
// recursion is named, so that `JSONSchema.make` of a `Schema.encodedSchema` (which drops the union's
// own annotations) still finds an identifier for it.
const JsonValueStructure: Schema.Schema<JsonValue> = Schema.Union(
  Schema.Null,
  Schema.Boolean,
  JsonNumber,
  Schema.String,
  Schema.Array(
    Schema.suspend((): Schema.Schema<JsonValue> => JsonValueStructure).annotations({ identifier: "JsonValue" })
  ),
  Schema.Record({
    key: Schema.String,
    value: Schema.suspend((): Schema.Schema<JsonValue> => JsonValueStructure).annotations({ identifier: "JsonValue" })
  })
).annotations({ identifier: "JsonValue" })

const JsonObjectStructure: Schema.Schema<JsonObject> = Schema.Record({ key: Schema.String, value: JsonValueStructure })
  .annotations({ identifier: "JsonObject" })

/**
 * Is `u`, found at `depth` inside a JSON value, a JSON value (finite numbers, arrays, objects of
 * JSON values) with nothing nested more than `maxDepth` (512) levels below it? The bound keeps every check of a
 * hostile value (`JSON.parse` builds one 100,000 levels deep without complaint) off the end of the
 * stack, and is the same limit every decoder applies to its whole input.
 */
const isJsonValueAt = (u: unknown, depth: number): u is JsonValue => {
  switch (typeof u) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(u)
    case "object": {
      if (u === null) return true
      if (depth > maxDepth) return false
      if (Array.isArray(u)) {
        const items: ReadonlyArray<unknown> = u
        for (let i = 0; i < items.length; i++) if (!isJsonValueAt(items[i], depth + 1)) return false
        return true
      }
      return isJsonObjectAt(u, depth)
    }
    default:
      return false
  }
}

const hasOwn = Object.prototype.hasOwnProperty

const isJsonObjectAt = (u: unknown, depth: number): u is JsonObject => {
  if (typeof u !== "object" || u === null || Array.isArray(u) || depth > maxDepth) return false
  const record = u as { readonly [key: string]: unknown }
  for (const key in record) if (hasOwn.call(record, key) && !isJsonValueAt(record[key], depth + 1)) return false
  return true
}

const isJsonValue = (u: unknown): u is JsonValue => isJsonValueAt(u, 0)

const isJsonObject = (u: unknown): u is JsonObject => isJsonObjectAt(u, 0)

/**
 * The structure, read in one plain check: a valid value (the common case) passes as it is, without
 * Effect's parser rebuilding it (which would also turn an own `__proto__` key into a prototype);
 * a value nested deeper than the limit fails at once, before the parser's recursion could overflow
 * the stack; anything else goes through the structure's decode, for an issue that points at the
 * offending value. JSON Schema, arbitraries and the like read the structure (its surrogate).
 */
const bounded = <A extends JsonValue>(
  identifier: string,
  structure: Schema.Schema<A>,
  is: (u: unknown) => u is A,
  isAt: (u: unknown, depth: number) => boolean
): Schema.Schema<A> => {
  const parse = (direction: "decode" | "encode") => (u: unknown, options: any, ast: any) =>
    is(u)
      ? ParseResult.succeed(u)
      : !withinDepth(u, 0)
      ? ParseResult.fail(new ParseResult.Type(ast, u, `nested more than ${maxDepth} levels deep (or cyclic)`))
      : (direction === "decode" ? ParseResult.decodeUnknown : ParseResult.encodeUnknown)(structure)(u, options)
  return Schema.declare([], {
    decode: () => parse("decode"),
    encode: () => parse("encode")
  }, {
    identifier,
    [AST.SurrogateAnnotationId]: structure.ast,
    // a guard (src/internal/guard.ts) reads this declaration as its plain check, continued at the
    // depth the value is found at: what passes it, the decode above returns as it is
    [JsonDepthAnnotationId]: isAt
  })
}

/**
 * A JSON schema's decode that keeps a key named `__proto__` (which `JSON.parse` makes an own data
 * key) as an own data key of the result: the structure is checked by `structure`'s decode, which
 * copies by assignment (so it would turn such a key into the copy's prototype), and the result is
 * a copy of the input, made key by key.
 */
const keepingProtoKeys = <A extends JsonValue>(
  identifier: string,
  structure: Schema.Schema<A>,
  is: (u: unknown) => u is A,
  isAt: (u: unknown, depth: number) => boolean,
  copy: (value: A) => A
): Schema.Schema<A> =>
  Schema.transform(
    bounded(identifier, structure, is, isAt),
    Schema.declare(is, { identifier }),
    { strict: true, decode: (_, input) => copy(input), encode: (value) => value }
  ).annotations({ [JsonCopyAnnotationId]: true })

/**
 * Schema for any JSON value. A key named `__proto__` stays an own data key of the decoded value,
 * as in what `JSON.parse` returns; the prototype of nothing is changed.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonValue: Schema.Schema<JsonValue> = keepingProtoKeys(
  "JsonValue",
  JsonValueStructure,
  isJsonValue,
  isJsonValueAt,
  jsonCopy
)
  .annotations({ identifier: "JsonValue", arbitrary: () => jsonValueArbitrary })

// Plain objects only (no null prototypes, no `__proto__` keys): exactly what `JSON.parse` yields.
const jsonKey: Arbitrary.LazyArbitrary<string> = (fc) => fc.string({ maxLength: 8 }).filter((k) => k !== "__proto__")

const jsonNumber: Arbitrary.LazyArbitrary<number> = (fc) =>
  fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map((n) => n === 0 ? 0 : n)

const jsonValueArbitrary: Arbitrary.LazyArbitrary<JsonValue> = (fc) =>
  fc.letrec<{ value: JsonValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      jsonNumber(fc),
      fc.string({ maxLength: 12 }),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(jsonKey(fc), tie("value"), { maxKeys: 3, noNullPrototype: true })
    )
  })).value

/** @internal */
export const jsonObjectArbitrary: Arbitrary.LazyArbitrary<JsonObject> = (fc) =>
  fc.dictionary(jsonKey(fc), jsonValueArbitrary(fc), { maxKeys: 4, noNullPrototype: true })

/**
 * Schema for a JSON object. A key named `__proto__` stays an own data key, as in {@link JsonValue}.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonObject: Schema.Schema<JsonObject> = keepingProtoKeys(
  "JsonObject",
  JsonObjectStructure,
  isJsonObject,
  isJsonObjectAt,
  (value) => jsonCopy(value) as JsonObject
).annotations({ identifier: "JsonObject", arbitrary: () => jsonObjectArbitrary })
