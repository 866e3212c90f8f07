/**
 * A loopback stand-in for the OpenAI Responses API (`POST /v1/responses`), for the `openai` SDK:
 * `new OpenAI({ baseURL: standIn.url + "/v1", apiKey: "test" })`, and for `@effect/ai-openai` and
 * the AI SDK's `openai(...)`, which call this API.
 *
 * The scripted agent: when the last input item is a function call output, it answers with a
 * message with the script's final text; otherwise, when the request offers tools, it reasons (a
 * reasoning item with a summary and encrypted content, as `store: false` requests get) and calls the
 * first tool; otherwise it says hello. With `stream: true` it sends the events the API sends
 * (`response.created`, `response.output_item.added`, the deltas, `response.output_item.done`,
 * `response.completed`), each with its `sequence_number`.
 *
 * Like the API, it answers 400 to a request that cannot be right: tools not in the Responses shape
 * (the Chat Completions `{type, function: {...}}` shape has no top-level `name`), a function call
 * output with no function call before it, a reasoning item without its id, an image in an
 * assistant message. The shapes are declared here without the SDK; test/Testing.test.ts checks that
 * the SDK's `Response` type accepts them.
 *
 * @internal
 */
import type * as Testing from "../../Testing.js"
import type * as Api from "./api.js"
import { scriptedRoute } from "./api.js"
import * as Script from "./script.js"

/** An output item of the scripted agent's answers. */
export type OutputItem =
  | {
    type: "message"
    id: string
    role: "assistant"
    status: "completed"
    phase?: "final_answer"
    content: Array<{ type: "output_text"; text: string; annotations: Array<never> }>
  }
  | {
    type: "reasoning"
    id: string
    summary: Array<{ type: "summary_text"; text: string }>
    encrypted_content: string
  }
  | { type: "function_call"; id: string; call_id: string; name: string; arguments: string; status: "completed" }

/** A whole answer (`Response`). */
export interface Response {
  id: string
  object: "response"
  created_at: number
  model: string
  status: "completed"
  output: Array<OutputItem>
  output_text: string
  error: null
  incomplete_details: null
  instructions: null
  metadata: null
  parallel_tool_calls: boolean
  temperature: null
  tool_choice: "auto"
  tools: Array<never>
  top_p: null
  usage: {
    input_tokens: number
    input_tokens_details: { cached_tokens: number; cache_write_tokens: number }
    output_tokens: number
    output_tokens_details: { reasoning_tokens: number }
    total_tokens: number
  }
}

/** What {@link events} reads of an answer: the stand-in's own, or one the API sent. */
export interface ResponseLike {
  readonly output: ReadonlyArray<{ readonly type: string }>
}

/** A streamed event (`ResponseStreamEvent`), as JSON. */
export type StreamEvent = { readonly type: string; readonly sequence_number: number; readonly [key: string]: unknown }

type Json = Script.Json

const isRecord = Script.isRecord

const badRequest = (message: string, param: string | null): Testing.Answer => ({
  _tag: "json",
  status: 400,
  body: { error: { message, type: "invalid_request_error", param, code: null } }
})

/** The 400 the API would give this request, if any. */
const check = (body: Json): Testing.Answer | undefined => {
  const tools = Array.isArray(body["tools"]) ? body["tools"] : []
  for (const [i, tool] of tools.entries()) {
    if (!isRecord(tool) || tool["type"] !== "function" || typeof tool["name"] !== "string") {
      return badRequest(`Missing required parameter: 'tools[${i}].name'.`, `tools[${i}].name`)
    }
  }
  const input = typeof body["input"] === "string" ? [] : body["input"]
  if (!Array.isArray(input)) return badRequest("Invalid type for 'input'.", "input")
  const calls = new Set<string>()
  for (const [i, item] of input.entries()) {
    if (!isRecord(item)) return badRequest(`Invalid type for 'input[${i}]'.`, `input[${i}]`)
    if (item["type"] === "function_call") calls.add(String(item["call_id"]))
    if (item["type"] === "function_call_output" && !calls.has(String(item["call_id"]))) {
      return badRequest(`No tool call found for function call output with call_id ${String(item["call_id"])}.`, `input`)
    }
    if (item["type"] === "reasoning" && typeof item["id"] !== "string") {
      return badRequest(`Missing required parameter: 'input[${i}].id'.`, `input[${i}].id`)
    }
    if (item["role"] === "assistant" && Array.isArray(item["content"])) {
      for (const [k, part] of item["content"].entries()) {
        if (isRecord(part) && part["type"] !== "output_text" && part["type"] !== "refusal") {
          return badRequest(
            `Invalid value: '${String(part["type"])}'. Supported values are: 'output_text' and 'refusal'.`,
            `input[${i}].content[${k}]`
          )
        }
      }
    }
  }
  return undefined
}

const outputText = (item: Json): string => {
  const output = item["output"]
  if (typeof output === "string") return output
  return Array.isArray(output)
    ? output.map((p) => isRecord(p) && typeof p["text"] === "string" ? p["text"] : "").join("")
    : ""
}

