/**
 * The documentation's examples: every ```ts fence in README.md and docs/**.md, and every ```ts fence in
 * a doc comment of src/**.ts (the module-level `@example`s), with the output block shown after it.
 *
 * - A fence marked ```ts no-run is a fragment: neither type-checked nor run.
 * - What an example prints (`console.log`, `Console.log`) is shown right after it, in a fence marked
 *   ```text output (in a doc comment, inside the comment). test/Docs.test.ts fails when the shown
 *   output is not what the example prints, and when an example prints without showing it;
 *   `npm run docs:outputs` rewrites the shown outputs from what the examples print.
 * - A fence marked ```ts file=NAME is saved as NAME, beside the other examples of its page, so they
 *   can import it (`./NAME` with `.js`), as a reader saves it in their project.
 * - A ```sh fence between an example saved as NAME and its output, naming NAME, is the command that
 *   runs it (`npx tsx NAME`): the output shown after it is the example's. `npm run test:package` runs the commands of
 *   docs/getting-started.md as written, in an empty project.
 */
import * as fs from "node:fs"
import * as path from "node:path"

/** One example. Lines are 0-based indexes into its file's lines. */
export interface Snippet {
  readonly file: string
  /** 1-based line of the opening fence, for messages. */
  readonly line: number
  readonly code: string
  /** The line prefix inside the fence: "" in markdown, " * " in a doc comment. */
  readonly prefix: string
  /** The closing fence's line. */
  readonly closeLine: number
  /** The file name the page saves it as (`ts file=NAME`), if any. */
  readonly name: string | undefined
  /** The line the output follows: the closing fence of the code, or of the command that runs it. */
  readonly anchor: number
  /** The shown output, if any, and the lines it spans (opening fence to closing fence, inclusive). */
  readonly output: { readonly text: string; readonly from: number; readonly to: number } | undefined
}

const walk = (dir: string, ext: string): Array<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? walk(path.join(dir, entry.name), ext)
        : entry.name.endsWith(ext)
        ? [path.join(dir, entry.name)]
        : []
    ).sort()
    : []

/** Every file whose examples the tests run, relative to `root`. */
export const files = (root: string): Array<string> =>
  [
    path.join(root, "README.md"),
    // docs/api is generated from the doc comments (npm run docs), whose examples are read from src.
    ...walk(path.join(root, "docs"), ".md").filter((f) => !f.startsWith(path.join(root, "docs", "api") + path.sep)),
    ...walk(path.join(root, "src"), ".ts").filter((f) => !f.includes(`${path.sep}internal${path.sep}`))
  ].map((f) => path.relative(root, f))

const markdown = { open: /^```ts(.*)$/, close: /^```\s*$/, blank: /^\s*$/, strip: (l: string) => l, prefix: "" }
const comment = {
  open: /^(\s*\* ?)```ts(.*)$/,
  close: /^\s*\* ?```\s*$/,
  blank: /^\s*\*\s*$/,
  strip: (l: string) => l.replace(/^\s*\* ?/, ""),
  prefix: " * "
}

/** The examples of one file (runnable and `no-run` alike; see {@link Snippet}). */
export const parse = (file: string, text: string): Array<Snippet & { readonly run: boolean }> => {
  const syntax = file.endsWith(".md") ? markdown : comment
  const lines = text.split("\n")
  const found: Array<Snippet & { readonly run: boolean }> = []
  for (let i = 0; i < lines.length; i++) {
    const open = syntax.open.exec(lines[i]!)
    if (open === null) continue
    const info = (file.endsWith(".md") ? open[1] : open[2]) ?? ""
    const prefix = file.endsWith(".md") ? "" : (open[1] ?? " * ").replace(/\s*$/, " ")
    let close = i + 1
    while (close < lines.length && !syntax.close.test(lines[close]!)) close++
    const code = lines.slice(i + 1, close).map(syntax.strip).join("\n") + "\n"
    const nextFence = (from: number) => {
      let next = from + 1
      while (next < lines.length && syntax.blank.test(lines[next]!)) next++
      return next
    }
    const name = /(?:^|\s)file=(\S+)/.exec(info)?.[1]
    let anchor = close
    let next = nextFence(close)
    // the command that runs the example (```sh naming its file), then its output
    if (name !== undefined && next < lines.length && /^```sh\s*$/.test(syntax.strip(lines[next]!).trim())) {
      let end = next + 1
      while (end < lines.length && !syntax.close.test(lines[end]!)) end++
      const after = nextFence(end)
      const runs = lines.slice(next + 1, end).some((l) => l.split(/\s+/).includes(name))
      if (runs && after < lines.length && syntax.strip(lines[after]!).trim() === "```text output") {
        anchor = end
        next = after
      }
    }
    let output: Snippet["output"] = undefined
    if (next < lines.length && syntax.strip(lines[next]!).trim() === "```text output") {
      let end = next + 1
      while (end < lines.length && !syntax.close.test(lines[end]!)) end++
      output = { text: lines.slice(next + 1, end).map(syntax.strip).join("\n"), from: next, to: end }
    }
    found.push({
      file,
      line: i + 1,
      code,
      prefix,
      closeLine: close,
      name,
      anchor,
      output,
      run: !info.includes("no-run")
    })
    i = output?.to ?? close
  }
  return found
}

