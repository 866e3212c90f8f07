import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { Block, Conversation, ConversionError, Json, Message } from "openreward-effect"
import * as Codec from "openreward-effect/Codec"
import * as GoogleFormat from "openreward-effect/GoogleFormat"
import { unique } from "../src/internal/toolCallIds.js"
import { standardImages } from "./utils/base64.js"
import { codecLaws, withProviderBlocks } from "./utils/codecLaws.js"
import { guardLaws } from "./utils/guardLaws.js"

/** `normalize` as the format's page lists it, then image data as every decode reads it (utils/base64.ts). */
function normalize(conversation: Conversation.Conversation, options?: Options): Conversation.Conversation {
  // results pair with their calls by position (reused ids: src/internal/toolCallIds.ts)
  return standardImages(normalizeAsWritten(unique(conversation), options))
}

// -----------------------------------------------------------------------------
// helpers
// -----------------------------------------------------------------------------

const right = <A, E>(result: Either.Either<A, E>): A => {
  if (Either.isLeft(result)) return assert.fail(`expected a Right, got ${String(result.left)}`)
  return result.right
}

const left = <A, E>(result: Either.Either<A, E>): E => {
  if (Either.isRight(result)) return assert.fail(`expected a Left, got ${JSON.stringify(result.right)}`)
  return result.left
}

/** Canonical wire JSON (as the seed page writes it) to a conversation. */
const canonical = (input: unknown): Conversation.Conversation => right(Conversation.decode(input))

/** Messages that skip placement validation, as a client that builds them by hand might. */
const unchecked = (input: ReadonlyArray<{ readonly role: string; readonly blocks: ReadonlyArray<unknown> }>) =>
  input.map((m) => ({ detail: null, ...m })) as unknown as Conversation.Conversation

/** Byte equality of the JSON, so key order counts. */
const assertJson = (actual: unknown, expected: unknown) =>
  assert.strictEqual(JSON.stringify(actual), JSON.stringify(expected))

const seedSupport = [
  { role: "system", blocks: [{ type: "text", text: "You are a support agent for Acme." }] },
  { role: "user", blocks: [{ type: "text", text: "My order hasn't arrived." }] },
  { role: "assistant", blocks: [{ type: "text", text: "Sorry to hear that — what's the order number?" }] },
  { role: "user", blocks: [{ type: "text", text: "It's #4411, ordered two weeks ago." }] }
]

const seedRich = [
  { role: "user", blocks: [{ type: "text", text: "My order #4411 hasn't arrived." }] },
  {
    role: "assistant",
    blocks: [
      { type: "reasoning", text: "Two weeks late — check the carrier first." },
      { type: "tool_call", id: "tc_1", name: "lookup_order", input: { id: "4411" } }
    ]
  },
  {
    role: "user",
    blocks: [{
      type: "tool_result",
      tool_call_id: "tc_1",
      blocks: [{ type: "text", text: "{\"status\": \"stalled_at_hub\"}" }]
    }]
  }
]

// -----------------------------------------------------------------------------
// encode: golden output of the reference SDK
// (`convert_messages(msgs, "google")`, openreward 0.1.167, client dataclasses built with
// `client._parse_blocks`; expected literals pasted from its output)
// -----------------------------------------------------------------------------

describe("GoogleFormat.encode (reference output)", () => {
  it("the seed page's support dialogue: leading system hoisted, assistant as model", () => {
    assertJson(right(GoogleFormat.encode(canonical(seedSupport))), {
      system_instruction: "You are a support agent for Acme.",
      contents: [
        { role: "user", parts: [{ text: "My order hasn't arrived." }] },
        { role: "model", parts: [{ text: "Sorry to hear that — what's the order number?" }] },
        { role: "user", parts: [{ text: "It's #4411, ordered two weeks ago." }] }
      ]
    })
  })

  it("the seed page's rich conversation raises on its reasoning block", () => {
    const error = left(GoogleFormat.encode(canonical(seedRich)))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnsupportedBlock({
        format: "google",
        path: [1, "blocks", 0],
        messageIndex: 1,
        blockIndex: 0,
        blockType: "reasoning",
        reason:
          "Gemini has no input form for plain-text reasoning; encode with { reasoning: \"thought\" } to send it as thought parts, or use the anthropic format"
      })
    )
  })

  it("the rich conversation without reasoning: function_call without id, function_response by name", () => {
    const conversation = canonical(seedRich.map((m, i) => i === 1 ? { ...m, blocks: m.blocks.slice(1) } : m))
    assertJson(right(GoogleFormat.encode(conversation)), {
      system_instruction: null,
      contents: [
        { role: "user", parts: [{ text: "My order #4411 hasn't arrived." }] },
        { role: "model", parts: [{ function_call: { name: "lookup_order", args: { id: "4411" } } }] },
        {
          role: "user",
          parts: [{
            function_response: { name: "lookup_order", response: { output: "{\"status\": \"stalled_at_hub\"}" } }
          }]
        }
      ]
    })
  })

  it("joins the text of every leading system message with a blank line", () => {
    const conversation = canonical([
      { role: "system", blocks: [{ type: "text", text: "A" }, { type: "text", text: "B" }] },
      { role: "system", blocks: [{ type: "text", text: "C" }] },
      { role: "user", blocks: [{ type: "text", text: "hi" }] }
    ])
    assertJson(right(GoogleFormat.encode(conversation)), {
      system_instruction: "A\n\nB\n\nC",
      contents: [{ role: "user", parts: [{ text: "hi" }] }]
    })
  })

  it("system_instruction is null without system text, \"\" for an empty text block", () => {
    assertJson(
      right(GoogleFormat.encode(canonical([{ role: "system", blocks: [] }, { role: "user", blocks: [] }]))),
      { system_instruction: null, contents: [{ role: "user", parts: [] }] }
    )
    assertJson(
      right(GoogleFormat.encode(canonical([{ role: "system", blocks: [{ type: "text", text: "" }] }]))),
      { system_instruction: "", contents: [] }
    )
    assertJson(right(GoogleFormat.encode([])), { system_instruction: null, contents: [] })
    assertJson(right(GoogleFormat.encode([Message.system("S")])), { system_instruction: "S", contents: [] })
  })

  it("images, argument key order, tool-result text joined with \\n, is_error and detail dropped, no merging", () => {
    const conversation = canonical([
      {
        role: "user",
        blocks: [
          { type: "text", text: "What is this?" },
          { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png", detail: { k: 1 } }
        ],
        detail: { m: true }
      },
      {
        role: "assistant",
        blocks: [
          { type: "text", text: "A cat." },
          { type: "image", data: "R0lGOD==", mimeType: "image/gif" },
          { type: "tool_call", id: "c1", name: "zoom", input: { z: 2, a: [1, { b: null }], "ü": "é" } }
        ]
      },
      {
        role: "user",
        blocks: [
          { type: "text", text: "before" },
          {
            type: "tool_result",
            tool_call_id: "c1",
            is_error: true,
            blocks: [{ type: "text", text: "line1" }, { type: "text", text: "line2" }]
          },
          { type: "text", text: "after" }
        ]
      },
      { role: "user", blocks: [{ type: "tool_result", tool_call_id: "c1", blocks: [] }] },
      { role: "assistant", blocks: [] }
    ])
    assertJson(right(GoogleFormat.encode(conversation)), {
      system_instruction: null,
      contents: [
        {
          role: "user",
          parts: [{ text: "What is this?" }, { inline_data: { mime_type: "image/png", data: "iVBORw0KGgo=" } }]
        },
        {
          role: "model",
          parts: [
            { text: "A cat." },
            { inline_data: { mime_type: "image/gif", data: "R0lGOD==" } },
            { function_call: { name: "zoom", args: { z: 2, a: [1, { b: null }], "ü": "é" } } }
          ]
        },
        {
          role: "user",
          parts: [
            { text: "before" },
            { function_response: { name: "zoom", response: { output: "line1\nline2" } } },
            { text: "after" }
          ]
        },
        { role: "user", parts: [{ function_response: { name: "zoom", response: { output: "" } } }] },
        { role: "model", parts: [] }
      ]
    })
  })

  it("resolves names over the whole conversation: a later call counts, the last call with an id wins", () => {
    const conversation = canonical([
      {
        role: "user",
        blocks: [{ type: "tool_result", tool_call_id: "x", blocks: [{ type: "text", text: "early" }] }]
      },
      { role: "assistant", blocks: [{ type: "tool_call", id: "x", name: "first", input: {} }] },
      { role: "assistant", blocks: [{ type: "tool_call", id: "x", name: "second", input: {} }] }
    ])
    assertJson(right(GoogleFormat.encode(conversation)), {
      system_instruction: null,
      contents: [
        { role: "user", parts: [{ function_response: { name: "second", response: { output: "early" } } }] },
        { role: "model", parts: [{ function_call: { name: "first", args: {} } }] },
        { role: "model", parts: [{ function_call: { name: "second", args: {} } }] }
      ]
    })
  })
})

