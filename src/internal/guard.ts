/**
 * The guard compiler: a Schema, compiled once into a plain predicate that answers "does the Schema
 * decode of this input succeed?" without building anything.
 *
 * A wire shape is declared once, as an Effect Schema. Decoding a valid input through it copies the
 * whole value, union member by union member, which dominates the cost of reading a transcript
 * (docs/performance.md). So every decoder reads in two steps: the guard says the input is valid,
 * then a plain pass converts it; only when the guard says no does the Schema decode run, to build
 * the exact error (or, for the rare value the guard leaves to it, the decoded value).
 *
 * The compiler reads the part of the Schema AST the wire schemas use, once per node (memoized per
 * AST, as Effect's `ParseResult` memoizes its parsers), into a plan: literals, keyword types,
 * structs (`TypeLiteral`) with optional keys and index signatures, arrays and tuples, unions
 * (dispatched on a literal-typed key when their members have one), refinements (their filter is
 * called), `suspend`, and the property-signature transformations of `optionalWith(..., { default })`
 * (a default cannot fail, so the encoded side is what is checked). Anything else is refused when the
 * guard is compiled. Nothing is compiled when a module loads: the decoders compile their guards on
 * first use (internal/decoder.ts).
 *
 * A plan is built into a guard one of two ways, from the same plan and held to the same laws:
 *
 * - **generated source** (`new Function`), where the runtime allows it: one small function per node,
 *   with property names and literals written in, so that each property read has its own inline
 *   cache. This is the fast one (2.5 to 3.5 times the closures on a valid transcript:
 *   docs/performance.md).
 * - **closures**, chosen automatically where code generation is refused (`node
 *   --disallow-code-generation-from-strings`, a Content Security Policy without `'unsafe-eval'`, MV3
 *   extensions, Cloudflare Workers): the same checks as closures, which every struct shares.
 *
 * The rules for untrusted input are written here once, for every decoder:
 *
 * - **own keys only**: a struct key is read only when it is an own property, as the Schema reads it;
 *   a key named `__proto__` that `JSON.parse` made is an own data key like any other.
 * - **plain values only**: an object passes only when its prototype is `Object.prototype` or `null`
 *   (what `JSON.parse` builds), an array only when it is an `Array`. Anything else (a class instance,
 *   a `Date`, a `Map`) is left to the Schema decode, which may still accept it. A JSON value
 *   (`Json.JsonValue`, `Json.JsonObject`) is judged by the plain check its declaration decodes with,
 *   continued at the depth it is found at: what passes it, that decode returns as it is.
 * - **depth**: an object or array nested more than {@link maxDepth} levels below the root (the
 *   root's elements are at level 1) fails the guard, so a cyclic value fails too. With
 *   `onExcessProperty: "ignore"`, the values of the keys a struct ignores are held to the same limit,
 *   as `plain.tooDeep` holds them before a provider's Schema decode.
 * - **excess keys**: with `onExcessProperty: "error"` every own enumerable string key must be one the
 *   struct declares. Those are the keys `JSON.parse` makes and `JSON.stringify` writes; a symbol key,
 *   or a key defined non-enumerable, is not seen (listing them, with `Reflect.ownKeys`, costs 20
 *   times a `for...in`). A declared key that is present but not an own enumerable one (inherited,
 *   non-enumerable) makes the guard answer `false`, leaving it to the Schema.
 * - **total**: a guard never throws; a throwing getter or a revoked proxy makes it answer `false`.
 *
 * So a guard is sound: when it passes, the Schema decode succeeds (property-tested in
 * `test/Guard.test.ts` against `Schema.decodeUnknownEither` on arbitrary, mutated and hostile values).
 *
 * @internal
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import type * as Json from "../Json.js"
import { isPlainObject, maxDepth, withinDepth } from "./plain.js"

/**
 * Marks the transformation `Json.JsonValue` and `Json.JsonObject` are made of: the structure (its
 * `from`) is checked, then the input is copied with {@link copyJson}, which cannot fail. A guard
 * checks the structure.
 */
export const JsonCopyAnnotationId: unique symbol = Symbol.for("openreward-effect/JsonCopy")

/**
 * Marks the declaration `Json.JsonValue` and `Json.JsonObject` check their structure with (a plain
 * depth-bounded check, then the structure's decode only for an error); its value is that plain
 * check, `(u, depth) => boolean`, which a guard calls in its place: what it passes, the
 * declaration's decode returns as it is.
 */
export const JsonDepthAnnotationId: unique symbol = Symbol.for("openreward-effect/JsonDepth")

/** A compiled guard. */
export type Guard = (u: unknown) => boolean

/** Compile options: what a struct does with keys it does not declare, as in `ParseOptions`. */
export interface Options {
  readonly onExcessProperty: "error" | "ignore"
}

