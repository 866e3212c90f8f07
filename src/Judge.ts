/**
 * Model judges for preference rewards, on whatever `@effect/ai` `LanguageModel` is provided (any
 * `@effect/ai` provider package, `openreward-effect/ChatModel`'s channel, an AI SDK model through
 * `openreward-effect/AiSdkLanguageModel`, or a test model). Import
 * this module only where `@effect/ai` is installed; the package index does not load it.
 *
 * - The **pairwise** judge ({@link pairwise}) is shown the task and two candidates and says which is
 *   better, against one principle drawn per comparison from a constitution. The two are shown in a
 *   random order by default (judges favour a position); `bothOrders` asks in both orders and calls
 *   a disagreement a tie. {@link rank} and {@link scoreGroup} rank a group with it
 *   (`openreward-effect/Ranking`).
 * - The **groupwise** judge ({@link groupwise}) scores a whole group in one call: the cheapest and
 *   the least discriminating way.
 *
 * What a judge is shown ({@link View}): a candidate is a string or a canonical conversation; of a
 * conversation the `output` view (the default) shows only the last assistant turn's visible
 * content, to reward the answer and not the chain of thought, and the `trajectory` view every turn
 * flattened by `Prompt.flattenMessage` (reasoning as `<think>` text, tool calls as
 * `[tool_call name] {args}`, tool results after a `[tool_result]` or `[tool_result (error)]`
 * header, images as images). The task's conversation is always shown in full, between `<task>`
 * tags, apart from the candidates. This is what the reference's judging toolkit shows, block for
 * block (test/Judge.test.ts holds it to the reference's own renderings).
 *
 * How a verdict is read: the last flat JSON object in the reply with a `winner` key (`"A"`, `"B"` or
 * `"tie"`, any case) and an optional numeric `confidence`, clamped to [0, 1]; for the groupwise
 * judge, a `scores` list of one number per candidate, each clamped. A reply that cannot be read is
 * shown back to the model with a turn that says what was wrong, and after `maxAttempts` replies
 * the judgement fails with {@link JudgeFailure}: never a default winner, never a zero. A failed
 * model call (`AiError`) fails at once.
 *
 * The prompts' wording is this library's; what they ask for (the tags, the JSON line) is the
 * reference's contract. `{principle}` (and, for the groupwise judge, `{n}`) in a custom
 * `systemPrompt` are replaced, every occurrence, once.
 *
 * @example
 * ```ts
 * import * as LanguageModel from "@effect/ai/LanguageModel"
 * import * as Effect from "effect/Effect"
 * import { Message } from "openreward-effect"
 * import * as Judge from "openreward-effect/Judge"
 *
 * // A stand-in model with pure position bias: it always prefers the candidate shown first. This
 * // comparison was shown swapped (`ba`), so the judge's "A" is the caller's `b`: shuffling spreads
 * // such a bias over both candidates instead of always favouring the first argument.
 * const model = LanguageModel.make({
 *   generateText: () => Effect.succeed([{ type: "text", text: 'A reads better.\n{"winner": "A", "confidence": 0.8}' }]),
 *   streamText: () => { throw new Error("unused") }
 * })
 *
 * const program = Effect.gen(function*() {
 *   const judge = yield* Judge.pairwise({ seed: 7, principles: ["Prefer the kinder reply."] })
 *   const verdict = yield* judge.compare("Sorry, let me fix that.", "Not my problem.", {
 *     context: [Message.user("My order is late.")]
 *   })
 *   console.log(verdict.winner, verdict.scoreA, verdict.orders, verdict.principle)
 * })
 *
 * Effect.runPromise(Effect.provideServiceEffect(program, LanguageModel.LanguageModel, model))
 * ```
 *
 * ```text output
 * b 0.19999999999999996 [ 'ba' ] Prefer the kinder reply.
 * ```
 *
 * @since 0.2.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import type * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import * as Ask from "./internal/judge/ask.js"
import * as Render from "./internal/judge/render.js"
import * as Reply from "./internal/judge/reply.js"
import type * as Json from "./Json.js"
import * as Message from "./Message.js"
import type * as Prompt from "./Prompt.js"
import type * as Protocol from "./Protocol.js"
import * as Ranking from "./Ranking.js"

// -----------------------------------------------------------------------------
// models
// -----------------------------------------------------------------------------

/**
 * What a judge sees of a conversation candidate: `output` (the last assistant turn's visible
 * content) or `trajectory` (every turn).
 *
 * @category models
 * @since 0.2.0
 */
