/**
 * Pipelines (src/Codec.ts): `Codec.compose`, `Format.convert` and `Codec.toTransformation` answer
 * alike, for every pair of formats, on every golden-vector conversation (test/vectors/corpus.json)
 * written in the source format, and on input no format reads. The Schema form holds the codecs'
 * tagged error in every failure, both ways, and gives it back. `Codec.make` builds a codec that
 * composes like the library's own. (Their types: test/types/Compose.test-d.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  AnthropicFormat,
  Codec,
  Conversation,
  ConversionError,
  Format,
  GoogleFormat,
  Message,
  OpenAiFormat
} from "openreward-effect"

const vectors = JSON.parse(
  fs.readFileSync(path.join(__dirname, "vectors", "corpus.json"), "utf8")
) as ReadonlyArray<{ readonly name: string; readonly conversation: unknown }>
/** The vectors that are canonical conversations (the others are what the reference refuses). */
const corpus = vectors.flatMap((c) => {
  const decoded = Conversation.decode(c.conversation)
  return Either.isRight(decoded) ? [{ name: c.name, conversation: decoded.right }] : []
})
/** The others: canonical input that does not read. */
const refused = vectors.filter((c) => Either.isLeft(Conversation.decode(c.conversation)))

/** What a pipeline answered, comparable: the value (as JSON), or the error's tag, message and path. */
const outcome = (
  result: Either.Either<unknown, ConversionError.ConversionError>
): { readonly right: unknown } | { readonly tag: string; readonly message: string; readonly path: unknown } =>
  Either.isRight(result)
    ? { right: JSON.parse(JSON.stringify(result.right)) }
    : { tag: result.left._tag, message: result.left.message, path: result.left.path }

/** The Schema form's answer, in the same terms: the tagged error it carries (a failure with none fails the test). */
const schemaOutcome = (
  result: Either.Either<unknown, ParseResult.ParseError>
): ReturnType<typeof outcome> => {
  if (Either.isRight(result)) return { right: JSON.parse(JSON.stringify(result.right)) }
  const error = Codec.errorOf(result.left)
  assert.isTrue(Option.isSome(error), `a failure with no tagged error: ${result.left.message}`)
  assert.strictEqual(
    result.left.message.split("\n").at(-1)!.replace(/^\s*└─ /, ""),
    error.pipe(Option.getOrThrow).message
  )
  return outcome(Either.left(Option.getOrThrow(error)))
}

/** Every source written in its own format from the corpus (what a stored transcript of it is). */
const inputs = (from: Format.Source): ReadonlyArray<{ readonly name: string; readonly input: unknown }> => [
  ...corpus.flatMap(({ conversation, name }) => {
    const written = Format.write(from, conversation)
    return Either.isRight(written) ? [{ name, input: JSON.parse(JSON.stringify(written.right)) }] : []
  }),
  ...(from === "canonical" ? refused.map((c) => ({ name: c.name, input: c.conversation })) : []),
  // input no format reads
  { name: "a number", input: 5 },
  { name: "a wrong content", input: [{ role: "user", content: 7 }] },
  { name: "an unknown request key", input: { messages: [], contents: [], tool_choice_x: 1 } }
]

/** The formats both read and written: the ends of a Schema pipeline. */
const codecs: ReadonlyArray<Format.Source> = Format.sources