const hasOwn = Object.prototype.hasOwnProperty

class Unsupported extends Error {}

const unsupported = (ast: AST.AST): never => {
  throw new Unsupported(`guard: unsupported schema node ${ast._tag} (${String(ast)})`)
}

type Mode = Options["onExcessProperty"]

const excessOf = (ast: AST.AST): Mode | undefined => {
  const annotation = AST.getParseOptionsAnnotation(ast)
  if (Option.isNone(annotation)) return undefined
  const mode = annotation.value.onExcessProperty
  return mode === undefined ? undefined : mode === "error" ? "error" : "ignore"
}

// =============================================================================
// the plan: what a guard checks, read once from the schema's AST
// =============================================================================

/**
 * A value checked by its JavaScript type and a few literals (`===`): keywords, literals and unions
 * of them. `types` is a set of the bits below.
 */
interface Leaf {
  readonly _tag: "Leaf"
  readonly types: number
  readonly literals: ReadonlyArray<AST.LiteralValue>
}

const STRING = 1
const NUMBER = 2
const BOOLEAN = 4
const NULL = 8
const UNDEFINED = 16

/** One element of a tuple, or the property of a struct. */
interface Slot {
  readonly plan: Plan
  readonly optional: boolean
}

interface Property extends Slot {
  readonly name: PropertyKey
  /** `Object.prototype` has the key: every plain object finds it, so its value decides. */
  readonly inherited: boolean
}

/**
 * What a guard checks, node by node. A `Suspend` (a recursive schema) becomes a `Ref` to the plan it
 * stands for, so the plan is a graph; the back-ends follow a `Ref` when they run.
 */
type Plan =
  | Leaf
  | { readonly _tag: "Is"; readonly value: unknown }
  | { readonly _tag: "Never" }
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "TypeOf"; readonly type: "bigint" | "symbol" }
  | { readonly _tag: "Object" }
  | { readonly _tag: "Enums"; readonly values: ReadonlySet<unknown> }
  | { readonly _tag: "Array"; readonly item: Plan }
  | {
    readonly _tag: "Tuple"
    readonly elements: ReadonlyArray<Slot>
    readonly rest: Plan | undefined
    readonly trailing: ReadonlyArray<Plan>
  }
  | { readonly _tag: "NotNullish" }
  | {
    readonly _tag: "Struct"
    readonly properties: ReadonlyArray<Property>
    readonly indexes: ReadonlyArray<Plan>
    /** Is a key the struct does not declare an error (else it is held to the depth limit)? */
    readonly strict: boolean
  }
  | {
    readonly _tag: "Union"
    /** Members tried in order when the input has no tag (or none of the tags). */
    readonly members: ReadonlyArray<Plan>
    /** The key most members require a literal at, and the members to try for each literal. */
    readonly tag: { readonly key: PropertyKey; readonly buckets: ReadonlyMap<unknown, ReadonlyArray<Plan>> } | undefined
  }
  | { readonly _tag: "Refinement"; readonly from: Plan; readonly ast: AST.Refinement }
  | { readonly _tag: "Plain"; readonly check: (u: unknown, depth: number) => boolean }
  | Ref

interface Ref {
  readonly _tag: "Ref"
  target: Plan | undefined
}

/** The literal values a struct-like member requires at `key`, or `undefined` if it does not. */
const literalsAt = (ast: AST.AST, key: PropertyKey): ReadonlyArray<AST.LiteralValue> | undefined => {
  switch (ast._tag) {
    case "Refinement":
    case "Transformation":
      return literalsAt(ast.from, key)
    case "TypeLiteral": {
      const ps = ast.propertySignatures.find((p) => p.name === key)
      if (ps === undefined || ps.isOptional) return undefined
      return literalsOf(ps.type)
    }
    default:
      return undefined
  }
}

const literalsOf = (ast: AST.AST): ReadonlyArray<AST.LiteralValue> | undefined => {
  switch (ast._tag) {
    case "Literal":
      return [ast.literal]
    case "Refinement":
      return literalsOf(ast.from)
    case "Union": {
      const out: Array<AST.LiteralValue> = []
      for (const member of ast.types) {
        const literals = literalsOf(member)
        if (literals === undefined) return undefined
        out.push(...literals)
      }
      return out
    }
    default:
      return undefined
  }
}

/** The keys of a member's struct (through refinements and transformations), for choosing a tag. */
const structKeys = (ast: AST.AST): ReadonlyArray<PropertyKey> => {
  switch (ast._tag) {
    case "Refinement":
    case "Transformation":
      return structKeys(ast.from)
    case "TypeLiteral":
      return ast.propertySignatures.map((p) => p.name)
    default:
      return []
  }
}

