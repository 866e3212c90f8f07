/**
 * The bridge to the Vercel AI SDK 6 (`ai` 6.x, which runs on Node 20), an optional peer
 * dependency: import this module only where `ai` is installed; the rest of the library does not
 * load it.
 *
 * - {@link encode} / {@link decode}: canonical conversations to and from `ModelMessage[]`.
 * - {@link decodeResponse}: a `generateText` result (its `response.messages`, finish reason, usage)
 *   as a canonical assistant turn, plus the results of the tools that `execute` ran.
 * - {@link tools} / {@link sessionTools}: an environment's tools as AI SDK `tool()`s whose input
 *   schema is the server's JSON Schema (`jsonSchema(...)`), without `execute` (the calls come back
 *   in `result.toolCalls` for the harness to run) or with an `execute` that calls the session.
 * - {@link step}: a `LanguageModel` (any `@ai-sdk/*` provider) as an episode step for
 *   `openreward-effect/Episode`.
 *
 * | canonical      | `ModelMessage`                                                                   |
 * | -------------- | -------------------------------------------------------------------------------- |
 * | system turn    | one `system` message per text block (the content is one string)                 |
 * | user turn      | `user` messages (text, image) and `tool` messages (tool results), in order       |
 * | assistant turn | one `assistant` message                                                           |
 * | `image`        | `image` part (user) or `file` part (assistant), base64 data and `mediaType`      |
 * | `reasoning`    | `reasoning` part, the signature under `providerOptions.anthropic` (or `google`) |
 * | `tool_call`    | `tool-call` part                                                                  |
 * | `tool_result`  | `tool-result` part named after its call; output `text` / `error-text` for one plain text block, else `content` (text, `image-data`), or `error-json` (the canonical blocks) for an error |
 *
 * What the messages have no field for (`detail`, a message split in several, an empty system turn,
 * the signature) rides under `providerOptions.openreward`, which providers ignore.
 *
 * Laws (property-tested in test/AiSdk.test.ts):
 * 1. `encode(c)` succeeds, or fails with an `EncodeError` that points at an existing message and
 *    block of `c`: an image in a system turn, an image whose type is not `image/*` or whose data
 *    is not canonical base64, a tool result with no tool call before it.
 * 2. When `encode(c)` succeeds, `decode(encode(c))` equals `c`, exactly, also after a JSON round
 *    trip of the messages (they are plain JSON).
 * 3. `decode` never throws; messages not written by this library decode message by message (a
 *    `tool` message is a user turn of tool results), and what canonical content cannot hold is an
 *    error: image URLs, files other than images, images without a media type,
 *    provider-executed tools, tool approvals, denied executions, tool input that is not a JSON
 *    object. A `json` / `error-json` output that is not canonical blocks becomes one text block of
 *    its JSON text; a tool result's `toolName` and provider options other than the reasoning
 *    signature are not kept. Anthropic's redacted thinking (`providerOptions.anthropic.redactedData`)
 *    reads as the library's canonical form of it and is written back as `redactedData`.
 *
 * @since 0.2.0
 */
import type { LanguageModel, ModelMessage, ToolResultPart } from "ai"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import type * as Block from "./Block.js"
import type * as Client from "./Client.js"
import type * as ClientError from "./ClientError.js"
import type * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import type * as Episode from "./Episode.js"
import * as internalMessages from "./internal/aiSdk/messages.js"
import * as internalResponse from "./internal/aiSdk/response.js"
import * as internalStep from "./internal/aiSdk/step.js"
import type * as Message from "./Message.js"
import type * as ModelResponse from "./ModelResponse.js"
import type * as Protocol from "./Protocol.js"

// -----------------------------------------------------------------------------
// messages
// -----------------------------------------------------------------------------

/**
 * Where {@link encode} writes a reasoning block's signature for the provider, besides
 * `providerOptions.openreward`: `anthropic` (`{signature}`, what `@ai-sdk/anthropic` replays; the
 * default), `google` (`{thoughtSignature}`, what `@ai-sdk/google` replays), or `none`.
 *
 * @category models
 * @since 0.2.0
 */
