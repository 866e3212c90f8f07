/**
 * Gemini function calls whose arguments are streamed in parts (Vertex AI and Gemini 3 with
 * `streamFunctionCallArguments`): `GoogleFormat.decodeStream` assembles the fragments into one
 * tool call. Built from the documented shapes (`FunctionCall.partialArgs` / `willContinue`,
 * `PartialArg` with an RFC 9535 `jsonPath`), typed with `@google/genai`'s own types.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Candidate, FinishReason, type FunctionCall, type Part, type PartialArg } from "@google/genai"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Stream from "effect/Stream"
import { Block, GoogleFormat, type Json } from "../src/index.js"
import { parseJsonPath } from "../src/internal/google/streamedCall.js"

/** The JSON of a streamed `GenerateContentResponse` chunk. */
interface Chunk {
  readonly responseId: string
  readonly modelVersion: string
  readonly candidates: ReadonlyArray<Candidate>
}

/** One chunk holding one part of candidate 0. */
const chunk = (part: Part, finishReason?: FinishReason): Chunk => ({
  responseId: "resp-9",
  modelVersion: "gemini-3-pro-preview",
  candidates: [{
    index: 0,
    content: { role: "model", parts: [part] },
    ...(finishReason === undefined ? {} : { finishReason })
  }]
})

const fragment = (functionCall: FunctionCall, extra: Omit<Part, "functionCall"> = {}): Chunk =>
  chunk({ functionCall, ...extra })

const done = chunk({ text: "" }, FinishReason.STOP)

const decode = (chunks: ReadonlyArray<unknown>) =>
  Effect.runSync(Effect.either(GoogleFormat.decodeStream(Stream.fromIterable(chunks))))

const calls = (chunks: ReadonlyArray<unknown>) => {
  const r = decode(chunks)
  if (Either.isLeft(r)) assert.fail(`expected a Right, got ${r.left.message}`)
  return r.right.message.blocks.flatMap((b) => b.type === "tool_call" ? [b] : [])
}

const failure = (chunks: ReadonlyArray<unknown>) => {
  const r = decode(chunks)
  if (Either.isRight(r)) assert.fail(`expected a Left, got ${JSON.stringify(r.right)}`)
  return r.left
}