// a literal a union is dispatched on, and a leaf compares with: one `===` and JSON agree on
const isSimpleLiteral = (value: unknown): value is string | number | boolean | null =>
  typeof value === "string" || typeof value === "boolean" || value === null ||
  (typeof value === "number" && Number.isFinite(value))

/** A leaf, when `ast` is a keyword, a simple literal or a union of them (with no options of its own). */
const leafOf = (ast: AST.AST): Leaf | undefined => {
  let types = 0
  const literals: Array<AST.LiteralValue> = []
  const collect = (node: AST.AST): boolean => {
    if (excessOf(node) !== undefined) return false
    switch (node._tag) {
      case "StringKeyword":
        types |= STRING
        return true
      case "NumberKeyword":
        types |= NUMBER
        return true
      case "BooleanKeyword":
        types |= BOOLEAN
        return true
      case "UndefinedKeyword":
      case "VoidKeyword":
        types |= UNDEFINED
        return true
      case "Literal":
        if (node.literal === null) types |= NULL
        else if (isSimpleLiteral(node.literal)) literals.push(node.literal)
        else return false
        return true
      case "Union":
        return node.types.every(collect)
      default:
        return false
    }
  }
  return collect(ast) && literals.length <= 8 ? { _tag: "Leaf", types, literals } : undefined
}

// Every plan made, per node and mode, as Effect's ParseResult memoizes its parsers: a schema
// compiled twice (or a node two schemas share) is planned once.
const plans = new WeakMap<AST.AST, { error?: Plan; ignore?: Plan }>()

// How deeply the planner is recursing: a recursive schema whose `suspend` makes a new node on
// every call (what `Schema.typeSchema` makes of one) never closes, and is refused.
let depth = 0

/** The plan of `ast` read in `mode` (the node's own `parseOptions` win). */
const planOf = (ast: AST.AST, mode: Mode): Plan => {
  const own = excessOf(ast)
  if (own !== undefined) mode = own
  let byMode = plans.get(ast)
  if (byMode === undefined) plans.set(ast, byMode = {})
  const known = byMode[mode]
  if (known !== undefined) return known
  if (depth > 1000) return unsupported(ast)
  // a recursive reference met while this node is planned points here
  const ref: Ref = { _tag: "Ref", target: undefined }
  byMode[mode] = ref
  depth++
  try {
    const plan = plan_(ast, mode)
    ref.target = plan
    byMode[mode] = plan
    return plan
  } catch (e) {
    delete byMode[mode]
    throw e
  } finally {
    depth--
  }
}

const plan_ = (ast: AST.AST, mode: Mode): Plan => {
  const leaf = leafOf(ast)
  if (leaf !== undefined) return leaf
  switch (ast._tag) {
    case "Literal":
      return { _tag: "Is", value: ast.literal }
    case "UniqueSymbol":
      return { _tag: "Is", value: ast.symbol }
    case "NeverKeyword":
      return { _tag: "Never" }
    case "UnknownKeyword":
    case "AnyKeyword":
      // whatever it is, it is held to the depth limit
      return { _tag: "Unknown" }
    case "BigIntKeyword":
      return { _tag: "TypeOf", type: "bigint" }
    case "SymbolKeyword":
      return { _tag: "TypeOf", type: "symbol" }
    case "ObjectKeyword":
      return { _tag: "Object" }
    case "Enums":
      return { _tag: "Enums", values: new Set<unknown>(ast.enums.map(([, value]) => value)) }
    case "TupleType": {
      const [head, ...tail] = ast.rest
      const rest = head === undefined ? undefined : planOf(head.type, mode)
      if (ast.elements.length === 0 && tail.length === 0 && rest !== undefined) return { _tag: "Array", item: rest }
      return {
        _tag: "Tuple",
        elements: ast.elements.map((e) => ({ plan: planOf(e.type, mode), optional: e.isOptional })),
        rest,
        trailing: tail.map((t) => planOf(t.type, mode))
      }
    }
    case "TypeLiteral": {
      const indexes = ast.indexSignatures.map((is) =>
        is.parameter._tag === "StringKeyword" ? planOf(is.type, mode) : unsupported(is.parameter)
      )
      // `{}`: `Schema.Struct({})` accepts anything but `null` and `undefined`
      if (ast.propertySignatures.length === 0 && indexes.length === 0) return { _tag: "NotNullish" }
      if (ast.propertySignatures.length > 30) return unsupported(ast)
      return {
        _tag: "Struct",
        properties: ast.propertySignatures.map((ps) => ({
          name: ps.name,
          plan: planOf(ps.type, mode),
          optional: ps.isOptional,
          inherited: ps.name in Object.prototype
        })),
        indexes,
        strict: mode === "error"
      }
    }
    case "Union":
      return union(ast, mode)
    case "Suspend":
      return planOf(ast.f(), mode)
    case "Refinement":
      return { _tag: "Refinement", from: planOf(ast.from, mode), ast }
    case "Declaration": {
      const check = ast.annotations[JsonDepthAnnotationId]
      if (typeof check !== "function") return unsupported(ast)
      return { _tag: "Plain", check: check as (u: unknown, depth: number) => boolean }
    }
    case "Transformation": {
      if (ast.annotations[JsonCopyAnnotationId] === true) return planOf(ast.from, mode)
      // only the defaults of `optionalWith`: a property-signature transformation decodes an
      // option to an option and cannot fail, and it renames nothing here
      const transformation = ast.transformation
      if (
        transformation._tag !== "TypeLiteralTransformation" ||
        transformation.propertySignatureTransformations.some((t) => t.from !== t.to)
      ) return unsupported(ast)
      return planOf(ast.from, mode)
    }
    default:
      return unsupported(ast)
  }
}

