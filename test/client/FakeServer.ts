/**
 * A small in-memory OpenReward environment server, for the client's tests of answers that this
 * library's real server (test/client/TestServer.ts, on which every test of plain protocol
 * behaviour runs) never gives, so cannot be made to give:
 *
 * - faults: a stream that drops before or after its `task_id` event or stalls mid-call, a status
 *   (429, 502, 503, 504, with `Retry-After`) or a refused connection scripted for one request, a
 *   ping that fails at a chosen moment, a server that forgets a running task, a result that is
 *   not JSON or a body that breaks the protocol's shape;
 * - other servers: SSE framings this server does not write (CR or CRLF line ends, a keep-alive
 *   comment before every event, bodies cut into tiny reads, results cut into chunks that start
 *   with spaces), older servers (no `/messages`, no `/task_tools`, no `message_block_types`, no
 *   `reason` on refusals), newer ones (block types this library does not know), a gateway's
 *   answers (an HTML body, "Deployment not found."), tool specs in another key order.
 *
 * It is written against Web `Request`/`Response` and answers a stub `HttpClient` in memory, so it
 * is deterministic under the `TestClock`. Where the client can tell, it behaves like the reference
 * server: the default-environment `308` for bare paths, sessions (`/create_session` SSE, `/create`,
 * `/ping`, `/delete`, `/delete_session`), 404 for unknown sessions, `/call` as SSE with a
 * `task_id` registry that replays a finished call to a reconnecting client, results cut into
 * `chunk`/`end` events. Faults are scripted per route.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: any
}

/** A scripted answer for one request, used before the route's normal behaviour. */
export type Fault =
  | {
    readonly kind: "status"
    readonly status: number
    readonly body?: string
    readonly headers?: Record<string, string>
  }
  /** The connection fails before any response. */
  | { readonly kind: "refuse" }
  /** A 200 SSE response that breaks before any event (the call still starts on the server). */
  | { readonly kind: "drop-before-task-id" }
  /** A 200 SSE response that breaks right after the `task_id` event (the call keeps running). */
  | { readonly kind: "drop-after-task-id" }
  /** A 200 SSE response that goes silent after the `task_id` event. */
  | { readonly kind: "stall-after-task-id" }

/** How SSE responses are written. */
export interface Framing {
  readonly eol: "\r\n" | "\n" | "\r"
  /** Cut the response text into pieces of this many characters (each piece is one network read). */
  readonly pieceSize?: number | undefined
  /** Write a keep-alive comment before every event. */
  readonly comments?: boolean | undefined
  /** Size of the `chunk` events a result is cut into. */
  readonly chunkSize: number
}

export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const text = (t: string) => ({ text: t, detail: null, type: "text" })
const image = { data: "aGk=", mimeType: "image/png", detail: null, type: "image" }

/** The conversation environment's messages, including a block type from the future. */
export const dialogueMessages: Json = [
  { role: "system", blocks: [text("You are a support agent for Acme.")], detail: null },
  { role: "user", blocks: [text("My order #4411 hasn't arrived."), { type: "hologram", frames: 3 }], detail: null },
  {
    role: "assistant",
    blocks: [
      { text: "Two weeks late — check the carrier first.", signature: null, detail: null, type: "reasoning" },
      { id: "tc_1", name: "lookup_order", input: { id: "4411" }, detail: null, type: "tool_call" }
    ],
    detail: null
  },
  {
    role: "user",
    blocks: [{
      tool_call_id: "tc_1",
      blocks: [text("{\"status\": \"stalled_at_hub\"}")],
      is_error: false,
      detail: null,
      type: "tool_result"
    }],
    detail: null
  }
]

/** The prompt-only environment's prompt, with a block type it cannot serve in a prompt. */
export const plainPrompt: Json = [text("What is 2+2?"), image, { type: "video", url: "x" }]

export const tools: Json = [
  {
    name: "answer",
    description: "Submit the answer.",
    input_schema: {
      properties: { text: { title: "Text", type: "string" } },
      required: ["text"],
      title: "AnswerInput",
      type: "object"
    }
  },
  { name: "submit", description: "", input_schema: null }
]

