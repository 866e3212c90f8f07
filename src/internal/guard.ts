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
 *   a `Date`, a `Map`) is left to the Schema decode, which may still accept it.
 * - **depth**: an object or array nested more than {@link maxDepth} levels below the root (the
 *   root's elements are at level 1) fails the guard, so a cyclic value fails too. With
 *   `onExcessProperty: "ignore"`, the values of the keys a struct ignores are held to the same limit,
 *   as `wireInput.tooDeep` holds them before a provider's Schema decode.
 * - **excess keys**: with `onExcessProperty: "error"` every own key (symbols and non-enumerable keys
 *   included, as `Reflect.ownKeys` lists them) must be one the struct declares.
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

/** How deeply a guard lets input nest (the same limit as `wireInput.maxDepth`). */
export const maxDepth = 512

/** A compiled guard. */
export type Guard = (u: unknown) => boolean

/** Compile options: what a struct does with keys it does not declare, as in `ParseOptions`. */
export interface Options {
  readonly onExcessProperty: "error" | "ignore"
}

// a guard for a value found at `depth` (the root is at 0)
type Check = (u: unknown, depth: number) => boolean

const hasOwn = Object.prototype.hasOwnProperty
const getPrototypeOf = Object.getPrototypeOf
const objectPrototype = Object.prototype

/** A plain object, as `JSON.parse` builds them (not an array). */
export const isPlainObject = (u: unknown): u is { readonly [key: string]: unknown } => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto: unknown = getPrototypeOf(u)
  return proto === objectPrototype || proto === null
}

/** Does `u`, found at `depth`, nest no deeper than {@link maxDepth} (and is it acyclic)? */
export const withinDepth = (u: unknown, depth: number): boolean => {
  if (typeof u !== "object" || u === null) return true
  if (depth > maxDepth) return false
  if (Array.isArray(u)) {
    const items: ReadonlyArray<unknown> = u
    for (let i = 0; i < items.length; i++) if (!withinDepth(items[i], depth + 1)) return false
    return true
  }
  const record = u as { readonly [key: string]: unknown }
  for (const key in record) {
    if (hasOwn.call(record, key) && !withinDepth(record[key], depth + 1)) return false
  }
  return true
}

const always: Check = () => true
const never: Check = () => false

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

class Compiler {
  private readonly memo = new Map<AST.AST, Check>()
  private readonly other: Map<Options["onExcessProperty"], Compiler>
  constructor(private readonly options: Options, other?: Map<Options["onExcessProperty"], Compiler>) {
    this.other = other ?? new Map()
    this.other.set(options.onExcessProperty, this)
  }

  compile(ast: AST.AST): Check {
    // a `parseOptions` annotation overrides the caller's options below it, as in the Schema decode
    const mode = excessOf(ast)
    if (mode !== undefined && mode !== this.options.onExcessProperty) {
      const compiler = this.other.get(mode) ?? new Compiler({ onExcessProperty: mode }, this.other)
      return compiler.compile(ast)
    }
    const known = this.memo.get(ast)
    if (known !== undefined) return known
    // a forwarding cell, so that a recursive schema (through `suspend`) compiles once
    const ref: { check?: Check } = {}
    this.memo.set(ast, (u, depth) => ref.check!(u, depth))
    const check = ref.check = this.go(ast)
    this.memo.set(ast, check)
    return check
  }

