import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { dumps } from "../src/internal/pythonJson.js"

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