export type View = Render.View

/**
 * A thing to judge: a string (a final answer) or a canonical conversation (a transcript).
 *
 * @category models
 * @since 0.2.0
 */
export type Candidate = string | Conversation.Conversation

/**
 * The outcome of one pairwise comparison, in the caller's terms: `a` is the first candidate given
 * to `compare`, whatever order the judge was shown them in (`orders`: `ab` when it saw them as
 * given, `ba` when swapped; `orderWinners`: the winner of each presentation, in `a`/`b` terms).
 *
 * `scoreA` and `scoreB` are soft preferences in [0, 1] that sum to 1, from the judge's
 * `confidence` (the winner's share; a tie 0.5; averaged over the presentations that gave one).
 * They are absent when the judge gave no confidence: never made up.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Verdict = Schema.Struct({
  winner: Ranking.Winner,
  scoreA: Schema.optional(Schema.Number),
  scoreB: Schema.optional(Schema.Number),
  /** The principle the judge was given; absent when it had the default one. */
  principle: Schema.optional(Schema.String),
  orders: Schema.Array(Schema.Literal("ab", "ba")),
  orderWinners: Schema.Array(Ranking.Winner),
  /** Model calls made, corrective retries included. */
  attempts: Schema.Number,
  /** The judge's replies, in order. */
  replies: Schema.Array(Schema.String)
}).annotations({ identifier: "Verdict" })

/**
 * @category models
 * @since 0.2.0
 */
export interface Verdict extends Schema.Schema.Type<typeof Verdict> {}

/**
 * The outcome of one groupwise judgement: one score in [0, 1] per candidate, index-aligned with the
 * input; `order[k]` is the index of the candidate shown as `<candidate_{k+1}>`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Scores = Schema.Struct({
  scores: Schema.Array(Schema.Number),
  principle: Schema.optional(Schema.String),
  order: Schema.Array(Schema.Number),
  attempts: Schema.Number,
  replies: Schema.Array(Schema.String)
}).annotations({ identifier: "Scores" })

/**
 * @category models
 * @since 0.2.0
 */
export interface Scores extends Schema.Schema.Type<typeof Scores> {}

/**
 * A judge (or grader) gave no reply it could read in `attempts` attempts. `reason` says what was
 * wrong with the last one, `replies` are that judgement's replies. Raised instead of any score: a
 * broken judge must fail the reward loudly, not score the policy.
 *
 * @category errors
 * @since 0.2.0
 */
export class JudgeFailure extends Schema.TaggedError<JudgeFailure>("openreward-effect/Judge/JudgeFailure")(
  "JudgeFailure",
  {
    judge: Schema.Literal("pairwise", "groupwise", "grader"),
    attempts: Schema.Number,
    reason: Schema.String,
    replies: Schema.Array(Schema.String)
  }
) {
  /**
   * @since 0.2.0
   */
  override get message(): string {
    return `the ${this.judge} judge gave no verdict it could read in ${this.attempts} attempt(s): ${this.reason}`
  }
}

/**
 * What a judgement can fail with: no readable verdict ({@link JudgeFailure}), the model call
 * failed (`AiError`), or a candidate has no `@effect/ai` form (an image whose data is not base64).
 *
 * @category errors
 * @since 0.2.0
 */
export type JudgeError = JudgeFailure | AiError.AiError | ConversionError.EncodeError

// -----------------------------------------------------------------------------
// rendering
// -----------------------------------------------------------------------------

/**
 * What a judge is shown of a candidate, as prompt blocks (see {@link View}).
 *
 * @category rendering
 * @since 0.2.0
 */
export const render: (candidate: Candidate, view: View) => Prompt.Prompt = Render.candidate

/**
 * The task conversation as a judge is shown it: every turn flattened, between `<task>` and
 * `</task>`; nothing for no conversation.
 *
 * @category rendering
 * @since 0.2.0
 */
export const renderContext: (context: Conversation.Conversation | undefined) => Prompt.Prompt = Render.context

const replaceAll = (text: string, key: string, value: string): string => text.split(key).join(value)

/**
 * The pairwise judge's default system prompt; `{principle}` stands for the principle.
 *
 * @category prompts
 * @since 0.2.0
 */