describe("Codec.compose", () => {
  it("convert is decode with the source, then encode with the target, options bound", () => {
    const pipeline = Codec.compose(OpenAiFormat.codec, AnthropicFormat.codec, {
      encode: { unsignedReasoning: "text", laterSystem: "user" }
    })
    assert.strictEqual(pipeline.from, "openai")
    assert.strictEqual(pipeline.to, "anthropic")
    const transcript = [
      { role: "user", content: "Hi" },
      { role: "assistant", content: "Hello", reasoning_content: "Greet back." },
      { role: "system", content: "Answer in French." }
    ]
    const conversation = Either.getOrThrow(OpenAiFormat.decode(transcript))
    const expected = AnthropicFormat.encode(conversation, { unsignedReasoning: "text", laterSystem: "user" })
    assert.deepStrictEqual(pipeline.decode(transcript), Either.right(conversation))
    assert.deepStrictEqual(pipeline.encode(conversation), expected)
    assert.deepStrictEqual(pipeline.convert(transcript), expected)
    // without the options, the same transcript fails where the defaults refuse it
    const plain = Codec.compose(OpenAiFormat.codec, AnthropicFormat.codec).convert(transcript)
    assert.isTrue(Either.isLeft(plain) && plain.left._tag === "UnsupportedMessage")
  })

  it("a failed decode is answered as the source decodes it; the target never runs", () => {
    let encoded = 0
    const spy = Codec.make({
      ...GoogleFormat.codec,
      encode: (c: Conversation.Conversation) => (encoded++, GoogleFormat.encode(c))
    })
    const result = Codec.compose(OpenAiFormat.codec, spy).convert([{ role: "user", content: 7 }])
    assert.deepStrictEqual(outcome(result), outcome(OpenAiFormat.decode([{ role: "user", content: 7 }])))
    assert.strictEqual(encoded, 0)
  })

  it("Format.convert is the pipeline of Format.decoders[from] and Format.encoders[to], for every pair", () => {
    for (const from of Format.sources) {
      for (const { name, input } of inputs(from)) {
        for (const to of Format.targets) {
          const composed = Codec.compose<Codec.AnyDecoder, Codec.AnyEncoder>(
            Format.decoders[from],
            Format.encoders[to]
          ).convert(input)
          assert.deepStrictEqual(
            outcome(Format.convert(input, { from, to })),
            outcome(composed),
            `${from} -> ${to}: ${name}`
          )
          assert.deepStrictEqual(
            outcome(composed),
            outcome(Either.flatMap(Format.read(from, input), (c) => Format.write(to, c))),
            `${from} -> ${to}: ${name}`
          )
        }
      }
    }
  })
})

