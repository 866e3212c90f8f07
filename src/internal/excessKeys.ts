/**
 * The keys of an input that its wire schema does not declare: what a decoder reading with
 * `onExcessProperty: "ignore"` leaves out. Read from the same Schema the decoder validates with
 * (declared once, interpreted here a third time, after the guard and the Schema decode), so a key
 * the schema declares is never reported and a key it does not is never missed.
 *
 * The walk follows the value: a struct's declared keys are walked into with their schemas, any other
 * key (with a value other than `null`) is reported; an array's items with the element schemas; a
 * union through the first member whose guard accepts the value (guard.ts, compiled on first use per
 * member); refinements and transformations through the side they check (`from`). A JSON value
 * (`Json.JsonValue`, `Json.JsonObject`) and an index signature declare every key. Only input that
 * decoded is walked, so it is within the depth limit.
 *
 * Only run when a caller asks for losses: nothing here runs on a plain decode.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"
import * as Guard from "./guard.js"
import { isRecord } from "./plain.js"

type Path = ReadonlyArray<string | number>

/** A key no schema declares: where it is (its own key last) and its value. */
export interface Excess {
  readonly path: Path
  readonly key: string
  readonly value: unknown
}

const hasOwn = Object.prototype.hasOwnProperty

const guards = new WeakMap<AST.AST, Guard.Guard>()

const accepts = (ast: AST.AST, value: unknown): boolean => {
  let guard = guards.get(ast)
  if (guard === undefined) {
    guard = Guard.compile(ast, { onExcessProperty: "ignore" })
    guards.set(ast, guard)
  }
  return guard(value)
}

const isJson = (ast: AST.AST): boolean =>
  ast.annotations[Guard.JsonCopyAnnotationId] !== undefined ||
  ast.annotations[Guard.JsonDepthAnnotationId] !== undefined

const walk = (ast: AST.AST, value: unknown, path: Array<string | number>, out: Array<Excess>, root: boolean) => {
  if (typeof value !== "object" || value === null) return
  if (isJson(ast)) return
  switch (ast._tag) {
    case "TypeLiteral": {
      if (Array.isArray(value) || !isRecord(value)) return
      const everyKey = ast.indexSignatures.length > 0
      for (const key in value) {
        if (!hasOwn.call(value, key)) continue
        const item = value[key]
        const signature = ast.propertySignatures.find((ps) => ps.name === key)
        if (signature !== undefined) {
          path.push(key)
          walk(signature.type, item, path, out, false)
          path.pop()
        } else if (everyKey) {
          path.push(key)
          walk(ast.indexSignatures[0]!.type, item, path, out, false)
          path.pop()
        } else if (!root && item !== null && item !== undefined) {
          out.push({ path: [...path, key], key, value: item })
        }
      }
      return
    }
    case "TupleType": {
      if (!Array.isArray(value)) return
      const items: ReadonlyArray<unknown> = value
      for (let i = 0; i < items.length; i++) {
        const element = ast.elements[i]
        const type = element !== undefined ? element.type : ast.rest[0]?.type
        if (type === undefined) continue
        path.push(i)
        walk(type, items[i], path, out, false)
        path.pop()
      }
      return
    }
    case "Union": {
      for (const member of ast.types) {
        if (accepts(member, value)) return walk(member, value, path, out, root)
      }
      return
    }
    case "Refinement":
    case "Transformation":
      return walk(ast.from, value, path, out, root)
    case "Suspend":
      return walk(ast.f(), value, path, out, root)
    default:
      return
  }
}

/**
 * Every key in `value` that `schema` does not declare, in document order, with its path from
 * `value`. With `root`, the top level's own keys are left out (a request body's keys are another
 * rule's to report: `requestBody.ts`).
 */
export const excessKeys = (
  schema: Schema.Schema.AnyNoContext | AST.AST,
  value: unknown,
  options?: { readonly root?: boolean }
): ReadonlyArray<Excess> => {
  const out: Array<Excess> = []
  walk(Schema.isSchema(schema) ? schema.ast : schema, value, [], out, options?.root === true)
  return out
}
