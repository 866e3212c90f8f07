/**
 * The value-level import graph of a set of TypeScript modules, and its cycles, read with the
 * TypeScript parser (no type checking). An edge is an import or re-export that runs when the module
 * loads: `import type`, `export type` and imports or re-exports whose every name is `type X` are not
 * edges, nor is a dynamic `import()` (it runs later, if at all). Only relative specifiers are
 * followed (`./X.js` is the module `./X.ts`).
 */
import * as path from "node:path"
import ts from "typescript"

/** The value-level imports of one module's source, as the specifiers written. */
export const valueImports = (fileName: string, source: string): Array<string> => {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const out: Array<string> = []
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause
      if (clause !== undefined) {
        if (clause.isTypeOnly) continue
        const bindings = clause.namedBindings
        const onlyTypes = clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) &&
          bindings.elements.every((e) => e.isTypeOnly)
        if (onlyTypes) continue
      }
      if (ts.isStringLiteral(statement.moduleSpecifier)) out.push(statement.moduleSpecifier.text)
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.moduleSpecifier === undefined || statement.isTypeOnly) continue
      const clause = statement.exportClause
      if (clause !== undefined && ts.isNamedExports(clause) && clause.elements.every((e) => e.isTypeOnly)) continue
      if (ts.isStringLiteral(statement.moduleSpecifier)) out.push(statement.moduleSpecifier.text)
    }
  }
  return out
}

/**
 * The strongly connected components of the value-level import graph of `sources` (file name to
 * source text) that are cycles: more than one module, or one module that imports itself. Each is
 * sorted by file name; the list is sorted by its first name.
 */
export const importCycles = (sources: ReadonlyMap<string, string>): Array<Array<string>> => {
  const edges = new Map<string, Array<string>>()
  for (const [file, source] of sources) {
    const targets: Array<string> = []
    for (const specifier of valueImports(file, source)) {
      if (!specifier.startsWith(".")) continue
      const base = path.resolve(path.dirname(file), specifier)
      const target = [base, base.replace(/\.js$/, ".ts"), `${base}.ts`, path.join(base, "index.ts")]
        .find((candidate) => sources.has(candidate))
      if (target !== undefined) targets.push(target)
    }
    edges.set(file, targets)
  }
  // Tarjan's algorithm
  let counter = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const cycles: Array<Array<string>> = []
  const visit = (v: string): void => {
    index.set(v, counter)
    low.set(v, counter)
    counter++
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) === index.get(v)) {
      const component: Array<string> = []
      let w: string
      do {
        w = stack.pop()!
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      if (component.length > 1 || (edges.get(v) ?? []).includes(v)) cycles.push(component.sort())
    }
  }
  for (const file of sources.keys()) if (!index.has(file)) visit(file)
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!))
}
