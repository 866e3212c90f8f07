/**
 * A loopback stand-in for the Gemini API (`POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent?alt=sse`), for running `@google/genai` offline:
 * `new GoogleGenAI({ apiKey: "test", httpOptions: { baseUrl: standIn.url } })`.
 *
 * The scripted agent: while the last request content carries no `functionResponse` it calls the
 * first function of the request's `tools` (a `functionCall` part without an id, carrying a
 * `thoughtSignature`, after a thought summary, `finishReason: "STOP"`, as Gemini 3 answers);
 * otherwise it answers with the script's final text, given the function's response as JSON. The
 * streaming endpoint sends the same answer as `GenerateContentResponse` chunks, each holding only
 * its new parts, with running usage totals, and the signature of the final text arriving late on an
 * empty text part, as Gemini streams it.
 *
 * @internal
 */
import type * as Api from "./api.js"
import { scriptedRoute } from "./api.js"
import * as Script from "./script.js"

/** A part of an answer. */
export interface Part {
  readonly text?: string | undefined
  readonly thought?: boolean | undefined
  readonly thoughtSignature?: string | undefined
  readonly functionCall?: { readonly name?: string | undefined; readonly args?: unknown } | undefined
}

/** Token counts, as the API reports them. */
export interface UsageMetadata {
  readonly promptTokenCount?: number | undefined
  readonly candidatesTokenCount?: number | undefined
  readonly thoughtsTokenCount?: number | undefined
  readonly totalTokenCount?: number | undefined
}

/**
 * The JSON of an answer (`GenerateContentResponse`), or of one streamed chunk. The SDK's own type
 * is assignable to it, so {@link chunks} streams a recorded answer too.
 */
export interface Response {
  readonly candidates?:
    | ReadonlyArray<{
      readonly index?: number | undefined
      readonly finishReason?: string | undefined
      readonly content?:
        | { readonly role?: string | undefined; readonly parts?: ReadonlyArray<Part> | undefined }
        | undefined
    }>
    | undefined
  readonly usageMetadata?: UsageMetadata | undefined
  readonly modelVersion?: string | undefined
  readonly responseId?: string | undefined
}

/** The parts of a request body the stand-in reads. */
export interface Body {
  readonly contents?: ReadonlyArray<{
    readonly role?: string
    readonly parts?: ReadonlyArray<{ readonly functionResponse?: { readonly response?: unknown } }>
  }>
  readonly tools?: ReadonlyArray<{ readonly functionDeclarations?: ReadonlyArray<{ readonly name?: string }> }>
}

/** The response the scripted agent gives for a request body: a function call, or the final answer. */
export const response = (body: Body, index: number, script: Script.Script = {}): Response => {
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
        finishReason: "STOP",
        content: {
          role: "model",
          parts: [
            { text: `The user needs ${name}.`, thought: true },
            {
              functionCall: { name, args: Script.toolInput(script, name) },
              thoughtSignature: `c2lnLXN0YW5kaW4t${index}`
            }
          ]
        }
      }],
      usageMetadata: { promptTokenCount: 25, candidatesTokenCount: 8, thoughtsTokenCount: 4, totalTokenCount: 37 }
    }
  }
  const text = Script.finalText(script, JSON.stringify(answered?.response ?? null))
  return {
    ...base,
    candidates: [{
      index: 0,
      finishReason: "STOP",
      content: { role: "model", parts: [{ text, thoughtSignature: `ZmluYWwtc3RhbmRpbi0${index}` }] }
    }],
    usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 11, totalTokenCount: 51 }
  }
}

/**
 * A response as the chunks the streaming endpoint sends: one part per chunk (text split in two),
 * a text part's signature on a trailing empty text part, the finish reason and the usage on the
 * last chunk.
 */
export const chunks = (answer: Response): ReadonlyArray<Response> => {
  const candidate = answer.candidates?.[0]
  const parts = candidate?.content?.parts ?? []
  const out: Array<Response> = []
  const usage = answer.usageMetadata
  const push = (part: Part) =>
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
      candidates: [{ ...last.candidates![0]!, finishReason: candidate?.finishReason ?? "STOP" }],
      ...(usage === undefined ? {} : { usageMetadata: usage })
    }
  }
  return out
}

const call = /^\/v1(?:beta|alpha)?\/models\/[^/:]+:(generateContent|streamGenerateContent)$/

/** The Gemini API, as its stand-ins speak it. */
export const api: Api.Api = {
  matches: (request) => request.method === "POST" && call.test(request.path),
  streaming: (request) => call.exec(request.path)?.[1] === "streamGenerateContent",
  stream: (events) => ({ _tag: "sse", events: events.map((data) => ({ data })) }),
  error: (status, message) => ({
    _tag: "json",
    status,
    body: { error: { code: status, message, status: status === 404 ? "NOT_FOUND" : "INVALID_ARGUMENT" } }
  }),
  scripted: (script) =>
    scriptedRoute(api, (request, index) => {
      const answer = response((Script.isRecord(request.body) ? request.body : {}) as Body, index, script)
      return api.streaming(request) ? api.stream(chunks(answer)) : { _tag: "json", body: answer }
    })
}
