/**
 * `npx tsx examples/agent-effect-ai.ts`: an agent on `@effect/ai` with the `@effect/ai-openai`
 * provider: `EffectAi.step` asks whatever `LanguageModel` is provided, `Episode.runMany` runs the
 * episodes.
 *
 * The model is a loopback stand-in that speaks the OpenAI Responses API (`Testing.standIn` of openreward-effect/Testing), which
 * is what `@effect/ai-openai` calls, so the example runs offline: it calls the first tool it is
 * offered, then answers. For a real model, drop the stand-in and the `apiUrl` and give
 * `OpenAiClient.layerConfig` your key (`apiKey: Config.redacted("OPENAI_API_KEY")`). The
 * environments are examples/support.ts, served on a free port by `Testing.serve`; a real harness points `Client.layer`
 * at its server.
 */
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Client from "openreward-effect/Client"
import * as EffectAi from "openreward-effect/EffectAi"
import * as Episode from "openreward-effect/Episode"
import * as Testing from "openreward-effect/Testing"
import { environments } from "./support.js"

/** The provider's layers: the model (strict off: the server's tool schemas are not strict-mode schemas). */
const OpenAi = (apiUrl: string) =>
  OpenAiLanguageModel.layer({ model: "gpt-4.1-mini", config: { strict: false } }).pipe(
    Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("stand-in"), apiUrl })),
    Layer.provide(NodeHttpClient.layerUndici)
  )

const program = Effect.gen(function*() {
  const model = yield* Testing.scoped(() =>
    Testing.standIn("openai-responses", {
      toolInput: () => ({
        answer: "Sorry for the wait: order #4411 is delayed at the carrier, tracking follows today."
      })
    })
  )
  const served = yield* Testing.scoped(() => Testing.serve(environments))

  const env = yield* Client.environment("dialogueenv", { variant: "dialogueenv", baseUrl: served.url })
  const tasks = yield* env.tasks("train")
  for (const stream of [false, true]) {
    const episodes = yield* Episode.runMany(env, tasks, EffectAi.step({ stream }), { progress: false }).pipe(
      Effect.provide(OpenAi(`${model.url}/v1`))
    )
    for (const episode of episodes) {
      const last = episode.calls.at(-1)
      yield* Console.log(
        `${stream ? "streaming" : "one answer"}: ${episode.stop._tag} after ${episode.turns} turn(s), ` +
          `${last?.name} → reward ${episode.totalReward}`
      )
    }
  }
})

await program.pipe(
  Effect.scoped,
  Effect.provide(Client.layer({ apiKey: "" })),
  Effect.provide(NodeHttpClient.layerUndici),
  Effect.runPromise
)
