/**
 * A loopback stand-in for the Anthropic Messages API (`POST /v1/messages`), for running
 * `@anthropic-ai/sdk` offline: `new Anthropic({ baseURL: standIn.url, apiKey: "test" })`.
 *
 * The scripted agent: while the last request message carries no `tool_result` it thinks (a signed
 * `thinking` block), says so, and calls the first tool of the request's `tools`
 * (`stop_reason: "tool_use"`); otherwise it answers with the script's final text (`end_turn`).
 * `stream: true` gets the same message as `message_start`, `content_block_*`, `message_delta` and
 * `message_stop` events, with a `ping` after the first, the tool input split into
 * `input_json_delta`s and the signature in a `signature_delta`, as the API streams them. The shapes
 * are declared here without the SDK; test/Testing.test.ts checks that the SDK's `Message` type
 * accepts them.
 *
 * @internal
 */
import type * as Testing from "../../Testing.js"
import type * as Api from "./api.js"
import { scriptedRoute } from "./api.js"
import * as Script from "./script.js"

/** Token counts, as the API reports them. */
export interface Usage {
  input_tokens: number
  output_tokens: number
  cache_creation_input_tokens: number
  cache_read_input_tokens: number
  cache_creation: null
  inference_geo: null
  output_tokens_details: null
  server_tool_use: null
  service_tier: "standard"
  speed: null
}

/** A content block of the scripted agent's answers. */
export type ContentBlock =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string; citations: null }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown>; caller: { type: "direct" } }

/** A whole answer (`Message`). */
export interface Message {
  id: string
  type: "message"
  role: "assistant"
  model: string
  container: null
  diagnostics: null
  stop_details: null
  stop_sequence: null
  content: Array<ContentBlock>
  stop_reason: "tool_use" | "end_turn"
  usage: Usage
}

/** What {@link events} reads of a message: the stand-in's own, or one the API sent. */
export interface MessageLike {
  readonly content: ReadonlyArray<{ readonly type: string }>
  readonly stop_reason: string | null
  readonly stop_sequence: string | null
  readonly stop_details?: unknown
  readonly container?: unknown
  readonly usage: {
    readonly input_tokens: number
    readonly output_tokens: number
    readonly cache_creation_input_tokens?: number | null
    readonly cache_read_input_tokens?: number | null
    readonly output_tokens_details?: unknown
    readonly server_tool_use?: unknown
  }
}

/** A streamed event (`MessageStreamEvent`), as JSON. */
export type StreamEvent = { readonly type: string; readonly [key: string]: unknown }

/** The parts of a request body the stand-in reads. */
export interface Body {
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

/** The message the scripted agent gives for a request body: thinking and a tool call, or the final answer. */
export const message = (body: Body, index: number, script: Script.Script = {}): Message => {
  const messages = body.messages ?? []
  const last = messages[messages.length - 1]
  const output = last?.role === "user" ? toolResultText(last.content) : undefined
  const toolName = body.tools?.[0]?.name
  const base = {
    id: `msg_standin_${index}`,
    type: "message",
    role: "assistant",
    model: script.model ?? "claude-stand-in",
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_sequence: null,
    usage: {
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
          input: Script.toolInput(script, toolName),
          caller: { type: "direct" }
        }
      ],
      stop_reason: "tool_use"
    }
  }
  return {
    ...base,
    content: [{ type: "text", text: Script.finalText(script, output ?? ""), citations: null }],
    stop_reason: "end_turn"
  }
}

const field = (block: { readonly type: string }, key: string): unknown => (block as Record<string, unknown>)[key]

const stringField = (block: { readonly type: string }, key: string): string => {
  const value = field(block, key)
  return typeof value === "string" ? value : ""
}

/**
 * A message as the events the API streams for it: text, thinking and tool input in pieces, any
 * other block whole in its `content_block_start`.
 */
export const events = (answer: MessageLike): Array<StreamEvent> => {
  const out: Array<StreamEvent> = [{
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
        for (const text of Script.split(stringField(block, "text"), 6)) {
          out.push({ type: "content_block_delta", index, delta: { type: "text_delta", text } })
        }
        break
      case "thinking":
        out.push({
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" }
        })
        for (const thinking of Script.split(stringField(block, "thinking"), 6)) {
          out.push({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } })
        }
        out.push({
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: stringField(block, "signature") }
        })
        break
      case "tool_use":
        out.push({ type: "content_block_start", index, content_block: { ...block, input: {} } })
        for (const partial_json of Script.split(JSON.stringify(field(block, "input")), 4)) {
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
      stop_details: answer.stop_details ?? null,
      container: answer.container ?? null
    },
    usage: {
      input_tokens: answer.usage.input_tokens,
      output_tokens: answer.usage.output_tokens,
      cache_creation_input_tokens: answer.usage.cache_creation_input_tokens ?? null,
      cache_read_input_tokens: answer.usage.cache_read_input_tokens ?? null,
      output_tokens_details: answer.usage.output_tokens_details ?? null,
      server_tool_use: answer.usage.server_tool_use ?? null
    }
  })
  out.push({ type: "message_stop" })
  return out
}

const bodyOf = (request: Testing.Request): Body => (Script.isRecord(request.body) ? request.body : {}) as Body

const typeOf = (event: unknown): string | undefined => {
  const type = Script.isRecord(event) ? event["type"] : undefined
  return typeof type === "string" ? type : undefined
}

/** The Messages API, as its stand-ins speak it. */
export const api: Api.Api = {
  matches: (request) => request.method === "POST" && request.path === "/v1/messages",
  streaming: (request) => bodyOf(request).stream === true,
  // each event named by its type, as the SDK reads them
  stream: (events) => ({ _tag: "sse", events: events.map((data) => ({ event: typeOf(data), data })) }),
  error: (status, message) => ({
    _tag: "json",
    status,
    body: { type: "error", error: { type: status === 404 ? "not_found_error" : "invalid_request_error", message } }
  }),
  scripted: (script) =>
    scriptedRoute(api, (request, index) => {
      const body = bodyOf(request)
      const answer = message(body, index, script)
      if (body.stream !== true) return { _tag: "json", body: answer }
      const streamed = events(answer)
      return api.stream([streamed[0], { type: "ping" }, ...streamed.slice(1)])
    })
}