describe("GoogleFormat.decodeStream: function-call arguments streamed in parts", () => {
  it("assembles nested objects, arrays and strings sent in pieces into one call, keeping its signature", () => {
    const args: Array<PartialArg> = [
      { jsonPath: "$.recipe.name", stringValue: "Lasa", willContinue: true },
      { jsonPath: "$.recipe.name", stringValue: "gna" },
      { jsonPath: "$.recipe.ingredients[0].name", stringValue: "noodles" },
      { jsonPath: "$.recipe.ingredients[0].grams", numberValue: 250 },
      { jsonPath: "$.recipe.ingredients[1].name", stringValue: "beef" },
      { jsonPath: "$.recipe.ingredients[1].optional", boolValue: false },
      { jsonPath: "$.recipe.steps[0]", stringValue: "Preheat the oven ", willContinue: true },
      { jsonPath: "$.recipe.steps[0]", stringValue: "to 190°C, \"fan\".", willContinue: true },
      { jsonPath: "$.recipe.steps[0]", stringValue: "" },
      { jsonPath: "$.recipe.steps[1]", stringValue: "Layer." },
      { jsonPath: "$.note", nullValue: "NULL_VALUE" },
      { jsonPath: "$['odd key.with [brackets]']", stringValue: "quoted" }
    ]
    const chunks = [
      chunk({ text: "Planning the recipe.", thought: true }),
      fragment({ name: "cookRecipe", willContinue: true }, { thoughtSignature: "c2lnLTE=" }),
      // one PartialArg per chunk, as Vertex AI sends them, and two in one chunk
      ...args.slice(0, 10).map((arg) => fragment({ partialArgs: [arg], willContinue: true })),
      fragment({ partialArgs: args.slice(10), willContinue: true }),
      fragment({}),
      done
    ]
    const r = decode(chunks)
    assert.isTrue(Either.isRight(r))
    const response = Either.getOrThrow(r)
    assert.deepStrictEqual(response.message.blocks, [
      Block.reasoning("Planning the recipe."),
      Block.reasoning("", { signature: "c2lnLTE=" }),
      Block.toolCall("call_resp-9_1", "cookRecipe", {
        recipe: {
          name: "Lasagna",
          ingredients: [{ name: "noodles", grams: 250 }, { name: "beef", optional: false }],
          steps: ["Preheat the oven to 190°C, \"fan\".", "Layer."]
        },
        note: null,
        "odd key.with [brackets]": "quoted"
      })
      // the empty text part beside the finishReason holds nothing and is left out
    ])
    assert.strictEqual(response.stopReason, "tool_calls")
  })

  it("equals decodeResponse of the same call sent whole (property, any JSON arguments)", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.dictionary(FastCheck.string({ maxLength: 6 }), FastCheck.jsonValue({ maxDepth: 3 }), {
          maxKeys: 4
        }),
        FastCheck.integer({ min: 1, max: 4 }),
        (value, pieces) => {
          const args = JSON.parse(JSON.stringify(value)) as Json.JsonObject
          const whole = chunk({ functionCall: { name: "f", args }, thoughtSignature: "c2ln" }, FinishReason.STOP)
          const streamed = [
            fragment({ name: "f", willContinue: true }, { thoughtSignature: "c2ln" }),
            ...fragments(args, pieces).map((partialArgs) => fragment({ partialArgs, willContinue: true })),
            fragment({}, {}),
            chunk({ text: "" }, FinishReason.STOP)
          ]
          const fromWhole = Either.getOrThrow(GoogleFormat.decodeResponse(whole))
          const fromStream = decode(streamed)
          assert.deepStrictEqual(
            Either.map(fromStream, (r) => r.message.blocks.filter((b) => b.type === "tool_call")),
            Either.right(fromWhole.message.blocks.filter((b) => b.type === "tool_call"))
          )
        }
      ),
      { numRuns: 200 }
    )
  })

  it("several calls in a row, each ended by an empty functionCall, a call sent whole among them", () => {
    const got = calls([
      fragment({ name: "read", willContinue: true }, { thoughtSignature: "c2ln" }),
      fragment({ partialArgs: [{ jsonPath: "$.id", stringValue: "A", willContinue: true }], willContinue: true }),
      fragment({ partialArgs: [{ jsonPath: "$.id", stringValue: "" }], willContinue: true }),
      fragment({}),
      fragment({ name: "ping", args: {} }),
      fragment({ name: "read", willContinue: true }),
      fragment({ partialArgs: [{ jsonPath: "$.id", stringValue: "B" }], willContinue: true }),
      fragment({}),
      done
    ])
    assert.deepStrictEqual(got.map((b) => [b.name, b.input]), [["read", { id: "A" }], ["ping", {}], ["read", {
      id: "B"
    }]])
    assert.strictEqual(new Set(got.map((b) => b.id)).size, 3)
  })

  it("a call ends at a fragment that says nothing follows, without an empty terminator", () => {
    const got = calls([
      fragment({ name: "writeItems", willContinue: true }),
      fragment({ partialArgs: [{ jsonPath: "$.items[0].id", stringValue: "a" }], willContinue: true }),
      fragment({ partialArgs: [{ jsonPath: "$.items[0].price", numberValue: 0.5 }] }),
      done
    ])
    assert.deepStrictEqual(got.map((b) => [b.name, b.input]), [["writeItems", { items: [{ id: "a", price: 0.5 }] }]])
  })

  it("a call stays open while a PartialArg says its string goes on; one fragment may start and end a call", () => {
    const got = calls([
      fragment({ name: "say", willContinue: true }),
      fragment({ partialArgs: [{ jsonPath: "$.text", stringValue: "Hel", willContinue: true }] }),
      fragment({ partialArgs: [{ jsonPath: "$.text", stringValue: "lo" }] }),
      fragment({ name: "at", id: "c-2", partialArgs: [{ jsonPath: "$.x", numberValue: 1 }] }),
      done
    ])
    assert.deepStrictEqual(got.map((b) => [b.id, b.name, b.input]), [["call_resp-9_0", "say", { text: "Hello" }], [
      "c-2",
      "at",
      { x: 1 }
    ]])
  })

  it("args on a fragment, an id on a later fragment, empty objects and arrays (value-less PartialArgs)", () => {
    const got = calls([
      fragment({ name: "f", args: { mode: "fast" }, willContinue: true }),
      fragment({ id: "call-7", partialArgs: [{ jsonPath: "$.opts" }, { jsonPath: "$.tags[]" }], willContinue: true }),
      fragment({ partialArgs: [{ jsonPath: "$.later", willContinue: true }], willContinue: true }),
      fragment({ partialArgs: [{ jsonPath: "$.later", stringValue: "x" }] }),
      done
    ])
    assert.deepStrictEqual(got.map((b) => [b.id, b.input]), [["call-7", {
      mode: "fast",
      opts: {},
      tags: [],
      later: "x"
    }]])
  })

  it("reads a Python SDK dump: snake_case keys and null for unset, nullValue null as the value null", () => {
    const dump = (part: Record<string, unknown>, finish: string | null = null) => ({
      candidates: [{ content: { role: "model", parts: [part] }, finish_reason: null, finishReason: finish, index: 0 }],
      response_id: null,
      responseId: "py-1"
    })
    const got = calls([
      dump({ function_call: { name: "f", will_continue: true, args: null, id: null }, thought_signature: "c2ln" }),
      dump({ function_call: { partial_args: [{ json_path: "$.a", null_value: null, will_continue: null }] } }),
      dump({ text: "" }, FinishReason.STOP)
    ])
    assert.deepStrictEqual(got.map((b) => [b.name, b.input]), [["f", { a: null }]])
  })

  it("keys such as __proto__ are data", () => {
    const got = calls([
      fragment({ name: "f", partialArgs: [{ jsonPath: "$['__proto__'].polluted", boolValue: true }] }),
      done
    ])
    assert.deepStrictEqual(JSON.stringify(got[0]!.input), "{\"__proto__\":{\"polluted\":true}}")
    assert.strictEqual(({} as Record<string, unknown>)["polluted"], undefined)
  })
})