export type SignatureTarget = internalMessages.SignatureTarget

/**
 * @category models
 * @since 0.2.0
 */
export interface EncodeOptions {
  readonly signatures?: SignatureTarget | undefined
  /**
   * A provider block (`Block.ProviderBlock`: content a provider's API hosts), which the toolkit has
   * no part for: `"error"` (default): an `UnsupportedBlock` error; `"omit"`: left out; `"text"`: a
   * text part of what `Prompt.flatten` renders for it.
   */
  readonly providerContent?: "error" | "omit" | "text" | undefined
}

/**
 * A canonical conversation as AI SDK `ModelMessage[]`.
 *
 * @category encoding
 * @since 0.2.0
 */
export const encode: (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
) => Either.Either<Array<ModelMessage>, ConversionError.EncodeError> = internalMessages.encode

/**
 * `ModelMessage[]` (untrusted: stored JSON will do) as a canonical conversation. Never throws.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decode = (
  messages: unknown
): Either.Either<Conversation.Conversation, ConversionError.DecodeError> => internalMessages.decode(messages)

/**
 * A tool result's content as an AI SDK tool output, by the convention in the table above.
 *
 * @category encoding
 * @since 0.2.0
 */
export const toolOutput: (
  blocks: ReadonlyArray<Block.ContentBlock>,
  isError: boolean
) => ToolResultPart["output"] = internalMessages.output

// -----------------------------------------------------------------------------
// responses
// -----------------------------------------------------------------------------

/**
 * A model's answer: the canonical {@link ModelResponse.ModelResponse} and, when tools with
 * `execute` ran, their results as one user turn to append after it.
 *
 * @category models
 * @since 0.2.0
 */
export interface ModelTurn extends ModelResponse.ModelResponse {
  readonly toolResults?: Message.UserMessage
}

/**
 * What {@link decodeResponse} reads of a `generateText` result (a `GenerateTextResult` is one).
 *
 * @category models
 * @since 0.2.0
 */
export interface ResultInput extends internalResponse.ResultInput {}

/**
 * Read one step of `generateText`: `response.messages` must be one assistant message, then at most
 * one tool message (the results of tools with `execute`). The finish reason is normalised
 * (`rawFinishReason` kept as `providerStopReason`), usage copied (`reasoningTokens` and
 * `cachedInputTokens` from the token details), `response.id` and `response.modelId` kept. For a
 * result of several steps (`stopWhen`), read `result.response.messages` with {@link decode}.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeResponse: (result: ResultInput) => Either.Either<ModelTurn, ConversionError.DecodeError> =
  internalResponse.decodeResponse

// -----------------------------------------------------------------------------
// tools
// -----------------------------------------------------------------------------

/**
 * An environment tool without `execute`: the model's calls come back in `result.toolCalls`. (Its
 * output type is `any` rather than `never` because the AI SDK's `ToolSet` does not accept
 * `Tool<_, never>` under `exactOptionalPropertyTypes`.)
 *
 * @category models
 * @since 0.2.0
 */
export type PlainTool = internalResponse.PlainTool

/**
 * An environment tool whose `execute` calls the session: its output is the whole
 * {@link Protocol.ToolOutput} (reward and `finished` included, in `result.toolResults`), of which
 * `toModelOutput` shows the model only the content blocks.
 *
 * @category models
 * @since 0.2.0
 */
export type SessionTool = internalResponse.SessionTool

/**
 * The tools as AI SDK tools without `execute`. Each `inputSchema` is `jsonSchema(input_schema)`:
 * the server's schema verbatim (`{"type": "object", "properties": {}}` for a tool without one),
 * with no validator: the AI SDK does not check the model's input against it, the server does.
 * Two tools with one name are an error.
 *
 * @category constructors
 * @since 0.2.0
 */
