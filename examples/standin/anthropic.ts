/**
 * A loopback stand-in for the Anthropic Messages API (`POST /v1/messages`), for running the official
 * `@anthropic-ai/sdk` offline: `new Anthropic({ baseURL: standIn.url, apiKey: "test" })`.
 *
 * It plays a two-step agent: while the last request message carries no `tool_result` it thinks
 * (a signed `thinking` block), says so, and calls the first tool of the request's `tools`
 * (`stop_reason: "tool_use"`); otherwise it answers with the script's final text (`end_turn`).
 * `stream: true` gets the same message as `message_start`, `content_block_*`, `message_delta` and
 * `message_stop` events, with `ping`s between, the tool input split into `input_json_delta`s and the
 * signature in a `signature_delta`, as the API streams them. Every answer is typed with the SDK's
 * own `Message` / `MessageStreamEvent`.
 */
import type Anthropic from "@anthropic-ai/sdk"
import * as Server from "./server.js"

/** What the stand-in answers. */
export interface Script {
  /** The input of the tool call, given the tool's name (default `{}`), sent as its `input`. */
  readonly toolInput?: (toolName: string) => Record<string, unknown>
  /** The final answer, given the text of the last tool result (default: quotes it). */
  readonly answer?: (toolOutput: string) => string
  /** The model name the answers carry (default `claude-stand-in`). */
  readonly model?: string
}

interface Body {
  readonly stream?: boolean
  readonly messages?: ReadonlyArray<{ readonly role?: string; readonly content?: unknown }>
  readonly tools?: ReadonlyArray<{ readonly name?: string }>
}

interface ContentLike {
  readonly type?: string
  readonly text?: unknown
  readonly content?: unknown
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((p: ContentLike) => typeof p.text === "string" ? p.text : textOf(p.content)).join("")
    : ""

const toolResultText = (content: unknown): string | undefined => {
  if (!Array.isArray(content)) return undefined
  const results = content.filter((b: ContentLike) => b.type === "tool_result")
  return results.length === 0 ? undefined : results.map((b: ContentLike) => textOf(b.content)).join("\n")
}

/** The message the stand-in gives for a request body: thinking and a tool call, or the final answer. */
export const message = (body: Body, index: number, script: Script = {}): Anthropic.Message => {
  const messages = body.messages ?? []
  const last = messages[messages.length - 1]
  const output = last?.role === "user" ? toolResultText(last.content) : undefined
  const toolName = body.tools?.[0]?.name
  const usage: Anthropic.Usage = {
    input_tokens: 30 + messages.length,
    output_tokens: 12,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: "standard",
    speed: null
  }
  const base = {
    id: `msg_standin_${index}`,
    type: "message",
    role: "assistant",
    model: script.model ?? "claude-stand-in",
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_sequence: null,
    usage
  } as const
  if (output === undefined && toolName !== undefined) {
    return {
      ...base,
      content: [
        { type: "thinking", thinking: `The user needs ${toolName}.`, signature: `sig-standin-${index}` },
        { type: "text", text: `Let me call ${toolName}.`, citations: null },
        {
          type: "tool_use",
          id: `toolu_standin_${index}`,
          name: toolName,
          input: script.toolInput?.(toolName) ?? {},
          caller: { type: "direct" }
        }
      ],
      stop_reason: "tool_use"
    }
  }
  return {
    ...base,
    content: [{
      type: "text",
      text: script.answer?.(output ?? "") ?? `The tool said: ${output ?? ""}`,
      citations: null
    }],
    stop_reason: "end_turn"
  }
}

const split = (text: string, size: number): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}

/** A message as the events the API streams for it. */
export const events = (answer: Anthropic.Message): ReadonlyArray<Anthropic.MessageStreamEvent> => {
  const out: Array<Anthropic.MessageStreamEvent> = [{
    type: "message_start",
    message: {
      ...answer,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...answer.usage, output_tokens: 1 }
    }
  }]
  for (const [index, block] of answer.content.entries()) {
    switch (block.type) {
      case "text":
        out.push({ type: "content_block_start", index, content_block: { type: "text", text: "", citations: null } })
        for (const text of split(block.text, 6)) {
          out.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } })
        }
        break
      case "thinking":
        out.push({
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" }
        })
        for (const thinking of split(block.thinking, 6)) {
          out.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } })
        }
        out.push({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } })
        break
      case "tool_use":
        out.push({ type: "content_block_start", index, content_block: { ...block, input: {} } })
        for (const partial_json of split(JSON.stringify(block.input), 4)) {
          out.push({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } })
        }
        break
      default:
        out.push({ type: "content_block_start", index, content_block: block })
    }
    out.push({ type: "content_block_stop", index })
  }
  out.push({
    type: "message_delta",
    delta: {
      stop_reason: answer.stop_reason,
      stop_sequence: answer.stop_sequence,
      stop_details: answer.stop_details,
      container: answer.container
    },
    usage: {
      input_tokens: answer.usage.input_tokens,
      output_tokens: answer.usage.output_tokens,
      cache_creation_input_tokens: answer.usage.cache_creation_input_tokens,
      cache_read_input_tokens: answer.usage.cache_read_input_tokens,
      output_tokens_details: answer.usage.output_tokens_details,
      server_tool_use: answer.usage.server_tool_use
    }
  })
  out.push({ type: "message_stop" })
  return out
}

/** The route answering `POST /v1/messages`. */
export const route = (script: Script = {}): Server.Route => (request, index) => {
  if (request.method !== "POST" || request.path !== "/v1/messages") {
    return {
      _tag: "json",
      status: 404,
      body: { type: "error", error: { type: "not_found_error", message: `no route ${request.path}` } }
    }
  }
  const body = (request.body ?? {}) as Body
  const answer = message(body, index, script)
  if (body.stream !== true) return { _tag: "json", body: answer }
  const sse: Array<{ event: string; data: unknown }> = []
  for (const [k, data] of events(answer).entries()) {
    sse.push({ event: data.type, data })
    if (k === 0) sse.push({ event: "ping", data: { type: "ping" } })
  }
  return { _tag: "sse", events: sse }
}

/** Start the stand-in on a free loopback port. */
export const start = (script: Script = {}): Promise<Server.StandIn> => Server.start(route(script))
