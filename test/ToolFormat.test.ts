import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Json from "openreward-effect/Json"
import * as ToolFormat from "openreward-effect/ToolFormat"

/** Written by test/fixtures/tool-format/generate.py from the reference SDK's `convert_tool_response`. */
interface GoldenCase {
  readonly name: string
  /** As the reference read them: not all are `ToolSpec`s. */
  readonly tools: ReadonlyArray<unknown>
  readonly expected: { readonly [F in "openai" | "openrouter" | "anthropic" | "google"]: ReadonlyArray<unknown> }
}

const golden: ReadonlyArray<GoldenCase> = JSON.parse(
  fs.readFileSync(path.join(__dirname, "fixtures", "tool-format", "reference.json"), "utf8")
)

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) assert.fail(`expected a Right, got ${String(either.left)}`)
  return either.right
}

const left = <A, E>(either: Either.Either<A, E>): E => {
  if (Either.isRight(either)) assert.fail("expected a Left")
  return either.left
}

/** Every object in a JSON value, depth first. */
const objects = (value: unknown): ReadonlyArray<Record<string, unknown>> => {
  if (Array.isArray(value)) return value.flatMap(objects)
  if (typeof value === "object" && value !== null) {
    return [value as Record<string, unknown>, ...Object.values(value).flatMap(objects)]
  }
  return []
}

describe("ToolFormat.convert matches the reference byte for byte", () => {
  it("has golden cases", () => assert.isAbove(golden.length, 5))
  for (const c of golden) {
    for (const format of ["openai", "openrouter", "anthropic", "google"] as const) {
      it(`${format}: ${c.name}`, () => {
        // JSON.stringify compares key order too: the reference's dict order is part of the contract.
        assert.strictEqual(
          JSON.stringify(right(ToolFormat.convert(right(ToolFormat.decode({ tools: c.tools })), format))),
          JSON.stringify(c.expected[format])
        )
      })
    }
    it(`openai-compatible nests the openrouter parameters inside function: ${c.name}`, () => {
      const expected = (c.expected.openrouter as ReadonlyArray<{ type: string; function: object; parameters: unknown }>)
        .map((t) => ({ type: t.type, function: { ...t.function, parameters: t.parameters } }))
      assert.strictEqual(
        JSON.stringify(right(ToolFormat.convert(right(ToolFormat.decode(c.tools)), "openai-compatible"))),
        JSON.stringify(expected)
      )
    })
  }

  it("is dual", () => {
    const tools = right(ToolFormat.decode(golden[0]!.tools))
    assert.deepStrictEqual(ToolFormat.convert("google")(tools), ToolFormat.convert(tools, "google"))
  })
})

