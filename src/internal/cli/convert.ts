/**
 * `convert`: conversations in, JSON out, one stderr line per conversation that fails.
 *
 * Plain Node streams rather than an Effect `Stream`: this loop runs once per line of files of any
 * size, and its whole job is I/O around one library call (`read` then `write`, which return an
 * `Either` and never throw). It reads with backpressure (`for await` over the input pulls a chunk
 * only when the previous one is converted), keeps at most one chunk and one partial line of input
 * in memory, and writes output in chunks of about 64 KiB, waiting for `drain` when the reader is
 * slower than we are. Only the codecs the command names are imported.
 *
 * @internal
 */
import { StringDecoder } from "node:string_decoder"
import type * as Conversation from "../../Conversation.js"
import type * as ConversionError from "../../ConversionError.js"
import { isRecord } from "../plain.js"
import { formatFlags, type Source, type Target } from "./args.js"

/** What `convert` was asked to do. */
export interface Options {
  readonly from: Source
  readonly to: Target
  readonly jsonl: boolean
  /** The `--to` format's encode options, as the library names them. */
  readonly encode: { readonly [key: string]: unknown }
  /** The `--from` format's decode options. */
  readonly decode: { readonly [key: string]: unknown }
}

/** Where `convert` reads and writes. */
export interface Io {
  readonly input: AsyncIterable<Buffer | string>
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
}

type Result<A> = { readonly _tag: "Left"; readonly left: ConversionError.ConversionError } | {
  readonly _tag: "Right"
  readonly right: A
}
type Read = (input: unknown) => Result<Conversation.Conversation>
type Write = (conversation: Conversation.Conversation) => Result<unknown>

const codecModule = (provider: string) => {
  switch (provider) {
    case "openai":
      return import("../../OpenAiFormat.js").then((m) => m.codec)
    case "openrouter":
      return import("../../OpenRouterFormat.js").then((m) => m.codec)
    case "anthropic":
      return import("../../AnthropicFormat.js").then((m) => m.codec)
    case "openai-responses":
      return import("../../OpenAiResponsesFormat.js").then((m) => m.codec)
    default:
      return import("../../GoogleFormat.js").then((m) => m.codec)
  }
}

const loadRead = async (options: Options): Promise<Read> => {
  if (options.from === "canonical") return (await import("../../Conversation.js")).decode
  const codec = await codecModule(options.from)
  return (input) => codec.decode(input, options.decode)
}

const loadWrite = async (options: Options): Promise<Write> => {
  switch (options.to) {
    case "canonical": {
      const { encode } = await import("../../Conversation.js")
      return (conversation) => ({ _tag: "Right", right: encode(conversation) })
    }
    case "prompt": {
      const Prompt = await import("../../Prompt.js")
      return (conversation) => ({ _tag: "Right", right: Prompt.encode(Prompt.flatten(conversation)) })
    }
    default: {
      const codec = await codecModule(options.to)
      return (conversation) => codec.encode(conversation, options.encode as never)
    }
  }
}

const responsesItems = new Set(["message", "function_call", "function_call_output", "reasoning"])
const anthropicTypes = new Set(["tool_use", "tool_result", "thinking", "redacted_thinking"])

/**
 * The format a value that failed to read most likely is, from its outer shape: a guess for a hint,
 * never a decision (`undefined` when nothing stands out).
 */
export const looksLike = (input: unknown): Source | undefined => {
  if (isRecord(input)) {
    if (Array.isArray(input["contents"])) return "google"
    if (Array.isArray(input["input"])) return "openai-responses"
    if (!Array.isArray(input["messages"])) return undefined
    if ("system" in input) return "anthropic"
    return looksLike(input["messages"]) ?? "openai"
  }
  if (!Array.isArray(input)) return undefined
  for (const message of input.slice(0, 50)) {
    if (!isRecord(message)) return undefined
    if ("blocks" in message) return "canonical"
    if (typeof message["type"] === "string" && responsesItems.has(message["type"])) return "openai-responses"
    if ("parts" in message) return "google"
    if ("tool_calls" in message || message["role"] === "tool" || message["role"] === "system") return "openai"
    const content = message["content"]
    if (Array.isArray(content)) {
      for (const part of content) {
        if (isRecord(part) && typeof part["type"] === "string") {
          if (anthropicTypes.has(part["type"])) return "anthropic"
          if (part["type"] === "image_url") return "openai"
        }
      }
    }
  }
  return input.length > 0 && isRecord(input[0]) && "content" in input[0] ? "openai" : undefined
}

const described: { readonly [S in Source]: string } = {
  canonical: "a canonical conversation",
  openai: "an OpenAI chat transcript",
  openrouter: "an OpenRouter chat transcript",
  anthropic: "an Anthropic request",
  google: "a Gemini request",
  "openai-responses": "an OpenAI Responses input"
}

/** A hint for input that failed to read as `from` and looks like another format. */
export const hint = (input: unknown, from: Source): string => {
  const guess = looksLike(input)
  if (guess === undefined || guess === from || (guess === "openai" && from === "openrouter")) return ""
  const pass = guess === "openai" ? "pass --from openai (or openrouter)" : `pass --from ${guess}`
  return ` (this looks like ${described[guess]}: ${pass})`
}

