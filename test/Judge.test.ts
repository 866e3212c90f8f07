/**
 * The judges against the reference's judging toolkit (openreward 0.1.167) on the same inputs, with
 * no Python: test/fixtures/judging/reference.json is what the reference rendered, read and decided
 * (written by test/fixtures/judging/generate.py). Then what the fixtures cannot show: the model
 * channel in context, seeded draws, the failure's contents, model errors, the groupwise judge.
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Block from "openreward-effect/Block"
import * as Conversation from "openreward-effect/Conversation"
import * as Judge from "openreward-effect/Judge"
import * as Message from "openreward-effect/Message"
import type * as Prompt from "openreward-effect/Prompt"
import * as Ranking from "openreward-effect/Ranking"
import * as Scripted from "./utils/scriptedModel.js"
import * as Vectors from "./utils/vectors.js"

// -----------------------------------------------------------------------------
// fixtures
// -----------------------------------------------------------------------------

type Parts = ReadonlyArray<unknown>

interface Reference {
  readonly reference: { readonly version: string }
  readonly render: ReadonlyArray<{
    readonly name: string
    readonly conversation: unknown
    readonly output: Parts
    readonly trajectory: Parts
    readonly context: Parts
  }>
  readonly prompts: ReadonlyArray<{
    readonly judge: "pairwise" | "groupwise"
    readonly name: string
    readonly view: Judge.View
    readonly principle: string | null
    readonly a?: unknown
    readonly b?: unknown
    readonly candidates?: ReadonlyArray<unknown>
    readonly context: unknown
    readonly request: ReadonlyArray<unknown>
  }>
  readonly verdicts: ReadonlyArray<{
    readonly reply: string
    readonly outcome: { readonly ok: boolean; readonly winner?: string; readonly score_a?: number | null }
  }>
  readonly scores: ReadonlyArray<{
    readonly n: number
    readonly reply: string
    readonly outcome: { readonly ok: boolean; readonly scores?: ReadonlyArray<number>; readonly attempts?: number }
  }>
  readonly compare: ReadonlyArray<{
    readonly name: string
    readonly options: { readonly both_orders?: boolean; readonly max_retries?: number }
    readonly replies: ReadonlyArray<string>
    readonly outcome: {
      readonly ok: boolean
      readonly winner?: string
      readonly score_a?: number | null
      readonly score_b?: number | null
      readonly orders?: ReadonlyArray<string>
      readonly order_winners?: ReadonlyArray<string>
      readonly attempts?: number
      readonly raw?: ReadonlyArray<string>
    }
    readonly requests: ReadonlyArray<ReadonlyArray<{ readonly role: string; readonly content: string | null }>>
  }>
}

const reference: Reference = JSON.parse(
  fs.readFileSync(path.join(__dirname, "fixtures", "judging", "reference.json"), "utf8")
)

const conversationOf = (u: unknown): Conversation.Conversation => {
  const decoded = Conversation.decode(u)
  if (Either.isLeft(decoded)) assert.fail(`fixture conversation does not decode: ${decoded.left.message}`)
  return decoded.right
}

const candidateOf = (u: unknown): Judge.Candidate => typeof u === "string" ? u : conversationOf(u)

/** Prompt blocks as the OpenAI content parts the reference sends. */
const parts = (prompt: Prompt.Prompt): Parts =>
  prompt.map((b) =>
    b.type === "text"
      ? { type: "text", text: b.text }
      : { type: "image_url", image_url: { url: `data:${b.mimeType};base64,${b.data}` } }
  )

/** A judge conversation as the OpenAI messages the reference sends. */
const openAi = (conversation: Conversation.Conversation): Parts =>
  conversation.map((m) =>
    m.role === "system"
      ? { role: "system", content: m.blocks.map((b) => b.type === "text" ? b.text : "").join("") }
      : { role: m.role, content: parts(m.blocks as Prompt.Prompt) }
  )

const withModel = <A, E>(scripted: Scripted.Scripted, self: Effect.Effect<A, E, LanguageModel.LanguageModel>) =>
  Effect.provideServiceEffect(self, LanguageModel.LanguageModel, scripted.model)

/** No warnings on the test output: the judges log one per unreadable reply. */
const quiet = <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.provide(self, Logger.minimumLogLevel(LogLevel.None))

