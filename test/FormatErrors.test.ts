/**
 * Each format's errors are the union it can really produce: `XFormat.EncodeError` and `DecodeError`
 * are made from the lists `encodeErrors` and `decodeErrors`, the compiler holds every encoder and
 * decoder to them (an error outside the list does not type-check), and here every listed tag is
 * produced by an input, so no tag is listed that cannot happen. docs/formats.md and each
 * docs/formats/*.md name the same errors (checked below).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Match from "effect/Match"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  AnthropicFormat,
  Block,
  type Conversation,
  type ConversionError,
  GoogleFormat,
  Message,
  OpenAiFormat,
  OpenAiResponsesFormat,
  OpenRouterFormat
} from "openreward-effect"

type Tag = ConversionError.ConversionError["_tag"]

// the canonical shapes a caller may hand over unchecked
const misplaced = [
  { role: "user", blocks: [{ type: "tool_call", id: "c", name: "f", input: {}, detail: null }], detail: null }
] as unknown as Conversation.Conversation
const image = Block.image("AAAA", "image/png")
const imageInSystem: Conversation.Conversation = [Message.system([image]), Message.user("hi")]
const laterSystem: Conversation.Conversation = [Message.user("hi"), Message.system("later")]
const imageInToolResult: Conversation.Conversation = [
  Message.assistant([Block.toolCall("c", "f", {})]),
  Message.user([Block.toolResult("c", [image])])
]
const unmatched: Conversation.Conversation = [Message.user([Block.toolResult("nobody", [Block.text("r")])])]
const reasoning: Conversation.Conversation = [Message.user("q"), Message.assistant([Block.reasoning("think")])]

const chatDecode = {
  MalformedInput: 5,
  InvalidToolArguments: [{
    role: "assistant",
    content: null,
    tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "not json" } }]
  }],
  UnsupportedContent: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "AA", format: "wav" } }] }]
}

interface Cases {
  readonly encode: (c: Conversation.Conversation) => Either.Either<unknown, { readonly _tag: Tag }>
  readonly decode: (u: unknown) => Either.Either<unknown, { readonly _tag: Tag }>
  readonly encodeErrors: ReadonlyArray<Tag>
  readonly decodeErrors: ReadonlyArray<Tag>
  readonly encodeCases: { readonly [T in Tag]?: Conversation.Conversation }
  readonly decodeCases: { readonly [T in Tag]?: unknown }
}

const formats: ReadonlyArray<readonly [string, Cases]> = [
  ["anthropic", {
    ...AnthropicFormat,
    encodeCases: { MisplacedBlock: misplaced, UnsupportedBlock: imageInSystem, UnsupportedMessage: laterSystem },
    decodeCases: {
      MalformedInput: 5,
      MisplacedBlock: { messages: [{ role: "user", content: [{ type: "tool_use", id: "c", name: "f", input: {} }] }] },
      UnsupportedContent: { messages: [{ role: "user", content: [{ type: "document", source: { type: "text" } }] }] }
    }
  }],
  ["google", {
    ...GoogleFormat,
    encodeCases: {
      MisplacedBlock: misplaced,
      UnsupportedBlock: reasoning,
      UnsupportedMessage: laterSystem,
      UnmatchedToolResult: unmatched
    },
    decodeCases: {
      MalformedInput: 5,
      MisplacedBlock: { contents: [{ role: "user", parts: [{ functionCall: { name: "f", args: {} } }] }] },
      UnmatchedToolResult: {
        contents: [{ role: "user", parts: [{ functionResponse: { name: "f", response: { output: "r" } } }] }]
      },
      InvalidToolArguments: { contents: [{ role: "model", parts: [{ functionCall: { name: "f", args: [1] } }] }] },
      UnsupportedContent: {
        contents: [{ role: "user", parts: [{ fileData: { fileUri: "gs://b/f.pdf", mimeType: "application/pdf" } }] }]
      }
    }
  }],
  ["openai", {
    ...OpenAiFormat,
    encodeCases: { MisplacedBlock: misplaced, UnsupportedBlock: imageInToolResult },
    decodeCases: chatDecode
  }],
  ["openrouter", {
    ...OpenRouterFormat,
    encodeCases: { MisplacedBlock: misplaced, UnsupportedBlock: imageInToolResult },
    decodeCases: chatDecode
  }],
  ["openai-responses", {
    ...OpenAiResponsesFormat,
    encodeCases: { MisplacedBlock: misplaced, UnsupportedBlock: [Message.user("q"), Message.assistant([image])] },
    decodeCases: {
      MalformedInput: 5,
      InvalidToolArguments: [{ type: "function_call", call_id: "c", name: "f", arguments: "not json" }],
      UnsupportedContent: [{ type: "web_search_call", id: "w", status: "completed" }]
    }
  }]
]

describe("each format fails with exactly the errors it lists", () => {
  for (const [name, format] of formats) {
    it(`${name}: every tag of encodeErrors is produced, and only those have cases`, () => {
      assert.deepStrictEqual(Object.keys(format.encodeCases).sort(), [...format.encodeErrors].sort())
      for (const tag of format.encodeErrors) {
        const result = format.encode(format.encodeCases[tag]!)
        assert.isTrue(Either.isLeft(result), `${tag}: encoded`)
        if (Either.isLeft(result)) assert.strictEqual(result.left._tag, tag)
      }
    })
    it(`${name}: every tag of decodeErrors is produced, and only those have cases`, () => {
      assert.deepStrictEqual(Object.keys(format.decodeCases).sort(), [...format.decodeErrors].sort())
      for (const tag of format.decodeErrors) {
        const result = format.decode(format.decodeCases[tag])
        assert.isTrue(Either.isLeft(result), `${tag}: decoded`)
        if (Either.isLeft(result)) assert.strictEqual(result.left._tag, tag)
      }
    })
  }

  it("an exhaustive match over a format's errors lists only its own cases", () => {
    // this compiles only because AnthropicFormat.EncodeError has exactly these three members
    const explain = Match.type<AnthropicFormat.EncodeError>().pipe(
      Match.tagsExhaustive({
        MisplacedBlock: (e) => `misplaced ${e.blockType}`,
        UnsupportedBlock: (e) => `unsupported ${e.blockType}`,
        UnsupportedMessage: (e) => `unsupported ${e.role} message`
      })
    )
    const result = AnthropicFormat.encode(laterSystem)
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) assert.strictEqual(explain(result.left), "unsupported system message")
  })
})

describe("the docs name every error a format can produce, and no other", () => {
  const read = (file: string) => fs.readFileSync(path.join(__dirname, "..", "docs", file), "utf8")
  /** The tags in the first column of the tables of a `## <title>` section. */
  const tagsOf = (page: string, title: string): ReadonlyArray<string> => {
    const start = page.indexOf(`\n## ${title}\n`)
    assert.isAtLeast(start, 0, `no "## ${title}" section`)
    const end = page.indexOf("\n## ", start + 1)
    const section = page.slice(start, end === -1 ? undefined : end)
    return [...new Set([...section.matchAll(/^\| `([A-Z][A-Za-z]+)`/gm)].map((m) => m[1]!))].sort()
  }

  for (const [name, format] of formats) {
    it(`docs/formats/${name}.md: "Encoding errors" and "Decoding errors" list exactly the format's tags`, () => {
      const page = read(`formats/${name}.md`)
      assert.deepStrictEqual(tagsOf(page, "Encoding errors"), [...format.encodeErrors].sort())
      assert.deepStrictEqual(tagsOf(page, "Decoding errors"), [...format.decodeErrors].sort())
    })
  }

  it("docs/formats.md: the table of each format's errors", () => {
    const page = read("formats.md")
    for (const [name, format] of formats) {
      const row = page.split("\n").find((line) => line.startsWith(`| \`${name}\` | \`${format.encodeErrors[0]}\``))
      assert.isDefined(row, `no row for ${name}`)
      const [, encode, decode] = row!.split(" | ")
      const tags = (cell: string | undefined) => [...(cell ?? "").matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!).sort()
      assert.deepStrictEqual(tags(encode), [...format.encodeErrors].sort(), `${name} encode`)
      assert.deepStrictEqual(tags(decode), [...format.decodeErrors].sort(), `${name} decode`)
    }
  })
})
