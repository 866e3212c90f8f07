/**
 * Schemas of the Gemini `generateContent` request shape as `GoogleFormat.decode` reads it.
 *
 * Gemini speaks proto3 JSON: every field may be spelled in lowerCamelCase (`inlineData`, what the API
 * returns and the JS SDK sends) or in the proto's snake_case (`inline_data`, what the reference SDK
 * and the Python SDK send), and `null` means "not set" (a Python `model_dump()` writes every unset
 * field as `null`). So each optional field appears here in both spellings and accepts `null`; which
 * spelling was used, and whether both were, is checked after this structural pass. Unknown keys are
 * ignored, so full request bodies (`generationConfig`, `tools`, `safetySettings`, ...) decode.
 *
 * User data (`args`, `response`) is validated as JSON and never re-cased.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as Json from "../Json.js"

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))

/** `Blob`: base64 bytes with their MIME type. */
export const Blob = Schema.Struct({
  data: Schema.String,
  mime_type: optional(Schema.String),
  mimeType: optional(Schema.String)
}).annotations({ identifier: "Blob" })

/** `FunctionCall`: `args` is any JSON here; a non-object is reported as invalid tool arguments. */
export const FunctionCall = Schema.Struct({
  id: optional(Schema.String),
  name: Schema.String,
  args: optional(Json.JsonValue)
}).annotations({ identifier: "FunctionCall" })

/** One part of a multimodal function response (Gemini 3). */
export const FunctionResponsePart = Schema.Struct({
  inline_data: optional(Blob),
  inlineData: optional(Blob),
  file_data: Schema.optional(Schema.Unknown),
  fileData: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "FunctionResponsePart" })

/** `FunctionResponse`: `response` is a JSON object (a protobuf `Struct`). */
export const FunctionResponse = Schema.Struct({
  id: optional(Schema.String),
  name: Schema.String,
  response: optional(Json.JsonObject),
  parts: optional(Schema.Array(FunctionResponsePart))
}).annotations({ identifier: "FunctionResponse" })

/**
 * `Part`: a oneof of data fields plus the `thought` flag and `thought_signature`. The data fields
 * without a canonical form are kept as `unknown` so that decoding can name them.
 */
export const Part = Schema.Struct({
  text: optional(Schema.String),
  thought: optional(Schema.Boolean),
  thought_signature: optional(Schema.String),
  thoughtSignature: optional(Schema.String),
  inline_data: optional(Blob),
  inlineData: optional(Blob),
  function_call: optional(FunctionCall),
  functionCall: optional(FunctionCall),
  function_response: optional(FunctionResponse),
  functionResponse: optional(FunctionResponse),
  file_data: Schema.optional(Schema.Unknown),
  fileData: Schema.optional(Schema.Unknown),
  executable_code: Schema.optional(Schema.Unknown),
  executableCode: Schema.optional(Schema.Unknown),
  code_execution_result: Schema.optional(Schema.Unknown),
  codeExecutionResult: Schema.optional(Schema.Unknown),
  tool_call: Schema.optional(Schema.Unknown),
  toolCall: Schema.optional(Schema.Unknown),
  tool_response: Schema.optional(Schema.Unknown),
  toolResponse: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "Part" })

/** `Content`: a role (`user` when unset; `function` is the legacy role of function responses) and parts. */
export const Content = Schema.Struct({
  role: optional(Schema.Literal("user", "model", "function")),
  parts: optional(Schema.Array(Part))
}).annotations({ identifier: "Content" })

/** A system instruction `Content`: Gemini ignores its role, so any role is read. */
export const SystemContent = Schema.Struct({
  role: Schema.optional(Schema.Unknown),
  parts: optional(Schema.Array(Part))
}).annotations({ identifier: "Content" })

/** The system instruction: a plain string (as the reference SDK emits it) or a `Content`. */
export const SystemInstruction = Schema.Union(Schema.String, SystemContent)

/** The SDKs' request `config`, read only for its system instruction. */
export const Config = Schema.Struct({
  system_instruction: optional(SystemInstruction),
  systemInstruction: optional(SystemInstruction)
}).annotations({ identifier: "Config" })

/** A request body: what the reference emits, or a full REST / SDK request. */
export const Request = Schema.Struct({
  contents: Schema.Array(Content),
  system_instruction: optional(SystemInstruction),
  systemInstruction: optional(SystemInstruction),
  config: optional(Config)
}).annotations({ identifier: "Request" })

/**
 * The keys of a request body: where the conversation is, and the API's other request parameters
 * (REST `GenerateContentRequest` in either spelling, and the SDK's `{model, contents, config}`),
 * which decoding accepts and ignores (`config` is read only for its system instruction).
 */
export const requestKeys = {
  conversation: ["contents", "system_instruction", "systemInstruction", "config"],
  parameters: [
    "model",
    "tools",
    "tool_config",
    "toolConfig",
    "safety_settings",
    "safetySettings",
    "generation_config",
    "generationConfig",
    "cached_content",
    "cachedContent",
    "labels"
  ]
} as const

/** A bare `contents` list. */
export const Contents = Schema.Array(Content).annotations({ identifier: "Contents" })

/** Either transcript shape. */
export const Transcript = Schema.Union(Request, Contents)
