/**
 * A rubric grader: a model scores one candidate against weighted criteria, and the weighted mean is
 * the reward. It runs on whatever `@effect/ai` `LanguageModel` is provided (the chat model channel,
 * `openreward-effect/ChatModel`, in an environment), typically from inside a terminal tool's
 * handler, where the policy's final answer is graded. Import it only where `@effect/ai` is installed.
 *
 * The grader sees the candidate as the judges do (`Judge.View`: by default the last assistant
 * turn's visible content; `trajectory` for every turn) after the task in `<task>` tags, and the
 * rubric's criteria by id and description (not their weights). It answers with one flat JSON object,
 * a score from 0 to 1 per criterion id, read with a Schema built from the rubric
 * ({@link verdictSchema}); a reply that does not hold one is shown back with what is wrong, up to
 * `maxAttempts` replies, then the grade fails with `Judge.JudgeFailure` (`judge: "grader"`). Never a
 * default score.
 *
 * @example
 * ```ts
 * import * as LanguageModel from "@effect/ai/LanguageModel"
 * import * as Effect from "effect/Effect"
 * import * as Grader from "openreward-effect/Grader"
 *
 * const model = LanguageModel.make({
 *   generateText: () => Effect.succeed([{ type: "text", text: 'Polite, half right.\n{"correct": 0.5, "polite": 1}' }]),
 *   streamText: () => { throw new Error("unused") }
 * })
 *
 * const program = Effect.gen(function*() {
 *   const grader = yield* Grader.make({
 *     rubric: [
 *       { id: "correct", description: "The answer names the right order status.", weight: 3 },
 *       { id: "polite", description: "The reply is courteous." }
 *     ]
 *   })
 *   const grade = yield* grader.grade("Your order is on its way, sorry for the wait!")
 *   console.log(grade.score, grade.criteria.map((c) => `${c.id}=${c.score}`).join(" "))
 * })
 *
 * Effect.runPromise(Effect.provideServiceEffect(program, LanguageModel.LanguageModel, model))
 * ```
 *
 * ```text output
 * 0.625 correct=0.5 polite=1
 * ```
 *
 * @since 0.2.0
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as Conversation from "./Conversation.js"
import * as Ask from "./internal/judge/ask.js"
import * as Render from "./internal/judge/render.js"
import * as Reply from "./internal/judge/reply.js"
import * as Judge from "./Judge.js"
import * as Message from "./Message.js"

/**
 * One criterion: an `id` (the key the grader answers under: letters, digits and underscores, not
 * starting with a digit), what it asks, and its weight in the score (positive; default 1).
 *
 * @category schemas
 * @since 0.2.0
 */
export const Criterion = Schema.Struct({
  id: Schema.String.pipe(
    Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, {
      message: () => "a criterion id is letters, digits and underscores, not starting with a digit"
    })
  ),
  description: Schema.String,
  weight: Schema.optionalWith(Schema.Number.pipe(Schema.finite(), Schema.positive()), { default: () => 1 })
}).annotations({ identifier: "Criterion" })

/**
 * @category models
 * @since 0.2.0
 */
export interface Criterion extends Schema.Schema.Type<typeof Criterion> {}

/**
 * A rubric: at least one criterion, their ids distinct.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Rubric = Schema.Array(Criterion).pipe(
  Schema.minItems(1, { message: () => "a rubric needs at least one criterion" }),
  Schema.filter((criteria) => {
    const seen = new Set<string>()
    for (const [k, c] of criteria.entries()) {
      if (seen.has(c.id)) return { path: [k, "id"], message: `criterion id "${c.id}" is used twice` }
      seen.add(c.id)
    }
    return undefined
  })
).annotations({ identifier: "Rubric" })

/**
 * @category models
 * @since 0.2.0
 */
export type Rubric = typeof Rubric.Type

/**
 * A rubric that cannot be used: no criteria, an id that is not a JSON-friendly name, an id used
 * twice, a weight that is not positive.
 *
 * @category errors
 * @since 0.2.0
 */
