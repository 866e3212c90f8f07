/**
 * The Google codec's single-pass encoder and fast decode walk (docs/performance.md, sections 1 and
 * 3) against what they replace: the encoder's errors against the reference's order of checks, and
 * the fast decode walk against the Schema decoding it falls back to.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { Block, Conversation } from "openreward-effect"
import * as GoogleFormat from "openreward-effect/GoogleFormat"
import * as SchemaPath from "openreward-effect/internal/googleDecode"
import * as FastPath from "openreward-effect/internal/googleDecodeFast"
import * as Generate from "../bench/internal/generate.js"

// -----------------------------------------------------------------------------
// encode: error precedence
// -----------------------------------------------------------------------------

type Options = GoogleFormat.EncodeOptions

const left = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) return assert.fail(`expected a Left, got ${JSON.stringify(result.right)}`)
  return result.left
}

interface Located {
  readonly _tag: string
  readonly path: ReadonlyArray<string | number>
}

/**
 * The error the reference raises, checked in its order (and in the order of the encoder before the
 * single pass): placement anywhere, then system messages in order, then the other blocks in order.
 */
const referenceError = (conversation: Conversation.Conversation, options: Options): Located | undefined => {
  const placed = Conversation.validate(conversation)
  if (Either.isLeft(placed)) return placed.left
  const names = new Set<string>()
  for (const message of conversation) {
    for (const block of message.blocks as ReadonlyArray<Block.Block>) {
      if (block.type === "tool_call") names.add(block.id)
    }
  }
  const rest: Array<number> = []
  for (let i = 0; i < conversation.length; i++) {
    const message = conversation[i]!
    if (message.role !== "system" || (rest.length > 0 && options.laterSystem === "user")) {
      rest.push(i)
      continue
    }
    if (rest.length > 0) return { _tag: "UnsupportedMessage", path: [i] }
    const j = message.blocks.findIndex((block) => block.type !== "text")
    if (j !== -1) return { _tag: "UnsupportedBlock", path: [i, "blocks", j] }
  }
  for (const i of rest) {
    const blocks = conversation[i]!.blocks as ReadonlyArray<Block.Block>
    for (let j = 0; j < blocks.length; j++) {
      const block = blocks[j]!
      if (block.type === "reasoning" && options.reasoning !== "thought") {
        return { _tag: "UnsupportedBlock", path: [i, "blocks", j] }
      }
      if (block.type === "tool_result") {
        if (!names.has(block.tool_call_id)) return { _tag: "UnmatchedToolResult", path: [i, "blocks", j] }
        const k = block.blocks.findIndex((inner) => inner.type !== "text")
        if (k !== -1) return { _tag: "UnsupportedBlock", path: [i, "blocks", j, "blocks", k] }
      }
    }
  }
  return undefined
}

const text = FastCheck.constantFrom("", "a", "b").map((t) => Block.text(t))
const image = FastCheck.constant(Block.image("AA==", "image/png"))
const block: FastCheck.Arbitrary<Block.Block> = FastCheck.oneof(
  text,
  image,
  FastCheck.record({ text: FastCheck.constantFrom("", "r"), signature: FastCheck.constantFrom(null, "sig") })
    .map(({ signature, text }) => Block.reasoning(text, { signature })),
  FastCheck.record({ id: FastCheck.constantFrom("a", "b"), name: FastCheck.constantFrom("f", "g") })
    .map(({ id, name }) => Block.toolCall(id, name, { x: 1 })),
  FastCheck.record({
    id: FastCheck.constantFrom("a", "b", "z"),
    blocks: FastCheck.array(FastCheck.oneof(text, text, image), { maxLength: 2 }),
    isError: FastCheck.boolean()
  }).map(({ blocks, id, isError }) => Block.toolResult(id, blocks, { isError }))
)

/** Any blocks in any role, placement unchecked (a conversation built with a cast). */
const unchecked: FastCheck.Arbitrary<Conversation.Conversation> = FastCheck.array(
  FastCheck.record({
    role: FastCheck.constantFrom("system", "user", "assistant"),
    blocks: FastCheck.array(block, { maxLength: 4 })
  }).map(({ blocks, role }) => ({ role, blocks, detail: null })),
  { maxLength: 6 }
) as unknown as FastCheck.Arbitrary<Conversation.Conversation>

const options: FastCheck.Arbitrary<Options> = FastCheck.record({
  casing: FastCheck.constantFrom("snake" as const, "camel" as const),
  reasoning: FastCheck.constantFrom("error" as const, "thought" as const),
  laterSystem: FastCheck.constantFrom("error" as const, "user" as const)
})

