/**
 * Ranking: the aggregators against the reference's `aggregate` on its own outputs
 * (test/fixtures/judging/reference.json), properties of every aggregator, and the topologies.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Ranking from "openreward-effect/Ranking"

interface AggregateCase {
  readonly n: number
  readonly comparisons: ReadonlyArray<readonly [number, number, Ranking.Winner]>
  readonly winrate: ReadonlyArray<number>
  readonly rank: ReadonlyArray<number>
}

const reference: { readonly aggregate: ReadonlyArray<AggregateCase> } = JSON.parse(
  fs.readFileSync(path.join(__dirname, "fixtures", "judging", "reference.json"), "utf8")
)

const comparisonsOf = (list: ReadonlyArray<readonly [number, number, Ranking.Winner]>) =>
  list.map(([i, j, winner]) => ({ i, j, verdict: { winner } }))

describe("Ranking aggregators against the reference", () => {
  it("winrate and rank equal the reference's on every recorded comparison list, to the bit", () => {
    assert.isAtLeast(reference.aggregate.length, 70)
    for (const c of reference.aggregate) {
      const comparisons = comparisonsOf(c.comparisons)
      assert.deepStrictEqual(Ranking.winrates(comparisons, c.n), c.winrate, JSON.stringify(c.comparisons))
      assert.deepStrictEqual(Ranking.aggregate(comparisons, c.n, "winrate"), c.winrate)
      assert.deepStrictEqual(Ranking.aggregate(comparisons, c.n, "rank"), c.rank, JSON.stringify(c.comparisons))
    }
  })

  it("the reference's rules, by example", () => {
    const tie = comparisonsOf([[0, 1, "tie"]])
    assert.deepStrictEqual(Ranking.winrates(tie, 2), [0.5, 0.5]) // a tie is half a win each
    assert.deepStrictEqual(Ranking.winrates([], 3), [0.5, 0.5, 0.5]) // no games: 0.5
    assert.deepStrictEqual(Ranking.ranks([0.2, 0.9, 0.2, 0.5]), [0, 1, 0, 0.5]) // shared, evenly spaced
    assert.deepStrictEqual(Ranking.ranks([0.3, 0.3]), [0.5, 0.5]) // all equal
    assert.deepStrictEqual(Ranking.ranks([]), [])
    assert.throws(() => Ranking.winrates(comparisonsOf([[0, 3, "a"]]), 3), RangeError)
  })
})

// -----------------------------------------------------------------------------
// properties
// -----------------------------------------------------------------------------

const winner = FastCheck.constantFrom<Ranking.Winner>("a", "b", "tie")

/** A group size and comparisons among its members (no self-comparisons). */
const group = FastCheck.integer({ min: 2, max: 8 }).chain((n) =>
  FastCheck.tuple(
    FastCheck.constant(n),
    FastCheck.array(
      FastCheck.tuple(FastCheck.nat(n - 1), FastCheck.nat(n - 1), winner).filter(([i, j]) => i !== j),
      { maxLength: 40 }
    ).map((list) => list.map(([i, j, w]) => ({ i, j, verdict: { winner: w } })))
  )
)

/** The same comparisons with candidates relabelled by `perm`, sides swapped where `swap` says, reordered. */
const relabel = (
  comparisons: ReadonlyArray<Ranking.Comparison>,
  perm: ReadonlyArray<number>,
  swap: ReadonlyArray<boolean>,
  order: ReadonlyArray<number>
): Array<Ranking.Comparison> => {
  const out = comparisons.map((c, k): Ranking.Comparison => {
    const i = perm[c.i]!
    const j = perm[c.j]!
    if (!swap[k]) return { i, j, verdict: c.verdict }
    const w = c.verdict.winner
    return { i: j, j: i, verdict: { winner: w === "a" ? "b" : w === "b" ? "a" : "tie" } }
  })
  return order.map((k) => out[k]!).concat(out.filter((_, k) => !order.includes(k)))
}

const permuted = group.chain(([n, comparisons]) =>
  FastCheck.tuple(
    FastCheck.constant(n),
    FastCheck.constant(comparisons),
    FastCheck.shuffledSubarray(Array.from({ length: n }, (_, k) => k), { minLength: n, maxLength: n }),
    FastCheck.array(FastCheck.boolean(), { minLength: comparisons.length, maxLength: comparisons.length }),
    FastCheck.shuffledSubarray(comparisons.map((_, k) => k), {
      minLength: comparisons.length,
      maxLength: comparisons.length
    })
  )
)