/**
 * A union, dispatched on the key most of its members require a literal at: a member is tried only
 * when the input's value there is one of its literals (a member without literals there always is).
 */
const union = (ast: AST.Union, mode: Mode): Plan => {
  const members = ast.types.map((t) => planOf(t, mode))
  const counts = new Map<PropertyKey, number>()
  for (const t of ast.types) {
    for (const key of structKeys(t)) {
      const literals = literalsAt(t, key)
      if (literals !== undefined && literals.every(isSimpleLiteral)) counts.set(key, (counts.get(key) ?? 0) + 1)
    }
  }
  let key: PropertyKey | undefined
  let best = 1
  for (const [k, n] of counts) {
    if (n > best) {
      key = k
      best = n
    }
  }
  if (key === undefined) return { _tag: "Union", members, tag: undefined }
  const otherwise: Array<Plan> = []
  const buckets = new Map<unknown, Array<Plan>>()
  ast.types.forEach((t, i) => {
    const literals = literalsAt(t, key)
    if (literals === undefined || !literals.every(isSimpleLiteral)) {
      otherwise.push(members[i]!)
      return
    }
    for (const literal of literals) {
      let bucket = buckets.get(literal)
      if (bucket === undefined) buckets.set(literal, bucket = [])
      if (!bucket.includes(members[i]!)) bucket.push(members[i]!)
    }
  })
  for (const bucket of buckets.values()) bucket.push(...otherwise)
  return { _tag: "Union", members: otherwise, tag: { key, buckets } }
}

// =============================================================================
// back-end 1: closures (runs wherever Effect runs)
// =============================================================================

/** A check of a value found at depth `d`: the root is at 0, its elements at 1. */
type Check = (u: unknown, d: number) => boolean

const typeBit = (u: unknown): number => {
  switch (typeof u) {
    case "string":
      return STRING
    case "number":
      return NUMBER
    case "boolean":
      return BOOLEAN
    case "undefined":
      return UNDEFINED
    case "object":
      return u === null ? NULL : 0
    default:
      return 0
  }
}

const passes = (leaf: Leaf, u: unknown): boolean =>
  (typeBit(u) & leaf.types) !== 0 || (leaf.literals.length > 0 && leaf.literals.indexOf(u as AST.LiteralValue) !== -1)

const getOwnPropertyNames = Object.getOwnPropertyNames

// every check made, per plan node
const closures = new WeakMap<Plan, Check>()

const closureOf = (plan: Plan): Check => {
  let check = closures.get(plan)
  if (check === undefined) {
    check = closure(plan)
    closures.set(plan, check)
  }
  return check
}

const anyOf = (checks: ReadonlyArray<Check>): Check => {
  switch (checks.length) {
    case 0:
      return () => false
    case 1:
      return checks[0]!
    case 2: {
      const [a, b] = checks as [Check, Check]
      return (u, d) => a(u, d) || b(u, d)
    }
    default:
      return (u, d) => {
        for (let i = 0; i < checks.length; i++) if (checks[i]!(u, d)) return true
        return false
      }
  }
}

