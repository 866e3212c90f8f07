/**
 * Each format's `responseErrors` and `streamErrors` are exactly what its `decodeResponse` and
 * `decodeStream` fail with (the public types, `XFormat.ResponseError` and `XFormat.StreamError`,
 * are read from those lists):
 *
 * - every listed tag is produced, by an input written here for it;
 * - no other tag is, and nothing is thrown: on hostile values, on every real answer of the corpora
 *   (`../shared/corpora/`), and on those answers mutated (a value replaced or removed anywhere in
 *   them; a stream's events cut short, repeated, swapped or one of them mutated).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FastCheck from "effect/FastCheck"
import * as Stream from "effect/Stream"
import {
  AnthropicFormat,
  GoogleFormat,
  type ModelResponse,
  OpenAiFormat,
  OpenAiResponsesFormat,
  OpenRouterFormat
} from "openreward-effect"
import * as Corpus from "./utils/corpus.js"

interface Format {
  readonly responseErrors: ReadonlyArray<string>
  readonly streamErrors: ReadonlyArray<string>
  readonly decodeResponse: (input: unknown) => Either.Either<ModelResponse.ModelResponse, { readonly _tag: string }>
  // each format's own options (only Anthropic's `message` is passed, by the case that needs it)
  readonly decodeStream: (
    events: Stream.Stream<unknown>,
    options?: never
  ) => Effect.Effect<ModelResponse.ModelResponse, { readonly _tag: string }>
}

/** What a decoder answered: `ok`, a tag, or `threw: ...` (never allowed). */
const tagOf = (run: () => Either.Either<unknown, { readonly _tag: string }>): string => {
  try {
    const result = run()
    return Either.isRight(result) ? "ok" : result.left._tag
  } catch (e) {
    return `threw: ${e instanceof Error ? e.message : String(e)}`
  }
}

const responseTag = (format: Format, input: unknown): string => tagOf(() => format.decodeResponse(input))

const streamTag = (
  format: Format,
  events: ReadonlyArray<unknown>,
  options?: { readonly message?: number }
): string =>
  tagOf(() => {
    const exit = Effect.runSyncExit(format.decodeStream(Stream.fromIterable(events), options as never))
    if (Exit.isSuccess(exit)) return Either.right(exit.value)
    const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
    if (failure === undefined) throw new Error(`not a failure: ${exit.cause._tag}`)
    return Either.left(failure)
  })

// -----------------------------------------------------------------------------
// hostile values and mutations
// -----------------------------------------------------------------------------

const nested = (depth: number): unknown => {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

const replacements: ReadonlyArray<unknown> = [
  undefined, // remove the key (or the array entry)
  null,
  0,
  -1,
  1.5,
  Number.MAX_VALUE,
  true,
  "",
  "x",
  "{not json",
  [],
  [null],
  {},
  { type: "x" },
  { type: 5 },
  { index: 1 },
  { role: "user" },
  nested(600)
]

const hostile: ReadonlyArray<unknown> = [
  ...replacements,
  "constructor",
  { content: 5 },
  { choices: 5 },
  {
    candidates: [5]
  },
  { output: 5 },
  [{}]
]

type Path = ReadonlyArray<string | number>

/** Every place in `u` (at most `limit`), its root first. */
const places = (u: unknown, limit = 400): Array<Path> => {
  const out: Array<Path> = []
  const walk = (v: unknown, at: Path) => {
    if (out.length >= limit) return
    out.push(at)
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...at, i]))
    else if (typeof v === "object" && v !== null) { for (const [k, x] of Object.entries(v)) walk(x, [...at, k]) }
  }
  walk(u, [])
  return out
}

/** A copy of `u` with the value at `path` replaced (`undefined`: removed). */
const replaced = (u: unknown, path: Path, value: unknown): unknown => {
  if (path.length === 0) return value
  const [head, ...rest] = path
  if (Array.isArray(u)) {
    const copy = [...u]
    const i = head as number
    if (rest.length === 0 && value === undefined) copy.splice(i, 1)
    else copy[i] = replaced(u[i], rest, value)
    return copy
  }
  const copy: Record<string, unknown> = { ...(u as Record<string, unknown>) }
  const key = head as string
  if (rest.length === 0 && value === undefined) delete copy[key]
  else copy[key] = replaced(copy[key], rest, value)
  return copy
}

const mutation = FastCheck.tuple(FastCheck.nat(), FastCheck.nat(), FastCheck.constantFrom(...replacements))