describe("GoogleFormat.encode in one pass", () => {
  it.prop(
    "reports the error the reference raises first, and succeeds when it raises none",
    [unchecked, options],
    ([conversation, options]) => {
      const expected = referenceError(conversation, options)
      const result = GoogleFormat.encode(conversation, options)
      if (expected === undefined) {
        assert.isTrue(Either.isRight(result), Either.isLeft(result) ? result.left.message : "")
      } else {
        const error = left(result)
        assert.deepStrictEqual([error._tag, error.path], [expected._tag, expected.path])
        if (expected._tag === "MisplacedBlock") assert.deepStrictEqual(error, expected)
      }
    },
    { fastCheck: { numRuns: 2000 } }
  )

  it("a block of no known type (a cast) is a MisplacedBlock, not an exception", () => {
    const conversation = [
      { role: "user", blocks: [{ type: "video", detail: null }], detail: null }
    ] as unknown as Conversation.Conversation
    assert.strictEqual(left(GoogleFormat.encode(conversation))._tag, "MisplacedBlock")
  })
})

// -----------------------------------------------------------------------------
// decode: the fast walk against the Schema path
// -----------------------------------------------------------------------------

/** decode gives what the Schema path gives: the same conversation, or the same error. */
const sameAsSchema = (input: unknown) => {
  assert.deepStrictEqual(GoogleFormat.decode(input), SchemaPath.decodeWithSchema(input))
}

/** The fast walk takes this input, and gives what the Schema path gives. */
const takenFast = (input: unknown) => {
  const fast = FastPath.decode(input)
  assert.isDefined(fast, "the fast walk gave up")
  assert.deepStrictEqual(Either.right(fast), SchemaPath.decodeWithSchema(input))
  assert.strictEqual(JSON.stringify(fast), JSON.stringify(Either.getOrThrow(SchemaPath.decodeWithSchema(input))))
}

/** Valid transcripts touching every field the walk reads, in both spellings and every shape. */
const samples: ReadonlyArray<unknown> = [
  {
    system_instruction: "Be terse.",
    contents: [
      {
        role: "user",
        parts: [{ text: "hi" }, { inline_data: { mime_type: "image/png", data: "AA==" }, thought: false }]
      },
      {
        role: "model",
        parts: [
          { text: "think", thought: true, thought_signature: "s1" },
          { text: "plain thought", thought: true },
          { thought_signature: "s2" },
          { text: "answer", thought_signature: "s3", thought: false },
          { function_call: { name: "f", args: { a: [1, { b: null }, "c", true, -0.5], d: {} } } },
          { function_call: { name: "g", id: "g1", args: null } },
          { function_call: { name: "f" }, thought_signature: "s4", thought: false }
        ]
      },
      {
        role: "function",
        parts: [
          { function_response: { name: "f", response: { output: "ok" } } },
          { function_response: { name: "g", id: "g1", response: { error: "boom" } } },
          {
            function_response: {
              name: "f",
              response: { output: "partial", error: { code: 7 } },
              parts: [{ inline_data: { mime_type: "image/png", data: "AA==" } }]
            }
          }
        ]
      },
      { role: null, parts: null },
      { role: "model" }
    ],
    config: { temperature: 0 },
    generationConfig: { deep: { nested: [1, 2] } }
  },
  {
    systemInstruction: {
      role: "system",
      parts: [{ text: "A" }, { inlineData: { mimeType: "image/png", data: "B" }, thought: null }]
    },
    contents: [
      { role: "model", parts: [{ functionCall: { name: "f", id: "x", args: { q: "é\n" } }, thoughtSignature: "s" }] },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "f", id: "x", response: {}, parts: [] }, partMetadata: { a: [1] } },
          { functionResponse: { name: "f", id: "y", response: { result: 1 } } },
          { text: "", videoMetadata: null }
        ]
      },
      { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] }
    ]
  },
  {
    contents: [{ parts: [{ text: "x", thought: null, file_data: null, tool_call: undefined }] }],
    config: { system_instruction: { parts: null } },
    system_instruction: null
  },
  [
    { role: "model", parts: [{ functionCall: { name: "f", args: { n: 1 } } }, { functionCall: { name: "f" } }] },
    { role: "user", parts: [{ functionResponse: { name: "f", response: null } }] },
    { role: "user", parts: [{ functionResponse: { name: "f", response: { output: 1 } } }] }
  ],
  [],
  { contents: [] }
]

const isObject = (u: unknown): u is { [key: string]: unknown } => typeof u === "object" && u !== null

