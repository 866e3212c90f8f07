/**
 * The Vercel AI SDK's provider converters, driven through their public API.
 *
 * The converters (`convertToOpenAIChatMessages`, `convertToAnthropicMessagesPrompt`,
 * `convertToGoogleGenerativeAIMessages`) are not exported, so each is reached through its provider's
 * `LanguageModelV3.doGenerate`, with a custom `fetch` that keeps the request body and answers with a
 * canned, minimal success response. No network is involved.
 *
 * One `doGenerate` call therefore does, in order: provider-option parsing, the prompt conversion,
 * request assembly, `JSON.stringify` of the body, the `fetch` call, and validation of the canned
 * response. Everything but the conversion and the stringify is a fixed cost per call (measured by
 * {@link overhead}); the benchmark reports how the measured time splits.
 *
 * The AI SDK's input is its own `LanguageModelV3Prompt`; {@link toPrompt} builds it from a canonical
 * conversation **before** timing, doing the id-to-name lookup for tool results that our Google
 * codec does inside `encode` (the AI SDK prompt carries tool names on results already).
 */
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import type * as Block from "../../src/Block.js"
import type * as Conversation from "../../src/Conversation.js"
import type * as Provider from "../../src/Provider.js"

// The AI SDK's prompt types, taken from the public model type (not from the transitive
// `@ai-sdk/provider` package).
type LanguageModelV3 = ReturnType<ReturnType<typeof createOpenAI>["chat"]>
type LanguageModelV3Prompt = Parameters<LanguageModelV3["doGenerate"]>[0]["prompt"]
type LanguageModelV3Message = LanguageModelV3Prompt[number]
type UserPart = Extract<LanguageModelV3Message, { role: "user" }>["content"][number]
type LanguageModelV3TextPart = Extract<UserPart, { type: "text" }>
type LanguageModelV3FilePart = Extract<UserPart, { type: "file" }>
type LanguageModelV3ToolResultPart = Extract<
  Extract<LanguageModelV3Message, { role: "tool" }>["content"][number],
  { type: "tool-result" }
>

const cannedResponses: { readonly [P in Provider.Provider]: string } = {
  openai: JSON.stringify({
    id: "chatcmpl-bench",
    object: "chat.completion",
    created: 0,
    model: "gpt-4o",
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
  }),
  openrouter: JSON.stringify({
    id: "gen-bench",
    object: "chat.completion",
    created: 0,
    model: "openai/gpt-4o",
    choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 }
  }),
  anthropic: JSON.stringify({
    id: "msg_bench",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5",
    content: [{ type: "text", text: "ok" }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 }
  }),
  google: JSON.stringify({
    candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 }
  })
}

/** A provider language model whose `fetch` records the request body instead of sending it. */
export interface Driver {
  /** Which AI SDK model class does the conversion. */
  readonly label: string
  /** One full `doGenerate` call on `prompt`. */
  readonly generate: (prompt: LanguageModelV3Prompt) => PromiseLike<unknown>
  /** The JSON body of the last request. */
  readonly lastBody: () => string
}

/** A `fetch` that captures the body and answers with `response`. */
const capturingFetch = (response: string) => {
  const state = { body: "" }
  const headers = { "content-type": "application/json" }
  const fetch = async (_input: unknown, init?: { readonly body?: unknown }): Promise<Response> => {
    state.body = typeof init?.body === "string" ? init.body : ""
    return new Response(response, { status: 200, headers })
  }
  return { state, fetch: fetch as unknown as typeof globalThis.fetch }
}

const model = (
  provider: Provider.Provider,
  fetch: typeof globalThis.fetch
): { label: string; model: LanguageModelV3 } => {
  switch (provider) {
    case "openai":
      return { label: "@ai-sdk/openai chat", model: createOpenAI({ apiKey: "bench", fetch }).chat("gpt-4o") }
    case "openrouter":
      // The AI SDK has no OpenRouter provider under @ai-sdk/*; OpenRouter speaks Chat Completions, so
      // the OpenAI chat model (pointed at OpenRouter's base URL) does the same conversion.
      return {
        label: "@ai-sdk/openai chat",
        model: createOpenAI({ apiKey: "bench", baseURL: "https://openrouter.ai/api/v1", fetch }).chat("openai/gpt-4o")
      }
    case "anthropic":
      return {
        label: "@ai-sdk/anthropic messages",
        model: createAnthropic({ apiKey: "bench", fetch }).messages("claude-sonnet-4-5")
      }
    case "google":
      return {
        label: "@ai-sdk/google generative-ai",
        model: createGoogleGenerativeAI({ apiKey: "bench", fetch }).languageModel("gemini-2.5-flash")
      }
  }
}

