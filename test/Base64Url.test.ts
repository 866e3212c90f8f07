/**
 * Image data in base64url (as Google's Python SDK records Gemini's `inline_data`) is read as
 * standard base64 on every decode surface, so that every encoder writes data the APIs accept; data
 * that is not base64url is kept as it is.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as AnthropicFormat from "openreward-effect/AnthropicFormat"
import type * as Block from "openreward-effect/Block"
import type * as Conversation from "openreward-effect/Conversation"
import * as GoogleFormat from "openreward-effect/GoogleFormat"
import * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import * as OpenAiResponsesFormat from "openreward-effect/OpenAiResponsesFormat"
import * as OpenRouterFormat from "openreward-effect/OpenRouterFormat"
import { standard } from "../src/internal/base64.js"

// a JPEG's first bytes, as Python's base64.urlsafe_b64encode writes them, and as base64
const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xfb])
const url = bytes.toString("base64url")
const std = bytes.toString("base64")

const images = (conversation: Conversation.Conversation): ReadonlyArray<string> =>
  conversation.flatMap((m) =>
    (m.blocks as ReadonlyArray<Block.Block>).flatMap((b) =>
      b.type === "image"
        ? [b.data]
        : b.type === "tool_result"
        ? b.blocks.flatMap((i) => i.type === "image" ? [i.data] : [])
        : []
    )
  )

const decoded = (either: Either.Either<Conversation.Conversation, unknown>) => images(Either.getOrThrow(either))

describe("base64url image data", () => {
  it("the rule: url-safe data becomes base64, padded; anything else is kept", () => {
    // unpadded, with a url-safe character
    assert.strictEqual(url, "_9j_4AAQSkZJRvs")
    assert.strictEqual(std, "/9j/4AAQSkZJRvs=")
    assert.strictEqual(standard(url), std)
    assert.strictEqual(standard(`${url}=`), std)
    assert.strictEqual(standard(std), std)
    assert.strictEqual(standard("AAAA"), "AAAA")
    // not base64url: a character outside the alphabet, or a length no base64 has
    assert.strictEqual(standard("a-b c"), "a-b c")
    assert.strictEqual(standard("abcd-"), "abcd-")
    assert.strictEqual(Buffer.from(standard("-_8"), "base64").toString("base64url"), "-_8")
  })

  const dataUrl = (data: string) => `data:image/jpeg;base64,${data}`
  const chat = [{ role: "user", content: [{ type: "image_url", image_url: { url: dataUrl(url) } }] }]

  it("openai and openrouter: a data URL", () => {
    assert.deepStrictEqual(decoded(OpenAiFormat.decode(chat)), [std])
    assert.deepStrictEqual(decoded(OpenRouterFormat.decode(chat)), [std])
  })

  it("anthropic: a base64 source, in a message and in a tool result", () => {
    const source = { type: "base64", media_type: "image/jpeg", data: url }
    const input = [
      { role: "assistant", content: [{ type: "tool_use", id: "t", name: "shot", input: {} }] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t", content: [{ type: "image", source }] },
          { type: "image", source }
        ]
      }
    ]
    assert.deepStrictEqual(decoded(AnthropicFormat.decode(input)), [std, std])
  })

  it("google: inline_data and inlineData, in a request and in a model answer", () => {
    assert.deepStrictEqual(
      decoded(
        GoogleFormat.decode([{ role: "user", parts: [{ inline_data: { mime_type: "image/jpeg", data: url } }] }])
      ),
      [std]
    )
    assert.deepStrictEqual(
      decoded(
        GoogleFormat.decode({
          contents: [{ role: "user", parts: [{ inlineData: { mimeType: "image/jpeg", data: url } }] }]
        })
      ),
      [std]
    )
    const answer = GoogleFormat.decodeResponse({
      candidates: [{
        content: { role: "model", parts: [{ inlineData: { mimeType: "image/jpeg", data: url } }] },
        finishReason: "STOP"
      }]
    })
    const blocks = Either.getOrThrow(answer).message.blocks as ReadonlyArray<Block.Block>
    assert.deepStrictEqual(blocks.flatMap((b) => b.type === "image" ? [b.data] : []), [std])
  })

  it("openai-responses: an input_image data URL", () => {
    const input = [{ role: "user", content: [{ type: "input_image", image_url: dataUrl(url), detail: "auto" }] }]
    assert.deepStrictEqual(decoded(OpenAiResponsesFormat.decode(input)), [std])
  })

  it("what comes out is what the other encoders send as it is", () => {
    const conversation = Either.getOrThrow(OpenAiFormat.decode(chat))
    const anthropic = Either.getOrThrow(AnthropicFormat.encode(conversation)) as { messages: ReadonlyArray<any> }
    assert.strictEqual(anthropic.messages[0].content[0].source.data, std)
  })
})
