/**
 * Ranking a group of candidates by pairwise comparisons: which pairs are compared (the topology),
 * and how the verdicts become one score per candidate (the aggregator). This is how a preference
 * reward scores a group of rollouts of one task (`/score_group`): trainers that normalise within the
 * group need only the ordering, and win rates spread the scores where pointwise judge scores bunch.
 *
 * - Topologies: `round_robin` compares every pair, N(N-1)/2 comparisons; `knockout` runs an
 *   elimination bracket, N-1 comparisons in about log2(N) rounds run one after the other (a tie
 *   eliminates one side at random, from the seeded generator). Comparisons run concurrently, at
 *   most `concurrency` at a time (within a round, for `knockout`).
 * - Aggregators, as the reference computes them: `winrate` (wins over games, a tie half a win for
 *   each side, a candidate without games 0.5) and `rank` (the win rates reduced to their order:
 *   equal win rates share a score, the scores evenly spaced in [0, 1], best 1, all equal 0.5).
 *   Beyond the reference, `bradley_terry`: maximum-likelihood strengths ({@link bradleyTerry}).
 *
 * The comparator is any function that compares two candidates and says which won, so a model judge
 * (`openreward-effect/Judge`), a rule or a human label all rank the same way. A failed comparison
 * fails the ranking: a group with a broken judge scores nothing.
 *
 * @example
 * ```ts
 * import { Ranking } from "openreward-effect"
 * import * as Effect from "effect/Effect"
 *
 * // A comparator without a model: the longer answer wins.
 * const longer = (a: string, b: string) =>
 *   Effect.succeed({ winner: a.length > b.length ? "a" as const : a.length < b.length ? "b" as const : "tie" as const })
 *
 * const ranked = Effect.runSync(Ranking.rank(["ok", "a fuller answer", "fine", "okay"], longer))
 * console.log(ranked.scores, ranked.comparisons.length)
 * console.log(Ranking.aggregate(ranked.comparisons, 4, "rank"))
 * ```
 *
 * ```text output
 * [ 0, 1, 0.5, 0.5 ] 6
 * [ 0, 1, 0.5, 0.5 ]
 * ```
 *
 * @since 0.2.0
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"

/**
 * Which candidate of a pair won: `a` (the first), `b` (the second), or `tie`.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Winner = Schema.Literal("a", "b", "tie").annotations({ identifier: "Winner" })

/**
 * @category models
 * @since 0.2.0
 */
export type Winner = typeof Winner.Type

/**
 * What an aggregator needs of a verdict: who won.
 *
 * @category models
 * @since 0.2.0
 */
export interface Outcome {
  readonly winner: Winner
}

/**
 * One judged pair of a group: candidates `i` and `j` by index, `a` meaning `i` won and `b` that `j`
 * did. `verdict` is whatever the comparator returned.
 *
 * @category models
 * @since 0.2.0
 */
export interface Comparison<V extends Outcome = Outcome> {
  readonly i: number
  readonly j: number
  readonly verdict: V
}

/**
 * Which pairs are compared: `round_robin` (every pair) or `knockout` (an elimination bracket).
 *
 * @category models
 * @since 0.2.0
 */
export type Topology = "round_robin" | "knockout"

/**
 * How verdicts become scores: `winrate`, `rank` or `bradley_terry`.
 *
 * @category models
 * @since 0.2.0
 */
export type Aggregator = "winrate" | "rank" | "bradley_terry"

/**
 * How many comparisons a topology makes for `n` candidates: N(N-1)/2 for `round_robin`, N-1 for
 * `knockout` (none for fewer than two candidates).
 *
 * @category getters
 * @since 0.2.0
 */
export const cost = (topology: Topology, n: number): number =>
  n < 2 ? 0 : topology === "round_robin" ? (n * (n - 1)) / 2 : n - 1

/**
 * Every pair `(i, j)` with `i < j`, in order: the `round_robin` schedule.
 *
 * @category constructors
 * @since 0.2.0
 */
export const pairs = (n: number): ReadonlyArray<readonly [number, number]> => {
  const out: Array<readonly [number, number]> = []
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out.push([i, j])
  return out
}

// -----------------------------------------------------------------------------
// aggregators
// -----------------------------------------------------------------------------

/** Indices outside the group are a programming error, as in the reference (an `IndexError` there). */
const checkIndices = (comparisons: ReadonlyArray<Comparison>, n: number, caller: string): void => {
  for (const { i, j } of comparisons) {
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < 0 || i >= n || j >= n) {
      throw new RangeError(`Ranking.${caller}: comparison (${i}, ${j}) is outside a group of ${n}`)
    }
  }
}

