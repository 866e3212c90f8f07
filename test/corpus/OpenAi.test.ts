/**
 * Every answer recorded from OpenAI's Chat Completions API and the servers that speak it (DeepSeek,
 * Groq, xAI, Alibaba, Moonshot, Mistral, Perplexity, Azure, Cerebras, Gemini's OpenAI-compatible
 * endpoint), read from ../shared/corpora through `OpenAiFormat.decodeResponse` / `decodeStream`:
 * each is held to what its JSON says (test/corpus/chatOracle.ts), and the answers behind issue 19's
 * findings to what they must keep.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { Block, OpenAiFormat } from "../../src/index.js"
import * as Corpus from "../utils/corpus.js"
import * as Oracle from "./chatOracle.js"

const answers = Corpus.answers("openai")

const decode = (answer: Corpus.Answer) =>
  answer.kind === "response"
    ? OpenAiFormat.decodeResponse(answer.body)
    : Effect.runSync(Effect.either(OpenAiFormat.decodeStream(Stream.fromIterable(answer.events!))))

const named = (name: string) => {
  const found = answers.filter((a) => a.file.endsWith(`/${name}`))
  assert.isAbove(found.length, 0, name)
  return found.map((a) => {
    const r = decode(a)
    if (Either.isLeft(r)) return assert.fail(`${a.file}: ${r.left.message}`)
    return r.right
  })
}

describe("the recorded Chat Completions answers", () => {
  it("are all there", () => {
    assert.isAtLeast(answers.length, 82)
  })

  it.each(answers.map((a) => [a.file, a] as const))("%s keeps what it says", (_, answer) => {
    Oracle.check("openai", answer, decode(answer))
  })

  it("Mistral: thinking parts are reasoning, whole and streamed; calls without index", () => {
    for (const name of ["mistral--mistral-reasoning.json", "mistral--mistral-reasoning.chunks.txt"]) {
      const [r] = named(name)
      assert.deepStrictEqual(r!.message.blocks, [
        Block.reasoning("The user is asking for 2+2. This is basic arithmetic. 2+2=4."),
        Block.text("2 + 2 = 4")
      ])
    }
    const [call] = named("mistral--mistral-tool-call.chunks.txt")
    assert.deepStrictEqual(call!.message.blocks, [
      Block.toolCall("gSIMJiOkT", "weather", { location: "San Francisco" })
    ])
  })

  it("Gemini's OpenAI-compatible endpoint: an id made for the empty one, the thought signature kept", () => {
    const [r] = named("pydantic--test_compatible_api_with_tool_calls_without_id.0.json")
    const call = r!.message.blocks[0]
    assert.strictEqual(call?.type === "tool_call" && call.id, "call_3SE-aKjdCcCEz7IPxpqjCA_0")
    const google = (r!.message.detail?.["openai"] as any)?.extra_content?.google
    assert.isTrue(google?.thought_signature.startsWith("AVSoXO4A"))
  })

  it("Perplexity: the citations are kept with the message", () => {
    for (const r of named("perplexity--perplexity-citations.json")) {
      assert.strictEqual(((r.message.detail?.["openai"] as any)?.citations as Array<string>).length, 7)
    }
  })
})
