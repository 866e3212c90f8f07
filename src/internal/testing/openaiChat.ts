/**
 * A loopback stand-in for OpenAI Chat Completions (`POST /v1/chat/completions`; OpenRouter speaks
 * the same), for running the `openai` SDK offline: `new OpenAI({ baseURL: `${standIn.url}/v1` })`.
 *
 * The scripted agent: while the last request message is not a `tool` message it calls the first
 * tool of the request's `tools`, otherwise it answers with the script's final text. `stream: true`
 * gets the same answer as `chat.completion.chunk` events (tool-call arguments split over several
 * chunks, keyed by `index`, as the API sends them), ending with a usage chunk when
 * `stream_options.include_usage` is set and with `data: [DONE]`. The shapes are declared here
 * without the SDK; test/Testing.test.ts checks that the SDK's `ChatCompletion` and
 * `ChatCompletionChunk` types accept them.
 *
 * @internal
 */
import type * as Testing from "../../Testing.js"
import type * as Api from "./api.js"
import { scriptedRoute } from "./api.js"
import * as Script from "./script.js"

/** Token counts, as the API reports them. */
export interface Usage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  prompt_tokens_details: { cached_tokens: number }
  completion_tokens_details: { reasoning_tokens: number }
}

/** A function tool call of an answer. */
export interface ToolCall {
  id: string
  type: "function"
  function: { name: string; arguments: string }
}

/** A whole answer (`ChatCompletion`). */
export interface Completion {
  id: string
  object: "chat.completion"
  created: number
  model: string
  choices: Array<{
    index: number
    finish_reason: "stop" | "tool_calls"
    logprobs: null
    message: {
      role: "assistant"
      content: string | null
      refusal: null
      annotations: Array<never>
      tool_calls?: Array<ToolCall>
    }
  }>
  usage: Usage
}

/** What {@link chunks} reads of a completion: the stand-in's own, or one the API sent. */
export interface CompletionLike {
  readonly id: string
  readonly created: number
  readonly model: string
  readonly choices: ReadonlyArray<{
    readonly index: number
    readonly finish_reason: string
    readonly message: {
      readonly content: string | null
      readonly tool_calls?:
        | ReadonlyArray<{
          readonly type: string
          readonly id: string
          readonly function?: { readonly name: string; readonly arguments: string }
        }>
        | undefined
    }
  }>
  readonly usage?: unknown
}

/** A streamed piece of an answer (`ChatCompletionChunk`). */
export interface Chunk {
  id: string
  object: "chat.completion.chunk"
  created: number
  model: string
  choices: Array<{
    index: number
    delta: {
      role?: "assistant"
      content?: string
      tool_calls?: Array<{
        index: number
        id?: string
        type?: "function"
        function: { name?: string; arguments: string }
      }>
    }
    finish_reason: string | null
  }>
  usage?: unknown
}

/** The parts of a request body the stand-in reads. */
export interface Body {
  readonly model?: string
  readonly stream?: boolean
  readonly stream_options?: { readonly include_usage?: boolean }
  readonly messages?: ReadonlyArray<{ readonly role?: string; readonly content?: unknown }>
  readonly tools?: ReadonlyArray<{ readonly function?: { readonly name?: string }; readonly name?: string }>
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((p: { text?: unknown }) => typeof p.text === "string" ? p.text : "").join("")
    : ""

/** The completion the scripted agent gives for a request body: a tool call, or the final answer. */
export const completion = (body: Body, index: number, script: Script.Script = {}): Completion => {
  const messages = body.messages ?? []
  const last = messages[messages.length - 1]
  const usage: Usage = {
    prompt_tokens: 20 + messages.length,
    completion_tokens: 9,
    total_tokens: 29 + messages.length,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 }
  }
  const base = {
    id: `chatcmpl-standin-${index}`,
    object: "chat.completion",
    created: 1_700_000_000 + index,
    model: script.model ?? "stand-in-gpt",
    usage
  } as const
  const tool = body.tools?.[0]
  const toolName = tool?.function?.name ?? tool?.name
  if (last?.role !== "tool" && toolName !== undefined) {
    return {
      ...base,
      choices: [{
        index: 0,
        finish_reason: "tool_calls",
        logprobs: null,
        message: {
          role: "assistant",
          content: null,
          refusal: null,
          annotations: [],
          tool_calls: [{
            id: `call_standin_${index}`,
            type: "function",
            function: { name: toolName, arguments: JSON.stringify(Script.toolInput(script, toolName)) }
          }]
        }
      }]
    }
  }
  return {
    ...base,
    choices: [{
      index: 0,
      finish_reason: "stop",
      logprobs: null,
      message: {
        role: "assistant",
        content: Script.finalText(script, textOf(last?.content)),
        refusal: null,
        annotations: []
      }
    }]
  }
}

/**
 * A completion as the stream of chunks the API sends for it (function tool calls only), with a
 * last usage chunk when `includeUsage` is set.
 */
export const chunks = (answer: CompletionLike, includeUsage: boolean): ReadonlyArray<Chunk> => {
  const base = { id: answer.id, object: "chat.completion.chunk", created: answer.created, model: answer.model } as const
  const out: Array<Chunk> = []
  const usage = includeUsage ? { usage: null } : {}
  for (const choice of answer.choices) {
    const { index, message } = choice
    out.push({
      ...base,
      choices: [{ index, delta: { role: "assistant", content: "" }, finish_reason: null }],
      ...usage
    })
    for (const content of Script.split(message.content ?? "", 8)) {
      out.push({ ...base, choices: [{ index, delta: { content }, finish_reason: null }], ...usage })
    }
    for (const [k, call] of (message.tool_calls ?? []).entries()) {
      if (call.type !== "function" || call.function === undefined) continue
      const first = {
        index: k,
        id: call.id,
        type: "function",
        function: { name: call.function.name, arguments: "" }
      } as const
      out.push({ ...base, choices: [{ index, delta: { tool_calls: [first] }, finish_reason: null }], ...usage })
      for (const piece of Script.split(call.function.arguments, 5)) {
        out.push({
          ...base,
          choices: [{
            index,
            delta: { tool_calls: [{ index: k, function: { arguments: piece } }] },
            finish_reason: null
          }],
          ...usage
        })
      }
    }
    out.push({ ...base, choices: [{ index, delta: {}, finish_reason: choice.finish_reason }], ...usage })
  }
  if (includeUsage && answer.usage !== undefined) out.push({ ...base, choices: [], usage: answer.usage })
  return out
}

const bodyOf = (request: Testing.Request): Body => (Script.isRecord(request.body) ? request.body : {}) as Body

/** Chat Completions, as its stand-ins speak it. */
export const api: Api.Api = {
  matches: (request) => request.method === "POST" && request.path.endsWith("/chat/completions"),
  streaming: (request) => bodyOf(request).stream === true,
  stream: (events) => ({ _tag: "sse", events: [...events.map((data) => ({ data })), { data: "[DONE]" }] }),
  error: (status, message) => ({
    _tag: "json",
    status,
    body: {
      error: { message, type: status === 404 ? "not_found_error" : "invalid_request_error", param: null, code: null }
    }
  }),
  scripted: (script) =>
    scriptedRoute(api, (request, index) => {
      const body = bodyOf(request)
      const answer = completion(body, index, script)
      return body.stream === true
        ? api.stream(chunks(answer, body.stream_options?.include_usage === true))
        : { _tag: "json", body: answer }
    })
}
