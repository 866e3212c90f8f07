/**
 * Type-level tests: what the compiler knows about composed codecs. Run by `npm test` (vitest's
 * typecheck mode runs `tsc -p tsconfig.typetest.json` over test/types); an assertion that no longer
 * holds, or a `@ts-expect-error` with no error under it, fails the run.
 */
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Match from "effect/Match"
import type * as Stream from "effect/Stream"
import {
  AnthropicFormat,
  Codec,
  type Conversation,
  type ConversionError,
  Format,
  GoogleFormat,
  type ModelResponse,
  OpenAiFormat,
  type OpenAiResponsesFormat,
  type OpenRouterFormat,
  type Prompt,
  type ShareGptFormat
} from "openreward-effect"
import * as Throwing from "openreward-effect/Throwing"
import { describe, expectTypeOf, it } from "vitest"

const openAiToAnthropic = Codec.compose(OpenAiFormat.codec, AnthropicFormat.codec)
type OpenAiToAnthropicError = Codec.Pipeline.Error<typeof openAiToAnthropic>

describe("Codec.compose", () => {
  it("a pipeline's error is exactly the source's decode errors and the target's encode errors", () => {
    expectTypeOf<OpenAiToAnthropicError>().toEqualTypeOf<OpenAiFormat.DecodeError | AnthropicFormat.EncodeError>()
    expectTypeOf<OpenAiToAnthropicError["_tag"]>().toEqualTypeOf<
      // OpenAiFormat.decodeErrors
      | "MalformedInput"
      | "InvalidToolArguments"
      | "UnsupportedContent"
      // AnthropicFormat.encodeErrors
      | "MisplacedBlock"
      | "UnsupportedBlock"
      | "UnsupportedMessage"
    >()
    // the other way round: Anthropic's decode errors and OpenAI's encode errors
    const back = Codec.compose(AnthropicFormat.codec, OpenAiFormat.codec)
    expectTypeOf(back.convert).returns.toEqualTypeOf<
      Either.Either<OpenAiFormat.Wire, AnthropicFormat.DecodeError | OpenAiFormat.EncodeError>
    >()
    expectTypeOf<Codec.Pipeline.Error<typeof back>["_tag"]>().toEqualTypeOf<
      "MalformedInput" | "MisplacedBlock" | "UnsupportedContent" | "UnsupportedBlock"
    >()
  })

  it("convert answers the target's Wire, decode and encode their halves", () => {
    expectTypeOf(openAiToAnthropic.convert).returns.toEqualTypeOf<
      Either.Either<AnthropicFormat.Wire, OpenAiFormat.DecodeError | AnthropicFormat.EncodeError>
    >()
    expectTypeOf(openAiToAnthropic.decode).returns.toEqualTypeOf<
      Either.Either<Conversation.Conversation, OpenAiFormat.DecodeError>
    >()
    expectTypeOf(openAiToAnthropic.encode).returns.toEqualTypeOf<
      Either.Either<AnthropicFormat.Wire, AnthropicFormat.EncodeError>
    >()
    expectTypeOf<Codec.Pipeline.Wire<typeof openAiToAnthropic>>().toEqualTypeOf<AnthropicFormat.Wire>()
  })

  it("the options are the source's decode options and the target's encode options", () => {
    Codec.compose(OpenAiFormat.codec, GoogleFormat.codec, { encode: { casing: "camel" } })
    // @ts-expect-error casing is Gemini's encode option, not OpenAI's
    Codec.compose(GoogleFormat.codec, OpenAiFormat.codec, { encode: { casing: "camel" } })
    // @ts-expect-error not a casing Gemini has
    Codec.compose(OpenAiFormat.codec, GoogleFormat.codec, { encode: { casing: "kebab" } })
  })
})

