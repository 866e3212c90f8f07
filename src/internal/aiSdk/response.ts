/**
 * AI SDK 6 `generateText` results to a canonical assistant turn, and an environment's tools as AI
 * SDK tools.
 *
 * @internal
 */
import type { LanguageModelUsage, Tool, ToolResultPart } from "ai"
import { jsonSchema } from "ai"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type * as Client from "../../Client.js"
import type * as ClientError from "../../ClientError.js"
import * as ConversionError from "../../ConversionError.js"
import type * as Json from "../../Json.js"
import * as Message from "../../Message.js"
import type * as ModelResponse from "../../ModelResponse.js"
import * as Protocol from "../../Protocol.js"
import * as Bridge from "../bridge.js"
import * as internal from "./messages.js"

const format = "ai-sdk" as const

/** A model's turn: the canonical answer, and the results of the tools `execute` ran. */
export interface ModelTurn extends ModelResponse.ModelResponse {
  readonly toolResults?: Message.UserMessage
}

/** What {@link decodeResponse} reads of a `generateText` result. */
export interface ResultInput {
  readonly response: {
    readonly id?: string | undefined
    readonly modelId?: string | undefined
    readonly messages: ReadonlyArray<unknown>
  }
  readonly finishReason?: string | undefined
  readonly rawFinishReason?: string | undefined
  readonly usage?: Partial<LanguageModelUsage> | undefined
}

export const decodeResponse = (result: ResultInput): Either.Either<ModelTurn, ConversionError.DecodeError> =>
  Either.flatMap(
    internal.decode(result.response.messages, ["response", "messages"]),
    (conversation): Either.Either<ModelTurn, ConversionError.DecodeError> => {
      const [first, second, ...rest] = conversation
      const assistant = first === undefined ? Message.assistant([]) : first
      if (
        assistant.role !== "assistant" || rest.length > 0 || (second !== undefined && second.role !== "user")
      ) {
        return Either.left(
          new ConversionError.MalformedInput({
            format,
            path: ["response", "messages"],
            reason:
              "expected one assistant message, then at most one tool message (one step); for several steps read result.response.messages with decode"
          })
        )
      }
      const usage = result.usage
      const turn: { -readonly [K in keyof ModelTurn]: ModelTurn[K] } = {
        message: assistant,
        stopReason: Bridge.stopReason(result.finishReason),
        usage: usage === undefined ? {} : Bridge.usage({
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          totalTokens: usage.totalTokens,
          reasoningTokens: usage.outputTokenDetails?.reasoningTokens ?? usage.reasoningTokens,
          cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens ?? usage.cachedInputTokens
        })
      }
      const stop = result.rawFinishReason ?? result.finishReason
      if (stop !== undefined) turn.providerStopReason = stop
      if (result.response.id !== undefined) turn.id = result.response.id
      if (result.response.modelId !== undefined) turn.model = result.response.modelId
      if (second !== undefined && second.role === "user") turn.toolResults = second
      return Either.right(turn)
    }
  )

// -----------------------------------------------------------------------------
// tools
// -----------------------------------------------------------------------------

/** The schema a tool without one takes: an object with no properties. */
export const emptySchema: Json.JsonObject = { type: "object", properties: {} }

/** What the model is shown of a tool output: its content blocks. */
export const modelOutput = (output: Protocol.ToolOutput): ToolResultPart["output"] =>
  internal.output(output.blocks, false)

export type SessionTool = Tool<Json.JsonObject, Protocol.ToolOutput>
export type PlainTool = Tool<Json.JsonObject, any>

const repeated = (specs: ReadonlyArray<Protocol.ToolSpec>) => {
  const index = Bridge.repeatedName(specs)
  return index === undefined ? undefined : new ConversionError.MalformedInput({
    format,
    path: [index, "name"],
    reason: `two tools are named ${JSON.stringify(specs[index]!.name)}; a tool set holds tools by name`
  })
}

const inputSchema = (spec: Protocol.ToolSpec) => jsonSchema<Json.JsonObject>(spec.input_schema ?? emptySchema)

export const tools = (
  specs: ReadonlyArray<Protocol.ToolSpec>
): Either.Either<{ [name: string]: PlainTool }, ConversionError.MalformedInput> => {
  const error = repeated(specs)
  if (error !== undefined) return Either.left(error)
  const out: { [name: string]: PlainTool } = {}
  for (const spec of specs) out[spec.name] = { description: spec.description, inputSchema: inputSchema(spec) }
  return Either.right(out)
}

/** Run a session call as a promise that rejects with the tagged error itself. */
export const call = (
  session: Client.Session,
  name: string,
  input: Json.JsonObject,
  signal?: AbortSignal
): Promise<Protocol.ToolOutput> =>
  Effect.runPromiseExit(session.callTool(name, input), signal === undefined ? undefined : { signal }).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    throw Cause.squash(exit.cause)
  })

export const sessionTools = (
  specs: ReadonlyArray<Protocol.ToolSpec>,
  session: Client.Session
): Either.Either<{ [name: string]: SessionTool }, ConversionError.MalformedInput> => {
  const error = repeated(specs)
  if (error !== undefined) return Either.left(error)
  const out: { [name: string]: SessionTool } = {}
  for (const spec of specs) {
    out[spec.name] = {
      description: spec.description,
      inputSchema: inputSchema(spec),
      execute: (input, options) => {
        const object = Bridge.inputObject(input)
        if (object === undefined) {
          return Promise.reject(
            new ConversionError.InvalidToolArguments({
              format,
              path: [],
              messageIndex: 0,
              blockIndex: 0,
              raw: Bridge.show(input),
              reason: `the input of ${JSON.stringify(spec.name)} is not a JSON object`
            })
          )
        }
        return call(session, spec.name, object, options.abortSignal)
      },
      toModelOutput: ({ output }) => modelOutput(output)
    }
  }
  return Either.right(out)
}

export const sessionToolSet = (
  session: Client.Session
): Effect.Effect<{ [name: string]: SessionTool }, ClientError.SessionError | ConversionError.MalformedInput> =>
  Effect.flatMap(session.listTools(), (specs) => sessionTools(specs, session))

/** A tool output a session tool produced, by call. */
export interface ToolOutputOf {
  readonly toolCallId: string
  readonly toolName: string
  readonly output: Protocol.ToolOutput
}

const isToolOutput = Schema.is(Protocol.ToolOutput)

export const toolOutputs = (result: {
  readonly toolResults: ReadonlyArray<
    { readonly toolCallId: string; readonly toolName: string; readonly output: unknown }
  >
}): ReadonlyArray<ToolOutputOf> =>
  result.toolResults.flatMap((r) =>
    isToolOutput(r.output) ? [{ toolCallId: r.toolCallId, toolName: r.toolName, output: r.output }] : []
  )
