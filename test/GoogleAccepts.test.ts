/**
 * The Gemini reader accepts what Google's API accepts: `contents`, `parts` and
 * `system_instruction.parts` given as a single object (Google's REST examples send them so), and a
 * part holding only metadata (`videoMetadata`), which becomes no block and is reported as lost.
 * Every error path still exists in the input.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Block from "openreward-effect/Block"
import * as Codec from "openreward-effect/Codec"
import type * as ConversionError from "openreward-effect/ConversionError"
import * as GoogleFormat from "openreward-effect/GoogleFormat"
import * as Message from "openreward-effect/Message"
import { pathExists } from "./utils/paths.js"

const listed = {
  system_instruction: { parts: [{ text: "Be brief." }] },
  contents: [{ role: "user", parts: [{ text: "Hi" }] }]
}
const expected = [Message.system([Block.text("Be brief.")]), Message.user([Block.text("Hi")])]

describe("Gemini single objects for repeated fields", () => {
  it("contents, parts and system_instruction.parts as single objects read as one-item lists", () => {
    assert.deepStrictEqual(Either.getOrThrow(GoogleFormat.decode(listed)), expected)
    const single = {
      system_instruction: { parts: { text: "Be brief." } },
      contents: { role: "user", parts: { text: "Hi" } }
    }
    assert.deepStrictEqual(Either.getOrThrow(GoogleFormat.decode(single)), expected)
    const camel = { systemInstruction: { parts: { text: "Be brief." } }, contents: { parts: [{ text: "Hi" }] } }
    assert.deepStrictEqual(Either.getOrThrow(GoogleFormat.decode(camel)), expected)
  })

  it("an error inside a single object names a path that exists in the input", () => {
    const inputs = [
      { contents: { role: "user", parts: { text: 5 } } },
      { contents: { role: "user", parts: { function_call: { name: "f" } } } },
      { contents: { role: "user", parts: {} } },
      { contents: [{ role: "user", parts: { file_data: { file_uri: "gs://x" } } }] },
      { system_instruction: { parts: { thought: true, text: "x" } }, contents: [] }
    ]
    for (const input of inputs) {
      const decoded = GoogleFormat.decode(input)
      assert.isTrue(Either.isLeft(decoded), JSON.stringify(input))
      const error = (decoded as Either.Left<ConversionError.DecodeError, unknown>).left
      assert.isTrue(pathExists(input, error.path), `${error.message} in ${JSON.stringify(input)}`)
    }
  })

  it("a part holding only videoMetadata becomes no block, and is reported as lost", () => {
    const input = {
      contents: [{
        role: "user",
        parts: [{ text: "What happens here?" }, { videoMetadata: { startOffset: "10s", endOffset: "20s" } }]
      }]
    }
    assert.deepStrictEqual(Either.getOrThrow(GoogleFormat.decode(input)), [
      Message.user([Block.text("What happens here?")])
    ])
    const { losses } = Either.getOrThrow(Codec.decodeReport(GoogleFormat.codec as Codec.Any, input))
    assert.deepStrictEqual(losses.map((l) => [l.field, l.path]), [["videoMetadata", [
      "contents",
      0,
      "parts",
      1,
      "videoMetadata"
    ]]])
  })

  it("an empty part is still an error", () => {
    const decoded = GoogleFormat.decode({ contents: [{ role: "user", parts: [{}] }] })
    assert.isTrue(Either.isLeft(decoded))
  })
})
