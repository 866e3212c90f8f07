/**
 * The command line's grammar, declared once as data: the commands, their options and arguments, from
 * which both the parser and the `--help` text are derived.
 *
 * This module imports nothing from the library or from Effect (only the route-key rule, a module
 * with no imports), so that `--help`, `--version` and a usage error cost only Node's own start-up
 * (docs/performance.md, "CLI"): the code a command needs is imported once its arguments are known
 * to be good.
 *
 * @internal
 */

import * as RouteKey from "../server/routeKey.js"

/** The program's name, as users type it. */
export const program = "openreward-effect"

/** The formats, spelled out here so that parsing needs no library import (checked against `Format` by a test). */
export const providers = ["openai", "openrouter", "anthropic", "google"] as const
export const formats = [...providers, "openai-responses", "sharegpt"] as const
export type Provider = typeof formats[number]
export const sources = ["canonical", ...formats] as const
export type Source = typeof sources[number]
export const targets = [...formats, "prompt", "canonical"] as const
export type Target = typeof targets[number]

/** The record shapes of `--record` and the format each is read as (checked against `Dataset` by a test). */
export const shapeFormats = {
  body: undefined,
  "openai-sft": "openai",
  "openai-rft": "openai",
  "openai-dpo": "openai",
  "anthropic-bedrock": "anthropic",
  "gemini-tuning": "google",
  sharegpt: "sharegpt",
  rollout: "canonical"
} as const satisfies { readonly [shape: string]: Source | undefined }
export type Shape = keyof typeof shapeFormats
export const shapes = Object.keys(shapeFormats) as ReadonlyArray<Shape>

/** A JSON pointer (RFC 6901). */
const pointer = /^(\/([^~/]|~[01])*)*$/

/** One value of a choice, and the formats that accept it (all the flag's formats when absent). */
export interface Choice {
  readonly value: string
  readonly formats?: ReadonlyArray<string>
}

/** One `--flag`. `key` is the name of the library option it sets (or names the value, with `option`). */
export interface Flag {
  readonly name: string
  readonly key: string
  /** The library option it sets, when that is not `key` (an encode and a decode option of one name). */
  readonly option?: string
  readonly kind: "choice" | "boolean" | "integer" | "text"
  /** For a choice: the values, and which formats accept each (all the flag's formats when absent). */
  readonly choices?: ReadonlyArray<Choice>
  readonly default?: string
  readonly required?: boolean
  readonly metavar?: string
  readonly description: string
  /** An encode option: the `--to` formats it applies to. A decode option: the `--from` formats. */
  readonly appliesTo?: { readonly side: "to" | "from"; readonly formats: ReadonlyArray<string> }
  /** For a text value: what it must match, and the rule in words for the error. */
  readonly pattern?: { readonly regex: RegExp; readonly rule: string }
}

const choice = (
  values: ReadonlyArray<string>,
  only: { readonly [value: string]: ReadonlyArray<string> } = {}
): ReadonlyArray<Choice> => values.map((value) => only[value] ? { value, formats: only[value] } : { value })

const chat = ["openai", "openrouter"]

