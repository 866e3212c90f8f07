/**
 * `npx tsx examples/agent-ai-sdk.ts`: an agent on the Vercel AI SDK (`ai` with `@ai-sdk/openai`),
 * with the Promise API (no Effect in this file): `AiSdk.step` makes any AI SDK `LanguageModel` an
 * episode step, `session.runEpisode` runs the loop.
 *
 * The model is a loopback stand-in that speaks the Chat Completions API (`Testing.standIn` of openreward-effect/Testing), so the
 * example runs offline: it calls the first tool it is offered, then answers. For a real model, use
 * `openai.chat("gpt-4.1-mini")` from `@ai-sdk/openai` (it reads `OPENAI_API_KEY`), or any other
 * provider's model. The environments are examples/support.ts, served on a free port by `Testing.serve`; a real harness
 * points `connect` at its server.
 */
import { createOpenAI } from "@ai-sdk/openai"
import * as AiSdk from "openreward-effect/AiSdk"
import * as OpenReward from "openreward-effect/Promise"
import * as Testing from "openreward-effect/Testing"
import { environments } from "./support.js"

const standIn = await Testing.standIn("openai-chat", {
  toolInput: () => ({ answer: "Sorry for the wait: order #4411 is delayed at the carrier, tracking follows today." })
})
const served = await Testing.serve(environments)
try {
  const openai = createOpenAI({ baseURL: `${standIn.url}/v1`, apiKey: "stand-in" })
  const model = openai.chat("gpt-4.1-mini")
  await using client = OpenReward.connect({ baseUrl: served.url })
  const env = client.environment("dialogueenv", { variant: "dialogueenv" })
  const [task] = await env.tasks("train")

  for (const stream of [false, true]) {
    // generateText (streamText when streaming) with the session's tools as AI SDK tools without
    // `execute`: the calls come back unresolved, and the episode runs each one through the session.
    await using session = await env.session(task!)
    const episode = await session.runEpisode(AiSdk.step(model, { stream, temperature: 0 }))
    const last = episode.calls.at(-1)
    console.log(
      `${stream ? "streaming" : "one answer"}: ${episode.stop._tag} after ${episode.turns} turn(s), ` +
        `${last?.name} → reward ${episode.totalReward}`
    )
  }
} finally {
  await served.close()
  await standIn.close()
}
