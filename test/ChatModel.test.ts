/**
 * The chat model channel: its settings against the reference's chat backend
 * (test/fixtures/judging/reference.json, `channel`), each provider against a loopback stand-in of
 * its HTTP API (no network), failing at build time without a key, and the key kept out of every
 * error, log line and printout.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ChatModel from "openreward-effect/ChatModel"
import type * as Environment from "openreward-effect/Environment"
import * as Judge from "openreward-effect/Judge"
import * as Testing from "openreward-effect/Testing"
import * as AnthropicStandIn from "../src/internal/testing/anthropic.js"
import * as OpenAiChatStandIn from "../src/internal/testing/openaiChat.js"
import * as OpenAiResponsesStandIn from "../src/internal/testing/openaiResponses.js"

interface ChannelFixture {
  readonly settings: ReadonlyArray<{
    readonly name: string
    readonly env: Record<string, string>
    readonly secrets: Record<string, string>
    readonly resolved: { readonly api_key: string; readonly base_url: string } | null
  }>
  readonly providers: ReadonlyArray<{ readonly CHAT_PROVIDER: string | null; readonly resolved: string }>
}

const channel: ChannelFixture = JSON.parse(
  fs.readFileSync(path.join(__dirname, "fixtures", "judging", "reference.json"), "utf8")
).channel

const secretsOf = (record: Record<string, string>): Environment.Secrets =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [k, Redacted.make(v)]))

const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromJson(env))

/** Run with the log lines collected. */
const logged = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const logger = Logger.make(({ annotations, logLevel, message }) => {
      lines.push(`${logLevel.label} ${JSON.stringify(message)} ${JSON.stringify(Object.fromEntries(annotations))}`)
    })
    const exit = yield* Effect.exit(self.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger))))
    return { exit, lines }
  })

describe("ChatModel.settings against the reference's chat backend", () => {
  it.effect("every recorded environment and set of secrets resolves to the reference's key and URL", () =>
    Effect.gen(function*() {
      assert.isAtLeast(channel.settings.length, 15)
      for (const c of channel.settings) {
        const result = yield* Effect.either(ChatModel.settings({ secrets: secretsOf(c.secrets) }).pipe(withEnv(c.env)))
        if (c.resolved === null) {
          assert.isTrue(Either.isLeft(result), c.name)
          if (Either.isLeft(result)) assert.strictEqual(result.left._tag, "MissingKey", c.name)
        } else {
          if (Either.isLeft(result)) assert.fail(`${c.name}: ${result.left.message}`)
          assert.strictEqual(Redacted.value(result.right.apiKey), c.resolved.api_key, c.name)
          assert.strictEqual(result.right.apiUrl, c.resolved.base_url, c.name)
          assert.strictEqual(result.right.provider, "openai", c.name)
        }
      }
    }))

  it.effect("CHAT_PROVIDER picks the provider as the reference does; anthropic is ours", () =>
    Effect.gen(function*() {
      for (const c of channel.providers) {
        const env: Record<string, string> = { OPENAI_API_KEY: "sk-x", ANTHROPIC_API_KEY: "ak-x" }
        if (c.CHAT_PROVIDER !== null) env["CHAT_PROVIDER"] = c.CHAT_PROVIDER
        const { exit, lines } = yield* logged(ChatModel.settings().pipe(withEnv(env)))
        if (Exit.isFailure(exit)) assert.fail(String(exit.cause))
        // The reference has no Anthropic backend, so it falls back to openai; this library has one.
        const expected = c.CHAT_PROVIDER === "anthropic" ? "anthropic" : c.resolved
        assert.strictEqual(exit.value.provider === "anthropic" ? "anthropic" : "openai", expected)
        const unknown = !["", "openai", "anthropic"].includes((c.CHAT_PROVIDER ?? "").trim().toLowerCase())
        assert.strictEqual(
          lines.some((l) => l.includes("chat model provider unknown")),
          unknown,
          String(c.CHAT_PROVIDER)
        )
      }
    }))
})