const closure = (plan: Plan): Check => {
  switch (plan._tag) {
    case "Leaf":
      return (u) => passes(plan, u)
    case "Is": {
      const value = plan.value
      return (u) => u === value
    }
    case "Never":
      return () => false
    case "Unknown":
      return withinDepth
    case "TypeOf": {
      const type = plan.type
      return (u) => typeof u === type
    }
    case "Object":
      return (u) => (typeof u === "object" && u !== null) || typeof u === "function"
    case "Enums": {
      const values = plan.values
      return (u) => values.has(u)
    }
    case "NotNullish":
      return (u) => u !== null && u !== undefined
    case "Array": {
      const item = plan.item
      if (item._tag === "Leaf") {
        return (u, d) => {
          if (!Array.isArray(u) || d > maxDepth) return false
          for (let i = 0; i < u.length; i++) if (!passes(item, u[i])) return false
          return true
        }
      }
      const check = closureOf(item)
      return (u, d) => {
        if (!Array.isArray(u) || d > maxDepth) return false
        const n = d + 1
        for (let i = 0; i < u.length; i++) if (!check(u[i], n)) return false
        return true
      }
    }
    case "Tuple":
      return tuple(plan)
    case "Struct":
      return struct(plan)
    case "Union": {
      const otherwise = anyOf(plan.members.map(closureOf))
      if (plan.tag === undefined) return otherwise
      const key = plan.tag.key as string
      const dispatch = new Map<unknown, Check>()
      for (const [literal, bucket] of plan.tag.buckets) dispatch.set(literal, anyOf(bucket.map(closureOf)))
      return (u, d) => {
        if (isPlainObject(u) && hasOwn.call(u, key)) {
          const check = dispatch.get(u[key])
          if (check !== undefined) return check(u, d)
        }
        return otherwise(u, d)
      }
    }
    case "Refinement": {
      const from = closureOf(plan.from)
      const { ast } = plan
      const filter = ast.filter
      const options = AST.defaultParseOption
      return (u, d) => from(u, d) && Option.isNone(filter(u, options, ast))
    }
    case "Plain":
      return plan.check
    case "Ref": {
      let target: Check | undefined
      return (u, d) => (target ??= closureOf(plan.target!))(u, d)
    }
  }
}

const tuple = (plan: Extract<Plan, { _tag: "Tuple" }>): Check => {
  const elements = plan.elements.map((e) => closureOf(e.plan))
  const optional = plan.elements.map((e) => e.optional)
  const rest = plan.rest === undefined ? undefined : closureOf(plan.rest)
  const trailing = plan.trailing.map(closureOf)
  const min = optional.filter((o) => !o).length + trailing.length
  return (u, d) => {
    if (!Array.isArray(u) || d > maxDepth) return false
    const n = d + 1
    if (u.length < min) return false
    if (rest === undefined && u.length > elements.length) return false
    for (let i = 0; i < elements.length; i++) {
      if (u.length <= i) return optional[i]!
      if (!elements[i]!(u[i], n)) return false
    }
    if (rest !== undefined) {
      const end = u.length - trailing.length
      let i = elements.length
      for (; i < end; i++) if (!rest(u[i], n)) return false
      for (const t of trailing) if (!t(u[i++], n)) return false
    }
    return true
  }
}

const struct = (plan: Extract<Plan, { _tag: "Struct" }>): Check => {
  const properties = plan.properties
  const count = properties.length
  const names = properties.map((p) => p.name)
  // a leaf is checked in the loop, anything else by its check
  const leaves = properties.map((p) => p.plan._tag === "Leaf" ? p.plan : undefined)
  const checks = properties.map((p) => closureOf(p.plan))
  const index = new Map<string, number>()
  properties.forEach((p, i) => {
    if (typeof p.name === "string") index.set(p.name, i)
  })
  const all = (1 << count) - 1
  let optional = 0
  properties.forEach((p, i) => {
    if (p.optional) optional |= 1 << i
  })
  const inherited = properties.some((p) => p.inherited)
  const indexes = plan.indexes.map(closureOf)
  const strict = plan.strict
  return (u, d) => {
    if (!isPlainObject(u) || d > maxDepth) return false
    const n = d + 1
    // One pass over the own enumerable keys (`for...in` with the own-key test, which V8 runs from the
    // object's enum cache): a declared key's value is checked and the key marked seen; any other key
    // is an error, a value of the index signatures, or held to the depth limit.
    let seen = 0
    let own = 0
    let next = 0
    for (const key in u) {
      if (!hasOwn.call(u, key)) continue
      own++
      // keys mostly come in the declared order: compare with the next one before looking it up
      const i = next < count && key === names[next] ? next++ : index.get(key)
      const value = u[key]
      if (i !== undefined) {
        const leaf = leaves[i]
        if (leaf !== undefined ? !passes(leaf, value) : !checks[i]!(value, n)) return false
        seen |= 1 << i
      } else if (indexes.length > 0) {
        for (let k = 0; k < indexes.length; k++) if (!indexes[k]!(value, n)) return false
      } else if (strict || !withinDepth(value, n)) return false
    }
    if (seen === all) return true
    // A declared key not seen: an own key the loop did not see (non-enumerable) or an inherited one
    // is the Schema's to judge; an absent key is `undefined` to a required key's type, as in the
    // Schema's non-exact reading. When every key not seen is optional, one count says whether the
    // object has an own key the loop did not see (reading absent keys one by one costs more).
    if ((seen | optional) === all && !inherited && getOwnPropertyNames(u).length === own) return true
    for (let i = 0; i < count; i++) {
      if ((seen & (1 << i)) !== 0) continue
      const name = names[i]!
      if (properties[i]!.inherited ? (u as any)[name] !== undefined : hasOwn.call(u, name)) return false
      if (!properties[i]!.optional && !checks[i]!(undefined, n)) return false
    }
    return true
  }
}