/** The encode and decode options of the formats (src/*Format.ts), one flag each. */
export const formatFlags: ReadonlyArray<Flag> = [
  {
    name: "reasoning-field",
    key: "reasoningField",
    kind: "choice",
    choices: choice(["reasoning_content", "reasoning", "omit"]),
    default: "reasoning_content",
    appliesTo: { side: "to", formats: chat },
    description: "the assistant-message field that carries reasoning (`omit`: send none)"
  },
  {
    name: "reasoning-on-tool-calls",
    key: "reasoningOnToolCalls",
    kind: "boolean",
    appliesTo: { side: "to", formats: chat },
    description: "write the reasoning field (\"\" when empty) on every assistant turn with tool calls (DeepSeek)"
  },
  {
    name: "tool-result-images",
    key: "toolResultImages",
    kind: "choice",
    choices: choice(["error", "user-message", "tool-message"], { "tool-message": ["openrouter"] }),
    default: "error",
    appliesTo: { side: "to", formats: chat },
    description: "an image inside a tool result: an error, moved to the next user message, or (openrouter) kept"
  },
  {
    name: "tool-arguments",
    key: "toolArguments",
    kind: "choice",
    choices: choice(["python", "json"]),
    default: "python",
    appliesTo: { side: "to", formats: [...chat, "openai-responses"] },
    description: "tool-call arguments as Python's json.dumps writes them (the reference) or as JSON.stringify"
  },
  {
    name: "system",
    key: "system",
    kind: "choice",
    choices: choice(["string", "blocks"]),
    default: "string",
    appliesTo: { side: "to", formats: ["anthropic"] },
    description: "the system prompt as one string, or one text block per canonical block"
  },
  {
    name: "unsigned-reasoning",
    key: "unsignedReasoning",
    kind: "choice",
    choices: choice(["send", "text", "omit", "fail"]),
    default: "send",
    appliesTo: { side: "to", formats: ["anthropic"] },
    description:
      "a reasoning block without a signature: sent as thinking (the reference), as text, left out, or an error"
  },
  {
    name: "reused-tool-call-ids",
    key: "reusedToolCallIds",
    kind: "choice",
    choices: choice(["error", "rename"]),
    default: "error",
    appliesTo: { side: "to", formats: ["anthropic", "google"] },
    description:
      "a tool-call id an earlier call already has (google: with --tool-call-ids): an error, or renamed <id>~<n> in the call and the results paired with it"
  },
  {
    name: "later-system",
    key: "laterSystem",
    kind: "choice",
    choices: choice(["error", "user", "inline"], { inline: ["anthropic"] }),
    default: "error",
    appliesTo: { side: "to", formats: ["anthropic", "google"] },
    description: "a system message after the first turn: an error, a user turn, or (anthropic) a system turn in place"
  },
  {
    name: "casing",
    key: "casing",
    kind: "choice",
    choices: choice(["snake", "camel"]),
    default: "snake",
    appliesTo: { side: "to", formats: ["google"] },
    description: "key spelling: snake_case (REST, Python SDK) or camelCase (@google/genai)"
  },
  {
    name: "system-instruction",
    key: "systemInstruction",
    kind: "choice",
    choices: choice(["string", "content"]),
    default: "string",
    appliesTo: { side: "to", formats: ["google"] },
    description: "the system instruction as a string, or as {parts: [{text}]} (the REST API)"
  },
  {
    name: "tool-call-ids",
    key: "toolCallIds",
    kind: "boolean",
    appliesTo: { side: "to", formats: ["google"] },
    description: "send each tool call's id on its function_call and function_response (Gemini API, not Vertex)"
  },
  {
    name: "tool-errors",
    key: "toolErrors",
    kind: "choice",
    choices: choice(["output", "error"]),
    default: "output",
    appliesTo: { side: "to", formats: ["google"] },
    description: "where a failed tool result's text goes: response.output (the reference) or response.error"
  },
  {
    name: "reasoning",
    key: "reasoning",
    kind: "choice",
    choices: choice(["error", "thought", "omit"], { thought: ["google"], omit: ["sharegpt"] }),
    default: "error",
    appliesTo: { side: "to", formats: ["google", "sharegpt"] },
    description:
      "reasoning blocks: an error (the reference), (google) thought parts with their signatures, or (sharegpt) left out"
  },
  {
    name: "system-prompt",
    key: "systemPrompt",
    kind: "choice",
    choices: choice(["field", "turn"]),
    default: "field",
    appliesTo: { side: "to", formats: ["sharegpt"] },
    description: "a leading system message: the record's system (LLaMA-Factory) or a system turn (FastChat)"
  },
  {
    name: "reasoning-without-id",
    key: "reasoningWithoutId",
    kind: "choice",
    choices: choice(["fail", "omit", "text"]),
    default: "fail",
    appliesTo: { side: "to", formats: ["openai-responses"] },
    description:
      "a reasoning block that did not come from a Responses reasoning item: an error, left out, or sent as text"
  },
  {
    name: "system-role",
    key: "systemRole",
    kind: "choice",
    choices: choice(["system", "developer"]),
    default: "system",
    appliesTo: { side: "to", formats: ["openai-responses"] },
    description: "the role system turns are sent with"
  },
  {
    name: "encrypted-reasoning",
    key: "encryptedReasoning",
    kind: "choice",
    choices: choice(["keep", "error", "drop"]),
    default: "keep",
    appliesTo: { side: "from", formats: chat },
    description:
      "a reasoning.encrypted entry of reasoning_details: kept as a reasoning block's signature, an error, or left out"
  },
  {
    name: "provider-content",
    key: "providerContent",
    kind: "choice",
    choices: choice(["refuse", "keep"]),
    default: "refuse",
    appliesTo: { side: "from", formats },
    description:
      "content the provider hosts (server tools, code execution, MCP calls, ...): an error, or kept as provider blocks"
  },
  {
    name: "provider-content-to",
    key: "providerContentTo",
    option: "providerContent",
    kind: "choice",
    choices: choice(["error", "omit", "text"]),
    default: "error",
    appliesTo: { side: "to", formats },
    description: "a provider block of another provider: an error, left out, or its text (as /prompt renders it)"
  },
  {
    name: "invalid-tool-arguments",
    key: "invalidToolArguments",
    kind: "choice",
    choices: choice(["error", "keep"]),
    default: "error",
    appliesTo: { side: "from", formats: [...chat, "openai-responses", "sharegpt"] },
    description:
      "tool-call arguments that are no JSON object: an error, or the call kept with input {} and the text in its detail"
  }
]