// -----------------------------------------------------------------------------
// what the judge is shown
// -----------------------------------------------------------------------------

describe("Judge: what the judge is shown, against the reference", () => {
  it("the fixtures are the reference's and cover every view and block kind", () => {
    assert.strictEqual(reference.reference.version, "0.1.167")
    assert.isAtLeast(reference.render.length, 80)
    const types = new Set(reference.render.flatMap((c) => c.trajectory.map((p) => (p as { type: string }).type)))
    assert.deepStrictEqual([...types].sort(), ["image_url", "text"])
    const texts = reference.render.flatMap((c) => c.trajectory.map((p) => (p as { text?: string }).text ?? ""))
    for (const marker of ["<think>", "[tool_call ", "[tool_result]", "[tool_result (error)]", "[system]"]) {
      assert.isTrue(texts.some((t) => t.startsWith(marker)), marker)
    }
    // some outputs are empty (no assistant turn, or one that shows nothing)
    assert.isTrue(reference.render.some((c) => JSON.stringify(c.output) === `[{"type":"text","text":""}]`))
  })

  it("renders every corpus conversation as the reference does, in both views and as context", () => {
    const excused: Array<string> = []
    for (const c of reference.render) {
      const conversation = conversationOf(c.conversation)
      assert.deepStrictEqual(parts(Judge.render(conversation, "output")), c.output, `${c.name} output`)
      // Tool inputs print as `/prompt` prints them: the same deliberate differences apply.
      if (Vectors.differenceFor(c.name, "prompt") !== undefined) {
        excused.push(c.name)
        continue
      }
      assert.deepStrictEqual(parts(Judge.render(conversation, "trajectory")), c.trajectory, `${c.name} trajectory`)
      assert.deepStrictEqual(parts(Judge.renderContext(conversation)), c.context, `${c.name} context`)
    }
    assert.deepStrictEqual(excused, [
      "tool-call-input-big-integer",
      "tool-call-input-integer-like-keys",
      "tool-call-input-integral-floats"
    ])
  })

  it("a string candidate is one text block in either view; no context renders nothing", () => {
    for (const view of ["output", "trajectory"] as const) {
      assert.deepStrictEqual(Judge.render("Paris.", view), [Block.text("Paris.")])
    }
    assert.deepStrictEqual(Judge.renderContext(undefined), [])
    assert.deepStrictEqual(Judge.renderContext([]), [])
  })

  it("builds the pairwise and groupwise requests the reference builds", () => {
    assert.isAtLeast(reference.prompts.length, 6)
    for (const c of reference.prompts) {
      const options = {
        view: c.view,
        context: c.context === null ? undefined : conversationOf(c.context),
        principle: c.principle ?? undefined
      }
      const conversation = c.judge === "pairwise"
        ? Judge.pairwisePrompt(candidateOf(c.a), candidateOf(c.b), {
          ...options,
          systemPrompt: "Rule: {principle}\nAgain: {principle}\nReply {\"winner\": \"A\"}."
        })
        : Judge.groupwisePrompt(c.candidates!.map(candidateOf), {
          ...options,
          systemPrompt: "Score {n} of them. Rule: {principle}. {n}!"
        })
      assert.deepStrictEqual(openAi(conversation), c.request, c.name)
    }
  })

  it.effect("the model is sent exactly that request, images as image files", () =>
    Effect.gen(function*() {
      const c = reference.prompts.find((p) => p.name === "conversations-trajectory")!
      const model = Scripted.replies("{\"winner\": \"A\"}")
      const judge = yield* withModel(
        model,
        Judge.pairwise({
          shuffle: false,
          view: "trajectory",
          systemPrompt: "Rule: {principle}\nAgain: {principle}\nReply {\"winner\": \"A\"}."
        })
      )
      yield* judge.compare(candidateOf(c.a), candidateOf(c.b), {
        context: conversationOf(c.context),
        principle: c.principle!
      })
      assert.strictEqual(model.prompts.length, 1)
      assert.deepStrictEqual(Scripted.toOpenAi(model.prompts[0]!), c.request)
      assert.isTrue(JSON.stringify(c.request).includes("image_url"))
    }))
})

// -----------------------------------------------------------------------------
// how a verdict is read
// -----------------------------------------------------------------------------