// =============================================================================
// back-end 2: JavaScript source (where code generation is allowed)
// =============================================================================

// A JavaScript literal for a simple literal value
const literalSource = (value: string | number | boolean | null): string => JSON.stringify(value)

/**
 * Each plan node becomes one small named function in generated source, with its property names and
 * literals written in as constants: a property read is then a named read with its own inline cache,
 * as in a hand-written walk, where a closure's `record[name]` is one keyed read shared by every
 * struct (measured 2.5 to 3.5 times slower: docs/performance.md). Only structure from the plan is
 * written into the source (names and literals through `JSON.stringify`); filters, sets, symbols and
 * plain checks are passed in as values.
 */
class Generator {
  private readonly names = new Map<Plan, string>()
  private readonly functions: Array<string> = []
  private readonly refs: Array<unknown> = []

  ref(value: unknown): string {
    this.refs.push(value)
    return `r[${this.refs.length - 1}]`
  }

  /** The name of the function that checks `plan`, generating it on first use. */
  name(plan: Plan): string {
    if (plan._tag === "Ref") return this.name(plan.target!)
    const known = this.names.get(plan)
    if (known !== undefined) return known
    const name = `g${this.functions.length}`
    this.names.set(plan, name)
    this.functions.push("")
    const index = this.functions.length - 1
    this.functions[index] = `function ${name}(u, d) {\n${this.body(plan)}\n}`
    return name
  }

  /** An expression that checks `value` (found at `depth`): inline for a leaf, a call otherwise. */
  check(plan: Plan, value: string, depth: string): string {
    const target = plan._tag === "Ref" ? plan.target! : plan
    return target._tag === "Leaf" ? this.leaf(target, value) : `${this.name(target)}(${value}, ${depth})`
  }

  private leaf(leaf: Leaf, value: string): string {
    const tests: Array<string> = []
    if (leaf.types & STRING) tests.push(`typeof ${value} === "string"`)
    if (leaf.types & NUMBER) tests.push(`typeof ${value} === "number"`)
    if (leaf.types & BOOLEAN) tests.push(`typeof ${value} === "boolean"`)
    if (leaf.types & NULL) tests.push(`${value} === null`)
    if (leaf.types & UNDEFINED) tests.push(`${value} === undefined`)
    for (const literal of leaf.literals) tests.push(`${value} === ${literalSource(literal as string)}`)
    return tests.length === 0 ? "false" : `(${tests.join(" || ")})`
  }

  build(plan: Plan): Check {
    const root = this.name(plan)
    const source = `"use strict"\n${this.functions.join("\n")}\nreturn ${root}`
    const make = new Function(
      "r",
      "hasOwn",
      "proto",
      "objectPrototype",
      "isArray",
      "withinDepth",
      "isNone",
      "options",
      "max",
      "names",
      source
    )
    return make(
      this.refs,
      hasOwn,
      Object.getPrototypeOf,
      Object.prototype,
      Array.isArray,
      withinDepth,
      Option.isNone,
      AST.defaultParseOption,
      maxDepth,
      getOwnPropertyNames
    )
  }

  private body(plan: Plan): string {
    switch (plan._tag) {
      case "Leaf":
        return `return ${this.leaf(plan, "u")}`
      case "Is":
        return `return u === ${isSimpleLiteral(plan.value) ? literalSource(plan.value) : this.ref(plan.value)}`
      case "Never":
        return "return false"
      case "Unknown":
        return "return withinDepth(u, d)"
      case "TypeOf":
        return `return typeof u === ${JSON.stringify(plan.type)}`
      case "Object":
        return `return (typeof u === "object" && u !== null) || typeof u === "function"`
      case "Enums":
        return `return ${this.ref(plan.values)}.has(u)`
      case "NotNullish":
        return "return u !== null && u !== undefined"
      case "Array":
        return [
          "if (!isArray(u) || d > max) return false",
          "const n = d + 1",
          `for (let i = 0; i < u.length; i++) if (!${this.check(plan.item, "u[i]", "n")}) return false`,
          "return true"
        ].join("\n")
      case "Tuple":
        return this.tuple(plan)
      case "Struct":
        return this.struct(plan)
      case "Union":
        return this.union(plan)
      case "Refinement":
        return `return ${this.name(plan.from)}(u, d) && isNone(${this.ref(plan.ast.filter)}(u, options, ${
          this.ref(plan.ast)
        }))`
      case "Plain":
        return `return ${this.ref(plan.check)}(u, d)`
      case "Ref":
        return `return ${this.name(plan)}(u, d)`
    }
  }