/** Every runnable example under `root`. */
export const snippets = (root: string): Array<Snippet> =>
  files(root).flatMap((file) => parse(file, fs.readFileSync(path.join(root, file), "utf8")).filter((s) => s.run))

/**
 * Normalize what an example printed for comparison and display: no trailing spaces or blank lines, and
 * the parts of Effect's log lines that change from run to run (the time, the fiber's number) elided.
 */
export const normalize = (printed: string): string =>
  printed.split("\n").map((l) =>
    l.replace(/\s+$/, "").replace(/^timestamp=\S+ /, "timestamp=… ").replace(/ fiber=#\d+ /, " fiber=#… ")
  ).join("\n").replace(/\n+$/, "")

/**
 * Rewrite one file's shown outputs: `outputs` maps an example's opening line to what it printed
 * (empty: show nothing). Returns the new text.
 */
export const rewrite = (file: string, text: string, outputs: ReadonlyMap<number, string>): string => {
  const lines = text.split("\n")
  const edits = parse(file, text).filter((s) => outputs.has(s.line)).reverse()
  for (const snippet of edits) {
    const printed = outputs.get(snippet.line)!
    const blank = snippet.prefix.trimEnd()
    const block = printed === ""
      ? []
      : [
        blank,
        `${snippet.prefix}\`\`\`text output`,
        ...printed.split("\n").map((l) => (snippet.prefix + l).trimEnd()),
        `${snippet.prefix}\`\`\``
      ]
    if (snippet.output !== undefined) {
      // Replace from the line after the anchor (the code's closing fence, or that of the command
      // running it) through the old output's closing fence.
      lines.splice(snippet.anchor + 1, snippet.output.to - snippet.anchor, ...block)
    } else {
      lines.splice(snippet.closeLine + 1, 0, ...block)
    }
  }
  return lines.join("\n")
}

// -----------------------------------------------------------------------------
// shell sessions
// -----------------------------------------------------------------------------

/**
 * A page's shell sessions: ```sh session fences, whose `$ command` lines run in bash, each followed
 * by what it prints (stdout and stderr, as a terminal shows them), and the files the page shows as
 * fences marked `file=NAME` (```jsonl file=train.jsonl), which the sessions' commands read. The
 * commands of a page run in order in one directory, so a later one reads what an earlier one wrote.
 */
export interface Sessions {
  readonly file: string
  /** The files, by their text, or (`<!-- session-file: NAME = PATH -->`, for bytes) a path in the repository. */
  readonly files: ReadonlyArray<
    { readonly name: string; readonly text: string } | { readonly name: string; readonly from: string }
  >
  readonly commands: ReadonlyArray<Command>
}

/** One `$ command` of a session, and the lines (0-based, end exclusive) of the output shown after it. */
export interface Command {
  readonly line: number
  readonly command: string
  readonly output: string
  readonly from: number
  readonly to: number
}

/** The shell sessions and files of one markdown page. */
export const sessions = (file: string, text: string): Sessions => {
  const lines = text.split("\n")
  const files: Array<{ name: string; text: string } | { name: string; from: string }> = []
  const commands: Array<Command> = []
  for (let i = 0; i < lines.length; i++) {
    const copied = /^<!-- session-file: (\S+) = (\S+) -->$/.exec(lines[i]!)
    if (copied !== null) files.push({ name: copied[1]!, from: copied[2]! })
    const named = /^```\S*\s+file=(\S+)\s*$/.exec(lines[i]!)
    const session = /^```sh session\s*$/.test(lines[i]!)
    if (named === null && !session) continue
    let close = i + 1
    while (close < lines.length && !/^```\s*$/.test(lines[close]!)) close++
    if (named !== null) files.push({ name: named[1]!, text: lines.slice(i + 1, close).join("\n") + "\n" })
    else {
      let at = i + 1
      while (at < close) {
        const command = /^\$ (.*)$/.exec(lines[at]!)
        if (command === null) throw new Error(`${file}:${at + 1}: a session line that is not a command or its output`)
        let end = at + 1
        while (end < close && !lines[end]!.startsWith("$ ")) end++
        commands.push({
          line: at + 1,
          command: command[1]!,
          output: lines.slice(at + 1, end).join("\n"),
          from: at + 1,
          to: end
        })
        at = end
      }
    }
    i = close
  }
  return { file, files, commands }
}

/** Every page under `root` with shell sessions. */
export const sessionPages = (root: string): Array<Sessions> =>
  files(root).filter((f) => f.endsWith(".md")).map((f) => sessions(f, fs.readFileSync(path.join(root, f), "utf8")))
    .filter((s) => s.commands.length > 0)

/** Rewrite a page's session outputs: `outputs` maps a command's line to what it printed. */
export const rewriteSessions = (file: string, text: string, outputs: ReadonlyMap<number, string>): string => {
  const lines = text.split("\n")
  const edits = sessions(file, text).commands.filter((c) => outputs.has(c.line)).reverse()
  for (const command of edits) {
    const printed = outputs.get(command.line)!
    lines.splice(command.from, command.to - command.from, ...(printed === "" ? [] : printed.split("\n")))
  }
  return lines.join("\n")
}
