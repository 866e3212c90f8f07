/**
 * The Anthropic Messages wire shapes, declared once: what encoding writes (`Wire` and its blocks),
 * what decoding reads (`Input`, `Request`, `InputMessage` and their blocks) and the keys of a request
 * body. `AnthropicFormat` re-exports each with its documentation; the decoder compiles its guard
 * from them.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as Json from "../../Json.js"
import * as RequestBody from "../requestBody.js"
import { describe } from "../wireInput.js"

export const name = "anthropic" as const

// -----------------------------------------------------------------------------
// wire: what encode produces
// -----------------------------------------------------------------------------

// `citations` of a text block (web search, documents, ...): kept in the canonical block's
// `detail.anthropic.citations` and written back from there
const Citations = Schema.Array(Json.JsonObject)

export const TextBlock = Schema.Struct({
  type: Schema.tag("text"),
  text: Schema.String,
  citations: Schema.optionalWith(Citations, { exact: true })
}).annotations({ identifier: "AnthropicTextBlock" })

export const Base64ImageSource = Schema.Struct({
  type: Schema.tag("base64"),
  media_type: Schema.String,
  data: Schema.String
}).annotations({ identifier: "AnthropicBase64ImageSource" })

export const ImageBlock = Schema.Struct({
  type: Schema.tag("image"),
  source: Base64ImageSource
}).annotations({ identifier: "AnthropicImageBlock" })

export const ThinkingBlock = Schema.Struct({
  type: Schema.tag("thinking"),
  thinking: Schema.String,
  signature: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "AnthropicThinkingBlock" })

// Who made a tool call: `{type: "direct"}` (the model, the default) or the provider's code
// execution (`{type: "code_execution_20250825", tool_id}`, programmatic tool calling)
export const Caller = Json.JsonObject

export const ToolUseBlock = Schema.Struct({
  type: Schema.tag("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Json.JsonObject,
  caller: Schema.optionalWith(Caller, { exact: true })
}).annotations({ identifier: "AnthropicToolUseBlock" })

export const ToolResultContent = Schema.Union(TextBlock, ImageBlock)

export const ToolResultBlock = Schema.Struct({
  type: Schema.tag("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.Array(ToolResultContent),
  is_error: Schema.optionalWith(Schema.Literal(true), { exact: true })
}).annotations({ identifier: "AnthropicToolResultBlock" })

export const RedactedThinkingBlock = Schema.Struct({
  type: Schema.Literal("redacted_thinking"),
  data: Schema.String
}).annotations({ identifier: "AnthropicRedactedThinkingBlock" })

// A block of a type this format does not read: its `type` and its JSON, every key kept (a provider
// block's item). Its `type` is branded, so that ruling such a block out narrows a block union to the
// known members.
const otherThan = (known: ReadonlyArray<string>) => {
  const set: ReadonlySet<string> = new Set(known)
  return Schema.Struct(
    {
      type: Schema.String.pipe(
        Schema.filter((type) => !set.has(type), { message: () => "a block of a known type must match its schema" }),
        Schema.brand("AnthropicOtherBlockType")
      )
    },
    Schema.Record({ key: Schema.String, value: Json.JsonValue })
  )
}

export const OtherBlock = otherThan(["text", "image", "thinking", "redacted_thinking", "tool_use", "tool_result"])
  .annotations({ identifier: "AnthropicOtherBlock" })

export const ContentBlock = Schema.Union(
  TextBlock,
  ImageBlock,
  ThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  ToolResultBlock,
  OtherBlock
)

export const WireMessage = Schema.Struct({
  role: Schema.Literal("user", "assistant", "system"),
  content: Schema.Array(ContentBlock)
}).annotations({ identifier: "AnthropicMessage" })

// a text block of the `system` parameter, as encode writes it (no citations)
export const SystemBlock = Schema.Struct({
  type: Schema.tag("text"),
  text: Schema.String
}).annotations({ identifier: "AnthropicSystemBlock" })

export const Wire = Schema.Struct({
  system: Schema.NullOr(Schema.Union(Schema.String, Schema.Array(SystemBlock))),
  messages: Schema.Array(WireMessage)
}).annotations({ identifier: "AnthropicConversation" })

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

// `string | Array<B>`, with one clear message when the input is neither (a failed union otherwise
// reports each member separately).
const stringOr = <B extends Schema.Schema.Any>(blocks: B, what: string) =>
  Schema.Union(Schema.String, Schema.Array(blocks)).annotations({
    message: (issue) =>
      typeof issue.actual === "string" || Array.isArray(issue.actual)
        ? { message: "", override: false }
        : {
          message: `Expected a string or an array of ${what}, actual ${describe(issue.actual)}`,
          override: true
        }
  })

export const InputTextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  citations: Schema.optionalWith(Schema.NullOr(Citations), { exact: true })
}).annotations({ identifier: "AnthropicInputTextBlock" })

export const UrlImageSource = Schema.Struct({
  type: Schema.Literal("url"),
  url: Schema.String
}).annotations({ identifier: "AnthropicUrlImageSource" })

export const FileImageSource = Schema.Struct({
  type: Schema.Literal("file"),
  file_id: Schema.String
}).annotations({ identifier: "AnthropicFileImageSource" })

export const ImageSource = Schema.Union(Base64ImageSource, UrlImageSource, FileImageSource)

export const InputImageBlock = Schema.Struct({
  type: Schema.Literal("image"),
  source: ImageSource
}).annotations({ identifier: "AnthropicInputImageBlock" })

export const InputThinkingBlock = Schema.Struct({
  type: Schema.Literal("thinking"),
  thinking: Schema.String,
  signature: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })
}).annotations({ identifier: "AnthropicInputThinkingBlock" })

const OtherToolResultContent = otherThan(["text", "image"]).annotations({ identifier: "AnthropicOtherBlock" })

export const InputToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: Schema.optionalWith(
    stringOr(Schema.Union(InputTextBlock, InputImageBlock, OtherToolResultContent), "tool result blocks"),
    { exact: true }
  ),
  is_error: Schema.optionalWith(Schema.NullOr(Schema.Boolean), { exact: true })
}).annotations({ identifier: "AnthropicInputToolResultBlock" })

export const InputBlock = Schema.Union(
  InputTextBlock,
  InputImageBlock,
  InputThinkingBlock,
  RedactedThinkingBlock,
  ToolUseBlock,
  InputToolResultBlock,
  OtherBlock
)

const Role = Schema.Literal("user", "assistant", "system").annotations({
  message: (issue) => ({
    message: `Expected "user" | "assistant" | "system", actual ${describe(issue.actual)}`,
    override: true
  })
})

export const InputMessage = Schema.Struct({
  role: Role,
  content: stringOr(InputBlock, "content blocks")
}).annotations({ identifier: "AnthropicInputMessage" })

export const SystemTextBlock = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String,
  citations: Schema.optionalWith(
    Schema.Union(Schema.Null, Schema.Tuple()).annotations({
      message: () => ({ message: "a system prompt cannot carry citations", override: true })
    }),
    { exact: true }
  )
}).annotations({ identifier: "AnthropicSystemTextBlock" })

export const Request = Schema.Struct({
  system: Schema.optionalWith(
    Schema.NullOr(stringOr(SystemTextBlock, "text blocks")),
    { exact: true }
  ),
  messages: Schema.Array(InputMessage)
}).annotations({ identifier: "AnthropicRequest" })

// The keys of a request body (docs in AnthropicFormat.requestKeys)
export const requestKeys: RequestBody.Keys = {
  conversation: ["system", "messages"],
  parameters: [
    "model",
    "max_tokens",
    "betas",
    "cache_control",
    "container",
    "context_management",
    "diagnostics",
    "inference_geo",
    "mcp_servers",
    "metadata",
    "output_config",
    "output_format",
    "service_tier",
    "speed",
    "stop_sequences",
    "stream",
    "temperature",
    "thinking",
    "tool_choice",
    "tools",
    "top_k",
    "top_p",
    "user_profile_id",
    "workspace_id"
  ]
}

export const Input = Schema.Union(
  RequestBody.schema(Request.fields, requestKeys.parameters).annotations({ identifier: "AnthropicInputRequest" }),
  Schema.Array(InputMessage)
).annotations({ identifier: "AnthropicInput" })
