/**
 * `npx tsx examples/simulated-user.ts`: a simulated user, the pattern the "Multi-turn Conversations"
 * page points to: a model role the environment owns, called from inside a tool. The policy talks to
 * a customer played by a model on the environment's chat model channel (`ChatModel`), and its final
 * message goes to a terminal tool that grades the whole exchange with a rubric (`Grader`) on the
 * same channel.
 *
 * - `setup` builds the session's channel from its own secrets (`chat_api_key`, sent by the client),
 *   so a missing key fails the session at its start, not mid-rollout; `CHAT_BASE_URL` comes from the
 *   server's configuration. The policy's `OPENAI_*` settings are never read.
 * - The session's state keeps the simulated user's side of the conversation (its own lines are its
 *   `assistant` turns, the agent's its `user` turns); `reply` appends the agent's message and asks
 *   the channel for the customer's next turn.
 * - `resolve` (the terminal tool) grades the agent's side of the exchange and finishes the episode
 *   with the grade as its reward.
 *
 * The channel here is a loopback stand-in for the Chat Completions API (examples/standin/), playing
 * the customer and the grader, so the example runs offline; the policy is scripted, calling the
 * tools through the client.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as ConfigError from "effect/ConfigError"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { createServer } from "node:http"
import * as ChatModel from "openreward-effect/ChatModel"
import * as Client from "openreward-effect/Client"
import * as EffectAi from "openreward-effect/EffectAi"
import * as Environment from "openreward-effect/Environment"
import * as Grader from "openreward-effect/Grader"
import type * as Judge from "openreward-effect/Judge"
import * as Message from "openreward-effect/Message"
import * as Server from "openreward-effect/Server"
import * as Testing from "openreward-effect/Testing"
import * as Tool from "openreward-effect/Tool"

// -----------------------------------------------------------------------------
// the environment
// -----------------------------------------------------------------------------

const Task = Schema.Struct({ id: Schema.String, persona: Schema.String, opening: Schema.String })
type Task = typeof Task.Type

interface State {
  /** The simulated user's model. */
  readonly customer: LanguageModel.Service
  readonly grader: Grader.Service
  /** The simulated user's side of the conversation. */
  readonly side: Array<Message.Message>
}

type Session = Environment.Session<Task, State>

const rubric = [
  { id: "resolved", description: "The customer learns where the order is and what happens next.", weight: 2 },
  { id: "courteous", description: "The agent is polite throughout." }
]

const textOf = (m: Message.Message): string => m.blocks.flatMap((b) => b.type === "text" ? [b.text] : []).join("")

/** The agent's side of the exchange: the simulated user's turns with the roles swapped. */
const agentSide = (side: ReadonlyArray<Message.Message>): Array<Message.Message> =>
  side.flatMap((m): Array<Message.Message> =>
    m.role === "assistant"
      ? [Message.user(textOf(m))]
      : m.role === "user"
      ? [Message.assistant(textOf(m))]
      : []
  )

const reply = Tool.make("reply", {
  description: "Send the customer a message; the tool answers with the customer's reply.",
  input: Schema.Struct({ message: Schema.String }),
  handler: ({ message }, session: Session) =>
    Effect.gen(function*() {
      const { customer, side } = session.state
      side.push(Message.user(message))
      const prompt = yield* EffectAi.encode(side)
      const answer = yield* customer.generateText({ prompt })
      side.push(Message.assistant(answer.text))
      return Tool.output(answer.text)
    })
})

const resolve = Tool.make("resolve", {
  description: "Close the conversation with your final message to the customer.",
  terminal: true,
  input: Schema.Struct({ message: Schema.String }),
  handler: ({ message }, session: Session) =>
    Effect.map(
      session.state.grader.grade([...agentSide(session.state.side), Message.assistant(message)], {
        context: [Message.user(session.task.opening)]
      }),
      (grade) =>
        Tool.output(`Conversation closed; graded ${grade.score}.`, {
          reward: grade.score,
          finished: true,
          metadata: { criteria: grade.criteria.map((c) => ({ id: c.id, score: c.score })) }
        })
    )
})

