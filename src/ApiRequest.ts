/**
 * Requests whose messages and tools cannot mismatch: for a named provider API, the conversation and
 * the tools in the shapes that API's create call takes, typed so that the object spreads into the
 * official SDK's call without a cast.
 *
 * | api | spread into | gives |
 * | --- | --- | --- |
 * | `openai-chat` | `openai.chat.completions.create({ model, ...request })` | `{ messages, tools }`, tools nested (`{type, function: {...}}`) |
 * | `openrouter` | the same call, pointed at OpenRouter | `{ messages, tools }`, OpenRouter-flavoured messages, nested tools |
 * | `openai-responses` | `openai.responses.create({ model, ...request })` | `{ input, tools }`, flat tools with `strict: false` |
 * | `anthropic` | `anthropic.messages.create({ model, max_tokens, ...request })` | `{ system?, messages, tools }` |
 * | `google` | `ai.models.generateContent({ model, ...request })` | `{ contents, config: { systemInstruction?, tools } }` |
 *
 * The request is checked for what the API would reject with a 400 and the codec alone lets through:
 * images in Chat Completions system or assistant messages, Anthropic images of a media type it does
 * not take, unsigned thinking for Anthropic (`unsignedReasoning` decides: `"fail"` by default here),
 * tool schemas Anthropic cannot take (`input_schema` must be an object schema).
 *
 * @example
 * ```ts
 * import { ApiRequest, Block, Message } from "openreward-effect"
 * import * as Either from "effect/Either"
 * import * as assert from "node:assert"
 *
 * const conversation = [Message.user("Weather in Paris?")]
 * const tools = [{ name: "weather", description: "Current weather", input_schema: { type: "object", properties: { city: { type: "string" } } } }]
 * const request = Either.getOrThrow(ApiRequest.make("openai-chat", conversation, tools))
 * assert.deepStrictEqual(request.tools[0], {
 *   type: "function",
 *   function: { name: "weather", description: "Current weather", parameters: { type: "object", properties: { city: { type: "string" } } } }
 * })
 * const responses = Either.getOrThrow(ApiRequest.make("openai-responses", conversation, tools))
 * assert.deepStrictEqual(responses.input, [{ type: "message", role: "user", content: "Weather in Paris?" }])
 * assert.strictEqual(responses.tools[0]?.strict, false)
 * ```
 *
 * @since 0.2.0
 */
import type * as Either from "effect/Either"
import type * as AnthropicFormat from "./AnthropicFormat.js"
import type * as Conversation from "./Conversation.js"
import type * as ConversionError from "./ConversionError.js"
import type * as GoogleFormat from "./GoogleFormat.js"
import * as internal from "./internal/apiRequest.js"
import type * as Json from "./Json.js"
import type * as OpenAiFormat from "./OpenAiFormat.js"
import type * as OpenAiResponsesFormat from "./OpenAiResponsesFormat.js"
import type * as OpenRouterFormat from "./OpenRouterFormat.js"
import type * as Protocol from "./Protocol.js"
import type * as ToolFormat from "./ToolFormat.js"

/**
 * The provider APIs a request can be made for.
 *
 * @category models
 * @since 0.2.0
 */
export type Api = "openai-chat" | "openai-responses" | "anthropic" | "google" | "openrouter"

/**
 * Every API, in a stable order.
 *
 * @category constants
 * @since 0.2.0
 */
export const apis: ReadonlyArray<Api> = internal.apis

// -----------------------------------------------------------------------------
// Chat Completions (openai-chat, openrouter)
// -----------------------------------------------------------------------------

/**
 * @category models
 * @since 0.2.0
 */
export interface ChatTextPart {
  type: "text"
  text: string
}

/**
 * @category models
 * @since 0.2.0
 */
export interface ChatImagePart {
  type: "image_url"
  image_url: { url: string }
}

/**
 * A Chat Completions message as the SDK's `ChatCompletionMessageParam` takes it: system and
 * assistant content hold text only.
 *
 * @category models
 * @since 0.2.0
 */
export type ChatMessage =
  | { role: "system"; content: string | Array<ChatTextPart> }
  | { role: "user"; content: string | Array<ChatTextPart | ChatImagePart> }
  | {
    role: "assistant"
    content: string | Array<ChatTextPart> | null
    reasoning_content?: string
    reasoning?: string
    reasoning_details?: Array<OpenAiFormat.ReasoningDetailEntry>
    tool_calls?: Array<
      { id: string; type: "function"; function: { name: string; arguments: string }; extra_content?: Json.JsonObject }
    >
    extra_content?: Json.JsonObject
  }
  | { role: "tool"; tool_call_id: string; content: string | Array<ChatTextPart> }

/**
 * A Chat Completions tool: the nested shape, `parameters` always an object schema.
 *
 * @category models
 * @since 0.2.0
 */
export interface ChatTool {
  type: "function"
  function: { name: string; description: string; parameters: { readonly [key: string]: unknown } }
}

/**
 * `{ messages, tools }` for `chat.completions.create`.
 *
 * @category models
 * @since 0.2.0
 */
export interface ChatRequest {
  messages: Array<ChatMessage>
  tools: Array<ChatTool>
}

// -----------------------------------------------------------------------------
// Responses (openai-responses)
// -----------------------------------------------------------------------------

type Mutable<T> = T extends string | number | boolean | null | undefined ? T
  : T extends ReadonlyArray<infer A> ? Array<Mutable<A>>
  : { -readonly [K in keyof T]: Mutable<T[K]> }