describe("Match.tagsExhaustive over a pipeline's error", () => {
  it("compiles with exactly the pipeline's tags", () => {
    const explain = Match.type<OpenAiToAnthropicError>().pipe(
      Match.tagsExhaustive({
        MalformedInput: (e) => e.reason,
        InvalidToolArguments: (e) => e.raw,
        UnsupportedContent: (e) => e.contentType,
        MisplacedBlock: (e) => e.blockType,
        UnsupportedBlock: (e) => e.blockType,
        UnsupportedMessage: (e) => e.message
      })
    )
    expectTypeOf(explain).toEqualTypeOf<(error: OpenAiToAnthropicError) => string>()
  })

  it("a missing tag is a compile error", () => {
    Match.type<OpenAiToAnthropicError>().pipe(
      // @ts-expect-error UnsupportedMessage (Anthropic's encoder) is not handled
      Match.tagsExhaustive({
        MalformedInput: () => "",
        InvalidToolArguments: () => "",
        UnsupportedContent: () => "",
        MisplacedBlock: () => "",
        UnsupportedBlock: () => ""
      })
    )
  })

  it("an extra tag is a compile error", () => {
    Match.type<OpenAiToAnthropicError>().pipe(
      Match.tagsExhaustive({
        MalformedInput: () => "",
        InvalidToolArguments: () => "",
        UnsupportedContent: () => "",
        MisplacedBlock: () => "",
        UnsupportedBlock: () => "",
        UnsupportedMessage: () => "",
        // @ts-expect-error UnmatchedToolResult is Gemini's, neither OpenAI's decoder nor Anthropic's encoder fails with it
        UnmatchedToolResult: () => ""
      })
    )
  })
})

describe("Format.convert<F, T>", () => {
  it("answers Wire[T] with F's decode errors and T's encode errors", () => {
    const toAnthropic = Format.convert([], { from: "openai", to: "anthropic" })
    expectTypeOf(toAnthropic).toEqualTypeOf<
      Either.Either<AnthropicFormat.Wire, OpenAiFormat.DecodeError | AnthropicFormat.EncodeError>
    >()
    const toGoogle = Format.convert([], { from: "anthropic", to: "google", encode: { casing: "camel" } })
    expectTypeOf(toGoogle).toEqualTypeOf<
      Either.Either<GoogleFormat.Wire, AnthropicFormat.DecodeError | GoogleFormat.EncodeError>
    >()
    // canonical writes its wire JSON and never fails; prompt writes /prompt blocks and never fails
    expectTypeOf(Format.convert([], { from: "google", to: "canonical" })).toEqualTypeOf<
      Either.Either<Conversation.Encoded, GoogleFormat.DecodeError>
    >()
    expectTypeOf(Format.convert([], { from: "canonical", to: "prompt" })).toEqualTypeOf<
      Either.Either<Prompt.Encoded, ConversionError.ValidationError>
    >()
    // @ts-expect-error prompt is written, never read
    Format.convert([], { from: "prompt", to: "openai" })
  })

  it("Wire names what each target's codec writes", () => {
    expectTypeOf<Format.Wire>().toEqualTypeOf<{
      readonly openai: OpenAiFormat.Wire
      readonly openrouter: OpenRouterFormat.Wire
      readonly anthropic: AnthropicFormat.Wire
      readonly google: GoogleFormat.Wire
      readonly "openai-responses": OpenAiResponsesFormat.Wire
      readonly sharegpt: ShareGptFormat.Wire
      readonly canonical: Conversation.Encoded
      readonly prompt: Prompt.Encoded
    }>()
    expectTypeOf<Format.Wire["openai-responses"]>().toEqualTypeOf<Codec.WireOf<typeof OpenAiResponsesFormat.codec>>()
  })

  it("read, write, decode and encode are typed by the name given", () => {
    expectTypeOf(Format.read("anthropic", {})).toEqualTypeOf<
      Either.Either<Conversation.Conversation, AnthropicFormat.DecodeError>
    >()
    expectTypeOf(Format.write("openai-responses", [])).toEqualTypeOf<
      Either.Either<OpenAiResponsesFormat.Wire, OpenAiResponsesFormat.EncodeError>
    >()
    expectTypeOf(Format.encode("google", [])).toEqualTypeOf<
      Either.Either<GoogleFormat.Wire, GoogleFormat.EncodeError>
    >()
  })
})

