/**
 * Example environments: the support dialogue of the "Multi-turn Conversations" page, a prompt-only
 * trivia environment, and a conversation with reasoning and tool history.
 *
 * Serve them all with `npm run cli -- serve examples/support.ts`, or from code with
 * `Server.serve(environments)`.
 *
 * Grading rules (pure functions, exported so they can be tested on their own):
 *
 * - `DialogueEnv` / `submit`: the reply earns reward 1 and finishes the episode when it refers to the
 *   customer's order by its number (`4411`, with or without `#`); any other reply earns 0 and the
 *   episode goes on, so the model may try again.
 * - `TriviaEnv` / `answer`: reward 1 for the right answer (case and surrounding space ignored), 0
 *   otherwise; either way the episode finishes. `hint` never grants reward, so it runs concurrently.
 * - `TranscriptEnv` / `reply`: the next assistant turn earns reward 1 and finishes the episode when
 *   it tells the customer where the parcel is stuck (it mentions the hub); otherwise 0 and the episode
 *   goes on. `lookup_order` answers from the task's order table and never grants reward.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Block from "openreward-effect/Block"
import * as Conversation from "openreward-effect/Conversation"
import * as Environment from "openreward-effect/Environment"
import * as Message from "openreward-effect/Message"
import * as Tool from "openreward-effect/Tool"

// -----------------------------------------------------------------------------
// DialogueEnv: the seed page's support conversation
// -----------------------------------------------------------------------------

const Turn = Schema.Struct({
  role: Schema.Literal("system", "user", "assistant"),
  text: Schema.String
})

/** A dialogue task: the conversation so far, in this example's own `{role, text}` convention. */
export const DialogueTask = Schema.Struct({
  id: Schema.String,
  conversation: Schema.Array(Turn)
})

/** @since 0.1.0 */
export type DialogueTask = typeof DialogueTask.Type

/** The task of the seed page. */
export const support1: DialogueTask = {
  id: "support-1",
  conversation: [
    { role: "system", text: "You are a support agent for Acme." },
    { role: "user", text: "My order hasn't arrived." },
    { role: "assistant", text: "Sorry to hear that — what's the order number?" },
    { role: "user", text: "It's #4411, ordered two weeks ago." }
  ]
}

/** `DialogueEnv`'s rule: a reply that refers to order 4411 earns 1 and ends the episode. */
export const gradeReply = (reply: string): { readonly reward: number; readonly finished: boolean } =>
  /(^|[^0-9])4411([^0-9]|$)/.test(reply) ? { reward: 1, finished: true } : { reward: 0, finished: false }

const submit = Tool.make("submit", {
  description: "Submit your reply to the customer.",
  input: Schema.Struct({ answer: Schema.String.annotations({ description: "The next assistant message." }) }),
  handler: ({ answer }) => {
    const { finished, reward } = gradeReply(answer)
    return Tool.output(finished ? "Reply accepted." : "The reply should refer to the customer's order by its number.", {
      reward,
      finished
    })
  }
})

/** The seed page's `DialogueEnv`: a support conversation the policy must continue. */
export const DialogueEnv = Environment.make({
  name: "DialogueEnv",
  task: DialogueTask,
  splits: ["train"],
  tasks: { train: [support1] },
  messages: ({ task }) =>
    task.conversation.map((turn) =>
      turn.role === "system"
        ? Message.system(turn.text)
        : turn.role === "user"
        ? Message.user(turn.text)
        : Message.assistant(turn.text)
    ),
  tools: [submit]
})

// -----------------------------------------------------------------------------
// TriviaEnv: prompt only
// -----------------------------------------------------------------------------

/** A trivia question. */
export const TriviaTask = Schema.Struct({ id: Schema.String, question: Schema.String, answer: Schema.String })

/** @since 0.1.0 */
export type TriviaTask = typeof TriviaTask.Type

const trivia: ReadonlyArray<TriviaTask> = [
  { id: "capital-fr", question: "What is the capital of France?", answer: "Paris" },
  { id: "capital-jp", question: "What is the capital of Japan?", answer: "Tokyo" },
  { id: "h2o", question: "Which element has the symbol O?", answer: "Oxygen" }
]