const tally = (comparisons: ReadonlyArray<Comparison>, n: number) => {
  checkIndices(comparisons, n, "winrates")
  const wins = new Array<number>(n).fill(0)
  const games = new Array<number>(n).fill(0)
  for (const { i, j, verdict } of comparisons) {
    games[i]! += 1
    games[j]! += 1
    if (verdict.winner === "a") wins[i]! += 1
    else if (verdict.winner === "b") wins[j]! += 1
    else {
      wins[i]! += 0.5
      wins[j]! += 0.5
    }
  }
  return { wins, games }
}

/**
 * Wins over games for each of `n` candidates, a tie counting half a win for each side; a candidate
 * without games scores 0.5. The reference's `winrate`, to the bit. Every index must be below `n`
 * (a `RangeError` otherwise: a programming error).
 *
 * @category aggregators
 * @since 0.2.0
 */
export const winrates = (comparisons: ReadonlyArray<Comparison>, n: number): ReadonlyArray<number> => {
  const { games, wins } = tally(comparisons, n)
  return wins.map((w, i) => games[i]! > 0 ? w / games[i]! : 0.5)
}

/**
 * Scores reduced to their order: equal scores share a value, the distinct values are evenly spaced
 * in [0, 1] (the best 1, the worst 0), and when all are equal every one is 0.5. Over win rates this
 * is the reference's `rank`.
 *
 * @category aggregators
 * @since 0.2.0
 */
export const ranks = (scores: ReadonlyArray<number>): ReadonlyArray<number> => {
  const distinct = Array.from(new Set(scores)).sort((x, y) => y - x)
  if (distinct.length <= 1) return scores.map(() => 0.5)
  const position = new Map(distinct.map((s, k) => [s, k]))
  return scores.map((s) => 1 - position.get(s)! / (distinct.length - 1))
}

/**
 * Options of {@link bradleyTerry}.
 *
 * @category models
 * @since 0.2.0
 */
export interface BradleyTerryOptions {
  /**
   * Virtual games each candidate plays, half won, against a reference player of strength 1
   * (default 1). It keeps the estimate finite when a candidate wins or loses every game, and pulls
   * candidates with few games toward the middle. Must be positive (a `RangeError` otherwise).
   */
  readonly prior?: number | undefined
  /** Stop when no log-strength moves more than this in an iteration (default 1e-10). */
  readonly tolerance?: number | undefined
  /** Stop after this many iterations at the latest (default 100). */
  readonly maxIterations?: number | undefined
}

/**
 * Details of a {@link bradleyTerryFit}.
 *
 * @category models
 * @since 0.2.0
 */
export interface BradleyTerryFit {
  /** One score per candidate: the chance of beating a candidate of the group's mean strength. */
  readonly scores: ReadonlyArray<number>
  /** The strengths, scaled so that the reference player of the prior is 1. */
  readonly strengths: ReadonlyArray<number>
  readonly iterations: number
  /** Whether the tolerance was met within `maxIterations`. */
  readonly converged: boolean
}

/** The logistic function. */
const sigmoid = (x: number): number => x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x))

/** `log(e^a + e^b)` without overflow. */
const logAddExp = (a: number, b: number): number => Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b)))

/** Solve `A x = b` for a symmetric positive definite `A` (row-major, n by n) by Cholesky. */
const solve = (matrix: ReadonlyArray<number>, rhs: ReadonlyArray<number>, n: number): Array<number> => {
  const l = new Array<number>(n * n).fill(0)
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = matrix[i * n + j]!
      for (let k = 0; k < j; k++) sum -= l[i * n + k]! * l[j * n + k]!
      l[i * n + j] = i === j ? Math.sqrt(Math.max(sum, Number.MIN_VALUE)) : sum / l[j * n + j]!
    }
  }
  const y = new Array<number>(n)
  for (let i = 0; i < n; i++) {
    let sum = rhs[i]!
    for (let k = 0; k < i; k++) sum -= l[i * n + k]! * y[k]!
    y[i] = sum / l[i * n + i]!
  }
  const x = new Array<number>(n)
  for (let i = n - 1; i >= 0; i--) {
    let sum = y[i]!
    for (let k = i + 1; k < n; k++) sum -= l[k * n + i]! * x[k]!
    x[i] = sum / l[i * n + i]!
  }
  return x
}