  private tuple(plan: Extract<Plan, { _tag: "Tuple" }>): string {
    const { elements, rest, trailing } = plan
    const min = elements.filter((e) => !e.optional).length + trailing.length
    const lines = ["if (!isArray(u) || d > max) return false", "const n = d + 1", `if (u.length < ${min}) return false`]
    if (rest === undefined) lines.push(`if (u.length > ${elements.length}) return false`)
    elements.forEach((e, i) => {
      lines.push(`if (u.length <= ${i}) return ${e.optional}`)
      lines.push(`if (!${this.check(e.plan, `u[${i}]`, "n")}) return false`)
    })
    if (rest !== undefined) {
      lines.push(
        `const end = u.length - ${trailing.length}`,
        `let i = ${elements.length}`,
        `for (; i < end; i++) if (!${this.check(rest, "u[i]", "n")}) return false`
      )
      for (const t of trailing) lines.push(`if (!${this.check(t, "u[i++]", "n")}) return false`)
    }
    lines.push("return true")
    return lines.join("\n")
  }

  private key(name: PropertyKey): { readonly source: string; readonly read: string } {
    const literal = typeof name === "string" ? JSON.stringify(name) : this.ref(name)
    // a named read where the name is an identifier, so that it gets its own inline cache
    const read = typeof name === "string" && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && name !== "__proto__"
      ? `u.${name}`
      : `u[${literal}]`
    return { source: literal, read }
  }

  private struct(plan: Extract<Plan, { _tag: "Struct" }>): string {
    const { indexes, properties, strict } = plan
    const keys = properties.map((p) => this.key(p.name))
    // the same rules as the closure's loop above, written out for this struct
    const other = indexes.length > 0
      ? indexes.map((index) => `if (!${this.check(index, "u[k]", "n")}) return false`).join("; ")
      : strict
      ? "return false"
      : "if (!withinDepth(u[k], n)) return false"
    const lines = [
      `if (${notPlain("u")} || d > max) return false`,
      "const n = d + 1",
      "let seen = 0",
      "for (const k in u) {",
      "  if (!hasOwn.call(u, k)) continue",
      "  switch (k) {",
      ...properties.map((p, i) =>
        typeof p.name === "string" ? `    case ${keys[i]!.source}: seen |= ${1 << i}; break` : ""
      ),
      `    default: ${other}`,
      "  }",
      "}"
    ]
    properties.forEach((p, i) => {
      const { read } = keys[i]!
      lines.push(
        `if ((seen & ${1 << i}) !== 0) { if (!(${this.check(p.plan, read, "n")})) return false }`,
        `else if (${read} !== undefined${
          p.optional ? "" : ` || !(${this.check(p.plan, "undefined", "n")})`
        }) return false`
      )
    })
    lines.push("return true")
    return lines.join("\n")
  }

  private union(plan: Extract<Plan, { _tag: "Union" }>): string {
    const any = (members: ReadonlyArray<Plan>): string =>
      members.length === 0 ? "false" : members.map((m) => `${this.name(m)}(u, d)`).join(" || ")
    if (plan.tag === undefined) return `return ${any(plan.members)}`
    const { read, source } = this.key(plan.tag.key)
    const lines = [`if (!${notPlain("u")} && hasOwn.call(u, ${source})) {`, `  switch (${read}) {`]
    for (const [literal, bucket] of plan.tag.buckets) {
      lines.push(`    case ${literalSource(literal as string)}: return ${any(bucket)}`)
    }
    lines.push("  }", "}", `return ${any(plan.members)}`)
    return lines.join("\n")
  }
}

// `!isPlainObject(value)` as an expression, written into every generated function so that each
// has its own feedback for the prototype read (one shared function sees every shape)
const notPlain = (value: string): string =>
  `(typeof ${value} !== "object" || ${value} === null || isArray(${value}) || ` +
  `(proto(${value}) !== objectPrototype && proto(${value}) !== null))`

// =============================================================================
// compiling
// =============================================================================

/** How a guard is built: from generated source, or as closures. */
export type Backend = "source" | "closures"

let generates: boolean | undefined

/**
 * Can this runtime compile source text (`new Function`)? Not under `node
 * --disallow-code-generation-from-strings`, a page whose Content Security Policy has no
 * `'unsafe-eval'`, an MV3 extension or Cloudflare Workers: there every guard is built as closures.
 * Asked once, when the first guard is compiled.
 */
export const canGenerate = (): boolean => {
  if (generates === undefined) {
    try {
      generates = new Function("return true")() === true
    } catch {
      generates = false
    }
  }
  return generates
}

const astOf = (schema: Schema.Schema.AnyNoContext | AST.AST): AST.AST => "ast" in schema ? schema.ast : schema

