/**
 * Decoding never throws, whatever the input: not only what `JSON.parse` makes, but what a caller can
 * hand over directly (BigInts, null-prototype objects where strings belong, throwing getters,
 * revoked proxies, cycles). Such input is a `MalformedInput`, never an exception.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"
import * as Conversation from "openreward-effect/Conversation"
import * as ConversionError from "openreward-effect/ConversionError"
import * as Format from "openreward-effect/Format"
import * as GoogleFormat from "openreward-effect/GoogleFormat"
import * as Prompt from "openreward-effect/Prompt"
import * as Protocol from "openreward-effect/Protocol"
import * as Provider from "openreward-effect/Provider"
import * as ToolFormat from "openreward-effect/ToolFormat"

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

/**
 * `JSON.parse('{"__proto__": ...}')` makes an own data key named `__proto__`, and the reference SDK
 * keeps it. Every decode surface keeps it as an own data key of what it returns, never as a
 * prototype, and changes no prototype.
 */
describe("a key named __proto__ stays an own data key", () => {
  const payload = "{\"__proto__\":{\"polluted\":true},\"a\":1}"
  const arguments_ = JSON.stringify(payload)

  /** The own `__proto__` keys of every object in `value`, at their paths; and no object with another prototype. */
  const protoKeys = (value: unknown, path = "$"): Array<string> => {
    if (Array.isArray(value)) return value.flatMap((item, i) => protoKeys(item, `${path}[${i}]`))
    if (typeof value !== "object" || value === null) return []
    assert.strictEqual(Object.getPrototypeOf(value), Object.prototype, `the prototype of ${path}`)
    return Object.keys(value).flatMap((
      key
    ) => [
      ...(key === "__proto__" ? [path] : []),
      ...protoKeys((value as Record<string, unknown>)[key], `${path}.${key}`)
    ])
  }

  const surfaces: ReadonlyArray<readonly [string, () => Either.Either<unknown, unknown>, number]> = [
    [
      "Conversation.decode (tool-call input, block and message detail)",
      () =>
        Conversation.decode(JSON.parse(
          `[{"role":"assistant","detail":${payload},"blocks":[{"type":"tool_call","id":"c","name":"f","input":${payload},"detail":${payload}}]},` +
            `{"role":"user","blocks":[{"type":"tool_result","tool_call_id":"c","is_error":false,"detail":${payload},` +
            `"blocks":[{"type":"text","text":"x","detail":${payload}}]}]}]`
        )),
      5
    ],
    [
      "Conversation.decodeLenient",
      () =>
        Conversation.decodeLenient(
          JSON.parse(`[{"role":"user","blocks":[{"type":"text","text":"x","detail":${payload}}]}]`)
        ),
      1
    ],
    ["Prompt.decode", () => Prompt.decode(JSON.parse(`[{"type":"text","text":"x","detail":${payload}}]`)), 1],
    [
      "Prompt.decodeLenient",
      () =>
        Prompt.decodeLenient(JSON.parse(`[{"type":"image","data":"AA==","mimeType":"image/png","detail":${payload}}]`)),
      1
    ],
    [
      "anthropic",
      () =>
        Format.decode(
          "anthropic",
          JSON.parse(
            `{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"f","input":${payload}}]}]}`
          )
        ),
      1
    ],
    [
      "google",
      () =>
        Format.decode(
          "google",
          JSON.parse(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":${payload}}}]}]}`)
        ),
      1
    ],
    ...(["openai", "openrouter"] as const).map((format) =>
      [
        format,
        () =>
          Format.decode(
            format,
            JSON.parse(
              `[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":${arguments_}}}]}]`
            )
          ),
        1
      ] as const
    ),
    [
      "openai-responses",
      () =>
        Format.decode(
          "openai-responses",
          JSON.parse(`[{"type":"function_call","call_id":"c","name":"f","arguments":${arguments_}}]`)
        ),
      1
    ],
    [
      "AnthropicFormat.decodeResponse",
      () =>
        AnthropicFormat.decodeResponse(JSON.parse(
          `{"id":"m","type":"message","role":"assistant","model":"x","content":[{"type":"tool_use","id":"c","name":"f","input":${payload}}],` +
            `"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}`
        )),
      1
    ],
    [
      "GoogleFormat.decodeResponse",
      () =>
        GoogleFormat.decodeResponse(JSON.parse(
          `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":${payload}}}]},"finishReason":"STOP"}]}`
        )),
      1
    ],
    [
      "ToolFormat.decode (a tool schema)",
      () =>
        ToolFormat.decode(
          JSON.parse(
            `{"tools":[{"name":"f","description":"d","input_schema":{"type":"object","properties":${payload}}}]}`
          )
        ),
      1
    ],
    [
      "the server's reading of /call (Protocol.ToolCall)",
      () => Schema.decodeUnknownEither(Protocol.ToolCall)(JSON.parse(`{"name":"f","input":${payload},"task_id":null}`)),
      1
    ],
    [
      "the client's reading of /tools (Protocol.ListToolsOutput)",
      () =>
        Schema.decodeUnknownEither(Protocol.ListToolsOutput)(JSON.parse(
          `{"tools":[{"name":"f","description":"d","input_schema":${payload}}],"terminal_tool":null}`
        )),
      1
    ]
  ]

  for (const [name, decode, count] of surfaces) {
    it(name, () => {
      const result = decode()
      assert.isTrue(Either.isRight(result), name)
      if (Either.isRight(result)) {
        assert.lengthOf(protoKeys(result.right), count)
        assert.include(JSON.stringify(result.right), "\"__proto__\":{\"polluted\":true}")
      }
      assert.isUndefined(({} as Record<string, unknown>)["polluted"])
      assert.isFalse(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted"))
    })
  }
})
