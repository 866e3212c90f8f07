/**
 * Provider-hosted content in every recorded answer and stored transcript of the shared corpora
 * (`../shared/corpora/`, read in place, never copied into the repository): Anthropic's server
 * tools, MCP, compaction, ...; the Responses API's hosted tool items; Gemini's code execution and
 * server-side tool parts.
 *
 * Which content is hosted is read from the recording itself, independently of the decoders. For
 * each answer that holds some:
 * - without `providerContent` the answer is an `UnsupportedContent` error naming a hosted item and
 *   the option that keeps it;
 * - with `providerContent: "keep"` it decodes, one provider block per hosted item in order, and the
 *   turn encoded for its own provider writes every hosted item back byte for byte (compared as the
 *   JSON text of the recording's item: every key, in its order). For a stream, the hosted items are
 *   the finished items of the stream (Responses: `response.output_item.done` or the final output).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import {
  AnthropicFormat,
  type Block,
  type ConversionError,
  Format as FormatModule,
  GoogleFormat,
  Message,
  type ModelResponse,
  OpenAiResponsesFormat
} from "../../src/index.js"
import * as Corpus from "../utils/corpus.js"

type Record = { readonly [key: string]: unknown }
const isRecord = (u: unknown): u is Record => typeof u === "object" && u !== null && !Array.isArray(u)
const text = (u: unknown): string => JSON.stringify(u)

type Format = "anthropic" | "openai-responses" | "google"

// -----------------------------------------------------------------------------
// what is hosted, read from the recording
// -----------------------------------------------------------------------------

const responsesOwn = new Set(["message", "reasoning", "function_call", "function_call_output"])
const anthropicOwn = new Set(["text", "thinking", "redacted_thinking", "tool_use", "tool_result", "image"])
const googleHosted: ReadonlyArray<readonly [snake: string, camel: string]> = [
  ["executable_code", "executableCode"],
  ["code_execution_result", "codeExecutionResult"],
  ["tool_call", "toolCall"],
  ["tool_response", "toolResponse"],
  ["file_data", "fileData"]
]

/** The kind a hosted item is kept under, or `undefined` for content with a canonical form. */
const hostedKind = (format: Format, item: unknown): string | undefined => {
  if (!isRecord(item)) return undefined
  switch (format) {
    case "openai-responses":
      return typeof item["type"] === "string" && !responsesOwn.has(item["type"]) ? item["type"] : undefined
    case "anthropic":
      // a tool_use its code has already run is hosted too; the decoder decides which (its caller)
      return typeof item["type"] === "string" && !anthropicOwn.has(item["type"]) ? item["type"] : undefined
    case "google": {
      const found = googleHosted.find(([snake, camel]) => item[snake] != null || item[camel] != null)
      return found?.[1]
    }
  }
}

/** The names an error may give a hosted item: Gemini's errors name the field's snake_case spelling. */
const errorNames = (format: Format, kind: string): ReadonlyArray<string> =>
  format === "google" ? googleHosted.filter(([, camel]) => camel === kind).flatMap(([s, c]) => [s, c]) : [kind]

/** The items of a whole answer, as the provider sent them. */
const itemsOfResponse = (format: Format, body: unknown): ReadonlyArray<unknown> => {
  if (!isRecord(body)) return []
  switch (format) {
    case "openai-responses":
      return Array.isArray(body["output"]) ? body["output"] : []
    case "anthropic":
      return Array.isArray(body["content"]) ? body["content"] : []
    case "google": {
      const [candidate] = Array.isArray(body["candidates"]) ? body["candidates"] : []
      const content = isRecord(candidate) ? candidate["content"] : undefined
      return isRecord(content) && Array.isArray(content["parts"]) ? content["parts"] : []
    }
  }
}

