/**
 * Decoding with a user's Schema while keeping keys named `__proto__`.
 *
 * `JSON.parse` makes such a key an own data key, and the reference (pydantic) keeps it in a
 * `dict[str, ...]` field as any other key. Effect's parser builds its output by assignment, where
 * `out["__proto__"] = value` sets the output's prototype instead: the key disappears from a
 * `Schema.Record` (and the decoded object inherits from the value). So an input holding such a key
 * is decoded with each one renamed to a stand-in key no input holds, and the stand-in is turned
 * back into an own `__proto__` data key, in its place, in the output and in the issues. Input
 * without such a key (nearly all) is decoded as it is.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"

const proto = "__proto__"

/**
 * The stand-in for a `__proto__` key while a Schema decodes: a key no JSON text of a client holds
 * (it carries a random part chosen when the module loads).
 *
 * @internal
 */
export const standIn = `\u0000__proto__:${globalThis.crypto.randomUUID()}`

const hasOwn = Object.prototype.hasOwnProperty

const isPlain = (u: object): boolean => {
  const prototype = Object.getPrototypeOf(u)
  return prototype === Object.prototype || prototype === null
}

/** Whether a plain object or array in `value` holds an own `__proto__` key. */
const holds = (value: unknown, seen: Set<object>): boolean => {
  if (typeof value !== "object" || value === null || seen.has(value)) return false
  seen.add(value)
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holds(value[i], seen)) return true
    return false
  }
  if (!isPlain(value)) return false
  if (hasOwn.call(value, proto)) return true
  const record = value as { readonly [key: string]: unknown }
  for (const key in record) if (hasOwn.call(record, key) && holds(record[key], seen)) return true
  return false
}

const define = (target: object, key: string, value: unknown): void => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/** Copies of plain objects and arrays, each `__proto__` key renamed to the stand-in, in its place. */
const renamed = (value: unknown, copies: Map<object, unknown>): unknown => {
  if (typeof value !== "object" || value === null) return value
  const done = copies.get(value)
  if (done !== undefined) return done
  if (Array.isArray(value)) {
    const out: Array<unknown> = []
    copies.set(value, out)
    for (let i = 0; i < value.length; i++) out.push(renamed(value[i], copies))
    return out
  }
  if (!isPlain(value)) return value
  const out: Record<string, unknown> = {}
  copies.set(value, out)
  const record = value as { readonly [key: string]: unknown }
  for (const key of Object.keys(record)) {
    define(out, key === proto ? standIn : key, renamed(record[key], copies))
  }
  return out
}

/**
 * The stand-in key turned back into `__proto__` in a decoded value: plain objects and arrays that
 * hold one (at any depth) are copied, others are changed in place; the rest is returned as it is.
 */
const restored = (value: unknown, memo: Map<object, unknown>): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (memo.has(value)) return memo.get(value)
  memo.set(value, value)
  if (Array.isArray(value)) {
    let out: Array<unknown> | undefined
    for (let i = 0; i < value.length; i++) {
      const inner = restored(value[i], memo)
      if (out === undefined && inner !== value[i]) out = value.slice(0, i)
      out?.push(inner)
    }
    if (out === undefined) return value
    memo.set(value, out)
    return out
  }
  const record = value as Record<string, unknown>
  const keys = Object.keys(record)
  const inners = keys.map((key) => restored(record[key], memo))
  if (keys.every((key, i) => key !== standIn && inners[i] === record[key])) return value
  if (isPlain(value)) {
    const out: object = Object.create(Object.getPrototypeOf(value))
    keys.forEach((key, i) => define(out, key === standIn ? proto : key, inners[i]))
    memo.set(value, out)
    return out
  }
  keys.forEach((key, i) => {
    if (key === standIn) {
      delete record[key]
      define(record, proto, inners[i])
    } else if (inners[i] !== record[key]) record[key] = inners[i]
  })
  return value
}

/**
 * `value` with every `__proto__` key turned back from the stand-in (for values a decode returned,
 * and the inputs an issue quotes).
 *
 * @internal
 */
export const restore = (value: unknown): unknown => restored(value, new Map())

/**
 * A decode that keeps `__proto__` keys (see the module's description).
 *
 * @internal
 */
export const keeping = <A>(
  decode: (input: unknown) => Either.Either<A, ParseResult.ParseIssue>
): (input: unknown) => Either.Either<A, ParseResult.ParseIssue> =>
(input) => {
  if (!holds(input, new Set())) return decode(input)
  return Either.map(decode(renamed(input, new Map())), (value) => restore(value) as A)
}