  private go(ast: AST.AST): Check {
    switch (ast._tag) {
      case "Literal": {
        const literal = ast.literal
        return (u) => u === literal
      }
      case "UniqueSymbol": {
        const symbol = ast.symbol
        return (u) => u === symbol
      }
      case "UndefinedKeyword":
      case "VoidKeyword":
        return (u) => u === undefined
      case "NeverKeyword":
        return never
      case "UnknownKeyword":
      case "AnyKeyword":
        return always
      case "StringKeyword":
        return (u) => typeof u === "string"
      case "NumberKeyword":
        return (u) => typeof u === "number"
      case "BooleanKeyword":
        return (u) => typeof u === "boolean"
      case "BigIntKeyword":
        return (u) => typeof u === "bigint"
      case "SymbolKeyword":
        return (u) => typeof u === "symbol"
      case "ObjectKeyword":
        return (u) => (typeof u === "object" && u !== null) || typeof u === "function"
      case "Enums": {
        const values = new Set<unknown>(ast.enums.map(([, value]) => value))
        return (u) => values.has(u)
      }
      case "TupleType":
        return this.tuple(ast)
      case "TypeLiteral":
        return this.typeLiteral(ast)
      case "Union":
        return this.union(ast)
      case "Suspend": {
        let inner: Check | undefined
        const f = ast.f
        return (u, depth) => (inner ??= this.compile(f()))(u, depth)
      }
      case "Refinement": {
        const from = this.compile(ast.from)
        const filter = ast.filter
        const self = ast
        return (u, depth) => from(u, depth) && Option.isNone(filter(u, AST.defaultParseOption, self))
      }
      case "Transformation": {
        // only the defaults of `optionalWith`: a property-signature transformation decodes an
        // option to an option and cannot fail, and it renames nothing here
        const transformation = ast.transformation
        if (
          transformation._tag !== "TypeLiteralTransformation" ||
          transformation.propertySignatureTransformations.some((t) => t.from !== t.to)
        ) return unsupported(ast)
        return this.compile(ast.from)
      }
      default:
        return unsupported(ast)
    }
  }

  private tuple(ast: AST.TupleType): Check {
    const elements = ast.elements.map((e) => ({ check: this.compile(e.type), optional: e.isOptional }))
    const [head, ...tail] = ast.rest
    const rest = head === undefined ? undefined : this.compile(head.type)
    const trailing = tail.map((t) => this.compile(t.type))
    const min = elements.filter((e) => !e.optional).length + trailing.length
    if (elements.length === 0 && trailing.length === 0 && rest !== undefined) {
      // an array: the common case, one loop
      return (u, depth) => {
        if (!Array.isArray(u) || depth > maxDepth) return false
        const items: ReadonlyArray<unknown> = u
        const next = depth + 1
        for (let i = 0; i < items.length; i++) if (!rest(items[i], next)) return false
        return true
      }
    }
    return (u, depth) => {
      if (!Array.isArray(u) || depth > maxDepth) return false
      const items: ReadonlyArray<unknown> = u
      const next = depth + 1
      if (items.length < min) return false
      if (rest === undefined && items.length > elements.length) return false
      let i = 0
      for (; i < elements.length; i++) {
        if (i >= items.length) return elements[i]!.optional
        if (!elements[i]!.check(items[i], next)) return false
      }
      if (rest === undefined) return true
      const end = items.length - trailing.length
      for (; i < end; i++) if (!rest(items[i], next)) return false
      for (let j = 0; j < trailing.length; j++, i++) if (!trailing[j]!(items[i], next)) return false
      return true
    }
  }

  private typeLiteral(ast: AST.TypeLiteral): Check {
    const props = ast.propertySignatures.map((ps) => ({
      name: ps.name,
      optional: ps.isOptional,
      check: this.compile(ps.type)
    }))
    const indexes = ast.indexSignatures.map((is) => {
      const parameter = is.parameter
      if (parameter._tag !== "StringKeyword") return unsupported(parameter)
      return this.compile(is.type)
    })
    const declared = new Set<PropertyKey>(props.map((p) => p.name))
    const strict = this.options.onExcessProperty === "error"
    const count = props.length
    // `{}`: `Schema.Struct({})` accepts anything but `null` and `undefined`
    if (count === 0 && indexes.length === 0) return (u) => u !== null && u !== undefined
    return (u, depth) => {
      if (!isPlainObject(u) || depth > maxDepth) return false
      const next = depth + 1
      const record = u
      if (strict) {
        const keys = Reflect.ownKeys(record)
        for (let i = 0; i < keys.length; i++) {
          const key = keys[i]!
          if (!(indexes.length > 0 && typeof key === "string") && !declared.has(key)) return false
        }
      }
      for (let i = 0; i < count; i++) {
        const p = props[i]!
        if (hasOwn.call(record, p.name)) {
          if (!p.check(record[p.name as string], next)) return false
        } else if (!p.optional && !p.check(undefined, next)) return false
      }
      if (indexes.length > 0) {
        for (const key in record) {
          if (!hasOwn.call(record, key)) continue
          const value = record[key]
          for (let j = 0; j < indexes.length; j++) if (!indexes[j]!(value, next)) return false
        }
      } else if (!strict) {
        // the keys the struct ignores are held to the depth limit too
        for (const key in record) {
          if (!hasOwn.call(record, key) || declared.has(key)) continue
          if (!withinDepth(record[key], next)) return false
        }
      }
      return true
    }
  }