// -----------------------------------------------------------------------------
// encode: errors (each one raises in the reference too)
// -----------------------------------------------------------------------------

describe("GoogleFormat.encode errors", () => {
  it("a reasoning block: UnsupportedBlock", () => {
    const error = left(GoogleFormat.encode([
      Message.user("q"),
      Message.assistant([Block.text("t"), Block.reasoning("r", { signature: "s" })])
    ]))
    assert.strictEqual(error._tag, "UnsupportedBlock")
    assert.deepStrictEqual(error.path, [1, "blocks", 1])
    assert.strictEqual(
      error.message,
      "google: message 1, block 1: cannot represent a \"reasoning\" block: Gemini has no input form for plain-text reasoning; encode with { reasoning: \"thought\" } to send it as thought parts, or use the anthropic format"
    )
  })

  it("a system message after the first non-system turn: UnsupportedMessage", () => {
    const error = left(GoogleFormat.encode([Message.user("q"), Message.system("late")]))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnsupportedMessage({
        format: "google",
        path: [1],
        messageIndex: 1,
        role: "system",
        reason:
          "Gemini takes one system_instruction, built from the system messages that open the conversation; move this message to the start"
      })
    )
    assert.strictEqual(
      error.message,
      "google: message 1: cannot represent this \"system\" message: Gemini takes one system_instruction, built from the system messages that open the conversation; move this message to the start"
    )
  })

  it("an image in a leading system message: UnsupportedBlock", () => {
    const error = left(GoogleFormat.encode([Message.system([Block.text("s"), Block.image("AA==", "image/png")])]))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnsupportedBlock({
        format: "google",
        path: [0, "blocks", 1],
        messageIndex: 0,
        blockIndex: 1,
        blockType: "image",
        reason: "system_instruction is text only, so a system message may hold only text blocks"
      })
    )
    assert.strictEqual(
      error.message,
      "google: message 0, block 1: cannot represent an \"image\" block: system_instruction is text only, so a system message may hold only text blocks"
    )
  })

  it("a tool result that no tool call answers: UnmatchedToolResult", () => {
    const error = left(GoogleFormat.encode([Message.user([Block.text("q"), Block.toolResult("nope", [])])]))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnmatchedToolResult({
        format: "google",
        path: [0, "blocks", 1],
        messageIndex: 0,
        blockIndex: 1,
        toolCallId: "nope",
        reason:
          "no tool_call in the conversation has this id, and Gemini addresses a function_response by the function's name"
      })
    )
    assert.strictEqual(
      error.message,
      "google: message 0, block 1: tool result \"nope\" has no matching tool call: no tool_call in the conversation has this id, and Gemini addresses a function_response by the function's name"
    )
  })

  it("an image inside a tool result: UnsupportedBlock with the inner path", () => {
    const error = left(GoogleFormat.encode([
      Message.assistant([Block.toolCall("c", "shot")]),
      Message.user([Block.toolResult("c", [Block.text("ok"), Block.image("AA==", "image/png")])])
    ]))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnsupportedBlock({
        format: "google",
        path: [1, "blocks", 0, "blocks", 1],
        messageIndex: 1,
        blockIndex: 0,
        blockType: "image",
        reason: "a function_response carries text only (in response.output), so a tool result may not hold images"
      })
    )
    assert.strictEqual(
      error.message,
      "google: message 1, block 0: cannot represent an \"image\" block: a function_response carries text only (in response.output), so a tool result may not hold images"
    )
  })

  it("re-checks placement: MisplacedBlock", () => {
    const error = left(GoogleFormat.encode(unchecked([
      { role: "assistant", blocks: [Block.toolResult("c", [])] }
    ])))
    assert.deepStrictEqual(
      error,
      new ConversionError.MisplacedBlock({
        path: [0, "blocks", 0],
        messageIndex: 0,
        blockIndex: 0,
        role: "assistant",
        blockType: "tool_result"
      })
    )
  })

  // Which error wins when a conversation has several problems: the reference checks placement
  // first, then system messages in order, then the other blocks in order, and for a tool result
  // its call's name before its content. Each expectation below was observed on the reference.
  const firstError = (conversation: Conversation.Conversation) => {
    const error = left(GoogleFormat.encode(conversation))
    return [error._tag, error.path] as const
  }

  it("placement beats a later system message", () => {
    assert.deepStrictEqual(
      firstError(unchecked([
        { role: "user", blocks: [Block.text("q")] },
        { role: "system", blocks: [Block.text("late")] },
        { role: "user", blocks: [Block.reasoning("r")] }
      ])),
      ["MisplacedBlock", [2, "blocks", 0]]
    )
  })

  it("a later system message beats an earlier reasoning block or unmatched tool result", () => {
    assert.deepStrictEqual(
      firstError([Message.user("q"), Message.assistant([Block.reasoning("r")]), Message.system("late")]),
      ["UnsupportedMessage", [2]]
    )
    assert.deepStrictEqual(
      firstError([Message.user([Block.toolResult("nope", [])]), Message.system([Block.image("AA==", "image/png")])]),
      ["UnsupportedMessage", [1]]
    )
  })

  it("system messages are checked in order: a leading image beats a later system message", () => {
    assert.deepStrictEqual(
      firstError([Message.system([Block.image("AA==", "image/png")]), Message.user([]), Message.system("late")]),
      ["UnsupportedBlock", [0, "blocks", 0]]
    )
  })

  it("a later system message is reported as a message, even when it holds an image", () => {
    assert.deepStrictEqual(
      firstError([Message.user([]), Message.system([Block.image("AA==", "image/png")])]),
      ["UnsupportedMessage", [1]]
    )
  })

  it("a tool result's missing call beats the image inside it", () => {
    assert.deepStrictEqual(
      firstError([Message.user([Block.toolResult("nope", [Block.image("AA==", "image/png")])])]),
      ["UnmatchedToolResult", [0, "blocks", 0]]
    )
  })

  it("other blocks in document order", () => {
    assert.deepStrictEqual(
      firstError([
        Message.assistant([Block.toolCall("c", "shot")]),
        Message.user([Block.toolResult("c", [Block.image("AA==", "image/png")])]),
        Message.assistant([Block.reasoning("r")])
      ]),
      ["UnsupportedBlock", [1, "blocks", 0, "blocks", 0]]
    )
    assert.deepStrictEqual(
      firstError([Message.assistant([Block.reasoning("r")]), Message.user([Block.toolResult("nope", [])])]),
      ["UnsupportedBlock", [0, "blocks", 0]]
    )
  })
})

