/**
 * `npx tsx examples/preference.ts`: preference rewards end to end. A conversation environment whose
 * task is "write the next support reply" serves the conversation (`/messages`) and hides a terminal
 * tool, `send_reply`, that the harness sends the policy's plain final turn to (its pointwise reward:
 * a reply of at most 60 characters). It scores groups (`/score_group`) with the pairwise judge, on
 * the judge's own chat model channel (`ChatModel`, configured by `CHAT_BASE_URL` and
 * `CHAT_API_KEY`, never by the policy's settings).
 *
 * The trainer side runs a group of three rollouts of the task with `Episode.runMany({ groupSize })`:
 * each episode's final turn goes to the terminal tool, then the group is posted to `/score_group`
 * and every episode carries its group score beside its pointwise reward.
 *
 * The judge's model is a loopback stand-in for the Chat Completions API that prefers the reply
 * naming the order number, and the policy is scripted, so the example runs offline.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"
import * as ChatModel from "openreward-effect/ChatModel"
import * as Client from "openreward-effect/Client"
import * as Environment from "openreward-effect/Environment"
import * as Episode from "openreward-effect/Episode"
import * as Judge from "openreward-effect/Judge"
import * as Message from "openreward-effect/Message"
import * as Server from "openreward-effect/Server"
import * as Testing from "openreward-effect/Testing"
import * as Tool from "openreward-effect/Tool"

// -----------------------------------------------------------------------------
// the environment
// -----------------------------------------------------------------------------

const Task = Schema.Struct({ id: Schema.String, complaint: Schema.String })

const conversationOf = (task: typeof Task.Type) => [
  Message.system("You are Acme support. Write your reply to the customer."),
  Message.user(task.complaint)
]

export const SupportReplies = Environment.make({
  name: "SupportReplies",
  task: Task,
  splits: ["train"],
  tasks: { train: [{ id: "late-parcel", complaint: "My order #4411 is two weeks late. Where is it?" }] },
  messages: ({ task }) => conversationOf(task),
  tools: [
    Tool.make("send_reply", {
      description: "Send your reply to the customer.",
      // the harness sends a plain final turn here (the reference's @terminal)
      terminal: true,
      input: Schema.Struct({ message: Schema.String }),
      handler: ({ message }) => Tool.output("Sent.", { reward: message.length <= 60 ? 1 : 0, finished: true })
    })
  ],
  // The group's rollouts, compared pairwise (every pair), each comparison shown the task.
  scoreGroup: (candidates, session) =>
    Judge.scoreGroup(candidates, { context: conversationOf(session.task), topology: "round_robin" })
})

// -----------------------------------------------------------------------------
// offline: the judge's stand-in, the server, a scripted policy
// -----------------------------------------------------------------------------

/** The judge's model: prefers the candidate that names the order number; otherwise a tie. */
const judgeStandIn = Testing.loopback((request, index) => {
  const body = request.body as { messages: ReadonlyArray<{ role: string; content: unknown }> }
  const shown = JSON.stringify(body.messages[1]?.content ?? "")
  const [, a = "", b = ""] = shown.split(/<candidate_[ab]>/)
  const winner = a.includes("4411") === b.includes("4411") ? "tie" : a.includes("4411") ? "A" : "B"
  return {
    _tag: "json",
    body: {
      id: `chatcmpl-${index}`,
      object: "chat.completion",
      created: 1_700_000_000,
      model: "judge-stand-in",
      choices: [{
        index: 0,
        message: { role: "assistant", content: `One names the order.\n{"winner": "${winner}"}` },
        finish_reason: "stop"
      }]
    }
  }
})

/** The policy: a different final reply in each rollout, never a tool call. */
const replies = [
  "Please wait a few more days.",
  "Order #4411 is held at the hub; it ships tomorrow.",
  "We are so sorry for the delay, and we are looking into what happened to your parcel."
]
let rollout = 0
const policy: Episode.Step = () =>
  Effect.sync(() => ({
    message: Message.assistant(replies[rollout++ % replies.length]!),
    stopReason: "stop" as const,
    usage: {}
  }))

const program = Effect.gen(function*() {
  const judge = yield* Effect.acquireRelease(Effect.promise(() => judgeStandIn), (s) => Effect.promise(s.close))
  // The judge's channel: its own URL and key, in the server's configuration.
  const config = ConfigProvider.fromJson({ CHAT_BASE_URL: `${judge.url}/v1`, CHAT_API_KEY: "sk-judge" })
  const server = yield* Layer.build(
    Server.layer([SupportReplies]).pipe(
      Layer.provide(Judge.layerPairwise({ seed: 7 })),
      Layer.provide(ChatModel.layer({ model: "judge-model" })),
      Layer.provide(NodeHttpClient.layerUndici),
      Layer.provide(Layer.setConfigProvider(config)),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const { address } = Context.get(server, HttpServer.HttpServer)
  const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""

  const env = yield* Client.environment("supportreplies", { baseUrl })
  const episodes = yield* Episode.runMany(env, [{ split: "train", index: 0 }], policy, {
    groupSize: 3,
    concurrency: 1
  })
  for (const episode of episodes) {
    const reply = episode.conversation.at(-1)!.blocks.map((b) => b.type === "text" ? b.text : "").join("")
    yield* Console.log(
      `rollout ${episode.group?.index}: ${episode.stop._tag}, reward ${episode.totalReward}, ` +
        `judge ${episode.group?.score?.reward} | ${reply}`
    )
  }
  const games = episodes[1]?.group?.score?.metadata?.["games"]
  yield* Console.log(`rollout 1's games: ${JSON.stringify(games)}`)
})

await program.pipe(
  Effect.scoped,
  Effect.provide(Client.layer({ apiKey: "" })),
  Effect.provide(NodeHttpClient.layerUndici),
  Effect.runPromise
)