describe("ChatModel.settings", () => {
  it.effect("the unknown-provider warning names what was asked for and what is used", () =>
    Effect.gen(function*() {
      const { exit, lines } = yield* logged(
        ChatModel.settings({ provider: "Gemini" }).pipe(withEnv({ OPENAI_API_KEY: "sk-x", CHAT_PROVIDER: "anthropic" }))
      )
      assert.isTrue(Exit.isSuccess(exit) && exit.value.provider === "openai")
      assert.strictEqual(lines.length, 1)
      assert.include(lines[0]!, "WARN")
      assert.include(lines[0]!, "\"requested\":\"gemini\"")
      assert.include(lines[0]!, "\"source\":\"option\"")
      assert.include(lines[0]!, "\"using\":\"openai\"")
    }))

  it.effect("an explicit provider wins over CHAT_PROVIDER", () =>
    Effect.gen(function*() {
      const resolved = yield* ChatModel.settings({ provider: "openai-responses" }).pipe(
        withEnv({ CHAT_PROVIDER: "anthropic", OPENAI_API_KEY: "sk-x" })
      )
      assert.strictEqual(resolved.provider, "openai-responses")
      assert.strictEqual(resolved.keySource, "OPENAI_API_KEY")
    }))

  it.effect("anthropic follows the same rules with anthropic_api_key and ANTHROPIC_*", () =>
    Effect.gen(function*() {
      const legacy = yield* ChatModel.settings().pipe(
        withEnv({ CHAT_PROVIDER: "anthropic", ANTHROPIC_API_KEY: "ak-env", ANTHROPIC_BASE_URL: "http://proxy" })
      )
      assert.deepStrictEqual(
        [legacy.mode, legacy.apiUrl, legacy.keySource, Redacted.value(legacy.apiKey)],
        ["legacy", "http://proxy", "ANTHROPIC_API_KEY", "ak-env"]
      )
      const dedicated = yield* ChatModel.settings({ secrets: secretsOf({ anthropic_api_key: "ak-secret" }) }).pipe(
        withEnv({ CHAT_PROVIDER: "anthropic", CHAT_BASE_URL: "http://judge", ANTHROPIC_API_KEY: "ak-env" })
      )
      assert.deepStrictEqual(
        [dedicated.mode, dedicated.apiUrl, dedicated.keySource, Redacted.value(dedicated.apiKey)],
        ["dedicated", "http://judge", "session secret anthropic_api_key", "ak-secret"]
      )
      const missing = yield* Effect.flip(
        ChatModel.settings().pipe(
          withEnv({ CHAT_PROVIDER: "anthropic", CHAT_BASE_URL: "http://judge", ANTHROPIC_API_KEY: "ak" })
        )
      )
      assert.strictEqual(
        missing.message,
        "no API key for the chat model (anthropic, dedicated mode): looked in session secret chat_api_key, CHAT_API_KEY, session secret anthropic_api_key"
      )
    }))

  it.effect("says where the key and URL came from, and prints the key redacted", () =>
    Effect.gen(function*() {
      const resolved = yield* ChatModel.settings({ secrets: secretsOf({ chat_api_key: "sk-very-secret" }) }).pipe(
        withEnv({ CHAT_BASE_URL: "http://judge/v1" })
      )
      assert.strictEqual(resolved.mode, "dedicated")
      assert.strictEqual(resolved.keySource, "session secret chat_api_key")
      assert.strictEqual(resolved.urlSource, "CHAT_BASE_URL")
      assert.notInclude(JSON.stringify(resolved), "sk-very-secret")
      assert.notInclude(String(resolved.apiKey), "sk-very-secret")
    }))
})

// -----------------------------------------------------------------------------
// against stand-ins
// -----------------------------------------------------------------------------

/** One stand-in that answers all three APIs, with the verdict a judge expects. */
const standIn = (answer: string) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      Testing.loopback((request, index) => {
        if (request.path.endsWith("/chat/completions")) {
          return OpenAiChatStandIn.api.scripted({ answer: () => answer, model: "judge-chat" })(request, index)
        }
        if (request.path.endsWith("/responses")) return OpenAiResponsesStandIn.api.scripted({})(request, index)
        return AnthropicStandIn.api.scripted({ answer: () => answer })(request, index)
      })
    ),
    (s) => Effect.promise(() => s.close())
  )

