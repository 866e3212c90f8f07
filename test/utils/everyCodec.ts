/**
 * Every codec used once on every golden-vector conversation (test/vectors/corpus.json), as JSON: the
 * canonical decoders (strict and lenient), the prompt's, and each provider format's encode and decode
 * (of what it wrote, and of malformed input, whose errors come from the Schema decode). Run in-process
 * by test/CodeGeneration.test.ts, and in a child process under `node
 * --disallow-code-generation-from-strings`, where every guard is built as closures: the two runs must
 * print the same.
 *
 * Imports the sources by relative path (a child process has no test alias).
 */
import * as Either from "effect/Either"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type * as Codec from "../../src/Codec.js"
import * as Conversation from "../../src/Conversation.js"
import * as Format from "../../src/Format.js"
import * as Guard from "../../src/internal/guard.js"
import * as Prompt from "../../src/Prompt.js"

const corpus = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "vectors", "corpus.json")

const show = (result: Either.Either<unknown, { readonly _tag: string; readonly message: string }>): unknown =>
  Either.isRight(result) ? { right: result.right } : { left: result.left._tag, message: result.left.message }

/** Input no format reads, each held to its Schema decode for the error. */
const malformed: ReadonlyArray<unknown> = [
  5,
  [{ role: "user", content: 7 }],
  { messages: [{ role: "assistant", content: [{ type: "text", text: 1 }] }] },
  { contents: [{ role: "model", parts: [{ text: 1 }] }] },
  [{ type: "message", role: "user", content: [{ type: "input_text", text: null }] }],
  [{ role: "user", blocks: [{ type: "text", text: 2 }] }]
]

/** Everything, as JSON. */
export const run = (): unknown => {
  const cases = JSON.parse(fs.readFileSync(corpus, "utf8")) as ReadonlyArray<{ readonly conversation: unknown }>
  const out: Array<unknown> = []
  for (const { conversation: input } of cases) {
    const strict = Conversation.decode(input)
    const lenient = Conversation.decodeLenient(input)
    const row: Record<string, unknown> = { strict: show(strict), lenient: show(lenient) }
    if (Either.isRight(lenient)) {
      const conversation = lenient.right.conversation
      row["prompt"] = show(Prompt.decode(Prompt.encode(Prompt.flatten(conversation))))
      for (const name of Format.sources) {
        if (name === "canonical") continue
        const codec: Codec.Any = Format.codecs[name]
        const wire = codec.encode(conversation)
        row[name] = Either.isLeft(wire) ? show(wire) : show(codec.decode(JSON.parse(JSON.stringify(wire.right))))
      }
    }
    out.push(row)
  }
  const errors = Format.sources.map((name) => malformed.map((input) => show(Format.read(name, input))))
  return { cases: out, errors }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  let generates = true
  try {
    new Function("return 1")()
  } catch {
    generates = false
  }
  process.stdout.write(JSON.stringify({ generates, guardGenerates: Guard.canGenerate(), result: run() }))
}
