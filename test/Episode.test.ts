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
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"
import { environments } from "../examples/support.js"
import { layer } from "./utils/layer.js"

const line = (record: unknown) => JSON.stringify(record) + "\n"

// An environment whose tools exercise every branch of the loop.
const Counter = Environment.make({
  name: "CounterEnv",
  splits: ["train"],
  tasks: { train: [{ id: "a" }, { id: "b" }, { id: "c" }, { id: "d" }] },
  prompt: () => [Block.text("Count to three, then call done.")],
  tools: [
    Tool.make("tick", {
      description: "Add one; reward 0.25 each.",
      input: Schema.Struct({ n: Schema.Number }),
      handler: ({ n }) => Tool.output(`ticked ${n}`, { reward: 0.25 })
    }),
    Tool.make("done", {
      description: "Finish.",
      handler: () => Tool.output("bye", { reward: 1, finished: true })
    }),
    Tool.make("explode", {
      description: "Raises.",
      handler: () => Effect.die(new Error("boom"))
    })
  ]
})

const ServerLive = Server.layer([...environments, Counter]).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

const ClientLive = Layer.unwrapEffect(Effect.gen(function*() {
  const { address } = yield* HttpServer.HttpServer
  const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  return Client.layer({ baseUrl, apiKey: "" })
}))

const TestLive = ClientLive.pipe(Layer.provideMerge(ServerLive), Layer.provide(NodeHttpClient.layerUndici))

const answer = (blocks: ReadonlyArray<Message.AssistantBlock>, usage: ModelResponse.Usage = {}) =>
  Effect.succeed<ModelResponse.ModelResponse>({
    message: Message.assistant(blocks),
    stopReason: blocks.some((b) => b.type === "tool_call") ? "tool_calls" : "stop",
    usage
  })

/** A model that plays a fixed script, one answer per turn. */
const scripted = (turns: ReadonlyArray<ReadonlyArray<Message.AssistantBlock>>): Episode.Step => ({ turn }) =>
  answer(turns[Math.min(turn, turns.length - 1)]!, { inputTokens: 10, outputTokens: 2 })

const counter = (c: Client.Service) => c.environment("counterenv", { variant: "counterenv" })

