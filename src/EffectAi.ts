/**
 * The bridge to `@effect/ai` 0.37 (the Effect 3 line), an optional peer dependency: import this
 * module only where `@effect/ai` is installed; the rest of the library does not load it.
 *
 * - {@link encode} / {@link decode}: canonical conversations to and from `Prompt.Prompt`.
 * - {@link decodeResponse}: the parts `LanguageModel.generateText` (or `streamText`) returns, as a
 *   canonical assistant turn ({@link ModelResponse.ModelResponse}) plus the results of the tool
 *   calls the toolkit ran.
 * - {@link sessionToolkit}: a session's tools as a `Toolkit.WithHandler` whose handlers call
 *   `session.callTool`, so `LanguageModel.generateText({ prompt, toolkit })` with any `@effect/ai`
 *   provider package drives an OpenReward session. {@link makeToolkit} gives the tools without
 *   handlers, for `disableToolCallResolution: true` or handlers of your own.
 * - {@link step}: the provided `LanguageModel` as an episode step for `openreward-effect/Episode`
 *   (`generateText`, or `streamText` with `stream: true`).
 *
 * | canonical                    | `Prompt`                                                                  |
 * | ---------------------------- | ------------------------------------------------------------------------- |
 * | system turn                  | one `system` message per text block (the content is one string)          |
 * | user turn                    | `user` messages (text, file) and `tool` messages (tool results), in order |
 * | assistant turn               | one `assistant` message                                                    |
 * | `text`                       | `text` part                                                                |
 * | `image`                      | `file` part, `data` the bytes                                              |
 * | `reasoning`                  | `reasoning` part, the signature under `options.anthropic` (or `google`)  |
 * | `tool_call`                  | `tool-call` part, `params` the input                                       |
 * | `tool_result`                | `tool-result` part named after its call; `result` a string (one text block) or the canonical blocks as JSON |
 *
 * What the `Prompt` has no field for (`detail`, a message split in several, an empty system turn,
 * the signature) rides under `options.openreward`, which providers ignore.
 *
 * Laws (property-tested in test/EffectAi.test.ts):
 * 1. `encode(c)` succeeds, or fails with an `EncodeError` that points at an existing message and
 *    block of `c`: an image in a system turn, image data that is not canonical base64, a tool
 *    result with no tool call before it.
 * 2. When `encode(c)` succeeds, `decode(encode(c))` equals `c`, exactly.
 * 3. `decode` never throws; a `Prompt` built without this library decodes message by message (a
 *    `tool` message is a user turn of tool results), and what canonical content cannot hold is an
 *    error: files other than images, image URLs, file names, provider-executed
 *    tool calls and results, tool-call params that are not a JSON object. A tool result's `name`
 *    is not kept (canonical results refer to their call by id), nor provider options other than
 *    the reasoning signature. Anthropic's `redacted_thinking` reads as the library's canonical form
 *    of it (empty text, the data as signature, `detail: {anthropic: {redacted: true}}`) and is
 *    written back as `redacted_thinking`.
 *
 * @since 0.2.0
 */
import type * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Toolkit from "@effect/ai/Toolkit"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import type * as Client from "./Client.js"
import type * as ClientError from "./ClientError.js"
import type * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import type * as Episode from "./Episode.js"
import * as internalPrompt from "./internal/effectAi/prompt.js"
import * as internalResponse from "./internal/effectAi/response.js"
import * as internalToolkit from "./internal/effectAi/toolkit.js"
import type * as Json from "./Json.js"
import type * as Message from "./Message.js"
import type * as ModelResponse from "./ModelResponse.js"
import type * as Protocol from "./Protocol.js"

// -----------------------------------------------------------------------------
// prompts
// -----------------------------------------------------------------------------

/**
 * Where {@link encode} writes a reasoning block's signature for the provider, besides
 * `options.openreward`: `anthropic` (`{type: "thinking", signature}`, what `@effect/ai-anthropic`
 * replays; the default), `google` (`{thoughtSignature}`), or `none`.
 *
 * @category models
 * @since 0.2.0
 */
export type SignatureTarget = internalPrompt.SignatureTarget

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
 * A canonical conversation as an `@effect/ai` `Prompt`.
 *
 * @category encoding
 * @since 0.2.0
 */