/** Every path to a value inside `value`, the root included. */
const pathsOf = (value: unknown, at: ReadonlyArray<string | number> = []): Array<ReadonlyArray<string | number>> => {
  const out: Array<ReadonlyArray<string | number>> = [at]
  if (isObject(value)) {
    for (const key of Object.keys(value)) {
      out.push(...pathsOf(value[key], [...at, Array.isArray(value) ? Number(key) : key]))
    }
  }
  return out
}

const copy = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

/** A copy of `root` with `change` applied to the object or value at `path`. */
const changed = (
  root: unknown,
  path: ReadonlyArray<string | number>,
  change: (value: unknown, parent: { [key: string]: unknown } | undefined, root: unknown) => unknown
): unknown => {
  const out = copy(root)
  if (path.length === 0) return change(out, undefined, out)
  let parent = out as { [key: string]: unknown }
  for (const key of path.slice(0, -1)) parent = parent[key] as { [key: string]: unknown }
  const last = path[path.length - 1]!
  parent[last] = change(parent[last], parent, out)
  return out
}

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { k: value }
  return value
}

const sparse = (): unknown => {
  const array: Array<unknown> = []
  array[1] = { text: "x" }
  return array
}

class Instance {
  text = "x"
  name = "f"
}

/** What each value in a sample is replaced with: wrong JSON types, non-JSON values, odd objects. */
const replacements = (root: unknown): ReadonlyArray<unknown> => [
  undefined,
  null,
  0,
  -0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  "",
  "model",
  "other",
  true,
  false,
  [],
  {},
  [{}],
  sparse(),
  Object.create(null),
  Object.assign(Object.create(null), { text: "x", name: "f", data: "AA==", mime_type: "image/png" }),
  new Instance(),
  new Date(0),
  JSON.parse("{\"__proto__\": {\"output\": \"x\"}}"),
  JSON.parse("{\"__proto__\": 1, \"output\": \"x\"}"),
  () => 1,
  Symbol("s"),
  10n,
  nested(600),
  root
]

const counterparts: { readonly [key: string]: string } = {
  inline_data: "inlineData",
  function_call: "functionCall",
  function_response: "functionResponse",
  thought_signature: "thoughtSignature",
  mime_type: "mimeType",
  system_instruction: "systemInstruction",
  file_data: "fileData"
}

/** Keys the walk reads somewhere, each added (set to `{}`) to every object of a sample. */
const meaningful = [
  "contents",
  "config",
  "systemInstruction",
  "role",
  "parts",
  "text",
  "thought",
  "thoughtSignature",
  "inline_data",
  "functionCall",
  "function_response",
  "file_data",
  "fileData",
  "executableCode",
  "code_execution_result",
  "toolCall",
  "tool_response",
  "data",
  "mimeType",
  "id",
  "name",
  "args",
  "response"
]

/** Every variant of a sample: each value replaced, each object given extra keys and other spellings. */
const variants = function*(sample: unknown): Generator<unknown> {
  for (const path of pathsOf(sample)) {
    for (const [i, _] of replacements(sample).entries()) {
      yield changed(sample, path, (_value, _parent, root) => replacements(root)[i])
    }
    yield changed(
      sample,
      path,
      (value) => isObject(value) && !Array.isArray(value) ? { ...value, extra: nested(600) } : value
    )
    yield changed(
      sample,
      path,
      (value, _parent, root) => isObject(value) ? Object.assign(value, { extra: root }) : value
    )
    yield changed(
      sample,
      path,
      (value) => isObject(value) && !Array.isArray(value) ? { ...value, extra: [1, { a: 2 }] } : value
    )
    for (const key of meaningful) {
      yield changed(sample, path, (value) => isObject(value) && !Array.isArray(value) ? { ...value, [key]: {} } : value)
    }
    yield changed(sample, path, (value) => {
      if (!isObject(value) || Array.isArray(value)) return value
      const out = { ...value }
      for (const [snake, camel] of Object.entries(counterparts)) {
        if (snake in out) out[camel] = out[snake]
        else if (camel in out) out[snake] = out[camel]
      }
      return out
    })
    yield changed(sample, path, (value) => {
      if (!isObject(value) || Array.isArray(value)) return value
      const out: { [key: string]: unknown } = {}
      for (const [key, v] of Object.entries(value)) out[counterparts[key] ?? key] = v
      return out
    })
    if (path.length > 0) {
      yield changed(sample, path.slice(0, -1), (parent) => {
        if (!isObject(parent)) return parent
        const out = Array.isArray(parent) ? [...parent] : { ...parent }
        delete (out as { [key: string]: unknown })[path[path.length - 1]!]
        return out
      })
    }
  }
}