// -----------------------------------------------------------------------------
// encode: options beyond the reference
// -----------------------------------------------------------------------------

const toolConversation = [
  Message.system("Be terse."),
  Message.user([Block.text("Look at this"), Block.image("iVBOR", "image/png")]),
  Message.assistant([Block.toolCall("call_a", "lookup", { id: "7" })]),
  Message.user([Block.toolResult("call_a", "not found", { isError: true })])
]

describe("GoogleFormat.encode options", () => {
  it("casing: \"camel\" spells every key as the JS SDK reads it (and the result type says so)", () => {
    const wire: GoogleFormat.Request<"camel"> = right(GoogleFormat.encode(toolConversation, { casing: "camel" }))
    const snake: GoogleFormat.Request<"snake"> = right(GoogleFormat.encode(toolConversation))
    assert.strictEqual(wire.systemInstruction, snake.system_instruction)
    assertJson(wire, {
      systemInstruction: "Be terse.",
      contents: [
        { role: "user", parts: [{ text: "Look at this" }, { inlineData: { mimeType: "image/png", data: "iVBOR" } }] },
        { role: "model", parts: [{ functionCall: { name: "lookup", args: { id: "7" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "lookup", response: { output: "not found" } } }] }
      ]
    })
  })

  it("systemInstruction: \"content\" wraps the joined text in a Content", () => {
    const wire = right(
      GoogleFormat.encode([Message.system("A"), Message.system("B")], { systemInstruction: "content" })
    )
    assertJson(wire, { system_instruction: { parts: [{ text: "A\n\nB" }] }, contents: [] })
    assertJson(right(GoogleFormat.encode([], { systemInstruction: "content" })), {
      system_instruction: null,
      contents: []
    })
  })

  it("toolCallIds: true sends the ids on calls and responses", () => {
    const wire = right(GoogleFormat.encode(toolConversation, { toolCallIds: true }))
    assertJson(wire.contents.slice(1), [
      { role: "model", parts: [{ function_call: { id: "call_a", name: "lookup", args: { id: "7" } } }] },
      {
        role: "user",
        parts: [{ function_response: { id: "call_a", name: "lookup", response: { output: "not found" } } }]
      }
    ])
  })

  it("toolErrors: \"error\" puts an error result's text under response.error", () => {
    const wire = right(GoogleFormat.encode(toolConversation, { toolErrors: "error" }))
    assertJson(wire.contents[2], {
      role: "user",
      parts: [{ function_response: { name: "lookup", response: { error: "not found" } } }]
    })
    const ok = right(GoogleFormat.encode(
      [toolConversation[2]!, Message.user([Block.toolResult("call_a", "found")])],
      { toolErrors: "error" }
    ))
    assertJson(ok.contents[1], {
      role: "user",
      parts: [{ function_response: { name: "lookup", response: { output: "found" } } }]
    })
  })

  it("reasoning: \"thought\" sends thought parts and puts a lone signature on the next part", () => {
    const conversation = [
      Message.user("q"),
      Message.assistant([
        Block.reasoning("Check the carrier.", { signature: "sig1" }),
        Block.reasoning("unsigned"),
        Block.reasoning("", { signature: "sig2" }),
        Block.toolCall("c", "track", { id: "4411" }),
        Block.reasoning("", { signature: "sig3" }),
        Block.text("Tracking it."),
        Block.reasoning("", { signature: "sig4" })
      ])
    ]
    assert.strictEqual(left(GoogleFormat.encode(conversation))._tag, "UnsupportedBlock")
    const wire = right(GoogleFormat.encode(conversation, { reasoning: "thought" }))
    assertJson(wire.contents[1], {
      role: "model",
      parts: [
        { text: "Check the carrier.", thought: true, thought_signature: "sig1" },
        { text: "unsigned", thought: true },
        { function_call: { name: "track", args: { id: "4411" } }, thought_signature: "sig2" },
        { text: "Tracking it.", thought_signature: "sig3" },
        { text: "", thought: true, thought_signature: "sig4" }
      ]
    })
    const camel = right(GoogleFormat.encode(conversation, { reasoning: "thought", casing: "camel" }))
    assertJson(camel.contents[1]!.parts[2], {
      functionCall: { name: "track", args: { id: "4411" } },
      thoughtSignature: "sig2"
    })
  })

  it("laterSystem: \"user\" sends a later system message in place as a user turn", () => {
    const conversation = [
      Message.system("lead"),
      Message.user("q"),
      Message.system([Block.text("Now answer in French."), Block.image("AA==", "image/png")])
    ]
    assert.strictEqual(left(GoogleFormat.encode(conversation))._tag, "UnsupportedMessage")
    assertJson(right(GoogleFormat.encode(conversation, { laterSystem: "user" })), {
      system_instruction: "lead",
      contents: [
        { role: "user", parts: [{ text: "q" }] },
        {
          role: "user",
          parts: [{ text: "Now answer in French." }, { inline_data: { mime_type: "image/png", data: "AA==" } }]
        }
      ]
    })
    assert.strictEqual(
      left(GoogleFormat.encode([Message.system([Block.image("AA==", "image/png")])], { laterSystem: "user" }))._tag,
      "UnsupportedBlock"
    )
  })
})

// -----------------------------------------------------------------------------
// decode
// -----------------------------------------------------------------------------

describe("GoogleFormat.decode", () => {
  it("reads the reference's output back, with deterministic call ids", () => {
    const wire = {
      system_instruction: "You are a support agent for Acme.",
      contents: [
        { role: "user", parts: [{ text: "My order #4411 hasn't arrived." }] },
        { role: "model", parts: [{ function_call: { name: "lookup_order", args: { id: "4411" } } }] },
        {
          role: "user",
          parts: [{ function_response: { name: "lookup_order", response: { output: "stalled at hub" } } }]
        }
      ]
    }
    assert.deepStrictEqual(right(GoogleFormat.decode(wire)), [
      Message.system("You are a support agent for Acme."),
      Message.user("My order #4411 hasn't arrived."),
      Message.assistant([Block.toolCall("call_1_0", "lookup_order", { id: "4411" })]),
      Message.user([Block.toolResult("call_1_0", "stalled at hub")])
    ])
  })

  it("reads a camelCase REST body (Gemini 3 style, signature beside the functionCall), ignoring request keys and hints", () => {
    const body = {
      systemInstruction: { parts: [{ text: "Be terse." }] },
      contents: [
        {
          role: "user",
          parts: [
            { text: "Weather here?", partMetadata: { source: "chat" } },
            {
              inlineData: { mimeType: "image/png", data: "iVBOR" },
              mediaResolution: { level: "MEDIA_RESOLUTION_LOW" }
            },
            { inlineData: { mimeType: "audio/wav", data: "UklG" } }
          ]
        },
        {
          role: "model",
          parts: [{ functionCall: { name: "weather", args: { city: "Paris" } }, thoughtSignature: "CsQCAdHt" }]
        },
        {
          role: "user",
          parts: [{ functionResponse: { name: "weather", response: { output: "18 C" }, willContinue: false } }]
        }
      ],
      tools: [{ functionDeclarations: [{ name: "weather", parameters: { type: "OBJECT" } }] }],
      toolConfig: { functionCallingConfig: { mode: "AUTO" } },
      generationConfig: { temperature: 0, thinkingConfig: { includeThoughts: true } },
      safetySettings: []
    }
    assert.deepStrictEqual(right(GoogleFormat.decode(body)), [
      Message.system("Be terse."),
      Message.user([Block.text("Weather here?"), Block.image("iVBOR", "image/png"), Block.image("UklG", "audio/wav")]),
      Message.assistant([
        Block.reasoning("", { signature: "CsQCAdHt" }),
        Block.toolCall("call_1_0", "weather", { city: "Paris" })
      ]),
      Message.user([Block.toolResult("call_1_0", "18 C")])
    ])
  })

  it("reads mixed spellings in one body (LiteLLM style) and never re-cases user data", () => {
    const body = {
      system_instruction: { parts: [{ text: "S" }] },
      contents: [{
        role: "model",
        parts: [{
          function_call: { name: "f", args: { snake_key: 1, camelKey: { inner_key: 2 } } },
          thoughtSignature: "s"
        }]
      }],
      generationConfig: { maxOutputTokens: 10 }
    }
    assert.deepStrictEqual(right(GoogleFormat.decode(body)), [
      Message.system("S"),
      Message.assistant([
        Block.reasoning("", { signature: "s" }),
        Block.toolCall("call_0_0", "f", { snake_key: 1, camelKey: { inner_key: 2 } })
      ])
    ])
  })

  it("treats null as unset (a Python SDK model_dump())", () => {
    const dumped = {
      system_instruction: null,
      contents: [{
        role: "user",
        parts: [{
          video_metadata: null,
          thought: null,
          inline_data: null,
          file_data: null,
          thought_signature: null,
          code_execution_result: null,
          executable_code: null,
          function_call: null,
          function_response: null,
          text: "hi"
        }]
      }],
      config: null
    }
    assert.deepStrictEqual(right(GoogleFormat.decode(dumped)), [Message.user("hi")])
  })

  it("reads the system instruction from an SDK config (JS SDK generateContent parameters)", () => {
    const params = {
      model: "gemini-2.5-flash",
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      config: { systemInstruction: "Be terse.", temperature: 0 }
    }
    assert.deepStrictEqual(right(GoogleFormat.decode(params)), [Message.system("Be terse."), Message.user("hi")])
  })

  it("reads a bare contents array; a missing role is user, the legacy role function is user", () => {
    const contents = [
      { parts: [{ text: "hi" }] },
      { role: "model", parts: [{ functionCall: { name: "f" } }] },
      { role: "function", parts: [{ functionResponse: { name: "f", response: { output: "done" } } }] },
      { role: "model" }
    ]
    assert.deepStrictEqual(right(GoogleFormat.decode(contents)), [
      Message.user("hi"),
      Message.assistant([Block.toolCall("call_1_0", "f", {})]),
      Message.user([Block.toolResult("call_1_0", "done")]),
      Message.assistant([])
    ])
  })

  it("a system instruction Content keeps one block per part, images included; an empty one is an empty system message", () => {
    assert.deepStrictEqual(
      right(GoogleFormat.decode({
        contents: [],
        system_instruction: {
          role: "system",
          parts: [{ text: "A" }, { inline_data: { mime_type: "image/png", data: "AA==" } }]
        }
      })),
      [Message.system([Block.text("A"), Block.image("AA==", "image/png")])]
    )
    assert.deepStrictEqual(right(GoogleFormat.decode({ contents: [], systemInstruction: { parts: [] } })), [
      Message.system([])
    ])
    assert.deepStrictEqual(right(GoogleFormat.decode({ contents: [], system_instruction: "" })), [Message.system("")])
  })

  it("thought parts and thought signatures become reasoning blocks", () => {
    const contents = [{
      role: "model",
      parts: [
        { text: "Let me think.", thought: true, thoughtSignature: "sig1" },
        { text: "Plain thought.", thought: true },
        { text: "The answer is 4.", thoughtSignature: "sig2" },
        { thoughtSignature: "sig3" },
        { text: "Not a thought.", thought: false },
        { inlineData: { mimeType: "image/png", data: "AA==" }, thoughtSignature: "sig4" }
      ]
    }]
    assert.deepStrictEqual(right(GoogleFormat.decode(contents)), [
      Message.assistant([
        Block.reasoning("Let me think.", { signature: "sig1" }),
        Block.reasoning("Plain thought."),
        Block.reasoning("", { signature: "sig2" }),
        Block.text("The answer is 4."),
        Block.reasoning("", { signature: "sig3" }),
        Block.text("Not a thought."),
        Block.reasoning("", { signature: "sig4" }),
        Block.image("AA==", "image/png")
      ])
    ])
  })

  it("function responses: {output: string} is text, {error} is an error, any other object is its JSON", () => {
    const call = { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] }
    const respond = (response: unknown) =>
      right(GoogleFormat.decode([call, { role: "user", parts: [{ functionResponse: { name: "f", response } }] }]))[1]
    assert.deepStrictEqual(respond({ output: "ok" }), Message.user([Block.toolResult("call_0_0", "ok")]))
    assert.deepStrictEqual(
      respond({ error: "boom" }),
      Message.user([Block.toolResult("call_0_0", "boom", { isError: true })])
    )
    assert.deepStrictEqual(
      respond({ result: { temp: 18, "ü": "é" } }),
      Message.user([Block.toolResult("call_0_0", "{\"result\":{\"temp\":18,\"ü\":\"é\"}}")])
    )
    assert.deepStrictEqual(
      respond({ output: { temp: 18 } }),
      Message.user([Block.toolResult("call_0_0", "{\"output\":{\"temp\":18}}")])
    )
    assert.deepStrictEqual(
      respond({ output: "partial", error: { code: 7 } }),
      Message.user([Block.toolResult("call_0_0", "{\"output\":\"partial\",\"error\":{\"code\":7}}", { isError: true })])
    )
    assert.deepStrictEqual(respond({}), Message.user([Block.toolResult("call_0_0", "{}")]))
    assert.deepStrictEqual(respond(null), Message.user([Block.toolResult("call_0_0", [])]))
  })

  it("multimodal function responses (Gemini 3): inline images in parts follow the text", () => {
    const contents = [
      { role: "model", parts: [{ functionCall: { name: "shot", args: {} } }] },
      {
        role: "user",
        parts: [{
          functionResponse: {
            name: "shot",
            response: { output: "see image" },
            parts: [{ inlineData: { mimeType: "image/png", data: "AA==" } }]
          }
        }]
      }
    ]
    assert.deepStrictEqual(
      right(GoogleFormat.decode(contents))[1],
      Message.user([
        Block.toolResult("call_0_0", [Block.text("see image"), Block.image("AA==", "image/png")])
      ])
    )
  })
})