export const pairwiseSystemPrompt: string =
  `Two responses to the same task follow, inside <candidate_a> and <candidate_b>; the task itself, when it is given, is inside <task>. Decide which response is better.

{principle}

Weigh only how well each response does the task under that principle. Which one comes first, how long it is and how it is styled are not merits in themselves.

Think it over briefly, then finish with one line of JSON and nothing after it: {"winner": "A"}, {"winner": "B"} or {"winner": "tie"}. You may add "confidence", a number from 0 to 1 saying how sure you are.`

/**
 * The principle a pairwise judge is given when it has none.
 *
 * @category prompts
 * @since 0.2.0
 */
export const pairwiseDefaultPrinciple: string =
  "The better response is the one that accomplishes the task with fewer mistakes, more usefully and more fully."

/**
 * The groupwise judge's default system prompt; `{principle}` stands for the principle and `{n}` for
 * the number of candidates.
 *
 * @category prompts
 * @since 0.2.0
 */
export const groupwiseSystemPrompt: string =
  `{n} responses to the same task follow, inside <candidate_1> to <candidate_{n}>; the task itself, when it is given, is inside <task>. Score every response.

{principle}

Score the responses against each other, so that the gaps between scores follow the gaps in quality. The order they come in and their length are not merits in themselves.

Think it over briefly, then finish with one line of JSON and nothing after it: {"scores": [s1, s2, ...]}, one number from 0 to 1 per response, in the order they are shown.`

/**
 * The principle a groupwise judge is given when it has none.
 *
 * @category prompts
 * @since 0.2.0
 */
export const groupwiseDefaultPrinciple: string =
  "A response scores higher the more correctly, usefully and fully it accomplishes the task."

/**
 * Options of {@link pairwisePrompt}.
 *
 * @category models
 * @since 0.2.0
 */
export interface PromptOptions {
  readonly context?: Conversation.Conversation | undefined
  /** Default {@link pairwiseDefaultPrinciple} (or {@link groupwiseDefaultPrinciple}). */
  readonly principle?: string | undefined
  /** Default `output`. */
  readonly view?: View | undefined
  /** Default {@link pairwiseSystemPrompt} (or {@link groupwiseSystemPrompt}). */
  readonly systemPrompt?: string | undefined
}

/**
 * The conversation a pairwise judge is sent for one presentation: the system prompt with the
 * principle in it, then one user turn holding the task and the two candidates, `first` as
 * `<candidate_a>`.
 *
 * @category prompts
 * @since 0.2.0
 */
export const pairwisePrompt = (
  first: Candidate,
  second: Candidate,
  options?: PromptOptions
): Conversation.Conversation => {
  const view = options?.view ?? "output"
  return [
    Message.system(
      replaceAll(
        options?.systemPrompt ?? pairwiseSystemPrompt,
        "{principle}",
        options?.principle ?? pairwiseDefaultPrinciple
      )
    ),
    Message.user([
      ...Render.context(options?.context),
      ...Render.tagged("candidate_a", first, view),
      ...Render.tagged("candidate_b", second, view)
    ])
  ]
}

/**
 * The conversation a groupwise judge is sent: the system prompt with the principle and the number
 * of candidates in it, then one user turn holding the task and the candidates in the order given,
 * as `<candidate_1>` onwards.
 *
 * @category prompts
 * @since 0.2.0
 */
export const groupwisePrompt = (
  candidates: ReadonlyArray<Candidate>,
  options?: PromptOptions
): Conversation.Conversation => {
  const view = options?.view ?? "output"
  const system = replaceAll(
    replaceAll(
      options?.systemPrompt ?? groupwiseSystemPrompt,
      "{principle}",
      options?.principle ?? groupwiseDefaultPrinciple
    ),
    "{n}",
    String(candidates.length)
  )
  return [
    Message.system(system),
    Message.user([
      ...Render.context(options?.context),
      ...candidates.flatMap((c, k) => Render.tagged(`candidate_${k + 1}`, c, view))
    ])
  ]
}

const pairwiseCorrective = (reason: string): string =>
  `I could not read a verdict in your reply: ${reason}. Answer again, and finish with one line of JSON: ` +
  `{"winner": "A"}, {"winner": "B"} or {"winner": "tie"}, optionally with "confidence", a number from 0 to 1.`

const groupwiseCorrective = (n: number) => (reason: string): string =>
  `I could not read your scores: ${reason}. Answer again, and finish with one line of JSON: ` +
  `{"scores": [s1, s2, ...]} with exactly ${n} numbers from 0 to 1, in the order the responses were shown.`

