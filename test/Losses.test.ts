/**
 * What a conversion loses, by its format's documented rules ("What a round trip loses" in
 * docs/formats/*.md), reported through `onLoss` (`Codec.encodeReport` / `Codec.decodeReport`): each
 * rule reports at the path of what it lost, only for a conversion that succeeds, and nothing is
 * reported for what a format keeps.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"
import * as Block from "openreward-effect/Block"
import * as Codec from "openreward-effect/Codec"
import type * as ConversionError from "openreward-effect/ConversionError"
import * as GoogleFormat from "openreward-effect/GoogleFormat"
import * as Message from "openreward-effect/Message"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import * as OpenAiResponsesFormat from "openreward-effect/OpenAiResponsesFormat"
import * as OpenRouterFormat from "openreward-effect/OpenRouterFormat"

const fields = (losses: ReadonlyArray<ConversionError.Lost>) =>
  losses.map((loss) => `${loss.field}@${JSON.stringify(loss.path)}`)

const conversation = [
  Message.system([Block.text("Be brief.")], { detail: { source: "log" } }),
  Message.user([Block.text("Find 7")]),
  Message.assistant([
    Block.reasoning("think", { signature: "sig" }),
    Block.toolCall("c1", "lookup", { id: 7 })
  ]),
  Message.user([Block.toolResult("c1", "not found", { isError: true })])
]

describe("encode losses", () => {
  it("openai and openrouter: detail, the reasoning signature, is_error", () => {
    for (const codec of [OpenAiFormat.codec, OpenRouterFormat.codec] as const) {
      const { losses, value } = Either.getOrThrow(Codec.encodeReport(codec as Codec.Any, conversation))
      assert.deepStrictEqual(value, Either.getOrThrow(codec.encode(conversation)))
      assert.deepStrictEqual(fields(losses), [
        `detail@[0,"detail"]`,
        `signature@[2,"blocks",0,"signature"]`,
        `is_error@[3,"blocks",0,"is_error"]`
      ])
      for (const loss of losses) assert.strictEqual(loss.direction, "encode")
    }
  })

  it("openai with reasoningField omit: the reasoning text too", () => {
    const { losses } = Either.getOrThrow(
      Codec.encodeReport(OpenAiFormat.codec, conversation, { reasoningField: "omit" })
    )
    assert.include(fields(losses), `reasoning@[2,"blocks",0,"text"]`)
  })

  it("anthropic keeps signatures and is_error: only the detail", () => {
    const { losses } = Either.getOrThrow(Codec.encodeReport(AnthropicFormat.codec as Codec.Any, conversation))
    assert.deepStrictEqual(fields(losses), [`detail@[0,"detail"]`])
  })

  it("openai-responses: detail (a block's detail.openai is kept) and is_error", () => {
    const withOpenAi = [
      Message.user([Block.text("Hi", { detail: { openai: { id: "msg_1" } } })]),
      ...conversation.slice(1)
    ]
    const { losses } = Either.getOrThrow(
      Codec.encodeReport(OpenAiResponsesFormat.codec as Codec.Any, withOpenAi, { reasoningWithoutId: "omit" })
    )
    assert.deepStrictEqual(fields(losses), [`reasoning@[2,"blocks",0]`, `is_error@[3,"blocks",0,"is_error"]`])
  })

  it("google: detail, is_error unless toolErrors is error, ids unless toolCallIds", () => {
    const plain = conversation.map((m, i) =>
      i === 2 ? Message.assistant([Block.toolCall("c1", "lookup", { id: 7 })]) : m
    )
    const loose = Either.getOrThrow(Codec.encodeReport(GoogleFormat.codec as Codec.Any, plain))
    assert.deepStrictEqual(fields(loose.losses), [
      `detail@[0,"detail"]`,
      `is_error@[3,"blocks",0,"is_error"]`,
      `id@[2,"blocks",0,"id"]`,
      `tool_call_id@[3,"blocks",0,"tool_call_id"]`
    ])
    const kept = Either.getOrThrow(
      Codec.encodeReport(GoogleFormat.codec as Codec.Any, plain, { toolErrors: "error", toolCallIds: true })
    )
    assert.deepStrictEqual(fields(kept.losses), [`detail@[0,"detail"]`])
  })

  it("a failed encode reports nothing", () => {
    const seen: Array<ConversionError.Lost> = []
    const bad = [Message.user([Block.toolResult("c1", [Block.image("aGk=", "image/png")])], { detail: { x: 1 } })]
    assert.isTrue(Either.isLeft(OpenAiFormat.encode(bad, { onLoss: (loss) => seen.push(loss) })))
    assert.deepStrictEqual(seen, [])
  })
})

describe("decode losses", () => {
  it("a message's name and weight, a part's detail hint, each at its path in the input", () => {
    const input = {
      messages: [
        { role: "user", content: "Hi", name: "ada" },
        { role: "assistant", content: "Hello", weight: 0 }
      ]
    }
    const { losses, value } = Either.getOrThrow(Codec.decodeReport(OpenAiFormat.codec, input))
    assert.deepStrictEqual(value, Either.getOrThrow(OpenAiFormat.decode(input)))
    assert.deepStrictEqual(fields(losses), [`name@["messages",0,"name"]`, `weight@["messages",1,"weight"]`])
    assert.deepStrictEqual(losses.map((loss) => loss.messageIndex), [0, 1])
  })

  it("what a format reads is never reported", () => {
    const input = [{ role: "user", content: [{ type: "text", text: "Hi" }] }, { role: "assistant", content: "Yo" }]
    assert.deepStrictEqual(Either.getOrThrow(Codec.decodeReport(AnthropicFormat.codec as Codec.Any, input)).losses, [])
  })

  it("a failed decode reports nothing", () => {
    const seen: Array<ConversionError.Lost> = []
    const input = { model: "m", messages: [{ role: "wizard", content: "x", name: "n" }] }
    assert.isTrue(Either.isLeft(OpenAiFormat.decode(input, { onLoss: (loss) => seen.push(loss) })))
    assert.deepStrictEqual(seen, [])
  })
})