describe("GoogleFormat.decode pairing and ids", () => {
  const call = (name: string, id?: string) => ({
    functionCall: { ...(id === undefined ? {} : { id }), name, args: {} }
  })
  const response = (name: string, output: string, id?: string) => ({
    functionResponse: { ...(id === undefined ? {} : { id }), name, response: { output } }
  })
  const resultIds = (contents: ReadonlyArray<unknown>) =>
    right(GoogleFormat.decode(contents)).flatMap((m) =>
      (m.blocks as ReadonlyArray<Block.Block>).flatMap((b) =>
        b.type === "tool_result" ? [`${b.tool_call_id}<-${(b.blocks[0] as Block.TextBlock).text}`] : []
      )
    )

  it("parallel calls without ids: responses pair by name, in any order", () => {
    assert.deepStrictEqual(
      resultIds([
        { role: "model", parts: [call("get"), call("put")] },
        { role: "user", parts: [response("put", "p"), response("get", "g")] }
      ]),
      ["call_0_1<-p", "call_0_0<-g"]
    )
  })

  it("same-name calls pair with the earliest unanswered call; a repeat answers the latest earlier call", () => {
    assert.deepStrictEqual(
      resultIds([
        { role: "model", parts: [call("search"), call("search")] },
        { role: "user", parts: [response("search", "1"), response("search", "2")] },
        { role: "user", parts: [response("search", "again")] }
      ]),
      ["call_0_0<-1", "call_0_1<-2", "call_0_1<-again"]
    )
  })

  it("a response before any call of its name pairs with the first later call", () => {
    assert.deepStrictEqual(
      resultIds([{ role: "user", parts: [response("f", "early")] }, { role: "model", parts: [call("f")] }]),
      ["call_1_0<-early"]
    )
  })

  it("ids on both sides pair by id", () => {
    const decoded = right(GoogleFormat.decode([
      { role: "model", parts: [call("f", "a"), call("f", "b")] },
      { role: "user", parts: [response("f", "B", "b"), response("f", "A", "a")] }
    ]))
    assert.deepStrictEqual(decoded, [
      Message.assistant([Block.toolCall("a", "f", {}), Block.toolCall("b", "f", {})]),
      Message.user([Block.toolResult("b", "B"), Block.toolResult("a", "A")])
    ])
  })

  it("a call without id takes the id of the response that answers it (Effect v3 style)", () => {
    const decoded = right(GoogleFormat.decode([
      { role: "model", parts: [call("f"), call("f")] },
      { role: "user", parts: [response("f", "1", "tool_1"), response("f", "2", "tool_2")] },
      { role: "user", parts: [response("f", "1 again", "tool_1")] }
    ]))
    assert.deepStrictEqual(decoded, [
      Message.assistant([Block.toolCall("tool_1", "f", {}), Block.toolCall("tool_2", "f", {})]),
      Message.user([Block.toolResult("tool_1", "1"), Block.toolResult("tool_2", "2")]),
      Message.user([Block.toolResult("tool_1", "1 again")])
    ])
  })

  it("generated ids never collide with ids in the transcript", () => {
    const decoded = right(GoogleFormat.decode([
      { role: "model", parts: [call("f"), call("g", "call_0_0")] },
      { role: "user", parts: [response("f", "x"), response("h", "y", "call_0_0_1")] },
      { role: "model", parts: [call("h")] }
    ]))
    assert.deepStrictEqual(
      decoded[0],
      Message.assistant([Block.toolCall("call_0_0_2", "f", {}), Block.toolCall("call_0_0", "g", {})])
    )
    assert.deepStrictEqual(decoded[2], Message.assistant([Block.toolCall("call_0_0_1", "h", {})]))
  })

  it("a response with no call of its name: UnmatchedToolResult", () => {
    const error = left(GoogleFormat.decode({ contents: [{ role: "user", parts: [response("g", "y")] }] }))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnmatchedToolResult({
        format: "google",
        path: ["contents", 0, "parts", 0, "functionResponse"],
        messageIndex: 0,
        blockIndex: 0,
        toolCallId: "",
        reason: "no function_call in the transcript is named \"g\""
      })
    )
    assert.strictEqual(
      error.message,
      "google: message 0, block 0: tool result \"\" has no matching tool call: no function_call in the transcript is named \"g\""
    )
  })

  it("a response whose id names a different function: UnmatchedToolResult", () => {
    const error = left(GoogleFormat.decode([
      { role: "model", parts: [call("f", "a")] },
      { role: "user", parts: [{ text: "x" }, response("g", "y", "a")] }
    ]))
    assert.deepStrictEqual(
      error,
      new ConversionError.UnmatchedToolResult({
        format: "google",
        path: [1, "parts", 1, "functionResponse"],
        messageIndex: 1,
        blockIndex: 1,
        toolCallId: "a",
        reason: "function_call \"a\" is named \"f\", but this function_response names \"g\""
      })
    )
  })

  it("a response with an unknown id does not pair with a call that has another id", () => {
    const error = left(GoogleFormat.decode([
      { role: "model", parts: [call("f", "a")] },
      { role: "user", parts: [response("f", "y", "zz")] }
    ]))
    assert.strictEqual(
      error.message,
      "google: message 1, block 0: tool result \"zz\" has no matching tool call: no function_call in the transcript has this id, and none named \"f\" is without an id"
    )
  })
})

