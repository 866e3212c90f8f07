/**
 * Every Gemini answer recorded from the live APIs (`../shared/corpora/*\/fixtures/google/`, read in
 * place, never copied into the repository) through `GoogleFormat.decodeResponse` or `decodeStream`.
 *
 * What each answer must keep is computed from the recording itself, independently of the decoder:
 * the text, the thoughts, every thought signature in order (and each is sent back where it came
 * from when the turn is encoded for Gemini again), every function call's name, arguments and id,
 * every candidate field other than the content (grounding, citations, safety ratings, ...) and the
 * usage record, the stop reason. Only what the recording cannot tell is written here per answer:
 * the arguments of calls streamed in parts, and the outcome of answers that are refused (hosted
 * parts, out of scope this round) or hold no answer (a blocked prompt).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { GoogleFormat, type Json, Message, type ModelResponse } from "../../src/index.js"
import * as Corpus from "../utils/corpus.js"

type Record = { readonly [key: string]: unknown }

type Expected =
  | {
    readonly _tag: "answer"
    readonly stop: ModelResponse.StopReason
    /** The calls of an answer that streams their arguments in parts (else read from the recording). */
    readonly calls?: ReadonlyArray<readonly [name: string, args: Json.JsonObject]>
  }
  | { readonly _tag: "refused"; readonly contentType: string; readonly part: string }
  | { readonly _tag: "blocked"; readonly blockReason: string }

const answer = (
  stop: ModelResponse.StopReason,
  calls?: ReadonlyArray<readonly [string, Json.JsonObject]>
): Expected => ({ _tag: "answer", stop, ...(calls === undefined ? {} : { calls }) })

const recipe = {
  recipe: {
    ingredients: [
      { amount: "16 oz", name: "Lasagna noodles" },
      { amount: "1 lb", name: "Ground beef" },
      { amount: "15 oz", name: "Ricotta cheese" },
      { amount: "3 cups", name: "Mozzarella cheese" },
      { amount: "1/2 cup", name: "Parmesan cheese" },
      { amount: "24 oz", name: "Tomato sauce" },
      { amount: "1", name: "Egg" },
      { amount: "2 cloves", name: "Garlic" },
      { amount: "1 tsp", name: "Salt" },
      { amount: "1/2 tsp", name: "Pepper" }
    ],
    name: "Lasagna",
    steps: [
      "Preheat oven to 375°F (190°C).",
      "Cook lasagna noodles according to package directions, drain and set aside.",
      "Brown ground beef with minced garlic in a skillet. Drain fat and stir in tomato sauce. Simmer for 10 minutes.",
      "In a bowl, mix ricotta cheese, egg, salt, pepper, and Parmesan cheese.",
      "In a 9x13 baking dish, spread a thin layer of meat sauce.",
      "Layer noodles, ricotta mixture, mozzarella, and meat sauce. Repeat.",
      "Top with remaining mozzarella cheese.",
      "Cover with foil and bake for 25 minutes.",
      "Remove foil and bake for another 25 minutes until golden.",
      "Let stand for 15 minutes before serving."
    ]
  }
}

/** Per recording (its name after the source's prefix): what the recording alone cannot say. */
const expected: { readonly [name: string]: Expected } = {
  "google-reasoning-gemini3.chunks.txt": answer("stop"),
  "google-reasoning-gemini3.json": answer("stop"),
  "google-reasoning.chunks.txt": answer("stop"),
  "google-reasoning.json": answer("stop"),
  "google-stream-no-args-tool-call.chunks.txt": answer("tool_calls", [
    ["read_theme", {}],
    ["read_screen", { id: "A" }],
    ["read_screen", { id: "B" }],
    ["read_screen", { id: "C" }]
  ]),
  "google-stream-tool-call-arguments.chunks.txt": answer("tool_calls", [
    ["getWeather", { location: "Boston" }],
    ["getWeather", { location: "San Francisco" }]
  ]),
  "google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt": answer("tool_calls", [
    ["writeItems", {
      operations: [
        { action: "add", description: "Fresh red apple", itemid: "apple_001", price: 0.5 },
        { action: "add", description: "Ripe yellow banana", itemid: "banana_001", price: 0.3 }
      ]
    }]
  ]),
  "google-text.chunks.txt": answer("stop"),
  "google-text.json": answer("stop"),
  "google-tool-call-gemini3.chunks.txt": answer("tool_calls"),
  "google-tool-call-gemini3.json": answer("tool_calls"),
  "google-tool-call.chunks.txt": answer("tool_calls"),
  "google-tool-call.json": answer("tool_calls"),
  "google-vertex-stream-tool-call-arguments-nested.1.chunks.txt": answer("tool_calls", [["cookRecipe", recipe]]),
  // code execution in a Gemini answer: provider-hosted, refused until a later round keeps it
  "test_anthropic_server_tool_receive_history_from_another_provider.0.json": {
    _tag: "refused",
    contentType: "executable_code",
    part: "executableCode"
  },
  "test_google_instructions_only_with_tool_calls.0.json": answer("tool_calls"),
  "test_google_model_armor_prompt_template_text_gets_blocked.1.json": { _tag: "blocked", blockReason: "MODEL_ARMOR" },
  // Gemini 3's file search as a server-side tool call
  "test_google_model_file_search_grounding_gemini_3_False.3.json": {
    _tag: "refused",
    contentType: "tool_call",
    part: "toolCall"
  },
  "test_google_model_file_search_grounding_gemini_3_True.3.sse": {
    _tag: "refused",
    contentType: "tool_call",
    part: "toolCall"
  },
  "test_google_model_max_tokens.0.json": answer("max_tokens"),
  // cut at the token limit while thinking: an empty turn, and the stop reason says why
  "test_google_model_max_tokens_thinking_model_empty_response.0.json": answer("max_tokens"),
  // filtered: an empty turn, the ratings in its detail
  "test_google_model_safety_settings.0.json": answer("content_filter"),
  "test_google_model_stream.0.sse": answer("stop"),
  "test_google_model_thinking_part.0.json": answer("stop"),
  "test_google_model_thinking_part_iter.0.sse": answer("stop"),
  "test_google_model_web_search_tool.0.json": answer("stop"),
  "test_google_model_web_search_tool_stream.0.sse": answer("stop"),
  "test_google_streaming_tool_call_thought_signature.0.sse": answer("tool_calls"),
  "test_google_tool_config_any_with_tool_without_args.0.json": answer("tool_calls")
}