const mutate = (u: unknown, [at, _, value]: readonly [number, number, unknown]): unknown => {
  const all = places(u)
  return replaced(u, all[at % all.length]!, value)
}

/** A stream's events cut short, with one repeated or two swapped, or one of them mutated. */
const streamMutation = FastCheck.tuple(
  FastCheck.constantFrom("cut", "repeat", "swap", "mutate" as const),
  FastCheck.nat(),
  FastCheck.nat(),
  mutation
)

const mutateStream = (
  events: ReadonlyArray<unknown>,
  [how, i, j, m]: readonly [string, number, number, readonly [number, number, unknown]]
): ReadonlyArray<unknown> => {
  if (events.length === 0) return events
  const a = i % events.length
  const b = j % events.length
  switch (how) {
    case "cut":
      return events.slice(0, a)
    case "repeat":
      return [...events.slice(0, a + 1), events[a], ...events.slice(a + 1)]
    case "swap": {
      const copy = [...events]
      copy[a] = events[b]
      copy[b] = events[a]
      return copy
    }
    default:
      return events.map((e, k) => k === a ? mutate(e, m) : e)
  }
}

// -----------------------------------------------------------------------------
// an input for every tag
// -----------------------------------------------------------------------------

const anthropicMessage = (content: ReadonlyArray<unknown>) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude",
  content,
  stop_reason: "end_turn",
  usage: { input_tokens: 1, output_tokens: 1 }
})

/** The events of an Anthropic message with `blocks` (each started, optionally given deltas, stopped). */
const anthropicEvents = (
  blocks: ReadonlyArray<{ readonly block: unknown; readonly deltas?: ReadonlyArray<unknown> }>,
  end = true
): ReadonlyArray<unknown> => [
  { type: "message_start", message: { ...anthropicMessage([]), stop_reason: null } },
  ...blocks.flatMap(({ block, deltas = [] }, index) => [
    { type: "content_block_start", index, content_block: block },
    ...deltas.map((delta) => ({ type: "content_block_delta", index, delta })),
    { type: "content_block_stop", index }
  ]),
  { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
  ...(end ? [{ type: "message_stop" }] : [])
]

/** Two Anthropic messages one after another in one stream (deferred tool loading). */
const twoMessages: ReadonlyArray<unknown> = [
  ...anthropicEvents([{ block: { type: "text", text: "a" } }]),
  ...anthropicEvents([{ block: { type: "text", text: "b" } }]).map((e) =>
    (e as { type: string }).type === "message_start"
      ? { type: "message_start", message: { ...anthropicMessage([]), id: "msg_2", stop_reason: null } }
      : e
  )
]

const toolResult = { type: "tool_result", tool_use_id: "t", content: "x" }
const serverTool = { type: "server_tool_use", id: "s", name: "web_search", input: {} }

const geminiResponse = (candidates: ReadonlyArray<unknown>) => ({ candidates, responseId: "r1", modelVersion: "g" })
const geminiCandidate = (parts: ReadonlyArray<unknown>, index = 0) => ({
  index,
  content: { role: "model", parts },
  finishReason: "STOP"
})

const chatCompletion = (choices: ReadonlyArray<unknown>) => ({
  id: "c1",
  object: "chat.completion",
  model: "gpt",
  choices
})
const chatChoice = (message: unknown, index = 0) => ({ index, message, finish_reason: "stop" })
const chatChunk = (choices: ReadonlyArray<unknown>) => ({ id: "c1", object: "chat.completion.chunk", choices })
const badCall = { id: "call_1", type: "function", function: { name: "f", arguments: "{not json" } }

const responsesObject = (output: ReadonlyArray<unknown>) => ({
  id: "resp_1",
  object: "response",
  status: "completed",
  model: "gpt",
  output
})
const responsesEvents = (output: ReadonlyArray<unknown>): ReadonlyArray<unknown> => [
  { type: "response.created", response: { ...responsesObject([]), status: "in_progress" } },
  ...output.map((item, output_index) => ({ type: "response.output_item.done", output_index, item })),
  { type: "response.completed", response: responsesObject(output) }
]
const badFunctionCall = { type: "function_call", id: "fc_1", call_id: "c", name: "f", arguments: "{not json" }
const webSearch = { type: "web_search_call", id: "ws_1", status: "completed" }

interface Case {
  readonly name: Corpus.AnswerFormat
  readonly format: Format
  /** An answer for every tag of `responseErrors`. */
  readonly responses: { readonly [tag: string]: unknown }
  /** A stream for every tag of `streamErrors`. */
  readonly streams: { readonly [tag: string]: ReadonlyArray<unknown> }
  /** The options a tag's stream is read with, where it needs some. */
  readonly streamOptions?: { readonly [tag: string]: { readonly message?: number } }
}

const chat = (name: "openai" | "openrouter", format: Format): Case => ({
  name,
  format,
  responses: {
    MalformedInput: { choices: 5 },
    InvalidToolArguments: chatCompletion([chatChoice({ role: "assistant", content: null, tool_calls: [badCall] })]),
    UnsupportedContent: chatCompletion([
      chatChoice({ role: "assistant", content: null, audio: { id: "audio_1", data: "AA", transcript: "hi" } })
    ]),
    MultipleChoices: chatCompletion([
      chatChoice({ role: "assistant", content: "a" }, 0),
      chatChoice({ role: "assistant", content: "b" }, 1)
    ]),
    NoAnswer: chatCompletion([]),
    ProviderError: { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }
  },
  streams: {
    MalformedInput: [5],
    InvalidToolArguments: [
      chatChunk([{ index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, ...badCall }] } }]),
      chatChunk([{ index: 0, delta: {}, finish_reason: "tool_calls" }])
    ],
    UnsupportedContent: [
      chatChunk([{ index: 0, delta: { role: "assistant", audio: { id: "audio_1", data: "AA" } } }]),
      chatChunk([{ index: 0, delta: {}, finish_reason: "stop" }])
    ],
    MultipleChoices: [
      chatChunk([{ index: 0, delta: { role: "assistant", content: "a" } }]),
      chatChunk([{ index: 1, delta: { role: "assistant", content: "b" } }]),
      chatChunk([{ index: 0, delta: {}, finish_reason: "stop" }, { index: 1, delta: {}, finish_reason: "stop" }])
    ],
    NoAnswer: [chatChunk([])],
    IncompleteStream: [chatChunk([{ index: 0, delta: { role: "assistant", content: "a" } }])],
    ProviderError: [
      chatChunk([{ index: 0, delta: { role: "assistant", content: "a" } }]),
      { ...chatChunk([]), error: { code: 502, message: "Provider disconnected" } }
    ]
  }
})

