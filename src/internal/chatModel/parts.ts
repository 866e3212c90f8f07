/**
 * A canonical model answer (`ModelResponse`) as the `@effect/ai` response parts a provider returns,
 * whole or as a stream: what a `LanguageModel` built on this library's own decoders hands back.
 *
 * @internal
 */
import type * as Response from "@effect/ai/Response"
import type * as ModelResponse from "../../ModelResponse.js"

const finishReason = (reason: ModelResponse.StopReason): Response.FinishReason => {
  switch (reason) {
    case "stop":
      return "stop"
    case "tool_calls":
      return "tool-calls"
    case "max_tokens":
      return "length"
    case "content_filter":
    case "refusal":
      return "content-filter"
    case "pause":
      return "pause"
    case "other":
      return "other"
  }
}

/**
 * The parts of a whole answer.
 *
 * @internal
 */
export const parts = (response: ModelResponse.ModelResponse): Array<Response.PartEncoded> => {
  const out: Array<Response.PartEncoded> = [{
    type: "response-metadata",
    id: response.id,
    modelId: response.model,
    timestamp: undefined
  }]
  for (const block of response.message.blocks) {
    switch (block.type) {
      case "text":
        out.push({ type: "text", text: block.text })
        break
      case "reasoning":
        out.push({ type: "reasoning", text: block.text })
        break
      case "tool_call":
        out.push({ type: "tool-call", id: block.id, name: block.name, params: block.input })
        break
      case "image":
        out.push({ type: "file", mediaType: block.mimeType, data: block.data })
        break
    }
  }
  out.push({
    type: "finish",
    reason: finishReason(response.stopReason),
    usage: {
      inputTokens: response.usage.inputTokens,
      outputTokens: response.usage.outputTokens,
      totalTokens: response.usage.totalTokens,
      reasoningTokens: response.usage.reasoningTokens,
      cachedInputTokens: response.usage.cachedInputTokens
    }
  })
  return out
}

/**
 * The parts of a whole answer as the stream parts a streaming call yields: each text and reasoning
 * part in one delta.
 *
 * @internal
 */
export const streamParts = (whole: ReadonlyArray<Response.PartEncoded>): Array<Response.StreamPartEncoded> =>
  whole.flatMap((part, k): Array<Response.StreamPartEncoded> => {
    const id = String(k)
    switch (part.type) {
      case "text":
        return [{ type: "text-start", id }, { type: "text-delta", id, delta: part.text }, { type: "text-end", id }]
      case "reasoning":
        return [
          { type: "reasoning-start", id },
          { type: "reasoning-delta", id, delta: part.text },
          { type: "reasoning-end", id }
        ]
      case "tool-call":
      case "file":
      case "response-metadata":
      case "finish":
        return [part]
      default:
        return []
    }
  })