/**
 * The hosted items of a stream, whole where the stream sends them whole: Responses' finished
 * items (the final output, else each `output_item.done`), the blocks Anthropic starts
 * (`content_block_start`; a server tool's input is streamed after it, so only the kind is
 * compared), Gemini's parts (each hosted part comes whole in one chunk).
 */
const itemsOfStream = (format: Format, events: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
  const records = events.filter(isRecord)
  switch (format) {
    case "openai-responses": {
      const final = records.find((e) => e["type"] === "response.completed" || e["type"] === "response.incomplete")
      const output = isRecord(final?.["response"]) ? final["response"]["output"] : undefined
      if (Array.isArray(output) && output.length > 0) return output
      return records.filter((e) => e["type"] === "response.output_item.done")
        .sort((a, b) => (a["output_index"] as number) - (b["output_index"] as number))
        .map((e) => e["item"])
    }
    case "anthropic":
      return records.filter((e) => e["type"] === "content_block_start").map((e) => e["content_block"])
    case "google":
      return records.flatMap((e) => itemsOfResponse("google", e))
  }
}

// -----------------------------------------------------------------------------
// decoding and encoding, per format
// -----------------------------------------------------------------------------

type Decoded = Either.Either<ModelResponse.ModelResponse, ConversionError.ResponseError | ConversionError.DecodeError>

const decodeAnswer = (
  answer: Corpus.Answer,
  options: { readonly providerContent?: "keep"; readonly message?: number }
): Effect.Effect<Decoded> => {
  const events = Stream.fromIterable(answer.events ?? [])
  switch (answer.format) {
    case "openai-responses":
      return answer.kind === "response"
        ? Effect.succeed(OpenAiResponsesFormat.decodeResponse(answer.body, options))
        : Effect.either(
          OpenAiResponsesFormat.decodeStream(
            Stream.fromIterable(responsesOf(answer.events ?? [])[options.message ?? 0] ?? []),
            options
          )
        )
    case "anthropic":
      return answer.kind === "response"
        ? Effect.succeed(AnthropicFormat.decodeResponse(answer.body, options))
        : Effect.either(AnthropicFormat.decodeStream(events, options))
    case "google":
      return answer.kind === "response"
        ? Effect.succeed(GoogleFormat.decodeResponse(answer.body, options))
        : Effect.either(GoogleFormat.decodeStream(events, options))
    default:
      return Effect.die(`no hosted content is read for ${answer.format}`)
  }
}

/** The turn encoded for its own provider after a user turn: its items as the wire holds them. */
const encodeTurn = (format: Format, message: Message.AssistantMessage): ReadonlyArray<unknown> => {
  const conversation = [Message.user("Go on."), message]
  switch (format) {
    case "openai-responses":
      // the user message is the first item; a turn's items follow
      return Either.getOrThrow(OpenAiResponsesFormat.encode(conversation)).slice(1)
    case "anthropic": {
      const [, turn] = Either.getOrThrow(AnthropicFormat.encode(conversation)).messages
      return typeof turn!.content === "string" ? [] : turn!.content
    }
    case "google": {
      const [, turn] = Either.getOrThrow(GoogleFormat.encode(conversation, { reasoning: "thought" })).contents
      return turn!.parts
    }
  }
}

const providerBlocks = (message: Message.Message): ReadonlyArray<Block.ProviderBlock> =>
  message.blocks.filter((b): b is Block.ProviderBlock => b.type === "provider")

/**
 * A Responses stream file's responses: the AI SDK's multi-step fixtures hold the stream of each
 * step back to back (one response per `response.created`), and a stream holds one response.
 */
const responsesOf = (events: ReadonlyArray<unknown>): ReadonlyArray<ReadonlyArray<unknown>> => {
  const out: Array<Array<unknown>> = []
  for (const event of events) {
    if (out.length === 0 || isRecord(event) && event["type"] === "response.created") out.push([])
    out[out.length - 1]!.push(event)
  }
  return out
}