describe("Codec.toTransformation", () => {
  it("decoding answers as the pipeline does, for every pair of formats: the value, or its tagged error", () => {
    for (const from of codecs) {
      const cases = inputs(from)
      for (const to of codecs) {
        const transformation = Codec.toTransformation<Codec.Any, Codec.Any>(Format.decoders[from], Format.decoders[to])
        const pipeline = Codec.compose<Codec.AnyDecoder, Codec.AnyEncoder>(Format.decoders[from], Format.decoders[to])
        const decode = Schema.decodeUnknownEither(transformation)
        for (const { input, name } of cases) {
          assert.deepStrictEqual(
            schemaOutcome(decode(input)),
            outcome(pipeline.convert(input)),
            `${from} -> ${to}: ${name}`
          )
        }
      }
    }
  })

  it("encoding goes back: it reads with the target and writes with the source", () => {
    for (const from of codecs) {
      for (const to of codecs) {
        const transformation = Codec.toTransformation<Codec.Any, Codec.Any>(Format.decoders[from], Format.decoders[to])
        const back = Codec.compose<Codec.AnyDecoder, Codec.AnyEncoder>(Format.decoders[to], Format.decoders[from])
        const encode = Schema.encodeUnknownEither(transformation)
        for (const { input, name } of inputs(to)) {
          assert.deepStrictEqual(
            schemaOutcome(encode(input)),
            outcome(back.convert(input)),
            `${to} -> ${from}: ${name}`
          )
        }
      }
    }
  })

  it("decodeError and encodeError give the tagged error back; a ParseError with none is answered as it is", () => {
    const OpenAiToAnthropic = Codec.toTransformation(OpenAiFormat.codec, AnthropicFormat.codec)
    const fromJson = Schema.parseJson(OpenAiToAnthropic)
    const later = [{ role: "user", content: "Hi" }, { role: "system", content: "Late." }]
    const failed = Schema.decodeUnknownEither(fromJson)(JSON.stringify(later))
    assert.isTrue(Either.isLeft(failed))
    const error = OpenAiToAnthropic.decodeError((failed as Either.Left<ParseResult.ParseError, unknown>).left)
    const direct = Codec.compose(OpenAiFormat.codec, AnthropicFormat.codec).convert(later)
    assert.isTrue(Either.isLeft(direct))
    assert.deepStrictEqual(error, Either.flip(direct).pipe(Either.getOrThrow))

    const notJson = Schema.decodeUnknownEither(fromJson)("[{")
    assert.isTrue(Either.isLeft(notJson))
    const left = (notJson as Either.Left<ParseResult.ParseError, unknown>).left
    assert.strictEqual(OpenAiToAnthropic.decodeError(left), left)
    assert.isTrue(Option.isNone(Codec.errorOf(left)))

    // encoding a value the target does not read: the target's decode error, given back by encodeError
    const notAnthropic = {
      messages: [{ role: "user", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }]
    }
    const encoded = Schema.encodeUnknownEither(OpenAiToAnthropic)(notAnthropic)
    assert.isTrue(Either.isLeft(encoded))
    const refused = OpenAiToAnthropic.encodeError((encoded as Either.Left<ParseResult.ParseError, unknown>).left)
    assert.deepStrictEqual(refused, (AnthropicFormat.decode(notAnthropic) as Either.Left<any, unknown>).left)
    assert.strictEqual((refused as ConversionError.ConversionError)._tag, "MisplacedBlock")
  })

  it("the error is found inside a larger Schema (a struct field), at its place", () => {
    const Stored = Schema.Struct({
      id: Schema.String,
      request: Codec.toTransformation(OpenAiFormat.codec, GoogleFormat.codec)
    })
    const result = Schema.decodeUnknownEither(Stored)({
      id: "run-1",
      request: [{
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "[1]" } }]
      }]
    })
    assert.isTrue(Either.isLeft(result))
    const error = Option.getOrThrow(Codec.errorOf((result as Either.Left<ParseResult.ParseError, unknown>).left))
    assert.strictEqual(error._tag, "InvalidToolArguments")
    assert.deepStrictEqual(error.path, [0, "tool_calls", 0, "function", "arguments"])
  })

  it("options: the forward pipeline's under decode, the way back's under encode", () => {
    const transformation = Codec.toTransformation(OpenAiFormat.codec, GoogleFormat.codec, {
      decode: { encode: { casing: "camel" } },
      encode: { encode: { reasoningField: "reasoning" } }
    })
    const request = Schema.decodeUnknownSync(transformation)([{ role: "system", content: "Be terse." }, {
      role: "user",
      content: "Hi"
    }])
    assert.deepStrictEqual(request, {
      systemInstruction: "Be terse.",
      contents: [{ role: "user", parts: [{ text: "Hi" }] }]
    } as never)
    const back = Schema.encodeSync(transformation)({
      contents: [{ role: "user", parts: [{ text: "Hi" }] }, {
        role: "model",
        parts: [{ text: "Greet.", thought: true }, { text: "Hello" }]
      }]
    } as never)
    assert.deepStrictEqual(back, [{ role: "user", content: "Hi" }, {
      role: "assistant",
      content: "Hello",
      reasoning: "Greet."
    }] as never)
  })
})

describe("Codec.make", () => {
  const House = Schema.Struct({ turns: Schema.Array(Schema.Unknown) })
  const house = Codec.make({
    name: "house",
    input: House,
    encode: (conversation: Conversation.Conversation) => Either.right({ turns: Conversation.encode(conversation) }),
    decode: (input: unknown) =>
      Schema.is(House)(input)
        ? Conversation.decode(input.turns)
        : Either.left(new ConversionError.MalformedInput({ format: "canonical", path: [], reason: "expected {turns}" }))
  })

  it("a codec of one's own composes with the library's, both ways, as functions and as a Schema", () => {
    const toHouse = Codec.compose(OpenAiFormat.codec, house)
    const written = Either.getOrThrow(toHouse.convert([{ role: "user", content: "Hi" }]))
    assert.deepStrictEqual(written, { turns: Conversation.encode([Message.user("Hi")]) })
    assert.deepStrictEqual(
      Codec.compose(house, OpenAiFormat.codec).convert(written),
      Either.right([{ role: "user", content: "Hi" }])
    )
    const schema = Codec.toTransformation(house, AnthropicFormat.codec)
    assert.deepStrictEqual(Schema.decodeUnknownSync(schema)(written), {
      system: null,
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }]
    } as never)
    const refused = Schema.decodeUnknownEither(schema)({ turns: 5 })
    assert.isTrue(Either.isLeft(refused))
    assert.strictEqual(
      Option.getOrThrow(Codec.errorOf((refused as Either.Left<ParseResult.ParseError, unknown>).left))._tag,
      "MalformedInput"
    )
  })
})