describe("GoogleFormat.decode errors", () => {
  it("input that is no transcript", () => {
    const error = left(GoogleFormat.decode(42))
    assert.deepStrictEqual(
      error,
      new ConversionError.MalformedInput({
        format: "google",
        path: [],
        reason: "expected a Gemini request ({ contents, system_instruction }) or an array of contents"
      })
    )
    assert.strictEqual(
      error.message,
      "google: malformed input at $: expected a Gemini request ({ contents, system_instruction }) or an array of contents"
    )
    assert.deepStrictEqual(left(GoogleFormat.decode({ messages: [] })).path, ["messages"])
    assert.deepStrictEqual(left(GoogleFormat.decode({})).path, ["contents"])
  })

  it("a mistyped field, with its precise path", () => {
    const error = left(GoogleFormat.decode({ contents: [{ parts: [{ text: "ok" }] }, { parts: [{ text: 5 }] }] }))
    assert.deepStrictEqual(
      error,
      new ConversionError.MalformedInput({
        format: "google",
        path: ["contents", 1, "parts", 0, "text"],
        messageIndex: 1,
        blockIndex: 0,
        reason: "Expected string | null | undefined, actual 5"
      })
    )
    assert.strictEqual(
      error.message,
      "google: message 1, block 0: malformed input at $.contents[1].parts[0].text: Expected string | null | undefined, actual 5"
    )
    assert.strictEqual(
      left(GoogleFormat.decode({ contents: [{ role: "assistant", parts: [] }] })).message,
      "google: message 0: malformed input at $.contents[0].role: Expected \"user\" | \"model\" | \"function\" | null | undefined, actual \"assistant\""
    )
    assert.strictEqual(
      left(GoogleFormat.decode({ contents: [], systemInstruction: 5 })).message,
      "google: malformed input at $.systemInstruction: Expected string | Content | null | undefined, actual 5"
    )
    assert.strictEqual(
      left(GoogleFormat.decode([{ parts: [{ functionCall: { name: "f", args: { a: [Infinity] } } }] }])).message,
      "google: message 0, block 0: malformed input at $[0].parts[0].functionCall.args.a[0]: a JSON number must be finite"
    )
  })

  it("input nested too deeply to decode, or cyclic: MalformedInput, not a stack overflow", () => {
    const deep = JSON.parse(
      `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":{"a":${"[".repeat(100_000)}${
        "]".repeat(100_000)
      }}}}]}]}`
    )
    const error = left(GoogleFormat.decode(deep))
    assert.strictEqual(error._tag, "MalformedInput")
    assert.deepStrictEqual(error.path.slice(0, 7), ["contents", 0, "parts", 0, "functionCall", "args", "a"])
    assert.strictEqual(error.path.length, 513)
    assert.include(
      error.message,
      "google: message 0, block 0: malformed input at $.contents[0].parts[0].functionCall.args.a[0][0]"
    )
    assert.include(error.message, ": nested more than 512 levels deep (or cyclic)")
    const cyclic: { contents: Array<unknown> } = { contents: [] }
    cyclic.contents.push({ parts: [{ functionResponse: { name: "f", response: cyclic } }] })
    assert.strictEqual(left(GoogleFormat.decode(cyclic))._tag, "MalformedInput")
    // what decoding does not read may nest as deeply as it likes
    const tools = JSON.parse(`{"tools":${"[".repeat(100_000)}${"]".repeat(100_000)},"contents":[]}`)
    assert.deepStrictEqual(right(GoogleFormat.decode(tools)), [])
  })

  it("a field set in both spellings", () => {
    const error = left(GoogleFormat.decode({
      contents: [{
        parts: [{
          inline_data: { mime_type: "image/png", data: "AA==" },
          inlineData: { mimeType: "image/png", data: "AA==" }
        }]
      }]
    }))
    assert.deepStrictEqual(
      error,
      new ConversionError.MalformedInput({
        format: "google",
        path: ["contents", 0, "parts", 0, "inlineData"],
        messageIndex: 0,
        blockIndex: 0,
        reason: "\"inline_data\" and \"inlineData\" are both set; use one spelling"
      })
    )
    assert.strictEqual(
      error.message,
      "google: message 0, block 0: malformed input at $.contents[0].parts[0].inlineData: \"inline_data\" and \"inlineData\" are both set; use one spelling"
    )
  })

  it("a system instruction both at the top level and in config", () => {
    const error = left(
      GoogleFormat.decode({ contents: [], system_instruction: "a", config: { systemInstruction: "b" } })
    )
    assert.strictEqual(
      error.message,
      "google: malformed input at $.config.systemInstruction: the system instruction is set both at the top level and in config"
    )
  })

  it("a part with no data field, or with two", () => {
    assert.strictEqual(
      left(GoogleFormat.decode([{ role: "user", parts: [{ thought: true }] }])).message,
      "google: message 0, block 0: malformed input at $[0].parts[0]: a part must set one of text, inline_data, function_call or function_response"
    )
    assert.strictEqual(
      left(GoogleFormat.decode([{ role: "model", parts: [{ text: "a", functionCall: { name: "f" } }] }])).message,
      "google: message 0, block 0: malformed input at $[0].parts[0]: a part must set exactly one data field, but this one sets \"text\" and \"functionCall\""
    )
  })

  it("inline data without a MIME type", () => {
    const error = left(GoogleFormat.decode([{ parts: [{ inlineData: { data: "AA==" } }] }]))
    assert.deepStrictEqual(error.path, [0, "parts", 0, "inlineData", "mimeType"])
    assert.strictEqual(
      error.message,
      "google: message 0, block 0: malformed input at $[0].parts[0].inlineData.mimeType: is missing"
    )
  })

  it("a system_instruction part that is not text or an image", () => {
    assert.strictEqual(
      left(GoogleFormat.decode({ contents: [], systemInstruction: { parts: [{ functionCall: { name: "f" } }] } }))
        .message,
      "google: malformed input at $.systemInstruction.parts[0].functionCall: a system_instruction part may only be text or inline_data, not a thought, and unsigned"
    )
  })

  it("function_call args that are not an object: InvalidToolArguments", () => {
    const error = left(GoogleFormat.decode([{ role: "model", parts: [{ functionCall: { name: "f", args: [1, 2] } }] }]))
    assert.deepStrictEqual(
      error,
      new ConversionError.InvalidToolArguments({
        format: "google",
        path: [0, "parts", 0, "functionCall", "args"],
        messageIndex: 0,
        blockIndex: 0,
        raw: "[1,2]",
        reason: "function_call args must be a JSON object"
      })
    )
    assert.strictEqual(
      error.message,
      "google: message 0, block 0: invalid tool arguments \"[1,2]\": function_call args must be a JSON object"
    )
  })

  it("content with no canonical form: UnsupportedContent, never dropped", () => {
    const cases = [
      [
        "fileData",
        { mimeType: "application/pdf", fileUri: "gs://b/doc.pdf" },
        "file_data",
        "it references a file by URI, and canonical images carry their bytes inline"
      ],
      [
        "executable_code",
        { language: "PYTHON", code: "print(1)" },
        "executable_code",
        "it is code the model wrote for Gemini's code-execution tool"
      ],
      [
        "codeExecutionResult",
        { outcome: "OUTCOME_OK", output: "1" },
        "code_execution_result",
        "it is the output of Gemini's code-execution tool"
      ],
      ["toolCall", { toolType: "GOOGLE_SEARCH_WEB" }, "tool_call", "it is a call to a Gemini server-side tool"],
      [
        "tool_response",
        { toolType: "GOOGLE_SEARCH_WEB" },
        "tool_response",
        "it is the output of a Gemini server-side tool"
      ]
    ] as const
    for (const [key, value, contentType, reason] of cases) {
      const error = left(
        GoogleFormat.decode({ contents: [{ role: "model", parts: [{ text: "x" }, { [key]: value }] }] })
      )
      assert.deepStrictEqual(
        error,
        new ConversionError.UnsupportedContent({
          format: "google",
          path: ["contents", 0, "parts", 1, key],
          messageIndex: 0,
          blockIndex: 1,
          contentType,
          reason: `${reason}; decode with providerContent: "keep" to keep the part as a provider block, which ` +
            "encode writes back"
        })
      )
      // with providerContent keep: a provider block of the field's camelCase name, holding the part
      // as it came, written back in its place
      const part = { [key]: value, thoughtSignature: "c2ln" }
      const transcript = { contents: [{ role: "model", parts: [{ text: "x" }, part] }] }
      const kept = GoogleFormat.decode(transcript, { providerContent: "keep" })
      assert.isTrue(Either.isRight(kept))
      if (Either.isRight(kept)) {
        const block = kept.right[0]!.blocks[1]!
        assert.deepStrictEqual(block, {
          provider: "google",
          kind: key.includes("_") ? key.replace(/_(.)/g, (_, c: string) => c.toUpperCase()) : key,
          item: part,
          detail: null,
          type: "provider"
        })
        const back = GoogleFormat.encode(kept.right)
        assert.isTrue(Either.isRight(back))
        if (Either.isRight(back)) {
          assert.strictEqual(JSON.stringify(back.right.contents[0]!.parts[1]), JSON.stringify(part))
        }
      }
    }
    assert.strictEqual(
      left(GoogleFormat.decode([{ parts: [{ fileData: { fileUri: "gs://b/x.png", mimeType: "image/png" } }] }]))
        .message,
      "google: message 0, block 0: \"file_data\" content has no canonical form: it references a file by URI, and canonical images carry their bytes inline; decode with providerContent: \"keep\" to keep the part as a provider block, which encode writes back"
    )
  })

  it("a thought that is not text, a signature on a user part, a file in a function response", () => {
    const thoughtImage = left(GoogleFormat.decode([
      { role: "model", parts: [{ inlineData: { mimeType: "image/png", data: "AA==" }, thought: true }] }
    ]))
    assert.strictEqual(
      thoughtImage.message,
      "google: message 0, block 0: \"thought\" content has no canonical form: only a text thought has a canonical form (reasoning), and this thought part holds inlineData"
    )
    assert.deepStrictEqual(thoughtImage.path, [0, "parts", 0, "thought"])
    const signedUser = left(GoogleFormat.decode([{ role: "user", parts: [{ text: "hi", thoughtSignature: "s" }] }]))
    assert.strictEqual(
      signedUser.message,
      "google: message 0, block 0: \"thought_signature\" content has no canonical form: thought signatures belong to model turns, and a canonical user message cannot carry one"
    )
    assert.deepStrictEqual(signedUser.path, [0, "parts", 0, "thoughtSignature"])
    const file = left(GoogleFormat.decode([
      { role: "model", parts: [{ functionCall: { name: "f" } }] },
      {
        parts: [{
          functionResponse: {
            name: "f",
            response: {},
            parts: [{ fileData: { fileUri: "gs://x", mimeType: "image/png" } }]
          }
        }]
      }
    ]))
    assert.strictEqual(file._tag, "UnsupportedContent")
    assert.deepStrictEqual(file.path, [1, "parts", 0, "functionResponse", "parts", 0, "fileData"])
  })

  it("parts in a turn of the wrong role: MisplacedBlock", () => {
    assert.deepStrictEqual(
      left(GoogleFormat.decode({ contents: [{ role: "user", parts: [{ functionCall: { name: "f" } }] }] })),
      new ConversionError.MisplacedBlock({
        format: "google",
        path: ["contents", 0, "parts", 0],
        messageIndex: 0,
        blockIndex: 0,
        role: "user",
        blockType: "tool_call"
      })
    )
    assert.deepStrictEqual(
      left(GoogleFormat.decode([{ role: "model", parts: [{ functionResponse: { name: "f", response: {} } }] }])),
      new ConversionError.MisplacedBlock({
        format: "google",
        path: [0, "parts", 0],
        messageIndex: 0,
        blockIndex: 0,
        role: "assistant",
        blockType: "tool_result"
      })
    )
    assert.deepStrictEqual(
      left(GoogleFormat.decode([{ parts: [{ text: "hm", thought: true }] }])),
      new ConversionError.MisplacedBlock({
        format: "google",
        path: [0, "parts", 0],
        messageIndex: 0,
        blockIndex: 0,
        role: "user",
        blockType: "reasoning"
      })
    )
  })
})

