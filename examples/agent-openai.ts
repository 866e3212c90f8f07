/**
 * `npx tsx examples/agent-openai.ts`: an agent on the official `openai` SDK, with the Promise API
 * (no Effect in this file).
 *
 * The model is a loopback stand-in that speaks the Chat Completions API (`Testing.standIn` of openreward-effect/Testing), so the
 * example runs offline: it calls the first tool it is offered, then answers. For a real model, drop
 * the stand-in and construct `new OpenAI()` (it reads `OPENAI_API_KEY`). The environments are
 * examples/support.ts, served on a free port by `Testing.serve`; a real harness points `connect` at its server.
 */
import OpenAI from "openai"
import * as ClientError from "openreward-effect/ClientError"
import * as ModelStep from "openreward-effect/ModelStep"
import * as OpenReward from "openreward-effect/Promise"
import * as Testing from "openreward-effect/Testing"
import { environments } from "./support.js"

const model = await Testing.standIn("openai-chat", {
  toolInput: () => ({ answer: "Sorry for the wait: order #4411 is delayed at the carrier, tracking follows today." })
})
const served = await Testing.serve(environments)
try {
  const openai = new OpenAI({ baseURL: `${model.url}/v1`, apiKey: "stand-in" })
  await using client = OpenReward.connect({ baseUrl: served.url })
  const env = client.environment("dialogueenv", { variant: "dialogueenv" })
  const tasks = await env.tasks("train")

  for (const stream of [false, true]) {
    // One session per task; the step sends messages and tools in matching Chat Completions shapes
    // and reads the answer (or the chunk stream) back into a canonical assistant turn.
    const step = ModelStep.openAiChat(openai, { model: "gpt-4.1-mini", temperature: 0 }, { stream })
    const [episode] = await env.runEpisodes(tasks, step, { progress: false })
    const last = episode!.calls.at(-1)
    console.log(
      `${stream ? "streaming" : "one answer"}: ${episode!.stop._tag} after ${episode!.turns} turn(s), ` +
        `${last?.name}(${JSON.stringify(last?.input)}) → reward ${episode!.totalReward}`
    )
  }

  // A failure rejects with the library's tagged error itself.
  await using session = await env.session(tasks[0]!)
  try {
    await session.callTool("no_such_tool", {})
  } catch (error) {
    if (ClientError.isClientError(error) && error._tag === "ToolCallError") {
      console.log(`refused call: ${error._tag} (${error.reason})`)
    } else throw error
  }
} finally {
  await served.close()
  await model.close()
}
