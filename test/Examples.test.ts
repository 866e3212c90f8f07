/**
 * The agent examples run as written and print each episode's reward. Each is imported (so it runs,
 * top-level await and all) in this worker with `console.log` captured, which is what `npx tsx
 * examples/agent-*.ts` prints, without a process per example.
 */
import { afterEach, assert, describe, it, vi } from "vitest"

const run = async (file: string): Promise<ReadonlyArray<string>> => {
  const lines: Array<string> = []
  vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
    lines.push(args.map(String).join(" "))
  })
  await import(file)
  return lines
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("examples", () => {
  it("agent-openai.ts: the openai SDK with the Promise API, one answer and streaming", async () => {
    const lines = await run("../examples/agent-openai.ts")
    assert.deepStrictEqual(lines.map((l) => l.replace(/submit\(.*\)/, "submit(…)")), [
      "one answer: Finished after 1 turn(s), submit(…) → reward 1",
      "streaming: Finished after 1 turn(s), submit(…) → reward 1",
      "refused call: ToolCallError (not_found)"
    ])
  })

  it("agent-anthropic.ts: the Anthropic SDK with Effect, one answer and streaming", async () => {
    const lines = await run("../examples/agent-anthropic.ts")
    assert.deepStrictEqual(lines, [
      "one answer: Finished after 1 turn(s), tools submit → reward 1",
      "streaming: Finished after 1 turn(s), tools submit → reward 1"
    ])
  })

  it("agent-effect-ai.ts: @effect/ai-openai through EffectAi.step, one answer and streaming", async () => {
    const lines = await run("../examples/agent-effect-ai.ts")
    assert.deepStrictEqual(lines, [
      "one answer: Finished after 1 turn(s), submit → reward 1",
      "streaming: Finished after 1 turn(s), submit → reward 1"
    ])
  })

  it("agent-ai-sdk.ts: ai with @ai-sdk/openai through AiSdk.step, with the Promise API", async () => {
    const lines = await run("../examples/agent-ai-sdk.ts")
    assert.deepStrictEqual(lines, [
      "one answer: Finished after 1 turn(s), submit → reward 1",
      "streaming: Finished after 1 turn(s), submit → reward 1"
    ])
  })

  it("simulated-user.ts: a simulated user on the chat model channel, graded by a rubric in a terminal tool", async () => {
    const lines = await run("../examples/simulated-user.ts")
    assert.deepStrictEqual(lines, [
      "customer: It's #4411, ordered two weeks ago.",
      "resolve: reward 1, finished true",
      "criteria: [{\"id\":\"resolved\",\"score\":1},{\"id\":\"courteous\",\"score\":1}]"
    ])
  })

  it("preference.ts: a group of rollouts, terminal tool rewards and the pairwise judge's scores side by side", async () => {
    const lines = await run("../examples/preference.ts")
    assert.deepStrictEqual(lines, [
      "rollout 0: Finished, reward 1, judge 0.25 | Please wait a few more days.",
      "rollout 1: Finished, reward 1, judge 1 | Order #4411 is held at the hub; it ships tomorrow.",
      "rollout 2: Finished, reward 0, judge 0.25 | We are so sorry for the delay, and we are looking into what happened " +
      "to your parcel.",
      "rollout 1's games: [{\"opponent\":0,\"result\":\"win\"},{\"opponent\":2,\"result\":\"win\"}]"
    ])
  })
})
