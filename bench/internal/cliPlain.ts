/**
 * The hand-written whole-process converter that `npm run bench:cli` compares `convert --jsonl` with:
 * `node cliPlain.js --from X --to Y [FILE]`, JSONL in (a file or stdin), JSONL out, one stderr line
 * per failed conversation, exit code 1 when one failed. The same job as the CLI, written as plainly
 * and as fast as is reasonable: the hand-written codecs of `./plain/`, a strict canonical reader
 * (the checks `Conversation.decode` makes: roles, block types and their placement, exact keys,
 * JSON values), the canonical and `/prompt` writers, and the I/O loop (chunks in, lines split,
 * output written in large chunks with backpressure).
 *
 * The benchmark compiles it to JavaScript (no type check) before it runs it, so it starts as
 * `node dist/bin/cli.js` does.
 */
import * as fs from "node:fs"
import { StringDecoder } from "node:string_decoder"
import type * as Conversation from "../../src/Conversation.js"
import * as Anthropic from "./plain/anthropic.js"
import { fail, isRecord, jsonObject, string } from "./plain/check.js"
import * as Google from "./plain/google.js"
import * as OpenAi from "./plain/openAi.js"
import { dumps } from "./plain/pythonJson.js"

type Json = unknown
type Obj = { readonly [key: string]: unknown }

// -----------------------------------------------------------------------------
// canonical, read strictly
// -----------------------------------------------------------------------------

const exact = (o: Obj, keys: ReadonlySet<string>, what: string) => {
  for (const key of Object.keys(o)) if (!keys.has(key)) fail(`${what}: unexpected key ${key}`)
}
const detail = (o: Obj, what: string): Json =>
  o["detail"] === undefined || o["detail"] === null
    ? null
    : jsonObject(o["detail"], `${what}.detail`)

const textKeys = new Set(["type", "text", "detail"])
const imageKeys = new Set(["type", "data", "mimeType", "detail"])
const reasoningKeys = new Set(["type", "text", "signature", "detail"])
const toolCallKeys = new Set(["type", "id", "name", "input", "detail"])
const toolResultKeys = new Set(["type", "tool_call_id", "blocks", "is_error", "detail"])
const messageKeys = new Set(["role", "blocks", "detail"])
const allowed: { readonly [role: string]: ReadonlySet<string> } = {
  system: new Set(["text", "image"]),
  user: new Set(["text", "image", "tool_result"]),
  assistant: new Set(["text", "image", "reasoning", "tool_call"])
}

const content = (b: unknown, what: string): Obj => {
  if (!isRecord(b)) fail(`${what} must be an object`)
  switch (b["type"]) {
    case "text":
      exact(b, textKeys, what)
      return { text: string(b["text"], what), detail: detail(b, what), type: "text" }
    case "image":
      exact(b, imageKeys, what)
      return {
        data: string(b["data"], what),
        mimeType: string(b["mimeType"], what),
        detail: detail(b, what),
        type: "image"
      }
    default:
      return fail(`${what}: a text or image block expected`)
  }
}

const block = (b: unknown, role: string, what: string): Obj => {
  if (!isRecord(b)) fail(`${what} must be an object`)
  const type = b["type"]
  if (typeof type !== "string") fail(`${what}.type must be a string`)
  if (!allowed[role]!.has(type)) fail(`${what}: a ${type} block is not valid in a ${role} message`)
  switch (type) {
    case "text":
    case "image":
      return content(b, what)
    case "reasoning": {
      exact(b, reasoningKeys, what)
      const signature = b["signature"]
      if (signature !== undefined && signature !== null && typeof signature !== "string") fail(`${what}.signature`)
      return { text: string(b["text"], what), signature: signature ?? null, detail: detail(b, what), type }
    }
    case "tool_call":
      exact(b, toolCallKeys, what)
      return {
        id: string(b["id"], what),
        name: string(b["name"], what),
        input: jsonObject(b["input"], `${what}.input`),
        detail: detail(b, what),
        type
      }
    default: {
      exact(b, toolResultKeys, what)
      const inner = b["blocks"]
      if (!Array.isArray(inner)) fail(`${what}.blocks must be an array`)
      const blocks = new Array<Obj>(inner.length)
      for (let k = 0; k < inner.length; k++) blocks[k] = content(inner[k], `${what}.blocks[${k}]`)
      const isError = b["is_error"]
      if (isError !== undefined && typeof isError !== "boolean") fail(`${what}.is_error must be a boolean`)
      return {
        tool_call_id: string(b["tool_call_id"], what),
        blocks,
        is_error: isError ?? false,
        detail: detail(b, what),
        type
      }
    }
  }
}

/** A canonical conversation, read as strictly as `Conversation.decode`, in its wire key order. */
const readCanonical = (input: unknown): Array<Obj> => {
  if (!Array.isArray(input)) fail("expected an array of messages")
  const out = new Array<Obj>(input.length)
  for (let i = 0; i < input.length; i++) {
    const m = input[i]
    if (!isRecord(m)) fail(`message ${i} must be an object`)
    exact(m, messageKeys, `message ${i}`)
    const role = m["role"]
    if (role !== "system" && role !== "user" && role !== "assistant") fail(`message ${i}: bad role`)
    const raw = m["blocks"]
    if (!Array.isArray(raw)) fail(`message ${i}.blocks must be an array`)
    const blocks = new Array<Obj>(raw.length)
    for (let j = 0; j < raw.length; j++) blocks[j] = block(raw[j], role, `message ${i}, block ${j}`)
    out[i] = { role, blocks, detail: detail(m, `message ${i}`) }
  }
  return out
}