const envs = ["dialogue", "plain"] as const
type Env = typeof envs[number]
const rootRoutes = new Set([
  "health",
  "list_environments",
  "ping",
  "create",
  "delete",
  "create_session",
  "delete_session"
])

const tasks: ReadonlyArray<Json> = [{ id: "t0", question: "2+2" }, { id: "t1", question: "3+3" }, { id: "t2" }]

export class FakeServer {
  readonly log: Array<Recorded> = []
  readonly faults = new Map<string, Array<Fault>>()
  readonly sessions = new Map<string, { deleted: boolean }>()
  readonly runs = new Map<string, number>()
  readonly registry = new Map<string, { readonly result: string } | { readonly error: string }>()
  framing: Framing = { eol: "\r\n", chunkSize: 4096 }
  /** Serve `/messages` (servers since reference 0.1.157). */
  messages = true
  /** What `/messages` answers for the conversation environment. */
  dialogue: Json = dialogueMessages
  /** Serve `/task_tools`. */
  taskTools = true
  /** The tools `/tools` and `/task_tools` list. */
  toolSpecs: Json = tools
  /** Advertise `message_block_types`. */
  blockTypes = true
  /** Send `reason` with refused calls (servers since the field exists). */
  reasons = true
  /** What `/ping` answers. */
  pingStatus = 200
  /**
   * Group scoring: `"length"` serves `/score_group` (each candidate's reward its text length over
   * 100, its metadata echoed), `"raise"` ends its stream with an error event, `"none"` answers 404.
   */
  scoring: "length" | "raise" | "none" = "length"
  /** The terminal tool `/tools` and `/task_tools` advertise. */
  terminal: Json = null
  private next = 0

  /** Requests to a path (as requested, before any redirect). */
  requests(method: string, path: string): ReadonlyArray<Recorded> {
    return this.log.filter((r) => r.method === method && r.path === path)
  }

  /** Script faults for `METHOD /path`, used in order before the route behaves normally. */
  fail(route: string, ...faults: ReadonlyArray<Fault>): void {
    this.faults.set(route, [...(this.faults.get(route) ?? []), ...faults])
  }