describe("Judge: how a verdict is read, against the reference", () => {
  it.effect("every recorded reply gives the reference's winner and soft score, or fails as it does", () =>
    Effect.gen(function*() {
      assert.isAtLeast(reference.verdicts.length, 40)
      for (const { outcome, reply } of reference.verdicts) {
        const judge = yield* withModel(Scripted.replies(reply), Judge.pairwise({ shuffle: false, maxAttempts: 1 }))
        const exit = yield* Effect.exit(judge.compare("x", "y"))
        if (outcome.ok) {
          assert.isTrue(Exit.isSuccess(exit), `${JSON.stringify(reply)} should read`)
          if (Exit.isSuccess(exit)) {
            assert.strictEqual(exit.value.winner, outcome.winner, reply)
            assert.strictEqual(exit.value.scoreA ?? null, outcome.score_a ?? null, reply)
          }
        } else {
          assert.strictEqual(failureOf(exit).attempts, 1, reply)
        }
      }
    }).pipe(quiet))

  it("readVerdict gives the winner in presentation terms and the clamped confidence", () => {
    assert.deepStrictEqual(
      Judge.readVerdict("{\"winner\": \"B\", \"confidence\": 1.7}"),
      Either.right({ winner: "b", confidence: 1 })
    )
    assert.deepStrictEqual(
      Judge.readVerdict("{\"winner\": \"a\", \"confidence\": -2}"),
      Either.right({ winner: "a", confidence: 0 })
    )
    assert.deepStrictEqual(
      Judge.readVerdict("{\"winner\": \"tie\"}"),
      Either.right({ winner: "tie", confidence: undefined })
    )
    assert.deepStrictEqual(
      Judge.readVerdict("{\"winner\": \"A\", \"confidence\": NaN}"),
      Either.right({ winner: "a", confidence: 0 })
    )
    assert.isTrue(Either.isLeft(Judge.readVerdict("{\"winner\": \"A\", \"why\": {\"x\": 1}}")))
    assert.isTrue(Either.isLeft(Judge.readVerdict("\"winner\": \"A\"")))
    // a string that looks like a constant stays a string
    assert.isTrue(Either.isLeft(Judge.readVerdict("{\"winner\": \"NaN\"}")))
  })

  it.effect("every recorded groupwise reply gives the reference's scores, or fails as it does", () =>
    Effect.gen(function*() {
      assert.isAtLeast(reference.scores.length, 15)
      for (const { n, outcome, reply } of reference.scores) {
        const judge = yield* withModel(Scripted.replies(reply), Judge.groupwise({ shuffle: false, maxAttempts: 1 }))
        const exit = yield* Effect.exit(judge.score(Array.from({ length: n }, (_, k) => `c${k}`)))
        if (outcome.ok) {
          assert.isTrue(Exit.isSuccess(exit), reply)
          if (Exit.isSuccess(exit)) assert.deepStrictEqual(exit.value.scores, outcome.scores, reply)
        } else {
          assert.isTrue(Exit.isFailure(exit), reply)
        }
      }
    }).pipe(quiet))
})

// -----------------------------------------------------------------------------
// comparisons: retries, both orders, soft scores, failure
// -----------------------------------------------------------------------------

const failureOf = <A>(exit: Exit.Exit<A, Judge.JudgeError>): Judge.JudgeFailure => {
  if (Exit.isSuccess(exit)) assert.fail("expected a failure")
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (!(failure instanceof Judge.JudgeFailure)) assert.fail(`expected a JudgeFailure, got ${String(exit.cause)}`)
  return failure
}