/** One command. */
export interface Command {
  readonly name: string
  readonly summary: string
  readonly usage: string
  readonly description: ReadonlyArray<string>
  readonly positional: { readonly name: string; readonly required: boolean; readonly description: string }
  readonly flags: ReadonlyArray<Flag>
  readonly examples: ReadonlyArray<readonly [command: string, what: string]>
}

export const convert: Command = {
  name: "convert",
  summary: "convert conversations between the canonical shape, the provider formats and /prompt",
  usage: `${program} convert --to FORMAT [--from FORMAT] [--jsonl | --json-seq | --parquet] [options] [FILE]`,
  description: [
    "Reads one conversation (a JSON document) from FILE or standard input and writes it, converted, to",
    "standard output. With --jsonl, reads one record per line and writes one JSON line per converted",
    "record, streamed, in order (--json-seq: records written one after another, pretty-printed or not;",
    "--parquet: the rows of a Parquet file). A record that cannot be converted is reported on standard",
    "error, one line each (`Tag: line N: message`), and the exit code is then 1; a summary line ends the",
    "run. Input compressed with gzip is read as it is (.gz, or by its first bytes); a leading byte order",
    "mark is skipped. With --record or --messages-field the conversations sit inside records whose other",
    "keys are carried through (docs/datasets.md)."
  ],
  positional: { name: "FILE", required: false, description: "the input file (default: standard input)" },
  flags: [
    {
      name: "to",
      key: "to",
      kind: "choice",
      choices: choice(targets),
      required: true,
      metavar: "FORMAT",
      description: "the format to write: a provider, `prompt` (the /prompt flattening) or `canonical`"
    },
    {
      name: "from",
      key: "from",
      kind: "choice",
      choices: choice(sources),
      default: "canonical",
      metavar: "FORMAT",
      description:
        "the format to read: `canonical` (OpenReward's JSON array of messages, read strictly) or a provider's"
    },
    {
      name: "jsonl",
      key: "jsonl",
      kind: "boolean",
      description: "one record per line in, one JSON line per record out"
    },
    {
      name: "json-seq",
      key: "jsonSeq",
      kind: "boolean",
      description: "records written one after another (pretty-printed, concatenated, RFC 7464) in, JSON lines out"
    },
    {
      name: "parquet",
      key: "parquet",
      kind: "boolean",
      description: "FILE is Parquet (also when it ends in .parquet): one record per row, JSON lines out"
    },
    {
      name: "record",
      key: "record",
      kind: "choice",
      choices: choice([...shapes, "auto"]),
      metavar: "SHAPE",
      description:
        "each record is a dataset line of this shape (auto: told from its keys); its conversations are converted in place, its other keys kept"
    },
    {
      name: "messages-field",
      key: "messagesField",
      kind: "text",
      metavar: "KEY",
      description:
        "each record's message list is under KEY; the keys beside it are the rest of its body, every other key is kept"
    },
    {
      name: "messages-path",
      key: "messagesPath",
      kind: "text",
      metavar: "POINTER",
      pattern: { regex: pointer, rule: "a JSON pointer such as /request/messages" },
      description: "as --messages-field, at a JSON pointer (/request/messages)"
    },
    {
      name: "unsupported",
      key: "unsupported",
      kind: "choice",
      choices: choice(["error", "report"]),
      default: "error",
      description:
        "a tool setting the target has no place for (a built-in tool, strict for google, ...): the record fails, or it is left out and reported"
    },
    {
      name: "strict",
      key: "strict",
      kind: "boolean",
      description:
        "anything a conversion loses by the formats' documented rules (an ignored request key, a message's name, is_error, a signature, ...) fails the record; without it each is counted in the summary"
    },
    {
      name: "aligned",
      key: "aligned",
      kind: "boolean",
      description:
        "one output line per input line (--json-seq: per record; --parquet: per row): a failed record writes null, a blank line a blank line"
    },
    {
      name: "failures",
      key: "failures",
      kind: "text",
      metavar: "FILE",
      description: "also write each failure as a JSON line {line, tag, message, path} to FILE"
    },
    {
      name: "output",
      key: "output",
      kind: "text",
      metavar: "FILE",
      description: "write to FILE instead of standard output (gzip-compressed when it ends in .gz)"
    },
    {
      name: "gzip",
      key: "gzip",
      kind: "boolean",
      description: "compress the output with gzip"
    },
    {
      name: "jobs",
      key: "jobs",
      kind: "integer",
      default: "1",
      metavar: "N",
      description: "convert on N worker threads (output stays in input order)"
    },
    {
      name: "quiet",
      key: "quiet",
      kind: "boolean",
      description: "no progress line (shown when stderr is a terminal) and no summary"
    },
    ...formatFlags
  ],
  examples: [
    [`${program} convert --to anthropic conversation.json`, "a canonical conversation as an Anthropic request"],
    [
      `${program} convert --jsonl --from openai --to canonical chats.jsonl > canonical.jsonl`,
      "OpenAI transcripts to canonical, one per line"
    ],
    [`cat conversation.json | ${program} convert --to google --casing camel`, "for @google/genai"],
    [`${program} convert --to openai --reasoning-field reasoning conversation.json`, "vLLM's reasoning field"],
    [
      `${program} convert --jsonl --record openai-sft --to anthropic train.jsonl > bedrock.jsonl`,
      "an OpenAI fine-tuning file as Bedrock lines, ids and tools kept"
    ],
    [
      `${program} convert --jsonl --aligned --failures failed.jsonl --jobs 2 --from openai --to canonical big.jsonl.gz`,
      "line k out is line k in; failures listed for a rerun"
    ]
  ]
}

