/**
 * The Chat Completions codecs (`openai`, `openrouter`) take shortcuts for speed (docs/performance.md,
 * "Where the time goes", §1 and §4): encode checks block placement only once encoding has failed,
 * and decode first tries a plain walk of the input, which gives up on anything unexpected. These
 * tests hold each shortcut to what the straightforward way gives, errors included.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { Block, Conversation, ConversionError } from "openreward-effect"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import * as OpenRouterFormat from "openreward-effect/OpenRouterFormat"
import * as Chat from "../src/internal/openAiChat.js"
import { chatLike } from "./utils/openAiChat.js"

const encodeError = Schema.encodeSync(ConversionError.ConversionError)

const assertSameError = (actual: ConversionError.ConversionError, expected: ConversionError.ConversionError) => {
  assert.deepStrictEqual(encodeError(actual), encodeError(expected))
  assert.strictEqual(actual.message, expected.message)
}

// Any block in any role: misplaced blocks, images in tool results and valid messages mixed.
const anyPlacement = fc.array(
  fc.record({
    role: fc.constantFrom("system", "user", "assistant"),
    blocks: fc.array(Arbitrary.make(Block.Block), { maxLength: 4 }),
    detail: fc.constant(null)
  }),
  { maxLength: 5 }
).map((messages) => messages as unknown as Conversation.Conversation)

const encodeOptions = fc.record({
  reasoningField: fc.constantFrom("reasoning_content" as const, "reasoning" as const, "omit" as const),
  reasoningOnToolCalls: fc.boolean(),
  toolResultImages: fc.constantFrom("error" as const, "user-message" as const, "tool-message" as const),
  toolArguments: fc.constantFrom("python" as const, "json" as const)
}, { requiredKeys: [] })

describe("Chat Completions encode: placement checked only when encoding fails", () => {
  it.prop(
    "reports what checking placement first reports, whatever else fails",
    [anyPlacement, encodeOptions, fc.boolean()],
    ([conversation, options, openRouter]) => {
      const result = openRouter
        ? OpenRouterFormat.encode(conversation, options)
        : OpenAiFormat.encode(conversation, {
          ...options,
          toolResultImages: options.toolResultImages === "tool-message" ? "error" : options.toolResultImages
        })
      const placed = Conversation.validate(conversation)
      if (Either.isLeft(placed)) {
        assert.isTrue(Either.isLeft(result))
        if (Either.isLeft(result)) assertSameError(result.left, placed.left)
      } else if (Either.isLeft(result)) {
        assert.strictEqual(result.left._tag, "UnsupportedBlock")
      }
    },
    { fastCheck: { numRuns: 500 } }
  )
})

// -----------------------------------------------------------------------------
// decode: the plain walk against the Schema decode
// -----------------------------------------------------------------------------

const formats = ["openai", "openrouter"] as const

const decodeOptions = fc.record({ encryptedReasoning: fc.constantFrom("error" as const, "drop" as const) }, {
  requiredKeys: []
})

const attempt = <A>(f: () => A): { readonly value: A } | { readonly thrown: unknown } => {
  try {
    return { value: f() }
  } catch (thrown) {
    return { thrown }
  }
}

/**
 * `decode` (the plain walk, then the Schema decode when it gives up) gives what the Schema decode
 * alone gives. (The Schema decode itself throws on a discriminator, `role` or `type`, that cannot be
 * converted to a string, such as an object with a null prototype; `decode` then answers the
 * `MalformedInput` of `wireInput.total` that quotes that exception.)
 */
const assertSameDecode = (input: unknown, options: Chat.DecodeOptions = {}) => {
  for (const format of formats) {
    const reference = attempt(() => Chat.decodeWithSchema(format, input, options))
    const result = attempt(() => Chat.decode(format, input, options))
    if ("thrown" in result) return assert.fail(`decode threw ${String(result.thrown)}`)
    const actual = result.value
    if ("thrown" in reference) {
      assert.isTrue(Either.isLeft(actual))
      if (Either.isLeft(actual)) {
        assert.strictEqual(actual.left.reason, `the input could not be read: ${(reference.thrown as Error).message}`)
      }
      return
    }
    const expected = reference.value
    if (Either.isRight(expected)) {
      if (Either.isLeft(actual)) return assert.fail(`expected a Right, got ${String(actual.left)}`)
      assert.deepStrictEqual(actual.right, expected.right)
      assert.strictEqual(JSON.stringify(actual.right), JSON.stringify(expected.right))
    } else {
      if (Either.isRight(actual)) return assert.fail(`expected ${String(expected.left)}, got a Right`)
      assertSameError(actual.left, expected.left)
    }
  }
}

/** The walk succeeds on `messages`, with what the Schema decode gives. */
const assertWalked = (messages: ReadonlyArray<unknown>, options: Chat.DecodeOptions = {}) => {
  const walked = Chat.walkMessages(messages, options)
  assert.isDefined(walked, "the plain walk gave up")
  assert.deepStrictEqual(walked, Either.getOrThrow(Chat.decodeWithSchema("openai", messages, options)))
}

