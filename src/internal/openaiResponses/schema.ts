/**
 * The Responses API wire shapes, declared once: what encoding writes (`Wire`, its items and parts),
 * the metadata a block keeps of its item (`ItemDetail` under `detail.openai`), what decoding reads
 * (`Input`, `InputItem` and their parts) and the keys of a request body. `OpenAiResponsesFormat`
 * re-exports each with its documentation; the decoder compiles its guard from them.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import * as Json from "../../Json.js"
import * as RequestBody from "../requestBody.js"

export const name = "openai-responses" as const

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

// -----------------------------------------------------------------------------
// wire: what encode produces
// -----------------------------------------------------------------------------

export const InputText = Schema.Struct({
  type: Schema.tag("input_text"),
  text: Schema.String
}).annotations({ identifier: "ResponsesInputText" })

export const InputImage = Schema.Struct({
  type: Schema.tag("input_image"),
  image_url: Schema.String,
  detail: Schema.Literal("auto")
}).annotations({ identifier: "ResponsesInputImage" })

export const InputContent = Schema.Union(InputText, InputImage).annotations({ identifier: "ResponsesInputContent" })

export const Content = Schema.Union(Schema.String, Schema.Array(InputContent)).annotations({
  identifier: "ResponsesContent"
})

export const Phase = Schema.Literal("commentary", "final_answer")

export const InputMessage = Schema.Struct({
  type: Schema.tag("message"),
  role: Schema.Literal("system", "developer", "user"),
  content: Content
}).annotations({ identifier: "ResponsesInputMessage" })

export const AssistantMessage = Schema.Struct({
  type: Schema.tag("message"),
  role: Schema.Literal("assistant"),
  content: Schema.String,
  phase: optional(Phase)
}).annotations({ identifier: "ResponsesAssistantMessage" })

export const OutputText = Schema.Struct({
  type: Schema.tag("output_text"),
  text: Schema.String,
  annotations: Schema.Tuple()
}).annotations({ identifier: "ResponsesOutputText" })

export const OutputRefusal = Schema.Struct({
  type: Schema.tag("refusal"),
  refusal: Schema.String
}).annotations({ identifier: "ResponsesOutputRefusal" })

/** The `status` of an output item. */
export const ItemStatus = Schema.Literal("in_progress", "completed", "incomplete")

export const OutputMessage = Schema.Struct({
  type: Schema.tag("message"),
  id: Schema.String,
  role: Schema.Literal("assistant"),
  status: ItemStatus,
  content: Schema.Array(Schema.Union(OutputText, OutputRefusal)),
  phase: optional(Phase)
}).annotations({ identifier: "ResponsesOutputMessage" })

export const SummaryText = Schema.Struct({
  type: Schema.tag("summary_text"),
  text: Schema.String
}).annotations({ identifier: "ResponsesSummaryText" })

export const ReasoningText = Schema.Struct({
  type: Schema.tag("reasoning_text"),
  text: Schema.String
}).annotations({ identifier: "ResponsesReasoningText" })

export const Reasoning = Schema.Struct({
  type: Schema.tag("reasoning"),
  id: Schema.String,
  summary: Schema.Array(SummaryText),
  content: optional(Schema.Array(ReasoningText)),
  encrypted_content: optional(Schema.String),
  status: optional(ItemStatus)
}).annotations({ identifier: "ResponsesReasoning" })

/** Who made a function call: the model (`direct`), or a program it ran (programmatic tool calling). */
export const Caller = Schema.Union(
  Schema.Struct({ type: Schema.Literal("direct") }),
  Schema.Struct({ type: Schema.Literal("program"), caller_id: Schema.String })
).annotations({ identifier: "ResponsesCaller" })

export const FunctionCall = Schema.Struct({
  type: Schema.tag("function_call"),
  call_id: Schema.String,
  name: Schema.String,
  arguments: Schema.String,
  id: optional(Schema.String),
  status: optional(ItemStatus),
  caller: optional(Caller),
  namespace: optional(Schema.String)
}).annotations({ identifier: "ResponsesFunctionCall" })

export const FunctionCallOutput = Schema.Struct({
  type: Schema.tag("function_call_output"),
  call_id: Schema.String,
  output: Content
}).annotations({ identifier: "ResponsesFunctionCallOutput" })

export const Item = Schema.Union(
  InputMessage,
  AssistantMessage,
  OutputMessage,
  Reasoning,
  FunctionCall,
  FunctionCallOutput
).annotations({ identifier: "ResponsesItem" })

export const Wire = Schema.Array(Item).annotations({ identifier: "ResponsesInput" })