const ask = Effect.map(LanguageModel.generateText({ prompt: "Which is better?" }), (r) => r.text)

describe("ChatModel.layer against loopback stand-ins", () => {
  it.scoped("openai: Chat Completions at CHAT_BASE_URL with the dedicated key, never the policy's", () =>
    Effect.gen(function*() {
      const server = yield* standIn("{\"winner\": \"B\"}")
      const text = yield* ask.pipe(
        Effect.provide(ChatModel.layer({ model: "judge-1", maxTokens: 64 })),
        withEnv({
          CHAT_BASE_URL: `${server.url}/v1/`,
          CHAT_API_KEY: "sk-judge",
          OPENAI_API_KEY: "sk-policy",
          OPENAI_BASE_URL: "http://127.0.0.1:9/never"
        })
      )
      assert.strictEqual(text, "{\"winner\": \"B\"}")
      assert.strictEqual(server.requests.length, 1)
      const request = server.requests[0]!
      assert.strictEqual(request.path, "/v1/chat/completions")
      assert.strictEqual(request.headers["authorization"], "Bearer sk-judge")
      assert.deepStrictEqual(request.body, {
        model: "judge-1",
        messages: [{ role: "user", content: "Which is better?" }],
        max_completion_tokens: 64
      })
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scoped("openai-responses and anthropic go through @effect/ai-openai and @effect/ai-anthropic", () =>
    Effect.gen(function*() {
      const server = yield* standIn("{\"winner\": \"A\"}")
      const responses = yield* ask.pipe(
        Effect.provide(ChatModel.layer({ model: "judge-2", maxTokens: 32 })),
        withEnv({ CHAT_PROVIDER: "openai-responses", CHAT_BASE_URL: `${server.url}/v1`, CHAT_API_KEY: "sk-judge" })
      )
      assert.isNotEmpty(responses)
      const anthropic = yield* ask.pipe(
        Effect.provide(ChatModel.layer({ model: "claude-judge", maxTokens: 128 })),
        withEnv({ CHAT_PROVIDER: "anthropic", CHAT_BASE_URL: server.url, CHAT_API_KEY: "ak-judge" })
      )
      assert.strictEqual(anthropic, "{\"winner\": \"A\"}")
      const [r, a] = server.requests
      assert.strictEqual(r!.path, "/v1/responses")
      assert.strictEqual(r!.headers["authorization"], "Bearer sk-judge")
      assert.strictEqual((r!.body as { max_output_tokens?: number }).max_output_tokens, 32)
      assert.strictEqual(a!.path, "/v1/messages")
      assert.strictEqual(a!.headers["x-api-key"], "ak-judge")
      assert.strictEqual((a!.body as { max_tokens?: number }).max_tokens, 128)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scoped("a judge works on the channel end to end", () =>
    Effect.gen(function*() {
      const server = yield* standIn("Second is kinder.\n{\"winner\": \"B\", \"confidence\": 0.9}")
      const verdict = yield* Judge.compare("Go away.", "Happy to help!").pipe(
        Effect.provide(Judge.layerPairwise({ shuffle: false })),
        Effect.provide(ChatModel.layer({ model: "judge-1" })),
        withEnv({ CHAT_BASE_URL: `${server.url}/v1`, CHAT_API_KEY: "sk-judge" })
      )
      assert.strictEqual(verdict.winner, "b")
      assert.approximately(verdict.scoreB!, 0.9, 1e-12)
      const body = server.requests[0]!.body as { messages: ReadonlyArray<{ role: string; content: unknown }> }
      assert.deepStrictEqual(body.messages.map((m) => m.role), ["system", "user"])
      assert.include(JSON.stringify(body.messages[1]!.content), "<candidate_a>")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.effect("no key fails when the layer is built, before any request", () =>
    Effect.gen(function*() {
      let called = false
      const program = Effect.sync(() => {
        called = true
      })
      const error = yield* Effect.flip(
        program.pipe(
          Effect.provide(ChatModel.layer({ model: "judge-1" })),
          withEnv({ CHAT_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_API_KEY: "sk-policy" })
        )
      )
      assert.isFalse(called)
      assert.strictEqual(error._tag, "MissingKey")
      if (error._tag === "MissingKey") assert.deepStrictEqual(error.mode, "dedicated")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.scoped("per session: make builds the channel from the session's secrets", () =>
    Effect.gen(function*() {
      const server = yield* standIn("fine")
      const model = yield* ChatModel.make({
        model: "judge-1",
        secrets: secretsOf({ CHAT_API_KEY: "sk-session" })
      }).pipe(withEnv({ CHAT_BASE_URL: `${server.url}/v1`, CHAT_API_KEY: "sk-server" }))
      const response = yield* model.generateText({ prompt: "hi" })
      assert.strictEqual(response.text, "fine")
      assert.strictEqual(server.requests[0]!.headers["authorization"], "Bearer sk-session")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})

describe("ChatModel: the key never shows", () => {
  const key = "sk-SECRET-0123456789"

  const failing = (route: Testing.Route) =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => Testing.loopback(route)),
        (s) => Effect.promise(() => s.close())
      )
      const out: Array<unknown> = []
      for (const provider of ChatModel.providers) {
        const { exit, lines } = yield* logged(
          ask.pipe(
            Effect.provide(ChatModel.layer({ model: "m", maxTokens: 8 })),
            withEnv({
              CHAT_PROVIDER: provider,
              CHAT_BASE_URL: provider === "anthropic" ? server.url : `${server.url}/v1`,
              CHAT_API_KEY: key
            })
          )
        )
        assert.isTrue(Exit.isFailure(exit), provider)
        if (Exit.isFailure(exit)) {
          const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
          out.push(error)
          for (const text of [String(exit.cause), JSON.stringify(error), (error as Error)?.message ?? "", ...lines]) {
            assert.notInclude(text, key, provider)
            assert.notInclude(text, "0123456789", provider)
          }
        }
      }
      return out
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))

  it.scoped("not in the error of a provider that echoes it back", () =>
    Effect.gen(function*() {
      const errors = yield* failing((request) => ({
        _tag: "json",
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${
              String(request.headers["authorization"] ?? request.headers["x-api-key"]).replace("Bearer ", "")
            }`
          }
        }
      }))
      assert.strictEqual(errors.length, 3)
      // where a provider's error quotes the body, the key in it is replaced
      assert.isTrue(errors.some((error) => (error as Error).message.includes("[REDACTED]")))
    }))

  it.scoped("not in the error of an answer that cannot be read", () =>
    Effect.gen(function*() {
      const errors = yield* failing(() => ({ _tag: "json", status: 200, body: { unexpected: true } }))
      assert.strictEqual(errors.length, 3)
    }))

  it.scoped("not in the error of a connection refused", () =>
    Effect.gen(function*() {
      for (const provider of ChatModel.providers) {
        const { exit, lines } = yield* logged(
          ask.pipe(
            Effect.provide(ChatModel.layer({ model: "m", maxTokens: 8 })),
            withEnv({ CHAT_PROVIDER: provider, CHAT_BASE_URL: "http://127.0.0.1:9/v1", CHAT_API_KEY: key })
          )
        )
        assert.isTrue(Exit.isFailure(exit))
        for (const text of [String(Exit.isFailure(exit) ? exit.cause : ""), ...lines]) assert.notInclude(text, key)
      }
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))

  it.effect("not in MissingKey, which has none, nor in the settings printed", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        ChatModel.settings().pipe(withEnv({ CHAT_BASE_URL: "http://x", OPENAI_API_KEY: key }))
      )
      assert.notInclude(JSON.stringify(error), key)
      assert.notInclude(error.message, key)
      const resolved = yield* ChatModel.settings().pipe(withEnv({ CHAT_API_KEY: key }))
      assert.notInclude(JSON.stringify(resolved), key)
      assert.notInclude(String(Layer.empty) + JSON.stringify({ ...resolved }), key)
    }))
})
