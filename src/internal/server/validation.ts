/**
 * Request-body validation errors in the shape FastAPI (pydantic 2) answers with, so a 422 from this
 * server reads like one from the reference: `{"detail": [{"type", "loc", "msg", "input"}]}`.
 *
 * An Effect Schema `ParseIssue` tree is walked to its leaves; each leaf becomes one item with the
 * pydantic error `type` and message for the expected type. Unions of a type with `null` (the
 * reference's `Optional[...]` fields) report only the non-null branch, as pydantic does.
 *
 * @internal
 */
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as AST from "effect/SchemaAST"
import * as ProtoKeys from "../protoKeys.js"

/**
 * One pydantic-style validation error.
 *
 * @internal
 */
export interface Item {
  readonly type: string
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly input: unknown
  readonly ctx?: Readonly<Record<string, unknown>>
}

type Hint = "int" | undefined

const isInt = (ast: AST.AST): boolean =>
  AST.isRefinement(ast) && Option.getOrUndefined(AST.getSchemaIdAnnotation(ast)) === Symbol.for("effect/SchemaId/Int")

const isNullish = (ast: AST.AST): boolean =>
  (AST.isLiteral(ast) && ast.literal === null) || AST.isUndefinedKeyword(ast) || AST.isVoidKeyword(ast)

/** A struct, as the Schema declares one (its decoding may fill in defaults). */
const isModel = (ast: AST.AST): boolean =>
  AST.isTypeLiteral(ast) || (AST.isTransformation(ast) && AST.isTypeLiteral(ast.to))

const unwrap = (ast: AST.AST): AST.AST => {
  if (AST.isRefinement(ast)) return unwrap(ast.from)
  if (AST.isTransformation(ast)) return unwrap(ast.to)
  if (AST.isSuspend(ast)) return unwrap(ast.f())
  return ast
}

const literalText = (literal: AST.LiteralValue): string =>
  typeof literal === "string" ? `'${literal}'` : literal === null ? "None" : String(literal)

const typeItem = (
  ast: AST.AST,
  actual: unknown,
  loc: ReadonlyArray<string | number>,
  hint: Hint,
  root: boolean
): Item => {
  const expected = unwrap(ast)
  if (hint === "int" || isInt(ast)) {
    if (typeof actual === "number" && Number.isFinite(actual) && !Number.isInteger(actual)) {
      return {
        type: "int_from_float",
        loc,
        msg: "Input should be a valid integer, got a number with a fractional part",
        input: actual
      }
    }
    return typeof actual === "string"
      ? {
        type: "int_parsing",
        loc,
        msg: "Input should be a valid integer, unable to parse string as an integer",
        input: actual
      }
      : { type: "int_type", loc, msg: "Input should be a valid integer", input: actual }
  }
  switch (expected._tag) {
    case "StringKeyword":
      return { type: "string_type", loc, msg: "Input should be a valid string", input: actual }
    case "NumberKeyword":
      return { type: "float_type", loc, msg: "Input should be a valid number", input: actual }
    case "BooleanKeyword":
      return { type: "bool_type", loc, msg: "Input should be a valid boolean", input: actual }
    case "TupleType":
      return { type: "list_type", loc, msg: "Input should be a valid list", input: actual }
    case "TypeLiteral":
      return expected.propertySignatures.length > 0 || root
        ? {
          type: "model_attributes_type",
          loc,
          msg: "Input should be a valid dictionary or object to extract fields from",
          input: actual
        }
        : { type: "dict_type", loc, msg: "Input should be a valid dictionary", input: actual }
    case "Literal":
      return {
        type: "literal_error",
        loc,
        msg: `Input should be ${literalText(expected.literal)}`,
        input: actual,
        ctx: { expected: literalText(expected.literal) }
      }
    case "Union": {
      const literals = expected.types.filter(AST.isLiteral)
      if (literals.length === expected.types.length) {
        const texts = literals.map((l) => literalText(l.literal))
        const expectedText = texts.length > 1 ? `${texts.slice(0, -1).join(", ")} or ${texts.at(-1)}` : texts.join("")
        return {
          type: "literal_error",
          loc,
          msg: `Input should be ${expectedText}`,
          input: actual,
          ctx: { expected: expectedText }
        }
      }
      const others = expected.types.filter((t) => !isNullish(t))
      if (others.length === 1) return typeItem(others[0]!, actual, loc, hint, root)
      return { type: "value_error", loc, msg: "Input should match one of the allowed types", input: actual }
    }
    default:
      return { type: "value_error", loc, msg: "Value error, invalid value", input: actual }
  }
}