const keyOf = (file: string): string => file.split("/").pop()!.replace(/^[a-z-]+--/, "")

const isRecord = (u: unknown): u is Record => typeof u === "object" && u !== null && !Array.isArray(u)

// -----------------------------------------------------------------------------
// what the recording says, read without the decoder
// -----------------------------------------------------------------------------

/** The chunks of a recording (one for a whole answer). */
const chunksOf = (a: Corpus.Answer): ReadonlyArray<Record> =>
  (a.kind === "response" ? [a.body] : a.events!).filter(isRecord)

const candidatesOf = (chunk: Record): ReadonlyArray<Record> =>
  Array.isArray(chunk["candidates"]) ? chunk["candidates"].filter(isRecord) : []

const partsOf = (chunks: ReadonlyArray<Record>): ReadonlyArray<Record> =>
  chunks.flatMap((chunk) =>
    candidatesOf(chunk).flatMap((c) => {
      const content = c["content"]
      return isRecord(content) && Array.isArray(content["parts"]) ? content["parts"].filter(isRecord) : []
    })
  )

/** A candidate field over the chunks: the last value that is not empty (else the last one). */
const lastOf = (values: ReadonlyArray<unknown>): unknown => {
  const full = values.filter((v) => !(isRecord(v) && Object.keys(v).length === 0))
  return full.length > 0 ? full[full.length - 1] : values[values.length - 1]
}

const said = (a: Corpus.Answer) => {
  const chunks = chunksOf(a)
  const parts = partsOf(chunks)
  const candidates = chunks.flatMap(candidatesOf)
  const fields: { [key: string]: unknown } = {}
  for (const key of new Set(candidates.flatMap((c) => Object.keys(c)))) {
    if (key === "content" || key === "finishReason" || key === "index") continue
    fields[key] = lastOf(candidates.flatMap((c) => c[key] === undefined ? [] : [c[key]]))
  }
  const calls = parts.flatMap((p) => isRecord(p["functionCall"]) ? [p["functionCall"]] : [])
  return {
    text: parts.filter((p) => typeof p["text"] === "string" && p["thought"] !== true).map((p) => p["text"]).join(""),
    thoughts: parts.filter((p) => typeof p["text"] === "string" && p["thought"] === true).map((p) => p["text"]).join(
      ""
    ),
    signatures: parts.flatMap((p) => typeof p["thoughtSignature"] === "string" ? [p["thoughtSignature"]] : []),
    /** The calls sent whole (a streamed call's fragments have no name, partialArgs or willContinue). */
    wholeCalls: calls.filter((c) => c["partialArgs"] === undefined && c["willContinue"] !== true),
    finishReason: candidates.flatMap((c) => typeof c["finishReason"] === "string" ? [c["finishReason"]] : []).pop(),
    fields,
    usageMetadata: chunks.flatMap((c) => c["usageMetadata"] === undefined ? [] : [c["usageMetadata"]]).pop(),
    promptFeedback: chunks.flatMap((c) => c["promptFeedback"] === undefined ? [] : [c["promptFeedback"]]).pop()
  }
}

const decode = (a: Corpus.Answer) =>
  Effect.runSync(Effect.either(
    a.kind === "response"
      ? GoogleFormat.decodeResponse(a.body)
      : GoogleFormat.decodeStream(Stream.fromIterable(a.events!))
  ))

// -----------------------------------------------------------------------------
// the checks
// -----------------------------------------------------------------------------

