/**
 * A loopback stand-in for the OpenAI Responses API (`POST /v1/responses`), for the official `openai`
 * client: `new OpenAI({ baseURL: standIn.url + "/v1", apiKey: "test" })`.
 *
 * It plays a scripted model: when the last input item is a function call output, it answers with a
 * message quoting that output; otherwise, when the request offers tools, it reasons (a reasoning
 * item with a summary and encrypted content, as `store: false` requests get) and calls the first
 * tool with `toolInput`; otherwise it says hello. With `stream: true` it sends the events the API
 * sends (`response.created`, `response.output_item.added`, the deltas, `response.output_item.done`,
 * `response.completed`), each with its `sequence_number`.
 *
 * Like the API, it answers 400 to a request that cannot be right: tools not in the Responses shape
 * (the Chat Completions `{type, function: {...}}` shape has no top-level `name`), a function call
 * output with no function call before it, a reasoning item without its id, an image in an
 * assistant message.
 */
import type * as OpenAi from "openai/resources/responses/responses"
import type * as StandIn from "./server.js"
import { start as startServer } from "./server.js"

/** What the scripted model does. */
export interface Script {
  /** The input of the tool call, given the tool's name (default `{}`), sent as its `arguments` JSON. */
  readonly toolInput?: ((toolName: string) => Record<string, unknown>) | undefined
  /** The model name it reports. Default the request's. */
  readonly model?: string | undefined
}

type Json = { readonly [key: string]: unknown }

const isRecord = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const badRequest = (message: string, param: string | null): StandIn.Answer => ({
  _tag: "json",
  status: 400,
  body: { error: { message, type: "invalid_request_error", param, code: null } }
})

/** The 400 the API would give this request, if any. */
const check = (body: Json): StandIn.Answer | undefined => {
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
      return badRequest(
        `No tool call found for function call output with call_id ${String(item["call_id"])}.`,
        `input`
      )
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

/** The answer the scripted model gives, as the SDK types it. */
export const answer = (body: Json, index: number, script: Script = {}): OpenAi.Response => {
  const input = Array.isArray(body["input"]) ? body["input"].filter(isRecord) : []
  const last = input[input.length - 1]
  const tools = (Array.isArray(body["tools"]) ? body["tools"] : []).filter(isRecord)
  const output: Array<OpenAi.ResponseOutputItem> = []
  if (last?.["type"] === "function_call_output") {
    output.push({
      type: "message",
      id: `msg_${index}`,
      role: "assistant",
      status: "completed",
      phase: "final_answer",
      content: [{ type: "output_text", text: `The tool said: ${outputText(last)}`, annotations: [] }]
    })
  } else if (tools.length > 0) {
    output.push({
      type: "reasoning",
      id: `rs_${index}`,
      summary: [{ type: "summary_text", text: `I should call ${String(tools[0]!["name"])}.` }],
      encrypted_content: `enc_${index}`
    }, {
      type: "function_call",
      id: `fc_${index}`,
      call_id: `call_${index}`,
      name: String(tools[0]!["name"]),
      arguments: JSON.stringify(script.toolInput?.(String(tools[0]!["name"])) ?? {}),
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
  const text = output.flatMap((item) =>
    item.type === "message" ? item.content.flatMap((p) => p.type === "output_text" ? [p.text] : []) : []
  ).join("")
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

/** The events of a streamed answer, as the SDK types them. */
export const events = (response: OpenAi.Response): Array<OpenAi.ResponseStreamEvent> => {
  let sequence_number = 0
  const out: Array<OpenAi.ResponseStreamEvent> = []
  const emit = (event: Record<string, unknown>) =>
    out.push({ ...event, sequence_number: sequence_number++ } as unknown as OpenAi.ResponseStreamEvent)
  emit({ type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } })
  for (const [output_index, item] of response.output.entries()) {
    if (item.type === "message") {
      emit({ type: "response.output_item.added", output_index, item: { ...item, status: "in_progress", content: [] } })
      for (const [content_index, part] of item.content.entries()) {
        if (part.type !== "output_text") continue
        for (const delta of part.text.match(/.{1,8}/gs) ?? []) {
          emit({
            type: "response.output_text.delta",
            item_id: item.id,
            output_index,
            content_index,
            delta,
            logprobs: []
          })
        }
        emit({
          type: "response.output_text.done",
          item_id: item.id,
          output_index,
          content_index,
          text: part.text,
          logprobs: []
        })
      }
    } else if (item.type === "reasoning") {
      emit({
        type: "response.output_item.added",
        output_index,
        item: { ...item, summary: [], encrypted_content: null }
      })
      for (const [summary_index, part] of item.summary.entries()) {
        emit({
          type: "response.reasoning_summary_text.delta",
          item_id: item.id,
          output_index,
          summary_index,
          delta: part.text
        })
      }
    } else if (item.type === "function_call") {
      emit({
        type: "response.output_item.added",
        output_index,
        item: { ...item, arguments: "", status: "in_progress" }
      })
      emit({ type: "response.function_call_arguments.delta", item_id: item.id, output_index, delta: item.arguments })
      emit({
        type: "response.function_call_arguments.done",
        item_id: item.id,
        output_index,
        arguments: item.arguments,
        name: item.name
      })
    }
    emit({ type: "response.output_item.done", output_index, item })
  }
  emit({ type: "response.completed", response })
  return out
}

/** The route: `POST /v1/responses`, JSON or a server-sent event stream as `stream` says. */
export const route = (script: Script = {}): StandIn.Route => (request, index) => {
  if (request.method !== "POST" || request.path !== "/v1/responses" || !isRecord(request.body)) {
    return { _tag: "json", status: 404, body: { error: { message: `no route ${request.method} ${request.path}` } } }
  }
  const rejected = check(request.body)
  if (rejected !== undefined) return rejected
  const response = answer(request.body, index, script)
  return request.body["stream"] === true
    ? { _tag: "sse", events: events(response).map((data) => ({ event: data.type, data })) }
    : { _tag: "json", body: response }
}

/** Start the stand-in on a free loopback port. */
export const start = (script?: Script): Promise<StandIn.StandIn> => startServer(route(script))
