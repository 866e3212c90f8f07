/**
 * An AI SDK model as an `@effect/ai` `LanguageModel`: the judges and graders run on it, prompts and
 * answers cross intact, failures are typed.
 */
import type { LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider"
import * as AiTool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import { assert, describe, it } from "@effect/vitest"
import { MockLanguageModelV3 } from "ai/test"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as AiSdkLanguageModel from "openreward-effect/AiSdkLanguageModel"
import * as Block from "openreward-effect/Block"
import * as Judge from "openreward-effect/Judge"
import * as Message from "openreward-effect/Message"

const answer = (text: string) => ({
  content: [{ type: "text" as const, text }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage: {
    inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 4, text: 4, reasoning: 0 }
  },
  warnings: [],
  response: { id: "resp_1", modelId: "mock-judge" }
})

/** A mock answering from a list, recording each prompt. */
const mock = (texts: ReadonlyArray<string>, seen: Array<LanguageModelV3Prompt>) =>
  new MockLanguageModelV3({
    doGenerate: (options: LanguageModelV3CallOptions) => {
      seen.push(options.prompt)
      return Promise.resolve(answer(texts[seen.length - 1] ?? ""))
    }
  })

const quiet = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, Logger.minimumLogLevel(LogLevel.None))

describe("AiSdkLanguageModel", () => {
  it.effect("a pairwise judge runs on an AI SDK model: the prompt crosses intact, images as files", () =>
    Effect.gen(function*() {
      const seen: Array<LanguageModelV3Prompt> = []
      const drawing = [
        Message.user("Draw a square."),
        Message.assistant([Block.text("Here:"), Block.image("iVBORw0KGgo=", "image/png")])
      ]
      const verdict = yield* Judge.compare(drawing, "I cannot draw.", { context: [Message.user("Draw a square.")] })
        .pipe(
          Effect.provide(Judge.layerPairwise({ shuffle: false })),
          Effect.provide(AiSdkLanguageModel.layer(mock(["{\"winner\": \"A\", \"confidence\": 0.75}"], seen)))
        )
      assert.strictEqual(verdict.winner, "a")
      assert.strictEqual(verdict.scoreA, 0.75)
      const [system, user] = seen[0]!
      assert.strictEqual(system!.role, "system")
      assert.include(system!.content as string, "<candidate_a>")
      const content = user!.role === "user" ? user!.content : []
      assert.deepStrictEqual(
        content.map((p) => p.type === "text" ? p.text : p.type),
        [
          "<task>",
          "[user]",
          "Draw a square.",
          "</task>",
          "<candidate_a>",
          "Here:",
          "file",
          "</candidate_a>",
          "<candidate_b>",
          "I cannot draw.",
          "</candidate_b>"
        ]
      )
    }))

  it.effect("an unreadable reply is asked again through the model, with the reply echoed", () =>
    Effect.gen(function*() {
      const seen: Array<LanguageModelV3Prompt> = []
      const verdict = yield* Judge.compare("x", "y").pipe(
        Effect.provide(Judge.layerPairwise({ shuffle: false })),
        Effect.provide(AiSdkLanguageModel.layer(mock(["No idea.", "{\"winner\": \"tie\"}"], seen)))
      )
      assert.strictEqual(verdict.winner, "tie")
      assert.strictEqual(verdict.attempts, 2)
      assert.deepStrictEqual(seen[1]!.map((m) => m.role), ["system", "user", "assistant", "user"])
      const echoed = seen[1]![2]!
      const echoedText = echoed.role === "assistant" ? echoed.content.map((p) => p.type === "text" ? p.text : "") : []
      assert.deepStrictEqual(echoedText, ["No idea."])
    }).pipe(quiet))

  it.effect("streamText gives the same text; settings are passed to every call", () =>
    Effect.gen(function*() {
      const seen: Array<LanguageModelV3Prompt> = []
      const model = mock(["streamed", "whole"], seen)
      const service = yield* AiSdkLanguageModel.make(model, { maxOutputTokens: 77, temperature: 0 })
      const parts = yield* Stream.runCollect(service.streamText({ prompt: "hi" }))
      const text = Chunk.toReadonlyArray(parts).flatMap((p) => p.type === "text-delta" ? [p.delta] : []).join("")
      assert.strictEqual(text, "streamed")
      const whole = yield* service.generateText({ prompt: "hi" })
      assert.strictEqual(whole.text, "whole")
      assert.strictEqual(whole.finishReason, "stop")
      assert.strictEqual(model.doGenerateCalls[0]!.maxOutputTokens, 77)
      assert.strictEqual(model.doGenerateCalls[1]!.temperature, 0)
    }))

  it.effect("a failed call is an AiError with the AI SDK's message and status; tools are refused", () =>
    Effect.gen(function*() {
      const failing = new MockLanguageModelV3({
        doGenerate: () =>
          Promise.reject(Object.assign(new Error("Service Unavailable\nmore detail"), { statusCode: 503 }))
      })
      const service = yield* AiSdkLanguageModel.make(failing, { maxRetries: 0 })
      const error = yield* Effect.flip(service.generateText({ prompt: "hi" }))
      assert.strictEqual(error._tag, "UnknownError")
      assert.include(error.message, "HTTP 503: Service Unavailable")
      assert.notInclude(error.message, "more detail")

      const seen: Array<LanguageModelV3Prompt> = []
      const model = yield* AiSdkLanguageModel.make(mock(["unused"], seen))
      const toolkit = Toolkit.make(AiTool.make("echo", { parameters: { text: Schema.String }, success: Schema.String }))
      const refused = yield* Effect.flip(
        model.generateText({ prompt: "hi", toolkit, disableToolCallResolution: true }).pipe(
          Effect.provide(toolkit.toLayer({ echo: ({ text }) => Effect.succeed(text) }))
        )
      )
      assert.strictEqual(refused._tag, "MalformedInput")
      assert.strictEqual(seen.length, 0)
    }))
})