// -----------------------------------------------------------------------------
// Schema adapter
// -----------------------------------------------------------------------------

describe("GoogleFormat.schema", () => {
  it("composes with Schema.parseJson both ways", () => {
    const json = Schema.parseJson(GoogleFormat.schema)
    const text = JSON.stringify({ system_instruction: "S", contents: [{ role: "user", parts: [{ text: "hi" }] }] })
    const conversation = right(Schema.decodeUnknownEither(json)(text))
    assert.deepStrictEqual(conversation, [Message.system("S"), Message.user("hi")])
    assert.strictEqual(right(Schema.encodeEither(json)(conversation)), text)
  })

  it("carries the tagged error's message in the parse error", () => {
    const encoded = Schema.encodeEither(GoogleFormat.schema)([Message.assistant([Block.reasoning("r")])])
    assert.include(left(encoded).message, "google: message 0, block 0: cannot represent a \"reasoning\" block")
    const decoded = Schema.decodeUnknownEither(GoogleFormat.schema)({ contents: [{ parts: [{}] }] })
    assert.include(left(decoded).message, "google: message 0, block 0: malformed input at $.contents[0].parts[0]")
  })
})

// -----------------------------------------------------------------------------
// laws
// -----------------------------------------------------------------------------

type Options = GoogleFormat.EncodeOptions

