/**
 * One judge question to a `LanguageModel`, asked again with a corrective turn while the reply cannot
 * be read, up to a bounded number of attempts: the parse-retry-fail contract every judge and grader
 * shares.
 *
 * @internal
 */
import type * as AiError from "@effect/ai/AiError"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Conversation from "../../Conversation.js"
import type * as ConversionError from "../../ConversionError.js"
import * as Message from "../../Message.js"
import * as Prompt from "../effectAi/prompt.js"

/**
 * @internal
 */
export interface Question<A, E> {
  readonly model: LanguageModel.Service
  readonly conversation: Conversation.Conversation
  /** The value in a reply, or why there is none (shown to the model in the corrective turn). */
  readonly read: (text: string) => Either.Either<A, string>
  /** The user turn that asks again, given why the last reply could not be read. */
  readonly corrective: (reason: string) => string
  readonly maxAttempts: number
  /** Names the judge in the warning logged for each reply that cannot be read. */
  readonly judge: string
  /** The error after the last attempt. */
  readonly fail: (attempts: number, reason: string, replies: ReadonlyArray<string>) => E
}

/**
 * @internal
 */
export interface Answer<A> {
  readonly value: A
  /** Every reply, the readable last one included. */
  readonly replies: ReadonlyArray<string>
}

/**
 * At least one attempt, a whole number.
 *
 * @internal
 */
export const attempts = (n: number | undefined, fallback: number): number =>
  Math.max(1, Math.floor(n === undefined || Number.isNaN(n) ? fallback : n))

/**
 * Ask, and ask again on an unreadable reply. A failed model call or a conversation with no
 * `@effect/ai` form fails at once, untouched: retrying transport is the caller's business.
 *
 * @internal
 */
export const ask = <A, E>(
  question: Question<A, E>
): Effect.Effect<Answer<A>, E | AiError.AiError | ConversionError.EncodeError> =>
  Effect.gen(function*() {
    let conversation = question.conversation
    const replies: Array<string> = []
    let reason = ""
    for (let attempt = 1; attempt <= question.maxAttempts; attempt++) {
      const prompt = yield* Prompt.encode(conversation, { signatures: "none" })
      const response = yield* question.model.generateText({ prompt })
      const text = response.text
      replies.push(text)
      const read = question.read(text)
      if (Either.isRight(read)) return { value: read.right, replies }
      reason = read.left
      yield* Effect.logWarning("judge reply unreadable").pipe(
        Effect.annotateLogs({ judge: question.judge, attempt, maxAttempts: question.maxAttempts, reason })
      )
      conversation = [...conversation, Message.assistant(text), Message.user(question.corrective(reason))]
    }
    return yield* Effect.fail(question.fail(question.maxAttempts, reason, replies))
  })