/** The walk gives up on `messages`, and decode gives what the Schema decode gives. */
const assertGivesUp = (messages: ReadonlyArray<unknown>, options: Chat.DecodeOptions = {}) => {
  assert.isUndefined(Chat.walkMessages(messages, options))
  assertSameDecode(messages, options)
}

const jsonCopy = <A>(a: A): A => JSON.parse(JSON.stringify(a))

/** Valid wire input: encoded conversations, as JSON, with every encode option. */
const validWire = fc.tuple(Arbitrary.make(Conversation.Conversation), encodeOptions).map(([conversation, options]) => {
  const encoded = OpenRouterFormat.encode(conversation, options)
  return Either.isRight(encoded) ? jsonCopy(encoded.right) as Array<unknown> : []
})

/** What decode accepts beyond encode's output: developer messages, details, refusals, argument objects. */
const richWire: ReadonlyArray<unknown> = [
  { role: "developer", content: [{ type: "text", text: "be brief" }], name: "ops" },
  { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
  {
    role: "assistant",
    content: [{ type: "refusal", refusal: "no" }, { type: "text", text: "ok", annotations: [] }],
    refusal: "nope",
    reasoning_content: null,
    reasoning: "r",
    reasoning_details: [
      { type: "reasoning.text", text: "t", signature: "s", format: "anthropic-claude-v1", index: 0 },
      { type: "reasoning.summary", summary: "sum" },
      { type: "reasoning.text" },
      { type: "reasoning.text", text: null, signature: null }
    ],
    tool_calls: [
      // an own "__proto__" key, as JSON.parse makes it (in an object literal it would set the prototype)
      {
        id: "a",
        function: {
          name: "f",
          arguments: JSON.parse("{\"x\": [1, {\"y\": null}], \"__proto__\": {\"z\": 1}, \"1\": -0}")
        }
      },
      { id: "b", type: "function", function: { name: "g", arguments: "{\"__proto__\": [1e300, -0.0, \"é\"]}" } },
      { id: "c", type: "function", function: { name: "h", arguments: "" }, index: 2 }
    ],
    function_call: null,
    audio: null,
    annotations: [{ type: "url_citation", url_citation: { url: "https://x.test" } }]
  },
  { role: "tool", tool_call_id: "a", content: "A" },
  {
    role: "tool",
    tool_call_id: "b",
    content: [{ type: "image_url", image_url: { url: "DATA:a/b;BASE64,AA", detail: "low" } }]
  },
  { role: "user", content: "next" },
  { role: "assistant", reasoning_content: "same", reasoning: "same", function_call: undefined, audio: undefined },
  {
    role: "assistant",
    content: null,
    reasoning_details: [{ type: "reasoning.encrypted", data: "xx" }],
    reasoning: "kept"
  },
  { role: "tool", tool_call_id: "c", content: [] }
]

/** Every place in a JSON-like value: its parent and key. */
const places = (root: unknown): Array<readonly [{ [key: string]: unknown }, string]> => {
  const out: Array<readonly [{ [key: string]: unknown }, string]> = []
  const visit = (value: unknown) => {
    if (typeof value !== "object" || value === null) return
    const record = value as { [key: string]: unknown }
    for (const key of Object.keys(record)) {
      out.push([record, key])
      visit(record[key])
    }
  }
  visit(root)
  return out
}

const nested = (depth: number, leaf: unknown = {}): unknown => {
  let value = leaf
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

// What a mutation puts somewhere: wrong JSON types, values JSON cannot hold, deep or cyclic values.
const replacement = fc.oneof(
  fc.anything({ withNullPrototype: true, withBoxedValues: true, withSparseArray: true, withObjectString: true }),
  fc.constantFrom<unknown>(
    undefined,
    null,
    NaN,
    -0,
    1e400,
    "",
    "text",
    "image_url",
    "function",
    "reasoning.encrypted",
    [],
    {},
    [undefined],
    Object.create(null),
    new Date(0)
  ),
  fc.integer({ min: 500, max: 515 }).map((depth) => nested(depth))
)

const mutation = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom("replace", "delete", "extra key", "null prototype", "cycle"),
  key: fc.constantFrom("content", "type", "text", "arguments", "role", "name", "extra", "__proto__", "0"),
  value: replacement
})

