/**
 * The client's tests of plain protocol behaviour run against this library's real server
 * (`Server.layer` on a loopback port), serving the two small environments below. The client under
 * test records every request it sends, each hop of a redirect included, so that a test can check
 * what went over the wire (method, path, headers, body) without a fake on the other end.
 *
 * - `dialogue` (the default environment, so bare paths are redirected under it) serves a
 *   conversation with reasoning, a tool call and its result;
 * - `plain` serves a prompt: a text and an image block.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Schema from "effect/Schema"
import * as Http from "node:http"
import * as Block from "openreward-effect/Block"
import * as Client from "openreward-effect/Client"
import * as Environment from "openreward-effect/Environment"
import * as Message from "openreward-effect/Message"
import * as Server from "openreward-effect/Server"
import * as Tool from "openreward-effect/Tool"

export const Task = Schema.Struct({ id: Schema.String, question: Schema.optional(Schema.String) })

export const tasks = [{ id: "t0", question: "2+2" }, { id: "t1", question: "3+3" }, { id: "t2" }] as const

class ValueError extends Error {
  override name = "ValueError"
}

class KeyError extends Error {
  override name = "KeyError"
}

const tools = [
  Tool.make("answer", {
    description: "Submit the answer.",
    input: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Tool.output(`you said ${text}`, { reward: 1, finished: true, metadata: { n: 1 } })
  }),
  Tool.make("submit", { handler: () => Tool.output("submitted") }),
  Tool.make("big", { handler: () => Tool.output("x".repeat(10_000), { reward: 0.5 }) }),
  Tool.make("explode", { handler: () => Effect.die(new ValueError("boom")) })
]

/** The `dialogue` environment's conversation. */
export const dialogueConversation = [
  Message.system("You are a support agent for Acme."),
  Message.user("My order #4411 hasn't arrived."),
  Message.assistant([
    Block.reasoning("Two weeks late — check the carrier first."),
    Block.toolCall("tc_1", "lookup_order", { id: "4411" })
  ]),
  Message.user([Block.toolResult("tc_1", "{\"status\": \"stalled_at_hub\"}")])
]

/** The `plain` environment's prompt. */
export const plainPrompt = [Block.text("What is 2+2?"), Block.image("aGk=", "image/png")]

export const Dialogue = Environment.make({
  name: "dialogue",
  task: Task,
  splits: ["train", "test"],
  tasks: { train: tasks, test: [] },
  messages: () => dialogueConversation,
  tools
})

export const Plain = Environment.make({
  name: "plain",
  task: Task,
  splits: ["train", "test"],
  tasks: { train: tasks, test: [] },
  // A task without a question breaks the environment's own code: the server answers 500.
  prompt: ({ task }) =>
    task.question === undefined ? Effect.die(new KeyError("'question'")) : Effect.succeed(plainPrompt),
  tools
})

/** What the `slow` environment's setups wait for: a test puts a fresh latch here, then opens it. */
export const slowSetup = { latch: Deferred.unsafeMake<void>(FiberId.none) }

/** `slow`: every session's setup waits for {@link slowSetup}'s latch. */
export const Slow = Environment.make({
  name: "slow",
  task: Task,
  splits: ["train"],
  tasks: { train: tasks },
  setup: () => Deferred.await(slowSetup.latch),
  prompt: () => plainPrompt,
  tools
})

/** A real server for `environments` on a free loopback port, and an HTTP client. */
export const serve = <const Envs extends ReadonlyArray<Environment.Any>>(
  environments: Envs,
  options?: Server.Options
) =>
  Server.layer(environments, options).pipe(
    Layer.provideMerge(NodeHttpServer.layer(() => Server.withClientErrors(Http.createServer()), {
      port: 0,
      host: "127.0.0.1"
    })),
    Layer.provideMerge(NodeHttpClient.layerUndici),
    // The server's warnings (a tool that raised, ...) and the client's are what the tests provoke.
    Layer.provideMerge(Logger.remove(Logger.defaultLogger))
  )

/** A real server for `dialogue` and `plain`, and an HTTP client. */
export const layer = (options?: Server.Options) => serve([Dialogue, Plain], options)

/** A real server for `slow` whose session requests wait 50 ms for a setup, and an HTTP client. */
export const layerSlow = serve([Slow], { setupWaitTimeout: "50 millis" })

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: any
  /** The response's status, once it arrived. */
  status?: number
}

const record = (request: HttpClientRequest.HttpClientRequest): Recorded => ({
  method: request.method,
  path: new URL(request.url).pathname,
  headers: request.headers,
  body: request.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(request.body.body)) : undefined
})

/** The served URL. */
export const baseUrl = Effect.map(HttpServer.HttpServer, ({ address }) => {
  if (address._tag !== "TcpAddress") throw new Error("the test server listens on TCP")
  return `http://127.0.0.1:${address.port}`
})

/** Wrap `http` so that it records every request it sends, each hop of a redirect included. */
export const recorder = (http: HttpClient.HttpClient) => {
  const log: Array<Recorded> = []
  // Recorded where each attempt is sent, below the client's redirect handling: every hop is seen.
  const recording = HttpClient.transform(
    http,
    (response, request) =>
      Effect.suspend(() => {
        const entry = record(request)
        log.push(entry)
        return Effect.tap(response, (r) =>
          Effect.sync(() => {
            entry.status = r.status
          }))
      })
  )
  return {
    http: recording,
    log,
    /** Requests to a path (as requested, before any redirect). */
    requests: (method: string, path: string) => log.filter((r) => r.method === method && r.path === path),
    paths: () => log.map((r) => `${r.method} ${r.path}`)
  }
}

/** A client of the test server (API key `key-1` unless `options` say otherwise) recording its requests. */
export const connect = (options?: Client.Options) =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const http = yield* HttpClient.HttpClient
    const recorded = recorder(http)
    const client = yield* Client.make({ baseUrl: url, apiKey: "key-1", ...options }).pipe(
      Effect.provideService(HttpClient.HttpClient, recorded.http),
      Effect.orDie
    )
    /** Send a request by hand, as another client of the server would. */
    const send = (method: "GET" | "POST", path: string, sid: string) =>
      Effect.scoped(Effect.flatMap(
        http.execute(
          HttpClientRequest.make(method)(url + path).pipe(HttpClientRequest.setHeader("x-session-id", sid))
        ),
        (response) => Effect.map(response.json, (body) => ({ status: response.status, body }))
      )).pipe(Effect.orDie)
    return { ...recorded, client, baseUrl: url, send }
  })
