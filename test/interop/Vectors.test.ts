/**
 * Golden vectors against the live reference SDK (run by `npm run test:interop`, which points
 * `OPENREWARD_PYTHON` at a venv holding openreward 0.1.167).
 *
 * The generator runs once, into a temporary directory. Its output must equal the committed
 * `test/vectors/expected.json` byte for byte (so the vectors test/Vectors.test.ts checks without Python
 * really are the reference's), and this library must differ from the fresh output exactly where
 * the table of deliberate differences says, nowhere else.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Command from "@effect/platform/Command"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { assert, layer } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { fileURLToPath } from "node:url"
import * as Vectors from "../utils/vectors.js"

const root = fileURLToPath(new URL("../../", import.meta.url))

/** The vectors the live reference generates, as text. */
class Generated extends Context.Tag("test/interop/Vectors/Generated")<Generated, string>() {}

const generate = Effect.gen(function*() {
  const python = process.env["OPENREWARD_PYTHON"]
  if (python === undefined || python === "") {
    return yield* Effect.dieMessage("OPENREWARD_PYTHON is not set: run this suite with npm run test:interop")
  }
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const out = path.join(yield* fs.makeTempDirectoryScoped({ prefix: "openreward-vectors-" }), "expected.json")
  const exitCode = yield* Command.make(python, Vectors.paths.generator, "--out", out).pipe(
    Command.workingDirectory(root),
    Command.stdout("inherit"),
    Command.stderr("inherit"),
    Command.exitCode
  )
  if (exitCode !== 0) return yield* Effect.dieMessage(`${Vectors.paths.generator} exited with ${exitCode}`)
  return yield* fs.readFileString(out)
})

const GeneratedLive = Layer.scoped(Generated, generate).pipe(Layer.provide(NodeContext.layer))

/** The first line where two texts differ, with its neighbours, for a readable failure. */
const firstDifference = (committed: string, fresh: string): string => {
  const a = committed.split("\n")
  const b = fresh.split("\n")
  const i = a.findIndex((line, n) => line !== b[n])
  const at = i === -1 ? a.length : i
  const around = (lines: ReadonlyArray<string>) => lines.slice(Math.max(0, at - 3), at + 3).join("\n")
  return `line ${at + 1}\ncommitted:\n${around(a)}\nreference:\n${around(b)}`
}

layer(GeneratedLive, { timeout: 120_000 })("golden vectors against the live reference", (it) => {
  const corpus = Vectors.parseCorpus(Vectors.readText(Vectors.paths.corpus))

  it.effect("regenerates the committed vectors byte for byte", () =>
    Effect.gen(function*() {
      const fresh = yield* Generated
      const committed = Vectors.readText(Vectors.paths.expected)
      assert.isTrue(
        fresh === committed,
        `${Vectors.paths.expected} is not what the reference produces (npm run vectors regenerates it); first difference at ${
          firstDifference(committed, fresh)
        }`
      )
    }))

  it.effect("differs from this library exactly where the deliberate differences say", () =>
    Effect.gen(function*() {
      const fresh = Vectors.parseVectors(yield* Generated)
      const found = Vectors.mismatches(corpus, fresh)
      const expected = Vectors.differences.flatMap((d) => d.surfaces.map((s) => `${d.name} / ${s}`))
      assert.deepStrictEqual(
        found.map((m) => `${m.name} / ${m.surface}`).sort(),
        [...expected].sort(),
        found.map((m) => `${m.name} / ${m.surface}: ${m.why}`).join("\n\n")
      )
    }))
})
