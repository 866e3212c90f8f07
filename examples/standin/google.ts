/**
 * A loopback stand-in for the Gemini API (`POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`), for running the official `@google/genai` SDK offline:
 * `new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: standIn.url } })`.
 *
 * It plays a two-step agent: while the last request content carries no `functionResponse` it calls
 * the first function of the request's `tools` (a `functionCall` part without an id, carrying a
 * `thoughtSignature`, after a thought summary, `finishReason: "STOP"`, as Gemini 3 answers);
 * otherwise it answers with the script's final text. The streaming endpoint sends the same answer
 * as `GenerateContentResponse` chunks, each holding only its new parts, with running usage totals,
 * and the signature of the final text arriving late on an empty text part, as Gemini streams it.
 * Every answer is typed with the SDK's own `GenerateContentResponse` fields.
 */
import { FinishReason, type GenerateContentResponse } from "@google/genai"
import * as Server from "./server.js"

/** The JSON fields of a `GenerateContentResponse` (the SDK's class adds getters over them). */
export type ResponseJson = Pick<
  GenerateContentResponse,
  "candidates" | "usageMetadata" | "modelVersion" | "responseId" | "promptFeedback" | "createTime"
>

/** What the stand-in answers. */
export interface Script {
  /** The input of the function call, given the function's name (default `{}`), sent as its `args`. */
  readonly toolInput?: (toolName: string) => Record<string, unknown>
  /** The final answer, given the function response (default: quotes it as JSON). */
  readonly answer?: (response: unknown) => string
  /** The model version the answers carry (default `gemini-stand-in`). */
  readonly model?: string
}

interface Body {
  readonly contents?: ReadonlyArray<{
    readonly role?: string
    readonly parts?: ReadonlyArray<{ readonly functionResponse?: { readonly response?: unknown } }>
  }>
  readonly tools?: ReadonlyArray<{ readonly functionDeclarations?: ReadonlyArray<{ readonly name?: string }> }>
}

/** The response the stand-in gives for a request body: a function call, or the final answer. */
export const response = (body: Body, index: number, script: Script = {}): ResponseJson => {
  const contents = body.contents ?? []
  const last = contents[contents.length - 1]
  const answered = last?.parts?.find((p) => p.functionResponse !== undefined)?.functionResponse
  const name = body.tools?.flatMap((t) => t.functionDeclarations ?? [])[0]?.name
  const base = { modelVersion: script.model ?? "gemini-stand-in", responseId: `standin-${index}` }
  if (answered === undefined && name !== undefined) {
    return {
      ...base,
      candidates: [{
        index: 0,
        finishReason: FinishReason.STOP,
        content: {
          role: "model",
          parts: [
            { text: `The user needs ${name}.`, thought: true },
            {
              functionCall: { name, args: script.toolInput?.(name) ?? {} },
              thoughtSignature: `c2lnLXN0YW5kaW4t${index}`
            }
          ]
        }
      }],
      usageMetadata: { promptTokenCount: 25, candidatesTokenCount: 8, thoughtsTokenCount: 4, totalTokenCount: 37 }
    }
  }
  const text = script.answer?.(answered?.response) ?? `The tool said: ${JSON.stringify(answered?.response ?? null)}`
  return {
    ...base,
    candidates: [{
      index: 0,
      finishReason: FinishReason.STOP,
      content: { role: "model", parts: [{ text, thoughtSignature: `ZmluYWwtc3RhbmRpbi0${index}` }] }
    }],
    usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 11, totalTokenCount: 51 }
  }
}

/**
 * A response as the chunks the streaming endpoint sends: one part per chunk (text split in two),
 * a text part's signature on a trailing empty text part, the finish reason on the last chunk.
 */
export const chunks = (answer: ResponseJson): ReadonlyArray<ResponseJson> => {
  const candidate = answer.candidates?.[0]
  const parts = candidate?.content?.parts ?? []
  const out: Array<ResponseJson> = []
  const usage = answer.usageMetadata
  const push = (part: NonNullable<typeof parts>[number]) =>
    out.push({
      modelVersion: answer.modelVersion ?? "gemini-stand-in",
      responseId: answer.responseId ?? "standin",
      candidates: [{ index: 0, content: { role: "model", parts: [part] } }],
      usageMetadata: { promptTokenCount: usage?.promptTokenCount ?? 0, totalTokenCount: usage?.promptTokenCount ?? 0 }
    })
  for (const part of parts) {
    if (part.text !== undefined && part.functionCall === undefined) {
      const half = Math.ceil(part.text.length / 2)
      const { thoughtSignature, ...rest } = part
      push({ ...rest, text: part.text.slice(0, half) })
      push({ ...rest, text: part.text.slice(half) })
      if (thoughtSignature !== undefined) push({ text: "", thoughtSignature })
    } else {
      push(part)
    }
  }
  const last = out[out.length - 1]
  if (last !== undefined) {
    out[out.length - 1] = {
      ...last,
      candidates: [{ ...last.candidates![0]!, finishReason: candidate?.finishReason ?? FinishReason.STOP }],
      ...(usage === undefined ? {} : { usageMetadata: usage })
    }
  }
  return out
}

/** The route answering `models/{model}:generateContent` and `:streamGenerateContent`. */
export const route = (script: Script = {}): Server.Route => (request, index) => {
  const match = /^\/v1(?:beta|alpha)?\/models\/[^/:]+:(generateContent|streamGenerateContent)$/.exec(request.path)
  if (request.method !== "POST" || match === null) {
    return {
      _tag: "json",
      status: 404,
      body: { error: { code: 404, message: `no route ${request.path}`, status: "NOT_FOUND" } }
    }
  }
  const answer = response((request.body ?? {}) as Body, index, script)
  if (match[1] === "generateContent") return { _tag: "json", body: answer }
  return { _tag: "sse", events: chunks(answer).map((data) => ({ data })) }
}

/** Start the stand-in on a free loopback port. */
export const start = (script: Script = {}): Promise<Server.StandIn> => Server.start(route(script))