/** A round robin (each pair `rounds` times) where `order[0]` beats everyone and the rest is random. */
const dominated = FastCheck.integer({ min: 2, max: 7 }).chain((n) =>
  FastCheck.tuple(
    FastCheck.constant(n),
    FastCheck.integer({ min: 1, max: 3 }),
    FastCheck.shuffledSubarray(Array.from({ length: n }, (_, k) => k), { minLength: n, maxLength: n }),
    FastCheck.array(winner, { minLength: 3 * n * n, maxLength: 3 * n * n })
  )
)

/** A round robin (each pair `rounds` times) decided by a hidden total order: `order[0]` is best. */
const transitive = FastCheck.integer({ min: 2, max: 9 }).chain((n) =>
  FastCheck.tuple(
    FastCheck.constant(n),
    FastCheck.integer({ min: 1, max: 3 }),
    FastCheck.shuffledSubarray(Array.from({ length: n }, (_, k) => k), { minLength: n, maxLength: n })
  )
)

const close = (actual: ReadonlyArray<number>, expected: ReadonlyArray<number>, tolerance = 1e-9) => {
  assert.strictEqual(actual.length, expected.length)
  actual.forEach((x, k) => assert.approximately(x, expected[k]!, tolerance))
}

describe("Ranking aggregators: properties", () => {
  it.prop(
    "permutation invariance: relabelling candidates, swapping sides and reordering comparisons permutes the scores",
    [permuted],
    ([[n, comparisons, perm, swap, order]]) => {
      const moved = relabel(comparisons, perm, swap, order)
      for (const aggregator of ["winrate", "rank"] as const) {
        const before = Ranking.aggregate(comparisons, n, aggregator)
        const after = Ranking.aggregate(moved, n, aggregator)
        assert.deepStrictEqual(perm.map((_, k) => after[perm[k]!]!), [...before], aggregator)
      }
      const before = Ranking.bradleyTerry(comparisons, n)
      const after = Ranking.bradleyTerry(moved, n)
      close(perm.map((_, k) => after[perm[k]!]!), before)
    }
  )

  it.prop(
    "a candidate that beats everyone scores highest, by every aggregator",
    [dominated],
    ([[n, rounds, order, coin]]) => {
      const best = order[0]!
      const comparisons: Array<Ranking.Comparison> = []
      let k = 0
      for (let r = 0; r < rounds; r++) {
        for (const [i, j] of Ranking.pairs(n)) {
          const w: Ranking.Winner = i === best ? "a" : j === best ? "b" : coin[k++ % coin.length]!
          comparisons.push({ i, j, verdict: { winner: w } })
        }
      }
      for (const aggregator of ["winrate", "rank", "bradley_terry"] as const) {
        const scores = Ranking.aggregate(comparisons, n, aggregator)
        scores.forEach((s, c) => {
          if (c !== best) assert.isBelow(s, scores[best]!, `${aggregator}: ${JSON.stringify(scores)}`)
        })
      }
    }
  )

  it.prop(
    "Bradley-Terry orders a transitive round robin as winrate does",
    [transitive],
    ([[n, rounds, order]]) => {
      const strength = new Map(order.map((c, k) => [c, n - k]))
      const comparisons: Array<Ranking.Comparison> = []
      for (let r = 0; r < rounds; r++) {
        for (const [i, j] of Ranking.pairs(n)) {
          comparisons.push({ i, j, verdict: { winner: strength.get(i)! > strength.get(j)! ? "a" : "b" } })
        }
      }
      const winrate = Ranking.winrates(comparisons, n)
      const fit = Ranking.bradleyTerryFit(comparisons, n)
      assert.isTrue(fit.converged)
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          if (winrate[i]! > winrate[j]!) assert.isAbove(fit.scores[i]!, fit.scores[j]!)
        }
      }
      // and both put the hidden order's best first
      assert.strictEqual(fit.scores.indexOf(Math.max(...fit.scores)), order[0])
    }
  )

  it.prop("every score is in [0, 1]; Bradley-Terry converges", [group], ([[n, comparisons]]) => {
    for (const aggregator of ["winrate", "rank", "bradley_terry"] as const) {
      for (const s of Ranking.aggregate(comparisons, n, aggregator)) {
        assert.isAtLeast(s, 0)
        assert.isAtMost(s, 1)
      }
    }
    assert.isTrue(Ranking.bradleyTerryFit(comparisons, n).converged)
  })
})

