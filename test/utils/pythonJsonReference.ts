/**
 * The implementation of `json.dumps` that src/internal/pythonJson.ts had before it was tuned for
 * speed (docs/performance.md §4), kept as the oracle its replacement is tested against: digit by
 * digit for floats, no shortcuts.
 */
const escapeString = (s: string): string => {
  let out = "\""
  let start = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue
    if (i > start) out += s.slice(start, i)
    start = i + 1
    switch (c) {
      case 0x22:
        out += "\\\""
        break
      case 0x5c:
        out += "\\\\"
        break
      case 0x0a:
        out += "\\n"
        break
      case 0x0d:
        out += "\\r"
        break
      case 0x09:
        out += "\\t"
        break
      case 0x08:
        out += "\\b"
        break
      case 0x0c:
        out += "\\f"
        break
      default:
        out += "\\u" + c.toString(16).padStart(4, "0")
    }
  }
  if (start < s.length) out += s.slice(start)
  return out + "\""
}

/**
 * Python's `float.__repr__`: the shortest round-tripping digits (which JavaScript also computes),
 * laid out in fixed notation when the decimal exponent is in [-4, 16) and in scientific notation
 * (`1e-05`, `1.5e+16`) otherwise.
 */
const floatRepr = (n: number): string => {
  const [mantissa = "", expText] = n.toExponential().split("e")
  const exponent = Number(expText)
  const negative = mantissa.startsWith("-")
  const digits = mantissa.replace("-", "").replace(".", "")
  const sign = negative ? "-" : ""
  if (exponent < -4 || exponent >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
    const e = Math.abs(exponent).toString().padStart(2, "0")
    return `${sign}${m}e${exponent < 0 ? "-" : "+"}${e}`
  }
  if (exponent < 0) return `${sign}0.${"0".repeat(-exponent - 1)}${digits}`
  const intPart = digits.slice(0, exponent + 1).padEnd(exponent + 1, "0")
  const frac = digits.slice(exponent + 1)
  return `${sign}${intPart}.${frac === "" ? "0" : frac}`
}

const numberRepr = (n: number): string => {
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity"
  // JSON integers parse to Python ints, which print every digit. Beyond 2^53 JavaScript has lost the
  // digits anyway, and such values almost always come from floats (`1e+300`), so print them as floats.
  if (Number.isSafeInteger(n)) return String(n)
  return floatRepr(n)
}

/** Serialize a JSON value exactly as Python's `json.dumps(value)` does. */
export const dumps = (value: unknown): string => {
  if (value === null || value === undefined) return "null"
  switch (typeof value) {
    case "string":
      return escapeString(value)
    case "number":
      return numberRepr(value)
    case "boolean":
      return value ? "true" : "false"
    case "object": {
      if (Array.isArray(value)) {
        let out = "["
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ", "
          out += dumps(value[i])
        }
        return out + "]"
      }
      let out = "{"
      let first = true
      for (const key in value) {
        if (!Object.prototype.hasOwnProperty.call(value, key)) continue
        if (!first) out += ", "
        first = false
        out += escapeString(key) + ": " + dumps((value as Record<string, unknown>)[key])
      }
      return out + "}"
    }
    default:
      return "null"
  }
}
