/**
 * Provider blocks across formats and over the OpenReward wire:
 * - the encoder policy: to its own provider a provider block is written back as it came; to another
 *   format an `UnsupportedBlock` (default), left out (`"omit"`), or the text `Prompt.flatten` renders
 *   (`"text"`); the bridges (`EffectAi`, `AiSdk`) have no part for one and follow the same policy;
 * - the server's opt-in: `/messages` serves provider blocks and advertises `provider` in
 *   `message_block_types` only for an environment made with `providerContent: "keep"`; without it
 *   `/messages` fails with `ProviderContentRefused` and the advertised types stay the reference's.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import * as AiSdk from "openreward-effect/AiSdk"
import * as Block from "openreward-effect/Block"
import * as Client from "openreward-effect/Client"
import type * as Conversation from "openreward-effect/Conversation"
import type * as ConversionError from "openreward-effect/ConversionError"
import * as EffectAi from "openreward-effect/EffectAi"
import * as Environment from "openreward-effect/Environment"
import * as Format from "openreward-effect/Format"
import * as Message from "openreward-effect/Message"
import * as Prompt from "openreward-effect/Prompt"
import type * as Provider from "openreward-effect/Provider"
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"
import { layer } from "./utils/layer.js"

const search = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "Paris, weather" } }
const results = {
  type: "web_search_tool_result",
  tool_use_id: "srvtoolu_1",
  content: [{ type: "web_search_result", url: "https://w.test/paris", title: "Paris", encrypted_content: "e1" }]
}

/** A conversation whose assistant turn holds Anthropic's web search. */
const conversation: Conversation.Conversation = [
  Message.user("What is the weather in Paris?"),
  Message.assistant([
    Block.provider("anthropic", "server_tool_use", search),
    Block.provider("anthropic", "web_search_tool_result", results),
    Block.text("Sunny, 24°C.")
  ])
]

/** The text a provider block renders as: `[provider <provider> <kind>] <item as json.dumps writes it>`. */
const rendered =
  "[provider anthropic server_tool_use] {\"type\": \"server_tool_use\", \"id\": \"srvtoolu_1\", \"name\": \"web_search\", \"input\": {\"query\": \"Paris, weather\"}}"

const others: ReadonlyArray<Provider.Format> = ["openai", "openrouter", "openai-responses", "google"]

describe("the encoder policy for provider blocks", () => {
  it("to its own provider: written back in its place, as it came", () => {
    const wire = Either.getOrThrow(Format.encode("anthropic", conversation))
    const [, turn] = (wire as { readonly messages: ReadonlyArray<{ readonly content: ReadonlyArray<unknown> }> })
      .messages
    assert.strictEqual(JSON.stringify(turn!.content.slice(0, 2)), JSON.stringify([search, results]))
  })

  it("to another format: an UnsupportedBlock naming the block by default", () => {
    for (const format of others) {
      const encoded = Format.encode(format, conversation)
      assert.isTrue(Either.isLeft(encoded), format)
      if (Either.isRight(encoded)) continue
      const error = encoded.left
      assert.strictEqual(error._tag, "UnsupportedBlock", format)
      assert.deepStrictEqual(error.path, [1, "blocks", 0], format)
      assert.include(error.message, "\"anthropic\" content (\"server_tool_use\")", format)
      assert.include(error.message, "set providerContent to \"omit\"", format)
    }
  })

  it("to another format with providerContent omit: left out, nothing else changed", () => {
    const without = [conversation[0]!, Message.assistant([Block.text("Sunny, 24°C.")])]
    for (const format of others) {
      const omitted = Either.getOrThrow(Format.encode(format, conversation, { providerContent: "omit" }))
      assert.deepStrictEqual(omitted, Either.getOrThrow(Format.encode(format, without)), format)
    }
  })

  it("to another format with providerContent text: the text Prompt.flatten renders", () => {
    const flattened = Prompt.flatten(conversation)
    const texts = flattened.flatMap((b) => b.type === "text" ? [b.text] : [])
    assert.include(texts, rendered)
    for (const format of others) {
      const text = Either.getOrThrow(Format.encode(format, conversation, { providerContent: "text" }))
      assert.include(JSON.stringify(text), JSON.stringify(rendered).slice(1, -1), format)
    }
  })

  it("the bridges have no part for one: an error by default, left out or text on request", () => {
    type Encode = (
      c: Conversation.Conversation,
      o?: { readonly providerContent?: "error" | "omit" | "text" }
    ) => Either.Either<unknown, ConversionError.EncodeError>
    const bridges: ReadonlyArray<Encode> = [(c, o) => EffectAi.encode(c, o), (c, o) => AiSdk.encode(c, o)]
    for (const encode of bridges) {
      const refused = encode(conversation)
      assert.isTrue(Either.isLeft(refused))
      if (Either.isLeft(refused)) {
        assert.strictEqual(refused.left._tag, "UnsupportedBlock")
        assert.deepStrictEqual(refused.left.path, [1, "blocks", 0])
      }
      const omitted = JSON.stringify(Either.getOrThrow(encode(conversation, { providerContent: "omit" })))
      assert.notInclude(omitted, "server_tool_use")
      assert.include(omitted, "Sunny")
      const text = JSON.stringify(Either.getOrThrow(encode(conversation, { providerContent: "text" })))
      assert.include(text, JSON.stringify(rendered).slice(1, -1))
    }
  })
})

