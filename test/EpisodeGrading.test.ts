/**
 * The episode runner's grading paths: a final turn sent to the environment's terminal tool (issue
 * 21 part 1), tool calls the model got wrong answered, failed or repaired (issue 19 part 4), and
 * groups of rollouts scored by `/score_group` and written beside the pointwise rewards (issue 21
 * part 6). Against this library's server on a loopback port, with scripted models.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import { assert } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"
import * as Block from "openreward-effect/Block"
import * as Client from "openreward-effect/Client"
import * as Conversation from "openreward-effect/Conversation"
import * as Dataset from "openreward-effect/Dataset"
import * as Environment from "openreward-effect/Environment"
import * as Episode from "openreward-effect/Episode"
import * as Message from "openreward-effect/Message"
import type * as ModelResponse from "openreward-effect/ModelResponse"
import * as ModelStep from "openreward-effect/ModelStep"
import * as OpenReward from "openreward-effect/Promise"
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"
import { layer } from "./utils/layer.js"

const tick = Tool.make("tick", {
  description: "Add one; reward 0.25 each.",
  input: Schema.Struct({ n: Schema.Number }),
  handler: ({ n }) => Tool.output(`ticked ${n}`, { reward: 0.25 })
})

/** The final reply goes to `reply`; groups are scored by whether the reply names the order. */
const Support = Environment.make({
  name: "support",
  splits: ["train"],
  tasks: { train: [{ id: "a" }, { id: "b" }] },
  messages: ({ task }) => [Message.user(`Where is my order #4411? (${String(task["id"])})`)],
  tools: [
    tick,
    Tool.make("explode", { description: "Raises.", handler: () => Effect.die(new Error("boom")) }),
    Tool.make("reply", {
      description: "The final reply to the customer.",
      terminal: true,
      input: Schema.Struct({ message: Schema.String }),
      handler: ({ message }) => Tool.output("Reply sent.", { reward: message.includes("4411") ? 1 : 0, finished: true })
    })
  ],
  scoreGroup: (candidates) =>
    candidates.map((c) => {
      const text = JSON.stringify(c.messages)
      const shape = c.messages.map((m) => `${m.role}:${m.blocks.map((b) => b.type).join("+")}`).join(" ")
      return { reward: text.includes("4411") ? 1 : 0, metadata: { rollout: c.metadata?.["rollout"] ?? null, shape } }
    })
})

/** A terminal tool whose input the final message may not satisfy. */
const Strict = Environment.make({
  name: "strict",
  splits: ["train"],
  tasks: { train: [{}] },
  prompt: () => [Block.text("Yes or no?")],
  tools: [
    Tool.make("verdict", {
      terminal: true,
      input: Schema.Struct({ answer: Schema.Literal("yes", "no") }),
      handler: ({ answer }) => Tool.output("ok", { reward: answer === "yes" ? 1 : 0, finished: true })
    })
  ]
})

/** No terminal tool, no group scoring. */
const Counter = Environment.make({
  name: "counter",
  splits: ["train"],
  tasks: { train: [{}, {}] },
  prompt: () => [Block.text("Count, then call done.")],
  tools: [
    tick,
    Tool.make("done", { description: "Finish.", handler: () => Tool.output("bye", { reward: 1, finished: true }) })
  ]
})

/** Group scoring that always fails (a judge that never gives a readable verdict). */
const Unjudgeable = Environment.make({
  name: "unjudgeable",
  splits: ["train"],
  tasks: { train: [{}] },
  prompt: () => [Block.text("Say something.")],
  tools: [tick],
  scoreGroup: () => Effect.die(new Error("JudgeFailure: no verdict"))
})

const ServerLive = Server.layer([Support, Strict, Counter, Unjudgeable]).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

const baseUrl = Effect.map(
  HttpServer.HttpServer,
  ({ address }) => address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
)

const TestLive = Layer.unwrapEffect(Effect.map(baseUrl, (url) => Client.layer({ baseUrl: url, apiKey: "" }))).pipe(
  Layer.provideMerge(ServerLive),
  Layer.provide(NodeHttpClient.layerUndici)
)

