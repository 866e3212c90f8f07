/**
 * `openreward-effect/Throwing`: each function is its `Format` counterpart with the `Either` unwrapped:
 * the `Right` returned, the `Left` (the tagged error itself) thrown. Checked as a property over
 * conversations and over arbitrary input for every format, and against the Promise API, which
 * re-exports the same functions.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import { Block, Conversation, ConversionError, Format, Message, Provider, Throwing } from "openreward-effect"
import * as OpenReward from "openreward-effect/Promise"

/** What calling `f` gives, as an Either: its value, or what it threw. */
const outcome = <A>(f: () => A): Either.Either<A, unknown> => {
  try {
    return Either.right(f())
  } catch (e) {
    return Either.left(e)
  }
}

const conversations = Arbitrary.make(Conversation.Conversation)
const formats = FastCheck.constantFrom(...Provider.formats)
const sources = FastCheck.constantFrom(...Format.sources)
const targets = FastCheck.constantFrom(...Format.targets)

describe("Throwing", () => {
  it("returns what the format gives, and throws its tagged error itself", () => {
    const conversation = [Message.assistant([Block.reasoning("hmm"), Block.text("hi")])]
    assert.deepStrictEqual(Throwing.encodeOrThrow("anthropic", conversation), {
      system: null,
      messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "hi" }] }]
    })
    const thrown = outcome(() => Throwing.encodeOrThrow("google", conversation))
    assert.isTrue(Either.isLeft(thrown) && ConversionError.isConversionError(thrown.left))
    const error = (thrown as Either.Left<ConversionError.ConversionError, unknown>).left
    assert.strictEqual(error._tag, "UnsupportedBlock")
    assert.include(error.message, "google")

    const bad = outcome(() => Throwing.decodeOrThrow("openai", [{ role: "user", content: 1 }]))
    assert.isTrue(Either.isLeft(bad) && ConversionError.isConversionError(bad.left))
    assert.strictEqual((bad as Either.Left<ConversionError.ConversionError, unknown>).left._tag, "MalformedInput")

    assert.deepStrictEqual(
      Throwing.convertOrThrow([{ role: "user", content: "Hi" }], { from: "openai", to: "anthropic" }),
      { system: null, messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] }
    )
    assert.deepStrictEqual(Throwing.readOrThrow("canonical", [{ role: "user", blocks: [] }]), [{
      role: "user",
      blocks: [],
      detail: null
    }])
    assert.deepStrictEqual(Throwing.writeOrThrow("prompt", [Message.user("hi")]), [
      { type: "text", text: "hi", detail: null }
    ])
    // the Responses API format too, which Promise's encodeOrThrow did not take before
    assert.deepStrictEqual(Throwing.encodeOrThrow("openai-responses", [Message.user("Hi")]), [
      { type: "message", role: "user", content: "Hi" }
    ])
  })

  it.prop("encodeOrThrow and writeOrThrow unwrap Format.encode and Format.write", [conversations, formats, targets], (
    [conversation, format, target]
  ) => {
    assert.deepStrictEqual(
      outcome(() => Throwing.encodeOrThrow(format, conversation)),
      Format.encode(format, conversation)
    )
    assert.deepStrictEqual(
      outcome(() => Throwing.writeOrThrow(target, conversation)),
      Format.write(target, conversation)
    )
  })

  it.prop("decodeOrThrow, readOrThrow and convertOrThrow unwrap theirs on any input", [
    FastCheck.anything(),
    formats,
    sources,
    targets
  ], ([input, format, source, target]) => {
    assert.deepStrictEqual(outcome(() => Throwing.decodeOrThrow(format, input)), Format.decode(format, input))
    assert.deepStrictEqual(outcome(() => Throwing.readOrThrow(source, input)), Format.read(source, input))
    assert.deepStrictEqual(
      outcome(() => Throwing.convertOrThrow(input, { from: source, to: target })),
      Format.convert(input, { from: source, to: target })
    )
  })

  it("openreward-effect/Promise re-exports the same functions", () => {
    assert.strictEqual(OpenReward.encodeOrThrow, Throwing.encodeOrThrow)
    assert.strictEqual(OpenReward.decodeOrThrow, Throwing.decodeOrThrow)
    assert.strictEqual(OpenReward.readOrThrow, Throwing.readOrThrow)
    assert.strictEqual(OpenReward.writeOrThrow, Throwing.writeOrThrow)
  })
})
