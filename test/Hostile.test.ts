/**
 * Decoding never throws, whatever the input: not only what `JSON.parse` makes, but what a caller can
 * hand over directly (BigInts, null-prototype objects where strings belong, throwing getters,
 * revoked proxies, cycles). Such input is a `MalformedInput`, never an exception.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "fast-check"
import * as Conversation from "openreward-effect/Conversation"
import * as ConversionError from "openreward-effect/ConversionError"
import * as Format from "openreward-effect/Format"
import * as Prompt from "openreward-effect/Prompt"
import * as Provider from "openreward-effect/Provider"

const throwingGetter = () =>
  Object.defineProperty({}, "role", {
    enumerable: true,
    get: () => {
      throw new Error("getter")
    }
  })
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}
const cyclic = () => {
  const o: Record<string, unknown> = { role: "user" }
  o["content"] = [o]
  return o
}

// The arbitraries yield thunks: fast-check itself cannot hold some of these values (it probes them
// for a clone method, which a revoked proxy refuses), so they are made inside the property.

/** Values that no JSON parser makes and that a careless decoder trips over. */
const hostile = fc.constantFrom<() => unknown>(
  () => Object.create(null),
  () => 10n,
  () => Symbol("s"),
  throwingGetter,
  revoked,
  cyclic,
  () => new Date(Number.NaN),
  () => () => "a function"
)

/** Every slot that decoders read: roles, block types, text, ids, arguments, whole messages. */
const slots = ["role", "type", "content", "text", "parts", "id", "name", "arguments", "input", "messages", "contents"]

/** A plausible transcript of any of the formats with one hostile value planted somewhere in it. */
const planted = fc.tuple(
  fc.constantFrom(
    () => [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    () => ({ messages: [{ role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }] }),
    () => [{
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }]
    }],
    () => ({ contents: [{ role: "model", parts: [{ functionCall: { name: "f", args: {} } }] }] }),
    () => [{ role: "user", blocks: [{ type: "text", text: "hi", detail: null }] }]
  ),
  fc.constantFrom(...slots),
  hostile
).map(([make, slot, value]) => () => {
  const input = make()
  // plant at every depth where the slot exists, and at the top
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit)
    else if (typeof node === "object" && node !== null) {
      const record = node as Record<string, unknown>
      for (const key of Object.keys(record)) {
        if (key === slot) record[key] = value()
        else visit(record[key])
      }
    }
  }
  visit(input)
  return input
})

const decoders: ReadonlyArray<readonly [string, (input: unknown) => Either.Either<unknown, unknown>]> = [
  ...Provider.all.map((p) => [p, (input: unknown) => Format.decode(p, input)] as const),
  ["Conversation.decode", Conversation.decode],
  ["Conversation.decodeLenient", Conversation.decodeLenient],
  ["Conversation.decodeMessage", (input: unknown) => Conversation.decodeMessage(input)],
  ["Prompt.decode", Prompt.decode],
  ["Prompt.decodeLenient", Prompt.decodeLenient]
]

describe("decoding hostile input", () => {
  for (const [name, decode] of decoders) {
    const inputs = fc.oneof(planted, hostile, fc.anything().map((value) => () => value))
    it.prop(`${name} never throws`, [inputs], ([make]) => {
      const result = decode(make())
      if (Either.isLeft(result)) assert.isTrue(ConversionError.isConversionError(result.left))
    })

    it(`${name}: a null-prototype role or type is MalformedInput, with what went wrong`, () => {
      const result = decode([{ role: Object.create(null), type: Object.create(null), content: "x", blocks: [] }])
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result)) {
        assert.strictEqual((result.left as ConversionError.ConversionError)._tag, "MalformedInput")
      }
    })
  }

  it("what a decoder could not read is reported at the root, quoting what was thrown", () => {
    const result = Format.decode("anthropic", [throwingGetter()])
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) {
      assert.strictEqual(result.left._tag, "MalformedInput")
      assert.deepStrictEqual("path" in result.left ? result.left.path : undefined, [])
      assert.strictEqual(result.left.reason, "the input could not be read: getter")
    }
  })
})