export const serve: Command = {
  name: "serve",
  summary: "serve the environments a module exports over the OpenReward HTTP protocol",
  usage: `${program} serve MODULE [--port N] [--host ADDRESS] [--route-key KEY] [--drain-timeout SECONDS] [options]`,
  description: [
    "Loads MODULE and serves the environments it exports (its `environments` array if it has one, else",
    "every exported environment; a `layer` export provides their services) with the reference SDK's",
    "routes, SSE tool calls and sessions. Ctrl-C (or SIGTERM) shuts down gracefully: the server drains",
    "(no new sessions or calls; running calls get --drain-timeout seconds to finish), then ends every",
    "session, running its teardown. A second signal, a second or more later, stops at once.",
    "A TypeScript module needs a TypeScript loader: Node 22.18 and later strip types by themselves; on",
    "older versions the CLI uses tsx when the module's project has it installed (`npm install -D tsx`)."
  ],
  positional: {
    name: "MODULE",
    required: true,
    description: "a JavaScript or TypeScript module that exports one or more environments"
  },
  flags: [
    {
      name: "port",
      key: "port",
      kind: "integer",
      default: "8080",
      metavar: "N",
      description: "the port to listen on (0: one the system chooses, printed when serving starts)"
    },
    {
      name: "host",
      key: "host",
      kind: "text",
      default: "0.0.0.0",
      metavar: "ADDRESS",
      description: "the address to listen on"
    },
    {
      name: "route-key",
      key: "routeKey",
      kind: "text",
      pattern: { regex: RouteKey.pattern, rule: RouteKey.rule },
      metavar: "KEY",
      description:
        "this replica's route key, minted into session ids (KEY.<uuid>) so a proxy can route each session to it (default: $OPENREWARD_ROUTE_KEY, else none; docs/deploying.md)"
    },
    {
      name: "drain-timeout",
      key: "drainTimeout",
      kind: "integer",
      default: "30",
      metavar: "SECONDS",
      description: "how long shutdown waits for running tool calls before ending every session"
    },
    {
      name: "max-sessions",
      key: "maxSessions",
      kind: "integer",
      default: "10000",
      metavar: "N",
      description: "the most sessions held at once; past it, /create answers 503 with Retry-After"
    },
    {
      name: "max-sessions-per-client",
      key: "maxSessionsPerClient",
      kind: "integer",
      default: "2500",
      metavar: "N",
      description: "the most sessions one client address holds at once (behind a proxy: see --trusted-proxies)"
    },
    {
      name: "trusted-proxies",
      key: "trustedProxies",
      kind: "integer",
      default: "0",
      metavar: "N",
      description:
        "how many proxies in front append to X-Forwarded-For; the client is the N-th address from the right (0: the header is ignored)"
    },
    {
      name: "request-timeout",
      key: "requestTimeout",
      kind: "integer",
      default: "300",
      metavar: "SECONDS",
      description: "how long a client may take to send a whole request before it is answered 408 and closed"
    }
  ],
  examples: [
    [`${program} serve my-env.js --port 8080`, "serve on every interface, port 8080"],
    [`${program} serve my-env.ts --host 127.0.0.1 --port 0`, "loopback only, on a port the system picks"],
    [
      `${program} serve my-env.js --route-key r1 --drain-timeout 60`,
      "one replica of several behind a proxy (docs/deploying.md)"
    ]
  ]
}

