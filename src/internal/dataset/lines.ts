/**
 * Input bytes to records: JSON lines (one record per line), or a sequence of JSON values written one
 * after another (`--json-seq`: pretty-printed records, concatenated values, RFC 7464's record
 * separators). A leading UTF-8 byte order mark is skipped; bytes that are not UTF-8 are reported with
 * their line and offset, never replaced.
 *
 * Lines are cut from blocks of bytes that end at a newline, so a block can be handled anywhere (in
 * this thread or a worker) knowing only its first line's number and its offset in the input.
 *
 * @internal
 */
/** One record's text and where it starts. */
export interface Text {
  readonly line: number
  readonly text: string
}

/** A line that is not UTF-8: the first bad byte, in the line and in the input. */
export interface BadBytes {
  readonly line: number
  readonly offset: number
  readonly inputOffset: number
}

const bom = [0xef, 0xbb, 0xbf] as const

/** Whether `bytes` starts with a UTF-8 byte order mark. */
export const hasBom = (bytes: Uint8Array): boolean =>
  bytes.length >= 3 && bytes[0] === bom[0] && bytes[1] === bom[1] && bytes[2] === bom[2]

/**
 * The offset of the first byte of `bytes[start, end)` that does not belong to a well-formed UTF-8
 * sequence (overlong forms, surrogates and code points past U+10FFFF included), or -1.
 */
export const firstInvalid = (bytes: Uint8Array, start = 0, end = bytes.length): number => {
  let i = start
  while (i < end) {
    const b = bytes[i]!
    if (b < 0x80) {
      i++
      continue
    }
    let need: number
    let min: number
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1
      min = 0x80
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2
      min = 0x800
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3
      min = 0x10000
    } else return i
    if (i + need >= end) return i
    let cp = b & (0x3f >> need)
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k]!
      if ((c & 0xc0) !== 0x80) return i
      cp = (cp << 6) | (c & 0x3f)
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i
    i += need + 1
  }
  return -1
}

/** The index of the last newline in `bytes`, or -1. */
export const lastNewline = (bytes: Uint8Array): number => bytes.lastIndexOf(10)

const decoder = new TextDecoder("utf-8")
/** Throws on the first byte that is not UTF-8 (the standard decoder: no Node built-in needed). */
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The text of `bytes` when they are all UTF-8, else `undefined`. */
const utf8Text = (bytes: Uint8Array): string | undefined => {
  try {
    return strict.decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * The lines of `block` (bytes that end at a newline, or the input's last bytes), the first being
 * line `firstLine` at byte `inputOffset` of the input. `onText` gets each line's text (blank lines
 * included, without the newline), `onBad` each line that is not UTF-8. A byte order mark at the
 * very start of the input is skipped.
 */
export const eachLine = (
  block: Uint8Array,
  firstLine: number,
  inputOffset: number,
  onText: (line: number, text: string) => void,
  onBad: (bad: BadBytes) => void
): number => {
  let start = inputOffset === 0 && hasBom(block) ? 3 : 0
  let line = firstLine
  const text = utf8Text(start === 0 ? block : block.subarray(start))
  if (text !== undefined) {
    let from = 0
    let end = text.indexOf("\n")
    while (end !== -1) {
      onText(line++, text.slice(from, end))
      from = end + 1
      end = text.indexOf("\n", from)
    }
    if (from < text.length) onText(line++, text.slice(from))
    return line
  }
  while (start < block.length) {
    let end = block.indexOf(10, start)
    if (end === -1) end = block.length
    const bad = firstInvalid(block, start, end)
    if (bad === -1) onText(line, decoder.decode(block.subarray(start, end)))
    else onBad({ line, offset: bad - start, inputOffset: inputOffset + bad })
    line++
    start = end + 1
  }
  return line
}

/** How many newlines `bytes[start, end)` holds. */
export const countNewlines = (bytes: Uint8Array, start = 0, end = bytes.length): number => {
  let n = 0
  let at = bytes.indexOf(10, start)
  while (at !== -1 && at < end) {
    n++
    at = bytes.indexOf(10, at + 1)
  }
  return n
}

// -----------------------------------------------------------------------------
// JSON sequences
// -----------------------------------------------------------------------------

/**
 * Cuts a stream of text into JSON values written one after another: each value is whole once its
 * brackets close (or, for a bare number or word, at the next whitespace). Whitespace and RFC 7464's
 * record separator (U+001E) between values are skipped. It only finds the bounds; `JSON.parse` says
 * whether a value is valid.
 */
export class Sequence {
  private depth = 0
  private inString = false
  private escaped = false
  private scalar = false
  private pieces: Array<string> = []
  private startLine = 0
  private line = 1
  /** Whether a value has started and not ended. */
  get open(): boolean {
    return this.depth > 0 || this.inString || this.scalar
  }

  /** Feed text; `emit` gets each whole value with the line it starts on. */
  feed(text: string, emit: (value: Text) => void): void {
    let from = this.open ? 0 : -1
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === 10) this.line++
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (c === 92) this.escaped = true
        else if (c === 34) {
          this.inString = false
          if (this.depth === 0) {
            this.end(text, from, i + 1, emit)
            from = -1
          }
        }
        continue
      }
      const space = c === 32 || c === 10 || c === 13 || c === 9 || c === 0x1e || c === 0xfeff
      if (this.scalar) {
        if (space || c === 123 || c === 91 || c === 34) {
          this.end(text, from, i, emit)
          from = -1
        } else continue
      }
      if (space && this.depth === 0) continue
      if (from === -1) {
        from = i
        this.startLine = this.line
      }
      if (c === 34) this.inString = true
      else if (c === 123 || c === 91) this.depth++
      else if (c === 125 || c === 93) {
        this.depth--
        if (this.depth <= 0) {
          this.depth = 0
          this.end(text, from, i + 1, emit)
          from = -1
        }
      } else if (this.depth === 0) this.scalar = true
    }
    if (from !== -1) this.pieces.push(text.slice(from))
  }

  private end(text: string, from: number, to: number, emit: (value: Text) => void): void {
    this.pieces.push(text.slice(Math.max(from, 0), to))
    const value = this.pieces.join("")
    this.pieces = []
    this.scalar = false
    emit({ line: this.startLine, text: value })
  }

  /** The input ended: a value still open is emitted as it is (and fails to parse). */
  finish(emit: (value: Text) => void): void {
    if (this.open || this.pieces.length > 0) {
      const value = this.pieces.join("")
      this.pieces = []
      this.depth = 0
      this.inString = false
      this.scalar = false
      if (value.trim().length > 0) emit({ line: this.startLine, text: value })
    }
  }
}