describe("ToolFormat.sanitizeSchema", () => {
  it("gives {} for a missing or empty schema, like the reference", () => {
    for (const format of ToolFormat.formats) {
      assert.deepStrictEqual(ToolFormat.sanitizeSchema(null, format), {})
      assert.deepStrictEqual(ToolFormat.sanitizeSchema(undefined, format), {})
      assert.deepStrictEqual(ToolFormat.sanitizeSchema({}, format), {})
    }
  })

  it("keeps data that only looks like a keyword as a key: __proto__", () => {
    const schema = JSON.parse("{\"type\":\"object\",\"properties\":{\"__proto__\":{\"type\":\"string\"}}}")
    const out = ToolFormat.sanitizeSchema(schema, "openai") as { properties: object }
    assert.deepStrictEqual(Object.keys(out.properties), ["__proto__"])
    assert.strictEqual(Object.getPrototypeOf(out.properties), Object.prototype)
  })

  it("preservePropertyNames keeps properties named like keywords and leaves data alone", () => {
    const schema: Json.JsonObject = {
      type: "object",
      title: "Article",
      properties: {
        title: { type: "string", title: "Title" },
        not: { type: "boolean" },
        anyOf: { type: "integer" },
        kind: { enum: [{ title: "kept: enum values are data" }], default: { title: "kept" } }
      },
      required: ["title", "not"],
      $defs: { additionalProperties: { type: "string", additionalProperties: false } }
    }
    assert.deepStrictEqual(ToolFormat.sanitizeSchema(schema, "openai", { preservePropertyNames: true }), {
      type: "object",
      properties: {
        title: { type: "string" },
        not: { type: "boolean" },
        anyOf: { type: "integer" },
        kind: { enum: [{ title: "kept: enum values are data" }], default: { title: "kept" } }
      },
      required: ["title", "not"],
      $defs: { additionalProperties: { type: "string" } }
    })
    assert.deepStrictEqual(ToolFormat.sanitizeSchema(schema, "google", { preservePropertyNames: true }), {
      type: "object",
      properties: {
        title: { type: "string" },
        not: { type: "boolean" },
        anyOf: { type: "integer" },
        kind: { enum: [{ title: "kept: enum values are data" }] }
      },
      required: ["title", "not"],
      defs: { additionalProperties: { type: "string" } }
    })
    // The reference's behaviour, for contrast: the `title` property is gone, `required` still names it.
    assert.deepStrictEqual(ToolFormat.sanitizeSchema(schema, "anthropic"), {
      type: "object",
      properties: {
        not: { type: "boolean" },
        anyOf: { type: "integer" },
        kind: { enum: [{}], default: {} }
      },
      required: ["title", "not"],
      $defs: { additionalProperties: { type: "string", additionalProperties: false } }
    })
  })

  // JSON Schema-like objects: keys drawn mostly from the keywords the sanitizers care about.
  const keyword = FastCheck.constantFrom(
    "type",
    "title",
    "properties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "additionalProperties",
    "additional_properties",
    "patternProperties",
    "$ref",
    "$defs",
    "default",
    "examples",
    "example",
    "required",
    "enum",
    "description"
  )
  const schemas: FastCheck.Arbitrary<Json.JsonObject> =
    FastCheck.letrec<{ schema: Json.JsonObject; value: Json.JsonValue }>((
      tie
    ) => ({
      schema: FastCheck.dictionary(FastCheck.oneof(keyword, FastCheck.string({ maxLength: 4 })), tie("value"), {
        maxKeys: 4,
        noNullPrototype: true
      }),
      value: FastCheck.oneof(
        { depthSize: "small", withCrossShrink: true },
        FastCheck.constantFrom<Array<Json.JsonValue>>(
          "array",
          "null",
          "object",
          "string",
          ["array", "null"],
          true,
          null
        ),
        tie("schema"),
        FastCheck.array(tie("schema"), { maxLength: 3 })
      )
    })).schema

  it.prop(
    "openai-family output has no title, no collapsible or unsupported keyword, and every array has items",
    [schemas],
    ([schema]) => {
      for (const format of ["openai", "openrouter", "openai-compatible"] as const) {
        for (const o of objects(ToolFormat.sanitizeSchema(schema, format))) {
          for (const key of ["title", "anyOf", "oneOf", "allOf", "not", "additionalProperties", "patternProperties"]) {
            assert.isFalse(key in o, `${format}: found ${key}`)
          }
          const type = o.type
          if (type === "array" || (Array.isArray(type) && type.includes("array"))) assert.isTrue("items" in o)
        }
      }
    },
    { fastCheck: { numRuns: 100 } }
  )

  it.prop(
    "google output has none of the keys Gemini rejects, and no $ref or $defs",
    [schemas],
    ([schema]) => {
      const banned = [
        "title",
        "default",
        "examples",
        "example",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "additionalProperties",
        "additional_properties",
        "patternProperties",
        "$ref",
        "$defs"
      ]
      for (const o of objects(ToolFormat.sanitizeSchema(schema, "google"))) {
        for (const key of banned) assert.isFalse(key in o, `found ${key}`)
      }
    },
    { fastCheck: { numRuns: 100 } }
  )

  it.prop(
    "sanitizing is idempotent and its output is JSON",
    [schemas],
    ([schema]) => {
      for (const format of ToolFormat.formats) {
        const once = ToolFormat.sanitizeSchema(schema, format)
        assert.isTrue(Schema.is(Json.JsonValue)(once))
        if (typeof once === "object" && once !== null && !Array.isArray(once)) {
          assert.deepStrictEqual(ToolFormat.sanitizeSchema(once as Json.JsonObject, format), once)
        }
      }
    },
    { fastCheck: { numRuns: 100 } }
  )
})