// -----------------------------------------------------------------------------
// pairwise
// -----------------------------------------------------------------------------

/**
 * Options of {@link pairwise}.
 *
 * @category models
 * @since 0.2.0
 */
export interface PairwiseOptions {
  /** The constitution: one principle is drawn per comparison. Without one the judge has a default. */
  readonly principles?: ReadonlyArray<string> | undefined
  /** Replaces {@link pairwiseSystemPrompt}; `{principle}` in it is replaced by the principle. */
  readonly systemPrompt?: string | undefined
  /** Show the two in a random order per comparison (default `true`). */
  readonly shuffle?: boolean | undefined
  /**
   * Ask in both orders (two calls): agreement keeps the winner, disagreement is a tie, soft scores
   * are averaged. `shuffle` is then moot.
   */
  readonly bothOrders?: boolean | undefined
  /** What the judge sees of a conversation candidate (default `output`). */
  readonly view?: View | undefined
  /** Replies per presentation before {@link JudgeFailure} (default 3, at least 1). */
  readonly maxAttempts?: number | undefined
  /**
   * Seeds the judge's own generator (principles and orders): equal seeds, equal draws. Without it
   * the draws come from the `Random` service in context.
   */
  readonly seed?: unknown
}

/**
 * Options of one comparison.
 *
 * @category models
 * @since 0.2.0
 */
export interface CompareOptions {
  /** The task conversation the candidates answer. */
  readonly context?: Conversation.Conversation | undefined
  /** This principle instead of one drawn from the constitution. */
  readonly principle?: string | undefined
}

/**
 * A pairwise judge.
 *
 * @category models
 * @since 0.2.0
 */
export interface PairwiseJudge {
  /**
   * Compare `a` and `b`. The principle and the presentation order are drawn when the comparison
   * starts, before the first model call.
   */
  readonly compare: (a: Candidate, b: Candidate, options?: CompareOptions) => Effect.Effect<Verdict, JudgeError>
}

/**
 * The pairwise judge in context.
 *
 * @category tags
 * @since 0.2.0
 */
export class Pairwise extends Context.Tag("openreward-effect/Judge/Pairwise")<Pairwise, PairwiseJudge>() {}

const flip = (winner: Ranking.Winner, aFirst: boolean): Ranking.Winner =>
  aFirst || winner === "tie" ? winner : winner === "a" ? "b" : "a"

/**
 * A pairwise judge on the `LanguageModel` in context (captured now; later calls need nothing).
 *
 * @category constructors
 * @since 0.2.0
 */
export const pairwise = (
  options?: PairwiseOptions
): Effect.Effect<PairwiseJudge, never, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const model = yield* LanguageModel.LanguageModel
    const random = options?.seed === undefined ? yield* Effect.random : Random.make(options.seed)
    const principles = options?.principles ?? []
    const maxAttempts = Ask.attempts(options?.maxAttempts, 3)
    const view = options?.view ?? "output"
    const shuffle = options?.shuffle ?? true
    const bothOrders = options?.bothOrders ?? false

    const presentation = (
      first: Candidate,
      second: Candidate,
      principle: string | undefined,
      context?: Conversation.Conversation
    ) =>
      Ask.ask({
        model,
        conversation: pairwisePrompt(first, second, {
          context,
          principle,
          view,
          systemPrompt: options?.systemPrompt
        }),
        read: Reply.verdict,
        corrective: pairwiseCorrective,
        maxAttempts,
        judge: "pairwise",
        fail: (attempts, reason, replies) => new JudgeFailure({ judge: "pairwise", attempts, reason, replies })
      })

    const compare = (a: Candidate, b: Candidate, compareOptions?: CompareOptions): Effect.Effect<Verdict, JudgeError> =>
      Effect.gen(function*() {
        const principle = compareOptions?.principle ??
          (principles.length > 0 ? principles[yield* random.nextIntBetween(0, principles.length)] : undefined)
        const orders: ReadonlyArray<boolean> = bothOrders
          ? [true, false]
          : shuffle
          ? [yield* random.nextBoolean]
          : [true]
        const replies: Array<string> = []
        const winners: Array<Ranking.Winner> = []
        const softA: Array<number> = []
        for (const aFirst of orders) {
          const answer = yield* presentation(aFirst ? a : b, aFirst ? b : a, principle, compareOptions?.context)
          replies.push(...answer.replies)
          const winner = flip(answer.value.winner, aFirst)
          winners.push(winner)
          const confidence = answer.value.confidence
          if (confidence !== undefined) softA.push(winner === "a" ? confidence : winner === "b" ? 1 - confidence : 0.5)
        }
        const winner = winners.every((w) => w === winners[0]) ? winners[0]! : "tie"
        const scoreA = softA.length > 0 ? softA.reduce((x, y) => x + y, 0) / softA.length : undefined
        return {
          winner,
          ...(scoreA === undefined ? {} : { scoreA, scoreB: 1 - scoreA }),
          ...(principle === undefined ? {} : { principle }),
          orders: orders.map((aFirst) => aFirst ? "ab" as const : "ba" as const),
          orderWinners: winners,
          attempts: replies.length,
          replies
        }
      })

    return { compare }
  })

