/**
 * The guard laws, for one wire schema: the compiled guard (src/internal/guard.ts), built both ways
 * (from generated source, and as closures, what runs where code generation is refused), answers
 * exactly what the Schema decode answers, on arbitrary values of the schema (`Arbitrary.make`), on
 * mutations of them (a key dropped, a value replaced, an unknown key added, a `__proto__` key added),
 * and on the hostile values of test/Hostile.test.ts planted anywhere in them. It may only say "no"
 * where the Schema says "yes" for values it leaves to the Schema on purpose: not plain (class
 * instances, proxies) or nested too deeply, which the generators here do not make.
 */
import { assert, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as Guard from "../../src/internal/guard.js"
import * as Plain from "../../src/internal/plain.js"

type Path = ReadonlyArray<string | number>

// plain data only is walked and copied: a planted hostile value (a getter, a proxy) is kept as it is
const isData = (u: unknown): u is object => {
  if (typeof u !== "object" || u === null) return false
  try {
    const proto: unknown = Object.getPrototypeOf(u)
    return Array.isArray(u) ? proto === Array.prototype : proto === Object.prototype
  } catch {
    return false
  }
}

const dataKeys = (u: object): Array<string> =>
  Object.keys(u).filter((key) => "value" in Object.getOwnPropertyDescriptor(u, key)!)

const paths = (u: unknown, prefix: Path = [], out: Array<Path> = []): Array<Path> => {
  out.push(prefix)
  if (!isData(u) || prefix.length > 32) return out
  if (Array.isArray(u)) u.forEach((v, i) => paths(v, [...prefix, i], out))
  else for (const key of dataKeys(u)) paths((u as Record<string, unknown>)[key], [...prefix, key], out)
  return out
}

const clone = (u: unknown, depth = 0): unknown => {
  if (!isData(u) || depth > 32) return u
  if (Array.isArray(u)) return u.map((v) => clone(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(u)) {
    const descriptor = Object.getOwnPropertyDescriptor(u, key)!
    Object.defineProperty(
      out,
      key,
      "value" in descriptor ? { ...descriptor, value: clone(descriptor.value, depth + 1) } : descriptor
    )
  }
  return out
}

const throwingGetter = () =>
  Object.defineProperty({}, "type", {
    enumerable: true,
    get: () => {
      throw new Error("getter")
    }
  })
const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}
const cyclic = () => {
  const o: Record<string, unknown> = { type: "text" }
  o["content"] = [o]
  return o
}

/** The values no JSON parser makes (test/Hostile.test.ts), as thunks. */
export const hostile: ReadonlyArray<() => unknown> = [
  () => Object.create(null),
  () => 10n,
  () => Symbol("s"),
  throwingGetter,
  revoked,
  cyclic,
  () => new Date(Number.NaN),
  () => () => "a function",
  () => Number.NaN,
  () => Number.POSITIVE_INFINITY,
  () => undefined
]

const replacements: ReadonlyArray<() => unknown> = [
  () => null,
  () => "",
  () => "text",
  () => "user",
  () => 0,
  () => true,
  () => [],
  () => ({}),
  () => ({ type: "text", text: "x" }),
  ...hostile
]

type Mutation =
  | { readonly kind: "drop"; readonly at: number }
  | { readonly kind: "replace"; readonly at: number; readonly by: number }
  | { readonly kind: "add"; readonly at: number; readonly key: string; readonly by: number }

const mutation: FastCheck.Arbitrary<Mutation> = FastCheck.oneof(
  FastCheck.record({ kind: FastCheck.constant("drop" as const), at: FastCheck.nat() }),
  FastCheck.record({
    kind: FastCheck.constant("replace" as const),
    at: FastCheck.nat(),
    by: FastCheck.nat({ max: replacements.length - 1 })
  }),
  FastCheck.record({
    kind: FastCheck.constant("add" as const),
    at: FastCheck.nat(),
    key: FastCheck.constantFrom("extra", "__proto__", "type", "detail", "constructor"),
    by: FastCheck.nat({ max: replacements.length - 1 })
  })
)

const mutate = (value: unknown, m: Mutation): unknown => {
  const copy = clone(value)
  const all = paths(copy)
  const path = all[m.at % all.length]!
  if (path.length === 0) {
    return m.kind === "replace" ? replacements[m.by]!() : m.kind === "drop" ? undefined : copy
  }
  let parent: any = copy
  for (const key of path.slice(0, -1)) parent = parent[key]
  if (!(isData as (u: unknown) => boolean)(parent)) return copy
  const last = path[path.length - 1]!
  switch (m.kind) {
    case "drop":
      if (Array.isArray(parent)) parent.splice(last as number, 1)
      else delete parent[last]
      break
    case "replace":
      parent[last] = replacements[m.by]!()
      break
    case "add": {
      const target = parent[last]
      if (isData(target) && !Array.isArray(target)) {
        if (Object.getOwnPropertyDescriptor(target, m.key)?.configurable === false) break
        Object.defineProperty(target, m.key, {
          value: replacements[m.by]!(),
          enumerable: true,
          writable: true,
          configurable: true
        })
      } else {
        parent[last] = replacements[m.by]!()
      }
    }
  }
  return copy
}

/**
 * Does `u` hold an object the guard leaves to the Schema on purpose: one whose prototype is not
 * `Object.prototype` or `null` (a `Date`, a class instance), or with a getter (a throwing one makes
 * the guard answer "no" where the Schema never reads the key)? There the guard may say "no" to what
 * the Schema accepts; the decoders then take the Schema's answer.
 */
const holdsNonPlain = (u: unknown, seen = new Set<unknown>()): boolean => {
  if (typeof u !== "object" || u === null || seen.has(u)) return false
  seen.add(u)
  try {
    if (Array.isArray(u)) return u.some((v) => holdsNonPlain(v, seen))
    const proto: unknown = Object.getPrototypeOf(u)
    if (proto !== Object.prototype && proto !== null) return true
    return Object.keys(u).some((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(u, key)!
      return !("value" in descriptor) || holdsNonPlain(descriptor.value, seen)
    })
  } catch {
    return true
  }
}

/** Nested deeper than the decoders' limit, or cyclic: the depth guard before the Schema refuses it. */
const tooDeep = (u: unknown): boolean => {
  try {
    return Plain.tooDeep(u) !== undefined
  } catch {
    return true
  }
}

/**
 * The law: the guard answers as the Schema does, but may leave to it input that is not plain, or
 * that the depth limit refuses (which the Schema alone does not see).
 */
const agrees = (guard: boolean, schema: boolean, u: unknown): boolean =>
  guard === schema || (!guard && schema && (holdsNonPlain(u) || tooDeep(u)))

const decodes = (
  schema: Schema.Schema<any, any>,
  options: Guard.Options
): (u: unknown) => boolean => {
  const decode = Schema.decodeUnknownEither(schema, options)
  return (u) => {
    try {
      return Either.isRight(decode(u))
    } catch {
      return false
    }
  }
}

/** Both ways a guard is built (src/internal/guard.ts). */
export const backends: ReadonlyArray<Guard.Backend> = ["source", "closures"]

/**
 * Register the guard laws for `schema` read with `options`. `arbitrary` is the schema to generate
 * valid values from, `Arbitrary.make(schema)` by default (a decoded value with every default
 * present is valid input of the schemas here).
 */
export const guardLaws = (
  name: string,
  schema: Schema.Schema<any, any>,
  options: Guard.Options,
  arbitrary: FastCheck.Arbitrary<unknown> = Arbitrary.make(schema),
  numRuns = 200
): void => {
  const guards = backends.map((backend) => [backend, Guard.compile(schema, options, backend)] as const)
  const schemaSays = decodes(schema, options)

  it.prop(`${name}: the guard passes every value of the schema`, [arbitrary], ([value]) => {
    const s = schemaSays(value)
    for (const [backend, guard] of guards) assert.strictEqual(guard(value), s, backend)
  }, { fastCheck: { numRuns } })

  it.prop(`${name}: the guard agrees with the Schema decode on mutated values`, [
    arbitrary,
    FastCheck.array(mutation, { minLength: 1, maxLength: 3 })
  ], ([value, mutations]) => {
    const mutated = mutations.reduce<unknown>((u, m) => mutate(u, m), value)
    const s = schemaSays(mutated)
    for (const [backend, guard] of guards) {
      const g = guard(mutated)
      assert.isTrue(agrees(g, s, mutated), `${backend}: guard ${g}, schema ${s}: ${JSON.stringify(mutations)}`)
    }
  }, { fastCheck: { numRuns: numRuns * 2 } })

  it(`${name}: the guard refuses the hostile values, and never throws`, () => {
    const shapes: ReadonlyArray<(make: () => unknown) => unknown> = [
      (make) => make(),
      (make) => [make()],
      (make) => ({ type: make(), role: make(), messages: [make()], content: make(), blocks: [make()] })
    ]
    for (const make of hostile) {
      for (const shape of shapes) {
        for (const [backend, guard] of guards) {
          const u = shape(make)
          const g = guard(u)
          assert.isTrue(agrees(g, schemaSays(shape(make)), u), backend)
        }
      }
    }
  })
}