describe("Judge.pairwise: comparisons, against the reference", () => {
  it.effect("retries, both orders, soft scores and the failure after the budget match the reference", () =>
    Effect.gen(function*() {
      assert.isAtLeast(reference.compare.length, 15)
      for (const c of reference.compare) {
        const model = Scripted.replies(...c.replies)
        const judge = yield* withModel(
          model,
          Judge.pairwise({
            shuffle: false,
            bothOrders: c.options.both_orders,
            maxAttempts: c.options.max_retries,
            systemPrompt: "S"
          })
        )
        const exit = yield* Effect.exit(judge.compare("first", "second"))
        if (c.outcome.ok) {
          if (Exit.isFailure(exit)) assert.fail(`${c.name}: ${String(exit.cause)}`)
          const verdict = exit.value
          assert.strictEqual(verdict.winner, c.outcome.winner, c.name)
          assert.strictEqual(verdict.scoreA ?? null, c.outcome.score_a, c.name)
          assert.strictEqual(verdict.scoreB ?? null, c.outcome.score_b, c.name)
          assert.deepStrictEqual(verdict.orders, c.outcome.orders, c.name)
          assert.deepStrictEqual(verdict.orderWinners, c.outcome.order_winners, c.name)
          assert.strictEqual(verdict.attempts, c.outcome.attempts, c.name)
          assert.deepStrictEqual(verdict.replies, c.outcome.raw, c.name)
          assert.isUndefined(verdict.principle)
        } else {
          const failure = failureOf(exit)
          assert.strictEqual(failure.attempts, c.outcome.attempts, c.name)
          assert.strictEqual(failure.judge, "pairwise")
        }
        // The same calls, each a longer conversation: the unreadable reply echoed, then a user turn.
        const requests = model.prompts.map((p) =>
          (Scripted.toOpenAi(p) as ReadonlyArray<{ role: string; content: unknown }>).map((m) => ({
            role: m.role,
            content: m.role === "assistant" ? m.content : null
          }))
        )
        assert.deepStrictEqual(requests, c.requests as typeof requests, c.name)
      }
    }).pipe(quiet))

  it.effect("JudgeFailure carries the attempts, the last reason and the replies; its message names them", () =>
    Effect.gen(function*() {
      const judge = yield* withModel(
        Scripted.replies("no verdict", "{\"winner\": \"C\"}"),
        Judge.pairwise({ shuffle: false, maxAttempts: 2 })
      )
      const failure = failureOf(yield* Effect.exit(judge.compare("x", "y")))
      assert.strictEqual(failure._tag, "JudgeFailure")
      assert.strictEqual(failure.attempts, 2)
      assert.deepStrictEqual(failure.replies, ["no verdict", "{\"winner\": \"C\"}"])
      assert.strictEqual(failure.reason, "\"winner\" is \"C\", not \"A\", \"B\" or \"tie\"")
      assert.strictEqual(
        failure.message,
        "the pairwise judge gave no verdict it could read in 2 attempt(s): \"winner\" is \"C\", not \"A\", \"B\" or \"tie\""
      )
      // it crosses boundaries as data
      const encoded = Schema.encodeSync(Judge.JudgeFailure)(failure)
      assert.deepStrictEqual(Schema.decodeUnknownSync(Judge.JudgeFailure)(encoded), failure)
    }).pipe(quiet))

  it.effect("the corrective turn says what was wrong with the reply", () =>
    Effect.gen(function*() {
      const model = Scripted.replies("{\"winner\": \"maybe\"}", "{\"winner\": \"B\"}")
      const judge = yield* withModel(model, Judge.pairwise({ shuffle: false }))
      const verdict = yield* judge.compare("x", "y")
      assert.strictEqual(verdict.winner, "b")
      const second = Scripted.toOpenAi(model.prompts[1]!) as ReadonlyArray<{ role: string; content: unknown }>
      assert.deepStrictEqual(second.map((m) => m.role), ["system", "user", "assistant", "user"])
      assert.strictEqual(second[2]!.content, "{\"winner\": \"maybe\"}")
      const corrective = JSON.stringify(second[3]!.content)
      assert.include(corrective, "\\\"winner\\\" is \\\"maybe\\\"")
      assert.include(corrective, "{\\\"winner\\\": \\\"A\\\"}")
    }).pipe(quiet))

  it.effect("a failed model call fails the comparison at once, untouched (no retry)", () =>
    Effect.gen(function*() {
      const error = new AiError.UnknownError({ module: "Test", method: "generateText", description: "boom" })
      const model = Scripted.scripted(() => Effect.fail(error))
      const judge = yield* withModel(model, Judge.pairwise())
      const exit = yield* Effect.exit(judge.compare("x", "y"))
      if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") {
        assert.fail(`expected the model's error, got ${String(exit)}`)
      }
      const failed = exit.cause.error as AiError.UnknownError
      assert.strictEqual(failed._tag, "UnknownError")
      assert.strictEqual(failed.description, "boom")
      assert.strictEqual(model.prompts.length, 1)
    }))

  it.effect("a candidate image that is not base64 is an EncodeError, before any call", () =>
    Effect.gen(function*() {
      const model = Scripted.replies("{\"winner\": \"A\"}")
      const judge = yield* withModel(model, Judge.pairwise())
      const bad = [Message.user("Draw."), Message.assistant([Block.image("not base64!", "image/png")])]
      const exit = yield* Effect.exit(judge.compare(bad, "text"))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit) && exit.cause._tag === "Fail") {
        assert.strictEqual(exit.cause.error._tag, "UnsupportedBlock")
        assert.include(exit.cause.error.message, "not canonical base64")
      }
      assert.strictEqual(model.prompts.length, 0)
    }))

  it.effect("confidence is clamped and turned into the winner's soft score", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, number | undefined, number | undefined]> = [
        ["{\"winner\": \"A\", \"confidence\": 7}", 1, 0],
        ["{\"winner\": \"B\", \"confidence\": 7}", 0, 1],
        ["{\"winner\": \"B\", \"confidence\": -1}", 1, 0],
        ["{\"winner\": \"tie\", \"confidence\": 0.9}", 0.5, 0.5],
        ["{\"winner\": \"A\", \"confidence\": \"high\"}", undefined, undefined]
      ]
      for (const [reply, a, b] of cases) {
        const judge = yield* withModel(Scripted.replies(reply), Judge.pairwise({ shuffle: false }))
        const verdict = yield* judge.compare("x", "y")
        assert.strictEqual(verdict.scoreA, a, reply)
        assert.strictEqual(verdict.scoreB, b, reply)
        if (a !== undefined) {
          assert.isAtLeast(verdict.scoreA!, 0)
          assert.isAtMost(verdict.scoreA!, 1)
        }
      }
    }))

  it.effect("bothOrders: the judge sees both presentations; a disagreement is a tie", () =>
    Effect.gen(function*() {
      // A judge that always prefers whatever it is shown first: order-sensitive on every pair.
      const model = Scripted.replies("{\"winner\": \"A\"}", "{\"winner\": \"A\"}")
      const judge = yield* withModel(model, Judge.pairwise({ bothOrders: true }))
      const verdict = yield* judge.compare("alpha", "beta")
      assert.strictEqual(verdict.winner, "tie")
      assert.deepStrictEqual(verdict.orders, ["ab", "ba"])
      assert.deepStrictEqual(verdict.orderWinners, ["a", "b"])
      const shown = model.prompts.map((p) => JSON.stringify(Scripted.toOpenAi(p)))
      assert.isBelow(shown[0]!.indexOf("alpha"), shown[0]!.indexOf("beta"))
      assert.isBelow(shown[1]!.indexOf("beta"), shown[1]!.indexOf("alpha"))
    }))

  it.effect("a shuffled presentation is mapped back: the verdict names the caller's candidate", () =>
    Effect.gen(function*() {
      // The model picks whichever candidate says "good", wherever it is shown.
      const model = Scripted.scripted((_, prompt) => {
        const text = JSON.stringify(Scripted.toOpenAi(prompt))
        return text.indexOf("good") < text.indexOf("bad") ? "{\"winner\": \"A\"}" : "{\"winner\": \"B\"}"
      })
      const judge = yield* withModel(model, Judge.pairwise({ seed: 1 }))
      const orders = new Set<string>()
      for (let k = 0; k < 30; k++) {
        const verdict = yield* judge.compare("good", "bad")
        assert.strictEqual(verdict.winner, "a")
        orders.add(verdict.orders[0]!)
        const reverse = yield* judge.compare("bad", "good")
        assert.strictEqual(reverse.winner, "b")
      }
      assert.deepStrictEqual([...orders].sort(), ["ab", "ba"])
    }))
})

