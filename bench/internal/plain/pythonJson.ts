/**
 * Python's `json.dumps` (default settings: `ensure_ascii`, separators `", "` and `": "`), written
 * for speed. Strings are scanned once: printable ASCII is copied in slices, everything else is
 * escaped (measured faster than `JSON.stringify` plus a non-ASCII pass for the short strings tool
 * inputs hold). Numbers print with `String(n)` whenever JavaScript and Python agree.
 */

const hex = (c: number): string => {
  const h = c.toString(16)
  return h.length === 4 ? "\\u" + h : h.length === 3 ? "\\u0" + h : h.length === 2 ? "\\u00" + h : "\\u000" + h
}

const quote = (s: string): string => {
  let out = "\""
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c < 0x7f && c !== 0x22 && c !== 0x5c) continue
    out += s.slice(start, i)
    start = i + 1
    out += c === 0x22
      ? "\\\""
      : c === 0x5c
      ? "\\\\"
      : c === 0x0a
      ? "\\n"
      : c === 0x0d
      ? "\\r"
      : c === 0x09
      ? "\\t"
      : c === 0x08
      ? "\\b"
      : c === 0x0c
      ? "\\f"
      : hex(c)
  }
  return start === 0 ? out + s + "\"" : out + s.slice(start) + "\""
}

// Python's float repr: shortest round-trip digits, fixed notation for decimal exponents in [-4, 16).
const floatRepr = (n: number): string => {
  const abs = Math.abs(n)
  if (abs >= 1e-4 && abs < 1e16) {
    const s = String(n)
    return s.includes(".") ? s : s + ".0"
  }
  const exp = n.toExponential() // e.g. "1.5e-7", "-2e+21"
  const e = exp.indexOf("e")
  const mantissa = exp.slice(0, e)
  const sign = exp[e + 1]
  const digits = exp.slice(e + 2)
  return mantissa + "e" + sign + (digits.length === 1 ? "0" + digits : digits)
}

const number = (n: number): string => {
  if (Number.isSafeInteger(n)) return String(n)
  if (Number.isNaN(n)) return "NaN"
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : "-Infinity"
  return floatRepr(n)
}

/** `json.dumps(value)`. */
export const dumps = (value: unknown): string => {
  switch (typeof value) {
    case "string":
      return quote(value)
    case "number":
      return number(value)
    case "boolean":
      return value ? "true" : "false"
    case "object": {
      if (value === null) return "null"
      if (Array.isArray(value)) {
        if (value.length === 0) return "[]"
        let out = "[" + dumps(value[0])
        for (let i = 1; i < value.length; i++) out += ", " + dumps(value[i])
        return out + "]"
      }
      let out = "{"
      for (const key in value) {
        out += (out.length === 1 ? "" : ", ") + quote(key) + ": " + dumps((value as { [key: string]: unknown })[key])
      }
      return out + "}"
    }
    default:
      return "null"
  }
}
