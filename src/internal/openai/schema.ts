/**
 * The Chat Completions wire shapes, declared once: what encoding writes (`Wire`, `ChatMessage` and
 * their parts), what decoding reads (`Input`, `InputMessage` and their parts), the entry types
 * decoding converts and the keys of a request body. `OpenAiFormat` re-exports each with its
 * documentation (and `OpenRouterFormat` the shapes both formats share); the decoder compiles its
 * guard from them.
 *
 * @internal
 */
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Json from "../../Json.js"
import * as RequestBody from "../requestBody.js"
import { describe } from "../wireInput.js"

export const name = "openai" as const

// -----------------------------------------------------------------------------
// wire: what encode produces
// -----------------------------------------------------------------------------

export const TextPart = Schema.Struct({
  type: Schema.tag("text"),
  text: Schema.String
}).annotations({ identifier: "ChatTextPart" })

export const ImageUrlPart = Schema.Struct({
  type: Schema.tag("image_url"),
  image_url: Schema.Struct({ url: Schema.String })
}).annotations({ identifier: "ChatImageUrlPart" })

export const ContentPart = Schema.Union(TextPart, ImageUrlPart).annotations({ identifier: "ChatContentPart" })

export const Content = Schema.Union(Schema.String, Schema.Array(ContentPart)).annotations({
  identifier: "ChatContent"
})

export const ToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.tag("function"),
  function: Schema.Struct({ name: Schema.String, arguments: Schema.String }),
  extra_content: Schema.optionalWith(Json.JsonObject, { exact: true })
}).annotations({ identifier: "ChatToolCall" })

// a `reasoning_details` entry as encoding sends it back: its type and content, and the other keys
// the reasoning block's detail kept of the entry it was read from
const entryRest = Schema.Record({ key: Schema.String, value: Json.JsonValue })

export const ReasoningDetailEntry = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("reasoning.text"),
    text: Schema.String,
    signature: Schema.optionalWith(Schema.String, { exact: true })
  }, entryRest),
  Schema.Struct({ type: Schema.Literal("reasoning.summary"), summary: Schema.String }, entryRest),
  Schema.Struct({ type: Schema.Literal("reasoning.encrypted"), data: Schema.String }, entryRest)
).annotations({ identifier: "ChatReasoningDetailEntry" })

export const SystemMessage = Schema.Struct({
  role: Schema.tag("system"),
  content: Content
}).annotations({ identifier: "ChatSystemMessage" })

export const UserMessage = Schema.Struct({
  role: Schema.tag("user"),
  content: Content
}).annotations({ identifier: "ChatUserMessage" })

export const AssistantMessage = Schema.Struct({
  role: Schema.tag("assistant"),
  content: Schema.NullOr(Content),
  reasoning_content: Schema.optionalWith(Schema.String, { exact: true }),
  reasoning: Schema.optionalWith(Schema.String, { exact: true }),
  reasoning_details: Schema.optionalWith(Schema.Array(ReasoningDetailEntry), { exact: true }),
  tool_calls: Schema.optionalWith(Schema.Array(ToolCall), { exact: true }),
  extra_content: Schema.optionalWith(Json.JsonObject, { exact: true })
}).annotations({ identifier: "ChatAssistantMessage" })

export const ToolMessage = Schema.Struct({
  role: Schema.tag("tool"),
  tool_call_id: Schema.String,
  content: Content
}).annotations({ identifier: "ChatToolMessage" })

export const ChatMessage = Schema.Union(SystemMessage, UserMessage, AssistantMessage, ToolMessage).annotations({
  identifier: "ChatMessage"
})

export const Wire = Schema.Array(ChatMessage).annotations({ identifier: "ChatMessages" })

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