// -----------------------------------------------------------------------------
// canonical and /prompt, written
// -----------------------------------------------------------------------------

const writeContent = (b: Obj): Obj =>
  b["type"] === "text"
    ? { text: b["text"], detail: b["detail"] ?? null, type: "text" }
    : { data: b["data"], mimeType: b["mimeType"], detail: b["detail"] ?? null, type: "image" }

/** A decoded conversation as canonical wire JSON: every default present, in the wire key order. */
const writeCanonical = (conversation: ReadonlyArray<Obj>): Array<Obj> =>
  conversation.map((m) => ({
    role: m["role"],
    blocks: (m["blocks"] as ReadonlyArray<Obj>).map((b): Obj => {
      switch (b["type"]) {
        case "reasoning":
          return { text: b["text"], signature: b["signature"] ?? null, detail: b["detail"] ?? null, type: "reasoning" }
        case "tool_call":
          return { id: b["id"], name: b["name"], input: b["input"], detail: b["detail"] ?? null, type: "tool_call" }
        case "tool_result":
          return {
            tool_call_id: b["tool_call_id"],
            blocks: (b["blocks"] as ReadonlyArray<Obj>).map(writeContent),
            is_error: b["is_error"] ?? false,
            detail: b["detail"] ?? null,
            type: "tool_result"
          }
        default:
          return writeContent(b)
      }
    }),
    detail: m["detail"] ?? null
  }))

const promptText = (text: string, detail: Obj): Obj => ({ text, detail, type: "text" })

/** The `/prompt` flattening, as wire JSON. */
const writePrompt = (conversation: ReadonlyArray<Obj>): Array<Obj> => {
  const first = conversation[0]
  if (
    conversation.length === 1 && first!["role"] === "user" &&
    (first!["blocks"] as ReadonlyArray<Obj>).every((b) => b["type"] === "text" || b["type"] === "image")
  ) return (first!["blocks"] as ReadonlyArray<Obj>).map(writeContent)
  const out: Array<Obj> = []
  for (const m of conversation) {
    out.push(promptText(`[${m["role"] as string}]`, { role: m["role"] }))
    for (const b of m["blocks"] as ReadonlyArray<Obj>) {
      switch (b["type"]) {
        case "reasoning":
          out.push(promptText(`<think>${b["text"] as string}</think>`, { type: "reasoning" }))
          break
        case "tool_call":
          out.push(
            promptText(`[tool_call ${b["name"] as string}] ${dumps(b["input"])}`, { type: "tool_call", id: b["id"] })
          )
          break
        case "tool_result":
          out.push(promptText(b["is_error"] ? "[tool_result (error)]" : "[tool_result]", {
            type: "tool_result",
            tool_call_id: b["tool_call_id"]
          }))
          for (const inner of b["blocks"] as ReadonlyArray<Obj>) out.push(writeContent(inner))
          break
        default:
          out.push(writeContent(b))
      }
    }
  }
  return out
}

// -----------------------------------------------------------------------------
// the process
// -----------------------------------------------------------------------------

const args = process.argv.slice(2)
const flag = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`)
  return i === -1 ? fallback : args[i + 1]!
}
if (args.includes("--help")) {
  process.stdout.write("usage: cliPlain --to FORMAT [--from FORMAT] [FILE]: JSONL in, JSONL out\n")
  process.exit(0)
}
const from = flag("from", "canonical")
const to = flag("to", "")
const file = args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"))

const codecs: { readonly [name: string]: { encode: (c: never) => unknown; decode: (u: unknown) => unknown } } = {
  openai: OpenAi,
  openrouter: { ...OpenAi, decode: (u: unknown) => OpenAi.decode(u, "openrouter") },
  anthropic: Anthropic,
  google: Google
}
const read: (u: unknown) => ReadonlyArray<Obj> = from === "canonical"
  ? readCanonical
  : (u) => codecs[from]!.decode(u) as ReadonlyArray<Obj>
const write: (c: ReadonlyArray<Obj>) => unknown = to === "canonical"
  ? writeCanonical
  : to === "prompt"
  ? writePrompt
  : (c) => codecs[to]!.encode(c as unknown as Conversation.Conversation as never)

let failures = 0
let out: Array<string> = []
let pending = 0
let lineNumber = 0
const line = (text: string) => {
  lineNumber++
  if (text.trim().length === 0) return
  try {
    const json = JSON.stringify(write(read(JSON.parse(text))))
    out.push(json, "\n")
    pending += json.length + 1
  } catch (e) {
    failures++
    process.stderr.write(`line ${lineNumber}: ${e instanceof Error ? e.message : String(e)}\n`)
  }
}
const flush = async () => {
  const text = out.join("")
  out = []
  pending = 0
  if (!process.stdout.write(text)) await new Promise((resolve) => process.stdout.once("drain", resolve))
}

const main = async () => {
  const input = file === undefined ? process.stdin : fs.createReadStream(file, { highWaterMark: 1 << 20 })
  const decoder = new StringDecoder("utf8")
  let rest = ""
  for await (const chunk of input) {
    const text = rest + decoder.write(chunk as Buffer)
    let start = 0
    let end = text.indexOf("\n")
    while (end !== -1) {
      line(text.slice(start, end))
      start = end + 1
      end = text.indexOf("\n", start)
    }
    rest = start === 0 ? text : text.slice(start)
    if (pending >= 1 << 20) await flush()
  }
  rest += decoder.end()
  if (rest.length > 0) line(rest)
  await flush()
  process.exitCode = failures > 0 ? 1 : 0
}
void main()
