/**
 * `npm run demo`: the whole library in one run.
 *
 * 1. Serve the two example environments it uses (examples/support.ts) over the OpenReward HTTP
 *    protocol on localhost.
 * 2. As a harness would, open a session on the seed page's support task, read its conversation in
 *    every format (and the tagged error where a format cannot hold it) and as the flattened `/prompt`,
 *    list its tools, submit an answer and print the reward. There is no model here: the answers are
 *    scripted, so the demo runs offline; docs/harness.md and examples/agent-*.ts put a real SDK in
 *    the loop (against a loopback stand-in of the provider's API).
 * 3. Do the same for the conversation with reasoning and tool history, where `google` cannot hold the
 *    reasoning and says so.
 * 4. Shut down cleanly: closing the scope deletes the sessions, runs their teardown, and stops the
 *    server.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import * as Client from "openreward-effect/Client"
import * as Conversation from "openreward-effect/Conversation"
import * as Format from "openreward-effect/Format"
import * as Server from "openreward-effect/Server"
import { environments as all } from "./support.js"

/** The environments the demo drives (examples/support.ts also has a prompt-only trivia one). */
const environments = all.filter((env) => env.name === "DialogueEnv" || env.name === "TranscriptEnv")

const bold = (s: string) => process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s
const dim = (s: string) => process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s

/** Compact JSON, one message per line. */
const show = (value: unknown): string => {
  const lines = Array.isArray(value)
    ? value.map((m) => JSON.stringify(m))
    : Object.entries(value as Record<string, unknown>).flatMap(([key, v]) =>
      Array.isArray(v) ? [`${key}:`, ...v.map((m) => "  " + JSON.stringify(m))] : [`${key}: ${JSON.stringify(v)}`]
    )
  return lines.map((l) => "    " + l).join("\n")
}

/** One episode: read the conversation in every format, then answer through a tool. */
const episode = (env: Client.Environment, answer: { readonly tool: string; readonly input: Record<string, string> }) =>
  Effect.scoped(Effect.gen(function*() {
    const [task] = yield* env.tasks("train")
    const session = yield* env.session(task!)
    yield* Console.log(
      bold(`\n── ${env.name} · train · ${String(task!.spec["id"])} (session ${session.sid.slice(0, 8)}…)`)
    )

    const { conversation } = yield* session.readMessages
    yield* Console.log(`\n  canonical, as /messages serves it:\n${show(Conversation.encode(conversation))}`)

    // The client converts with the same codecs `Format` exposes; a format that cannot hold the
    // conversation fails with a tagged ConversionError, which we print instead of the output.
    for (const format of Format.providers) {
      const messages = yield* Effect.either(session.getMessages({ format }))
      if (Either.isRight(messages)) {
        yield* Console.log(`\n  ${format}:\n${show(messages.right)}`)
      } else {
        const error = messages.left
        const detail = error._tag === "ConversionFailed" ? error.error : error
        yield* Console.log(`\n  ${format}: ${bold(detail._tag)} ${dim(detail.message)}`)
      }
    }

    const prompt = yield* session.getPrompt
    yield* Console.log(
      `\n  /prompt, what an old harness sees:\n${
        prompt.map((b) => "    " + (b.type === "text" ? b.text : `<image ${b.mimeType}>`)).join("\n")
      }`
    )

    const tools = yield* session.listTools({ format: "openai" })
    yield* Console.log(`\n  tools (openai format): ${tools.map((t) => t.name).join(", ")}`)

    const output = yield* session.callTool(answer.tool, answer.input)
    const text = output.blocks.map((b) => b.type === "text" ? b.text : `<${b.type}>`).join(" ")
    yield* Console.log(
      `\n  ${answer.tool}(${JSON.stringify(answer.input)}) → ${
        bold(`reward ${output.reward}`)
      }, finished ${output.finished}: ${text}`
    )
    return output.reward ?? 0
  }))

const program = Effect.gen(function*() {
  const { address } = yield* HttpServer.HttpServer
  const baseUrl = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  yield* Console.log(bold(`Serving ${environments.map((e) => e.name.toLowerCase()).join(", ")} on ${baseUrl}`))
  yield* Console.log(
    dim("No model in this demo: each episode's answer is scripted (see docs/harness.md for real SDKs).")
  )

  const client = yield* Client.Client
  const rewards = [
    yield* episode(client.environment("dialogueenv", { variant: "dialogueenv", baseUrl }), {
      tool: "submit",
      input: { answer: "Thanks! I've checked order #4411: it's delayed at the carrier, and I'll send tracking today." }
    }),
    yield* episode(client.environment("transcriptenv", { variant: "transcriptenv", baseUrl }), {
      tool: "reply",
      input: { message: "Your parcel is stuck at the carrier's hub; I've asked them to release it." }
    })
  ]
  yield* Console.log(bold(`\nTotal reward ${rewards.reduce((a, b) => a + b, 0)} over ${rewards.length} episodes.`))
}).pipe(Effect.provide(Client.layer({ apiKey: "" })))

const ServerLive = Server.layer(environments).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
)

await program.pipe(
  Effect.provide(ServerLive),
  Effect.provide(NodeHttpClient.layerUndici),
  Effect.scoped,
  Effect.zipRight(Console.log(dim("\nSessions deleted, server stopped."))),
  Effect.runPromise
)