// -----------------------------------------------------------------------------
// seeded draws
// -----------------------------------------------------------------------------

const constitution = ["Be correct.", "Be kind.", "Be brief.", "Be complete."]

/** Orders and principles of `n` comparisons by a fresh judge. */
const draws = (options: Judge.PairwiseOptions, n: number) =>
  withModel(
    Scripted.replies(...Array.from({ length: n }, () => "{\"winner\": \"A\"}")),
    Effect.gen(function*() {
      const judge = yield* Judge.pairwise(options)
      const out: Array<string> = []
      for (let k = 0; k < n; k++) {
        const verdict = yield* judge.compare("x", "y")
        out.push(`${verdict.orders.join()}|${verdict.principle}`)
      }
      return out
    })
  )

describe("Judge: seeded draws", () => {
  it.effect("the same seed draws the same presentations and principles; another seed does not", () =>
    Effect.gen(function*() {
      const first = yield* draws({ seed: 42, principles: constitution }, 40)
      const again = yield* draws({ seed: 42, principles: constitution }, 40)
      const other = yield* draws({ seed: 43, principles: constitution }, 40)
      assert.deepStrictEqual(again, first)
      assert.notDeepEqual(other, first)
      // every principle and both orders are drawn
      assert.strictEqual(new Set(first.map((d) => d.split("|")[1])).size, constitution.length)
      assert.strictEqual(new Set(first.map((d) => d.split("|")[0])).size, 2)
    }))

  it.effect("a given principle is used as is, and nothing is drawn for it", () =>
    Effect.gen(function*() {
      const model = Scripted.replies("{\"winner\": \"A\"}")
      const judge = yield* withModel(model, Judge.pairwise({ principles: constitution, shuffle: false }))
      const verdict = yield* judge.compare("x", "y", { principle: "Only this: {principle}" })
      assert.strictEqual(verdict.principle, "Only this: {principle}")
      const system = (Scripted.toOpenAi(model.prompts[0]!)[0] as { content: string }).content
      assert.include(system, "Only this: {principle}")
    }))

  it.effect("a seeded ranking draws the same under any latency and concurrency", () =>
    Effect.gen(function*() {
      const run = (latency: (i: number) => number, concurrency: number) =>
        Effect.gen(function*() {
          const model = Scripted.scripted((i) =>
            Effect.as(Effect.sleep(Duration.millis(latency(i))), "{\"winner\": \"A\"}")
          )
          const ranked = yield* Judge.rank(["w", "x", "y", "z", "v"], { concurrency }).pipe(
            Effect.provide(Judge.layerPairwise({ seed: "group-7", principles: constitution })),
            Effect.provideServiceEffect(LanguageModel.LanguageModel, model.model),
            Effect.fork
          )
          yield* TestClock.adjust(Duration.seconds(60))
          const result = yield* ranked.await.pipe(Effect.flatten)
          return result.comparisons.map((c) => `${c.i}-${c.j}:${c.verdict.orders.join()}:${c.verdict.principle}`)
        })
      const steady = yield* run(() => 10, 1)
      const jittery = yield* run((i) => (i * 7919) % 23, 4)
      const wide = yield* run((i) => 30 - i, 10)
      assert.strictEqual(steady.length, 10)
      assert.deepStrictEqual(jittery, steady)
      assert.deepStrictEqual(wide, steady)
    }))
})