/**
 * The library's messages name the options that would help (`set laterSystem to "user"`, `encode with
 * { reasoning: "thought" }`, `decode with providerContent: "keep"`): name the flags too, those of
 * the side the message is about (`to` for an encode error, `from` for a decode error).
 */
export const flagHint = (message: string, format: Source | Target, side: "to" | "from" = "to"): string => {
  const flags: Array<string> = []
  for (const [, key] of message.matchAll(/(?:\bset |\{ |\bwith )([a-zA-Z]+)(?: to |: )/g)) {
    const flag = formatFlags.find((f) =>
      (f.option ?? f.key) === key && f.appliesTo?.side === side && f.appliesTo.formats.includes(format)
    )
    if (flag !== undefined && !flags.includes(`--${flag.name}`)) flags.push(`--${flag.name}`)
  }
  return flags.length === 0 ? "" : ` (on the command line: ${flags.join(", ")})`
}

/** One conversation's text to its output JSON, or the failure's stderr line (without the newline). */
const converter = (options: Options, read: Read, write: Write, space: number | undefined) =>
(
  text: string,
  line: number | undefined
): { readonly ok: true; readonly json: string } | { readonly ok: false; readonly error: string } => {
  const where = line === undefined ? "" : `line ${line}: `
  let input: unknown
  try {
    input = JSON.parse(text)
  } catch (e) {
    return {
      ok: false,
      error: `MalformedInput: ${where}not valid JSON (${e instanceof Error ? e.message : String(e)})`
    }
  }
  const conversation = read(input)
  if (conversation._tag === "Left") {
    const error = conversation.left
    return {
      ok: false,
      error: `${error._tag}: ${where}${error.message}${hint(input, options.from)}${
        flagHint(error.message, options.from, "from")
      }`
    }
  }
  const output = write(conversation.right)
  if (output._tag === "Left") {
    const { _tag, message } = output.left
    return { ok: false, error: `${_tag}: ${where}${message}${flagHint(message, options.to)}` }
  }
  return { ok: true, json: JSON.stringify(output.right, null, space) }
}

const drain = (stream: NodeJS.WritableStream): Promise<void> => new Promise((resolve) => stream.once("drain", resolve))

/**
 * Input is decoded, and output written once pending, this much at a time. Small on purpose: what
 * is still held when the young generation is next collected gets copied to the old one, so a
 * string of input or output that outlives a collection costs its size in the old generation until
 * the next full collection. With 1 MiB strings every scavenge promoted about 2 MiB, and the heap
 * grew to 90 MB between full collections (docs/performance.md, "Whole-process convert").
 */
const flushAt = 1 << 16

/** Run `convert`; resolves to the exit code (0, or 1 when a conversation failed). */
export const run = async (options: Options, io: Io): Promise<number> => {
  const [read, write] = await Promise.all([loadRead(options), loadWrite(options)])
  let failures = 0
  if (!options.jsonl) {
    const decoder = new StringDecoder("utf8")
    let text = ""
    for await (const chunk of io.input) text += typeof chunk === "string" ? chunk : decoder.write(chunk)
    text += decoder.end()
    const outcome = converter(options, read, write, 2)(text, undefined)
    if (outcome.ok) io.stdout.write(outcome.json + "\n")
    else io.stderr.write(outcome.error + "\n")
    return outcome.ok ? 0 : 1
  }

  const convertOne = converter(options, read, write, undefined)
  let out = ""
  const flush = async () => {
    if (out.length === 0) return
    const text = out
    out = ""
    if (!io.stdout.write(text)) await drain(io.stdout)
  }
  let lineNumber = 0
  const line = (text: string) => {
    lineNumber++
    if (text.length === 0 || (text.trim().length === 0)) return
    const outcome = convertOne(text, lineNumber)
    if (outcome.ok) {
      out += outcome.json + "\n"
    } else {
      failures++
      io.stderr.write(outcome.error + "\n")
    }
  }
  const decoder = new StringDecoder("utf8")
  // the start of a line that later chunks continue, in pieces: each chunk is searched for newlines
  // once, so a line of any length costs time in proportion to its length
  let partial: Array<string> = []
  const lines = async (text: string) => {
    let end = text.indexOf("\n")
    if (end === -1) {
      if (text.length > 0) partial.push(text)
      return
    }
    if (partial.length === 0) line(text.slice(0, end))
    else {
      partial.push(text.slice(0, end))
      line(partial.join(""))
      partial = []
    }
    let start = end + 1
    end = text.indexOf("\n", start)
    while (end !== -1) {
      line(text.slice(start, end))
      start = end + 1
      end = text.indexOf("\n", start)
    }
    if (start < text.length) partial.push(text.slice(start))
    if (out.length >= flushAt) await flush()
  }
  for await (const chunk of io.input) {
    if (typeof chunk === "string") await lines(chunk)
    else {
      // a large chunk (a file is read 1 MiB at a time) is decoded a slice at a time
      for (let at = 0; at < chunk.length; at += flushAt) await lines(decoder.write(chunk.subarray(at, at + flushAt)))
    }
  }
  partial.push(decoder.end())
  const last = partial.join("")
  if (last.length > 0) line(last)
  await flush()
  return failures > 0 ? 1 : 0
}
