/**
 * Every answer recorded from OpenRouter (its own SDK's recordings and another framework's
 * cassettes), read from ../shared/corpora through `OpenRouterFormat.decodeResponse` /
 * `decodeStream`: each is held to what its JSON says (test/corpus/chatOracle.ts), and the answers
 * behind issue 19's findings to what they must keep.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { OpenRouterFormat } from "../../src/index.js"
import * as Corpus from "../utils/corpus.js"
import * as Oracle from "./chatOracle.js"

const answers = Corpus.answers("openrouter")

const decode = (answer: Corpus.Answer) =>
  answer.kind === "response"
    ? OpenRouterFormat.decodeResponse(answer.body)
    : Effect.runSync(Effect.either(OpenRouterFormat.decodeStream(Stream.fromIterable(answer.events!))))

const named = (name: string) => {
  const found = answers.find((a) => a.file.endsWith(`/${name}`))
  if (found === undefined) return assert.fail(`no ${name}`)
  return decode(found)
}

describe("the recorded OpenRouter answers", () => {
  it("are all there", () => {
    assert.isAtLeast(answers.length, 22)
  })

  it.each(answers.map((a) => [a.file, a] as const))("%s keeps what it says", (_, answer) => {
    Oracle.check("openrouter", answer, decode(answer))
  })

  it("every stream ends with a chunk after finish_reason, and decodes", () => {
    const streams = answers.filter((a) => a.kind === "stream" && !a.file.includes("stream_error"))
    assert.isAtLeast(streams.length, 8)
    for (const s of streams) assert.isTrue(Either.isRight(decode(s)), s.file)
  })

  it("an error mid-stream is the provider's error", () => {
    const e = named("pydantic--test_openrouter_stream_error.0.sse")
    assert.deepStrictEqual(
      Either.isLeft(e) && e.left._tag === "ProviderError" && [e.left.eventIndex, e.left.code, e.left.reason],
      [3, 400, "Token limit reached"]
    )
  })

  it("a call without arguments has input {}; streamed web citations are kept", () => {
    const call = named("pydantic--test_openrouter_tool_optional_parameters.0.json")
    assert.deepStrictEqual(
      Either.isRight(call) && call.right.message.blocks.filter((b) => b.type === "tool_call").map((b) => b.input),
      [{}]
    )
    const cited = named("pydantic--test_openrouter_web_search_annotations_stream.0.sse")
    assert.strictEqual(
      Either.isRight(cited) &&
        ((cited.right.message.detail?.["openrouter"] as any)?.annotations as Array<unknown>).length,
      5
    )
  })

  it("encrypted reasoning is kept as a signature and sent back in reasoning_details", () => {
    const r = named("pydantic--test_openrouter_usage.0.json")
    if (Either.isLeft(r)) return assert.fail(r.left.message)
    const encrypted = r.right.message.blocks.find((b) => b.type === "reasoning" && b.signature !== null)
    assert.isTrue(encrypted?.type === "reasoning" && encrypted.signature!.startsWith("gAAAA"))
    const [message] = Either.getOrThrow(OpenRouterFormat.encode([r.right.message]))
    const raw = (Corpus.answers("openrouter").find((a) => a.file.endsWith("test_openrouter_usage.0.json"))!.body as any)
      .choices[0].message
    assert.deepStrictEqual(message?.role === "assistant" && message.reasoning_details, raw.reasoning_details)
  })
})