/**
 * The Bradley-Terry model fitted to the comparisons by maximum likelihood: candidate `i` beats `j`
 * with probability `p_i / (p_i + p_j)`. A tie counts as half a win for each side; a comparison of a
 * candidate with itself carries no information and is left out.
 *
 * With the prior (each candidate plays `prior` virtual games, half won, against a reference player
 * of strength 1) the log-likelihood in the log-strengths `log p_i` is strictly concave, so it has
 * exactly one maximum. The fit is Newton's method on the log-strengths from all 0, each step halved
 * until the likelihood rises (a backtracking line search), which converges to that maximum, and
 * quadratically near it; it stops when the Newton step moves no `log p_i` more than `tolerance` (or
 * after `maxIterations`). Each score is `p_i / (p_i + g)`, `g` the geometric mean of the strengths:
 * the probability of beating an average member of the group, in (0, 1), 0.5 for everyone when
 * nothing tells them apart.
 *
 * @category aggregators
 * @since 0.2.0
 */
export const bradleyTerryFit = (
  comparisons: ReadonlyArray<Comparison>,
  n: number,
  options?: BradleyTerryOptions
): BradleyTerryFit => {
  const prior = options?.prior ?? 1
  const tolerance = options?.tolerance ?? 1e-10
  const maxIterations = options?.maxIterations ?? 100
  if (!(prior > 0) || !Number.isFinite(prior)) throw new RangeError("Ranking.bradleyTerry: prior must be positive")
  checkIndices(comparisons, n, "bradleyTerry")
  // wins[i]: wins (ties as halves) plus the prior's half; games[i * n + j]: games between i and j
  const wins = new Array<number>(n).fill(prior / 2)
  const games = new Array<number>(n * n).fill(0)
  for (const { i, j, verdict } of comparisons) {
    if (i === j) continue
    games[i * n + j]! += 1
    games[j * n + i]! += 1
    if (verdict.winner === "a") wins[i]! += 1
    else if (verdict.winner === "b") wins[j]! += 1
    else {
      wins[i]! += 0.5
      wins[j]! += 0.5
    }
  }
  const logLikelihood = (theta: ReadonlyArray<number>): number => {
    let sum = 0
    for (let i = 0; i < n; i++) {
      sum += wins[i]! * theta[i]! - prior * logAddExp(theta[i]!, 0)
      for (let j = i + 1; j < n; j++) {
        const g = games[i * n + j]!
        if (g !== 0) sum -= g * logAddExp(theta[i]!, theta[j]!)
      }
    }
    return sum
  }
  let theta = new Array<number>(n).fill(0)
  let current = logLikelihood(theta)
  let iterations = 0
  let converged = n === 0
  while (!converged && iterations < maxIterations) {
    iterations++
    // gradient, and the negated Hessian (a graph Laplacian plus the prior's positive diagonal)
    const gradient = new Array<number>(n)
    const curvature = new Array<number>(n * n).fill(0)
    for (let i = 0; i < n; i++) {
      const s0 = sigmoid(theta[i]!)
      let g = wins[i]! - prior * s0
      let diagonal = prior * s0 * (1 - s0)
      for (let j = 0; j < n; j++) {
        const count = games[i * n + j]!
        if (count === 0) continue
        const s = sigmoid(theta[i]! - theta[j]!)
        g -= count * s
        const w = count * s * (1 - s)
        diagonal += w
        curvature[i * n + j] = -w
      }
      gradient[i] = g
      curvature[i * n + i] = diagonal
    }
    const step = solve(curvature, gradient, n)
    // The Newton step itself measures the distance to the maximum (quadratic convergence near it).
    const size = step.reduce((max, d) => Math.max(max, Math.abs(d)), 0)
    // Halve the step while the likelihood falls (beyond rounding: near the top it is flat).
    const slack = 1e-12 * (1 + Math.abs(current))
    let scale = 1
    let next = theta.map((t, i) => t + step[i]!)
    let value = logLikelihood(next)
    while (!(value >= current - slack) && scale > 1e-12) {
      scale /= 2
      next = theta.map((t, i) => t + scale * step[i]!)
      value = logLikelihood(next)
    }
    theta = next
    current = Math.max(current, value)
    converged = size <= tolerance
  }
  const meanLog = n === 0 ? 0 : theta.reduce((sum, t) => sum + t, 0) / n
  return {
    scores: theta.map((t) => sigmoid(t - meanLog)),
    strengths: theta.map(Math.exp),
    iterations,
    converged
  }
}

/**
 * The scores of {@link bradleyTerryFit}.
 *
 * @category aggregators
 * @since 0.2.0
 */
export const bradleyTerry = (
  comparisons: ReadonlyArray<Comparison>,
  n: number,
  options?: BradleyTerryOptions
): ReadonlyArray<number> => bradleyTerryFit(comparisons, n, options).scores