/**
 * Compile a guard for a schema's decoding: it passes exactly when the input decodes (a subset, for
 * the inputs it leaves to the Schema decode: values that are not plain, or nest too deeply).
 * `backend` is generated source where the runtime allows it, closures otherwise; both are built from
 * the same plan and held to the same laws. Throws, when compiled, if the schema uses what the
 * planner does not implement.
 */
export const compile = (
  schema: Schema.Schema.AnyNoContext | AST.AST,
  options: Options,
  backend: Backend = canGenerate() ? "source" : "closures"
): Guard => {
  const plan = planOf(astOf(schema), options.onExcessProperty)
  const check = backend === "source" ? new Generator().build(plan) : closureOf(plan)
  return (u) => {
    try {
      return check(u, 0)
    } catch {
      return false
    }
  }
}

const SchemaMake = <A, I>(ast: AST.AST): Schema.Schema<A, I> => Schema.make(ast)

const withoutParseOptions = (annotations: AST.Annotations): AST.Annotations => {
  if (!(AST.ParseOptionsAnnotationId in annotations)) return annotations
  const { [AST.ParseOptionsAnnotationId]: _, ...rest } = annotations
  return rest
}

/**
 * The same schema without its `parseOptions` annotations: what a lenient reading decodes with
 * `onExcessProperty: "ignore"` when the schema itself says `"error"` (the canonical blocks do, so
 * that the exported schemas reject unknown keys as the reference does).
 */
export const relax = <A, I>(schema: Schema.Schema<A, I>): Schema.Schema<A, I> => {
  const memo = new Map<AST.AST, AST.AST>()
  const go = (ast: AST.AST): AST.AST => {
    const known = memo.get(ast)
    if (known !== undefined) return known
    const out = rewrite(ast)
    memo.set(ast, out)
    return out
  }
  const rewrite = (ast: AST.AST): AST.AST => {
    switch (ast._tag) {
      case "TypeLiteral":
        return new AST.TypeLiteral(
          ast.propertySignatures.map((ps) =>
            new AST.PropertySignature(ps.name, go(ps.type), ps.isOptional, ps.isReadonly, ps.annotations)
          ),
          ast.indexSignatures.map((is) => new AST.IndexSignature(is.parameter, go(is.type), is.isReadonly)),
          withoutParseOptions(ast.annotations)
        )
      case "Union":
        return AST.Union.make(ast.types.map(go), withoutParseOptions(ast.annotations))
      case "TupleType":
        return new AST.TupleType(
          ast.elements.map((e) => new AST.OptionalType(go(e.type), e.isOptional, e.annotations)),
          ast.rest.map((r) => new AST.Type(go(r.type), r.annotations)),
          ast.isReadonly,
          withoutParseOptions(ast.annotations)
        )
      case "Refinement":
        return new AST.Refinement(go(ast.from), ast.filter, withoutParseOptions(ast.annotations))
      case "Transformation":
        return new AST.Transformation(
          go(ast.from),
          go(ast.to),
          ast.transformation,
          withoutParseOptions(ast.annotations)
        )
      case "Suspend": {
        const f = ast.f
        return new AST.Suspend(() => go(f()), withoutParseOptions(ast.annotations))
      }
      default:
        return ast
    }
  }
  return SchemaMake(go(schema.ast))
}

const defineProperty = Object.defineProperty

/**
 * A copy of a JSON value a guard has already passed (finite numbers, plain objects and arrays,
 * within the depth limit): new arrays and objects, keys in the same order. An own `__proto__` key
 * stays an own data property of the copy (as `JSON.parse` makes it), not the copy's prototype.
 */
export const copyJson = (value: Json.JsonValue): Json.JsonValue => {
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) {
    // a new plain array whatever the input's constructor (`slice` would keep a subclass)
    const items: ReadonlyArray<Json.JsonValue> = value
    const copy: Array<Json.JsonValue> = new Array(items.length)
    for (let i = 0; i < items.length; i++) copy[i] = copyJson(items[i]!)
    return copy
  }
  return copyJsonObject(value as Json.JsonObject)
}

/** A copy of a JSON object a guard has already passed, as {@link copyJson} makes it. */
export const copyJsonObject = (value: Json.JsonObject): Json.JsonObject => {
  // a spread copies the own enumerable keys (an own `__proto__` as an own data key) at the speed of
  // a literal; then every object or array in it is replaced by its copy
  const copy: { [key: string]: Json.JsonValue } = { ...value }
  for (const key in copy) {
    const item = copy[key]!
    if (typeof item !== "object" || item === null || !hasOwn.call(copy, key)) continue
    if (key === "__proto__") {
      defineProperty(copy, key, { value: copyJson(item), writable: true, enumerable: true, configurable: true })
    } else copy[key] = copyJson(item)
  }
  return copy
}