describe("Throwing", () => {
  it("writeOrThrow and convertOrThrow answer the target's Wire", () => {
    expectTypeOf(Throwing.convertOrThrow([], { from: "openai", to: "anthropic" })).toEqualTypeOf<
      AnthropicFormat.Wire
    >()
    expectTypeOf(Throwing.writeOrThrow("prompt", [])).toEqualTypeOf<Prompt.Encoded>()
  })
})

describe("decodeResponse and decodeStream", () => {
  type ResponseTags<F extends (input: unknown) => Either.Either<ModelResponse.ModelResponse, any>> =
    ReturnType<F> extends Either.Either<any, infer E extends { readonly _tag: string }> ? E["_tag"] : never

  it("each format's decodeResponse fails only with that format's tags", () => {
    expectTypeOf<ResponseTags<typeof OpenAiFormat.decodeResponse>>().toEqualTypeOf<
      | "MalformedInput"
      | "InvalidToolArguments"
      | "UnsupportedContent"
      | "MultipleChoices"
      | "NoAnswer"
      | "ProviderError"
    >()
    expectTypeOf<ResponseTags<typeof OpenRouterFormat.decodeResponse>>().toEqualTypeOf<
      | "MalformedInput"
      | "InvalidToolArguments"
      | "UnsupportedContent"
      | "MultipleChoices"
      | "NoAnswer"
      | "ProviderError"
    >()
    expectTypeOf<ResponseTags<typeof AnthropicFormat.decodeResponse>>().toEqualTypeOf<
      "MalformedInput" | "MisplacedBlock" | "UnsupportedContent"
    >()
    expectTypeOf<ResponseTags<typeof GoogleFormat.decodeResponse>>().toEqualTypeOf<
      | "MalformedInput"
      | "MisplacedBlock"
      | "InvalidToolArguments"
      | "UnsupportedContent"
      | "MultipleChoices"
      | "NoAnswer"
    >()
    expectTypeOf<ResponseTags<typeof OpenAiResponsesFormat.decodeResponse>>().toEqualTypeOf<
      "MalformedInput" | "InvalidToolArguments" | "UnsupportedContent" | "NoAnswer" | "ProviderError"
    >()
    // the lists held at run time name the same tags
    expectTypeOf<AnthropicFormat.ResponseError["_tag"]>().toEqualTypeOf<
      typeof AnthropicFormat.responseErrors[number]
    >()
  })

  it("Match.tagsExhaustive over Anthropic's decodeResponse needs no NoAnswer or MultipleChoices", () => {
    Match.type<AnthropicFormat.ResponseError>().pipe(
      Match.tagsExhaustive({
        MalformedInput: () => 0,
        MisplacedBlock: () => 1,
        UnsupportedContent: () => 2,
        // @ts-expect-error Anthropic's answers carry one message: NoAnswer is never produced
        NoAnswer: () => 3
      })
    )
  })

  it("decodeStream adds the stream's own error, IncompleteStream, and the choice of a message", () => {
    const events = null as unknown as Stream.Stream<unknown, "ReadFailed">
    expectTypeOf(AnthropicFormat.decodeStream(events)).toEqualTypeOf<
      Effect.Effect<ModelResponse.ModelResponse, "ReadFailed" | AnthropicFormat.StreamError>
    >()
    expectTypeOf<AnthropicFormat.StreamError["_tag"]>().toEqualTypeOf<
      | "MalformedInput"
      | "MisplacedBlock"
      | "UnsupportedContent"
      | "InvalidToolArguments"
      | "IncompleteStream"
      | "MultipleChoices"
      | "NoAnswer"
    >()
  })
})