export class InvalidRubric extends Schema.TaggedError<InvalidRubric>("openreward-effect/Grader/InvalidRubric")(
  "InvalidRubric",
  { reason: Schema.String }
) {
  /**
   * @since 0.2.0
   */
  override get message(): string {
    return `invalid rubric: ${this.reason}`
  }
}

/**
 * The Schema a grader's answer is read with: one number in [0, 1] per criterion id (other keys are
 * ignored).
 *
 * @category schemas
 * @since 0.2.0
 */
export const verdictSchema = (rubric: Rubric): Schema.Schema<{ readonly [id: string]: number }> =>
  Schema.Struct(
    Object.fromEntries(
      rubric.map((c) => [
        c.id,
        Schema.Number.pipe(Schema.between(0, 1, { message: () => "must be a number from 0 to 1" }))
      ])
    )
  ) as unknown as Schema.Schema<{ readonly [id: string]: number }>

/**
 * One criterion's result.
 *
 * @category models
 * @since 0.2.0
 */
export interface CriterionScore {
  readonly id: string
  readonly weight: number
  readonly score: number
}

/**
 * A grade: the weighted mean of the criteria's scores, in [0, 1], and each criterion's score.
 *
 * @category models
 * @since 0.2.0
 */
export interface Grade {
  readonly score: number
  readonly criteria: ReadonlyArray<CriterionScore>
  /** Model calls made, corrective retries included. */
  readonly attempts: number
  readonly replies: ReadonlyArray<string>
}

/**
 * The grader's default system prompt: `{rubric}` stands for the criteria, one `- id: description`
 * line each, and `{format}` for the JSON line to end with.
 *
 * @category prompts
 * @since 0.2.0
 */
export const systemPrompt: string =
  `You are grading one response to a task against a rubric. The response is inside <response>; the task itself, when it is given, is inside <task>.

The rubric, one criterion per line as "id: what it asks":
{rubric}

Score each criterion on its own, from 0 (not met at all) to 1 (fully met), by what the rubric asks and nothing else.

Think it over briefly, then finish with one line of JSON and nothing after it, with one key per criterion id: {format}`

/**
 * Options of {@link make}.
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  /** The criteria (see {@link Criterion}; `weight` may be left out). */
  readonly rubric: ReadonlyArray<typeof Criterion.Encoded>
  /** What the grader sees of a conversation candidate (default `output`). */
  readonly view?: Judge.View | undefined
  /** Replaces {@link systemPrompt}; `{rubric}` and `{format}` in it are replaced. */
  readonly systemPrompt?: string | undefined
  /** Replies before `JudgeFailure` (default 3, at least 1). */
  readonly maxAttempts?: number | undefined
}

/**
 * Options of one grade.
 *
 * @category models
 * @since 0.2.0
 */
export interface GradeOptions {
  /** The task conversation the candidate answers. */
  readonly context?: Conversation.Conversation | undefined
}

/**
 * A grader.
 *
 * @category models
 * @since 0.2.0
 */
export interface Service {
  readonly rubric: Rubric
  readonly grade: (candidate: Judge.Candidate, options?: GradeOptions) => Effect.Effect<Grade, Judge.JudgeError>
}

/**
 * The grader in context.
 *
 * @category tags
 * @since 0.2.0
 */
export class Grader extends Context.Tag("openreward-effect/Grader")<Grader, Service>() {}

const decodeRubric = ParseResult.decodeUnknownEither(Rubric)

const replaceAll = (text: string, key: string, value: string): string => text.split(key).join(value)

/**
 * The conversation a grader is sent for one candidate.
 *
 * @category prompts
 * @since 0.2.0
 */