/** `TriviaEnv`'s rule: the right answer, case and surrounding space ignored. */
export const gradeAnswer = (task: TriviaTask, answer: string): number =>
  answer.trim().toLowerCase() === task.answer.toLowerCase() ? 1 : 0

const answer = Tool.make("answer", {
  description: "Give your final answer.",
  input: Schema.Struct({ answer: Schema.String }),
  handler: ({ answer }, session: Environment.Session<TriviaTask>) => {
    const reward = gradeAnswer(session.task, answer)
    return Tool.output(reward === 1 ? "Correct." : "Incorrect.", { reward, finished: true })
  }
})

const hint = Tool.make("hint", {
  description: "Get the first letter of the answer.",
  concurrency: "concurrent",
  handler: (_, session: Environment.Session<TriviaTask>) =>
    Tool.output(`It starts with ${session.task.answer.slice(0, 1)}.`)
})

/** A prompt-only environment: `/messages` serves its prompt as one user message. */
export const TriviaEnv = Environment.make({
  name: "TriviaEnv",
  task: TriviaTask,
  splits: ["train", { name: "holdout", type: "test" }],
  tasks: { train: trivia.slice(0, 2), holdout: trivia.slice(2) },
  prompt: ({ task }) => [Block.text(task.question)],
  tools: [answer, hint]
})

// -----------------------------------------------------------------------------
// TranscriptEnv: a conversation with reasoning and tool history
// -----------------------------------------------------------------------------

/** A transcript task: a conversation in the canonical wire shape, and the order table it refers to. */
export const TranscriptTask = Schema.Struct({
  id: Schema.String,
  conversation: Conversation.Conversation,
  orders: Schema.Record({ key: Schema.String, value: Schema.String })
})

/** @since 0.1.0 */
export type TranscriptTask = typeof TranscriptTask.Type

/** The seed page's rich conversation, as task data. */
export const stalledOrder: TranscriptTask = {
  id: "stalled-4411",
  conversation: [
    Message.user("My order #4411 hasn't arrived."),
    Message.assistant([
      Block.reasoning("Two weeks late — check the carrier first."),
      Block.toolCall("tc_1", "lookup_order", { id: "4411" })
    ]),
    Message.user([Block.toolResult("tc_1", "{\"status\": \"stalled_at_hub\"}")])
  ],
  orders: { "4411": "stalled_at_hub" }
}

/** `TranscriptEnv`'s rule: the reply tells the customer the parcel is stuck at the hub. */
export const gradeTranscriptReply = (reply: string): number => /\bhub\b/i.test(reply) ? 1 : 0

const lookupOrder = Tool.make("lookup_order", {
  description: "Look up an order's shipping status.",
  concurrency: "concurrent",
  input: Schema.Struct({ id: Schema.String }),
  handler: ({ id }, session: Environment.Session<TranscriptTask>) =>
    Effect.succeed(Tool.output(`{"status": ${JSON.stringify(session.task.orders[id] ?? "unknown_order")}}`))
})

const reply = Tool.make("reply", {
  description: "Send the next assistant message to the customer.",
  input: Schema.Struct({ message: Schema.String }),
  handler: ({ message }) => {
    const reward = gradeTranscriptReply(message)
    return Tool.output(reward === 1 ? "Sent." : "Sent, but it does not say where the parcel is.", {
      reward,
      finished: reward === 1
    })
  }
})

/** A conversation environment whose history holds reasoning, a tool call and its result. */
export const TranscriptEnv = Environment.make({
  name: "TranscriptEnv",
  task: TranscriptTask,
  splits: ["train"],
  tasks: { train: [stalledOrder] },
  messages: ({ task }) => task.conversation,
  tools: [reply, lookupOrder]
})

/** Every environment of this module, in serving order (the first is the default). */
export const environments = [DialogueEnv, TriviaEnv, TranscriptEnv] as const