/** The messages a stream holds one after another (Anthropic's deferred tool loading, ...). */
const messageCount = (answer: Corpus.Answer): number =>
  answer.format === "openai-responses" && answer.kind === "stream"
    ? responsesOf(answer.events ?? []).length
    : answer.format === "anthropic" && answer.kind === "stream"
    ? new Set(
      (answer.events ?? []).filter(isRecord).filter((e) => e["type"] === "message_start").map((e) =>
        isRecord(e["message"]) ? e["message"]["id"] : undefined
      )
    ).size
    : 1

// -----------------------------------------------------------------------------
// the checks
// -----------------------------------------------------------------------------

const formats: ReadonlyArray<Format> = ["anthropic", "openai-responses", "google"]

/** What every hosted answer of a format showed, for the coverage checks at the end. */
const seen = new Map<Format, Set<string>>()

const checkAnswer = (answer: Corpus.Answer, format: Format) =>
  Effect.gen(function*() {
    const at = answer.file
    const recorded = answer.kind === "response"
      ? itemsOfResponse(format, answer.body)
      : itemsOfStream(format, answer.events ?? [])
    const hosted = recorded.filter((item) => hostedKind(format, item) !== undefined)
    if (hosted.length === 0) return false
    const kinds = hosted.map((item) => hostedKind(format, item)!)
    for (const kind of kinds) (seen.get(format) ?? seen.set(format, new Set()).get(format)!).add(kind)

    const count = messageCount(answer)
    // without the option: a typed error naming a hosted item and the option that keeps it
    if (count === 1) {
      const refused = yield* decodeAnswer(answer, {})
      assert.isTrue(Either.isLeft(refused), `${at}: refused without providerContent`)
      if (Either.isLeft(refused)) {
        const error = refused.left
        assert.strictEqual(error._tag, "UnsupportedContent", `${at}: ${error.message}`)
        if (error._tag === "UnsupportedContent") {
          const names = [...kinds.flatMap((k) => errorNames(format, k)), "tool_use"]
          assert.include(names, error.contentType, `${at}: the error names a hosted item`)
          assert.include(error.message, "providerContent: \"keep\"", `${at}: the error names the option`)
        }
      }
    }

    // with it: every hosted item kept, in order, and written back byte for byte
    const kept: Array<Block.ProviderBlock> = []
    for (let m = 0; m < count; m++) {
      const decoded = yield* decodeAnswer(
        answer,
        count === 1 ? { providerContent: "keep" } : {
          providerContent: "keep",
          message: m
        }
      )
      if (Either.isLeft(decoded)) {
        assert.fail(`${at}${count === 1 ? "" : ` message ${m}`}: ${decoded.left._tag}: ${decoded.left.message}`)
        return true
      }
      const blocks = providerBlocks(decoded.right.message)
      kept.push(...blocks)
      for (const block of blocks) assert.strictEqual(block.provider, format, `${at}: the block's provider`)
      // encoded items are the kept ones, in order
      const encoded = encodeTurn(format, decoded.right.message)
      const keptItems = blocks.map((b) => text(b.item))
      assert.deepStrictEqual(
        encoded.map(text).filter((t) => keptItems.includes(t)),
        keptItems,
        `${at}: every provider block is written back in its place`
      )
    }
    // an Anthropic tool_use that already ran (programmatic tool calling) is kept as well
    const keptKinds = kept.map((b) => b.kind).filter((k) => !(format === "anthropic" && k === "tool_use"))
    assert.deepStrictEqual(keptKinds, kinds, `${at}: one provider block per hosted item, in order`)
    const whole = format !== "anthropic" || answer.kind === "response"
    if (whole) {
      // the recording's own items, byte for byte (as JSON text: every key, in its order)
      const keptHosted = kept.filter((b) => !(format === "anthropic" && b.kind === "tool_use"))
      assert.deepStrictEqual(keptHosted.map((b) => text(b.item)), hosted.map(text), `${at}: the items as sent`)
    }
    return true
  })