describe("GoogleFormat.decodeStream: streamed arguments that do not make a call", () => {
  it("a stream that ends while a call goes on: IncompleteStream naming the call", () => {
    const e = failure([
      fragment({ name: "lookup", willContinue: true }),
      fragment({ partialArgs: [{ jsonPath: "$.id", stringValue: "7", willContinue: true }], willContinue: true }),
      chunk({ text: "" }, FinishReason.STOP)
    ])
    assert.strictEqual(e._tag, "IncompleteStream")
    assert.strictEqual(
      e.message,
      "google: event 1: the function call \"lookup\" (candidate 0, part 0, started at event 0) never completes: the " +
        "stream ended after its fragment at event 1, which said more would follow (willContinue)"
    )
  })

  it("a call that starts before the open one ends, a fragment with no call to continue", () => {
    const e = failure([
      fragment({ name: "a", willContinue: true }),
      fragment({ name: "b", willContinue: true }),
      fragment({}),
      done
    ])
    assert.strictEqual(e._tag, "IncompleteStream")
    assert.include(e.message, "the function call \"a\" (candidate 0, part 0, started at event 0) never completes")
    const orphan = failure([fragment({ partialArgs: [{ jsonPath: "$.x", numberValue: 1 }] }), done])
    assert.strictEqual(orphan._tag, "IncompleteStream")
    assert.include(orphan.message, "continues no call")
  })

  it("a second empty terminator ends nothing and loses nothing; its signature stays a part", () => {
    const r = decode([
      fragment({ name: "f", partialArgs: [{ jsonPath: "$.x", numberValue: 1 }] }),
      fragment({}, { thoughtSignature: "c2ln" }),
      done
    ])
    assert.deepStrictEqual(
      Either.map(r, (x) => x.message.blocks.slice(0, 2)),
      Either.right([
        Block.toolCall("call_resp-9_0", "f", { x: 1 }),
        Block.reasoning("", { signature: "c2ln" })
      ])
    )
  })

  it("arguments that contradict each other, or leave a hole in an array: IncompleteStream naming call and path", () => {
    const open = fragment({ name: "f", willContinue: true })
    const cases: ReadonlyArray<readonly [Array<PartialArg>, string]> = [
      [[{ jsonPath: "$.a", stringValue: "x" }, { jsonPath: "$.a.b", numberValue: 1 }], "$.a is string, so $.a.b"],
      [[{ jsonPath: "$.a", numberValue: 1 }, { jsonPath: "$.a", numberValue: 2 }], "$.a is number already"],
      [[{ jsonPath: "$.a[0]", numberValue: 1 }, { jsonPath: "$.a.b", numberValue: 1 }], "$.a is an array, so $.a.b"],
      [[{ jsonPath: "$.a[1]", numberValue: 1 }], "ends without $.a[0]"],
      [[{ jsonPath: "$", numberValue: 1 }], "the arguments themselves"]
    ]
    for (const [partialArgs, expected] of cases) {
      const e = failure([open, fragment({ partialArgs }), done])
      assert.strictEqual(e._tag, "IncompleteStream", expected)
      assert.include(e.message, "the function call \"f\" (candidate 0, part 0", expected)
      assert.include(e.message, expected)
    }
  })

  it("a PartialArg that cannot be read: MalformedInput at its place in the event", () => {
    const open = fragment({ name: "f", willContinue: true })
    const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string | number>, string]> = [
      [{ jsonPath: "$..a", numberValue: 1 }, ["jsonPath"], "is not a path to one value"],
      [{ jsonPath: "$.a[*]", numberValue: 1 }, ["jsonPath"], "is not a path to one value"],
      [{ jsonPath: "$.a[-1]", numberValue: 1 }, ["jsonPath"], "is not a path to one value"],
      [{ jsonPath: "a", numberValue: 1 }, ["jsonPath"], "starts with \"$\""],
      [{ numberValue: 1 }, ["jsonPath"], "is missing"],
      [{ jsonPath: "$.a", numberValue: 1, stringValue: "1" }, [], "sets one value"],
      [{ jsonPath: "$.a", numberValue: "1" }, [], "numberValue must be a number"],
      [{ jsonPath: "$.a[]", numberValue: 1 }, ["jsonPath"], "ends a path to an empty array"]
    ]
    for (const [arg, tail, expected] of cases) {
      const e = failure([open, fragment({ partialArgs: [arg as PartialArg] }), done])
      assert.strictEqual(e._tag, "MalformedInput", expected)
      assert.deepStrictEqual(
        e._tag === "MalformedInput" && e.path,
        [1, "candidates", 0, "content", "parts", 0, "functionCall", "partialArgs", 0, ...tail],
        expected
      )
      assert.include(e.message, expected)
    }
  })

  it("a fragment read as a whole answer or a transcript: MalformedInput saying what it is", () => {
    for (
      const part of [
        { functionCall: { name: "f", willContinue: true } },
        { functionCall: { name: "f", partialArgs: [{ jsonPath: "$.a", numberValue: 1 }] } }
      ]
    ) {
      const e = Either.getOrThrow(Either.flip(GoogleFormat.decodeResponse(chunk(part, FinishReason.STOP))))
      assert.strictEqual(e._tag, "MalformedInput")
      assert.include(e.message, "a fragment of a function call whose arguments were streamed in parts")
      const t = Either.getOrThrow(Either.flip(GoogleFormat.decode([{ role: "model", parts: [part] }])))
      assert.strictEqual(t._tag, "MalformedInput")
    }
    // the markers without content are a whole call
    assert.isTrue(
      Either.isRight(
        GoogleFormat.decode([{
          role: "model",
          parts: [{ functionCall: { name: "f", partialArgs: [], willContinue: false } }]
        }])
      )
    )
  })
})

