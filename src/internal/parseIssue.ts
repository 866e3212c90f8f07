/**
 * The one mapping from a Schema `ParseError` to the place and the reason a tagged error reports.
 * Every decoder that builds a `MalformedInput` (or the client's `MalformedResponse`) from a failed
 * Schema decode goes through {@link issueOf}; they differ only in which issue of the error they
 * report:
 *
 * - `"first"`: the first issue, as `ArrayFormatter` lists them (canonical input, prompts, tool lists,
 *   server responses): the Schema stops at the first failure there anyway.
 * - `"deepest"`: the issue with the longest path, the first one on a tie (provider transcripts): a
 *   failed union reports every member it tried, and the member matching the input's shape fails
 *   deepest.
 * - `"specific"`: the issue followed down through the tree, at a union into the member that got past
 *   the value's type, or the union as a whole when none did (`Expected string | null, actual 5`),
 *   through refinements and transformations of the encoded side (Google transcripts).
 *
 * @internal
 */
import * as ParseResult from "effect/ParseResult"
import * as SchemaAST from "effect/SchemaAST"
import type * as ConversionError from "../ConversionError.js"

/** Which issue of a parse error to report. */
export type Pick = "first" | "deepest" | "specific"

/** Where a parse error points, and what it says there. */
export interface Issue {
  readonly path: ConversionError.Path
  readonly message: string
}

const keys = (path: ReadonlyArray<PropertyKey>): Array<string | number> =>
  path.filter((p): p is string | number => typeof p !== "symbol")

const issuesOf = (issue: ParseResult.Composite): ReadonlyArray<ParseResult.ParseIssue> =>
  Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue]

/** Did validation fail at this very value (its type), rather than somewhere inside it or on a predicate? */
const isShallow = (issue: ParseResult.ParseIssue): boolean => {
  switch (issue._tag) {
    case "Pointer":
      return false
    case "Composite":
      return SchemaAST.isUnion(issue.ast) && issuesOf(issue).every(isShallow)
    case "Refinement":
      return issue.kind === "From" && isShallow(issue.issue)
    case "Transformation":
      return isShallow(issue.issue)
    default:
      return true
  }
}

const specific = (issue: ParseResult.ParseIssue, path: ConversionError.Path): Issue => {
  switch (issue._tag) {
    case "Pointer": {
      const at: ReadonlyArray<PropertyKey> = Array.isArray(issue.path) ? issue.path : [issue.path as PropertyKey]
      return specific(issue.issue, [...path, ...keys(at)])
    }
    case "Composite": {
      const issues = issuesOf(issue)
      if (SchemaAST.isUnion(issue.ast)) {
        const deeper = issues.find((i) => !isShallow(i))
        return specific(deeper ?? new ParseResult.Type(issue.ast, issue.actual), path)
      }
      const [first] = issues
      if (first !== undefined) return specific(first, path)
      break
    }
    case "Refinement":
      if (issue.kind === "From") return specific(issue.issue, path)
      break
    case "Transformation":
      if (issue.kind === "Encoded") return specific(issue.issue, path)
      break
  }
  const [formatted] = ParseResult.ArrayFormatter.formatIssueSync(issue)
  return { path: [...path, ...keys(formatted?.path ?? [])], message: formatted?.message ?? "invalid input" }
}

const kind = (value: unknown): string =>
  Array.isArray(value) ? "an array" : value === null ? "null" : typeof value === "object" ? "an object" : typeof value

/**
 * The issue at a path that exists in `input`: a Schema union reports a missing key of a struct
 * member even where the value is no object (`$[0].type is missing` for an array at `$[0]`); there,
 * the issue is the value that is not of the kind the next step needs, at its own path.
 */
export const anchored = (input: unknown, issue: Issue): Issue => {
  let value = input
  for (let i = 0; i < issue.path.length; i++) {
    const step = issue.path[i]!
    if (
      typeof step === "number"
        ? !Array.isArray(value)
        : typeof value !== "object" || value === null || Array.isArray(value)
    ) {
      return {
        path: issue.path.slice(0, i),
        message: `expected ${typeof step === "number" ? "an array" : "an object"}, actual ${kind(value)}`
      }
    }
    if (i === issue.path.length - 1) break
    value = (value as { readonly [key: string]: unknown })[step as string]
  }
  return issue
}

/** The issue of `error` that `pick` chooses, at a path that exists in the input. */
export const issueOf = (error: ParseResult.ParseError, pick: Pick): Issue =>
  anchored((error.issue as { readonly actual?: unknown }).actual, chosen(error, pick))

const chosen = (error: ParseResult.ParseError, pick: Pick): Issue => {
  if (pick === "specific") return specific(error.issue, [])
  let best: Issue | undefined
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const path = keys(issue.path)
    if (best === undefined || (pick === "deepest" && path.length > best.path.length)) {
      best = { path, message: issue.message }
    }
    if (pick === "first") break
  }
  return best ?? { path: [], message: error.message }
}
