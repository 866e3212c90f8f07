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
 * The compiler is a small interpreter over the part of the Schema AST the wire schemas use:
 * literals, keyword types, structs (`TypeLiteral`) with optional keys and index signatures, arrays
 * and tuples, unions (dispatched on a literal-typed key when their members have one), refinements
 * (their filter is called), `suspend`, and the property-signature transformations of
 * `optionalWith(..., { default })` (a default cannot fail, so the encoded side is what is checked).
 * Anything else is refused when the guard is compiled, so a schema the guard cannot judge exactly
 * is found at module load, not at run time.
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
 *   as `wireInput.tooDeep` holds them before a provider's Schema decode.
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
import { maxDepth, withinDepth } from "./plain.js"

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
const getPrototypeOf = Object.getPrototypeOf
const objectPrototype = Object.prototype

class Unsupported extends Error {}

const unsupported = (ast: AST.AST): never => {
  throw new Unsupported(`guard: unsupported schema node ${ast._tag} (${String(ast)})`)
}

/** The literal values a struct-like member requires at `key`, or `undefined` if it does not. */
const literalsAt = (ast: AST.AST, key: PropertyKey): ReadonlyArray<AST.LiteralValue> | undefined => {
  switch (ast._tag) {
    case "Refinement":
      return literalsAt(ast.from, key)
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

const excessOf = (ast: AST.AST): Options["onExcessProperty"] | undefined => {
  const annotation = AST.getParseOptionsAnnotation(ast)
  if (Option.isNone(annotation)) return undefined
  const mode = annotation.value.onExcessProperty
  return mode === undefined ? undefined : mode === "error" ? "error" : "ignore"
}

type Mode = Options["onExcessProperty"]

// A JavaScript literal for a property key or a literal value, or `undefined` when it has none
const literalSource = (value: unknown): string | undefined =>
  typeof value === "string" || typeof value === "boolean" || value === null ||
    (typeof value === "number" && Number.isFinite(value))
    ? JSON.stringify(value)
    : undefined

/**
 * The compiler proper. Each schema node becomes one small named function in generated source, with
 * its property names and literals written in as constants: a property read is then a named read
 * with its own inline cache, as in a hand-written walk, where an interpreter's `record[name]` is one
 * keyed read shared by every struct (measured about 10 times slower). Only structure from the
 * schema is written into the source (names and literals through `JSON.stringify`); filters, sets
 * and symbols are passed in as values.
 */
class Generator {
  private readonly names = new Map<AST.AST, Map<Mode, string>>()
  private readonly functions: Array<string> = []
  private readonly refs: Array<unknown> = []

  ref(value: unknown): string {
    this.refs.push(value)
    return `r[${this.refs.length - 1}]`
  }

  /** The name of the function that checks `ast` in `mode`, generating it on first use. */
  name(ast: AST.AST, mode: Mode): string {
    const own = excessOf(ast)
    if (own !== undefined) mode = own
    let byMode = this.names.get(ast)
    if (byMode === undefined) this.names.set(ast, byMode = new Map())
    const known = byMode.get(mode)
    if (known !== undefined) return known
    // a recursive schema whose `suspend` makes a new node on every call (what `Schema.typeSchema`
    // makes of one) never closes: refuse it rather than generate without end
    if (this.functions.length > 5000) return unsupported(ast)
    const name = `g${this.functions.length}`
    byMode.set(mode, name)
    this.functions.push("")
    const index = this.functions.length - 1
    this.functions[index] = `function ${name}(u, d) {\n${this.body(ast, mode)}\n}`
    return name
  }

  /**
   * An expression that checks `value` (found at `depth`) against `ast`: written inline for a
   * literal, a keyword or a union of them, a call of the node's function otherwise.
   */
  check(ast: AST.AST, mode: Mode, value: string, depth: string): string {
    const inline = this.inline(ast, value)
    return inline ?? `${this.name(ast, mode)}(${value}, ${depth})`
  }

  private inline(ast: AST.AST, value: string): string | undefined {
    if (excessOf(ast) !== undefined) return undefined
    switch (ast._tag) {
      case "Literal": {
        const literal = literalSource(ast.literal)
        return literal === undefined ? undefined : `${value} === ${literal}`
      }
      case "UndefinedKeyword":
      case "VoidKeyword":
        return `${value} === undefined`
      case "StringKeyword":
        return `typeof ${value} === "string"`
      case "NumberKeyword":
        return `typeof ${value} === "number"`
      case "BooleanKeyword":
        return `typeof ${value} === "boolean"`
      case "Union": {
        if (ast.types.length > 8) return undefined
        const members = ast.types.map((t) => this.inline(t, value))
        return members.every((m) => m !== undefined) ? `(${members.join(" || ")})` : undefined
      }
      default:
        return undefined
    }
  }

  build(ast: AST.AST, mode: Mode): (u: unknown, depth: number) => boolean {
    const root = this.name(ast, mode)
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
      source
    )
    return make(
      this.refs,
      hasOwn,
      getPrototypeOf,
      objectPrototype,
      Array.isArray,
      withinDepth,
      Option.isNone,
      AST.defaultParseOption,
      maxDepth
    )
  }

  private body(ast: AST.AST, mode: Mode): string {
    switch (ast._tag) {
      case "Literal": {
        const literal = literalSource(ast.literal)
        return `return u === ${literal ?? this.ref(ast.literal)}`
      }
      case "UniqueSymbol":
        return `return u === ${this.ref(ast.symbol)}`
      case "UndefinedKeyword":
      case "VoidKeyword":
        return "return u === undefined"
      case "NeverKeyword":
        return "return false"
      case "UnknownKeyword":
      case "AnyKeyword":
        // whatever it is, it is held to the depth limit
        return "return withinDepth(u, d)"
      case "StringKeyword":
        return `return typeof u === "string"`
      case "NumberKeyword":
        return `return typeof u === "number"`
      case "BooleanKeyword":
        return `return typeof u === "boolean"`
      case "BigIntKeyword":
        return `return typeof u === "bigint"`
      case "SymbolKeyword":
        return `return typeof u === "symbol"`
      case "ObjectKeyword":
        return `return (typeof u === "object" && u !== null) || typeof u === "function"`
      case "Enums":
        return `return ${this.ref(new Set<unknown>(ast.enums.map(([, value]) => value)))}.has(u)`
      case "TupleType":
        return this.tuple(ast, mode)
      case "TypeLiteral":
        return this.typeLiteral(ast, mode)
      case "Union":
        return this.union(ast, mode)
      case "Suspend":
        return `return ${this.name(ast.f(), mode)}(u, d)`
      case "Refinement":
        return `return ${this.name(ast.from, mode)}(u, d) && isNone(${this.ref(ast.filter)}(u, options, ${
          this.ref(ast)
        }))`
      case "Declaration": {
        const check = ast.annotations[JsonDepthAnnotationId]
        if (typeof check !== "function") return unsupported(ast)
        return `return ${this.ref(check)}(u, d)`
      }
      case "Transformation": {
        if (ast.annotations[JsonCopyAnnotationId] === true) return `return ${this.name(ast.from, mode)}(u, d)`
        // only the defaults of `optionalWith`: a property-signature transformation decodes an
        // option to an option and cannot fail, and it renames nothing here
        const transformation = ast.transformation
        if (
          transformation._tag !== "TypeLiteralTransformation" ||
          transformation.propertySignatureTransformations.some((t) => t.from !== t.to)
        ) return unsupported(ast)
        return `return ${this.name(ast.from, mode)}(u, d)`
      }
      default:
        return unsupported(ast)
    }
  }

  private tuple(ast: AST.TupleType, mode: Mode): string {
    const elements = ast.elements.map((e) => ({ check: this.name(e.type, mode), optional: e.isOptional }))
    const [head, ...tail] = ast.rest
    const rest = head === undefined ? undefined : this.name(head.type, mode)
    const trailing = tail.map((t) => this.name(t.type, mode))
    const lines = ["if (!Array.isArray(u) || d > max) return false", "const n = d + 1"]
    if (elements.length === 0 && trailing.length === 0 && rest !== undefined) {
      const item = this.check(head!.type, mode, "u[i]", "n")
      lines.push(`for (let i = 0; i < u.length; i++) if (!(${item})) return false`, "return true")
      return lines.join("\n")
    }
    const min = elements.filter((e) => !e.optional).length + trailing.length
    lines.push(`if (u.length < ${min}) return false`)
    if (rest === undefined) lines.push(`if (u.length > ${elements.length}) return false`)
    elements.forEach((e, i) => {
      lines.push(`if (u.length <= ${i}) return ${e.optional}`)
      lines.push(`if (!${e.check}(u[${i}], n)) return false`)
    })
    if (rest !== undefined) {
      lines.push(
        `const end = u.length - ${trailing.length}`,
        `let i = ${elements.length}`,
        `for (; i < end; i++) if (!${rest}(u[i], n)) return false`
      )
      for (const t of trailing) lines.push(`if (!${t}(u[i++], n)) return false`)
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

  private typeLiteral(ast: AST.TypeLiteral, mode: Mode): string {
    const props = ast.propertySignatures
    const indexes = ast.indexSignatures.map((is) => {
      if (is.parameter._tag !== "StringKeyword") return unsupported(is.parameter)
      return this.name(is.type, mode)
    })
    // `{}`: `Schema.Struct({})` accepts anything but `null` and `undefined`
    if (props.length === 0 && indexes.length === 0) return "return u !== null && u !== undefined"
    if (props.length > 30) return unsupported(ast)
    const keys = props.map((ps) => this.key(ps.name))
    // One pass over the own enumerable keys (`for...in` with the own-key test, which V8 runs from
    // the object's enum cache): a declared key is marked seen, any other key is an error, a value
    // of the index signatures, or held to the depth limit.
    const other = indexes.length > 0
      ? indexes.map((check) => `if (!${check}(u[k], n)) return false`).join("; ")
      : mode === "error"
      ? "return false"
      : "if (!withinDepth(u[k], n)) return false"
    const lines = [
      `if (${notPlain("u")} || d > max) return false`,
      "const n = d + 1",
      "let seen = 0",
      "for (const k in u) {",
      "  if (!hasOwn.call(u, k)) continue",
      "  switch (k) {",
      ...props.map((ps, i) =>
        typeof ps.name === "string" ? `    case ${keys[i]!.source}: seen |= ${1 << i}; break` : ""
      ),
      `    default: ${other}`,
      "  }",
      "}"
    ]
    props.forEach((ps, i) => {
      const { read } = keys[i]!
      const bit = 1 << i
      const present = this.check(ps.type, mode, read, "n")
      const absent = this.check(ps.type, mode, "undefined", "n")
      // seen: check its value. Not seen: an own key read from no enum cache (non-enumerable), an
      // inherited one or a getter on the prototype is the Schema's to judge; an absent key is
      // `undefined` to a required key's type, as in the Schema's non-exact reading.
      lines.push(
        `if ((seen & ${bit}) !== 0) { if (!(${present})) return false }`,
        `else if (${read} !== undefined${ps.isOptional ? "" : ` || !(${absent})`}) return false`
      )
    })
    lines.push("return true")
    return lines.join("\n")
  }

  private union(ast: AST.Union, mode: Mode): string {
    const members = ast.types.map((t) => this.name(t, mode))
    const any = (names: ReadonlyArray<string>): string =>
      names.length === 0 ? "false" : names.map((m) => `${m}(u, d)`).join(" || ")
    // the key most members require a literal at: a member is tried only when the input's value
    // there is one of its literals (a member without literals there is always tried)
    const counts = new Map<PropertyKey, number>()
    for (const t of ast.types) {
      for (const key of structKeys(t)) {
        const literals = literalsAt(t, key)
        if (literals !== undefined && literals.every((l) => literalSource(l) !== undefined)) {
          counts.set(key, (counts.get(key) ?? 0) + 1)
        }
      }
    }
    let tag: PropertyKey | undefined
    let best = 1
    for (const [key, n] of counts) {
      if (n > best) {
        tag = key
        best = n
      }
    }
    if (tag === undefined) return `return ${any(members)}`
    const key = tag
    const otherwise: Array<string> = []
    const buckets = new Map<string, Array<string>>()
    ast.types.forEach((t, i) => {
      const literals = literalsAt(t, key)
      if (literals === undefined || literals.some((l) => literalSource(l) === undefined)) {
        otherwise.push(members[i]!)
        return
      }
      for (const literal of literals) {
        const source = literalSource(literal)!
        let bucket = buckets.get(source)
        if (bucket === undefined) buckets.set(source, bucket = [])
        if (!bucket.includes(members[i]!)) bucket.push(members[i]!)
      }
    })
    const { read, source } = this.key(key)
    const lines = [
      `if (!${notPlain("u")} && hasOwn.call(u, ${source})) {`,
      `  switch (${read}) {`
    ]
    for (const [literal, bucket] of buckets) {
      lines.push(`    case ${literal}: return ${any([...bucket, ...otherwise])}`)
    }
    lines.push("  }", "}", `return ${any(otherwise)}`)
    return lines.join("\n")
  }
}

// `!isPlainObject(value)` as an expression, written into every generated function so that each
// has its own feedback for the prototype read (one shared function sees every shape)
const notPlain = (value: string): string =>
  `(typeof ${value} !== "object" || ${value} === null || isArray(${value}) || ` +
  `(proto(${value}) !== objectPrototype && proto(${value}) !== null))`

const compileCheck = (ast: AST.AST, options: Options): (u: unknown, depth: number) => boolean =>
  new Generator().build(ast, options.onExcessProperty)

const SchemaMake = <A, I>(ast: AST.AST): Schema.Schema<A, I> => Schema.make(ast)

const astOf = (schema: Schema.Schema.AnyNoContext | AST.AST): AST.AST => "ast" in schema ? schema.ast : schema

/**
 * Compile a guard for a schema's decoding: it passes exactly when the input decodes (a subset, for
 * the inputs it leaves to the Schema decode: values that are not plain, or nest too deeply).
 * Throws, at compile time only, when the schema uses what the interpreter does not implement.
 */
export const compile = (schema: Schema.Schema.AnyNoContext | AST.AST, options: Options): Guard => {
  const check = compileCheck(astOf(schema), options)
  return (u) => {
    try {
      return check(u, 0)
    } catch {
      return false
    }
  }
}

/**
 * A type guard for an already-decoded value of a schema whose decoding transforms nothing (its
 * excess keys ignored), as `Schema.is` is, for picking a member of a decoded union.
 */
export const is = <A, I>(schema: Schema.Schema<A, I>): (u: unknown) => u is A =>
  compile(schema, { onExcessProperty: "ignore" }) as (u: unknown) => u is A

/** Compile a guard for a value found at some depth below the root. */
export const compileAt = (
  schema: Schema.Schema.AnyNoContext | AST.AST,
  options: Options
): (u: unknown, depth: number) => boolean => {
  const check = compileCheck(astOf(schema), options)
  return (u, depth) => {
    try {
      return check(u, depth)
    } catch {
      return false
    }
  }
}

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