// -----------------------------------------------------------------------------
// the server's opt-in
// -----------------------------------------------------------------------------

const hosted = (name: string, providerContent?: "keep") =>
  Environment.make({
    name,
    splits: ["train"],
    tasks: { train: [{ id: "a" }] },
    messages: () => conversation,
    tools: [Tool.make("done", { description: "Finish.", handler: () => Tool.output("bye", { finished: true }) })],
    ...(providerContent === undefined ? {} : { providerContent })
  })

const ServerLive = Server.layer([hosted("HostedKept", "keep"), hosted("HostedRefused")]).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)
const ClientLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { address } = yield* HttpServer.HttpServer
  const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  return Client.layer({ baseUrl, apiKey: "" })
}))
const TestLive = ClientLive.pipe(Layer.provideMerge(ServerLive), Layer.provide(NodeHttpClient.layerUndici))

layer(TestLive, { timeout: 30_000 })("the server's opt-in for provider blocks", (it) => {
  it.effect("providerContent keep: /messages serves them, and message_block_types names provider", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = client.environment("hostedkept", { variant: "hostedkept" })
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* env.session({ split: "train", index: 0 })
        assert.deepStrictEqual(yield* session.getMessages(), conversation)
        assert.deepStrictEqual(yield* session.messageBlockTypes, [...Block.supportedTypes, "provider"])
        // to Anthropic, the items come back as the API sent them
        const anthropic = yield* session.getMessages({ format: "anthropic" })
        assert.include(JSON.stringify(anthropic), JSON.stringify(search))
      }))
    }))

  it.effect("by default: the reference's block types, and /messages refused rather than a block dropped", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = client.environment("hostedrefused", { variant: "hostedrefused" })
      yield* Effect.scoped(Effect.gen(function*() {
        const session = yield* env.session({ split: "train", index: 0 })
        assert.deepStrictEqual(yield* session.messageBlockTypes, Block.supportedTypes)
        const refused = yield* Effect.either(session.getMessages())
        assert.isTrue(Either.isLeft(refused))
        if (Either.isLeft(refused)) assert.notInclude(refused.left.message, "at /")
      }))
      // the check the server runs, as a function
      const checked = Environment.checkProviderContent(hosted("HostedRefused"), conversation)
      assert.isTrue(Either.isLeft(checked))
      if (Either.isLeft(checked)) {
        assert.strictEqual(checked.left._tag, "ProviderContentRefused")
        assert.deepStrictEqual([checked.left.messageIndex, checked.left.blockIndex], [1, 0])
        assert.include(checked.left.message, "set providerContent: \"keep\" in Environment.make")
      }
      assert.isTrue(Either.isRight(Environment.checkProviderContent(hosted("HostedKept", "keep"), conversation)))
    }))
})