// One clear issue when a list entry is not even an object; an object reports its own issues.
const objectExpected = (what: string) => (issue: ParseResult.ParseIssue) =>
  typeof issue.actual === "object" && issue.actual !== null && !Array.isArray(issue.actual)
    ? { message: "", override: false }
    : { message: `Expected ${what} object, actual ${describe(issue.actual)}`, override: true }

// `string | Array<P>` (and `null` where allowed), reporting one clear issue when the input is none
// of them; an array with a bad part reports the part.
const contentMessage = (nullable: boolean) => (issue: ParseResult.ParseIssue) =>
  typeof issue.actual === "string" || Array.isArray(issue.actual) || (nullable && issue.actual === null)
    ? { message: "", override: false }
    : {
      message: `Expected ${
        nullable ? "a string, an array of content parts or null" : "a string or an array of content parts"
      }, actual ${describe(issue.actual)}`,
      override: true
    }

const contentOf = <P extends Schema.Schema.Any>(parts: P) =>
  Schema.Union(Schema.String, Schema.Array(parts)).annotations({ message: contentMessage(false) })

const nullableContentOf = <P extends Schema.Schema.Any>(parts: P) =>
  Schema.Union(Schema.String, Schema.Array(parts), Schema.Null).annotations({ message: contentMessage(true) })

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

// Any `type` outside `known`: content this library reads only to report. The brand keeps the known
// members apart from this one when narrowing.
const otherThan = (known: ReadonlyArray<string>, identifier: string) => {
  const set: ReadonlySet<string> = new Set(known)
  return Schema.Struct({
    type: Schema.String.pipe(
      Schema.filter((type) => !set.has(type), { message: () => "an entry of a known type must match its schema" }),
      Schema.brand("OtherType")
    )
  }).annotations({ identifier })
}

export const knownTypes = {
  /** the parts of a system, developer, user or tool message */
  part: ["text", "image_url"],
  /** the parts of an assistant message (`thinking`: Mistral's reasoning parts) */
  assistantPart: ["text", "image_url", "refusal", "thinking"],
  /** tool calls */
  toolCall: ["function"],
  /** OpenRouter's `reasoning_details` entries */
  reasoningDetail: ["reasoning.text", "reasoning.summary", "reasoning.encrypted"]
} as const

export const InputImageUrlPart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({ url: Schema.String })
}).annotations({ identifier: "ChatInputImageUrlPart" })

export const RefusalPart = Schema.Struct({
  type: Schema.Literal("refusal"),
  refusal: Schema.String
}).annotations({ identifier: "ChatRefusalPart" })

export const ThinkingTextChunk = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String
}).annotations({ identifier: "ChatThinkingTextChunk" })

export const ThinkingPart = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.Array(Schema.Union(ThinkingTextChunk, otherThan(["text"], "ChatOtherThinkingChunk"))),
  closed: optional(Schema.NullOr(Schema.Boolean))
}).annotations({ identifier: "ChatThinkingPart" })

export const InputPart = Schema.Union(TextPart, InputImageUrlPart, otherThan(knownTypes.part, "ChatOtherPart"))
  .annotations({ message: objectExpected("a content part") })

export const InputAssistantPart = Schema.Union(
  TextPart,
  InputImageUrlPart,
  RefusalPart,
  ThinkingPart,
  otherThan(knownTypes.assistantPart, "ChatOtherPart")
).annotations({ message: objectExpected("a content part") })

const Arguments = Schema.Union(Schema.String, Json.JsonObject).annotations({
  message: (issue) =>
    typeof issue.actual === "string" ||
      (typeof issue.actual === "object" && issue.actual !== null && !Array.isArray(issue.actual))
      ? { message: "", override: false }
      : { message: `Expected a JSON string or a JSON object, actual ${describe(issue.actual)}`, override: true }
})

export const InputFunctionToolCall = Schema.Struct({
  id: Schema.String,
  type: optional(Schema.Literal("function")),
  function: Schema.Struct({ name: Schema.String, arguments: optional(Arguments) }),
  extra_content: optional(Schema.NullOr(Json.JsonObject))
}).annotations({ identifier: "ChatInputFunctionToolCall" })