  /** Answer one request; `"refuse"` means the connection failed. */
  async handle(request: Request): Promise<Response | "refuse"> {
    const url = new URL(request.url)
    const raw = request.method === "GET" ? "" : await request.text()
    const body = raw === "" ? undefined : JSON.parse(raw)
    const headers = Object.fromEntries(request.headers.entries())
    this.log.push({ method: request.method, path: url.pathname, headers, body })

    const fault = this.faults.get(`${request.method} ${url.pathname}`)?.shift()
    if (fault?.kind === "refuse") return "refuse"
    if (fault?.kind === "status") {
      return new Response(fault.body ?? JSON.stringify({ detail: `scripted ${fault.status}` }), {
        status: fault.status,
        headers: { "content-type": "application/json", ...fault.headers }
      })
    }

    const [first = "", ...rest] = url.pathname.replace(/^\//, "").split("/")
    if (!rootRoutes.has(first) && !(envs as ReadonlyArray<string>).includes(first.toLowerCase())) {
      return new Response(null, { status: 308, headers: { location: `/${envs[0]}${url.pathname}${url.search}` } })
    }
    const sid = headers["x-session-id"]?.trim()

    if (rootRoutes.has(first)) return this.root(first, sid)
    const env = first.toLowerCase() as Env
    const route = rest.join("/")
    switch (`${request.method} ${route}`) {
      case "GET splits":
        return json([{ name: "train", type: "train" }, { name: "test", type: "test" }])
      case "GET tools":
        return json(this.toolList(env))
      case "POST tasks":
        return body?.split === "train" ? json({ tasks, env_name: env }) : detail(400, "Invalid split")
      case "POST num_tasks":
        return body?.split === "train" ? json({ num_tasks: tasks.length }) : detail(400, "Invalid split")
      case "POST task": {
        const task = tasks.at(body?.index)
        return task === undefined ? detail(400, "Invalid index") : json({ task, env_name: env })
      }
      case "POST task_range":
        return json({ tasks: tasks.slice(body?.start ?? 0, body?.stop ?? tasks.length), env_name: env })
    }
    const session = sid === undefined ? undefined : this.sessions.get(sid)
    if (sid === undefined) return detail(400, "X-Session-ID header is required")
    if (session === undefined || session.deleted) return detail(404, "Active environment not found")
    switch (`${request.method} ${route}`) {
      case "GET task_tools":
        return this.taskTools ? json(this.toolList(env)) : detail(404, "Not Found")
      case "GET prompt":
        return json(env === "plain" ? plainPrompt : [text("[flattened]")])
      case "GET messages":
        if (!this.messages) return detail(404, "Not Found")
        return json(env === "plain" ? [{ role: "user", blocks: plainPrompt, detail: null }] : this.dialogue)
      case "POST call":
        return this.call(body, fault)
      case "POST score_group":
        return this.scoreGroup(body, fault)
    }
    return detail(404, "Not Found")
  }

  private toolList(_env: Env): Json {
    return {
      tools: this.toolSpecs,
      terminal_tool: this.terminal,
      supports_score_group: this.scoring !== "none",
      ...(this.blockTypes ? { message_block_types: ["text", "image", "reasoning", "tool_call", "tool_result"] } : {})
    }
  }

  private root(route: string, sid: string | undefined): Response {
    switch (route) {
      case "health":
        return json({ status: "ok" })
      case "list_environments":
        return json([...envs])
      case "create_session": {
        const id = `sid-${++this.next}`
        return this.sse([["task_id", id], ["end", ""]])
      }
      case "create": {
        if (sid === undefined) return detail(400, "X-Session-ID header is required")
        if (this.sessions.has(sid)) return detail(400, "Session already exists")
        this.sessions.set(sid, { deleted: false })
        return json({ sid })
      }
      case "ping":
        if (this.pingStatus !== 200) return detail(this.pingStatus, "scripted ping failure")
        return sid !== undefined && this.sessions.has(sid) && !this.sessions.get(sid)!.deleted
          ? json({ status: "ok" })
          : detail(404, "Active environment not found")
      case "delete": {
        const session = sid === undefined ? undefined : this.sessions.get(sid)
        if (session !== undefined) session.deleted = true
        return json({ sid: sid ?? null })
      }
      case "delete_session":
        return json({ sid: sid ?? null })
    }
    return detail(404, "Not Found")
  }

  /** Run a tool the way the reference does, returning the result JSON text. */
  private run(name: string, input: any): { readonly result: string } {
    this.runs.set(name, (this.runs.get(name) ?? 0) + 1)
    const ok = (blocks: Json, extra: { reward?: number; finished?: boolean; metadata?: Json } = {}) => ({
      result: JSON.stringify({
        ok: true,
        output: {
          blocks,
          metadata: extra.metadata ?? null,
          reward: extra.reward ?? null,
          finished: extra.finished ?? false
        }
      })
    })
    const refuse = (error: string, reason: string) => ({
      result: JSON.stringify({ ok: false, error, ...(this.reasons ? { reason } : {}) })
    })
    switch (name) {
      case "answer":
        return typeof input?.text === "string"
          ? ok([text(`you said ${input.text}`), { type: "sparkle" }], { reward: 1, finished: true, metadata: { n: 1 } })
          : refuse("Tool input validation error: [{'type': 'missing', 'loc': ('text',)}]", "input_validation")
      case "submit":
        return ok([text("submitted")])
      case "spaced":
        // Python-style JSON, so that result chunks may start with a space.
        return {
          result:
            "{\"ok\": true, \"output\": {\"blocks\": [{\"text\": \"a  b\", \"detail\": null, \"type\": \"text\"}], \"metadata\": null, \"reward\": null, \"finished\": false}}"
        }
      case "bad_json":
        return { result: "{not json" }
    }
    return refuse(`'${name}' is not a valid tool`, "not_found")
  }

  /** Score a group the way a length-minded judge would; counted in `runs` under `score_group`. */
  private score(body: any): { readonly result: string } | { readonly error: string } {
    this.runs.set("score_group", (this.runs.get("score_group") ?? 0) + 1)
    if (this.scoring === "raise") return { error: "JudgeFailure: the judge gave no verdict it could read" }
    const scores = (body?.candidates ?? []).map((c: any) => ({
      reward: JSON.stringify(c.messages).length / 100,
      metadata: c.metadata ?? null
    }))
    return { result: JSON.stringify({ scores }) }
  }

  private scoreGroup(body: any, fault: Fault | undefined): Response {
    if (this.scoring === "none") return detail(404, "Environment 'dialogue' does not implement score_group")
    return this.stream(body, fault, () => this.score(body))
  }

  private call(body: any, fault: Fault | undefined): Response {
    return this.stream(body, fault, () => this.run(body?.name, body?.input))
  }

  /** A resumable task stream: run `work` once per task id, replay its outcome to a reconnecting client. */
  private stream(
    body: any,
    fault: Fault | undefined,
    work: () => { readonly result: string } | { readonly error: string }
  ): Response {
    let taskId: string | undefined = body?.task_id
    if (taskId === undefined) {
      taskId = `task-${++this.next}`
      this.registry.set(taskId, work())
    }
    const outcome = this.registry.get(taskId)
    if (outcome === undefined) return this.sse([["error", "unknown task_id"]])
    if ("error" in outcome) return this.sse([["task_id", taskId], ["error", outcome.error]])
    if (fault?.kind === "drop-before-task-id") return this.sse([], "drop")
    if (fault?.kind === "drop-after-task-id") return this.sse([["task_id", taskId]], "drop")
    if (fault?.kind === "stall-after-task-id") return this.sse([["task_id", taskId]], "stall")
    const pieces: Array<[string, string]> = []
    const size = this.framing.chunkSize
    for (let i = 0; i < outcome.result.length; i += size) {
      pieces.push([i + size >= outcome.result.length ? "end" : "chunk", outcome.result.slice(i, i + size)])
    }
    return this.sse([["task_id", taskId], ...pieces])
  }

  /** An SSE response; `then` says how the stream finishes after the events. */
  sse(events: ReadonlyArray<readonly [string, string]>, then: "close" | "drop" | "stall" = "close"): Response {
    const { comments, eol, pieceSize } = this.framing
    const body = events.map(([event, data]) =>
      `${comments ? `: ping - 2026-01-01 00:00:00${eol}` : ""}event: ${event}${eol}${
        data.split("\n").map((line) => `data: ${line}${eol}`).join("")
      }${eol}`
    ).join("")
    const pieces: Array<string> = []
    const step = pieceSize ?? Math.max(body.length, 1)
    for (let i = 0; i < body.length; i += step) pieces.push(body.slice(i, i + step))
    const encoder = new TextEncoder()
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = pieces.shift()
        if (piece !== undefined) return controller.enqueue(encoder.encode(piece))
        if (then === "close") return controller.close()
        if (then === "drop") return controller.error(new Error("socket hang up"))
        return new Promise<void>(() => {}) // stall: never answer
      }
    })
    return new Response(stream, { status: 200, headers: { "content-type": "text/event-stream" } })
  }
}

const json = (body: Json, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } })

const detail = (status: number, message: string) => json({ detail: message }, status)

/** An `HttpClient` whose every request is answered by `server`, in memory. */
export const httpClient = (server: FakeServer): HttpClient.HttpClient =>
  HttpClient.make((request, url, signal) =>
    Effect.gen(function*() {
      const body = request.body._tag === "Uint8Array" ? request.body.body : undefined
      const answer = yield* Effect.promise(() =>
        server.handle(
          new Request(url, { method: request.method, headers: request.headers, body: body ?? null, signal })
        )
      )
      if (answer === "refuse") {
        return yield* new HttpClientError.RequestError({
          request,
          reason: "Transport",
          cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" })
        })
      }
      return HttpClientResponse.fromWeb(request, answer)
    })
  )