describe("GoogleFormat.decode: the fast walk", () => {
  it("takes every valid sample, and gives what the Schema path gives", () => {
    for (const sample of samples) takenFast(sample)
  })

  it("copies function call args, as the Schema path does", () => {
    const args = { a: [1, { b: 2 }] }
    const decoded = Either.getOrThrow(
      GoogleFormat.decode([{ role: "model", parts: [{ functionCall: { name: "f", args } }] }])
    )
    const input = (decoded[0]!.blocks[0] as Block.ToolCallBlock).input
    assert.deepStrictEqual(input, args)
    assert.notStrictEqual(input, args)
    assert.notStrictEqual(input.a, args.a)
  })

  it("gives what the Schema path gives on every variant of the samples: wrong types at each level, odd objects, extra keys, cycles, both spellings", () => {
    let variantsSeen = 0
    for (const sample of samples) {
      for (const variant of variants(sample)) {
        sameAsSchema(variant)
        variantsSeen++
      }
    }
    assert.isAbove(variantsSeen, 5000)
  })

  it("meets the depth limit exactly where the depth guard does", () => {
    const at = (depth: number) => [
      // in call args, in a response, under an ignored key of a part, of a content and of a system part
      [{ role: "model", parts: [{ functionCall: { name: "f", args: { k: nested(depth) } } }] }],
      [{ role: "model", parts: [{ functionCall: { name: "f", args: { k: nested(depth - 1, {}) } } }] }],
      { contents: [{ role: "model", parts: [{ functionCall: { name: "f", args: { k: nested(depth) } } }] }] },
      [{ role: "model", parts: [{ functionCall: { name: "f" } }] }, {
        parts: [{ functionResponse: { name: "f", response: { k: nested(depth) } } }]
      }],
      [{ role: "model", parts: [{ functionCall: { name: "f" } }] }, {
        parts: [{ functionResponse: { name: "f", response: { k: nested(depth - 1, {}) } } }]
      }],
      [{ parts: [{ text: "x", extra: nested(depth) }] }],
      [{ parts: [{ text: "x" }], extra: nested(depth) }],
      [{ parts: [{ inlineData: { mimeType: "a", data: "b", extra: nested(depth) } }] }],
      {
        contents: [],
        config: { systemInstruction: { role: nested(depth), parts: [{ text: "x", extra: nested(depth) }] } }
      },
      { contents: [], systemInstruction: { parts: [{ text: "x", extra: nested(depth) }] } },
      { contents: [], systemInstruction: { parts: [{ text: "x", extra: nested(depth) }] }, config: {} }
    ]
    for (let depth = 500; depth <= 515; depth++) {
      for (const input of at(depth)) sameAsSchema(input)
    }
    // the limit is met somewhere in that range in each shape
    for (const input of at(500)) assert.isTrue(Either.isRight(GoogleFormat.decode(input)))
    for (const input of at(515)) assert.isTrue(Either.isLeft(GoogleFormat.decode(input)))
  })

  it("never throws on very deep or cyclic input", () => {
    const cyclic: { [key: string]: unknown } = { name: "f" }
    cyclic.args = cyclic
    sameAsSchema([{ role: "model", parts: [{ functionCall: cyclic }] }])
    sameAsSchema([{ role: "model", parts: [{ functionCall: { name: "f", args: { k: nested(100_000) } } }] }])
    sameAsSchema([{ parts: [{ text: "x", extra: nested(100_000) }] }])
  })

  it.prop(
    "takes what encode writes, with any options, and gives what the Schema path gives",
    [Arbitrary.make(Conversation.Conversation), options, FastCheck.boolean(), FastCheck.boolean()],
    ([conversation, options, toolCallIds, content]) => {
      const encoded = GoogleFormat.encode(conversation, {
        ...options,
        toolCallIds,
        systemInstruction: content ? "content" : "string",
        toolErrors: toolCallIds ? "error" : "output"
      })
      if (Either.isRight(encoded)) takenFast(copy(encoded.right))
    },
    { fastCheck: { numRuns: 300 } }
  )

  it("takes the benchmark's transcripts", () => {
    for (const turns of [1, 100, 1000]) {
      takenFast(copy(Either.getOrThrow(GoogleFormat.encode(Generate.conversation(turns, { reasoning: false })))))
    }
  })

  it.prop("gives what the Schema path gives on any value", [FastCheck.anything()], ([input]) => sameAsSchema(input), {
    fastCheck: { numRuns: 500 }
  })
})