export const commands: ReadonlyArray<Command> = [convert, serve]

// -----------------------------------------------------------------------------
// help
// -----------------------------------------------------------------------------

const column = (rows: ReadonlyArray<readonly [string, string]>, indent = 2): Array<string> => {
  const width = Math.min(Math.max(...rows.map(([left]) => left.length)), 34)
  return rows.map(([left, right]) =>
    left.length > width
      ? `${" ".repeat(indent)}${left}\n${" ".repeat(indent + width + 2)}${right}`
      : `${" ".repeat(indent)}${left.padEnd(width)}  ${right}`
  )
}

const flagLabel = (flag: Flag): string =>
  flag.kind === "boolean"
    ? `--${flag.name}`
    : flag.kind === "choice" && flag.metavar === undefined
    ? `--${flag.name} ${flag.choices!.map((c) => c.value).join("|")}`
    : `--${flag.name} ${flag.metavar ?? "VALUE"}`

const flagText = (flag: Flag): string => {
  const notes: Array<string> = []
  if (flag.metavar !== undefined && flag.kind === "choice") notes.push(flag.choices!.map((c) => c.value).join(", "))
  if (flag.required) notes.push("required")
  if (flag.default !== undefined) notes.push(`default: ${flag.default}`)
  return notes.length > 0 ? `${flag.description} (${notes.join("; ")})` : flag.description
}

/** The text of `<command> --help`. */
export const commandHelp = (command: Command): string => {
  const general = command.flags.filter((f) => f.appliesTo === undefined)
  const lines = [
    `${program} ${command.name}: ${command.summary}`,
    "",
    `Usage: ${command.usage}`,
    "",
    ...command.description,
    "",
    "Arguments:",
    ...column([[command.positional.name, command.positional.description]]),
    "",
    "Options:",
    ...column([...general.map((f) => [flagLabel(f), flagText(f)] as const), ["-h, --help", "show this help"]])
  ]
  const byFormat = new Map<string, Array<Flag>>()
  for (const flag of command.flags) {
    if (flag.appliesTo === undefined) continue
    const title = `${flag.appliesTo.side === "to" ? "Writing" : "Reading"} ${
      flag.appliesTo.formats.join(", ")
    } (--${flag.appliesTo.side} ${flag.appliesTo.formats.join("|")}):`
    byFormat.set(title, [...(byFormat.get(title) ?? []), flag])
  }
  for (const [title, flags] of byFormat) {
    lines.push("", title, ...column(flags.map((f) => [flagLabel(f), flagText(f)] as const)))
  }
  lines.push("", "Examples:")
  for (const [example, what] of command.examples) lines.push(`  ${example}`, `      ${what}`)
  return lines.join("\n") + "\n"
}

