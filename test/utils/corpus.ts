/**
 * The real recordings in `../shared/corpora/` (beside the repository, never copied into it): model
 * answers as the providers' APIs sent them, and stored transcripts. Each reader returns the file's
 * content as a decoder takes it: a whole answer's JSON body, or a stream's events (the JSON of each
 * server-sent event's data, in order, `[DONE]` and comments left out).
 *
 * The three stream spellings: `*.chunks.txt` (one event's JSON a line), `*.sse` (raw server-sent
 * events) and OpenRouter's `*.jsonl` recordings (`{json}` a parsed event, `{text}` a raw data
 * fragment that may continue in the next `{text}`, `{comment}`, `{delay_ms}`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** `../shared/corpora` from the repository's root, found by walking up (worktrees sit deeper). */
export const root: string = (() => {
  for (let dir = repoRoot;; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "shared", "corpora")
    if (fs.existsSync(candidate)) return candidate
    if (path.dirname(dir) === dir) {
      throw new Error(`no shared/corpora beside ${repoRoot} or above it: the tests read the real recordings there`)
    }
  }
})()

/** The formats the answer corpora are filed under. */
export type AnswerFormat = "openai" | "openrouter" | "openai-responses" | "anthropic" | "google"

export interface Answer {
  /** The path below the corpora root, e.g. `aisdk-answers/fixtures/anthropic/x.json`. */
  readonly file: string
  readonly format: AnswerFormat
  readonly kind: "response" | "stream"
  /** A whole answer's body (kind `response`). */
  readonly body?: unknown
  /** A stream's events (kind `stream`). */
  readonly events?: ReadonlyArray<unknown>
}

/** The events of raw server-sent-event text: each event's `data` lines joined, parsed as JSON. */
export const parseSse = (text: string): Array<unknown> => {
  const events: Array<unknown> = []
  for (const block of text.replace(/\r\n?/g, "\n").split(/\n\n+/)) {
    const data = block.split("\n").filter((line) => line.startsWith("data:")).map((line) =>
      line.slice(5).replace(/^ /, "")
    )
    if (data.length === 0) continue
    const joined = data.join("\n")
    if (joined.trim() === "[DONE]") continue
    events.push(JSON.parse(joined))
  }
  return events
}

const parseLines = (text: string): Array<unknown> =>
  text.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line))

const parseOpenRouterRecording = (text: string): Array<unknown> => {
  const events: Array<unknown> = []
  let pending = ""
  for (const entry of parseLines(text) as Array<Record<string, unknown>>) {
    if ("json" in entry) events.push(entry.json)
    else if (typeof entry.text === "string") {
      pending += entry.text
      if (pending.trim() === "[DONE]") {
        pending = ""
        continue
      }
      try {
        events.push(JSON.parse(pending))
        pending = ""
      } catch {
        // a fragment: the event goes on in the next `text`
      }
    }
  }
  if (pending !== "") throw new Error(`an OpenRouter recording ends inside an event: ${pending.slice(0, 80)}`)
  return events
}

const read = (file: string, format: AnswerFormat): Answer => {
  const text = fs.readFileSync(path.join(root, file), "utf8")
  if (file.endsWith(".chunks.txt")) return { file, format, kind: "stream", events: parseLines(text) }
  if (file.endsWith(".sse")) return { file, format, kind: "stream", events: parseSse(text) }
  if (file.endsWith(".jsonl")) return { file, format, kind: "stream", events: parseOpenRouterRecording(text) }
  return { file, format, kind: "response", body: JSON.parse(text) }
}

/** Every recorded answer filed under `format`, from both answer corpora, in a stable order. */
export const answers = (format: AnswerFormat): ReadonlyArray<Answer> =>
  ["aisdk-answers", "provider-answers"].flatMap((set) => {
    const dir = path.join(root, set, "fixtures", format)
    if (!fs.existsSync(dir)) return []
    return fs.readdirSync(dir).sort().filter((name) => /\.(json|chunks\.txt|sse|jsonl)$/.test(name)).map((name) =>
      read(path.join(set, "fixtures", format, name), format)
    )
  })

/** Every stored transcript or request body filed under `format` (`transcripts/inputs/<format>/`). */
export const transcripts = (format: string): ReadonlyArray<{ readonly file: string; readonly body: unknown }> => {
  const dir = path.join(root, "transcripts", "inputs", format)
  if (!fs.existsSync(dir)) return []
  return fs.readdirSync(dir).sort().filter((name) => name.endsWith(".json")).map((name) => {
    const file = path.join("transcripts", "inputs", format, name)
    return { file, body: JSON.parse(fs.readFileSync(path.join(root, file), "utf8")) as unknown }
  })
}
