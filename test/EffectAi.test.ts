import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Tool from "@effect/ai/Tool"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Block, Conversation, ConversionError, Message } from "openreward-effect"
import * as Client from "openreward-effect/Client"
import * as EffectAi from "openreward-effect/EffectAi"
import * as Episode from "openreward-effect/Episode"
import { encodable, ServerLive } from "./utils/bridges.js"

const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) assert.fail(`expected a Right, got ${String(e.left)}`)
  return e.right
}

const left = <A, E>(e: Either.Either<A, E>): E => {
  if (Either.isRight(e)) assert.fail(`expected a Left, got ${JSON.stringify(e.right)}`)
  return e.left
}

const png = Buffer.from("not really a png").toString("base64")

/** The encoded form of a prompt, without the brand keys: what a reader compares. */
const encoded = (prompt: Prompt.Prompt) => Schema.encodeSync(Prompt.Prompt)(prompt).content

const rich: Conversation.Conversation = [
  Message.system([Block.text("You are a support agent."), Block.text("Be brief.")]),
  Message.user([Block.text("Where is order 4411?"), Block.image(png, "image/png")]),
  Message.assistant([
    Block.reasoning("Check the order first.", { signature: "sig-1" }),
    Block.toolCall("tc_1", "lookup_order", { id: "4411" })
  ]),
  Message.user([
    Block.toolResult("tc_1", "stalled at the hub"),
    Block.text("Any news?")
  ]),
  Message.assistant("It is stalled at the hub.")
]

describe("EffectAi.encode", () => {
  it("writes the Prompt a provider package reads", () => {
    const prompt = right(EffectAi.encode(rich))
    assert.deepStrictEqual(encoded(prompt), [
      { role: "system", content: "You are a support agent.", options: {} },
      { role: "system", content: "Be brief.", options: { openreward: { continues: true } } },
      {
        role: "user",
        content: [
          { type: "text", text: "Where is order 4411?", options: {} },
          { type: "file", mediaType: "image/png", data: new Uint8Array(Buffer.from("not really a png")), options: {} }
        ],
        options: {}
      },
      {
        role: "assistant",
        content: [
          {
            type: "reasoning",
            text: "Check the order first.",
            options: { anthropic: { type: "thinking", signature: "sig-1" }, openreward: { signature: "sig-1" } }
          },
          {
            type: "tool-call",
            id: "tc_1",
            name: "lookup_order",
            params: { id: "4411" },
            providerExecuted: false,
            options: {}
          }
        ],
        options: {}
      },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          id: "tc_1",
          name: "lookup_order",
          isFailure: false,
          result: "stalled at the hub",
          providerExecuted: false,
          options: {}
        }],
        options: {}
      },
      // (the Prompt schema writes a message of one text part as a string)
      { role: "user", content: "Any news?", options: { openreward: { continues: true } } },
      { role: "assistant", content: "It is stalled at the hub.", options: {} }
    ])
    assert.deepStrictEqual(right(EffectAi.decode(prompt)), rich)
  })

  it("writes the signature for Google, or only under openreward", () => {
    const reasoning = [Message.assistant([Block.reasoning("r", { signature: "s" })])]
    const options = (target: EffectAi.SignatureTarget) => {
      const [message] = encoded(right(EffectAi.encode(reasoning, { signatures: target })))
      return message?.role === "assistant" && typeof message.content !== "string" ? message.content[0]?.options : {}
    }
    assert.deepStrictEqual(options("google"), { google: { thoughtSignature: "s" }, openreward: { signature: "s" } })
    assert.deepStrictEqual(options("none"), { openreward: { signature: "s" } })
  })

  it("results that are not one plain text become the canonical blocks as JSON", () => {
    const conversation = [
      Message.assistant([Block.toolCall("a", "shot"), Block.toolCall("b", "read")]),
      Message.user([
        Block.toolResult("a", [Block.text("here"), Block.image(png, "image/png")]),
        Block.toolResult("b", [], { isError: true })
      ])
    ]
    const [, tool] = encoded(right(EffectAi.encode(conversation)))
    assert.deepStrictEqual(tool?.content, [
      {
        type: "tool-result",
        id: "a",
        name: "shot",
        isFailure: false,
        result: [
          { text: "here", detail: null, type: "text" },
          { data: png, mimeType: "image/png", detail: null, type: "image" }
        ],
        providerExecuted: false,
        options: {}
      },
      { type: "tool-result", id: "b", name: "read", isFailure: true, result: [], providerExecuted: false, options: {} }
    ])
  })

  it("fails at the block a Prompt cannot hold", () => {
    const systemImage = left(EffectAi.encode([Message.system([Block.text("a"), Block.image(png, "image/png")])]))
    assert.strictEqual(systemImage._tag, "UnsupportedBlock")
    assert.deepStrictEqual(systemImage.path, [0, "blocks", 1])

    const badData = left(EffectAi.encode([Message.user([Block.image("not base64!", "image/png")])]))
    assert.strictEqual(badData._tag, "UnsupportedBlock")
    assert.strictEqual(badData.format, "effect-ai")

    const unmatched = left(EffectAi.encode([Message.user([Block.toolResult("nope", "x")])]))
    assert.strictEqual(unmatched._tag, "UnmatchedToolResult")
    if (unmatched._tag === "UnmatchedToolResult") assert.strictEqual(unmatched.toolCallId, "nope")
  })
})

