/**
 * A request body read as a transcript: every key is where the conversation is or one of the API's
 * request parameters; any other key is a `MalformedInput` at that key, never dropped. Another
 * provider's body read with the wrong format is the case this exists for: its system prompt would
 * otherwise vanish.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"
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

    it(`${name}: any other key is a MalformedInput at that key`, () => {
      const error = left(module.decode({ ...body, sytem: "typo" }))
      assert.strictEqual(error._tag, "MalformedInput")
      assert.deepStrictEqual((error as ConversionError.MalformedInput).path, ["sytem"])
      assert.include(error.message, `"sytem" is not a key of`)
      assert.include(error.message, `${name} request body`)
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
    assert.deepStrictEqual(left(OpenAiFormat.decode(body)).message.includes(`"__proto__" is not a key`), true)
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
  })

  it("bare arrays have no body keys to check", () => {
    assert.isTrue(Either.isRight(OpenAiFormat.decode([user])))
    assert.isTrue(Either.isRight(AnthropicFormat.decode([user])))
  })
})