/** What the environment's callbacks may fail with, and what they need. */
type Failure = Judge.JudgeError | ChatModel.MissingKey | ConfigError.ConfigError | Grader.InvalidRubric

export const SimulatedUserEnv = Environment.make<Task, typeof Task.Encoded, State, Failure, HttpClient.HttpClient>({
  name: "SimulatedUserEnv",
  task: Task,
  splits: ["test"],
  tasks: {
    test: [{
      id: "late-parcel",
      persona: "You are a customer whose order #4411 is two weeks late. Answer the agent briefly.",
      opening: "My order hasn't arrived and I'm fed up."
    }]
  },
  setup: (session) =>
    Effect.gen(function*() {
      const customer = yield* ChatModel.make({ model: "customer-sim", secrets: session.secrets })
      const grader = yield* Grader.make({ rubric }).pipe(Effect.provideService(LanguageModel.LanguageModel, customer))
      const side: Array<Message.Message> = [
        Message.system(session.task.persona),
        Message.assistant(session.task.opening)
      ]
      return { customer, grader, side }
    }),
  messages: ({ task }) => [
    Message.system("You are Acme support. Talk to the customer with `reply`; close with `resolve`."),
    Message.user(task.opening)
  ],
  tools: [reply, resolve]
})

// -----------------------------------------------------------------------------
// offline: the channel's stand-in, the server, a scripted policy
// -----------------------------------------------------------------------------

/** The stand-in model: a customer who gives the order number, or a grader who is pleased. */
const channelStandIn = Testing.loopback((request, index) => {
  const body = request.body as { messages: ReadonlyArray<{ role: string; content: unknown }> }
  const system = JSON.stringify(body.messages[0]?.content ?? "")
  const text = system.includes("rubric")
    ? "Clear and kind.\n{\"resolved\": 1, \"courteous\": 1}"
    : "It's #4411, ordered two weeks ago."
  // A Chat Completions answer, as the API sends it.
  return {
    _tag: "json",
    body: {
      id: `chatcmpl-${index}`,
      object: "chat.completion",
      created: 1_700_000_000,
      model: "stand-in",
      choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }]
    }
  }
})

const program = Effect.gen(function*() {
  const channel = yield* Effect.acquireRelease(Effect.promise(() => channelStandIn), (s) => Effect.promise(s.close))
  // The server's configuration: where the channel goes. Its key comes with each session.
  const config = ConfigProvider.fromJson({ CHAT_BASE_URL: `${channel.url}/v1` })
  const server = yield* Layer.build(
    Server.layer([SimulatedUserEnv]).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
      Layer.provide(NodeHttpClient.layerUndici),
      Layer.provide(Layer.setConfigProvider(config))
    )
  )
  const { address } = Context.get(server, HttpServer.HttpServer)
  const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""

  const env = yield* Client.environment("simulateduserenv", { baseUrl })
  const [task] = yield* env.tasks("test")
  const session = yield* env.session(task!, { secrets: { chat_api_key: "sk-judge-channel" } })
  const said = yield* session.callTool("reply", { message: "Sorry to hear that! What's your order number?" })
  yield* Console.log(`customer: ${said.blocks.map((b) => b.type === "text" ? b.text : "").join("")}`)
  const closed = yield* session.callTool("resolve", {
    message: "Order #4411 is held at the hub; it ships tomorrow and you'll get tracking today."
  })
  yield* Console.log(`resolve: reward ${closed.reward}, finished ${closed.finished}`)
  yield* Console.log(`criteria: ${JSON.stringify(closed.metadata?.["criteria"])}`)
})

await program.pipe(
  Effect.scoped,
  Effect.provide(Client.layer({ apiKey: "" })),
  Effect.provide(NodeHttpClient.layerUndici),
  Effect.runPromise
)