  private union(ast: AST.Union): Check {
    const members = ast.types.map((t) => this.compile(t))
    // the key most members require a literal at: a member is tried only when the input's value
    // there is one of its literals (a member without literals there is always tried)
    const counts = new Map<PropertyKey, number>()
    for (const t of ast.types) {
      for (const key of structKeys(t)) {
        if (literalsAt(t, key) !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1)
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
    if (tag === undefined) {
      const n = members.length
      return (u, depth) => {
        for (let i = 0; i < n; i++) if (members[i]!(u, depth)) return true
        return false
      }
    }
    const key = tag
    const otherwise: Array<Check> = []
    const buckets = new Map<unknown, Array<Check>>()
    ast.types.forEach((t, i) => {
      const literals = literalsAt(t, key)
      if (literals === undefined) {
        otherwise.push(members[i]!)
        for (const bucket of buckets.values()) bucket.push(members[i]!)
        return
      }
      for (const literal of literals) {
        let bucket = buckets.get(literal)
        if (bucket === undefined) buckets.set(literal, bucket = [...otherwise])
        if (!bucket.includes(members[i]!)) bucket.push(members[i]!)
      }
    })
    return (u, depth) => {
      const candidates = isPlainObject(u) && hasOwn.call(u, key)
        ? buckets.get(u[key as string]) ?? otherwise
        : otherwise
      for (let i = 0; i < candidates.length; i++) if (candidates[i]!(u, depth)) return true
      return false
    }
  }
}

const SchemaMake = <A, I>(ast: AST.AST): Schema.Schema<A, I> => Schema.make(ast)

const astOf = (schema: Schema.Schema.AnyNoContext | AST.AST): AST.AST => "ast" in schema ? schema.ast : schema

/**
 * Compile a guard for a schema's decoding: it passes exactly when the input decodes (a subset, for
 * the inputs it leaves to the Schema decode: values that are not plain, or nest too deeply).
 * Throws, at compile time only, when the schema uses what the interpreter does not implement.
 */
export const compile = (schema: Schema.Schema.AnyNoContext | AST.AST, options: Options): Guard => {
  const check = new Compiler(options).compile(astOf(schema))
  return (u) => {
    try {
      return check(u, 0)
    } catch {
      return false
    }
  }
}

/** Compile a guard for a value found at some depth below the root. */
export const compileAt = (
  schema: Schema.Schema.AnyNoContext | AST.AST,
  options: Options
): (u: unknown, depth: number) => boolean => {
  const check = new Compiler(options).compile(astOf(schema))
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
    const items: ReadonlyArray<Json.JsonValue> = value
    const copy: Array<Json.JsonValue> = new Array(items.length)
    for (let i = 0; i < items.length; i++) copy[i] = copyJson(items[i]!)
    return copy
  }
  return copyJsonObject(value as Json.JsonObject)
}

/** A copy of a JSON object a guard has already passed, as {@link copyJson} makes it. */
export const copyJsonObject = (value: Json.JsonObject): Json.JsonObject => {
  const copy: { [key: string]: Json.JsonValue } = {}
  for (const key in value) {
    if (!hasOwn.call(value, key)) continue
    const item = copyJson(value[key]!)
    if (key === "__proto__") {
      defineProperty(copy, key, { value: item, writable: true, enumerable: true, configurable: true })
    } else copy[key] = item
  }
  return copy
}
