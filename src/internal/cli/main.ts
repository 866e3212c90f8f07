/**
 * The command line's entry: parse, then import and run only what the command needs.
 *
 * Exit codes: 0 done; 1 a conversation failed to convert (or `serve` failed to start); 2 a usage
 * error (unknown command or option, bad value, missing or unreadable file), reported as one message
 * and the command's usage line on stderr. Nothing is coloured, so output is the same on a terminal,
 * in a pipe and with `NO_COLOR`.
 *
 * @internal
 */
import * as fs from "node:fs"
import * as Peers from "../peers.js"
import { version } from "../version.js"
import * as Args from "./args.js"
import type * as ServeModule from "./serve.js"

/** Where the command line reads and writes. */
export interface Io {
  readonly stdin: AsyncIterable<Buffer | string>
  readonly stdout: NodeJS.WritableStream
  readonly stderr: NodeJS.WritableStream
}

/** The optional peers `serve` imports (the library and `convert` need only `effect`), pinned. */
export const servePeers = Peers.server

/** Why `file` cannot be read, or `undefined` when it can. */
const unreadable = (file: string): string | undefined => {
  try {
    if (fs.statSync(file).isDirectory()) return `${file} is a directory`
    fs.accessSync(file, fs.constants.R_OK)
    return undefined
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    return code === "ENOENT" ? `no such file: ${file}` : `cannot read ${file} (${code ?? String(e)})`
  }
}

/**
 * Run the command line `argv` (without node and the script). Resolves to the exit code, or to
 * `undefined` for `serve`, which owns the process from then on.
 */
export const main = async (argv: ReadonlyArray<string>, io: Io): Promise<number | undefined> => {
  const parsed = Args.parse(argv)
  switch (parsed._tag) {
    case "Help":
      io.stdout.write(parsed.text)
      return 0
    case "Version":
      io.stdout.write(`${Args.program} ${version}\n`)
      return 0
    case "UsageError":
      io.stderr.write(Args.usageText(parsed.message, parsed.command))
      return 2
  }
  const { command, positional, values, given } = parsed
  if (positional !== undefined && positional !== "-") {
    const problem = unreadable(positional)
    if (problem !== undefined) {
      io.stderr.write(Args.usageText(problem, command))
      return 2
    }
  }
  if (command === Args.serve) {
    let Serve: typeof ServeModule
    try {
      Serve = await import("./serve.js")
    } catch (e) {
      const missing = Peers.missingPackage(e)
      if (missing === undefined) throw e
      io.stderr.write(`${Peers.hint(`${Args.program} serve:`, missing)}\n`)
      return 1
    }
    Serve.run({
      module: positional!,
      port: values["port"] as number,
      host: values["host"] as string,
      routeKey: values["routeKey"] as string | undefined,
      drainTimeout: values["drainTimeout"] as number,
      maxSessions: values["maxSessions"] as number,
      maxSessionsPerClient: values["maxSessionsPerClient"] as number,
      trustedProxies: values["trustedProxies"] as number,
      requestTimeout: values["requestTimeout"] as number
    })
    return undefined
  }
  const side = (which: "to" | "from") => {
    const options: Record<string, unknown> = {}
    for (const flag of Args.formatFlags) {
      if (flag.appliesTo?.side === which && values[flag.key] !== undefined) {
        options[flag.option ?? flag.key] = values[flag.key]
      }
    }
    return options
  }
  const Convert = await import("./convert.js")
  const file = positional === undefined || positional === "-" ? undefined : positional
  const parquet = values["parquet"] === true || (file?.endsWith(".parquet") ?? false)
  const framing = parquet
    ? "parquet"
    : values["jsonSeq"] === true
    ? "json-seq"
    : values["jsonl"] === true
    ? "jsonl"
    : "document"
  let messagesAt: ReadonlyArray<string | number> | undefined
  if (typeof values["messagesField"] === "string") messagesAt = [values["messagesField"]]
  if (typeof values["messagesPath"] === "string") {
    const Record = await import("../dataset/record.js")
    const path = Record.parsePointer(values["messagesPath"])
    if (typeof path === "string") {
      io.stderr.write(Args.usageText(path, command))
      return 2
    }
    messagesAt = path
  }
  return Convert.run({
    from: values["from"] as Args.Source,
    fromGiven: given.includes("from"),
    to: values["to"] as Args.Target,
    record: values["record"] as Args.Shape | "auto" | undefined,
    messagesAt,
    unsupported: values["unsupported"] === "report" ? "report" : "error",
    strict: values["strict"] === true,
    encode: side("to"),
    decode: side("from"),
    aligned: values["aligned"] === true,
    unit: parquet ? "row" : "line",
    framing,
    jobs: values["jobs"] as number,
    quiet: values["quiet"] === true,
    failures: values["failures"] as string | undefined,
    output: values["output"] as string | undefined,
    gzip: values["gzip"] === true
  }, { file, stdin: io.stdin, stdout: io.stdout, stderr: io.stderr })
}