/** The AI SDK model for `provider`, with a capturing `fetch`. */
export const driver = (provider: Provider.Provider): Driver => {
  const { fetch, state } = capturingFetch(cannedResponses[provider])
  const { label, model: languageModel } = model(provider, fetch)
  return {
    label,
    generate: (prompt) => languageModel.doGenerate({ prompt, maxOutputTokens: 1024 }),
    lastBody: () => state.body
  }
}

// -----------------------------------------------------------------------------
// canonical -> LanguageModelV3Prompt
// -----------------------------------------------------------------------------

const contentPart = (block: Block.ContentBlock): LanguageModelV3TextPart | LanguageModelV3FilePart =>
  block.type === "text"
    ? { type: "text", text: block.text }
    : { type: "file", mediaType: block.mimeType, data: block.data }

const toolResultPart = (block: Block.ToolResultBlock, toolName: string): LanguageModelV3ToolResultPart => {
  if (block.blocks.every((b) => b.type === "text")) {
    const value = block.blocks.map((b) => b.type === "text" ? b.text : "").join("\n")
    return {
      type: "tool-result",
      toolCallId: block.tool_call_id,
      toolName,
      output: block.is_error ? { type: "error-text", value } : { type: "text", value }
    }
  }
  return {
    type: "tool-result",
    toolCallId: block.tool_call_id,
    toolName,
    output: {
      type: "content",
      value: block.blocks.map((b) =>
        b.type === "text" ? { type: "text", text: b.text } : { type: "image-data", data: b.data, mediaType: b.mimeType }
      )
    }
  }
}

/**
 * The AI SDK prompt with the same content as `conversation`: a user message's tool results become a
 * preceding `tool` message (the AI SDK's shape), reasoning signatures ride in
 * `providerOptions.anthropic.signature` (where the Anthropic converter reads them).
 */
export const toPrompt = (conversation: Conversation.Conversation): LanguageModelV3Prompt => {
  const names = new Map<string, string>()
  for (const message of conversation) {
    for (const block of message.blocks) if (block.type === "tool_call") names.set(block.id, block.name)
  }
  const prompt: Array<LanguageModelV3Message> = []
  for (const message of conversation) {
    switch (message.role) {
      case "system":
        prompt.push({
          role: "system",
          content: message.blocks.map((b) => b.type === "text" ? b.text : "").join("\n\n")
        })
        break
      case "user": {
        const results: Array<LanguageModelV3ToolResultPart> = []
        const rest: Array<LanguageModelV3TextPart | LanguageModelV3FilePart> = []
        for (const block of message.blocks) {
          if (block.type === "tool_result") results.push(toolResultPart(block, names.get(block.tool_call_id) ?? ""))
          else if (block.type !== "provider") rest.push(contentPart(block))
        }
        if (results.length > 0) prompt.push({ role: "tool", content: results })
        if (rest.length > 0) prompt.push({ role: "user", content: rest })
        break
      }
      case "assistant":
        prompt.push({
          role: "assistant",
          content: message.blocks.flatMap((block) => {
            switch (block.type) {
              case "text":
              case "image":
                return contentPart(block)
              case "reasoning":
                return block.signature === null
                  ? { type: "reasoning", text: block.text }
                  : {
                    type: "reasoning",
                    text: block.text,
                    providerOptions: { anthropic: { signature: block.signature } }
                  }
              case "tool_call":
                return { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.input }
              case "provider":
                // the benchmarks' conversations hold no provider blocks
                return []
            }
          })
        })
        break
    }
  }
  return prompt
}
