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
import * as Schema from "effect/Schema"

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

/**
 * Schema for any JSON value.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonValue: Schema.Schema<JsonValue> = Schema.Union(
  Schema.Null,
  Schema.Boolean,
  JsonNumber,
  Schema.String,
  Schema.Array(Schema.suspend((): Schema.Schema<JsonValue> => JsonValue)),
  Schema.Record({ key: Schema.String, value: Schema.suspend((): Schema.Schema<JsonValue> => JsonValue) })
).annotations({
  identifier: "JsonValue",
  arbitrary: () => jsonValueArbitrary
})

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
 * Schema for a JSON object.
 *
 * @category schemas
 * @since 0.1.0
 */
export const JsonObject: Schema.Schema<JsonObject> = Schema.Record({ key: Schema.String, value: JsonValue })
  .annotations({ identifier: "JsonObject", arbitrary: () => jsonObjectArbitrary })