// -----------------------------------------------------------------------------
// groups
// -----------------------------------------------------------------------------

/** What the judge was shown as each candidate: the text after each `<candidate_...>` tag. */
const shown = (prompt: Parameters<Scripted.Script>[1]): Record<string, string> => {
  const user = Scripted.toOpenAi(prompt)[1] as { content: ReadonlyArray<{ text?: string }> }
  const out: Record<string, string> = {}
  user.content.forEach((part, k) => {
    const tag = /^<(candidate_\w+)>$/.exec(part.text ?? "")?.[1]
    if (tag !== undefined) out[tag] = user.content[k + 1]?.text ?? ""
  })
  return out
}

/** A model that prefers the candidate with the higher number in it. */
const numbersModel = () =>
  Scripted.scripted((_, prompt) => {
    const { candidate_a, candidate_b } = shown(prompt)
    const a = Number(/\d+/.exec(candidate_a ?? "")?.[0])
    const b = Number(/\d+/.exec(candidate_b ?? "")?.[0])
    return a === b ? "{\"winner\": \"tie\"}" : a > b ? "{\"winner\": \"A\"}" : "{\"winner\": \"B\"}"
  })

describe("Judge: groups", () => {
  it.effect("rank and scoreGroup rank a group with the judge in context", () =>
    Effect.gen(function*() {
      const candidates = ["3", "9", "1", "5"]
      const ranked = yield* Judge.rank(candidates, { aggregator: "rank" })
      assert.deepStrictEqual(ranked.scores, [1 - 2 / 3, 1, 0, 1 - 1 / 3])
      assert.strictEqual(ranked.comparisons.length, Ranking.cost("round_robin", 4))
      const scores = yield* Judge.scoreGroup(
        candidates.map((n) => ({ messages: [Message.assistant(`My answer: ${n}`)], metadata: { id: n } })),
        { topology: "knockout", seed: 3 }
      )
      assert.strictEqual(scores.length, 4)
      const best = scores[1]!
      assert.strictEqual(best.reward, 1)
      assert.deepStrictEqual(best.metadata?.["topology"], "knockout")
      const games = best.metadata?.["games"] as ReadonlyArray<{ result: string }>
      assert.isTrue(games.every((g) => g.result === "win"))
      const played = scores.reduce((sum, s) => sum + (s.metadata?.["games"] as ReadonlyArray<unknown>).length, 0)
      assert.strictEqual(played, 2 * Ranking.cost("knockout", 4))
    }).pipe(
      Effect.provide(Judge.layerPairwise({ seed: 1 })),
      Effect.provideServiceEffect(LanguageModel.LanguageModel, numbersModel().model)
    ))

  it.effect("a judge that never gives a verdict fails the group with JudgeFailure and scores nothing", () =>
    Effect.gen(function*() {
      const model = Scripted.scripted(() => "I would rather not say.")
      const exit = yield* Effect.exit(
        Judge.scoreGroup([
          { messages: [Message.assistant("a")], metadata: null },
          { messages: [Message.assistant("b")], metadata: null }
        ]).pipe(
          Effect.provide(Judge.layerPairwise({ maxAttempts: 2 })),
          Effect.provideServiceEffect(LanguageModel.LanguageModel, model.model)
        )
      )
      const failure = failureOf(exit)
      assert.strictEqual(failure.attempts, 2)
      assert.strictEqual(model.prompts.length, 2)
    }).pipe(quiet))
})

