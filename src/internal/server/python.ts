/**
 * Python spellings the reference server puts on the wire: `repr()` of strings and JSON values (in
 * error texts such as `unknown environment 'x'`), and pydantic's JSON spelling of a `float` field.
 *
 * @internal
 */
import { dumps } from "../pythonJson.js"

const notPrintable = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u

const hex = (code: number, width: number): string => code.toString(16).padStart(width, "0")

/**
 * `repr(s)` for a Python `str`: single quotes unless the text holds a single quote and no double
 * quote, backslash escapes for the quote, `\`, tab, newline and carriage return, `\xNN` for other
 * control characters and non-printable characters as `str.isprintable` judges them.
 *
 * @internal
 */
export const reprString = (s: string): string => {
  const quote = s.includes("'") && !s.includes("\"") ? "\"" : "'"
  let out = quote
  for (const ch of s) {
    const code = ch.codePointAt(0)!
    if (ch === quote || ch === "\\") out += "\\" + ch
    else if (ch === "\t") out += "\\t"
    else if (ch === "\n") out += "\\n"
    else if (ch === "\r") out += "\\r"
    else if (code < 0x20 || code === 0x7f) out += "\\x" + hex(code, 2)
    else if (code < 0x7f) out += ch
    else if (ch !== " " && notPrintable.test(ch)) {
      out += code <= 0xff ? "\\x" + hex(code, 2) : code <= 0xffff ? "\\u" + hex(code, 4) : "\\U" + hex(code, 8)
    } else out += ch
  }
  return out + quote
}

/**
 * `repr()` of a JSON value as Python holds it after `json.loads`: dicts, lists, `True`, `False`,
 * `None`. A tuple (a pydantic error location) is written from a {@link Tuple}.
 *
 * @internal
 */
export const repr = (value: unknown): string => {
  if (value === null || value === undefined) return "None"
  if (value instanceof Tuple) {
    return value.items.length === 1 ? `(${repr(value.items[0])},)` : `(${value.items.map(repr).join(", ")})`
  }
  switch (typeof value) {
    case "string":
      return reprString(value)
    case "number":
      return dumps(value)
    case "boolean":
      return value ? "True" : "False"
    case "object": {
      if (Array.isArray(value)) return `[${value.map(repr).join(", ")}]`
      const entries = Object.entries(value as Record<string, unknown>)
      return `{${entries.map(([k, v]) => `${reprString(k)}: ${repr(v)}`).join(", ")}}`
    }
    default:
      return "None"
  }
}

/**
 * A Python tuple, for {@link repr}.
 *
 * @internal
 */
export class Tuple {
  constructor(readonly items: ReadonlyArray<unknown>) {}
}

/**
 * A list of strings as Python prints it: `['a', 'b']`.
 *
 * @internal
 */
export const reprList = (items: ReadonlyArray<string>): string => `[${items.map(reprString).join(", ")}]`

/**
 * How pydantic writes a `float` field to JSON: integral values keep a `.0` below 1e16 and switch to
 * exponent form (`1e+16`) above; everything else is the shortest round-tripping form, which
 * `JSON.stringify` also produces.
 *
 * @internal
 */
export const floatJson = (n: number): string => {
  if (!Number.isFinite(n)) return "null"
  if (!Number.isInteger(n)) return JSON.stringify(n)
  if (Object.is(n, -0)) return "-0.0"
  return Math.abs(n) < 1e16 ? n.toFixed(1) : n.toExponential()
}