layer(TestLive, { timeout: 30_000 })("Episode", (it) => {
  it.effect("runs tool calls in order, each once, and stops when a tool says finished", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = counter(client)
      const [task] = yield* env.tasks("train")
      const episode = yield* Effect.scoped(Effect.flatMap(
        env.session(task!),
        (session) =>
          Episode.run(
            session,
            scripted([
              [Block.toolCall("c1", "tick", { n: 1 }), Block.toolCall("c2", "tick", { n: 2 })],
              [Block.text("Almost."), Block.toolCall("c3", "tick", { n: 3 })],
              [Block.toolCall("c4", "done", {}), Block.toolCall("c5", "tick", { n: 4 })]
            ])
          )
      ))
      assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "done" })
      assert.strictEqual(episode.turns, 3)
      assert.deepStrictEqual(episode.calls.map((c) => c.id), ["c1", "c2", "c3", "c4"])
      assert.deepStrictEqual(episode.rewards, [0.25, 0.25, 0.25, 1])
      assert.strictEqual(episode.totalReward, 1.75)
      assert.deepStrictEqual(episode.usage, { inputTokens: 30, outputTokens: 6 })
      // task prompt, then (assistant, tool results) three times
      assert.deepStrictEqual(episode.conversation.map((m) => m.role), [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user"
      ])
      const last = episode.conversation[6]!
      assert.deepStrictEqual(last.blocks.map((b) => b.type === "tool_result" ? b.tool_call_id : b.type), ["c4"])
      // the whole episode is a valid canonical conversation
      assert.isTrue(Conversation.validate(episode.conversation)._tag === "Right")
    }))

  it.effect("a refused call is answered as an error result and the episode goes on", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = counter(client)
      const episode = yield* Effect.scoped(Effect.flatMap(
        env.session({ split: "train", index: 1 }),
        (session) =>
          Episode.run(
            session,
            scripted([
              [Block.toolCall("x", "no_such_tool", {})],
              [Block.toolCall("y", "tick", { n: "not a number" })],
              [Block.toolCall("z", "done", {})]
            ])
          )
      ))
      assert.strictEqual(episode.stop._tag, "Finished")
      assert.deepStrictEqual(episode.calls.map((c) => [c.name, c.refused]), [
        ["no_such_tool", true],
        ["tick", true],
        ["done", false]
      ])
      const refusal = episode.conversation[2]!.blocks[0]!
      assert.strictEqual(refusal.type, "tool_result")
      if (refusal.type === "tool_result") {
        assert.isTrue(refusal.is_error)
        assert.match(refusal.blocks[0]!.type === "text" ? refusal.blocks[0]!.text : "", /no_such_tool/)
      }
    }))

  it.effect("stops when the model answers without a tool call, and at the turn limit", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = counter(client)
      const stopped = yield* Effect.scoped(Effect.flatMap(
        env.session({ split: "train", index: 0 }),
        (session) => Episode.run(session, scripted([[Block.text("I give up.")]]))
      ))
      assert.deepStrictEqual(stopped.stop, { _tag: "ModelStopped", stopReason: "stop" })
      assert.strictEqual(stopped.totalReward, null)
      assert.strictEqual(stopped.turns, 1)

      const limited = yield* Effect.scoped(Effect.flatMap(
        env.session({ split: "train", index: 0 }),
        (session) => Episode.run(session, scripted([[Block.toolCall("t", "tick", { n: 0 })]]), { maxTurns: 3 })
      ))
      assert.deepStrictEqual(limited.stop, { _tag: "TurnLimit", maxTurns: 3 })
      assert.strictEqual(limited.turns, 3)
      assert.strictEqual(limited.calls.length, 3)
    }))

  it.effect("a paused turn (stop reason pause) is sent back for the model to go on", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = counter(client)
      const seen: Array<number> = []
      const step: Episode.Step = ({ conversation, turn }) => {
        seen.push(conversation.length)
        return Effect.succeed<ModelResponse.ModelResponse>(
          turn === 0
            ? { message: Message.assistant([Block.text("Searching...")]), stopReason: "pause", usage: {} }
            : turn === 1
            ? { message: Message.assistant([Block.toolCall("d", "done", {})]), stopReason: "tool_calls", usage: {} }
            : { message: Message.assistant([Block.text("?")]), stopReason: "stop", usage: {} }
        )
      }
      const episode = yield* Effect.scoped(Effect.flatMap(
        env.session({ split: "train", index: 2 }),
        (session) => Episode.run(session, step)
      ))
      assert.deepStrictEqual(episode.stop, { _tag: "Finished", tool: "done" })
      assert.strictEqual(episode.turns, 2)
      // the paused turn stays in the conversation, and the next step sees it (prompt, paused turn)
      assert.deepStrictEqual(seen, [1, 2])
      assert.deepStrictEqual(episode.conversation.map((m) => m.role), ["user", "assistant", "assistant", "user"])

      // a model that pauses for ever still stops at the turn limit
      const paused = yield* Effect.scoped(Effect.flatMap(
        env.session({ split: "train", index: 2 }),
        (session) =>
          Episode.run(
            session,
            () =>
              Effect.succeed<ModelResponse.ModelResponse>({
                message: Message.assistant([Block.text("...")]),
                stopReason: "pause",
                usage: {}
              }),
            { maxTurns: 2 }
          )
      ))
      assert.deepStrictEqual(paused.stop, { _tag: "TurnLimit", maxTurns: 2 })
    }))

  it.effect("a failing tool or model step ends the episode as Failed, keeping what happened", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = counter(client)
      const exploded = yield* Effect.scoped(Effect.flatMap(
        env.session({ split: "train", index: 0 }),
        (session) =>
          Episode.run(session, scripted([[Block.toolCall("a", "tick", { n: 1 }), Block.toolCall("b", "explode", {})]]))
      ))
      assert.strictEqual(exploded.stop._tag, "Failed")
      assert.strictEqual(Option.getOrThrow(Episode.failure(exploded))._tag, "ToolFailed")
      assert.deepStrictEqual(exploded.rewards, [0.25])
      // the result of the call that ran is kept
      assert.strictEqual(exploded.conversation.at(-1)!.role, "user")

      class ModelDown extends Schema.TaggedError<ModelDown>()("ModelDown", {}) {}
      const down = yield* Effect.scoped(Effect.flatMap(
        env.session({ split: "train", index: 0 }),
        (session) => Episode.run(session, () => Effect.fail(new ModelDown()))
      ))
      assert.strictEqual(down.stop._tag, "Failed")
      assert.strictEqual(down.stop._tag === "Failed" ? down.stop.error._tag : "", "ModelDown")
      assert.strictEqual(down.turns, 0)
    }))

  it.effect("runMany: every task yields an episode in order, with a bound, and a JSONL sink", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = counter(client)
      const lines = yield* Ref.make<ReadonlyArray<string>>([])
      const running = yield* Ref.make(0)
      const peak = yield* Ref.make(0)
      const step: Episode.Step = (input) =>
        Effect.gen(function*() {
          const now = yield* Ref.updateAndGet(running, (n) => n + 1)
          yield* Ref.update(peak, (p) => Math.max(p, now))
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
          yield* Ref.update(running, (n) => n - 1)
          return yield* scripted([[Block.toolCall("t", "tick", { n: 1 })], [Block.toolCall("d", "done", {})]])(input)
        })
      const sources = [...[0, 1, 2, 3].map((index) => ({ split: "train", index })), { split: "train", index: 99 }]
      const episodes = yield* Episode.runMany(env, sources, step, {
        concurrency: 2,
        progress: false,
        onEpisode: Episode.appendJsonl((line) => Ref.update(lines, (ls) => [...ls, line]))
      })
      assert.deepStrictEqual(episodes.map((e) => e.source), sources)
      assert.deepStrictEqual(episodes.map((e) => e.stop._tag), [
        "Finished",
        "Finished",
        "Finished",
        "Finished",
        "Failed"
      ])
      assert.deepStrictEqual(episodes.slice(0, 4).map((e) => e.totalReward), [1.25, 1.25, 1.25, 1.25])
      assert.isTrue((yield* Ref.get(peak)) <= 2)
      const written = yield* Ref.get(lines)
      assert.strictEqual(written.length, 5)
      // each line is a record: its task, rewards, stop, turns, usage, and the canonical conversation
      // under `messages`, which the strict reader accepts; lines come as episodes end, the task on each
      const records = written.map((line) => {
        assert.isTrue(line.endsWith("\n"))
        assert.strictEqual(line.indexOf("\n"), line.length - 1)
        return JSON.parse(line)
      })
      assert.sameDeepMembers(records.map((r) => r.task), sources)
      for (const record of records) {
        assert.strictEqual(Conversation.decode(record.messages)._tag, "Right")
        const episode = episodes.find((e) => JSON.stringify(e.source) === JSON.stringify(record.task))!
        assert.deepStrictEqual(record, JSON.parse(JSON.stringify(Episode.toRecord(episode))))
        assert.strictEqual(Episode.toJsonLine(episode), line(record))
      }
      const finished = records.find((r) => r.task.index === 0)
      assert.deepStrictEqual(
        [finished.failed, finished.stop, finished.rewards, finished.totalReward, finished.turns],
        [false, { reason: "Finished", tool: "done" }, [0.25, 1], 1.25, 2]
      )
      assert.deepStrictEqual(finished.tools.map((t: { name: string }) => t.name), ["done", "explode", "tick"])
      const failed = records.find((r) => r.task.index === 99)
      assert.strictEqual(failed.failed, true)
      assert.strictEqual(failed.stop.reason, "Failed")
      assert.strictEqual(failed.session, null)
      assert.deepStrictEqual(Object.keys(failed.stop.error), ["tag", "message"])
    }))

  it.effect("a record reads back with `Dataset` (record rollout): converted in place, every other key kept", () =>
    Effect.sync(() => {
      const episode: Episode.Episode = {
        source: { split: "train", index: 2 },
        sid: "s1",
        conversation: [Message.system("Count."), Message.user("Go"), Message.assistant("3")],
        tools: [{ name: "tick", description: "Add one.", input_schema: { type: "object", properties: {} } }],
        calls: [],
        rewards: [],
        totalReward: null,
        turns: 1,
        usage: { inputTokens: 5 },
        stop: { _tag: "ModelStopped", stopReason: "stop" }
      }
      const record = JSON.parse(Episode.toJsonLine(episode))
      const converted = Dataset.convertRecord(record, { record: "rollout", to: "anthropic" })
      assert.isTrue(Either.isRight(converted))
      const out = (converted as Either.Right<never, Dataset.Converted>).right.value as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(out), [
        "task",
        "session",
        "failed",
        "stop",
        "rewards",
        "totalReward",
        "turns",
        "usage",
        "calls",
        "system",
        "messages",
        "tools"
      ])
      assert.strictEqual(out["system"], "Count.")
      assert.deepStrictEqual(out["tools"], [{
        name: "tick",
        description: "Add one.",
        input_schema: { type: "object", properties: {} }
      }])
      assert.deepStrictEqual(out["stop"], { reason: "ModelStopped", stopReason: "stop" })
    }))

  it.effect("drives the example environments", () =>
    Effect.gen(function*() {
      const client = yield* Client.Client
      const env = client.environment("triviaenv", { variant: "triviaenv" })
      const episodes = yield* Episode.runMany(
        env,
        yield* env.tasks("train"),
        ({ conversation }) => {
          const question = Conversation.blocks(conversation).flatMap((b) => b.type === "text" ? [b.text] : [])
            .join(" ")
          const guess = question.includes("France") ? "Paris" : "Kyoto"
          return answer([Block.toolCall("a", "answer", { answer: guess })])
        },
        { progress: false }
      )
      assert.deepStrictEqual(episodes.map((e) => e.totalReward), [1, 0])
    }))
})