/** The text of `openreward-effect --help`. */
export const rootHelp = (): string =>
  [
    `${program}: OpenReward conversations and environments, built on Effect`,
    "",
    `Usage: ${program} COMMAND [options]`,
    "",
    "Commands:",
    ...column(commands.map((c) => [c.name, c.summary] as const)),
    "",
    "Options:",
    ...column([["-h, --help", "show this help"], ["-V, --version", "print the version"]]),
    "",
    `Run '${program} COMMAND --help' for a command's options and examples.`
  ].join("\n") + "\n"

// -----------------------------------------------------------------------------
// parsing
// -----------------------------------------------------------------------------

/** What the command line asks for. */
export type Parsed =
  | { readonly _tag: "Help"; readonly text: string }
  | { readonly _tag: "Version" }
  | { readonly _tag: "UsageError"; readonly message: string; readonly command: Command | undefined }
  | {
    readonly _tag: "Run"
    readonly command: Command
    readonly positional: string | undefined
    readonly values: { readonly [key: string]: string | number | boolean }
    /** The keys of the flags given on the command line (defaults are not). */
    readonly given: ReadonlyArray<string>
  }

const usageError = (message: string, command: Command | undefined): Parsed => ({
  _tag: "UsageError",
  message,
  command
})

const quote = (s: string): string => JSON.stringify(s)

/** Parse `argv` (without the node and script paths). */
export const parse = (argv: ReadonlyArray<string>): Parsed => {
  const [first, ...rest] = argv
  if (first === undefined) return usageError("a command is required", undefined)
  if (first === "-h" || first === "--help" || first === "help") {
    const named = commands.find((c) => c.name === rest[0])
    return { _tag: "Help", text: named ? commandHelp(named) : rootHelp() }
  }
  if (first === "-V" || first === "--version") return { _tag: "Version" }
  const command = commands.find((c) => c.name === first)
  if (command === undefined) {
    return usageError(
      first.startsWith("-") ? `unknown option ${first}` : `unknown command ${quote(first)}`,
      undefined
    )
  }
  if (rest.includes("-h") || rest.includes("--help")) return { _tag: "Help", text: commandHelp(command) }

  const values: Record<string, string | number | boolean> = {}
  const given = new Set<Flag>()
  const positionals: Array<string> = []
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!
    if (arg === "--") {
      positionals.push(...rest.slice(i + 1))
      break
    }
    if (!arg.startsWith("--") || arg === "-") {
      if (arg.startsWith("-") && arg !== "-") return usageError(`unknown option ${arg}`, command)
      positionals.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    const name = arg.slice(2, eq === -1 ? undefined : eq)
    const flag = command.flags.find((f) => f.name === name)
    if (flag === undefined) return usageError(`unknown option --${name}`, command)
    if (given.has(flag)) return usageError(`--${name} is given twice`, command)
    given.add(flag)
    if (flag.kind === "boolean") {
      if (eq !== -1) return usageError(`--${name} takes no value`, command)
      values[flag.key] = true
      continue
    }
    let value: string
    if (eq !== -1) value = arg.slice(eq + 1)
    else {
      const next = rest[i + 1]
      if (next === undefined || next.startsWith("--")) return usageError(`--${name} needs a value`, command)
      value = next
      i++
    }
    const checked = checkValue(flag, value)
    if (typeof checked === "string") return usageError(checked, command)
    values[flag.key] = checked.value
  }

  for (const flag of command.flags) {
    if (given.has(flag)) continue
    if (flag.required) return usageError(`--${flag.name} is required`, command)
    if (flag.default !== undefined && flag.appliesTo === undefined) {
      values[flag.key] = flag.kind === "integer" ? Number(flag.default) : flag.default
    }
  }
  if (command === convert) {
    const problem = convertRules(values, new Set([...given].map((f) => f.key)), positionals[0])
    if (problem !== undefined) return usageError(problem, command)
  }
  // a format option is valid only with a format that has it, and a value only where that format has it
  for (const flag of given) {
    if (flag.appliesTo === undefined) continue
    const format = String(values[flag.appliesTo.side])
    if (!flag.appliesTo.formats.includes(format)) {
      return usageError(
        `--${flag.name} applies to --${flag.appliesTo.side} ${flag.appliesTo.formats.join(" or ")}, not ${format}`,
        command
      )
    }
    const option = flag.choices?.find((c) => c.value === values[flag.key])
    if (option?.formats !== undefined && !option.formats.includes(format)) {
      return usageError(
        `--${flag.name} ${option.value} applies to --${flag.appliesTo.side} ${option.formats.join(" or ")} only`,
        command
      )
    }
  }
  if (positionals.length > 1) {
    return usageError(`one ${command.positional.name} at most, got ${positionals.map(quote).join(", ")}`, command)
  }
  if (command.positional.required && positionals.length === 0) {
    return usageError(`${command.positional.name} is required`, command)
  }
  return { _tag: "Run", command, positional: positionals[0], values, given: [...given].map((f) => f.key) }
}