describe("EffectAi.decode", () => {
  it("reads a Prompt built without this library, message by message", () => {
    const prompt = Prompt.make([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "hm", options: { anthropic: { type: "thinking", signature: "s" } } },
          { type: "tool-call", id: "c", name: "f", params: { x: 1 } }
        ]
      },
      {
        role: "tool",
        content: [{
          type: "tool-result",
          id: "c",
          name: "f",
          isFailure: false,
          result: { ok: true },
          providerExecuted: false
        }]
      },
      { role: "user", content: [{ type: "file", mediaType: "image/png", data: `data:image/png;base64,${png}` }] }
    ])
    assert.deepStrictEqual(right(EffectAi.decode(prompt)), [
      Message.system("Be brief."),
      Message.user("Hi"),
      Message.assistant([Block.reasoning("hm", { signature: "s" }), Block.toolCall("c", "f", { x: 1 })]),
      Message.user([Block.toolResult("c", "{\"ok\":true}")]),
      Message.user([Block.image(png, "image/png")])
    ])
    // the encoded messages decode too
    assert.deepStrictEqual(right(EffectAi.decode(encoded(prompt))), right(EffectAi.decode(prompt)))
  })

  const failures: ReadonlyArray<readonly [string, ReadonlyArray<Prompt.MessageEncoded>, string, string]> = [
    [
      "an image URL",
      [{ role: "user", content: [{ type: "file", mediaType: "image/png", data: new URL("https://x.test/a.png") }] }],
      "UnsupportedContent",
      "image URL"
    ],
    [
      "a PDF",
      [{ role: "user", content: [{ type: "file", mediaType: "application/pdf", data: png }] }],
      "UnsupportedContent",
      "file application/pdf"
    ],
    [
      "a provider-executed call",
      [{
        role: "assistant",
        content: [{ type: "tool-call", id: "c", name: "web", params: {}, providerExecuted: true }]
      }],
      "UnsupportedContent",
      "provider-executed tool call"
    ],
    [
      "params that are not an object",
      [{ role: "assistant", content: [{ type: "tool-call", id: "c", name: "f", params: [1, 2] }] }],
      "InvalidToolArguments",
      "[1,2]"
    ]
  ]
  for (const [name, messages, tag, what] of failures) {
    it(`fails on ${name}`, () => {
      const error = left(EffectAi.decode(Prompt.make(messages)))
      assert.strictEqual(error._tag, tag)
      assert.strictEqual(error.messageIndex, 0)
      assert.include(error.message, what)
    })
  }

  it("reads Anthropic's redacted thinking in the canonical form, and writes it back", () => {
    const prompt = Prompt.make([{
      role: "assistant",
      content: [{
        type: "reasoning",
        text: "",
        options: { anthropic: { type: "redacted_thinking", redactedData: "opaque" } }
      }]
    }])
    const conversation = right(EffectAi.decode(prompt))
    assert.deepStrictEqual(conversation, [
      Message.assistant([Block.reasoning("", { signature: "opaque", detail: { anthropic: { redacted: true } } })])
    ])
    const [message] = encoded(right(EffectAi.encode(conversation)))
    const part = message?.role === "assistant" && typeof message.content !== "string" ? message.content[0] : undefined
    assert.deepStrictEqual(part?.options?.anthropic, { type: "redacted_thinking", redactedData: "opaque" })
  })

  it("fails on a malformed openreward entry and on input that is no prompt", () => {
    const marks = left(
      EffectAi.decode(Prompt.make([{ role: "user", content: "x", options: { openreward: { detail: 3 } } }]))
    )
    assert.strictEqual(marks._tag, "MalformedInput")
    assert.deepStrictEqual(marks.path, ["content", 0, "openreward", "detail"])
    assert.strictEqual(left(EffectAi.decode({ content: [{ role: "robot" }] }))._tag, "MalformedInput")
  })

  it.prop("never throws", [FastCheck.anything()], ([input]) => {
    const result = EffectAi.decode(input)
    if (Either.isLeft(result)) assert.isTrue(ConversionError.isConversionError(result.left))
  })
})