describe("Judge.groupwise", () => {
  it.effect("shows the candidates shuffled and returns the scores in input order", () =>
    Effect.gen(function*() {
      // The model scores each candidate by the number in it: 0.1 per unit.
      const model = Scripted.scripted((_, prompt) => {
        const seen = shown(prompt)
        const scores = Object.keys(seen).sort().map((tag) => Number(seen[tag]) / 10)
        return `Scores follow.\n{"scores": [${scores.join(", ")}]}`
      })
      const judge = yield* withModel(model, Judge.groupwise({ seed: 5 }))
      const result = yield* judge.score(["3", "7", "1", "9", "5"])
      assert.deepStrictEqual(result.scores, [0.3, 0.7, 0.1, 0.9, 0.5])
      assert.notDeepEqual(result.order, [0, 1, 2, 3, 4])
      assert.deepStrictEqual([...result.order].sort(), [0, 1, 2, 3, 4])
      assert.strictEqual(result.attempts, 1)
      const system = (Scripted.toOpenAi(model.prompts[0]!)[0] as { content: string }).content
      assert.include(system, "<candidate_5>")
      assert.notInclude(system, "{n}")
    }))

  it.effect("an empty group makes no call; a wrong count is asked again, then fails", () =>
    Effect.gen(function*() {
      const model = Scripted.replies("{\"scores\": [1]}", "{\"scores\": [1, 0, 2]}", "{\"scores\": []}")
      const judge = yield* withModel(model, Judge.groupwise({ shuffle: false }))
      assert.deepStrictEqual((yield* judge.score([])).scores, [])
      assert.strictEqual(model.prompts.length, 0)
      const failure = failureOf(yield* Effect.exit(judge.score(["a", "b"])))
      assert.strictEqual(failure.judge, "groupwise")
      assert.strictEqual(failure.attempts, 3)
      assert.include(failure.reason, "exactly 2 numbers")
      assert.strictEqual(model.prompts.length, 3)
    }).pipe(quiet))

  it.effect("the accessor uses the judge in context", () =>
    Effect.gen(function*() {
      const result = yield* Judge.score(["a", "b"])
      assert.deepStrictEqual(result.scores, [0.25, 0.75])
      assert.deepStrictEqual(result.order, [0, 1])
    }).pipe(
      Effect.provide(Judge.layerGroupwise({ shuffle: false })),
      Effect.provide(Layer.effect(LanguageModel.LanguageModel, Scripted.replies("{\"scores\": [0.25, 0.75]}").model))
    ))
})