describe("Ranking.bradleyTerry", () => {
  it("is the maximum-likelihood fit: two players, 3 wins to 1", () => {
    // With a vanishing prior, p_a / p_b = 3; the score is the chance of beating the geometric mean.
    const comparisons = comparisonsOf([[0, 1, "a"], [0, 1, "a"], [1, 0, "b"], [0, 1, "b"]])
    const fit = Ranking.bradleyTerryFit(comparisons, 2, { prior: 1e-9, maxIterations: 100000 })
    assert.approximately(fit.strengths[0]! / fit.strengths[1]!, 3, 1e-6)
    close(fit.scores, [Math.sqrt(3) / (Math.sqrt(3) + 1), 1 / (Math.sqrt(3) + 1)], 1e-6)
  })

  it("ties are half wins; nothing to tell apart is 0.5 for all; self-comparisons carry nothing", () => {
    close(Ranking.bradleyTerry(comparisonsOf([[0, 1, "tie"], [1, 2, "tie"]]), 3), [0.5, 0.5, 0.5])
    assert.deepStrictEqual(Ranking.bradleyTerry([], 3), [0.5, 0.5, 0.5])
    assert.deepStrictEqual(Ranking.bradleyTerry([], 0), [])
    close(
      Ranking.bradleyTerry(comparisonsOf([[0, 1, "a"], [2, 2, "a"]]), 3),
      Ranking.bradleyTerry(comparisonsOf([[0, 1, "a"]]), 3)
    )
    // a tie is worth exactly one win and one loss, halved
    close(
      Ranking.bradleyTerry(comparisonsOf([[0, 1, "tie"], [0, 1, "a"]]), 2),
      Ranking.bradleyTerry(comparisonsOf([[0, 1, "a"], [0, 1, "a"], [0, 1, "b"], [0, 1, "a"]]), 2, { prior: 2 })
    )
  })

  it("the prior keeps an unbeaten candidate finite, and a bigger prior pulls scores to the middle", () => {
    const sweep = comparisonsOf([[0, 1, "a"], [0, 2, "a"], [1, 2, "a"]])
    const weak = Ranking.bradleyTerryFit(sweep, 3, { prior: 0.1 })
    const strong = Ranking.bradleyTerryFit(sweep, 3, { prior: 10 })
    assert.isTrue(weak.converged && strong.converged)
    assert.isTrue(weak.strengths.every(Number.isFinite))
    assert.isAbove(weak.scores[0]!, strong.scores[0]!)
    assert.isBelow(weak.scores[2]!, strong.scores[2]!)
    assert.throws(() => Ranking.bradleyTerry(sweep, 3, { prior: 0 }), RangeError)
  })

  it("converges in a few Newton steps even when one candidate sweeps a large group", () => {
    const sweep = Ranking.pairs(64).map(([i, j]) => ({ i, j, verdict: { winner: "a" as const } }))
    const fit = Ranking.bradleyTerryFit(sweep, 64)
    assert.isTrue(fit.converged)
    assert.isAtMost(fit.iterations, 15)
    for (let k = 1; k < 64; k++) assert.isBelow(fit.scores[k]!, fit.scores[k - 1]!)
  })

  it("stops at maxIterations and says it did not converge", () => {
    const fit = Ranking.bradleyTerryFit(comparisonsOf([[0, 1, "a"], [1, 2, "a"]]), 3, { maxIterations: 2 })
    assert.strictEqual(fit.iterations, 2)
    assert.isFalse(fit.converged)
  })
})

// -----------------------------------------------------------------------------
// topologies
// -----------------------------------------------------------------------------

/** The error an exit failed with (the comparisons still running are interrupted beside it). */
const failure = <A, E>(exit: Exit.Exit<A, E>): E | undefined =>
  Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined

/** Higher wins; equal ties. */
const byValue = (a: number, b: number) =>
  Effect.succeed({ winner: a > b ? "a" as const : a < b ? "b" as const : "tie" as const })

