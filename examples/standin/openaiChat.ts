/**
 * A loopback stand-in for OpenAI Chat Completions (`POST /v1/chat/completions`), for running the
 * official `openai` SDK offline: `new OpenAI({ baseURL: `${standIn.url}/v1`, apiKey: "test" })`.
 *
 * It plays a two-step agent: while the last request message is not a `tool` message it calls the
 * first tool of the request's `tools` (its input from the script's `toolInput`), otherwise it answers with the
 * script's final text. `stream: true` gets the same answer as `chat.completion.chunk` events
 * (tool-call arguments split over several chunks, keyed by `index`, as the API sends them), ending
 * with a usage chunk when `stream_options.include_usage` is set and with `data: [DONE]`. Every
 * answer is typed with the SDK's own `ChatCompletion` / `ChatCompletionChunk`.
 */
import type OpenAI from "openai"
import * as Server from "./server.js"

/** What the stand-in answers. */
export interface Script {
  /** The input of the tool call, given the tool's name (default `{}`), sent as its `arguments` JSON. */
  readonly toolInput?: (toolName: string) => Record<string, unknown>
  /** The final answer, given the text of the last tool message (default: quotes it). */
  readonly answer?: (toolOutput: string) => string
  /** The model name the answers carry (default `stand-in-gpt`). */
  readonly model?: string
}

interface Body {
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

/** The completion the stand-in gives for a request body: a tool call, or the final answer. */
export const completion = (body: Body, index: number, script: Script = {}): OpenAI.ChatCompletion => {
  const messages = body.messages ?? []
  const last = messages[messages.length - 1]
  const model = script.model ?? "stand-in-gpt"
  const usage: OpenAI.CompletionUsage = {
    prompt_tokens: 20 + messages.length,
    completion_tokens: 9,
    total_tokens: 29 + messages.length,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 }
  }
  const tool = body.tools?.[0]
  const toolName = tool?.function?.name ?? tool?.name
  if (last?.role !== "tool" && toolName !== undefined) {
    return {
      id: `chatcmpl-standin-${index}`,
      object: "chat.completion",
      created: 1_700_000_000 + index,
      model,
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
            function: { name: toolName, arguments: JSON.stringify(script.toolInput?.(toolName) ?? {}) }
          }]
        }
      }],
      usage
    }
  }
  const output = textOf(last?.content)
  return {
    id: `chatcmpl-standin-${index}`,
    object: "chat.completion",
    created: 1_700_000_000 + index,
    model,
    choices: [{
      index: 0,
      finish_reason: "stop",
      logprobs: null,
      message: {
        role: "assistant",
        content: script.answer?.(output) ?? `The tool said: ${output}`,
        refusal: null,
        annotations: []
      }
    }],
    usage
  }
}

/** A completion as the stream of chunks the API sends for it. */
export const chunks = (
  answer: OpenAI.ChatCompletion,
  includeUsage: boolean
): ReadonlyArray<OpenAI.ChatCompletionChunk> => {
  const base = { id: answer.id, object: "chat.completion.chunk", created: answer.created, model: answer.model } as const
  const out: Array<OpenAI.ChatCompletionChunk> = []
  const usage = includeUsage ? { usage: null } : {}
  for (const choice of answer.choices) {
    const { index, message } = choice
    out.push({
      ...base,
      choices: [{ index, delta: { role: "assistant", content: "" }, finish_reason: null }],
      ...usage
    })
    const text = message.content ?? ""
    for (let i = 0; i < text.length; i += 8) {
      out.push({
        ...base,
        choices: [{ index, delta: { content: text.slice(i, i + 8) }, finish_reason: null }],
        ...usage
      })
    }
    for (const [k, call] of (message.tool_calls ?? []).entries()) {
      if (call.type !== "function") continue
      const args = call.function.arguments
      out.push({
        ...base,
        choices: [{
          index,
          delta: {
            tool_calls: [{
              index: k,
              id: call.id,
              type: "function",
              function: { name: call.function.name, arguments: "" }
            }]
          },
          finish_reason: null
        }],
        ...usage
      })
      for (let i = 0; i < args.length; i += 5) {
        out.push({
          ...base,
          choices: [{
            index,
            delta: { tool_calls: [{ index: k, function: { arguments: args.slice(i, i + 5) } }] },
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

/** The route answering `POST /v1/chat/completions` (and `/chat/completions`). */
export const route = (script: Script = {}): Server.Route => (request, index) => {
  if (request.method !== "POST" || !request.path.endsWith("/chat/completions")) {
    return {
      _tag: "json",
      status: 404,
      body: { error: { message: `no route ${request.path}`, type: "invalid_request_error" } }
    }
  }
  const body = (request.body ?? {}) as Body
  const answer = completion(body, index, script)
  if (body.stream !== true) return { _tag: "json", body: answer }
  return {
    _tag: "sse",
    events: [
      ...chunks(answer, body.stream_options?.include_usage === true).map((data) => ({ data })),
      { data: "[DONE]" }
    ]
  }
}

/** Start the stand-in on a free loopback port. */
export const start = (script: Script = {}): Promise<Server.StandIn> => Server.start(route(script))