const walk = (
  issue: ParseResult.ParseIssue,
  loc: ReadonlyArray<string | number>,
  parent: unknown,
  hint: Hint,
  out: Array<Item>
): void => {
  switch (issue._tag) {
    case "Pointer": {
      const path = Array.isArray(issue.path) ? issue.path : [issue.path]
      const keys = path.map((k) => typeof k === "symbol" ? String(k) : k === ProtoKeys.standIn ? "__proto__" : k)
      walk(issue.issue, [...loc, ...keys], issue.actual, hint, out)
      return
    }
    case "Composite": {
      const issues = Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue]
      if (AST.isUnion(issue.ast)) {
        // pydantic reports an `Optional[X]` mismatch as X's error alone.
        const relevant = issues.filter((i) => !(i._tag === "Type" && isNullish(i.ast)))
        const chosen = relevant.length === 1 ? relevant : issues
        if (chosen.length > 1 && chosen.every((i) => i._tag === "Type")) {
          out.push(typeItem(issue.ast, issue.actual, loc, hint, loc.length <= 1))
          return
        }
        for (const i of chosen) walk(i, loc, issue.actual, hint, out)
        return
      }
      for (const i of issues) walk(i, loc, issue.actual, hint, out)
      return
    }
    case "Missing":
      out.push({ type: "missing", loc, msg: "Field required", input: parent ?? null })
      return
    case "Unexpected":
      out.push({ type: "extra_forbidden", loc, msg: "Extra inputs are not permitted", input: issue.actual })
      return
    case "Type":
      out.push(typeItem(issue.ast, issue.actual, loc, hint, loc.length <= 1))
      return
    case "Refinement":
      if (issue.kind === "From") {
        walk(issue.issue, loc, parent, isInt(issue.ast) ? "int" : hint, out)
      } else if (isInt(issue.ast) && typeof issue.actual === "number") {
        out.push({
          type: "int_from_float",
          loc,
          msg: "Input should be a valid integer, got a number with a fractional part",
          input: issue.actual
        })
      } else {
        out.push({
          type: "value_error",
          loc,
          msg: `Value error, ${issueMessage(issue.issue)}`,
          input: issue.actual,
          // A refinement of a whole struct is a pydantic model validator, whose error carries the
          // exception raised (written as `{}` in JSON).
          ...(isModel(issue.ast.from) ? { ctx: { error: {} } } : {})
        })
      }
      return
    case "Transformation":
      walk(issue.issue, loc, parent, hint, out)
      return
    case "Forbidden":
      out.push({ type: "value_error", loc, msg: `Value error, ${issue.message ?? "forbidden"}`, input: issue.actual })
      return
  }
}

const issueMessage = (issue: ParseResult.ParseIssue): string =>
  ("message" in issue && typeof issue.message === "string" ? issue.message : undefined) ?? "invalid value"

/**
 * The most characters of JSON an item quotes its input with: a larger input is quoted as an
 * excerpt, a string of its JSON's first {@link excerptLength} characters followed by `...`.
 *
 * @internal
 */
export const quoteLimit = 1024

/**
 * How many characters of a larger input's JSON its excerpt keeps.
 *
 * @internal
 */
export const excerptLength = 256

/**
 * The most items listed; the rest are counted in one last item (`too_many_errors`).
 *
 * @internal
 */
export const maxItems = 100

/** Write `value` as JSON, stopping once the text passes `limit` characters. */
const writeBounded = (value: unknown, limit: number): { readonly text: string; readonly complete: boolean } => {
  let text = ""
  let complete = true
  const write = (u: unknown, depth: number): void => {
    if (text.length > limit) {
      complete = false
      return
    }
    switch (typeof u) {
      case "string":
        if (u.length > limit) complete = false
        text += JSON.stringify(u.length > limit ? u.slice(0, limit) : u)
        return
      case "number":
      case "boolean":
        text += JSON.stringify(u)
        return
      case "object": {
        if (u === null) {
          text += "null"
          return
        }
        if (depth > 64) {
          text += "..."
          complete = false
          return
        }
        if (Array.isArray(u)) {
          text += "["
          for (let i = 0; i < u.length && text.length <= limit; i++) {
            if (i > 0) text += ","
            write(u[i], depth + 1)
          }
          if (text.length > limit) complete = false
          text += "]"
          return
        }
        text += "{"
        let first = true
        for (const key of Object.keys(u)) {
          if (text.length > limit) {
            complete = false
            break
          }
          if (!first) text += ","
          first = false
          text += JSON.stringify(key === ProtoKeys.standIn ? "__proto__" : key) + ":"
          write((u as Record<string, unknown>)[key], depth + 1)
        }
        text += "}"
        return
      }
      default:
        text += JSON.stringify(String(u))
    }
  }
  write(value, 0)
  return { text, complete: complete && text.length <= limit }
}

/**
 * An input as an item quotes it: as it is when its JSON is at most {@link quoteLimit} characters
 * (what pydantic quotes), else an excerpt (the request's body may be megabytes; its answer is not).
 *
 * @internal
 */
export const quote = (input: unknown): unknown => {
  if (typeof input === "string") {
    return input.length <= quoteLimit ? input : `${input.slice(0, excerptLength)}...`
  }
  if (typeof input !== "object" || input === null) return input
  const { complete, text } = writeBounded(input, quoteLimit)
  return complete ? ProtoKeys.restore(input) : `${text.slice(0, excerptLength)}...`
}

/**
 * Items as an answer lists them: each input quoted (see {@link quote}), at most {@link maxItems}
 * of them, and the number of the others in a last item.
 *
 * @internal
 */
export const bounded = (items: ReadonlyArray<Item>, loc: ReadonlyArray<string | number>): Array<Item> => {
  const out = items.slice(0, maxItems).map((item) => ({ ...item, input: quote(item.input) }))
  if (items.length > maxItems) {
    const more = items.length - maxItems
    out.push({
      type: "too_many_errors",
      loc,
      msg: `${more} more error${more === 1 ? "" : "s"} not listed`,
      input: null
    })
  }
  return out
}

/**
 * The pydantic-style items of a parse issue, each located under `prefix` (`["body"]` for a request
 * body, `[]` for a tool input), bounded (see {@link bounded}).
 *
 * @internal
 */
export const items = (issue: ParseResult.ParseIssue, prefix: ReadonlyArray<string | number>): Array<Item> => {
  const out: Array<Item> = []
  walk(issue, prefix, undefined, undefined, out)
  // pydantic reports the declared fields in order, and unexpected keys after them.
  return bounded(
    [...out.filter((i) => i.type !== "extra_forbidden"), ...out.filter((i) => i.type === "extra_forbidden")],
    prefix
  )
}