const cases: ReadonlyArray<Case> = [
  {
    name: "anthropic",
    format: AnthropicFormat,
    responses: {
      MalformedInput: { content: 5 },
      MisplacedBlock: anthropicMessage([toolResult]),
      UnsupportedContent: anthropicMessage([serverTool])
    },
    streams: {
      MalformedInput: [5],
      MisplacedBlock: anthropicEvents([{ block: toolResult }]),
      UnsupportedContent: anthropicEvents([{ block: serverTool }]),
      InvalidToolArguments: anthropicEvents([{
        block: { type: "tool_use", id: "t", name: "f", input: {} },
        deltas: [{ type: "input_json_delta", partial_json: "{not json" }]
      }]),
      IncompleteStream: anthropicEvents([{ block: { type: "text", text: "" } }], false),
      MultipleChoices: twoMessages,
      NoAnswer: twoMessages
    },
    streamOptions: { NoAnswer: { message: 5 } }
  },
  {
    name: "google",
    format: GoogleFormat,
    responses: {
      MalformedInput: { candidates: 5 },
      MisplacedBlock: geminiResponse([geminiCandidate([{ functionResponse: { name: "f", response: {} } }])]),
      InvalidToolArguments: geminiResponse([geminiCandidate([{ functionCall: { name: "f", args: [1] } }])]),
      UnsupportedContent: geminiResponse([
        geminiCandidate([{ fileData: { fileUri: "gs://x/y.png", mimeType: "image/png" } }])
      ]),
      MultipleChoices: geminiResponse([geminiCandidate([{ text: "a" }], 0), geminiCandidate([{ text: "b" }], 1)]),
      NoAnswer: { candidates: [], promptFeedback: { blockReason: "SAFETY" } }
    },
    streams: {
      MalformedInput: [5],
      MisplacedBlock: [geminiResponse([geminiCandidate([{ functionResponse: { name: "f", response: {} } }])])],
      InvalidToolArguments: [geminiResponse([geminiCandidate([{ functionCall: { name: "f", args: [1] } }])])],
      UnsupportedContent: [
        geminiResponse([geminiCandidate([{ fileData: { fileUri: "gs://x/y.png", mimeType: "image/png" } }])])
      ],
      MultipleChoices: [geminiResponse([geminiCandidate([{ text: "a" }], 0), geminiCandidate([{ text: "b" }], 1)])],
      NoAnswer: [{ candidates: [], promptFeedback: { blockReason: "SAFETY" } }],
      IncompleteStream: []
    }
  },
  chat("openai", OpenAiFormat),
  chat("openrouter", OpenRouterFormat),
  {
    name: "openai-responses",
    format: OpenAiResponsesFormat,
    responses: {
      MalformedInput: { output: 5 },
      InvalidToolArguments: responsesObject([badFunctionCall]),
      UnsupportedContent: responsesObject([webSearch]),
      // a background response retrieved before it finished
      NoAnswer: { ...responsesObject([]), status: "queued" },
      ProviderError: { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }
    },
    streams: {
      MalformedInput: [5],
      InvalidToolArguments: responsesEvents([badFunctionCall]),
      UnsupportedContent: responsesEvents([webSearch]),
      // a final event whose response says it is not finished
      NoAnswer: [
        { type: "response.created", response: { ...responsesObject([]), status: "in_progress" } },
        { type: "response.completed", response: { ...responsesObject([]), status: "in_progress" } }
      ],
      ProviderError: [
        { type: "response.created", response: { ...responsesObject([]), status: "in_progress" } },
        { type: "error", error: { type: "server_error", code: "server_error", message: "The server had an error." } }
      ],
      IncompleteStream: responsesEvents([]).slice(0, 1)
    }
  }
]