/** `wire` with one place changed. */
const mutate = (wire: ReadonlyArray<unknown>, m: typeof mutation extends fc.Arbitrary<infer M> ? M : never) => {
  const copy = jsonCopy(wire) as Array<unknown>
  const all = places(copy)
  if (all.length === 0) return copy
  const [parent, key] = all[m.at % all.length]!
  switch (m.kind) {
    case "replace":
      parent[key] = m.value
      break
    case "delete":
      delete parent[key]
      break
    case "extra key": {
      const target = parent[key]
      if (typeof target === "object" && target !== null) (target as { [key: string]: unknown })[m.key] = m.value
      break
    }
    case "null prototype": {
      const target = parent[key]
      if (typeof target === "object" && target !== null && !Array.isArray(target)) {
        parent[key] = Object.assign(Object.create(null), target)
      }
      break
    }
    case "cycle": {
      const target = parent[key]
      if (typeof target === "object" && target !== null) (target as { [key: string]: unknown })[m.key] = parent
      break
    }
  }
  return copy
}

describe("Chat Completions decode: the plain walk gives what the Schema decode gives", () => {
  it.prop("walks valid input, every encode option", [validWire], ([wire]) => assertWalked(wire), {
    fastCheck: { numRuns: 300 }
  })

  it("walks what decode reads beyond encode's output", () => {
    assertWalked(richWire, { encryptedReasoning: "drop" })
    assertGivesUp(richWire, { encryptedReasoning: "error" })
    assertSameDecode({ model: "m", messages: richWire, tools: [nested(600)] }, { encryptedReasoning: "drop" })
  })

  it.prop(
    "any one change to valid input: the same conversation or the same error",
    [fc.oneof(validWire, fc.constant(richWire)), mutation, decodeOptions],
    ([wire, m, options]) => assertSameDecode(mutate(wire, m), options),
    { fastCheck: { numRuns: 3000 } }
  )

  it.prop(
    "chat-like and arbitrary input: the same conversation or the same error",
    [
      fc.oneof(
        chatLike(fc),
        fc.anything({ withNullPrototype: true, withSparseArray: true }),
        fc.array(fc.anything({ withNullPrototype: true, withBoxedValues: true }))
      ),
      decodeOptions
    ],
    ([input, options]) => assertSameDecode(input, options),
    { fastCheck: { numRuns: 1000 } }
  )

  it("gives up on values nested too deeply or cyclic, read or ignored, at the limit's edge", () => {
    const message = (extra: unknown) => ({ role: "user", content: "x", extra })
    // the message list is level 0, a message level 1, its keys' values level 2
    assertWalked([message(nested(510))])
    assertGivesUp([message(nested(511))])
    const cyclic: { [key: string]: unknown } = { role: "user", content: "x" }
    cyclic["self"] = cyclic
    assertGivesUp([cyclic])
    const call = (args: unknown) => ({
      role: "assistant",
      tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: args } }]
    })
    // arguments objects sit at level 5; parsed arguments are counted from their own root
    assertWalked([call({ a: nested(506) })])
    assertGivesUp([call({ a: nested(507) })])
    assertWalked([call(JSON.stringify({ a: nested(511) }))])
    assertGivesUp([call(JSON.stringify({ a: nested(512) }))])
    assertGivesUp([call(`{"a": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`)])
    assertGivesUp([message(nested(100_000))])
    const args: { [key: string]: unknown } = { a: 1 }
    args["self"] = args
    assertGivesUp([call(args)])
  })

  it("leaves a large shared value in an ignored key to the depth check, and agrees with it", () => {
    // 2^40 paths as a tree, 41 objects as a graph
    let shared: unknown = {}
    for (let i = 0; i < 40; i++) shared = [shared, shared]
    assertGivesUp([{ role: "user", content: "x", extra: shared }])
  })

  it("gives up on objects that are not plain, and on optional keys present as undefined", () => {
    class Part {
      readonly type = "text"
      readonly text = "x"
    }
    assertGivesUp([{ role: "user", content: [new Part()] }])
    const inherited = Object.create({ content: "inherited" })
    inherited.role = "assistant"
    assertGivesUp([inherited])
    assertWalked([Object.assign(Object.create(null), { role: "user", content: "x" })])
    for (const key of ["content", "refusal", "reasoning", "reasoning_content", "reasoning_details", "tool_calls"]) {
      assertGivesUp([{ role: "assistant", [key]: undefined }])
    }
    assertGivesUp([{
      role: "assistant",
      tool_calls: [{ id: "a", type: undefined, function: { name: "f", arguments: "" } }]
    }])
    assertGivesUp([{ role: "assistant", reasoning_details: [{ type: "reasoning.text", text: undefined }] }])
    assertGivesUp([{ role: "user", content: [{ type: "text", text: "x" }, , { type: "text", text: "y" }] }])
    assertGivesUp([{ role: "assistant", tool_calls: [{ id: "a", function: { name: "f", arguments: { n: NaN } } }] }])
    assertGivesUp([{
      role: "assistant",
      tool_calls: [{ id: "a", function: { name: "f", arguments: "{\"n\": 1e999}" } }]
    }])
    assertGivesUp([{ role: "assistant", tool_calls: [{ id: "a", function: { name: "f", arguments: [] } }] }])
  })
})