describe("the JSON paths Gemini sends", () => {
  it("reads RFC 9535 singular paths: shorthand names, quoted names with escapes, indices", () => {
    assert.deepStrictEqual(parseJsonPath("$"), { segments: [], emptyArray: false })
    assert.deepStrictEqual(parseJsonPath("$.recipe.steps[10].text"), {
      segments: ["recipe", "steps", 10, "text"],
      emptyArray: false
    })
    assert.deepStrictEqual(parseJsonPath("$['a.b'][\"c\\\"d\"]['\\u00e9\\n']"), {
      segments: ["a.b", "c\"d", "é\n"],
      emptyArray: false
    })
    assert.deepStrictEqual(parseJsonPath("$.tags[]"), { segments: ["tags"], emptyArray: true })
    for (const bad of ["", "x", "$.", "$[01]", "$['a'", "$[1", "$.a[]b", "$['\\x']", "$.*"]) {
      assert.isString(parseJsonPath(bad), bad)
    }
  })
})

/**
 * The PartialArgs that stream `args`, in document order: strings cut into `pieces` pieces (the last
 * `""`, as Vertex AI ends them), numbers, booleans and null whole, empty objects and arrays as
 * value-less PartialArgs, every name quoted in brackets unless it is a plain identifier.
 */
const fragments = (args: Json.JsonObject, pieces: number): Array<Array<PartialArg>> => {
  const out: Array<Array<PartialArg>> = []
  const name = (key: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
  const walk = (value: Json.JsonValue, path: string): void => {
    if (typeof value === "string") {
      const size = Math.ceil(value.length / pieces)
      for (let i = 0; i < pieces; i++) {
        out.push([{ jsonPath: path, stringValue: value.slice(i * size, (i + 1) * size), willContinue: true }])
      }
      out.push([{ jsonPath: path, stringValue: "" }])
    } else if (typeof value === "number") out.push([{ jsonPath: path, numberValue: value }])
    else if (typeof value === "boolean") out.push([{ jsonPath: path, boolValue: value }])
    else if (value === null) out.push([{ jsonPath: path, nullValue: "NULL_VALUE" }])
    else if (Array.isArray(value)) {
      const items: ReadonlyArray<Json.JsonValue> = value
      if (items.length === 0) out.push([{ jsonPath: `${path}[]` }])
      items.forEach((item, i) => walk(item, `${path}[${i}]`))
    } else {
      const record = value as Json.JsonObject
      const keys = Object.keys(record)
      if (keys.length === 0 && path !== "$") out.push([{ jsonPath: path }])
      for (const key of keys) walk(record[key]!, path + name(key))
    }
  }
  walk(args, "$")
  return out
}