describe("Ranking.rank", () => {
  it.effect("round_robin compares every pair once, in order", () =>
    Effect.gen(function*() {
      const ranked = yield* Ranking.rank([4, 1, 3, 2], byValue)
      assert.deepStrictEqual(ranked.comparisons.map((c) => [c.i, c.j]), Ranking.pairs(4).map(([i, j]) => [i, j]))
      assert.strictEqual(ranked.comparisons.length, Ranking.cost("round_robin", 4))
      assert.deepStrictEqual(ranked.scores, [1, 0, 2 / 3, 1 / 3])
    }))

  it.effect("an empty group scores nothing, a group of one 0.5, without comparing", () =>
    Effect.gen(function*() {
      const never = () => Effect.die("no comparison expected")
      assert.deepStrictEqual(yield* Ranking.rank([], never), { scores: [], comparisons: [] })
      for (const topology of ["round_robin", "knockout"] as const) {
        assert.deepStrictEqual(yield* Ranking.rank(["x"], never, { topology }), { scores: [0.5], comparisons: [] })
      }
    }))

  it.effect("knockout: N-1 comparisons, the winner unbeaten, everyone else eliminated once", () =>
    Effect.gen(function*() {
      for (let n = 2; n <= 13; n++) {
        const values = Array.from({ length: n }, (_, k) => (k + Math.floor(n / 2)) % n)
        const ranked = yield* Ranking.rank(values, byValue, { topology: "knockout", seed: n })
        assert.strictEqual(ranked.comparisons.length, Ranking.cost("knockout", n))
        const losses = new Array<number>(n).fill(0)
        for (const { i, j, verdict } of ranked.comparisons) losses[verdict.winner === "a" ? j : i]! += 1
        const champion = values.indexOf(n - 1)
        assert.strictEqual(losses[champion], 0)
        assert.deepStrictEqual(losses.filter((l) => l === 1).length, n - 1)
        assert.strictEqual(ranked.scores[champion], 1)
      }
    }))

  it.effect("knockout: a tie sends one side on at random, either side over seeds", () =>
    Effect.gen(function*() {
      const tie = () => Effect.succeed({ winner: "tie" as const })
      const sides = new Set<string>()
      for (let seed = 0; seed < 40; seed++) {
        // three candidates: the first pair ties, its survivor meets the bye
        const ranked = yield* Ranking.rank(["x", "y", "z"], tie, { topology: "knockout", seed })
        const [first, final] = ranked.comparisons
        assert.strictEqual(ranked.comparisons.length, 2)
        const survivor = final!.i
        assert.isTrue(survivor === first!.i || survivor === first!.j)
        sides.add(survivor === first!.i ? "first" : "second")
      }
      assert.deepStrictEqual([...sides].sort(), ["first", "second"])
    }))

  it.effect("knockout: the same seed draws the same bracket; other seeds draw others", () =>
    Effect.gen(function*() {
      const bracket = (seed: unknown) =>
        Effect.map(
          Ranking.rank(Array.from({ length: 8 }, (_, k) => k), byValue, { topology: "knockout", seed }),
          (r) => JSON.stringify(r.comparisons.map((c) => [c.i, c.j]))
        )
      const first = yield* bracket("seed")
      assert.strictEqual(yield* bracket("seed"), first)
      const others = new Set<string>()
      for (let s = 0; s < 10; s++) others.add(yield* bracket(s))
      assert.isAbove(others.size, 1)
    }))

  it.effect("knockout rounds run one after another; comparisons run at most `concurrency` at once", () =>
    Effect.gen(function*() {
      let running = 0
      let peak = 0
      const log: Array<string> = []
      const slow = (a: number, b: number) =>
        Effect.gen(function*() {
          running++
          peak = Math.max(peak, running)
          log.push(`start ${a}-${b}`)
          yield* Effect.sleep(Duration.millis(10 + a + b))
          running--
          log.push(`end ${a}-${b}`)
          return { winner: a > b ? "a" as const : "b" as const }
        })
      const fiber = yield* Effect.fork(
        Ranking.rank(Array.from({ length: 8 }, (_, k) => k), slow, { topology: "knockout", concurrency: 3, seed: 1 })
      )
      yield* TestClock.adjust(Duration.seconds(10))
      const ranked = yield* Fiber.join(fiber)
      assert.strictEqual(peak, 3)
      assert.strictEqual(ranked.comparisons.length, 7)
      // the final starts after every other comparison ended
      const finalStart = log.indexOf(`start ${ranked.comparisons[6]!.i}-${ranked.comparisons[6]!.j}`)
      assert.strictEqual(log.slice(0, finalStart).filter((e) => e.startsWith("end")).length, 6)

      running = 0
      peak = 0
      const all = yield* Effect.fork(Ranking.rank(Array.from({ length: 6 }, (_, k) => k), slow, { concurrency: 4 }))
      yield* TestClock.adjust(Duration.seconds(10))
      assert.strictEqual((yield* Fiber.join(all)).comparisons.length, 15)
      assert.strictEqual(peak, 4)
    }))

  it.effect("a failed comparison fails the ranking: no scores", () =>
    Effect.gen(function*() {
      const failing = (a: number, b: number) => a + b === 3 ? Effect.fail("judge broke" as const) : byValue(a, b)
      assert.deepStrictEqual(failure(yield* Effect.exit(Ranking.rank([0, 1, 2, 3], failing))), "judge broke")
      const broken = () => Effect.fail("judge broke" as const)
      for (const topology of ["round_robin", "knockout"] as const) {
        const exit = yield* Effect.exit(Ranking.rank([0, 1, 2, 3, 4], broken, { topology, seed: 2 }))
        assert.deepStrictEqual(failure(exit), "judge broke")
      }
    }))

  it("cost: N(N-1)/2 against N-1", () => {
    assert.deepStrictEqual([0, 1, 2, 5, 16].map((n) => Ranking.cost("round_robin", n)), [0, 0, 1, 10, 120])
    assert.deepStrictEqual([0, 1, 2, 5, 16].map((n) => Ranking.cost("knockout", n)), [0, 0, 1, 4, 15])
  })
})
