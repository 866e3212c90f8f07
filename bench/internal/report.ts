/**
 * Plain-text tables and number formatting for the benchmark report.
 */

/** A table: a header row and data rows, all cells already formatted. */
export interface Table {
  readonly header: ReadonlyArray<string>
  readonly rows: ReadonlyArray<ReadonlyArray<string>>
  /** Columns (by index) to align left; the rest align right. */
  readonly left?: ReadonlyArray<number>
}

const width = (s: string): number => [...s].length

/** Render a table with aligned columns. */
export const render = (table: Table): string => {
  const all = [table.header, ...table.rows]
  const widths = table.header.map((_, c) => Math.max(...all.map((row) => width(row[c] ?? ""))))
  const left = new Set(table.left ?? [0])
  const line = (row: ReadonlyArray<string>) =>
    row.map((cell, c) => {
      const pad = " ".repeat((widths[c] ?? 0) - width(cell))
      return left.has(c) ? cell + pad : pad + cell
    }).join("  ").trimEnd()
  const rule = widths.map((w) => "-".repeat(w)).join("  ")
  return [line(table.header), rule, ...table.rows.map(line)].join("\n")
}

/** A count with an SI suffix and three significant digits: `1.23 M`. */
export const si = (n: number): string => {
  if (!Number.isFinite(n)) return "n/a"
  const units: ReadonlyArray<[number, string]> = [[1e9, "G"], [1e6, "M"], [1e3, "k"]]
  for (const [scale, unit] of units) if (Math.abs(n) >= scale) return `${(n / scale).toPrecision(3)} ${unit}`
  return n.toPrecision(3)
}

/** A duration in nanoseconds, in the most readable unit. */
export const duration = (ns: number): string => {
  if (!Number.isFinite(ns)) return "n/a"
  if (ns >= 1e9) return `${(ns / 1e9).toPrecision(3)} s`
  if (ns >= 1e6) return `${(ns / 1e6).toPrecision(3)} ms`
  if (ns >= 1e3) return `${(ns / 1e3).toPrecision(3)} µs`
  return `${ns.toPrecision(3)} ns`
}

/** Bytes in binary units. */
export const bytes = (n: number): string => {
  if (!Number.isFinite(n)) return "n/a"
  if (Math.abs(n) >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`
  if (Math.abs(n) >= 1024) return `${(n / 1024).toFixed(1)} KiB`
  return `${Math.round(n)} B`
}

/** A ratio to two decimals with a pass/fail mark against `target` (higher is better). */
export const ratio = (r: number, target?: number): string => {
  if (!Number.isFinite(r)) return "n/a"
  const text = `${r.toFixed(2)}x`
  return target === undefined ? text : `${text} ${r >= target ? "ok" : "MISS"}`
}