/**
 * `convert`'s rules between flags; sets `from` to the format of a `--record` shape when `--from` is
 * not given (before format flags are checked against it). A problem's text, or `undefined`.
 */
const convertRules = (
  values: Record<string, string | number | boolean>,
  given: ReadonlySet<string>,
  file: string | undefined
): string | undefined => {
  const framings = ["jsonl", "jsonSeq", "parquet"].filter((k) => values[k] === true)
  if (framings.length > 1) {
    return `--${framings.map((k) => k === "jsonSeq" ? "json-seq" : k).join(" and --")} exclude each other`
  }
  const parquet = values["parquet"] === true || (file?.endsWith(".parquet") ?? false)
  if (parquet && (file === undefined || file === "-")) return "Parquet input needs a FILE (it is read from its end)"
  const many = framings.length > 0 || parquet
  const placed = ["record", "messagesField", "messagesPath"].filter((k) => values[k] !== undefined)
  if (placed.length > 1) {
    const names = placed.map((k) =>
      k === "record" ? "--record" : k === "messagesField" ? "--messages-field" : "--messages-path"
    )
    return `${names.join(" and ")} exclude each other`
  }
  if (values["messagesField"] === "") return "--messages-field needs a key"
  for (const [key, flag] of [["aligned", "--aligned"], ["failures", "--failures"]] as const) {
    if (values[key] !== undefined && !many) {
      return `${flag} applies to many records: add --jsonl, --json-seq or --parquet`
    }
  }
  const jobs = values["jobs"] as number
  if (jobs < 1 || jobs > 64) return `--jobs must be between 1 and 64; got ${jobs}`
  if (jobs > 1 && !many) return "--jobs applies to many records: add --jsonl, --json-seq or --parquet"
  const record = values["record"] as string | undefined
  if (record !== undefined && record !== "auto" && !given.has("from")) {
    const from = shapeFormats[record as Shape]
    if (from !== undefined) values["from"] = from
  }
  if (record === "auto") {
    for (const flag of formatFlags) {
      if (flag.appliesTo?.side === "from" && given.has(flag.key) && !given.has("from")) {
        return `--${flag.name} needs --from with --record auto (each record's format is told from its keys)`
      }
    }
  }
  return undefined
}

const checkValue = (flag: Flag, value: string): string | { readonly value: string | number } => {
  switch (flag.kind) {
    case "choice": {
      const values = flag.choices!.map((c) => c.value)
      return values.includes(value)
        ? { value }
        : `--${flag.name} must be one of ${values.join(", ")}; got ${quote(value)}`
    }
    case "integer": {
      const n = Number(value)
      return /^\d+$/.test(value) && Number.isSafeInteger(n)
        ? { value: n }
        : `--${flag.name} must be a whole number; got ${quote(value)}`
    }
    default:
      return flag.pattern === undefined || flag.pattern.regex.test(value)
        ? { value }
        : `--${flag.name} must be ${flag.pattern.rule}; got ${quote(value)}`
  }
}

/** The text printed for a usage error: the message, then the relevant usage, once. */
export const usageText = (message: string, command: Command | undefined): string =>
  command === undefined
    ? `${program}: ${message}\n\nUsage: ${program} COMMAND [options]   (commands: ${
      commands.map((c) => c.name).join(", ")
    })\nRun '${program} --help' for more.\n`
    : `${program} ${command.name}: ${message}\n\nUsage: ${command.usage}\nRun '${program} ${command.name} --help' for the options and examples.\n`