// -----------------------------------------------------------------------------
// the tests
// -----------------------------------------------------------------------------

for (const c of cases) {
  describe(`${c.name}: responseErrors and streamErrors`, () => {
    const answers = Corpus.answers(c.name)
    const bodies = answers.filter((a) => a.kind === "response").map((a) => a.body)
    const streams = answers.filter((a) => a.kind === "stream").map((a) => a.events!)

    it("the corpora hold real answers and streams of the format", () => {
      assert.isAbove(bodies.length, 5)
      assert.isAbove(streams.length, 5)
    })

    it("decodeResponse: every tag of responseErrors, from an answer written for it", () => {
      assert.deepStrictEqual(Object.keys(c.responses).sort(), [...c.format.responseErrors].sort())
      for (const [tag, input] of Object.entries(c.responses)) assert.strictEqual(responseTag(c.format, input), tag)
    })

    it("decodeStream: every tag of streamErrors, from events written for it", () => {
      assert.deepStrictEqual(Object.keys(c.streams).sort(), [...c.format.streamErrors].sort())
      for (const [tag, events] of Object.entries(c.streams)) {
        assert.strictEqual(streamTag(c.format, events, c.streamOptions?.[tag]), tag)
      }
    })

    const within = (list: ReadonlyArray<string>, tag: string, what: string) =>
      assert.isTrue(tag === "ok" || list.includes(tag), `${what}: ${tag} is not one of ${list.join(", ")}`)

    it("decodeResponse: only those tags, on hostile values and every real answer", () => {
      for (const input of hostile) within(c.format.responseErrors, responseTag(c.format, input), "hostile")
      for (const [i, body] of bodies.entries()) {
        within(c.format.responseErrors, responseTag(c.format, body), `answer ${i}`)
      }
    })

    it("decodeStream: only those tags, on hostile events and every real stream", () => {
      for (const event of hostile) within(c.format.streamErrors, streamTag(c.format, [event]), "hostile")
      for (const [i, events] of streams.entries()) {
        within(c.format.streamErrors, streamTag(c.format, events), `stream ${i}`)
      }
    })

    it.prop(
      "decodeResponse: only those tags, on real answers and the written ones mutated",
      [FastCheck.nat(), mutation],
      ([i, m]) => {
        const all = [...bodies, ...Object.values(c.responses)]
        within(c.format.responseErrors, responseTag(c.format, mutate(all[i % all.length], m)), "mutated")
      },
      { fastCheck: { numRuns: 300 } }
    )

    it.prop(
      "decodeStream: only those tags, on real streams and the written ones mutated",
      [FastCheck.nat(), streamMutation],
      ([i, m]) => {
        const all = [...streams, ...Object.values(c.streams)]
        within(c.format.streamErrors, streamTag(c.format, mutateStream(all[i % all.length]!, m)), "mutated")
      },
      { fastCheck: { numRuns: 300 } }
    )

    it.prop(
      "decodeResponse and decodeStream: only those tags, on anything",
      [FastCheck.oneof(FastCheck.anything(), FastCheck.jsonValue())],
      ([input]) => {
        within(c.format.responseErrors, responseTag(c.format, input), "anything")
        within(c.format.streamErrors, streamTag(c.format, [input]), "anything")
      },
      { fastCheck: { numRuns: 200 } }
    )
  })
}
