/**
 * Reading a judge's reply: the last flat JSON object in the text that has a given key, read as the
 * reference reads it (Python's `json.loads`, so `NaN` and `Infinity` are numbers), then the winner,
 * confidence or scores in it. Every rule here is held to the reference's own outcomes on the same
 * replies (test/fixtures/judging/reference.json).
 *
 * @internal
 */
import * as Either from "effect/Either"

/** A flat JSON object: no braces inside, so nested objects are never matched (as in the reference). */
const flatObject = /\{[^{}]*\}/g

const nonFinite: ReadonlyArray<readonly [string, number]> = [
  ["-Infinity", -Infinity],
  ["Infinity", Infinity],
  ["NaN", NaN]
]

/** Stands for a non-finite number while `JSON.parse` reads the text; a string no judge writes. */
const marker = (i: number): string => `"\\u0000nonfinite${i}"`

/**
 * `JSON.parse` with the three constants Python's `json.loads` also accepts as values (`NaN`,
 * `Infinity`, `-Infinity`). `undefined` when the text is not JSON.
 *
 * @internal
 */
export const loads = (text: string): unknown => {
  let source = text
  if (/NaN|Infinity/.test(text)) {
    // Swap the constants for marker strings outside string literals, then map them back.
    let out = ""
    let i = 0
    while (i < text.length) {
      const c = text[i]!
      if (c === "\"") {
        let j = i + 1
        while (j < text.length && text[j] !== "\"") j += text[j] === "\\" ? 2 : 1
        out += text.slice(i, j + 1)
        i = j + 1
        continue
      }
      const hit = nonFinite.findIndex(([token]) => text.startsWith(token, i))
      if (hit >= 0) {
        out += marker(hit)
        i += nonFinite[hit]![0].length
        continue
      }
      out += c
      i++
    }
    source = out
  }
  try {
    return JSON.parse(source, (_key, value: unknown) => {
      if (typeof value === "string" && value.startsWith("\u0000nonfinite")) {
        const index = Number(value.slice("\u0000nonfinite".length))
        return nonFinite[index]?.[1] ?? value
      }
      return value
    })
  } catch {
    return undefined
  }
}

const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The last flat JSON object in `text` that has `key`, or why there is none.
 *
 * @internal
 */
export const lastObjectWith = (
  text: string,
  key: string
): Either.Either<{ readonly [key: string]: unknown }, string> =>
  Either.mapLeft(
    lastObjectWithAny(text, [key]),
    () => `the reply does not end with a JSON object that has a "${key}" key`
  )

/**
 * The last flat JSON object in `text` that has one of `keys`, or why there is none.
 *
 * @internal
 */
export const lastObjectWithAny = (
  text: string,
  keys: ReadonlyArray<string>
): Either.Either<{ readonly [key: string]: unknown }, string> => {
  const matches = text.match(flatObject) ?? []
  for (let i = matches.length - 1; i >= 0; i--) {
    const value = loads(matches[i]!)
    if (isRecord(value) && keys.some((key) => Object.prototype.hasOwnProperty.call(value, key))) {
      return Either.right(value)
    }
  }
  return Either.left(`the reply does not end with a JSON object with the keys ${keys.map((k) => `"${k}"`).join(", ")}`)
}

/** What Python's `str.strip()` removes: its whitespace, which is not quite JavaScript's. */
const pythonSpace = "[\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
const pythonStrip = new RegExp(`^${pythonSpace}+|${pythonSpace}+$`, "g")

/**
 * A number as the reference takes one (Python `int` or `float`, so `true` is 1 and `false` 0), or
 * `undefined`.
 *
 * @internal
 */
export const numberOf = (u: unknown): number | undefined =>
  typeof u === "number" ? u : typeof u === "boolean" ? (u ? 1 : 0) : undefined

/**
 * Clamp to [0, 1] as `min(1.0, max(0.0, x))` does in Python: `NaN` becomes 0.
 *
 * @internal
 */
export const clamp = (x: number): number => {
  const low = x > 0 ? x : 0
  return low < 1 ? low : 1
}

/** JSON for a reason text, never more than a line. */
const show = (u: unknown): string => {
  const text = JSON.stringify(u) ?? String(u)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/**
 * A pairwise verdict in presentation terms: `winner` is `"a"`, `"b"` or `"tie"` (any case,
 * surrounding whitespace ignored); `confidence`, when it is a number, clamped to [0, 1].
 *
 * @internal
 */
export const verdict = (
  text: string
): Either.Either<{ readonly winner: "a" | "b" | "tie"; readonly confidence: number | undefined }, string> =>
  Either.flatMap(lastObjectWith(text, "winner"), (object) => {
    const raw = object["winner"]
    const winner = typeof raw === "string" ? raw.replace(pythonStrip, "").toLowerCase() : undefined
    if (winner !== "a" && winner !== "b" && winner !== "tie") {
      return Either.left(`"winner" is ${show(raw)}, not "A", "B" or "tie"`)
    }
    const confidence = numberOf(object["confidence"])
    return Either.right({ winner, confidence: confidence === undefined ? undefined : clamp(confidence) })
  })

/**
 * A groupwise verdict: `scores`, exactly `n` numbers, each clamped to [0, 1], in presentation order.
 *
 * @internal
 */
export const scores = (text: string, n: number): Either.Either<ReadonlyArray<number>, string> =>
  Either.flatMap(lastObjectWith(text, "scores"), (object) => {
    const raw = object["scores"]
    const numbers = Array.isArray(raw) ? raw.map(numberOf) : undefined
    if (numbers === undefined || numbers.length !== n || numbers.some((x) => x === undefined)) {
      return Either.left(`"scores" must be a list of exactly ${n} numbers; it is ${show(raw)}`)
    }
    return Either.right((numbers as ReadonlyArray<number>).map(clamp))
  })