describe("provider-hosted content in the recorded answers", () => {
  for (const format of formats) {
    it.effect(`${format}: refused by default, kept and written back byte for byte with providerContent keep`, () =>
      Effect.gen(function*() {
        let hostedAnswers = 0
        for (const answer of Corpus.answers(format)) {
          if (yield* checkAnswer(answer, format)) hostedAnswers++
        }
        assert.isAbove(hostedAnswers, 0, `the corpora hold hosted ${format} answers`)
      }))
  }

  it("covers every kind of hosted content the issue lists that the recordings hold", () => {
    const expected: { readonly [F in Format]: ReadonlyArray<string> } = {
      anthropic: [
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "advisor_tool_result",
        "fallback",
        "compaction"
      ],
      "openai-responses": [
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "local_shell_call",
        "shell_call",
        "apply_patch_call",
        "mcp_list_tools",
        "mcp_call",
        "mcp_approval_request",
        "custom_tool_call",
        "tool_search_call",
        "compaction"
      ],
      google: ["executableCode", "codeExecutionResult", "toolCall", "toolResponse"]
    }
    for (const format of formats) {
      const found = seen.get(format) ?? new Set()
      for (const kind of expected[format]) assert.isTrue(found.has(kind), `${format}: a recorded ${kind}`)
    }
  })
})

describe("provider-hosted content in the stored transcripts", () => {
  const wireItems = (format: Format, wire: unknown): ReadonlyArray<unknown> => {
    if (!isRecord(wire) && !Array.isArray(wire)) return []
    switch (format) {
      case "openai-responses":
        return Array.isArray(wire) ? wire : Array.isArray(wire["input"]) ? wire["input"] : []
      case "anthropic": {
        const messages = Array.isArray(wire) ? wire : wire["messages"]
        return Array.isArray(messages)
          ? messages.flatMap((m) => isRecord(m) && Array.isArray(m["content"]) ? m["content"] : [])
          : []
      }
      case "google": {
        const contents = Array.isArray(wire) ? wire : wire["contents"]
        return Array.isArray(contents)
          ? contents.flatMap((c) => isRecord(c) && Array.isArray(c["parts"]) ? c["parts"] : [])
          : []
      }
    }
  }
  for (const format of formats) {
    it(`${format}: a transcript with hosted items reads with providerContent keep and encodes back byte for byte`, () => {
      for (const { body, file } of Corpus.transcripts(format)) {
        const hosted = wireItems(format, body).filter((item) => hostedKind(format, item) !== undefined)
        if (hosted.length === 0) continue
        const refused = FormatModule.decode(format, body)
        assert.isTrue(Either.isLeft(refused), `${file}: refused without the option`)
        const decoded = FormatModule.decode(format, body, { providerContent: "keep" })
        if (Either.isLeft(decoded) && decoded.left._tag === "MisplacedBlock" && decoded.left.role === "system") {
          // Anthropic's system-role turns in `messages` (a `tool_addition`): a canonical system turn
          // holds text and images only, so the hosted block there is a typed error naming the turn
          assert.strictEqual(decoded.left.blockType, "provider", file)
          continue
        }
        if (Either.isLeft(decoded)) {
          assert.fail(`${file}: ${decoded.left._tag}: ${decoded.left.message}`)
          continue
        }
        const encoded: Either.Either<unknown, ConversionError.EncodeError> = format === "google"
          ? GoogleFormat.encode(decoded.right, { reasoning: "thought" })
          : FormatModule.encode(format, decoded.right)
        if (Either.isLeft(encoded)) {
          assert.fail(`${file}: encode: ${encoded.left._tag}: ${encoded.left.message}`)
          continue
        }
        const back = wireItems(format, encoded.right).filter((item) => hostedKind(format, item) !== undefined)
        assert.deepStrictEqual(back.map(text), hosted.map(text), `${file}: the hosted items as they came`)
      }
    })
  }
})
