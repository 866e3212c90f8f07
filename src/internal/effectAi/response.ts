/**
 * `@effect/ai` 0.37 response parts (`LanguageModel.generateText`'s `content`, or the parts of
 * `streamText`) to a canonical assistant turn.
 *
 * @internal
 */
import type * as Response from "@effect/ai/Response"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Block from "../../Block.js"
import * as ConversionError from "../../ConversionError.js"
import * as Message from "../../Message.js"
import type * as ModelResponse from "../../ModelResponse.js"
import * as Protocol from "../../Protocol.js"
import * as Bridge from "../bridge.js"
import { isPlainObject } from "../plain.js"
import * as internal from "./prompt.js"

const format = "effect-ai" as const

/** A model's turn: the canonical answer, and the results of the tools the toolkit ran. */
export interface ModelTurn extends ModelResponse.ModelResponse {
  readonly toolResults?: Message.UserMessage
}

type Metadata = { [provider: string]: { [key: string]: unknown } }

const mergeMetadata = (into: Metadata, metadata: unknown): void => {
  if (!isPlainObject(metadata)) return
  for (const [provider, entry] of Object.entries(metadata)) {
    if (!isPlainObject(entry)) continue
    into[provider] = { ...into[provider], ...entry }
  }
}

interface Open {
  readonly type: "text" | "reasoning"
  text: string
  readonly metadata: Metadata
  readonly index: number
}

/** The parts of a response, or of `GenerateTextResponse.content`. */
export type Input =
  | ReadonlyArray<Response.AnyPart>
  | { readonly content: ReadonlyArray<Response.AnyPart> }

/** Decode response parts: the assistant turn, the tool results, the finish and metadata parts. */
export const decode = (input: Input): Either.Either<ModelTurn, ConversionError.DecodeError> => {
  const parts = partsOf(input)
  const blocks: Array<Message.AssistantBlock> = []
  const results: Array<Block.ToolResultBlock> = []
  const open = new Map<string, Open>()
  let finish: Response.FinishPart | undefined
  let id: string | undefined
  let model: string | undefined
  const unsupported = (j: number, contentType: string, reason: string) =>
    Either.left(
      new ConversionError.UnsupportedContent({ format, path: [j], messageIndex: 0, blockIndex: j, contentType, reason })
    )
  const assistant = (part: Parameters<typeof internal.decodeAssistantPart>[0], j: number) => {
    const block = internal.decodeAssistantPart(part, [j], 0, j)
    if (Either.isRight(block)) blocks.push(block.right)
    return block
  }
  for (let j = 0; j < parts.length; j++) {
    const part = parts[j]!
    switch (part.type) {
      case "text":
      case "reasoning": {
        const decoded = assistant({ type: part.type, text: part.text, options: part.metadata } as never, j)
        if (Either.isLeft(decoded)) return Either.left(decoded.left)
        break
      }
      case "text-start":
      case "reasoning-start": {
        const metadata: Metadata = {}
        mergeMetadata(metadata, part.metadata)
        open.set(`${part.type}:${part.id}`, {
          type: part.type === "text-start" ? "text" : "reasoning",
          text: "",
          metadata,
          index: j
        })
        break
      }
      case "text-delta":
      case "reasoning-delta": {
        const entry = open.get(`${part.type === "text-delta" ? "text-start" : "reasoning-start"}:${part.id}`)
        if (entry === undefined) return unsupported(j, part.type, "a delta without its start part")
        entry.text += part.delta
        mergeMetadata(entry.metadata, part.metadata)
        break
      }
      case "text-end":
      case "reasoning-end": {
        const key = `${part.type === "text-end" ? "text-start" : "reasoning-start"}:${part.id}`
        const entry = open.get(key)
        if (entry === undefined) return unsupported(j, part.type, "an end without its start part")
        open.delete(key)
        mergeMetadata(entry.metadata, part.metadata)
        const decoded = assistant({ type: entry.type, text: entry.text, options: entry.metadata } as never, entry.index)
        if (Either.isLeft(decoded)) return Either.left(decoded.left)
        break
      }
      case "tool-params-start":
      case "tool-params-delta":
      case "tool-params-end":
        // the streamed arguments of a call; the `tool-call` part that follows carries them whole
        break
      case "tool-call": {
        const decoded = assistant({
          type: "tool-call",
          id: part.id,
          name: part.name,
          params: part.params,
          providerExecuted: part.providerExecuted,
          options: part.metadata
        } as never, j)
        if (Either.isLeft(decoded)) return Either.left(decoded.left)
        break
      }
      case "tool-result": {
        if (part.providerExecuted) {
          return unsupported(
            j,
            "provider-executed tool result",
            "canonical conversations hold only the calls the harness runs"
          )
        }
        const content = internal.contentOf(part.encodedResult, [j, "encodedResult"], 0, j)
        if (Either.isLeft(content)) return Either.left(content.left)
        results.push(Block.toolResult(part.id, content.right, { isError: part.isFailure }))
        break
      }
      case "file": {
        const image = internal.imageOf(part, null, [j], 0, j)
        if (Either.isLeft(image)) return Either.left(image.left)
        blocks.push(image.right)
        break
      }
      case "source":
        return unsupported(j, `source ${part.sourceType}`, "canonical content has no citations")
      case "error":
        return unsupported(j, "error", `the stream reported an error: ${Bridge.show(part.error)}`)
      case "response-metadata":
        id = Option.getOrUndefined(part.id) ?? id
        model = Option.getOrUndefined(part.modelId) ?? model
        break
      case "finish":
        finish = part
        break
    }
  }
  const [first] = open.values()
  if (first !== undefined) return unsupported(first.index, `${first.type}-start`, "a streamed part that never ended")
  const turn: { -readonly [K in keyof ModelTurn]: ModelTurn[K] } = {
    message: Message.assistant(blocks),
    stopReason: Bridge.stopReason(finish?.reason),
    usage: finish === undefined ? {} : Bridge.usage(finish.usage)
  }
  if (finish !== undefined) turn.providerStopReason = finish.reason
  if (id !== undefined) turn.id = id
  if (model !== undefined) turn.model = model
  if (results.length > 0) turn.toolResults = Message.user(results)
  return Either.right(turn)
}

/** A tool output a session toolkit produced, by call. */
export interface ToolOutputOf {
  readonly id: string
  readonly name: string
  readonly isFailure: boolean
  readonly output: Protocol.ToolOutput
}

const isToolOutput = Schema.is(Protocol.ToolOutput)

const partsOf = (input: Input): ReadonlyArray<Response.AnyPart> =>
  Array.isArray(input) ? input : (input as { readonly content: ReadonlyArray<Response.AnyPart> }).content

/** The tool outputs of a response whose tool calls a session toolkit ran, in call order. */
export const toolOutputs = (input: Input): ReadonlyArray<ToolOutputOf> =>
  partsOf(input).flatMap((part) =>
    part.type === "tool-result" && isToolOutput(part.result)
      ? [{ id: part.id, name: part.name, isFailure: part.isFailure, output: part.result }]
      : []
  )