describe("ToolFormat.convert failures", () => {
  it("a top-level schema that collapses to a boolean schema is a MalformedInput at its path", () => {
    const tools = [
      { name: "ok", description: "", input_schema: null },
      { name: "odd", description: "", input_schema: { anyOf: [true] } }
    ]
    const error = left(ToolFormat.convert(tools, "openai"))
    assert.strictEqual(error._tag, "MalformedInput")
    assert.deepStrictEqual(error.path, [1, "input_schema"])
    assert.include(error.message, "\"odd\"")
    // Formats that keep the schema an object are fine.
    assert.isTrue(Either.isRight(ToolFormat.convert(tools, "anthropic")))
  })
})

describe("ToolFormat.decode", () => {
  it("reads a /tools body, keeps extra keys and defaults a missing input_schema to null", () => {
    const tools = right(ToolFormat.decode({
      tools: [{ name: "a", description: "d", annotations: { readOnlyHint: true } }],
      message_block_types: ["text", "image"]
    }))
    assert.deepStrictEqual(tools as unknown, [{
      name: "a",
      description: "d",
      annotations: { readOnlyHint: true },
      input_schema: null
    }])
    assert.deepStrictEqual(right(ToolFormat.convert(tools, "openai")), [
      { type: "function", name: "a", description: "d", annotations: { readOnlyHint: true }, parameters: null }
    ] as never)
  })

  it("reads a bare array", () => {
    assert.deepStrictEqual(right(ToolFormat.decode([{ name: "a", description: "", input_schema: null }])), [
      { name: "a", description: "", input_schema: null }
    ])
  })

  it("says where a tool list is malformed: a tool that is not an object, a value that is not JSON", () => {
    const error = left(ToolFormat.decode({ tools: [{ name: "a", description: "" }, 3] }))
    assert.strictEqual(error._tag, "MalformedInput")
    assert.deepStrictEqual(error.path, ["tools", 1])
    assert.deepStrictEqual(left(ToolFormat.decode([{ name: "a", x: [1, Number.NaN] }])).path, [0, "x"])
    assert.deepStrictEqual(left(ToolFormat.decode({ tools: { name: "a" } })).path, ["tools"])
  })

  it("keeps the server's key order, which convert writes back", () => {
    const tools = right(ToolFormat.decode([{ description: "d", name: "a", strict: true, input_schema: {} }]))
    assert.deepStrictEqual(Object.keys(tools[0]!), ["description", "name", "strict", "input_schema"])
    assert.deepStrictEqual(Object.keys(right(ToolFormat.convert(tools, "openai"))[0]!), [
      "type",
      "description",
      "name",
      "strict",
      "parameters"
    ])
  })

  it("a schema that is not an object but is truthy sanitizes to a non-object: a MalformedInput", () => {
    for (const schema of [[{ type: "string" }], true, "x", 5]) {
      const tools = right(ToolFormat.decode([{ name: "odd", description: "", input_schema: schema }]))
      for (const format of ToolFormat.formats) {
        const error = left(ToolFormat.convert(tools, format))
        assert.deepStrictEqual(error.path, [0, "input_schema"])
        assert.include(error.message, "\"odd\"")
      }
    }
  })
})

describe("ToolFormat.isFormat", () => {
  it("accepts exactly the formats", () => {
    for (const format of ToolFormat.formats) assert.isTrue(ToolFormat.isFormat(format))
    assert.isFalse(ToolFormat.isFormat("openai-responses"))
  })
})