const allOptions: Options = {
  casing: "camel",
  systemInstruction: "content",
  toolCallIds: true,
  toolErrors: "error",
  reasoning: "thought",
  laterSystem: "user"
}

/** The text a tool result turns into: its text blocks joined with "\n" (images make encode fail). */
const resultText = (block: Block.ToolResultBlock): string =>
  block.blocks.map((b) => b.type === "text" ? b.text : "").join("\n")

const clean = <B extends Block.Block>(block: B): B => ({ ...block, detail: null })

/**
 * Exactly the losses docs/formats/google.md lists:
 * - every `detail` becomes null;
 * - the leading system messages become one system message with one text block (their text joined
 *   with "\n\n"), or none when they hold no text block; with `laterSystem: "user"` a later system
 *   message becomes a user message;
 * - a tool result's content becomes one text block (its texts joined with "\n");
 * - without `toolErrors: "error"`, `is_error` becomes false;
 * - without `toolCallIds`, tool-call ids become `call_<content>_<part>` and each result is paired by
 *   function name (earliest unanswered earlier call, else latest earlier call, else first later call).
 */
const normalizeAsWritten = (
  conversation: Conversation.Conversation,
  options: Options = {}
): Conversation.Conversation => {
  const leading = conversation.findIndex((m) => m.role !== "system")
  const split = leading === -1 ? conversation.length : leading
  const texts = conversation.slice(0, split).flatMap((m) =>
    (m.blocks as ReadonlyArray<Block.Block>).flatMap((b) => b.type === "text" ? [b.text] : [])
  )
  const rest = conversation.slice(split)
  const names = new Map<string, string>()
  for (const message of conversation) {
    for (const block of message.blocks as ReadonlyArray<Block.Block>) {
      if (block.type === "tool_call") names.set(block.id, block.name)
    }
  }
  const calls: Array<{ readonly c: number; readonly name: string; readonly id: string; answered: boolean }> = []
  rest.forEach((message, c) =>
    (message.blocks as ReadonlyArray<Block.Block>).forEach((block, p) => {
      if (block.type === "tool_call") {
        calls.push({ c, name: block.name, id: options.toolCallIds ? block.id : `call_${c}_${p}`, answered: false })
      }
    })
  )
  const pairedId = (block: Block.ToolResultBlock, c: number): string => {
    if (options.toolCallIds) return block.tool_call_id
    const candidates = calls.filter((call) => call.name === names.get(block.tool_call_id))
    const earlier = candidates.filter((call) => call.c < c)
    const match = earlier.find((call) => !call.answered) ?? earlier[earlier.length - 1] ??
      candidates.find((call) => call.c > c)!
    match.answered = true
    return match.id
  }
  const out: Array<Message.Message> = texts.length > 0 ? [Message.system(texts.join("\n\n"))] : []
  rest.forEach((message, c) => {
    const blocks = (message.blocks as ReadonlyArray<Block.Block>).map((block, p): Block.Block => {
      switch (block.type) {
        case "tool_call":
          return Block.toolCall(options.toolCallIds ? block.id : `call_${c}_${p}`, block.name, block.input)
        case "tool_result":
          return Block.toolResult(pairedId(block, c), resultText(block), {
            isError: options.toolErrors === "error" && block.is_error
          })
        default:
          return clean(block)
      }
    })
    out.push(
      message.role === "assistant"
        ? Message.assistant(blocks as ReadonlyArray<Message.AssistantBlock>)
        : Message.user(blocks as ReadonlyArray<Message.UserBlock>)
    )
  })
  return out
}

