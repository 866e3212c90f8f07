/**
 * The Gemini wire shapes decoding reads, declared once (`Input`, `InputRequest`, `InputContents` and
 * their parts), and the keys of a request body. `GoogleFormat` re-exports each with its
 * documentation (what encoding writes is declared there, as types); the decoder compiles its guard
 * from them.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as Json from "../../Json.js"
import * as RequestBody from "../requestBody.js"

export const name = "google" as const

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

// Gemini speaks proto3 JSON: every field may be spelled in lowerCamelCase (`inlineData`, what the
// API returns and the JS SDK sends) or in the proto's snake_case (`inline_data`, what the reference
// SDK and the Python SDK send), and `null` means "not set" (a Python `model_dump()` writes every
// unset field as `null`). So each optional field appears here in both spellings and accepts `null`;
// which spelling was used, and whether both were, is checked after this structural pass. Unknown
// keys are ignored, so full request bodies decode. User data (`args`, `response`) is validated as
// JSON and never re-cased.
const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))

export const InputBlob = Schema.Struct({
  data: Schema.String,
  mime_type: optional(Schema.String),
  mimeType: optional(Schema.String)
}).annotations({ identifier: "Blob" })

export const InputFunctionCall = Schema.Struct({
  id: optional(Schema.String),
  name: Schema.String,
  args: optional(Json.JsonValue),
  // streaming control (Vertex AI, Gemini 3): a fragment of a call whose arguments are streamed in
  // parts, read only to be reported (a stream decoder assembles fragments into whole calls)
  partial_args: optional(Schema.Array(Schema.Unknown)),
  partialArgs: optional(Schema.Array(Schema.Unknown)),
  will_continue: optional(Schema.Boolean),
  willContinue: optional(Schema.Boolean)
}).annotations({ identifier: "FunctionCall" })

export const InputFunctionResponsePart = Schema.Struct({
  inline_data: optional(InputBlob),
  inlineData: optional(InputBlob),
  file_data: Schema.optional(Schema.Unknown),
  fileData: Schema.optional(Schema.Unknown)
}).annotations({ identifier: "FunctionResponsePart" })

export const InputFunctionResponse = Schema.Struct({
  id: optional(Schema.String),
  name: Schema.String,
  response: optional(Json.JsonObject),
  parts: optional(Schema.Array(InputFunctionResponsePart))
}).annotations({ identifier: "FunctionResponse" })

export const InputPart = Schema.Struct({
  text: optional(Schema.String),
  thought: optional(Schema.Boolean),
  thought_signature: optional(Schema.String),
  thoughtSignature: optional(Schema.String),
  inline_data: optional(InputBlob),
  inlineData: optional(InputBlob),
  function_call: optional(InputFunctionCall),
  functionCall: optional(InputFunctionCall),
  function_response: optional(InputFunctionResponse),
  functionResponse: optional(InputFunctionResponse),
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

// Gemini's API takes a repeated field given as a single object (Google's REST examples send
// `contents`, `parts` and `system_instruction.parts` so)
const repeated = <S extends Schema.Schema.Any>(item: S) => Schema.Union(Schema.Array(item), item)

export const InputContent = Schema.Struct({
  role: optional(Schema.Literal("user", "model", "function")),
  parts: optional(repeated(InputPart))
}).annotations({ identifier: "Content" })

export const InputContents = Schema.Array(InputContent).annotations({ identifier: "Contents" })

// a system instruction `Content`: Gemini ignores its role, so any role is read
const SystemContent = Schema.Struct({
  role: Schema.optional(Schema.Unknown),
  parts: optional(repeated(InputPart))
}).annotations({ identifier: "Content" })

export const InputSystemInstruction = Schema.Union(Schema.String, SystemContent)

// the SDKs' request `config`, read only for its system instruction
const Config = Schema.Struct({
  system_instruction: optional(InputSystemInstruction),
  systemInstruction: optional(InputSystemInstruction)
}).annotations({ identifier: "Config" })

export const InputRequest = Schema.Struct({
  contents: repeated(InputContent),
  system_instruction: optional(InputSystemInstruction),
  systemInstruction: optional(InputSystemInstruction),
  config: optional(Config)
}).annotations({ identifier: "Request" })

export const requestKeys: RequestBody.Keys = {
  // the REST `GenerateContentRequest` in either spelling, and the SDKs' `{model, contents, config}`
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
}

export const Input = Schema.Union(
  RequestBody.schema(InputRequest.fields, requestKeys.parameters).annotations({
    identifier: "GoogleInputRequest"
  }),
  InputContents
).annotations({ identifier: "GoogleInput" })