/** The answer the scripted agent gives for a request body. */
export const answer = (body: Json, index: number, script: Script.Script = {}): Response => {
  const input = Array.isArray(body["input"]) ? body["input"].filter(isRecord) : []
  const last = input[input.length - 1]
  const tools = (Array.isArray(body["tools"]) ? body["tools"] : []).filter(isRecord)
  const output: Array<OutputItem> = []
  if (last?.["type"] === "function_call_output") {
    output.push({
      type: "message",
      id: `msg_${index}`,
      role: "assistant",
      status: "completed",
      phase: "final_answer",
      content: [{ type: "output_text", text: Script.finalText(script, outputText(last)), annotations: [] }]
    })
  } else if (tools.length > 0) {
    const name = String(tools[0]!["name"])
    output.push({
      type: "reasoning",
      id: `rs_${index}`,
      summary: [{ type: "summary_text", text: `I should call ${name}.` }],
      encrypted_content: `enc_${index}`
    }, {
      type: "function_call",
      id: `fc_${index}`,
      call_id: `call_${index}`,
      name,
      arguments: JSON.stringify(Script.toolInput(script, name)),
      status: "completed"
    })
  } else {
    output.push({
      type: "message",
      id: `msg_${index}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hello from the stand-in.", annotations: [] }]
    })
  }
  const text = output.flatMap((item) => item.type === "message" ? item.content.map((p) => p.text) : []).join("")
  return {
    id: `resp_${index}`,
    object: "response",
    created_at: 1_800_000_000 + index,
    model: script.model ?? String(body["model"] ?? "stand-in"),
    status: "completed",
    output,
    output_text: text,
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: null,
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    usage: {
      input_tokens: 10 * input.length,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 5 * output.length,
      output_tokens_details: { reasoning_tokens: output.some((o) => o.type === "reasoning") ? 3 : 0 },
      total_tokens: 10 * input.length + 5 * output.length
    }
  }
}

const strings = (value: unknown, key: string): Array<string> =>
  Array.isArray(value) ? value.map((p) => isRecord(p) && typeof p[key] === "string" ? p[key] : "") : []

/**
 * The events of a streamed answer: message text in pieces, reasoning summaries and function call
 * arguments as deltas, any other item whole in its `response.output_item.added` and `.done`.
 */
export const events = (response: ResponseLike): Array<StreamEvent> => {
  let sequence_number = 0
  const out: Array<StreamEvent> = []
  const emit = (event: { readonly type: string; readonly [key: string]: unknown }) =>
    out.push({ ...event, sequence_number: sequence_number++ })
  emit({ type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } })
  for (const [output_index, item] of response.output.entries()) {
    const fields = item as Json
    const item_id = fields["id"]
    if (item.type === "message") {
      emit({ type: "response.output_item.added", output_index, item: { ...item, status: "in_progress", content: [] } })
      const content = Array.isArray(fields["content"]) ? fields["content"] : []
      for (const [content_index, part] of content.entries()) {
        if (!isRecord(part) || part["type"] !== "output_text" || typeof part["text"] !== "string") continue
        for (const delta of part["text"].match(/.{1,8}/gs) ?? []) {
          emit({ type: "response.output_text.delta", item_id, output_index, content_index, delta, logprobs: [] })
        }
        emit({
          type: "response.output_text.done",
          item_id,
          output_index,
          content_index,
          text: part["text"],
          logprobs: []
        })
      }
    } else if (item.type === "reasoning") {
      emit({
        type: "response.output_item.added",
        output_index,
        item: { ...item, summary: [], encrypted_content: null }
      })
      for (const [summary_index, delta] of strings(fields["summary"], "text").entries()) {
        emit({ type: "response.reasoning_summary_text.delta", item_id, output_index, summary_index, delta })
      }
    } else if (item.type === "function_call") {
      emit({
        type: "response.output_item.added",
        output_index,
        item: { ...item, arguments: "", status: "in_progress" }
      })
      const args = typeof fields["arguments"] === "string" ? fields["arguments"] : ""
      emit({ type: "response.function_call_arguments.delta", item_id, output_index, delta: args })
      emit({
        type: "response.function_call_arguments.done",
        item_id,
        output_index,
        arguments: args,
        name: fields["name"]
      })
    } else {
      emit({ type: "response.output_item.added", output_index, item })
    }
    emit({ type: "response.output_item.done", output_index, item })
  }
  emit({ type: "response.completed", response })
  return out
}

const bodyOf = (request: Testing.Request): Json => (isRecord(request.body) ? request.body : {})

/** The Responses API, as its stand-ins speak it. */
export const api: Api.Api = {
  matches: (request) => request.method === "POST" && request.path === "/v1/responses",
  streaming: (request) => bodyOf(request)["stream"] === true,
  // each event named by its type, as the API sends them
  stream: (events) => ({
    _tag: "sse",
    events: events.map((data) => {
      const type = isRecord(data) ? data["type"] : undefined
      return { event: typeof type === "string" ? type : undefined, data }
    })
  }),
  error: (status, message) => ({
    _tag: "json",
    status,
    body: { error: { message, type: "invalid_request_error", param: null, code: null } }
  }),
  scripted: (script) =>
    scriptedRoute(api, (request, index) => {
      const body = bodyOf(request)
      const rejected = check(body)
      if (rejected !== undefined) return rejected
      const response = answer(body, index, script)
      return body["stream"] === true ? api.stream(events(response)) : { _tag: "json", body: response }
    })
}
