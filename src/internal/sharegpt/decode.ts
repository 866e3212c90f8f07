/**
 * A ShareGPT record (or a bare list of turns) to a canonical conversation (docs/formats/sharegpt.md),
 * read by the one decode sequence (internal/decoder.ts): the guard compiled from
 * `ShareGptFormat.Input`'s shapes, then one plain pass over the turns.
 *
 * - `system` turns and the record's `system` are system messages (the record's first);
 * - `human` turns are user messages; `observation` turns are tool results, which, with the `human`
 *   turn right after them, make one user message (results first), as Chat Completions' tool messages do;
 * - `gpt` turns are assistant messages; a `function_call` turn is one or more tool calls (its value a
 *   JSON object `{name, arguments}` or a list of them), added to the assistant turn right before it
 *   (a `gpt` or `function_call` turn), else an assistant message of its own.
 *
 * ShareGPT has no tool-call ids: observations answer the calls still unanswered in the order they
 * were made, and a call made at turn `t`, `k`-th in its turn, gets the id `call_<t>_<k>`.
 *
 * @internal
 */
import * as Either from "effect/Either"
import { absurd } from "effect/Function"
import * as Schema from "effect/Schema"
import * as Block from "../../Block.js"
import type * as Conversation from "../../Conversation.js"
import * as ConversionError from "../../ConversionError.js"
import * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import type * as ShareGpt from "../../ShareGptFormat.js"
import * as Decoder from "../decoder.js"
import * as Guard from "../guard.js"
import { isRecord, maxDepth, tooDeep } from "../plain.js"
import { decodeLoss } from "../report.js"
import * as Input from "../wireInput.js"
import * as Wire from "./schema.js"

type DecodeOptions = ShareGpt.DecodeOptions

type DecodeError = ShareGpt.DecodeError

type Path = ConversionError.Path

const format = Wire.name

const isJsonObject = Schema.is(Json.JsonObject)

/** Where a turn is: its path in the input and its index in the list of turns. */
interface At {
  readonly prefix: Path
  readonly index: number
}

const pathOf = (at: At, ...keys: ReadonlyArray<string | number>): Path => [...at.prefix, at.index, ...keys]

const malformed = (at: At, reason: string, ...keys: ReadonlyArray<string | number>) =>
  Either.left(new ConversionError.MalformedInput({ format, path: pathOf(at, ...keys), messageIndex: at.index, reason }))

/** What a function call's JSON reads as: the name, and the arguments (an object, or text). */
interface Call {
  readonly name: string
  readonly arguments: unknown
  /** The keys of the call object other than `name` and `arguments`. */
  readonly others: ReadonlyArray<string>
}

const readCall = (value: unknown): Call | string => {
  if (!isRecord(value)) return `expected a function call object {name, arguments}, actual ${Input.describe(value)}`
  const name = value["name"]
  if (typeof name !== "string") return `expected a function call with a string name, actual ${Input.describe(name)}`
  return {
    name,
    arguments: value["arguments"],
    others: Object.keys(value).filter((key) => key !== "name" && key !== "arguments")
  }
}

/** The tool calls of a `function_call` turn (ids `call_<t>_<k>`). */
const decodeCalls = (
  turn: ShareGpt.InputTurn,
  at: At,
  options: DecodeOptions
): Either.Either<Array<Block.ToolCallBlock>, ConversionError.MalformedInput | ConversionError.InvalidToolArguments> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(turn.value)
  } catch {
    return malformed(at, "a function_call value must be JSON text of {name, arguments} or a list of them", "value")
  }
  const list = Array.isArray(parsed) ? parsed : [parsed]
  const calls: Array<Block.ToolCallBlock> = []
  for (let k = 0; k < list.length; k++) {
    const call = readCall(list[k])
    if (typeof call === "string") return malformed(at, `in the function_call value: ${call}`, "value")
    for (const key of call.others) {
      options.onLoss?.(
        decodeLoss(
          format,
          pathOf(at, "value"),
          key,
          "a function call's key other than name and arguments has no place in a canonical tool call",
          { messageIndex: at.index }
        )
      )
    }
    const id = `call_${at.index}_${k}`
    const args = call.arguments
    if (args === undefined || args === null) {
      calls.push(Block.toolCall(id, call.name, {}))
    } else if (typeof args === "string") {
      const block = Input.toolCallOfArguments(
        () => ({ format, path: pathOf(at, "value"), messageIndex: at.index, blockIndex: k }),
        { id, name: call.name, raw: args },
        options.invalidToolArguments
      )
      if (Either.isLeft(block)) return Either.left(block.left)
      calls.push(block.right)
    } else if (isJsonObject(args)) {
      calls.push(Block.toolCall(id, call.name, Guard.copyJsonObject(args)))
    } else {
      // the call's own text is the raw arguments' place in the input
      const raw = turn.value
      const reason = !isRecord(args)
        ? `expected a JSON object, actual ${Input.describe(args)}`
        : tooDeep(args) !== undefined
        ? `nested more than ${maxDepth} levels deep`
        : "a number is too large to represent"
      if (options.invalidToolArguments === "keep") {
        calls.push(Block.toolCallWithInvalidArguments(id, call.name, { raw, reason }))
      } else {
        return Input.invalidToolArguments(
          { format, path: pathOf(at, "value"), messageIndex: at.index, blockIndex: k },
          raw,
          reason
        )
      }
    }
  }
  return Either.right(calls)
}