const answer = (blocks: ReadonlyArray<Message.AssistantBlock>) =>
  Effect.succeed<ModelResponse.ModelResponse>({
    message: Message.assistant(blocks),
    stopReason: blocks.some((b) => b.type === "tool_call") ? "tool_calls" : "stop",
    usage: {}
  })

const scripted = (turns: ReadonlyArray<ReadonlyArray<Message.AssistantBlock>>): Episode.Step => ({ turn }) =>
  answer(turns[Math.min(turn, turns.length - 1)]!)

const runOn = <E = never>(name: string, step: Episode.Step<E>, options?: Episode.Options) =>
  Effect.flatMap(Client.Client, (client) =>
    Effect.scoped(Effect.flatMap(
      client.environment(name, { variant: name }).session({ split: "train", index: 0 }),
      (session) => Episode.run(session, step, options)
    )))

const broken = Block.toolCallWithInvalidArguments("c1", "tick", { raw: "{\"n\": 1", reason: "not valid JSON" })

const resultText = (message: Message.Message | undefined, k = 0): string => {
  const block = message?.blocks[k]
  if (block?.type !== "tool_result") return ""
  return block.blocks.map((b) => b.type === "text" ? b.text : "").join("")
}

layer(TestLive, { timeout: 30_000 })("Episode grading", (it) => {
  // ---------------------------------------------------------------------------
  // terminal tools
  // ---------------------------------------------------------------------------

  it.effect("a turn without tool calls goes to the terminal tool: its reward is recorded, the episode finishes", () =>
    Effect.gen(function*() {
      const episode = yield* runOn(
        "support",
        scripted([
          [Block.toolCall("t1", "tick", { n: 1 })],
          [Block.reasoning("Say where it is."), Block.text("Order #4411 "), Block.text("ships tomorrow.")]
        ])
      )
      assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "reply" })
      assert.strictEqual(episode.turns, 2)
      assert.deepStrictEqual(episode.rewards, [0.25, 1])
      assert.strictEqual(episode.totalReward, 1.25)
      assert.deepStrictEqual(episode.calls[1], {
        turn: 1,
        id: "",
        name: "reply",
        // the turn's text blocks joined, as the SDKs' `text` gives them
        input: { message: "Order #4411 ships tomorrow." },
        terminal: true,
        reward: 1,
        finished: true,
        refused: false
      })
      // The model's final turn is the conversation's last message; no result follows it.
      assert.strictEqual(episode.conversation.at(-1)?.role, "assistant")
      assert.deepStrictEqual(episode.tools.map((t) => t.name), ["explode", "tick"])
      // In the record too.
      const record = Episode.toRecord(episode)
      assert.deepStrictEqual(record.stop, { reason: "Finished", tool: "reply" })
      assert.strictEqual(record.calls[1]?.terminal, true)
    }))

  it.effect("terminalTool: false, or no terminal tool: the turn stops the episode as ModelStopped", () =>
    Effect.gen(function*() {
      const off = yield* runOn("support", scripted([[Block.text("Order #4411.")]]), { terminalTool: false })
      assert.deepStrictEqual(off.stop, { _tag: "ModelStopped", stopReason: "stop" })
      assert.deepStrictEqual(off.rewards, [])
      const none = yield* runOn("counter", scripted([[Block.text("I give up.")]]))
      assert.deepStrictEqual(none.stop, { _tag: "ModelStopped", stopReason: "stop" })
      assert.deepStrictEqual(none.calls, [])
    }))

  it.effect("a terminal tool that refuses the final message: Failed with the ToolCallError, the call recorded", () =>
    Effect.gen(function*() {
      const episode = yield* runOn("strict", scripted([[Block.text("maybe")]]))
      assert.strictEqual(episode.stop._tag, "Failed")
      const error = Option.getOrThrow(Episode.failure(episode))
      assert.strictEqual(error._tag, "ToolCallError")
      assert.strictEqual(episode.calls.length, 1)
      assert.strictEqual(episode.calls[0]?.refused, true)
      assert.strictEqual(episode.calls[0]?.refusal?.reason, "input_validation")
      const yes = yield* runOn("strict", scripted([[Block.text("yes")]]))
      assert.deepStrictEqual(yes.rewards, [1])
    }))

  // ---------------------------------------------------------------------------
  // calls the model got wrong
  // ---------------------------------------------------------------------------

  it.effect("arguments that are not JSON: the turn is kept and the call answered with an error quoting them", () =>
    Effect.gen(function*() {
      const episode = yield* runOn(
        "counter",
        scripted([[Block.text("Counting."), broken], [Block.toolCall("d", "done")]])
      )
      assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "done" })
      assert.strictEqual(episode.turns, 2)
      assert.deepStrictEqual(episode.rewards, [1])
      const [first] = episode.calls
      assert.strictEqual(first?.refused, true)
      assert.strictEqual(first?.refusal?.reason, "invalid_arguments")
      assert.deepStrictEqual(first?.input, {})
      // The turn as the model wrote it, then the error result it can correct from.
      assert.deepStrictEqual(episode.conversation[1], Message.assistant([Block.text("Counting."), broken]))
      const result = episode.conversation[2]!.blocks[0]!
      assert.isTrue(result.type === "tool_result" && result.is_error && result.tool_call_id === "c1")
      assert.strictEqual(
        resultText(episode.conversation[2]),
        "The arguments of this call to \"tick\" are not a JSON object (not valid JSON), so the tool did not run. " +
          "They were:\n{\"n\": 1\nCall the tool again with its arguments as one JSON object."
      )
      assert.isTrue(Either.isRight(Conversation.validate(episode.conversation)))
    }))

  it.effect("a ready-made step keeps a turn cut at max_tokens, and the episode answers it", () =>
    Effect.gen(function*() {
      // Chat Completions answers: a call cut off mid-arguments, then the call that finishes.
      const completions = [
        { finish_reason: "length", call: { id: "c1", name: "tick", arguments: "{\"n\": 1" } },
        { finish_reason: "tool_calls", call: { id: "c2", name: "done", arguments: "{}" } }
      ].map(({ call, finish_reason }) => ({
        choices: [{
          index: 0,
          finish_reason,
          message: {
            role: "assistant",
            content: null,
            tool_calls: [{ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }]
          }
        }]
      }))
      let sent = 0
      const client = { chat: { completions: { create: () => Promise.resolve(completions[sent++]) } } }
      const episode = yield* runOn("counter", ModelStep.openAiChat(client, { model: "m" }))
      assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "done" })
      assert.strictEqual(episode.turns, 2)
      assert.deepStrictEqual(episode.conversation[1], Message.assistant([broken]))
      assert.strictEqual(episode.calls[0]?.refusal?.reason, "invalid_arguments")
      assert.include(resultText(episode.conversation[2]), "not a JSON object (not valid JSON)")
    }))

  it.effect("unknown tools and input the schema refuses are answered (the server's refusal), or fail with the option", () =>
    Effect.gen(function*() {
      const turns = [[Block.toolCall("x", "tock", { n: 1 })], [Block.toolCall("y", "tick", { n: "one" })], [
        Block.toolCall("d", "done")
      ]]
      const answered = yield* runOn("counter", scripted(turns))
      assert.deepStrictEqual(answered.calls.map((c) => c.refusal?.reason), ["not_found", "input_validation", undefined])
      assert.strictEqual(answered.stop._tag, "Finished")

      const failed = yield* runOn("counter", scripted(turns), { invalidToolCalls: "fail" })
      const error = Option.getOrThrow(Episode.failure(failed))
      assert.strictEqual(error._tag, "InvalidToolCall")
      if (error._tag === "InvalidToolCall") {
        assert.deepStrictEqual([error.turn, error.id, error.name, error.reason], [0, "x", "tock", "not_found"])
      }
      assert.strictEqual(failed.turns, 1)
      assert.strictEqual(failed.conversation.at(-1)?.role, "assistant")

      const json = yield* runOn("counter", scripted([[broken]]), { invalidToolCalls: "fail" })
      const jsonError = Option.getOrThrow(Episode.failure(json))
      assert.strictEqual(jsonError._tag, "InvalidToolCall")
      if (jsonError._tag === "InvalidToolCall") {
        assert.strictEqual(jsonError.reason, "invalid_arguments")
        assert.strictEqual(jsonError.raw, "{\"n\": 1")
        assert.strictEqual(
          jsonError.message,
          "turn 0: tool call \"c1\" to \"tick\": invalid_arguments: not valid JSON"
        )
      }
      // The turn is kept even so; the record says why it failed.
      assert.deepStrictEqual(json.conversation.at(-1), Message.assistant([broken]))
      assert.deepStrictEqual(Episode.toRecord(json).stop, {
        reason: "Failed",
        error: { tag: "InvalidToolCall", message: jsonError.message }
      })
    }))

  it.effect("repairToolCall mends a call once: the turn shows what ran, the record what the model wrote", () =>
    Effect.gen(function*() {
      const asked = yield* Ref.make<ReadonlyArray<Episode.InvalidCall>>([])
      const repairToolCall = (call: Episode.InvalidCall) =>
        Effect.as(
          Ref.update(asked, (a) => [...a, call]),
          call.reason === "invalid_arguments"
            ? Option.some({ name: call.call.name, input: { n: 1 } })
            : call.reason === "not_found"
            ? Option.some({ name: "tick", input: call.call.input })
            : Option.none()
        )
      const episode = yield* runOn(
        "counter",
        scripted([
          [broken, Block.toolCall("c2", "tock", { n: 2 }), Block.toolCall("c3", "tick", { n: "three" })],
          [Block.toolCall("d", "done")]
        ]),
        { repairToolCall }
      )
      assert.deepStrictEqual(episode.rewards, [0.25, 0.25, 1])
      const calls = episode.calls
      assert.deepStrictEqual(calls[0]?.repaired, { name: "tick", input: {}, raw: "{\"n\": 1" })
      assert.deepStrictEqual([calls[0]?.name, calls[0]?.input, calls[0]?.refused], ["tick", { n: 1 }, false])
      assert.deepStrictEqual(calls[1]?.repaired, { name: "tock", input: { n: 2 } })
      assert.strictEqual(calls[1]?.name, "tick")
      // The schema refusal was asked about and left to be answered.
      assert.strictEqual(calls[2]?.refusal?.reason, "input_validation")
      assert.deepStrictEqual((yield* Ref.get(asked)).map((c) => c.reason), [
        "invalid_arguments",
        "not_found",
        "input_validation"
      ])
      assert.deepStrictEqual((yield* Ref.get(asked))[0]?.raw, "{\"n\": 1")
      // The turn in the conversation holds the calls that ran.
      assert.deepStrictEqual(
        episode.conversation[1],
        Message.assistant([
          Block.toolCall("c1", "tick", { n: 1 }),
          Block.toolCall("c2", "tick", { n: 2 }),
          Block.toolCall("c3", "tick", { n: "three" })
        ])
      )

      // A repaired call the server refuses again is answered, not repaired twice.
      const again = yield* runOn("counter", scripted([[broken], [Block.toolCall("d", "done")]]), {
        repairToolCall: () => Effect.succeed(Option.some({ name: "tick", input: { n: "still wrong" } }))
      })
      assert.strictEqual(again.calls[0]?.refusal?.reason, "input_validation")
      assert.deepStrictEqual(again.calls[0]?.repaired, { name: "tick", input: {}, raw: "{\"n\": 1" })
    }))

  // ---------------------------------------------------------------------------
  // groups
  // ---------------------------------------------------------------------------

  it.effect("runMany with groupSize: N rollouts per task, each group scored, the scores beside the rewards", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = client.environment("support", { variant: "support" })
      const lines = yield* Ref.make<ReadonlyArray<string>>([])
      // One episode at a time: the second rollout of each group forgets the order number.
      const counter = { n: 0 }
      const episodes = yield* Episode.runMany(
        env,
        [{ split: "train", index: 0 }, { split: "train", index: 1 }],
        () => answer([Block.text(counter.n++ % 3 === 1 ? "It is late." : "Order #4411 ships tomorrow.")]),
        {
          groupSize: 3,
          concurrency: 1,
          progress: false,
          onEpisode: Episode.appendJsonl((line) => Ref.update(lines, (ls) => [...ls, line]))
        }
      )
      assert.strictEqual(episodes.length, 6)
      assert.deepStrictEqual(episodes.map((e) => (e.source as Client.TaskIndex).index), [0, 0, 0, 1, 1, 1])
      assert.deepStrictEqual(episodes.map((e) => e.group?.index), [0, 1, 2, 0, 1, 2])
      // The pointwise reward (the terminal tool) and the group score agree here, side by side.
      assert.deepStrictEqual(episodes.map((e) => e.totalReward), [1, 0, 1, 1, 0, 1])
      assert.deepStrictEqual(episodes.map((e) => e.group?.score?.reward), [1, 0, 1, 1, 0, 1])
      assert.deepStrictEqual(
        episodes.map((e) => e.group?.candidate),
        [0, 1, 2, 0, 1, 2].map((rollout) => ({ rollout }))
      )
      // The environment echoed each candidate's metadata in its score's; the candidate was the final turn.
      assert.deepStrictEqual(episodes[2]?.group?.score?.metadata, { rollout: 2, shape: "assistant:text" })
      const records = (yield* Ref.get(lines)).map((l) => JSON.parse(l))
      assert.strictEqual(records.length, 6)
      assert.deepStrictEqual(records[1].group, {
        index: 1,
        size: 3,
        reward: 0,
        metadata: { rollout: 1, shape: "assistant:text" },
        candidate: { rollout: 1 },
        error: null
      })
      assert.deepStrictEqual(records[0].rewards, [1])
      // `convert --record rollout` still reads them, the group kept.
      for (const record of records) {
        const converted = Dataset.convertRecord(record, { record: "rollout", to: "openai" })
        assert.isTrue(Either.isRight(converted))
        const value = (converted as Either.Right<never, Dataset.Converted>).right.value as Record<string, unknown>
        assert.deepStrictEqual(value["group"], record.group)
      }
    }))

  it.effect("groups: output candidates by default, trajectories or your own on request", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = client.environment("support", { variant: "support" })
      const step = scripted([[Block.toolCall("t", "tick", { n: 1 })], [Block.text("Order #4411.")]])
      const sent: Array<Client.Candidate> = []
      const own = (episode: Episode.Episode<any>, index: number): Client.Candidate => {
        const candidate = { messages: episode.conversation, metadata: { mine: index } }
        sent.push(candidate)
        return candidate
      }
      const episodes = yield* Episode.runMany(env, [{ split: "train", index: 0 }], step, {
        groupSize: 2,
        groupCandidate: own,
        progress: false
      })
      assert.deepStrictEqual(episodes.map((e) => e.group?.candidate), [{ mine: 0 }, { mine: 1 }])
      assert.strictEqual(sent.length, 2)
      const shapes = (how?: Episode.GroupCandidate) =>
        Effect.map(
          Episode.runMany(env, [{ split: "train", index: 0 }], step, {
            groupSize: 2,
            progress: false,
            ...(how === undefined ? {} : { groupCandidate: how })
          }),
          (es) => es.map((e) => e.group?.score?.metadata?.["shape"])
        )
      // The default: the final assistant turn's text and images, as one assistant message.
      assert.deepStrictEqual(yield* shapes(), ["assistant:text", "assistant:text"])
      const whole = "user:text assistant:tool_call user:tool_result assistant:text"
      assert.deepStrictEqual(yield* shapes("trajectory"), [whole, whole])
    }))

  it.effect("a group whose first session died is scored through a new session; failed episodes are candidates too", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = client.environment("support", { variant: "support" })
      const counter = { n: 0 }
      const episodes = yield* Episode.runMany(
        env,
        [{ split: "train", index: 0 }, { split: "train", index: 99 }],
        () => answer(counter.n++ === 0 ? [Block.toolCall("x", "explode")] : [Block.text("Order #4411.")]),
        { groupSize: 2, concurrency: 1, progress: false }
      )
      assert.deepStrictEqual(episodes.map((e) => e.stop._tag), ["Failed", "Finished", "Failed", "Failed"])
      assert.strictEqual(Option.getOrThrow(Episode.failure(episodes[0]!))._tag, "ToolFailed")
      // The exploded rollout's final turn was a tool call: its candidate shows no text.
      assert.deepStrictEqual(episodes.slice(0, 2).map((e) => e.group?.score?.reward), [0, 1])
      // A task whose sessions never open: its episodes are failed and its group cannot be scored.
      const opening: string = Option.getOrThrow(Episode.failure(episodes[2]!))._tag
      assert.deepStrictEqual(episodes.slice(2).map((e): string | undefined => e.group?.error?._tag), [opening, opening])
      assert.deepStrictEqual(episodes.slice(2).map((e) => e.group?.score), [null, null])
    }))

  it.effect("a group that cannot be scored keeps its episodes and says why; auto skips environments without", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const step = scripted([[Block.toolCall("t", "tick", { n: 1 })], [Block.text("done")]])
      const failed = yield* Episode.runMany(
        client.environment("unjudgeable", { variant: "unjudgeable" }),
        [{ split: "train", index: 0 }],
        step,
        { groupSize: 2, progress: false }
      )
      assert.deepStrictEqual(failed.map((e) => e.rewards), [[0.25], [0.25]])
      assert.deepStrictEqual(failed.map((e) => e.group?.error?._tag), ["ScoreGroupFailed", "ScoreGroupFailed"])
      assert.deepStrictEqual(failed.map((e) => e.group?.score), [null, null])
      assert.deepStrictEqual(Episode.toRecord(failed[0]!).group?.error?.tag, "ScoreGroupFailed")

      const counter = client.environment("counter", { variant: "counter" })
      const auto = yield* Episode.runMany(counter, [{ split: "train", index: 0 }], step, {
        groupSize: 2,
        progress: false
      })
      assert.deepStrictEqual(auto.map((e) => [e.group?.score, e.group?.error]), [[null, null], [null, null]])
      const forced = yield* Episode.runMany(counter, [{ split: "train", index: 0 }], step, {
        groupSize: 2,
        scoreGroups: true,
        progress: false
      })
      assert.deepStrictEqual(forced.map((e) => e.group?.error?._tag), [
        "ScoreGroupUnsupported",
        "ScoreGroupUnsupported"
      ])
      // Without groupSize, no groups at all.
      const plain = yield* Episode.runMany(counter, [{ split: "train", index: 0 }], step, { progress: false })
      assert.isUndefined(plain[0]?.group)
      assert.isFalse("group" in Episode.toRecord(plain[0]!))
    }))

  it.effect("the Promise API: the session methods, runEpisode with a Promise repair hook, runEpisodes with groups", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      yield* Effect.promise(async () => {
        await using client = OpenReward.connect({ baseUrl: url, apiKey: "" })
        const env = client.environment("support", { variant: "support" })
        {
          await using session = await env.session({ split: "train", index: 0 })
          assert.deepStrictEqual(await session.terminalTool(), {
            name: "reply",
            arg: "message",
            description: "The final reply to the customer."
          })
          assert.isTrue(await session.isAssistantMessageFinal())
          assert.isTrue(await session.supportsScoreGroup())
          const scores = await session.scoreGroup([[Message.assistant("#4411")], [Message.assistant("no")]])
          assert.deepStrictEqual(scores.map((s) => s.reward), [1, 0])
          assert.strictEqual((await session.callTerminalTool("#4411 is here")).reward, 1)
        }
        {
          await using session = await env.session({ split: "train", index: 1 })
          const episode = await session.runEpisode(
            async ({ turn }) => ({
              message: Message.assistant(turn === 0 ? [broken] : [Block.text("Order #4411.")]),
              stopReason: turn === 0 ? "tool_calls" : "stop",
              usage: {}
            }),
            { repairToolCall: async (call) => ({ name: call.call.name, input: { n: 7 } }) }
          )
          assert.deepStrictEqual(episode.rewards, [0.25, 1])
          assert.deepStrictEqual(episode.calls[0]?.input, { n: 7 })
        }
        const episodes = await env.runEpisodes(
          [{ split: "train", index: 0 }],
          async () => ({ message: Message.assistant("Order #4411."), stopReason: "stop", usage: {} }),
          { groupSize: 2, progress: false }
        )
        assert.deepStrictEqual(episodes.map((e) => e.group?.score?.reward), [1, 1])
      })
    }))
})