/**
 * A Responses tool: the flat shape, with `strict: false` (the API makes function tools strict by
 * default, and rejects schemas that strict mode cannot take).
 *
 * @category models
 * @since 0.2.0
 */
export interface ResponsesTool {
  type: "function"
  name: string
  description: string
  parameters: { readonly [key: string]: unknown } | null
  strict: false
}

/**
 * `{ input, tools }` for `responses.create`.
 *
 * @category models
 * @since 0.2.0
 */
export interface ResponsesRequest {
  input: Array<Mutable<OpenAiResponsesFormat.Item>>
  tools: Array<ResponsesTool>
}

// -----------------------------------------------------------------------------
// Anthropic
// -----------------------------------------------------------------------------

/**
 * The media types the Messages API takes for images.
 *
 * @category models
 * @since 0.2.0
 */
export type AnthropicMediaType = "image/jpeg" | "image/png" | "image/gif" | "image/webp"

/**
 * @category models
 * @since 0.2.0
 */
export interface AnthropicText {
  type: "text"
  text: string
}

/**
 * @category models
 * @since 0.2.0
 */
export interface AnthropicImage {
  type: "image"
  source: { type: "base64"; media_type: AnthropicMediaType; data: string }
}

/**
 * A message as the SDK's `MessageParam` takes it: thinking only signed.
 *
 * @category models
 * @since 0.2.0
 */
export type AnthropicMessage =
  | {
    role: "user"
    content: Array<
      AnthropicText | AnthropicImage | {
        type: "tool_result"
        tool_use_id: string
        content: Array<AnthropicText | AnthropicImage>
        is_error?: boolean
      }
    >
  }
  | {
    role: "assistant"
    content: Array<
      | AnthropicText
      | AnthropicImage
      | { type: "thinking"; thinking: string; signature: string }
      | { type: "tool_use"; id: string; name: string; input: Json.JsonObject }
    >
  }
  | { role: "system"; content: Array<AnthropicText> }

/**
 * An Anthropic tool: `input_schema` an object schema.
 *
 * @category models
 * @since 0.2.0
 */
export interface AnthropicTool {
  type: "custom"
  name: string
  description: string
  input_schema: { readonly type: "object"; readonly [key: string]: unknown }
}

/**
 * `{ system?, messages, tools }` for `messages.create` (`system` only when the conversation has one).
 *
 * @category models
 * @since 0.2.0
 */
export interface AnthropicRequest {
  system?: string | Array<AnthropicText>
  messages: Array<AnthropicMessage>
  tools: Array<AnthropicTool>
}

// -----------------------------------------------------------------------------
// Google
// -----------------------------------------------------------------------------

/**
 * A Gemini function declaration, its schema as JSON Schema (`parametersJsonSchema`, which
 * `@google/genai` passes through as it is).
 *
 * @category models
 * @since 0.2.0
 */
export interface GoogleFunctionDeclaration {
  name: string
  description: string
  parametersJsonSchema?: Json.JsonObject
}

/**
 * `{ contents, config: { systemInstruction?, tools } }` for `models.generateContent` (camelCase, as
 * `@google/genai` reads it).
 *
 * @category models
 * @since 0.2.0
 */
export interface GoogleRequest {
  contents: Array<Mutable<GoogleFormat.Content<"camel">>>
  config: {
    systemInstruction?: string
    tools: Array<{ functionDeclarations: Array<GoogleFunctionDeclaration> }>
  }
}

// -----------------------------------------------------------------------------
// make
// -----------------------------------------------------------------------------

/**
 * The request each API takes.
 *
 * @category models
 * @since 0.2.0
 */
export interface Requests {
  readonly "openai-chat": ChatRequest
  readonly openrouter: ChatRequest
  readonly "openai-responses": ResponsesRequest
  readonly anthropic: AnthropicRequest
  readonly google: GoogleRequest
}

/**
 * @category models
 * @since 0.2.0
 */
export type Request<A extends Api> = Requests[A]

/**
 * The options of each API: its format's encode options (those that keep the request in the SDK's
 * types) and the tool conversion's.
 *
 * @category models
 * @since 0.2.0
 */
export interface OptionsFor {
  readonly "openai-chat": OpenAiFormat.EncodeOptions
  readonly openrouter: Omit<OpenRouterFormat.EncodeOptions, "toolResultImages"> & {
    readonly toolResultImages?: "error" | "user-message" | undefined
  }
  readonly "openai-responses": OpenAiResponsesFormat.EncodeOptions
  readonly anthropic: Omit<AnthropicFormat.EncodeOptions, "unsignedReasoning"> & {
    /** Default `"fail"`: the API rejects unsigned thinking. */
    readonly unsignedReasoning?: "text" | "omit" | "fail" | undefined
  }
  readonly google: Omit<GoogleFormat.EncodeOptions, "casing" | "systemInstruction">
}

/**
 * @category models
 * @since 0.2.0
 */
export type Options<A extends Api> = OptionsFor[A] & ToolFormat.Options

/**
 * What making a request can fail with: the conversation cannot be encoded for the API, or a tool
 * cannot be converted.
 *
 * @category models
 * @since 0.2.0
 */
export type Error = ConversionError.EncodeError | ConversionError.MalformedInput

/**
 * The conversation and the tools for `api`, in matching shapes.
 *
 * @category constructors
 * @since 0.2.0
 */
export const make: <A extends Api>(
  api: A,
  conversation: Conversation.Conversation,
  tools: ReadonlyArray<Protocol.ToolSpec>,
  options?: Options<A>
) => Either.Either<Request<A>, Error> = internal.make