export const InputToolCall = Schema.Union(InputFunctionToolCall, otherThan(knownTypes.toolCall, "ChatOtherToolCall"))
  .annotations({ message: objectExpected("a tool call") })

export const ReasoningTextDetail = Schema.Struct({
  type: Schema.Literal("reasoning.text"),
  text: optional(Schema.NullOr(Schema.String)),
  signature: optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "ReasoningTextDetail" })

export const ReasoningSummaryDetail = Schema.Struct({
  type: Schema.Literal("reasoning.summary"),
  summary: Schema.String
}).annotations({ identifier: "ReasoningSummaryDetail" })

export const ReasoningEncryptedDetail = Schema.Struct({
  type: Schema.Literal("reasoning.encrypted"),
  data: optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "ReasoningEncryptedDetail" })

export const ReasoningDetail = Schema.Union(
  ReasoningTextDetail,
  ReasoningSummaryDetail,
  ReasoningEncryptedDetail,
  otherThan(knownTypes.reasoningDetail, "OtherReasoningDetail")
).annotations({ message: objectExpected("a reasoning detail") })

export const InputSystemMessage = Schema.Struct({
  role: Schema.Literal("system"),
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputSystemMessage" })

export const InputDeveloperMessage = Schema.Struct({
  role: Schema.Literal("developer"),
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputDeveloperMessage" })

export const InputUserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputUserMessage" })

export const InputAssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: optional(nullableContentOf(InputAssistantPart)),
  refusal: optional(Schema.NullOr(Schema.String)),
  reasoning_content: optional(Schema.NullOr(Schema.String)),
  reasoning: optional(Schema.NullOr(Schema.String)),
  reasoning_details: optional(Schema.NullOr(Schema.Array(ReasoningDetail))),
  tool_calls: optional(Schema.NullOr(Schema.Array(InputToolCall))),
  function_call: optional(Schema.Unknown),
  audio: optional(Schema.Unknown),
  extra_content: optional(Schema.NullOr(Json.JsonObject))
}).annotations({ identifier: "ChatInputAssistantMessage" })

export const InputToolMessage = Schema.Struct({
  role: Schema.Literal("tool"),
  tool_call_id: Schema.String,
  content: contentOf(InputPart)
}).annotations({ identifier: "ChatInputToolMessage" })

export const InputFunctionMessage = Schema.Struct({
  role: Schema.Literal("function")
}).annotations({ identifier: "ChatInputFunctionMessage" })

export const InputMessage = Schema.Union(
  InputSystemMessage,
  InputDeveloperMessage,
  InputUserMessage,
  InputAssistantMessage,
  InputToolMessage,
  InputFunctionMessage
).annotations({ identifier: "ChatInputMessage", message: objectExpected("a chat message") })

export const requestKeys: RequestBody.Keys = {
  conversation: ["messages"],
  // `ChatCompletionCreateParams` of the `openai` SDK 6.49, the deprecated `functions` and
  // `function_call` included
  parameters: [
    "model",
    "audio",
    "frequency_penalty",
    "function_call",
    "functions",
    "logit_bias",
    "logprobs",
    "max_completion_tokens",
    "max_tokens",
    "metadata",
    "modalities",
    "moderation",
    "n",
    "parallel_tool_calls",
    "prediction",
    "presence_penalty",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning_effort",
    "response_format",
    "safety_identifier",
    "seed",
    "service_tier",
    "stop",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "user",
    "verbosity",
    "web_search_options"
  ]
}

export const Input = Schema.Union(
  RequestBody.schema({ messages: Schema.Array(InputMessage) }, requestKeys.parameters).annotations({
    identifier: "OpenAiInputRequest"
  }),
  Schema.Array(InputMessage)
).annotations({ identifier: "OpenAiInput" })
