/**
 * openreward-effect: OpenReward conversation prompts, provider codecs and the environment protocol,
 * built on Effect.
 *
 * The index needs only `effect`. The HTTP modules, which need `@effect/platform` (and
 * `@effect/experimental`), are imported by sub-path: `openreward-effect/Server` and
 * `openreward-effect/Client`.
 *
 * @since 0.1.0
 */

/**
 * JSON values as Effect Schemas.
 *
 * @since 0.1.0
 */
export * as Json from "./Json.js"

/**
 * Content blocks: text, image, reasoning, tool call and tool result.
 *
 * @since 0.1.0
 */
export * as Block from "./Block.js"

/**
 * Role-tagged messages with placement rules.
 *
 * @since 0.1.0
 */
export * as Message from "./Message.js"

/**
 * Conversations: strict and lenient decoding of canonical wire JSON.
 *
 * @since 0.1.0
 */
export * as Conversation from "./Conversation.js"

/**
 * The `/prompt` surface: flattening a conversation, wrapping a prompt.
 *
 * @since 0.1.0
 */
export * as Prompt from "./Prompt.js"

/**
 * Provider names.
 *
 * @since 0.1.0
 */
export * as Provider from "./Provider.js"

/**
 * The closed union of conversion errors.
 *
 * @since 0.1.0
 */
export * as ConversionError from "./ConversionError.js"

/**
 * The shape shared by every provider format, and its Schema adapter.
 *
 * @since 0.1.0
 */
export * as Codec from "./Codec.js"

/**
 * Wire schemas of the OpenReward environment protocol.
 *
 * @since 0.1.0
 */
export * as Protocol from "./Protocol.js"

/**
 * The protocol's error answers, as tagged errors that carry their HTTP status.
 *
 * @since 0.2.0
 */
export * as ProtocolError from "./ProtocolError.js"

/**
 * The OpenAI Chat Completions format.
 *
 * @since 0.1.0
 */
export * as OpenAiFormat from "./OpenAiFormat.js"

/**
 * Provider requests whose messages and tools match, typed for each SDK's create call.
 *
 * @since 0.2.0
 */
export * as ApiRequest from "./ApiRequest.js"

/**
 * The OpenAI Responses API format: `input` items, and model answers back into the conversation.
 *
 * @since 0.2.0
 */
export * as OpenAiResponsesFormat from "./OpenAiResponsesFormat.js"

/**
 * The OpenRouter format (Chat Completions with OpenRouter's reasoning fields).
 *
 * @since 0.1.0
 */
export * as OpenRouterFormat from "./OpenRouterFormat.js"

/**
 * The Anthropic Messages format.
 *
 * @since 0.1.0
 */
export * as AnthropicFormat from "./AnthropicFormat.js"

/**
 * The Google Gemini format.
 *
 * @since 0.1.0
 */
export * as GoogleFormat from "./GoogleFormat.js"

/**
 * The ShareGPT format (`{conversations: [{from, value}]}` records, LLaMA-Factory's tool turns).
 *
 * @since 0.2.0
 */
export * as ShareGptFormat from "./ShareGptFormat.js"

/**
 * Every format by name: encode, decode and convert at run time.
 *
 * @since 0.1.0
 */
export * as Format from "./Format.js"

/**
 * The conversions of `Format` for code without Effect: they return the value or throw the tagged error.
 *
 * @since 0.2.0
 */
export * as Throwing from "./Throwing.js"

/**
 * Tool lists in provider formats, with the reference's schema sanitizing.
 *
 * @since 0.1.0
 */
export * as ToolFormat from "./ToolFormat.js"

/**
 * The closed union of client errors.
 *
 * @since 0.1.0
 */
export * as ClientError from "./ClientError.js"

/**
 * Environments as data: tasks, a prompt surface, tools, setup and teardown.
 *
 * @since 0.1.0
 */
export * as Environment from "./Environment.js"

/**
 * Tools with Effect Schema inputs.
 *
 * @since 0.1.0
 */
export * as Tool from "./Tool.js"

/**
 * A model's answer in canonical form: the assistant turn, stop reason, usage, refusal.
 *
 * @since 0.2.0
 */
export * as ModelResponse from "./ModelResponse.js"

/**
 * Ranking a group by pairwise comparisons: topologies (round robin, knockout) and aggregators (win
 * rate, rank, Bradley-Terry).
 *
 * @since 0.2.0
 */
export * as Ranking from "./Ranking.js"

/**
 * Datasets: records that hold conversations (fine-tuning, preference and rollout lines), converted
 * where their conversations are, every other key carried through.
 *
 * @since 0.2.0
 */
export * as Dataset from "./Dataset.js"

/**
 * What converting a dataset can fail with beyond a conversation's own errors.
 *
 * @since 0.2.0
 */
export * as DatasetError from "./DatasetError.js"
