/**
 * `json.dumps` as CPython writes it with its defaults (`ensure_ascii=True`, separators `", "` and
 * `": "`), so that text we render matches the reference SDK byte for byte.
 *
 * Known limits (a JSON value parsed in JavaScript has lost them): a Python float with an integral
 * value such as `1.0` is written as `1`, integers beyond 2^53 are written as floats, and
 * integer-like object keys come first, as JavaScript orders them.
 *
 * This runs once per tool call on every encode of the chat formats, where it was a third of the
 * time (docs/performance.md, "What changed", encoders): strings are copied in printable-ASCII
 * slices, and numbers print with `String(n)` wherever Python and JavaScript agree.
 *
 * @internal
 */

const hex = (c: number): string => {
  const h = c.toString(16)
  return h.length === 4 ? "\\u" + h : h.length === 3 ? "\\u0" + h : h.length === 2 ? "\\u00" + h : "\\u000" + h
}

const escapeChar = (c: number): string => {
  switch (c) {
    case 0x22:
      return "\\\""
    case 0x5c:
      return "\\\\"
    case 0x0a:
      return "\\n"
    case 0x0d:
      return "\\r"
    case 0x09:
      return "\\t"
    case 0x08:
      return "\\b"
    case 0x0c:
      return "\\f"
    default:
      return hex(c)
  }
}

// Everything outside printable ASCII is escaped, and so are `"` and `\`.
const escapeString = (s: string): string => {
  let out = "\""
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue
    if (i > start) out += s.slice(start, i)
    start = i + 1
    out += escapeChar(c)
  }
  return start === 0 ? out + s + "\"" : out + s.slice(start) + "\""
}

/**
 * Python's `float.__repr__`: the shortest round-tripping digits (which JavaScript also computes),
 * laid out in fixed notation when the decimal exponent is in [-4, 16) and in scientific notation
 * (`1e-05`, `1.5e+16`) otherwise. In [1e-4, 1e16) `String(n)` writes the same fixed notation, but
 * without Python's `.0` on an integral value (test/PythonJson.test.ts checks the range against a
 * digit-by-digit implementation).
 */
const floatRepr = (n: number): string => {
  const abs = Math.abs(n)
  if (abs >= 1e-4 && abs < 1e16) {
    const fixed = String(n)
    return fixed.includes(".") ? fixed : fixed + ".0"
  }
  const scientific = n.toExponential() // "1.5e-7", "-2e+21"
  const e = scientific.indexOf("e")
  const digits = scientific.length - e - 2
  return digits === 1
    ? scientific.slice(0, e + 2) + "0" + scientific.slice(e + 2)
    : scientific
}

const numberRepr = (n: number): string => {
  // JSON integers parse to Python ints, which print every digit. Beyond 2^53 JavaScript has lost the
  // digits anyway, and such values almost always come from floats (`1e+300`), so print them as floats.
  if (Number.isSafeInteger(n)) return String(n)
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity"
  return floatRepr(n)
}

const dumpsArray = (value: ReadonlyArray<unknown>): string => {
  if (value.length === 0) return "[]"
  let out = "[" + dumps(value[0])
  for (let i = 1; i < value.length; i++) out += ", " + dumps(value[i])
  return out + "]"
}

const dumpsObject = (value: { readonly [key: string]: unknown }): string => {
  let out = ""
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue
    out += (out === "" ? "{" : ", ") + escapeString(key) + ": " + dumps(value[key])
  }
  return out === "" ? "{}" : out + "}"
}

/**
 * Serialize a JSON value exactly as Python's `json.dumps(value)` does.
 *
 * @internal
 */
export const dumps = (value: unknown): string => {
  switch (typeof value) {
    case "string":
      return escapeString(value)
    case "number":
      return numberRepr(value)
    case "boolean":
      return value ? "true" : "false"
    case "object":
      return value === null
        ? "null"
        : Array.isArray(value)
        ? dumpsArray(value)
        : dumpsObject(value as { readonly [key: string]: unknown })
    default:
      return "null"
  }
}