export const encode: (
  conversation: Conversation.Conversation,
  options?: EncodeOptions
) => Either.Either<Prompt.Prompt, ConversionError.EncodeError> = internalPrompt.encode

/**
 * A `Prompt`, or the encoded messages of one (`Prompt.MessageEncoded[]`, or `{ content }` as
 * `Schema.encode(Prompt.Prompt)` writes it), as a canonical conversation. Never throws.
 *
 * @category decoding
 * @since 0.2.0
 */
export const decode: (input: unknown) => Either.Either<Conversation.Conversation, ConversionError.DecodeError> =
  internalPrompt.decode

// -----------------------------------------------------------------------------
// responses
// -----------------------------------------------------------------------------

/**
 * A model's answer: the canonical {@link ModelResponse.ModelResponse} (its assistant turn, stop
 * reason, usage, response id and model), and, when the toolkit ran the tool calls, their results as
 * one user turn to append after it.
 *
 * @category models
 * @since 0.2.0
 */
export interface ModelTurn extends ModelResponse.ModelResponse {
  readonly toolResults?: Message.UserMessage
}

/**
 * The response parts to read: `GenerateTextResponse` (anything with `content`), or the parts
 * themselves (a collected `streamText`, deltas included).
 *
 * @category models
 * @since 0.2.0
 */
export type ResponseInput = internalResponse.Input

/**
 * Read what `LanguageModel.generateText` returned. Text, reasoning (its signature from the
 * provider metadata: `anthropic`, `google` or `openai`), files that are images and tool calls make
 * the assistant turn; tool results (from a toolkit with handlers) make `toolResults`; the `finish`
 * part gives the stop reason and usage, `response-metadata` the id and model. Sources, stream
 * errors, provider-executed tools and non-image files are errors; redacted thinking is read in
 * its canonical form (empty text, the data as signature, `detail: {anthropic: {redacted: true}}`).
 *
 * @category decoding
 * @since 0.2.0
 */
export const decodeResponse: (response: ResponseInput) => Either.Either<ModelTurn, ConversionError.DecodeError> =
  internalResponse.decode

/**
 * @category models
 * @since 0.2.0
 */
export interface ToolOutputOf extends internalResponse.ToolOutputOf {}

/**
 * The {@link Protocol.ToolOutput}s of the tool calls a {@link sessionToolkit} ran, in call order,
 * with each call's id and tool name: where a harness reads rewards and `finished`.
 *
 * @category getters
 * @since 0.2.0
 */
export const toolOutputs: (response: ResponseInput) => ReadonlyArray<ToolOutputOf> = internalResponse.toolOutputs

// -----------------------------------------------------------------------------
// tools
// -----------------------------------------------------------------------------

/**
 * A tool's input as the toolkit decodes it: any JSON object. Its JSON Schema (what providers send
 * the model) is the server's `input_schema`, verbatim; the server validates the input.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Parameters: internalToolkit.ParametersSchema = internalToolkit.Parameters

/**
 * The errors a session tool fails the generation with: the tool raised (the session is then
 * terminated), or the session is unusable. A refused call is a failed tool result instead.
 *
 * @category schemas
 * @since 0.2.0
 */
export const Failure: internalToolkit.FailureSchema = internalToolkit.Failure

/**
 * An environment tool as an `@effect/ai` tool: its success is the whole
 * {@link Protocol.ToolOutput} (reward and `finished` included), of which the model is shown only
 * the content blocks.
 *
 * @category models
 * @since 0.2.0
 */
export type SessionTool = internalToolkit.SessionTool

/**
 * @category models
 * @since 0.2.0
 */
export type Tools = internalToolkit.Tools

/**
 * One tool from its spec. The name and description are the server's; the parameters' JSON Schema
 * is the server's `input_schema` exactly (`{"type": "object", "properties": {}}` for a tool without
 * one). Note that `@effect/ai-openai` sends tools with `strict: true` unless configured otherwise,
 * which most server schemas do not satisfy: use `OpenAiLanguageModel.model(name, { strict: false })`.
 *
 * @category constructors
 * @since 0.2.0
 */
export const makeTool: (spec: Protocol.ToolSpec) => SessionTool = internalToolkit.tool

/**
 * The tools as a `Toolkit` without handlers, for `toolkit.toLayer(...)` with handlers of your own.
 * Two tools with one name are an error.
 *
 * @category constructors
 * @since 0.2.0
 */
