/**
 * A request body read as a transcript: the keys that hold the conversation are read; the API's
 * request parameters and keys no API of ours knows (Bedrock's `anthropic_version`, OpenRouter's
 * `preset`, a dataset's `id`) are left out and reported as lost (`Codec.decodeReport`), never
 * dropped without a word. A key holding another format's conversation is a `MalformedInput` at that
 * key: another provider's body read with the wrong format is the case this exists for, its system
 * prompt would otherwise vanish.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"
import * as Codec from "openreward-effect/Codec"
import type * as ConversionError from "openreward-effect/ConversionError"
import * as GoogleFormat from "openreward-effect/GoogleFormat"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import * as OpenAiResponsesFormat from "openreward-effect/OpenAiResponsesFormat"
import * as OpenRouterFormat from "openreward-effect/OpenRouterFormat"

const left = <A>(either: Either.Either<A, ConversionError.DecodeError>): ConversionError.DecodeError => {
  assert.isTrue(Either.isLeft(either), "expected a failure")
  return (either as Either.Left<ConversionError.DecodeError, A>).left
}

const user = { role: "user", content: "Hi" }

const formats = [
  { name: "openai", module: OpenAiFormat, body: { messages: [user] } },
  { name: "openrouter", module: OpenRouterFormat, body: { messages: [user] } },
  { name: "anthropic", module: AnthropicFormat, body: { system: "Be brief.", messages: [user] } },
  { name: "google", module: GoogleFormat, body: { contents: [{ role: "user", parts: [{ text: "Hi" }] }] } },
  {
    name: "openai-responses",
    module: OpenAiResponsesFormat,
    body: { instructions: "Be brief.", input: [{ role: "user", content: "Hi" }] }
  }
] as const

describe("request bodies", () => {
  for (const { body, module, name } of formats) {
    it(`${name}: every declared request parameter is accepted and ignored`, () => {
      const plain = module.decode(body)
      assert.isTrue(Either.isRight(plain))
      const full: Record<string, unknown> = { ...body }
      for (const key of module.requestKeys.parameters) full[key] = { anything: [1, "two"] }
      assert.deepStrictEqual(module.decode(full), plain)
    })

    it(`${name}: any other key is left out of the conversation and reported as lost at that key`, () => {
      const plain = module.decode(body)
      const odd = { ...body, anthropic_version: "vertex-2023-10-16", preset: "@preset/x", sytem: "typo", id: null }
      assert.deepStrictEqual(module.decode(odd), plain)
      const reported = Codec.decodeReport(module.codec as Codec.Any, odd)
      assert.isTrue(Either.isRight(reported))
      const losses = Either.getOrThrow(reported).losses
      // `null` holds nothing: not a loss
      assert.deepStrictEqual(losses.map((loss) => loss.path), [["anthropic_version"], ["preset"], ["sytem"]])
      for (const loss of losses) {
        assert.strictEqual(loss._tag, "Lost")
        assert.strictEqual(loss.direction, "decode")
        assert.strictEqual(loss.format, name)
        assert.include(loss.reason, "not a request parameter of the")
      }
    })

    it(`${name}: a declared request parameter is reported as a request parameter`, () => {
      const key = module.requestKeys.parameters[0]!
      const losses = Either.getOrThrow(Codec.decodeReport(module.codec as Codec.Any, { ...body, [key]: 1 })).losses
      assert.deepStrictEqual(losses.map((loss) => [loss.path, loss.reason.startsWith("a request parameter")]), [[
        [key],
        true
      ]])
    })

    it(`${name}: the declared keys hold no duplicates and no conversation key among the parameters`, () => {
      const { conversation, parameters } = module.requestKeys
      assert.strictEqual(new Set([...conversation, ...parameters]).size, conversation.length + parameters.length)
    })
  }

  it("an Anthropic body read as OpenAI: its system prompt is not lost, the error says which format it is", () => {
    const error = left(OpenAiFormat.decode({ system: "Be brief.", messages: [user] }))
    assert.strictEqual(
      error.message,
      "openai: malformed input at $.system: \"system\" is not a key of an openai request body: it belongs to the anthropic format's conversation; decode the input with that format"
    )
  })

  it("a Gemini body read as Anthropic, a Responses body read as OpenRouter", () => {
    assert.include(
      left(AnthropicFormat.decode({ contents: [], system_instruction: "x" })).message,
      "belongs to the google format's conversation"
    )
    assert.include(
      left(OpenRouterFormat.decode({ instructions: "x", input: [] })).message,
      "belongs to the openai-responses format's conversation"
    )
    assert.include(
      left(GoogleFormat.decode({ messages: [user] })).message,
      "belongs to the openai or openrouter or anthropic format's conversation"
    )
  })

  it("a key named __proto__ is a key like any other (no prototype lookup), and nothing is polluted", () => {
    const body = JSON.parse(`{"messages": [{"role": "user", "content": "Hi"}], "__proto__": {"polluted": true}}`)
    const reported = Either.getOrThrow(Codec.decodeReport(OpenAiFormat.codec, body))
    assert.deepStrictEqual(reported.losses.map((loss) => loss.path), [["__proto__"]])
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })

  it("an OpenAI preference fine-tuning line is three conversations: an error that says so, in every format", () => {
    const line = {
      input: { messages: [user] },
      preferred_output: [{ role: "assistant", content: "A" }],
      non_preferred_output: [{ role: "assistant", content: "B" }]
    }
    for (const { module } of formats) {
      const error = left(module.decode(line))
      assert.strictEqual(error._tag, "MalformedInput")
      assert.include(error.message, "preference fine-tuning record")
    }
  })

  it("bare arrays have no body keys to check", () => {
    assert.isTrue(Either.isRight(OpenAiFormat.decode([user])))
    assert.isTrue(Either.isRight(AnthropicFormat.decode([user])))
  })
})