/**
 * One score per candidate from the comparisons, by the named aggregator: `winrate`
 * ({@link winrates}), `rank` ({@link ranks} of the win rates) or `bradley_terry`
 * ({@link bradleyTerry}). `winrate` and `rank` equal the reference's `aggregate`.
 *
 * @category aggregators
 * @since 0.2.0
 */
export const aggregate = (
  comparisons: ReadonlyArray<Comparison>,
  n: number,
  aggregator: Aggregator
): ReadonlyArray<number> => {
  switch (aggregator) {
    case "winrate":
      return winrates(comparisons, n)
    case "rank":
      return ranks(winrates(comparisons, n))
    case "bradley_terry":
      return bradleyTerry(comparisons, n)
  }
}

// -----------------------------------------------------------------------------
// ranking
// -----------------------------------------------------------------------------

/**
 * Options of {@link rank}.
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  /** Default `round_robin`. */
  readonly topology?: Topology | undefined
  /** Default `winrate`. */
  readonly aggregator?: Aggregator | undefined
  /** At most this many comparisons at once (default 8). */
  readonly concurrency?: number | undefined
  /**
   * Seeds the `knockout` bracket's draw and its tie-breaks (any value; equal seeds, equal
   * brackets). Without it they come from the `Random` service in context.
   */
  readonly seed?: unknown
}

/**
 * A ranked group: one score per candidate, index-aligned, and every comparison made.
 *
 * @category models
 * @since 0.2.0
 */
export interface Ranked<V extends Outcome = Outcome> {
  readonly scores: ReadonlyArray<number>
  readonly comparisons: ReadonlyArray<Comparison<V>>
}

const comparePairs = <C, V extends Outcome, E, R>(
  candidates: ReadonlyArray<C>,
  compare: (a: C, b: C) => Effect.Effect<V, E, R>,
  schedule: ReadonlyArray<readonly [number, number]>,
  concurrency: number
): Effect.Effect<Array<Comparison<V>>, E, R> =>
  Effect.forEach(
    schedule,
    ([i, j]) => Effect.map(compare(candidates[i]!, candidates[j]!), (verdict): Comparison<V> => ({ i, j, verdict })),
    { concurrency: Math.max(1, Math.floor(concurrency)) }
  )

/**
 * Rank a group: compare the pairs the topology picks with `compare` (which says whether its first
 * or second argument won), then aggregate. A group of one scores 0.5, an empty group nothing; the
 * first failed comparison fails the ranking and the comparisons still running are interrupted.
 * Comparisons start in schedule order, so a comparator that draws from a seeded generator as it
 * starts (as the judges do) draws the same for the same group.
 *
 * @category ranking
 * @since 0.2.0
 */
export const rank = <C, V extends Outcome, E, R>(
  candidates: ReadonlyArray<C>,
  compare: (a: C, b: C) => Effect.Effect<V, E, R>,
  options?: Options
): Effect.Effect<Ranked<V>, E, R> =>
  Effect.gen(function*() {
    const n = candidates.length
    if (n === 0) return { scores: [], comparisons: [] }
    if (n === 1) return { scores: [0.5], comparisons: [] }
    const concurrency = options?.concurrency ?? 8
    const aggregator = options?.aggregator ?? "winrate"
    let comparisons: Array<Comparison<V>>
    if ((options?.topology ?? "round_robin") === "round_robin") {
      comparisons = yield* comparePairs(candidates, compare, pairs(n), concurrency)
    } else {
      const random = options?.seed === undefined ? yield* Effect.random : Random.make(options.seed)
      let active = Chunk.toReadonlyArray(yield* random.shuffle(Array.from({ length: n }, (_, k) => k)))
      comparisons = []
      while (active.length > 1) {
        const schedule: Array<readonly [number, number]> = []
        for (let k = 0; k + 1 < active.length; k += 2) schedule.push([active[k]!, active[k + 1]!])
        const bye = active.length % 2 === 1 ? [active[active.length - 1]!] : []
        const round = yield* comparePairs(candidates, compare, schedule, concurrency)
        comparisons.push(...round)
        const winners: Array<number> = []
        for (const { i, j, verdict } of round) {
          if (verdict.winner === "a") winners.push(i)
          else if (verdict.winner === "b") winners.push(j)
          // A bracket needs a survivor: a tie sends one side on at random, never by position.
          else winners.push((yield* random.nextBoolean) ? i : j)
        }
        active = [...winners, ...bye]
      }
    }
    return { scores: aggregate(comparisons, n, aggregator), comparisons }
  })
