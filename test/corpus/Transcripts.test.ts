/**
 * Every stored transcript and request body in `../shared/corpora/transcripts/inputs/` (read in place:
 * agent trajectories, fine-tuning lines, recorded request bodies), decoded with the format it is
 * filed under: it converts faithfully, or it is refused with a typed error that names content the
 * canonical model cannot hold, at a path that exists in the input.
 *
 * Faithfully: what it lost is reported (`Codec.decodeReport`), and the conversation survives its own
 * format and every other: encoded back (with the options that keep the most) and decoded again, its
 * text, reasoning, tool calls and results come back in the same order, and that second encode is a
 * fixed point; to every other provider it encodes, or fails with one of that format's encode errors.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { type Block, Codec, type Conversation, Format } from "../../src/index.js"
import * as Corpus from "../utils/corpus.js"
import { pathExists } from "../utils/paths.js"

const providers = ["openai", "openrouter", "anthropic", "google", "openai-responses"] as const
type Provider = typeof providers[number]

/** The options that keep the most of a conversation, per format. */
const keepMost: { readonly [P in Provider]: { readonly [key: string]: unknown } } = {
  openai: { toolResultImages: "user-message" },
  openrouter: { toolResultImages: "tool-message" },
  anthropic: { laterSystem: "inline", reusedToolCallIds: "rename" },
  google: {
    reasoning: "thought",
    toolCallIds: true,
    reusedToolCallIds: "rename",
    toolErrors: "error",
    laterSystem: "user"
  },
  "openai-responses": { reasoningWithoutId: "text" }
}

/** What a decode may refuse: content with no canonical form, tool arguments that are no object. */
const refusals = new Set(["UnsupportedContent", "InvalidToolArguments"])

/** Inputs that are not the format they are filed under, and why (a MalformedInput is right). */
const notTheFormat: { readonly [file: string]: string } = {
  "transcripts/inputs/openai/swe-agent-function-calling-simple.json":
    "SWE-agent keeps tool_calls as a Python repr string and tool_call_ids (plural)",
  "transcripts/inputs/openai/swe-agent-marshmallow-function-calling.json":
    "SWE-agent keeps tool_calls as a Python repr string and tool_call_ids (plural)"
}

/**
 * Inputs that decode but do not encode back to their own format yet, and why: each is a known gap of
 * an encoder (it fails with a typed error, never writes something else).
 */
const notBack: { readonly [file: string]: string } = {
  "transcripts/inputs/google/pai-google3-image-function-response.json":
    "Gemini 3 function_response.parts (an image a tool returned) decode into a tool result; the encoder sends " +
    "a function_response's text only"
}

/** The content of a conversation in order, message boundaries and ids aside. */
const content = (conversation: Conversation.Conversation): ReadonlyArray<string> =>
  conversation.flatMap((message) =>
    (message.blocks as ReadonlyArray<Block.Block>).flatMap((block): ReadonlyArray<string> => {
      switch (block.type) {
        case "text":
          return block.text === "" ? [] : [`text ${block.text}`]
        case "image":
          return [`image ${block.mimeType} ${block.data.length}`]
        case "reasoning":
          return block.text === "" ? [] : [`reasoning ${block.text}`]
        case "tool_call":
          return [`call ${block.name} ${JSON.stringify(block.input)}`]
        case "tool_result":
          return [
            `result ${
              block.blocks.map((b) => b.type === "text" ? b.text : `image ${b.mimeType} ${b.data.length}`).join("\n")
            }`
          ]
        case "provider":
          return [`provider ${block.provider} ${block.kind} ${JSON.stringify(block.item)}`]
      }
    })
  )

describe("stored transcripts", () => {
  for (const format of providers) {
    const files = Corpus.transcripts(format)
    it(`${format}: the corpus has transcripts`, () => {
      assert.isAbove(files.length, 0)
    })
    for (const { body, file } of files) {
      it(`${file}: converts faithfully or is refused for content the canonical model cannot hold`, () => {
        const codec = Format.codecs[format] as Codec.Any
        const reported = Codec.decodeReport(codec, body)
        if (Either.isLeft(reported)) {
          const error = reported.left
          assert.isTrue(pathExists(body, error.path), `${error.message}: the path is not in the input`)
          if (notTheFormat[file] !== undefined) return assert.strictEqual(error._tag, "MalformedInput")
          assert.isTrue(refusals.has(error._tag), `${file}: ${error.message}`)
          if (error._tag === "UnsupportedContent") assert.include(error.message, "no canonical form")
          return
        }
        const conversation = reported.right.value
        for (const loss of reported.right.losses) {
          assert.strictEqual(loss.direction, "decode")
          assert.isTrue(pathExists(body, loss.path), `${loss.message}: the path is not in the input`)
        }
        // its own format and back: the same content, and a fixed point
        const wire = codec.encode(conversation, keepMost[format])
        if (Either.isLeft(wire)) {
          if (notBack[file] !== undefined) return assert.strictEqual(wire.left._tag, "UnsupportedBlock")
          return assert.fail(`${file}: encode: ${wire.left.message}`)
        }
        assert.isUndefined(notBack[file], `${file} encodes back now: remove it from notBack`)
        const again = codec.decode(JSON.parse(JSON.stringify(wire.right)))
        if (Either.isLeft(again)) return assert.fail(`${file}: decode again: ${again.left.message}`)
        assert.deepStrictEqual(content(again.right), content(conversation), file)
        assert.deepStrictEqual(codec.encode(again.right, keepMost[format]), wire)
        // every other provider: encoded, or one of its typed encode errors
        for (const to of providers) {
          const encoded = (Format.codecs[to] as Codec.Any).encode(conversation, keepMost[to])
          if (Either.isLeft(encoded)) {
            assert.include(
              Format.codecs[to] === undefined ? [] : encodeErrorsOf(to),
              encoded.left._tag,
              `${file} to ${to}`
            )
          }
        }
      })
    }
  }
})

const encodeErrorsOf = (to: Provider): ReadonlyArray<string> =>
  to === "google" ?
    ["MisplacedBlock", "UnsupportedBlock", "UnsupportedMessage", "UnmatchedToolResult"]
    : to === "anthropic" ?
    ["MisplacedBlock", "UnsupportedBlock", "UnsupportedMessage"]
    : ["MisplacedBlock", "UnsupportedBlock"]