export const tools: (
  specs: ReadonlyArray<Protocol.ToolSpec>
) => Either.Either<{ [name: string]: PlainTool }, ConversionError.MalformedInput> = internalResponse.tools

/**
 * The tools with an `execute` that runs the call on `session`. A refused call, a tool that
 * raised and a lost session reject with the {@link ClientError} itself (input that is not a JSON
 * object, with a `ConversionError.InvalidToolArguments`), which the AI SDK reports
 * as a `tool-error` content part (the error itself) and shows the model as an `error-text` result;
 * the generation goes on. Check `session.terminated` after a step.
 *
 * @category constructors
 * @since 0.2.0
 */
export const sessionTools: (
  specs: ReadonlyArray<Protocol.ToolSpec>,
  session: Client.Session
) => Either.Either<{ [name: string]: SessionTool }, ConversionError.MalformedInput> = internalResponse.sessionTools

/**
 * {@link sessionTools} for the session's own tools (`session.listTools()`).
 *
 * @category constructors
 * @since 0.2.0
 */
export const sessionToolSet: (
  session: Client.Session
) => Effect.Effect<{ [name: string]: SessionTool }, ClientError.SessionError | ConversionError.MalformedInput> =
  internalResponse.sessionToolSet

/**
 * @category models
 * @since 0.2.0
 */
export interface ToolOutputOf extends internalResponse.ToolOutputOf {}

/**
 * The {@link Protocol.ToolOutput}s of the calls {@link sessionTools} ran in a step
 * (`result.toolResults`, or a step's), with each call's id and tool name: where a harness reads
 * rewards and `finished`.
 *
 * @category getters
 * @since 0.2.0
 */
export const toolOutputs: (result: {
  readonly toolResults: ReadonlyArray<
    { readonly toolCallId: string; readonly toolName: string; readonly output: unknown }
  >
}) => ReadonlyArray<ToolOutputOf> = internalResponse.toolOutputs

/**
 * What the model is shown of a tool's output (its content blocks), as `toModelOutput` returns it.
 *
 * @category encoding
 * @since 0.2.0
 */
export const modelOutput: (output: Protocol.ToolOutput) => ToolResultPart["output"] = internalResponse.modelOutput

// -----------------------------------------------------------------------------
// episodes
// -----------------------------------------------------------------------------

/**
 * Options of {@link step}: where reasoning signatures go ({@link EncodeOptions}), the AI SDK's call
 * settings (`maxOutputTokens`, `temperature`, `maxRetries`, `headers`, ...; the abort signal is the
 * episode's), `toolChoice`, `providerOptions`, `allowSystemInMessages` (`true` unless set: the
 * system turns are the environment's), and `stream` to call `streamText` instead of `generateText`.
 *
 * @category models
 * @since 0.2.0
 */
export interface StepOptions extends internalStep.StepOptions {}

/**
 * What {@link step} can fail with: the conversation or the tools have no AI SDK form, the call
 * failed (`ModelCallFailed` of `openreward-effect/ModelStep`, with `api: "ai-sdk"` and the HTTP
 * status of an `APICallError`), or the answer could not be read.
 *
 * @category models
 * @since 0.2.0
 */
export type StepError = internalStep.StepError

/**
 * An episode step on an AI SDK `LanguageModel` (`openai("gpt-4.1")`, `anthropic(...)`, a
 * `MockLanguageModelV3`, ...): one `generateText` call (`streamText` with `stream: true`) with the
 * conversation as `messages` ({@link encode}) and the session's tools without `execute`
 * ({@link tools}), so the calls come back unresolved and the episode runner runs each one once
 * through the session. The answer is read with {@link decodeResponse}; a tool result the AI SDK
 * wrote itself (for a call of a tool it does not know) is not part of the step's answer: the episode
 * sends that call to the server, which refuses it, and the model sees why.
 *
 * @category constructors
 * @since 0.2.0
 */
export const step: (model: LanguageModel, options?: StepOptions) => Episode.Step<StepError> = internalStep.step
