/**
 * Python's `json.dumps` (default settings: `ensure_ascii`, separators `", "` and `": "`), written
 * for speed: `JSON.stringify` does the string escaping (its escapes agree with Python's for every
 * ASCII character but DEL), and only strings with DEL or non-ASCII characters take a second pass.
 * Numbers take the fast path when JavaScript and Python print them alike.
 */

// Python escapes DEL (0x7f) too.
const nonAscii = /[\u007f-\uffff]/g

const escapeNonAscii = (c: string): string => {
  const hex = c.charCodeAt(0).toString(16)
  return hex.length === 2 ? "\\u00" + hex : hex.length === 3 ? "\\u0" + hex : "\\u" + hex
}

const quote = (s: string): string => {
  const json = JSON.stringify(s)
  // JSON.stringify leaves DEL and non-ASCII characters as they are; Python escapes them.
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) > 0x7e) return json.replace(nonAscii, escapeNonAscii)
  }
  return json
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