describe("EffectAi laws", () => {
  it.prop(
    "encode succeeds or fails at an existing message and block",
    [Conversation.Conversation],
    ([conversation]) => {
      const result = EffectAi.encode(conversation)
      if (Either.isRight(result)) return
      const error = result.left
      assert.oneOf(error._tag, ["UnsupportedBlock", "UnmatchedToolResult"])
      if (error._tag !== "UnsupportedBlock" && error._tag !== "UnmatchedToolResult") return
      assert.strictEqual(error.format, "effect-ai")
      assert.deepStrictEqual(error.path, [error.messageIndex, "blocks", error.blockIndex])
      const block = conversation[error.messageIndex]?.blocks[error.blockIndex]
      assert.isDefined(block)
      if (error._tag === "UnsupportedBlock") assert.strictEqual(block!.type, error.blockType)
      else assert.strictEqual(block!.type, "tool_result")
    },
    { fastCheck: { numRuns: 200 } }
  )

  it.prop(
    "decode(encode(c)) = c",
    [encodable],
    ([conversation]) => {
      const prompt = right(EffectAi.encode(conversation))
      assert.deepStrictEqual(right(EffectAi.decode(prompt)), conversation)
    },
    { fastCheck: { numRuns: 200 } }
  )
})

// -----------------------------------------------------------------------------
// generateText against a mock model, tools run on a real session
// -----------------------------------------------------------------------------

type Encoded = ReadonlyArray<Response.PartEncoded>

/** A language model that answers from a script, keyed by how many assistant turns the prompt holds. */
const scripted = (
  answers: ReadonlyArray<Encoded>,
  seen: Array<LanguageModel.ProviderOptions>
) =>
  LanguageModel.make({
    generateText: (options) => {
      seen.push(options)
      const turn = options.prompt.content.filter((m) => m.role === "assistant").length
      return Effect.succeed([...(answers[turn] ?? [])] as Array<Response.PartEncoded>)
    },
    streamText: () => {
      throw new Error("not used")
    }
  })

const answers: ReadonlyArray<Encoded> = [
  [
    { type: "response-metadata", id: "resp_1", modelId: "mock-1", timestamp: undefined },
    { type: "reasoning", text: "Look it up.", metadata: { anthropic: { type: "thinking", signature: "sig" } } },
    { type: "tool-call", id: "call_1", name: "lookup_order", params: { id: "4411" } },
    { type: "finish", reason: "tool-calls", usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 } }
  ],
  [
    { type: "tool-call", id: "call_2", name: "reply", params: { text: "Order 4411 is stalled at the hub." } },
    { type: "finish", reason: "tool-calls", usage: { inputTokens: 20, outputTokens: 6, totalTokens: 26 } }
  ]
]

const withSession = <A, E>(
  body: (session: Client.Session) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
    return yield* Effect.gen(function*() {
      const client = yield* Client.Client
      const session = yield* client.environment("support").session({ split: "train", index: 0 })
      return yield* body(session)
    }).pipe(Effect.scoped, Effect.provide(Client.layer({ baseUrl })))
  }).pipe(Effect.provide(ServerLive), Effect.provide(NodeHttpClient.layerUndici), Effect.scoped)

