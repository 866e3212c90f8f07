/**
 * The guard compiler (src/internal/guard.ts) against the Schema decode, for every canonical wire
 * schema, strict and lenient; the provider request schemas have theirs in their format's tests.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { Json } from "openreward-effect"
import { AnthropicFormat, Block, Conversation, GoogleFormat, Message, OpenAiFormat, Prompt } from "openreward-effect"
import * as Guard from "../src/internal/guard.js"
import * as Plain from "../src/internal/plain.js"
import { backends, guardLaws } from "./utils/guardLaws.js"

describe("guard laws: canonical schemas", () => {
  guardLaws("Conversation (strict)", Conversation.Conversation, { onExcessProperty: "error" })
  guardLaws("Conversation (lenient)", Guard.relax(Conversation.Conversation), { onExcessProperty: "ignore" })
  guardLaws("Block (strict)", Block.Block, { onExcessProperty: "error" })
  guardLaws("Message (lenient)", Guard.relax(Message.Message), { onExcessProperty: "ignore" })
  guardLaws("Prompt (strict)", Prompt.Prompt, { onExcessProperty: "error" })
})

for (const backend of backends) {
  describe(`the guard compiler (${backend})`, () => {
    const compile = (schema: Schema.Schema.AnyNoContext, options: Guard.Options): Guard.Guard =>
      Guard.compile(schema, options, backend)

    it("dispatches a union on its literal tag, and still tries the members without one", () => {
      const schema = Schema.Union(
        Schema.Struct({ type: Schema.Literal("a"), a: Schema.String }),
        Schema.Struct({ type: Schema.Literal("b", "c"), b: Schema.Number }),
        Schema.Struct({ type: Schema.String, other: Schema.Boolean })
      )
      const guard = compile(schema, { onExcessProperty: "ignore" })
      assert.isTrue(guard({ type: "a", a: "x" }))
      assert.isTrue(guard({ type: "c", b: 1 }))
      assert.isTrue(guard({ type: "a", other: true }))
      assert.isFalse(guard({ type: "b", a: "x" }))
      assert.isFalse(guard({ a: "x" }))
    })

    it("rejects what the schema does not declare when excess keys are errors", () => {
      const schema = Schema.Struct({ a: Schema.String })
      const strict = compile(schema, { onExcessProperty: "error" })
      const lenient = compile(schema, { onExcessProperty: "ignore" })
      assert.isFalse(strict({ a: "x", b: 1 }))
      assert.isTrue(lenient({ a: "x", b: 1 }))
      // the keys JSON has are seen: a symbol key is not (documented in guard.ts)
      assert.isTrue(strict({ a: "x", [Symbol("s")]: 1 }))
    })

    it("leaves a declared key that is no own enumerable key to the Schema", () => {
      const guard = compile(Schema.Struct({ a: Schema.optional(Schema.String) }), { onExcessProperty: "ignore" })
      assert.isFalse(guard(Object.defineProperty({}, "a", { value: "x", enumerable: false })))
      assert.isFalse(guard(Object.create({ a: "inherited" })))
      assert.isTrue(guard({}))
    })

    it("holds input to the depth limit, ignored keys included, so a cycle fails", () => {
      const guard = compile(Schema.Struct({ a: Schema.String }), { onExcessProperty: "ignore" })
      let deep: unknown = []
      for (let i = 0; i < Plain.maxDepth + 1; i++) deep = [deep]
      assert.isFalse(guard({ a: "x", ignored: deep }))
      const cycle: Record<string, unknown> = { a: "x" }
      cycle["self"] = cycle
      assert.isFalse(guard(cycle))
    })

    it("honours a schema's own parseOptions, and relax removes them", () => {
      const schema = Schema.Struct({ a: Schema.String }).annotations({ parseOptions: { onExcessProperty: "error" } })
      assert.isFalse(compile(schema, { onExcessProperty: "ignore" })({ a: "x", b: 1 }))
      assert.isTrue(compile(Guard.relax(schema), { onExcessProperty: "ignore" })({ a: "x", b: 1 }))
    })

    it("refuses, when compiled, a schema it cannot judge", () => {
      assert.throws(() => compile(Schema.NumberFromString, { onExcessProperty: "ignore" }))
    })

    it("leaves to the Schema a hidden key among many absent optional ones", () => {
      const schema = Schema.Struct({
        a: Schema.String,
        b: Schema.optional(Schema.String),
        c: Schema.optional(Schema.String),
        d: Schema.optional(Schema.String),
        e: Schema.optional(Schema.String),
        f: Schema.optional(Schema.String)
      })
      const guard = compile(schema, { onExcessProperty: "ignore" })
      assert.isTrue(guard({ a: "x" }))
      assert.isTrue(guard(JSON.parse(`{"e":"y","a":"x","extra":[1]}`)))
      assert.isFalse(guard(Object.defineProperty({ a: "x" }, "d", { value: 5, enumerable: false })))
    })

    it("follows a recursive schema, and refuses one that never closes", () => {
      interface Tree {
        readonly value: number
        readonly children: ReadonlyArray<Tree>
      }
      const Tree: Schema.Schema<Tree> = Schema.Struct({
        value: Schema.Number,
        children: Schema.Array(Schema.suspend((): Schema.Schema<Tree> => Tree))
      })
      const guard = compile(Tree, { onExcessProperty: "error" })
      assert.isTrue(guard({ value: 1, children: [{ value: 2, children: [] }] }))
      assert.isFalse(guard({ value: 1, children: [{ value: "2", children: [] }] }))
      // a new node on every call of the suspended function
      const open = (): Schema.Schema<Tree> =>
        Schema.Struct({ value: Schema.Number, children: Schema.Array(Schema.suspend(open)) })
      assert.throws(() => compile(open(), { onExcessProperty: "error" }))
    })
  })
}

describe("the canonical schemas reject unknown keys themselves", () => {
  it("Schema.decodeUnknownEither(Block.Block) agrees with Conversation.decode", () => {
    const block = { type: "text", text: "hi", extra: 1 }
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Block.Block)(block)))
    assert.isTrue(Either.isLeft(Conversation.decode([{ role: "user", blocks: [block] }])))
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Message.Message)({ role: "user", blocks: [], x: 1 })))
  })
})

describe("__proto__ is an own data key on every canonical decode surface", () => {
  const input = JSON.parse(
    `[{"role":"assistant","blocks":[{"type":"tool_call","id":"t","name":"f","input":{"__proto__":{"polluted":true},"a":1},"detail":{"__proto__":1}}]}]`
  )
  for (
    const [name, decode] of [["decode", Conversation.decode], [
      "decodeLenient",
      (u: unknown) => Either.map(Conversation.decodeLenient(u), (r) => r.conversation)
    ]] as const
  ) {
    it(name, () => {
      const conversation = Either.getOrThrow(decode(input))
      const block = conversation[0]!.blocks[0] as Block.ToolCallBlock
      assert.deepStrictEqual(Object.keys(block.input), ["__proto__", "a"])
      assert.strictEqual(Object.getPrototypeOf(block.input), Object.prototype)
      assert.strictEqual(JSON.stringify(block.input), `{"__proto__":{"polluted":true},"a":1}`)
      assert.strictEqual(JSON.stringify(block.detail), `{"__proto__":1}`)
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
      assert.strictEqual(
        JSON.stringify(Conversation.encode(conversation)),
        JSON.stringify(Conversation.encode(
          Either.getOrThrow(Conversation.decode(JSON.parse(JSON.stringify(Conversation.encode(conversation)))))
        ))
      )
    })
  }
})

describe("a decoded tool input is a copy: the conversation shares no mutable object with the input", () => {
  const input = { q: "x", nested: { tags: ["a", { deep: [1, 2] }], none: null }, list: [[1], { n: 2 }] }
  const wire: ReadonlyArray<
    readonly [
      string,
      (input: Json.JsonObject) => unknown,
      (u: unknown) => Either.Either<Conversation.Conversation, unknown>
    ]
  > = [
    [
      "canonical",
      (i) => [{ role: "assistant", blocks: [{ type: "tool_call", id: "t", name: "f", input: i }] }],
      Conversation.decode
    ],
    [
      "anthropic",
      (i) => ({ messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: i }] }] }),
      AnthropicFormat.decode
    ],
    [
      "google",
      (i) => ({ contents: [{ role: "model", parts: [{ functionCall: { id: "t", name: "f", args: i } }] }] }),
      GoogleFormat.decode
    ],
    [
      "openai (arguments as an object)",
      (
        i
      ) => [{ role: "assistant", tool_calls: [{ id: "t", type: "function", function: { name: "f", arguments: i } }] }],
      OpenAiFormat.decode
    ]
  ]
  // every object and array inside `value`, with its path
  const containers = (value: unknown, path = "$"): Array<readonly [string, object]> =>
    typeof value !== "object" || value === null
      ? []
      : [[path, value], ...Object.entries(value).flatMap(([k, v]) => containers(v, `${path}.${k}`))]
  for (const [name, make, decode] of wire) {
    it(name, () => {
      const source = structuredClone(input)
      const conversation = Either.getOrThrow(decode(make(source)))
      const block = conversation[0]!.blocks.find((b) => b.type === "tool_call") as Block.ToolCallBlock
      assert.deepStrictEqual(block.input, input)
      const theirs = new Map(containers(source))
      for (const [path, ours] of containers(block.input)) assert.notStrictEqual(ours, theirs.get(path), path)
    })
  }
})

describe("copying JSON", () => {
  it("copies own keys only, whatever an enumerable key on Object.prototype says", () => {
    const proto = Object.prototype as Record<string, unknown>
    proto["polluted"] = { evil: true }
    try {
      const copy = Guard.copyJson(JSON.parse(`{"a":{"b":[{"c":1}]},"__proto__":{"d":2}}`)) as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(copy), ["a", "__proto__"])
      assert.isFalse(Object.prototype.hasOwnProperty.call(copy, "polluted"))
      assert.isFalse(Object.prototype.hasOwnProperty.call(copy["a"] as Record<string, unknown>, "polluted"))
      assert.strictEqual(Object.getPrototypeOf(copy), Object.prototype)
      assert.strictEqual(JSON.stringify(copy), `{"a":{"b":[{"c":1}]},"__proto__":{"d":2}}`)
    } finally {
      delete proto["polluted"]
    }
  })

  it("makes plain arrays and objects, whatever the input's were made by", () => {
    class Items extends Array<Json.JsonValue> {}
    const items = Items.from([1, { a: 2 }])
    const copy = Guard.copyJson({ items, nothing: Object.assign(Object.create(null), { b: 3 }) }) as {
      readonly items: ReadonlyArray<Json.JsonValue>
      readonly nothing: Json.JsonObject
    }
    assert.strictEqual(Object.getPrototypeOf(copy.items), Array.prototype)
    assert.strictEqual(Object.getPrototypeOf(copy.nothing), Object.prototype)
    assert.deepStrictEqual(JSON.parse(JSON.stringify(copy)), { items: [1, { a: 2 }], nothing: { b: 3 } })
  })
})
