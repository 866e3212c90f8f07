import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { dumps } from "../src/internal/pythonJson.js"
import { dumps as referenceDumps } from "./utils/pythonJsonReference.js"

describe("pythonJson.dumps", () => {
  it("matches CPython's json.dumps byte for byte (outputs recorded from CPython 3.12)", () => {
    assert.strictEqual(
      dumps({ a: 1, b: "é😀\n\u007f\"\\" }),
      "{\"a\": 1, \"b\": \"\\u00e9\\ud83d\\ude00\\n\\u007f\\\"\\\\\"}"
    )
    assert.strictEqual(
      dumps([1.5, 0.00001, 1e-7, 1e16, 1.5e16, 123456789.123, -0.5, 1e300, 2.5e-300, 100]),
      "[1.5, 1e-05, 1e-07, 1e+16, 1.5e+16, 123456789.123, -0.5, 1e+300, 2.5e-300, 100]"
    )
    assert.strictEqual(
      dumps({ x: [true, false, null], "": {}, y: [] }),
      "{\"x\": [true, false, null], \"\": {}, \"y\": []}"
    )
    assert.strictEqual(dumps("\u0000\u001f\b\f\t\r"), "\"\\u0000\\u001f\\b\\f\\t\\r\"")
  })

  it.prop("is JSON that parses back to the same value", [FastCheck.jsonValue()], ([value]) => {
    assert.deepStrictEqual(JSON.parse(dumps(value)), JSON.parse(JSON.stringify(value)))
  })

  it.prop("is pure ASCII", [FastCheck.jsonValue()], ([value]) => /^[\x20-\x7e]*$/.test(dumps(value)))
})

// `dumps` prints floats in [1e-4, 1e16) with `String(n)`, and strings and containers with shortcuts;
// the digit-by-digit implementation it replaced is the oracle (test/utils/pythonJsonReference.ts).
describe("pythonJson.dumps against the digit-by-digit implementation", () => {
  const edges = [
    0,
    -0,
    1,
    -1,
    0.1,
    -0.1,
    1e-4,
    -1e-4,
    9.999999999999999e-5,
    1.0000000000000001e-4,
    1e16,
    -1e16,
    9999999999999998,
    1e16 + 2,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    2 ** 53 - 1,
    1e21,
    1e22,
    1.5e21,
    1e-7,
    1e-6,
    123456.789e3,
    5e-324,
    -5e-324,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.EPSILON,
    NaN,
    Infinity,
    -Infinity,
    0.30000000000000004,
    4.35,
    1 / 3,
    2 / 3 * 1e15,
    2 / 3 * 1e16
  ]

  it("agrees on the edges of the String(n) range, integers beyond 2^53 and non-finite numbers", () => {
    for (const n of edges) assert.strictEqual(dumps(n), referenceDumps(n), String(n))
    for (let e = -330; e <= 310; e++) {
      for (const m of [1, 1.5, 9.999999999999998, 2.220446049250313]) {
        for (const n of [m * 10 ** e, -m * 10 ** e, Number(`${m}e${e}`)]) {
          assert.strictEqual(dumps(n), referenceDumps(n), String(n))
        }
      }
    }
  })

  it.prop(
    "agrees on every double",
    [FastCheck.double()],
    ([n]) => assert.strictEqual(dumps(n), referenceDumps(n)),
    { fastCheck: { numRuns: 20_000 } }
  )

  it.prop(
    "agrees on doubles near the bounds of the String(n) range",
    [
      FastCheck.oneof(
        FastCheck.double({ min: 1e-5, max: 1e-3 }),
        FastCheck.double({ min: 1e15, max: 1e17 }),
        FastCheck.double({ min: 2 ** 52, max: 2 ** 54 }),
        FastCheck.double({ min: -1e17, max: -1e15 }),
        FastCheck.double({ min: -1e-3, max: -1e-5 })
      )
    ],
    ([n]) => assert.strictEqual(dumps(n), referenceDumps(n)),
    { fastCheck: { numRuns: 20_000 } }
  )

  it.prop(
    "agrees on integers beyond 2^53",
    [FastCheck.bigInt({ min: -(2n ** 80n), max: 2n ** 80n })],
    ([n]) => assert.strictEqual(dumps(Number(n)), referenceDumps(Number(n))),
    { fastCheck: { numRuns: 5_000 } }
  )

  // Every UTF-16 code unit, lone surrogates included.
  const anyString = FastCheck.array(FastCheck.integer({ min: 0, max: 0xffff }), { maxLength: 12 })
    .map((units) => String.fromCharCode(...units))
  const anyNumber = FastCheck.oneof(FastCheck.double(), FastCheck.integer(), FastCheck.constant(-0))
  const value = FastCheck.letrec<{ value: unknown }>((tie) => ({
    value: FastCheck.oneof(
      { depthSize: "small" },
      FastCheck.constant(null),
      FastCheck.constant(undefined),
      FastCheck.boolean(),
      anyNumber,
      anyString,
      FastCheck.fullUnicodeString({ maxLength: 6 }),
      FastCheck.array(tie("value"), { maxLength: 4 }),
      FastCheck.dictionary(anyString, tie("value"), { maxKeys: 4 }),
      FastCheck.dictionary(anyString, tie("value"), { maxKeys: 4, noNullPrototype: false })
    )
  })).value

  it.prop(
    "agrees on arbitrary JSON-like values: unicode, lone surrogates, -0, large and small numbers",
    [value],
    ([v]) => assert.strictEqual(dumps(v), referenceDumps(v)),
    { fastCheck: { numRuns: 2_000 } }
  )

  it.prop(
    "agrees on fast-check's JSON values",
    [FastCheck.oneof(FastCheck.jsonValue(), FastCheck.unicodeJsonValue())],
    ([v]) => assert.strictEqual(dumps(v), referenceDumps(v)),
    { fastCheck: { numRuns: 1_000 } }
  )

  it("agrees on inherited keys, functions, symbols and bigints", () => {
    const inherited: { [key: string]: unknown } = Object.create({ inherited: 1 })
    inherited["own"] = 2
    const odd = [inherited, { f: () => 1, s: Symbol("s"), b: 1n, u: undefined }, [undefined, () => 1]]
    for (const v of odd) assert.strictEqual(dumps(v), referenceDumps(v))
  })
})
