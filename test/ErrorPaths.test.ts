/**
 * Every decode error's path exists in the input it was decoding (`test/utils/paths.ts`): on hostile
 * input made from each format's own shape (valid bodies with a subtree replaced by any JSON value),
 * on any JSON value, and (test/corpus/Transcripts.test.ts) on every stored real transcript.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import type * as Schema from "effect/Schema"
import {
  AnthropicFormat,
  Conversation,
  Format,
  GoogleFormat,
  OpenAiFormat,
  OpenAiResponsesFormat
} from "../src/index.js"
import { pathExists } from "./utils/paths.js"

const inputs: ReadonlyArray<readonly [Format.Source, Schema.Schema<any, any>]> = [
  ["openai", OpenAiFormat.Input],
  ["openrouter", OpenAiFormat.Input],
  ["anthropic", AnthropicFormat.Input],
  ["google", GoogleFormat.Input],
  ["openai-responses", OpenAiResponsesFormat.Input],
  ["canonical", Conversation.Conversation]
]

/** Replace the subtree at a random place (chosen by `pick`) with `value`. */
const replaceAt = (input: unknown, pick: number, value: unknown): unknown => {
  const places: Array<ReadonlyArray<string | number>> = []
  const visit = (v: unknown, path: ReadonlyArray<string | number>) => {
    places.push(path)
    if (Array.isArray(v)) v.forEach((item, i) => visit(item, [...path, i]))
    else if (typeof v === "object" && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        visit(item, [...path, k])
      }
    }
  }
  visit(input, [])
  const path = places[pick % places.length]!
  const go = (v: unknown, i: number): unknown => {
    if (i === path.length) return value
    const step = path[i]!
    if (Array.isArray(v)) return v.map((item, j) => j === step ? go(item, i + 1) : item)
    return { ...(v as object), [step]: go((v as { readonly [k: string]: unknown })[step as string], i + 1) }
  }
  return go(input, 0)
}

const decode = (
  format: Format.Source,
  input: unknown
): Either.Either<unknown, { readonly path: ReadonlyArray<string | number>; readonly message: string }> =>
  format === "canonical" ? Format.read("canonical", input) : Format.codecs[format].decode(input)

describe("every decode error's path exists in its input", () => {
  for (const [format, schema] of inputs) {
    const valid = Arbitrary.make(schema).map((v) => JSON.parse(JSON.stringify(v)) as unknown)
    it.prop(
      `${format}: a valid input with one subtree replaced`,
      [valid, fc.nat(), fc.jsonValue({ maxDepth: 3 })],
      ([input, pick, value]) => {
        const hostile = replaceAt(input, pick, value)
        const decoded = decode(format, hostile)
        if (Either.isLeft(decoded)) {
          assert.isTrue(pathExists(hostile, decoded.left.path), `${decoded.left.message} in ${JSON.stringify(hostile)}`)
        }
      },
      { fastCheck: { numRuns: 150 } }
    )
    it.prop(`${format}: any JSON value`, [fc.jsonValue({ maxDepth: 4 })], ([input]) => {
      const decoded = decode(format, input)
      if (Either.isLeft(decoded)) {
        assert.isTrue(pathExists(input, decoded.left.path), `${decoded.left.message} in ${JSON.stringify(input)}`)
      }
    }, { fastCheck: { numRuns: 150 } })
  }
})