const checkAnswer = (a: Corpus.Answer, r: ModelResponse.ModelResponse, expect: Expected & { _tag: "answer" }) => {
  const raw = said(a)
  const blocks = r.message.blocks
  const at = a.file
  assert.strictEqual(
    blocks.flatMap((b) => b.type === "text" ? [b.text] : []).join(""),
    raw.text,
    `${at}: the text`
  )
  assert.strictEqual(
    blocks.flatMap((b) => b.type === "reasoning" ? [b.text] : []).join(""),
    raw.thoughts,
    `${at}: the thoughts`
  )
  assert.deepStrictEqual(
    blocks.flatMap((b) => b.type === "reasoning" && b.signature !== null ? [b.signature] : []),
    raw.signatures,
    `${at}: every thought signature, in order`
  )
  const calls = blocks.flatMap((b) => b.type === "tool_call" ? [b] : [])
  assert.deepStrictEqual(
    calls.map((c) => [c.name, c.input]),
    expect.calls ?? raw.wholeCalls.map((c) => [c["name"], c["args"] ?? {}]),
    `${at}: every call's name and arguments`
  )
  const ids = calls.map((c) => c.id)
  assert.isTrue(ids.every((id) => id !== ""), `${at}: every call has an id`)
  assert.strictEqual(new Set(ids).size, ids.length, `${at}: the ids are distinct`)
  raw.wholeCalls.forEach((c, i) => {
    if (typeof c["id"] === "string") assert.strictEqual(ids[i], c["id"], `${at}: the id Gemini gave`)
  })
  assert.strictEqual(r.stopReason, expect.stop, `${at}: the stop reason`)
  assert.strictEqual(r.providerStopReason, raw.finishReason, `${at}: Gemini's finishReason`)
  // grounding, citations, url context, safety ratings, finishMessage, logprobs: on the message
  const kept = (r.message.detail as { readonly google?: Json.JsonObject } | null)?.google ?? {}
  assert.deepStrictEqual(kept, raw.fields, `${at}: every candidate field other than the content`)
  const response = (r.detail as { readonly google?: Record } | undefined)?.google ?? {}
  assert.deepStrictEqual(response["usageMetadata"], raw.usageMetadata, `${at}: the usage record as sent`)
  const { inputTokens, outputTokens, totalTokens } = r.usage
  if (totalTokens !== undefined && inputTokens !== undefined) {
    assert.strictEqual(inputTokens + (outputTokens ?? 0), totalTokens, `${at}: input and output add up`)
  }
  // sent back to Gemini (Gemini 3 needs its signatures where they came from), the turn is what came
  const replay = GoogleFormat.encode([Message.user("Go on."), r.message], { casing: "camel", reasoning: "thought" })
  assert.isTrue(Either.isRight(replay), `${at}: the turn encodes for Gemini again`)
  const sent = Either.getOrThrow(replay).contents[1]!.parts as ReadonlyArray<Record>
  assert.deepStrictEqual(
    sent.flatMap((p) => typeof p["thoughtSignature"] === "string" ? [p["thoughtSignature"]] : []),
    raw.signatures,
    `${at}: the signatures go back`
  )
  assert.deepStrictEqual(
    sent.flatMap((p) => isRecord(p["functionCall"]) ? [[p["functionCall"]["name"], p["functionCall"]["args"]]] : []),
    calls.map((c) => [c.name, c.input]),
    `${at}: the calls go back`
  )
}

describe("every recorded Gemini answer", () => {
  const all = Corpus.answers("google")

  it("is in the table of what it must give, and the table names no answer that is gone", () => {
    assert.isAbove(all.length, 30)
    assert.deepStrictEqual(all.map((a) => keyOf(a.file)).filter((k) => expected[k] === undefined), [])
    const present = new Set(all.map((a) => keyOf(a.file)))
    assert.deepStrictEqual(Object.keys(expected).filter((k) => !present.has(k)), [])
  })

  for (const a of all) {
    it(a.file, () => {
      const expect = expected[keyOf(a.file)]!
      const r = decode(a)
      switch (expect._tag) {
        case "answer": {
          if (Either.isLeft(r)) assert.fail(`${a.file}: ${r.left.message}`)
          checkAnswer(a, r.right, expect)
          break
        }
        case "refused": {
          if (Either.isRight(r)) assert.fail(`${a.file}: expected UnsupportedContent, got an answer`)
          const e = r.left
          assert.strictEqual(e._tag, "UnsupportedContent")
          if (e._tag !== "UnsupportedContent") break
          assert.strictEqual(e.contentType, expect.contentType)
          assert.strictEqual(e.path[e.path.length - 1], expect.part, "the path names the part's field")
          assert.include(e.message, `"${expect.contentType}" content has no canonical form`)
          break
        }
        case "blocked": {
          if (Either.isRight(r)) assert.fail(`${a.file}: expected NoAnswer, got an answer`)
          const e = r.left
          assert.strictEqual(e._tag, "NoAnswer")
          if (e._tag !== "NoAnswer") break
          assert.strictEqual(e.blockReason, expect.blockReason)
          const feedback = said(a).promptFeedback as Record
          assert.include(e.message, feedback["blockReasonMessage"] as string, "the provider's reason")
          break
        }
      }
    })
  }
})