/**
 * Conversations that encode: system messages first (text only), tool calls named "f" or "g" (so
 * that pairing by name meets same-name calls), tool results pointing at existing calls (earlier or
 * later ones) and holding text only, reasoning kept only when asked.
 */
const encodable = (keepReasoning: boolean) =>
  Arbitrary.make(Conversation.Conversation).map((conversation): Conversation.Conversation => {
    const ids = conversation.flatMap((m) =>
      (m.blocks as ReadonlyArray<Block.Block>).flatMap((b) => b.type === "tool_call" ? [b.id] : [])
    )
    let k = 0
    let n = 0
    const system = conversation.flatMap((m) =>
      m.role === "system" ? [Message.system(m.blocks.filter((b) => b.type === "text"))] : []
    )
    const rest = conversation.flatMap((m): ReadonlyArray<Message.Message> => {
      switch (m.role) {
        case "system":
          return []
        case "assistant":
          return [
            Message.assistant(
              m.blocks.flatMap((b): ReadonlyArray<Message.AssistantBlock> =>
                b.type === "reasoning" && !keepReasoning
                  ? []
                  : b.type === "tool_call"
                  ? [Block.toolCall(b.id, n++ % 3 === 0 ? "g" : "f", b.input, { detail: b.detail })]
                  : [b]
              )
            )
          ]
        case "user":
          return [Message.user(m.blocks.flatMap((b): ReadonlyArray<Message.UserBlock> =>
            b.type !== "tool_result"
              ? [b]
              : ids.length === 0
              ? []
              : [Block.toolResult(ids[k++ % ids.length]!, b.blocks.filter((x) => x.type === "text"), {
                isError: b.is_error,
                detail: b.detail
              })]
          ))]
      }
    })
    return [...system, ...rest]
  })

/** Later system messages stay in place (for `laterSystem: "user"`), text only. */
const withLaterSystem = encodable(true).chain((conversation) =>
  FastCheck.nat({ max: conversation.length }).map((at) => [
    ...conversation.slice(0, at),
    Message.system("later"),
    ...conversation.slice(at)
  ])
)

// Pairing by name is exercised: the conversations start from tool calls named "f" or "g" and tool
// results that point at existing calls, with later system messages; what an option set refuses is
// removed by the laws before law 2.
codecLaws("GoogleFormat", GoogleFormat, {
  normalize,
  options: [undefined, allOptions],
  conversations: withLaterSystem,
  isWire: Schema.is(GoogleFormat.Input)
})

// Gemini's hosted parts (code execution, server-side tools) go back as they came and read back,
// with providerContent: "keep", byte for byte.
const keep = { providerContent: "keep" } as const
const hostedParts = FastCheck.tuple(
  FastCheck.constantFrom("executableCode", "codeExecutionResult", "toolCall", "toolResponse"),
  Arbitrary.make(Json.JsonObject)
).map(([key, value]): Json.JsonObject => ({ [key]: value }))
codecLaws(
  "GoogleFormat (providerContent: keep)",
  {
    ...GoogleFormat,
    decode: (input: unknown) => GoogleFormat.decode(input, keep),
    schema: Codec.toSchema(GoogleFormat.codec, { decode: keep })
  },
  {
    normalize,
    options: [undefined, allOptions],
    conversations: withProviderBlocks("google", hostedParts, (item) => Object.keys(item)[0]!, withLaterSystem),
    isWire: Schema.is(GoogleFormat.Input)
  }
)

describe("GoogleFormat.decode: one declaration, read by the guard and the Schema", () => {
  guardLaws("Request", GoogleFormat.InputRequest, { onExcessProperty: "ignore" })
  guardLaws("Contents", GoogleFormat.InputContents, { onExcessProperty: "ignore" })
})