export const makeToolkit: (
  specs: ReadonlyArray<Protocol.ToolSpec>
) => Either.Either<Toolkit.Toolkit<Tools>, ConversionError.MalformedInput> = internalToolkit.toolkit

/**
 * The tools with a handler that calls them on `session`: `generateText` then runs each tool call
 * through `session.callTool`, in order (leave `concurrency` unset), and the response's tool-result
 * parts carry the {@link Protocol.ToolOutput} as `result` and the model's view (the content blocks,
 * by the tool-result convention) as `encodedResult`. A refused call (`ToolCallError`) is a result
 * with `isFailure: true` and the refusal as text; a tool that raised or a lost session fails the
 * generation with its {@link ClientError} error.
 *
 * @category constructors
 * @since 0.2.0
 */
export const withHandler: (
  specs: ReadonlyArray<Protocol.ToolSpec>,
  session: Client.Session
) => Either.Either<Toolkit.WithHandler<Tools>, ConversionError.MalformedInput> = internalToolkit.withHandler

/**
 * {@link withHandler} for the session's own tools (`session.listTools()`): pass it as
 * `generateText`'s `toolkit` directly.
 *
 * @category constructors
 * @since 0.2.0
 */
export const sessionToolkit: (
  session: Client.Session
) => Effect.Effect<Toolkit.WithHandler<Tools>, ClientError.SessionError | ConversionError.MalformedInput> =
  internalToolkit.sessionToolkit

/**
 * What the model is shown of a tool's output: exactly one text block without `detail` is its
 * string; anything else is the array of canonical wire blocks (images included as base64 JSON
 * text, since `@effect/ai` tool results are one JSON value).
 *
 * @category encoding
 * @since 0.2.0
 */
export const modelResult: (output: Protocol.ToolOutput) => Json.JsonValue = internalToolkit.modelResult

// -----------------------------------------------------------------------------
// episodes
// -----------------------------------------------------------------------------

/**
 * Options of {@link step}.
 *
 * @category models
 * @since 0.2.0
 */
export interface StepOptions extends EncodeOptions {
  /** Passed to `generateText` (`"auto"` when omitted, the provider's default). */
  readonly toolChoice?: "auto" | "none" | "required" | undefined
  /** Call `streamText` instead of `generateText` and read the collected parts, deltas included. */
  readonly stream?: boolean | undefined
}

/**
 * What {@link step} can fail with: the conversation or the tools have no `@effect/ai` form, the
 * model call failed (`AiError`), or the answer could not be read.
 *
 * @category models
 * @since 0.2.0
 */
export type StepError =
  | ConversionError.EncodeError
  | ConversionError.DecodeError
  | ConversionError.MalformedInput
  | AiError.AiError

/**
 * An episode step (`openreward-effect/Episode`) on whatever `LanguageModel` is provided — any
 * `@effect/ai` provider package: `generateText` with the conversation as the prompt and the
 * session's tools as a toolkit without handlers (`disableToolCallResolution: true`), so the episode
 * runner, not the toolkit, runs each call once through the session. With `stream: true` it calls
 * `streamText` and reads the collected parts, which give the turn the whole answer gives.
 *
 * @category constructors
 * @since 0.2.0
 */
export const step = (options?: StepOptions): Episode.Step<StepError, LanguageModel.LanguageModel> => (input) =>
  Effect.gen(function*() {
    const prompt = yield* encode(input.conversation, options)
    const toolkit = yield* makeToolkit(input.tools)
    // The toolkit needs handlers in context although resolution is off: these are never called.
    const unreachable = () => Effect.dieMessage("EffectAi.step: tool calls are run by the episode, not the toolkit")
    const handlers = Object.fromEntries(input.tools.map((t) => [t.name, unreachable]))
    const call = {
      prompt,
      toolkit,
      disableToolCallResolution: true,
      ...(options?.toolChoice === undefined ? {} : { toolChoice: options.toolChoice })
    } as const
    const handled = toolkit.toLayer(handlers)
    const response: ResponseInput = options?.stream === true
      ? yield* Effect.map(Stream.runCollect(LanguageModel.streamText(call)), Chunk.toReadonlyArray).pipe(
        Effect.provide(handled)
      )
      : yield* LanguageModel.generateText(call).pipe(Effect.provide(handled))
    return yield* decodeResponse(response)
  })
