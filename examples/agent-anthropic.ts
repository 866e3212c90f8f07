/**
 * `npx tsx examples/agent-anthropic.ts`: an agent on the official `@anthropic-ai/sdk`, written with
 * Effect: the client as a Layer, sessions as scoped resources, episodes run concurrently.
 *
 * The model is a loopback stand-in that speaks the Messages API (`Testing.standIn` of openreward-effect/Testing), so the example
 * runs offline: it calls the first tool it is offered, then answers. For a real model, drop the
 * stand-in and construct `new Anthropic()` (it reads `ANTHROPIC_API_KEY`). The environments are
 * examples/support.ts, served on a free port by `Testing.serve`; a real harness points `Client.layer` at its server.
 */
import Anthropic from "@anthropic-ai/sdk"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Client from "openreward-effect/Client"
import * as Episode from "openreward-effect/Episode"
import * as ModelStep from "openreward-effect/ModelStep"
import * as Testing from "openreward-effect/Testing"
import { environments } from "./support.js"

const program = Effect.gen(function*() {
  const model = yield* Testing.scoped(() =>
    Testing.standIn("anthropic", {
      toolInput: () => ({
        answer: "Sorry for the wait: order #4411 is delayed at the carrier, tracking follows today."
      })
    })
  )
  const served = yield* Testing.scoped(() => Testing.serve(environments))
  const anthropic = new Anthropic({ baseURL: model.url, apiKey: "stand-in" })

  const env = yield* Client.environment("dialogueenv", { variant: "dialogueenv", baseUrl: served.url })
  const tasks = yield* env.tasks("train")
  for (const stream of [false, true]) {
    const step = ModelStep.anthropic(anthropic, { model: "claude-sonnet-4-5", max_tokens: 1024 }, { stream })
    const episodes = yield* Episode.runMany(env, tasks, step, { concurrency: 4, progress: false })
    for (const episode of episodes) {
      yield* Console.log(
        `${stream ? "streaming" : "one answer"}: ${episode.stop._tag} after ${episode.turns} turn(s), ` +
          `tools ${episode.calls.map((c) => c.name).join(", ")} → reward ${episode.totalReward}`
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
