/**
 * Golden vectors: this library against the reference SDK's recorded behaviour, with no Python.
 *
 * `test/vectors/expected.json` is what openreward 0.1.167 does with each conversation of
 * `test/vectors/corpus.json` (written by `npm run vectors`; `npm run test:interop` proves it is still
 * what the live reference does). Every case is compared on every surface (see test/utils/vectors.ts):
 * canonical decoding and encoding, `/prompt` flattening, the client's lenient reading, and the four
 * provider formats. We must match the reference everywhere, except on the deliberate differences
 * listed in `differences` (test/utils/vectors.ts) and in docs/compatibility.md.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Vectors from "./utils/vectors.js"

const corpus = Vectors.parseCorpus(Vectors.readText(Vectors.paths.corpus))
const vectors = Vectors.parseVectors(Vectors.readText(Vectors.paths.expected))
const cases = Vectors.pair(corpus, vectors)

const blockTypes = (blocks: unknown): ReadonlyArray<string> =>
  Array.isArray(blocks)
    ? blocks.flatMap((b) => {
      const type = typeof b === "object" && b !== null ? (b as { type?: unknown }).type : undefined
      const inner = typeof b === "object" && b !== null ? (b as { blocks?: unknown }).blocks : undefined
      return [typeof type === "string" ? type : "<none>", ...blockTypes(inner).map((t) => `${type}>${t}`)]
    })
    : []

const messages = (c: Vectors.CorpusCase): ReadonlyArray<{ readonly role: unknown; readonly blocks: unknown }> =>
  c.conversation.flatMap((m) => typeof m === "object" && m !== null ? [m as { role: unknown; blocks: unknown }] : [])

describe("golden vectors", () => {
  it("pair every corpus case with its recorded reference behaviour", () => {
    assert.strictEqual(cases.length, corpus.length)
    assert.deepStrictEqual(
      vectors.cases.map((v) => v.name),
      corpus.map((c) => c.name).sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
    )
  })

  it("cover every role, block type, placement and kind of reference failure", () => {
    assert.isAtLeast(corpus.length, 60)
    const placements = new Set(
      corpus.flatMap((c) => messages(c).flatMap((m) => blockTypes(m.blocks).map((t) => `${m.role}:${t}`)))
    )
    for (
      const p of [
        "system:text",
        "system:image",
        "user:text",
        "user:image",
        "user:tool_result",
        "user:tool_result>text",
        "user:tool_result>image",
        "assistant:text",
        "assistant:image",
        "assistant:reasoning",
        "assistant:tool_call",
        // misplaced, unknown and untyped blocks
        "system:reasoning",
        "system:tool_call",
        "system:tool_result",
        "user:reasoning",
        "user:tool_call",
        "assistant:tool_result",
        "user:video",
        "user:tool_result>file",
        "user:tool_result>reasoning",
        "user:<none>"
      ]
    ) assert.isTrue(placements.has(p), `no case has a ${p} block`)
    // the reference both accepts and rejects, and every client surface both succeeds and raises
    assert.isTrue(vectors.cases.some((v) => v.server.every((o) => o.ok)))
    assert.isTrue(vectors.cases.some((v) => v.server.some((o) => !o.ok)))
    for (const format of ["parse", ...Vectors.formats] as const) {
      assert.isTrue(vectors.cases.some((v) => v.client[format].ok), `${format} never succeeds`)
      assert.isTrue(vectors.cases.some((v) => !v.client[format].ok), `${format} never raises`)
    }
  })

  it("map every reference error to exactly one of our tags, and use every mapping", () => {
    const errors = vectors.cases.flatMap((v) =>
      (["parse", ...Vectors.formats] as const).flatMap((s) => {
        const o = v.client[s]
        return o.ok ? [] : [o.error]
      })
    )
    const used = new Set<number>()
    for (const error of errors) {
      const row = Vectors.errorTagRow(error)
      assert.isTrue(Option.isSome(row), `no single mapping for ${error.type}: ${error.message}`)
      if (Option.isSome(row)) used.add(row.value)
    }
    Vectors.errorTags.forEach((row, i) => assert.isTrue(used.has(i), `mapping ${row.pattern} is never used`))
  })

  it("list each deliberate difference once, for real cases and surfaces, in docs/compatibility.md too", () => {
    const docs = Vectors.readText(Vectors.paths.compatibility)
    const names = new Set(corpus.map((c) => c.name))
    const seen = new Set<string>()
    for (const d of Vectors.differences) {
      assert.isTrue(names.has(d.name), `${d.name} is not a corpus case`)
      assert.isFalse(seen.has(d.name), `${d.name} is listed twice`)
      seen.add(d.name)
      assert.isAbove(d.surfaces.length, 0)
      assert.isAbove(d.reason.length, 0)
      assert.include(docs, `\`${d.name}\``, `docs/compatibility.md does not list ${d.name}`)
    }
  })

  for (const [input, vector] of cases) {
    describe(input.name, () => {
      for (const surface of Vectors.surfacesOf(vector)) {
        const difference = Vectors.differenceFor(input.name, surface)
        it(difference === undefined ? surface : `${surface} (differs on purpose)`, () => {
          const verdict = Vectors.compare(input, vector, surface)
          if (difference === undefined) {
            assert.isTrue(Option.isNone(verdict), Option.getOrElse(verdict, () => ""))
          } else {
            assert.isTrue(
              Option.isSome(verdict),
              `listed as a deliberate difference (${difference.reason}) but now matches the reference: remove the row`
            )
          }
        })
      }
    })
  }
})