/**
 * A layer of the pairwise judge on the `LanguageModel` it is given.
 *
 * @category layers
 * @since 0.2.0
 */
export const layerPairwise = (options?: PairwiseOptions): Layer.Layer<Pairwise, never, LanguageModel.LanguageModel> =>
  Layer.effect(Pairwise, pairwise(options))

/**
 * Compare two candidates with the pairwise judge in context.
 *
 * @category accessors
 * @since 0.2.0
 */
export const compare = (
  a: Candidate,
  b: Candidate,
  options?: CompareOptions
): Effect.Effect<Verdict, JudgeError, Pairwise> => Effect.flatMap(Pairwise, (judge) => judge.compare(a, b, options))

// -----------------------------------------------------------------------------
// ranking a group
// -----------------------------------------------------------------------------

/**
 * Options of {@link rank}: the ranking's, and the task conversation.
 *
 * @category models
 * @since 0.2.0
 */
export interface RankOptions extends Ranking.Options {
  readonly context?: Conversation.Conversation | undefined
}

/**
 * Rank a group with the pairwise judge in context (see `Ranking.rank`): the topology's pairs are
 * compared, each against the task `context`, and aggregated. A {@link JudgeFailure} in any
 * comparison fails the group.
 *
 * @category ranking
 * @since 0.2.0
 */
export const rank = (
  candidates: ReadonlyArray<Candidate>,
  options?: RankOptions
): Effect.Effect<Ranking.Ranked<Verdict>, JudgeError, Pairwise> =>
  Effect.flatMap(
    Pairwise,
    (judge) => Ranking.rank(candidates, (a, b) => judge.compare(a, b, { context: options?.context }), options)
  )

/**
 * Score a `/score_group` request with the pairwise judge in context: each candidate's messages
 * are ranked ({@link rank}), and its score carries in `metadata` the topology, the aggregator and
 * its games (`opponent` index, `result` win, loss or tie, and the `principle`). This is the shape an
 * environment's `scoreGroup` returns.
 *
 * @category ranking
 * @since 0.2.0
 */
export const scoreGroup = (
  candidates: ReadonlyArray<Protocol.GroupCandidate>,
  options?: RankOptions
): Effect.Effect<ReadonlyArray<Protocol.GroupScore>, JudgeError, Pairwise> =>
  Effect.map(rank(candidates.map((c) => c.messages), options), ({ comparisons, scores }) => {
    const games: Array<Array<Json.JsonObject>> = candidates.map(() => [])
    for (const { i, j, verdict } of comparisons) {
      const principle = verdict.principle === undefined ? {} : { principle: verdict.principle }
      const result = (won: boolean): string => verdict.winner === "tie" ? "tie" : won ? "win" : "loss"
      games[i]!.push({ opponent: j, result: result(verdict.winner === "a"), ...principle })
      games[j]!.push({ opponent: i, result: result(verdict.winner === "b"), ...principle })
    }
    return scores.map((reward, k) => ({
      reward,
      metadata: {
        topology: options?.topology ?? "round_robin",
        aggregator: options?.aggregator ?? "winrate",
        games: games[k]!
      }
    }))
  })

// -----------------------------------------------------------------------------
// groupwise
// -----------------------------------------------------------------------------

/**
 * Options of {@link groupwise}.
 *
 * @category models
 * @since 0.2.0
 */