/** Canonical messages from the turns (and the record's `system`). */
const toConversation = (
  system: string | null | undefined,
  turns: ReadonlyArray<ShareGpt.InputTurn>,
  prefix: Path,
  options: DecodeOptions
): Either.Either<Conversation.Conversation, DecodeError> => {
  const out: Array<Message.Message> = []
  if (typeof system === "string") out.push(Message.system(system))
  let results: Array<Block.ToolResultBlock> = []
  let assistant: Array<Message.AssistantBlock> | undefined
  // the ids of the calls not answered yet, in the order they were made
  const pending: Array<string> = []
  let next = 0
  const flush = () => {
    if (results.length > 0) out.push(Message.user(results))
    results = []
  }
  const close = () => {
    if (assistant !== undefined) out.push(Message.assistant(assistant))
    assistant = undefined
  }
  for (let i = 0; i < turns.length; i++) {
    const turn = turns[i]!
    const at: At = { prefix, index: i }
    const kind = Wire.kindOf[turn.from]!
    switch (kind) {
      case "system":
        close()
        flush()
        out.push(Message.system(turn.value))
        break
      case "user":
        close()
        out.push(Message.user([...results, Block.text(turn.value)]))
        results = []
        break
      case "observation": {
        close()
        const id = pending[next]
        if (id === undefined) {
          return Either.left(
            new ConversionError.UnmatchedToolResult({
              format,
              path: pathOf(at),
              messageIndex: i,
              blockIndex: 0,
              toolCallId: "",
              reason: "ShareGPT pairs an observation with the earliest function call not answered yet, and every " +
                "function call before this turn is answered"
            })
          )
        }
        next++
        results.push(Block.toolResult(id, turn.value))
        break
      }
      case "assistant":
        close()
        flush()
        assistant = [Block.text(turn.value)]
        break
      case "functionCall": {
        flush()
        const calls = decodeCalls(turn, at, options)
        if (Either.isLeft(calls)) return Either.left(calls.left)
        assistant ??= []
        for (const call of calls.right) {
          assistant.push(call)
          pending.push(call.id)
        }
        break
      }
      default:
        return absurd(kind)
    }
  }
  close()
  flush()
  return Either.right(out)
}

/** A ShareGPT record with media, or a preference record: the error, or `undefined`. */
const refused = (record: { readonly [key: string]: unknown }): DecodeError | undefined => {
  for (const key of Wire.preferenceKeys) {
    if (Object.hasOwn(record, key)) {
      return new ConversionError.MalformedInput({
        format,
        path: [key],
        reason: "a ShareGPT preference record (chosen, rejected) holds more than one conversation; decode " +
          "conversations and each answer on its own"
      })
    }
  }
  for (const key of Wire.mediaKeys) {
    const media = record[key]
    if (media === undefined || media === null || (Array.isArray(media) && media.length === 0)) continue
    const turns = Array.isArray(record["conversations"]) ? record["conversations"] as ReadonlyArray<unknown> : []
    const tag = `<${key.slice(0, -1)}>`
    const index = turns.findIndex((turn) =>
      isRecord(turn) && typeof turn["value"] === "string" && turn["value"].includes(tag)
    )
    return new ConversionError.UnsupportedContent({
      format,
      path: [key],
      messageIndex: Math.max(index, 0),
      contentType: key,
      reason: `the record's ${key} are files the turns refer to (${tag}); a canonical message holds text and ` +
        "inline base64 images only: inline the media and decode with another format"
    })
  }
  return undefined
}

const record = Decoder.shape(Wire.Record, { onExcessProperty: "ignore" })
const turnList = Decoder.shape(Schema.Array(Wire.InputTurn), { onExcessProperty: "ignore" })
const atRecord = { messages: ["conversations"], blocks: [] }
const atList = { messages: [], blocks: [] }

// only what is read is held to the depth limit: a record's `tools` and other keys are ignored
const readOfRecord = (body: unknown) => {
  const { conversations, system } = body as { readonly system?: unknown; readonly conversations?: unknown }
  return { system, conversations }
}

/** `ShareGptFormat.decode`: a record `{conversations, system?, tools?}` or a bare list of turns. */
export const decode: Decoder.Decode<DecodeOptions, DecodeError> = Decoder.make({
  format,
  requestKeys: Wire.requestKeys,
  api: "ShareGPT record",
  issue: "deepest",
  depthLimit: true,
  target: (
    input
  ): Decoder.Target<ShareGpt.InputRecord | ReadonlyArray<ShareGpt.InputTurn>> | Decoder.Result<never, DecodeError> => {
    if (Array.isArray(input)) return { shape: turnList, value: input, path: [], locator: atList }
    if (!isRecord(input) || !Object.hasOwn(input, "conversations")) {
      return Either.left(
        new ConversionError.MalformedInput({
          format,
          path: [],
          reason: `expected a ShareGPT record {conversations: [{from, value}, ...]} or an array of turns, actual ${
            isRecord(input) ? "an object without conversations" : Input.describe(input)
          }`
        })
      )
    }
    const error = refused(input)
    if (error !== undefined) return Either.left(error)
    return { shape: record, value: input, path: [], locator: atRecord, read: readOfRecord }
  },
  convert: (value, _target, options): Either.Either<Conversation.Conversation, DecodeError> =>
    Array.isArray(value)
      ? toConversation(undefined, value as ReadonlyArray<ShareGpt.InputTurn>, [], options ?? {})
      : toConversation(
        (value as ShareGpt.InputRecord).system,
        (value as ShareGpt.InputRecord).conversations,
        ["conversations"],
        options ?? {}
      )
})