// -----------------------------------------------------------------------------
// the provider metadata blocks carry
// -----------------------------------------------------------------------------

export const ItemDetail = Schema.Struct({
  id: optional(Schema.String),
  phase: optional(Phase),
  part: optional(Schema.Literal("refusal", "reasoning_text")),
  annotations: optional(Schema.Array(Json.JsonObject)),
  logprobs: optional(Schema.Array(Json.JsonValue)),
  item: optional(Json.JsonObject)
}).annotations({ identifier: "ResponsesItemDetail" })

export const detailKey = "openai" as const

// -----------------------------------------------------------------------------
// input: what decode accepts
// -----------------------------------------------------------------------------

const Other = (known: ReadonlyArray<string>, identifier: string) => {
  const set: ReadonlySet<string> = new Set(known)
  return Schema.Struct({
    type: Schema.String.pipe(
      Schema.filter((type) => !set.has(type), { message: () => "an entry of a known type must match its schema" }),
      Schema.brand("ResponsesOtherType")
    )
  }).annotations({ identifier })
}

export const InputImagePart = Schema.Struct({
  type: Schema.Literal("input_image"),
  image_url: optional(Schema.NullOr(Schema.String)),
  file_id: optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "ResponsesInputImagePart" })

export const InputPart = Schema.Union(
  Schema.Struct({ type: Schema.Literal("input_text"), text: Schema.String }),
  Schema.Struct({ type: Schema.Literal("output_text"), text: Schema.String }),
  InputImagePart,
  Schema.Struct({ type: Schema.Literal("refusal"), refusal: Schema.String }),
  Other(["input_text", "output_text", "input_image", "refusal"], "ResponsesOtherPart")
).annotations({ identifier: "ResponsesInputPart" })

export const InputMessageItem = Schema.Struct({
  type: optional(Schema.Literal("message")),
  role: Schema.Literal("system", "developer", "user", "assistant"),
  content: Schema.Union(Schema.String, Schema.Array(InputPart)),
  id: optional(Schema.NullOr(Schema.String)),
  phase: optional(Schema.NullOr(Phase))
}).annotations({ identifier: "ResponsesInputMessageItem" })

export const InputReasoningItem = Schema.Struct({
  type: Schema.Literal("reasoning"),
  id: optional(Schema.NullOr(Schema.String)),
  summary: Schema.Array(Schema.Struct({ type: Schema.Literal("summary_text"), text: Schema.String })),
  content: optional(
    Schema.NullOr(Schema.Array(Schema.Struct({ type: Schema.Literal("reasoning_text"), text: Schema.String })))
  ),
  encrypted_content: optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "ResponsesInputReasoningItem" })

export const InputFunctionCallItem = Schema.Struct({
  type: Schema.Literal("function_call"),
  call_id: Schema.String,
  name: Schema.String,
  arguments: Schema.String,
  id: optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "ResponsesInputFunctionCallItem" })

export const InputFunctionCallOutputItem = Schema.Struct({
  type: Schema.Literal("function_call_output"),
  call_id: Schema.String,
  output: Schema.Union(Schema.String, Schema.Array(InputPart))
}).annotations({ identifier: "ResponsesInputFunctionCallOutputItem" })

export const InputOtherItem = Other(
  ["message", "reasoning", "function_call", "function_call_output"],
  "ResponsesInputOtherItem"
)

export const InputItem = Schema.Union(
  InputMessageItem,
  InputReasoningItem,
  InputFunctionCallItem,
  InputFunctionCallOutputItem,
  InputOtherItem
).annotations({ identifier: "ResponsesInputItem" })

export const requestKeys: RequestBody.Keys = {
  conversation: ["input", "instructions"],
  // `ResponseCreateParams` of the `openai` SDK 6.49
  parameters: [
    "model",
    "background",
    "context_management",
    "conversation",
    "include",
    "max_output_tokens",
    "max_tool_calls",
    "metadata",
    "moderation",
    "parallel_tool_calls",
    "previous_response_id",
    "prompt",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning",
    "safety_identifier",
    "service_tier",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "truncation",
    "user"
  ]
}

export const Input = Schema.Union(
  RequestBody.schema({
    input: Schema.Union(Schema.String, Schema.Array(InputItem)),
    instructions: Schema.optional(Schema.NullOr(Schema.String))
  }, requestKeys.parameters).annotations({ identifier: "ResponsesInputRequest" }),
  Schema.Array(InputItem)
).annotations({ identifier: "OpenAiResponsesInput" })