export interface GroupwiseOptions {
  /** The constitution: one principle is drawn per call. */
  readonly principles?: ReadonlyArray<string> | undefined
  /** Replaces {@link groupwiseSystemPrompt}; `{principle}` and `{n}` in it are replaced. */
  readonly systemPrompt?: string | undefined
  /** Show the candidates in a random order (default `true`); scores come back in input order. */
  readonly shuffle?: boolean | undefined
  /** Default `output`. */
  readonly view?: View | undefined
  /** Replies before {@link JudgeFailure} (default 3, at least 1). */
  readonly maxAttempts?: number | undefined
  /** Seeds the judge's generator (principles and orders). */
  readonly seed?: unknown
}

/**
 * A groupwise judge.
 *
 * @category models
 * @since 0.2.0
 */
export interface GroupwiseJudge {
  /** Score every candidate in one judgement; no model call for an empty group. */
  readonly score: (candidates: ReadonlyArray<Candidate>, options?: CompareOptions) => Effect.Effect<Scores, JudgeError>
}

/**
 * The groupwise judge in context.
 *
 * @category tags
 * @since 0.2.0
 */
export class Groupwise extends Context.Tag("openreward-effect/Judge/Groupwise")<Groupwise, GroupwiseJudge>() {}

/**
 * A groupwise judge on the `LanguageModel` in context.
 *
 * @category constructors
 * @since 0.2.0
 */
export const groupwise = (
  options?: GroupwiseOptions
): Effect.Effect<GroupwiseJudge, never, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const model = yield* LanguageModel.LanguageModel
    const random = options?.seed === undefined ? yield* Effect.random : Random.make(options.seed)
    const principles = options?.principles ?? []
    const maxAttempts = Ask.attempts(options?.maxAttempts, 3)
    const view = options?.view ?? "output"
    const shuffle = options?.shuffle ?? true

    const score = (
      candidates: ReadonlyArray<Candidate>,
      scoreOptions?: CompareOptions
    ): Effect.Effect<Scores, JudgeError> =>
      Effect.gen(function*() {
        const n = candidates.length
        if (n === 0) return { scores: [], order: [], attempts: 0, replies: [] }
        const principle = scoreOptions?.principle ??
          (principles.length > 0 ? principles[yield* random.nextIntBetween(0, principles.length)] : undefined)
        const identity = Array.from({ length: n }, (_, k) => k)
        const order = shuffle ? Chunk.toReadonlyArray(yield* random.shuffle(identity)) : identity
        const answer = yield* Ask.ask({
          model,
          conversation: groupwisePrompt(order.map((k) => candidates[k]!), {
            context: scoreOptions?.context,
            principle,
            view,
            systemPrompt: options?.systemPrompt
          }),
          read: (text) => Reply.scores(text, n),
          corrective: groupwiseCorrective(n),
          maxAttempts,
          judge: "groupwise",
          fail: (attempts, reason, replies) => new JudgeFailure({ judge: "groupwise", attempts, reason, replies })
        })
        const scores = new Array<number>(n)
        order.forEach((original, shown) => {
          scores[original] = answer.value[shown]!
        })
        return {
          scores,
          ...(principle === undefined ? {} : { principle }),
          order,
          attempts: answer.replies.length,
          replies: answer.replies
        }
      })

    return { score }
  })

/**
 * A layer of the groupwise judge on the `LanguageModel` it is given.
 *
 * @category layers
 * @since 0.2.0
 */
export const layerGroupwise = (
  options?: GroupwiseOptions
): Layer.Layer<Groupwise, never, LanguageModel.LanguageModel> => Layer.effect(Groupwise, groupwise(options))

/**
 * Score a group with the groupwise judge in context.
 *
 * @category accessors
 * @since 0.2.0
 */
export const score = (
  candidates: ReadonlyArray<Candidate>,
  options?: CompareOptions
): Effect.Effect<Scores, JudgeError, Groupwise> =>
  Effect.flatMap(Groupwise, (judge) => judge.score(candidates, options))

/**
 * Read a pairwise verdict from a reply as the judge does, in presentation terms (`a` is the
 * candidate shown first): the winner and the clamped confidence, or why it cannot be read.
 *
 * @category parsing
 * @since 0.2.0
 */
export const readVerdict: (
  reply: string
) => Either.Either<{ readonly winner: Ranking.Winner; readonly confidence: number | undefined }, string> = Reply.verdict

/**
 * Read a groupwise verdict from a reply as the judge does: exactly `n` clamped scores in the order
 * shown, or why they cannot be read.
 *
 * @category parsing
 * @since 0.2.0
 */
export const readScores: (reply: string, n: number) => Either.Either<ReadonlyArray<number>, string> = Reply.scores