describe("EffectAi with LanguageModel.generateText", () => {
  it.live("the session toolkit runs the calls; the answer feeds back into the conversation", () =>
    withSession((session) =>
      Effect.gen(function*() {
        const seen: Array<LanguageModel.ProviderOptions> = []
        const model = yield* scripted(answers, seen)
        let conversation = yield* session.getMessages()
        const toolkit = yield* EffectAi.sessionToolkit(session)
        const rewards: Array<number | null> = []
        for (let step = 0; step < 2; step++) {
          const prompt = right(EffectAi.encode(conversation))
          const response = yield* LanguageModel.generateText({ prompt, toolkit }).pipe(
            Effect.provideService(LanguageModel.LanguageModel, model)
          )
          for (const { output } of EffectAi.toolOutputs(response)) rewards.push(output.reward)
          const turn = right(EffectAi.decodeResponse(response))
          assert.strictEqual(turn.stopReason, "tool_calls")
          conversation = [...conversation, turn.message, ...(turn.toolResults ? [turn.toolResults] : [])]
        }
        assert.deepStrictEqual(rewards, [null, 1])
        assert.deepStrictEqual(conversation.slice(2), [
          Message.assistant([
            Block.reasoning("Look it up.", { signature: "sig" }),
            Block.toolCall("call_1", "lookup_order", { id: "4411" })
          ]),
          Message.user([Block.toolResult("call_1", "stalled at the hub")]),
          Message.assistant([Block.toolCall("call_2", "reply", { text: "Order 4411 is stalled at the hub." })]),
          Message.user([Block.toolResult("call_2", "sent")])
        ])
        // the model saw the server's schemas verbatim, and the first turn (signature included) came back
        const tools = yield* session.listTools()
        assert.deepStrictEqual(
          seen[0]!.tools.map((t): unknown => Tool.getJsonSchema(t as never)),
          tools.map((t): unknown => t.input_schema)
        )
        assert.deepStrictEqual(right(EffectAi.decode(seen[1]!.prompt)), conversation.slice(0, 4))
      })
    ))

  it.live("without resolution the calls come back for the harness; a refused call is a failed result", () =>
    withSession((session) =>
      Effect.gen(function*() {
        const model = yield* scripted([answers[0]!], [])
        const toolkit = yield* EffectAi.sessionToolkit(session)
        const response = yield* LanguageModel.generateText({
          prompt: right(EffectAi.encode(yield* session.getMessages())),
          toolkit,
          disableToolCallResolution: true
        }).pipe(Effect.provideService(LanguageModel.LanguageModel, model))
        const turn = right(EffectAi.decodeResponse(response))
        assert.isUndefined(turn.toolResults)
        assert.deepStrictEqual(turn.usage, { inputTokens: 10, outputTokens: 5, totalTokens: 15 })
        assert.strictEqual(turn.id, "resp_1")
        assert.strictEqual(turn.model, "mock-1")
        assert.strictEqual(turn.providerStopReason, "tool-calls")
        // @effect/ai's own history (Prompt.fromResponseParts, Chat) decodes too, but it has dropped the signature
        assert.deepStrictEqual(right(EffectAi.decode(Prompt.fromResponseParts(response.content))), [
          Message.assistant([Block.reasoning("Look it up."), Block.toolCall("call_1", "lookup_order", { id: "4411" })])
        ])

        const refused = yield* toolkit.handle("no_such_tool", {})
        assert.isTrue(refused.isFailure)
        assert.include(String(refused.encodedResult), "no_such_tool")
        assert.deepStrictEqual(
          right(EffectAi.decodeResponse([{
            type: "tool-result",
            id: "x",
            name: "no_such_tool",
            result: refused.result,
            encodedResult: refused.encodedResult,
            isFailure: true,
            providerExecuted: false
          } as unknown as Response.AnyPart])).toolResults?.blocks,
          [
            Block.toolResult("x", String(refused.encodedResult), { isError: true })
          ]
        )
      })
    ))
})

describe("EffectAi.decodeResponse", () => {
  it("accumulates streamed parts and rejects what has no canonical form", () => {
    const parts = [
      { type: "reasoning-start", id: "r", metadata: {} },
      { type: "reasoning-delta", id: "r", delta: "thin", metadata: {} },
      { type: "reasoning-delta", id: "r", delta: "king", metadata: {} },
      { type: "reasoning-end", id: "r", metadata: { anthropic: { type: "thinking", signature: "s" } } },
      { type: "text-start", id: "t", metadata: {} },
      { type: "text-delta", id: "t", delta: "Hello", metadata: {} },
      { type: "text-end", id: "t", metadata: {} },
      { type: "finish", reason: "stop", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 }, metadata: {} }
    ] as unknown as ReadonlyArray<Response.AnyPart>
    const turn = right(EffectAi.decodeResponse(parts))
    assert.deepStrictEqual(
      turn.message,
      Message.assistant([Block.reasoning("thinking", { signature: "s" }), Block.text("Hello")])
    )
    assert.strictEqual(turn.stopReason, "stop")

    const source = left(EffectAi.decodeResponse([
      { type: "source", sourceType: "url", id: "s", url: new URL("https://x.test"), title: "x", metadata: {} }
    ] as unknown as ReadonlyArray<Response.AnyPart>))
    assert.strictEqual(source._tag, "UnsupportedContent")
    const unfinished = left(EffectAi.decodeResponse(parts.slice(0, 2)))
    assert.include(unfinished.message, "never ended")
  })
})

