/**
 * The rubric grader on a scripted `LanguageModel`: the weighted score, what it is shown, the
 * parse-retry-fail contract, rubric validation, and grading inside a terminal tool.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as Block from "openreward-effect/Block"
import type * as Environment from "openreward-effect/Environment"
import * as Grader from "openreward-effect/Grader"
import * as Judge from "openreward-effect/Judge"
import * as Message from "openreward-effect/Message"
import * as Tool from "openreward-effect/Tool"
import * as Scripted from "./utils/scriptedModel.js"

const rubric = [
  { id: "correct", description: "States the order's real status.", weight: 3 },
  { id: "polite", description: "Is courteous." }
] as const

const withModel = <A, E>(scripted: Scripted.Scripted, self: Effect.Effect<A, E, LanguageModel.LanguageModel>) =>
  Effect.provideServiceEffect(self, LanguageModel.LanguageModel, scripted.model)

const quiet = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, Logger.minimumLogLevel(LogLevel.None))

const context = [Message.system("You are Acme support."), Message.user("Where is order 4411?")]
const transcript = [
  ...context,
  Message.assistant([Block.reasoning("Look it up."), Block.toolCall("c1", "lookup", { id: 4411 })]),
  Message.user([Block.toolResult("c1", "delayed at the hub")]),
  Message.assistant("It is delayed at the hub; sorry!")
]

describe("Grader", () => {
  it.effect("the score is the weighted mean of the criteria's scores", () =>
    Effect.gen(function*() {
      const grader = yield* withModel(
        Scripted.replies("Right and polite enough.\n{\"correct\": 1, \"polite\": 0.4, \"note\": \"ok\"}"),
        Grader.make({ rubric })
      )
      const grade = yield* grader.grade(transcript, { context })
      assert.approximately(grade.score, (3 * 1 + 1 * 0.4) / 4, 1e-12)
      assert.deepStrictEqual(grade.criteria, [
        { id: "correct", weight: 3, score: 1 },
        { id: "polite", weight: 1, score: 0.4 }
      ])
      assert.strictEqual(grade.attempts, 1)
    }))

  it.effect("it is shown the rubric (not the weights), the task and the candidate in the chosen view", () =>
    Effect.gen(function*() {
      for (const view of ["output", "trajectory"] as const) {
        const model = Scripted.replies("{\"correct\": 0, \"polite\": 0}")
        const grader = yield* withModel(model, Grader.make({ rubric, view }))
        yield* grader.grade(transcript, { context })
        const [system, user] = Scripted.toOpenAi(model.prompts[0]!) as [
          { content: string },
          { content: ReadonlyArray<{ text?: string }> }
        ]
        assert.include(system.content, "- correct: States the order's real status.\n- polite: Is courteous.")
        assert.include(system.content, "{\"correct\": 0.0, \"polite\": 0.0}")
        assert.notInclude(system.content, "3")
        const texts = user.content.map((p) => p.text)
        assert.deepStrictEqual(texts.slice(0, 6), [
          "<task>",
          "[system]",
          "You are Acme support.",
          "[user]",
          "Where is order 4411?",
          "</task>"
        ])
        const response = texts.slice(texts.indexOf("<response>"))
        if (view === "output") {
          assert.deepStrictEqual(response, ["<response>", "It is delayed at the hub; sorry!", "</response>"])
        } else {
          assert.include(response, "<think>Look it up.</think>")
          assert.include(response, "[tool_call lookup] {\"id\": 4411}")
          assert.include(response, "[tool_result]")
        }
      }
    }))

  it.effect("an unreadable reply is shown back with what is wrong; a score out of range is not clamped", () =>
    Effect.gen(function*() {
      const model = Scripted.replies("{\"correct\": 2, \"polite\": \"yes\"}", "{\"correct\": 0.5, \"polite\": 1}")
      const grader = yield* withModel(model, Grader.make({ rubric }))
      const grade = yield* grader.grade("Delayed, sorry.")
      assert.strictEqual(grade.attempts, 2)
      assert.approximately(grade.score, 0.625, 1e-12)
      const second = Scripted.toOpenAi(model.prompts[1]!) as ReadonlyArray<{ role: string; content: unknown }>
      assert.deepStrictEqual(second.map((m) => m.role), ["system", "user", "assistant", "user"])
      const corrective = JSON.stringify(second[3]!.content)
      assert.include(corrective, "\\\"correct\\\" must be a number from 0 to 1")
      assert.include(corrective, "\\\"polite\\\"")
    }).pipe(quiet))

  it.effect("after maxAttempts unreadable replies the grade fails with JudgeFailure, no score", () =>
    Effect.gen(function*() {
      const model = Scripted.replies("Good answer!", "{\"polite\": 1}", "{\"correct\": -1, \"polite\": 1}")
      const grader = yield* withModel(model, Grader.make({ rubric }))
      const exit = yield* Effect.exit(grader.grade("Delayed, sorry."))
      if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") assert.fail("expected a failure")
      const failure = exit.cause.error
      assert.instanceOf(failure, Judge.JudgeFailure)
      if (failure instanceof Judge.JudgeFailure) {
        assert.strictEqual(failure.judge, "grader")
        assert.strictEqual(failure.attempts, 3)
        assert.deepStrictEqual(failure.replies.length, 3)
        assert.include(failure.reason, "\"correct\" must be a number from 0 to 1")
      }
      // a missing criterion is named too
      assert.include(
        Either.getLeft(Grader.read(Schema.decodeSync(Grader.Rubric)(rubric), "{\"polite\": 1}")).pipe((o) =>
          o._tag === "Some" ? o.value : ""
        ),
        "\"correct\" is missing"
      )
    }).pipe(quiet))

  it.effect("a rubric it cannot use is an InvalidRubric when the grader is made", () =>
    Effect.gen(function*() {
      const bad: ReadonlyArray<Grader.Options["rubric"]> = [
        [],
        [{ id: "a", description: "x" }, { id: "a", description: "y" }],
        [{ id: "has space", description: "x" }],
        [{ id: "w", description: "x", weight: 0 }],
        [{ id: "w", description: "x", weight: Number.POSITIVE_INFINITY }]
      ]
      for (const r of bad) {
        const exit = yield* Effect.exit(withModel(Scripted.replies(), Grader.make({ rubric: r })))
        assert.isTrue(
          Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error._tag === "InvalidRubric",
          JSON.stringify(r)
        )
      }
      const dup = yield* Effect.flip(withModel(Scripted.replies(), Grader.make({ rubric: bad[1]! })))
      assert.include(dup.message, "criterion id \"a\" is used twice")
    }))

  it.effect("graded from inside a terminal tool's handler: the grade is the reward", () =>
    Effect.gen(function*() {
      type Task = { readonly question: string }
      const answer = Tool.make("answer", {
        description: "Your final reply to the customer.",
        terminal: true,
        input: Schema.Struct({ message: Schema.String }),
        handler: ({ message }, session: Environment.Session<Task>) =>
          Effect.map(
            Grader.grade(message, { context: [Message.user(session.task.question)] }),
            (grade) =>
              Tool.output(`Graded ${grade.score.toFixed(2)}.`, {
                reward: grade.score,
                finished: true,
                metadata: { criteria: grade.criteria.map((c) => ({ id: c.id, score: c.score })) }
              })
          )
      })
      assert.isTrue(answer.terminal)
      assert.strictEqual(answer.terminalArg, "message")
      const session: Environment.Session<Task> = {
        id: "s1",
        environment: "support",
        task: { question: "Where is order 4411?" },
        secrets: {},
        state: undefined
      }
      const output = yield* Tool.call(answer, { message: "Delayed at the hub, sorry." }, session).pipe(
        Effect.provide(Grader.layer({ rubric })),
        Effect.provideServiceEffect(
          LanguageModel.LanguageModel,
          Scripted.replies("{\"correct\": 1, \"polite\": 1}").model
        )
      )
      assert.strictEqual(output.reward, 1)
      assert.isTrue(output.finished)
      assert.deepStrictEqual(output.metadata, {
        criteria: [{ id: "correct", score: 1 }, { id: "polite", score: 1 }]
      })
    }))
})