export const prompt = (
  rubric: Rubric,
  candidate: Judge.Candidate,
  options?: GradeOptions & { readonly view?: Judge.View | undefined; readonly systemPrompt?: string | undefined }
): Conversation.Conversation => {
  const lines = rubric.map((c) => `- ${c.id}: ${c.description}`).join("\n")
  const format = `{${rubric.map((c) => `"${c.id}": 0.0`).join(", ")}}`
  return [
    Message.system(
      replaceAll(replaceAll(options?.systemPrompt ?? systemPrompt, "{rubric}", lines), "{format}", format)
    ),
    Message.user([
      ...Render.context(options?.context),
      ...Render.tagged("response", candidate, options?.view ?? "output")
    ])
  ]
}

const issues = (issue: ParseResult.ParseIssue): string =>
  ParseResult.ArrayFormatter.formatIssueSync(issue)
    .map((i) => i.path.length > 0 ? `"${i.path.join(".")}" ${i.message}` : i.message)
    .join("; ")

/**
 * Read a grader's reply: the last flat JSON object that has a criterion id as a key, decoded with
 * {@link verdictSchema}; or why it cannot be read.
 *
 * @category parsing
 * @since 0.2.0
 */
export const read = (rubric: Rubric, reply: string): Either.Either<{ readonly [id: string]: number }, string> => {
  const decode = ParseResult.decodeUnknownEither(verdictSchema(rubric), { errors: "all" })
  const ids = rubric.map((c) => c.id)
  return Either.flatMap(Reply.lastObjectWithAny(reply, ids), (object) => Either.mapLeft(decode(object), issues))
}

/**
 * A grader on the `LanguageModel` in context. Fails with {@link InvalidRubric} for a rubric it
 * cannot use.
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = (options: Options): Effect.Effect<Service, InvalidRubric, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const decoded = decodeRubric(options.rubric)
    if (Either.isLeft(decoded)) {
      return yield* new InvalidRubric({ reason: ParseResult.TreeFormatter.formatIssueSync(decoded.left) })
    }
    const rubric = decoded.right
    const model = yield* LanguageModel.LanguageModel
    const maxAttempts = Ask.attempts(options.maxAttempts, 3)
    const total = rubric.reduce((sum, c) => sum + c.weight, 0)
    const format = `{${rubric.map((c) => `"${c.id}": ...`).join(", ")}}`

    const grade = (candidate: Judge.Candidate, gradeOptions?: GradeOptions): Effect.Effect<Grade, Judge.JudgeError> =>
      Effect.map(
        Ask.ask({
          model,
          conversation: prompt(rubric, candidate, {
            context: gradeOptions?.context,
            view: options.view,
            systemPrompt: options.systemPrompt
          }),
          read: (text) => read(rubric, text),
          corrective: (reason) =>
            `I could not read your scores: ${reason}. Answer again, and finish with one line of JSON, ` +
            `one number from 0 to 1 per criterion: ${format}`,
          maxAttempts,
          judge: "grader",
          fail: (attempts, reason, replies) => new Judge.JudgeFailure({ judge: "grader", attempts, reason, replies })
        }),
        ({ replies, value }) => {
          const criteria = rubric.map((c) => ({ id: c.id, weight: c.weight, score: value[c.id]! }))
          const score = criteria.reduce((sum, c) => sum + c.weight * c.score, 0) / total
          return { score: Math.min(1, Math.max(0, score)), criteria, attempts: replies.length, replies }
        }
      )

    return { rubric, grade }
  })

/**
 * A layer of the grader on the `LanguageModel` it is given.
 *
 * @category layers
 * @since 0.2.0
 */
export const layer = (options: Options): Layer.Layer<Grader, InvalidRubric, LanguageModel.LanguageModel> =>
  Layer.effect(Grader, make(options))

/**
 * Grade a candidate with the grader in context.
 *
 * @category accessors
 * @since 0.2.0
 */
export const grade = (
  candidate: Judge.Candidate,
  options?: GradeOptions
): Effect.Effect<Grade, Judge.JudgeError, Grader> =>
  Effect.flatMap(Grader, (grader) => grader.grade(candidate, options))