// -----------------------------------------------------------------------------
// EffectAi.step: an Episode step on the provided LanguageModel
// -----------------------------------------------------------------------------

/** The scripted answers as the parts a stream sends (reasoning in deltas). */
const streamed: ReadonlyArray<ReadonlyArray<Response.StreamPartEncoded>> = answers.map((parts) =>
  parts.flatMap((part): ReadonlyArray<Response.StreamPartEncoded> =>
    part.type === "reasoning"
      ? [
        { type: "reasoning-start", id: "r", metadata: {} },
        { type: "reasoning-delta", id: "r", delta: part.text.slice(0, 4), metadata: {} },
        { type: "reasoning-delta", id: "r", delta: part.text.slice(4), metadata: {} },
        { type: "reasoning-end", id: "r", metadata: part.metadata ?? {} }
      ]
      : [part as Response.StreamPartEncoded]
  )
)

const scriptedBoth = (calls: { generate: number; stream: number }) =>
  LanguageModel.make({
    generateText: (options) => {
      calls.generate++
      const turn = options.prompt.content.filter((m) => m.role === "assistant").length
      return Effect.succeed([...(answers[turn] ?? [])] as Array<Response.PartEncoded>)
    },
    streamText: (options) => {
      calls.stream++
      const turn = options.prompt.content.filter((m) => m.role === "assistant").length
      return Stream.fromIterable(streamed[turn] ?? [])
    }
  })

describe("EffectAi.step", () => {
  for (const stream of [false, true]) {
    it.live(`runs an episode, each tool call once through the session${stream ? " (streaming)" : ""}`, () =>
      withSession((session) =>
        Effect.gen(function*() {
          const calls = { generate: 0, stream: 0 }
          const model = yield* scriptedBoth(calls)
          const episode = yield* Episode.run(session, EffectAi.step({ stream })).pipe(
            Effect.provideService(LanguageModel.LanguageModel, model)
          )
          assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "reply" })
          assert.deepStrictEqual(episode.rewards, [1])
          assert.deepStrictEqual(episode.calls.map((c) => c.name), ["lookup_order", "reply"])
          assert.deepStrictEqual(episode.usage, { inputTokens: 30, outputTokens: 11, totalTokens: 41 })
          assert.deepStrictEqual(calls, stream ? { generate: 0, stream: 2 } : { generate: 2, stream: 0 })
          assert.deepStrictEqual(episode.conversation.slice(2), [
            Message.assistant([
              Block.reasoning("Look it up.", { signature: "sig" }),
              Block.toolCall("call_1", "lookup_order", { id: "4411" })
            ]),
            Message.user([Block.toolResult("call_1", "stalled at the hub")]),
            Message.assistant([Block.toolCall("call_2", "reply", { text: "Order 4411 is stalled at the hub." })]),
            Message.user([Block.toolResult("call_2", "sent")])
          ])
        })
      ))
  }

  it.live("a model failure (AiError) ends the episode as Failed, the conversation kept", () =>
    withSession((session) =>
      Effect.gen(function*() {
        const model = yield* LanguageModel.make({
          generateText: () => Effect.fail(new AiError.UnknownError({ module: "Test", method: "generateText" })),
          streamText: () => Stream.die("not used")
        })
        const episode = yield* Episode.run(session, EffectAi.step()).pipe(
          Effect.provideService(LanguageModel.LanguageModel, model)
        )
        assert.strictEqual(episode.stop._tag, "Failed")
        assert.strictEqual(episode.stop._tag === "Failed" ? episode.stop.error._tag : "", "UnknownError")
        assert.strictEqual(episode.conversation.length, 2)
      })
    ))
})
