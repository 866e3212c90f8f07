/**
 * `npm run bench:sessions`: the memory a live session takes in the server, its own share (what
 * `maxSessions` bounds; docs/deploying.md, "Sessions and memory").
 *
 * A server in this process serves the environment of `test/fixtures/replica/env.ts` (its `setup`
 * keeps nothing, so what is measured is the server's bookkeeping); after a warm-up, `--sessions`
 * sessions (default 4,000) are created over HTTP, 50 at a time, and the heap after a full garbage
 * collection is compared with the heap before. Run with `--expose-gc` (the npm script does).
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { createServer } from "node:http"
import * as os from "node:os"
import * as v8 from "node:v8"
import * as Server from "openreward-effect/Server"
import { Replicated } from "../test/fixtures/replica/env.js"

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error("run with node --expose-gc (npm run bench:sessions)")
const flag = process.argv.find((arg) => arg.startsWith("--sessions="))
const sessions = flag === undefined ? 4_000 : Number(flag.slice("--sessions=".length))

const runtime = ManagedRuntime.make(
  Server.layer([Replicated], { maxSessions: sessions + 1_000, maxSessionsPerClient: sessions + 1_000 }).pipe(
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  )
)
const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
const url = `http://127.0.0.1:${(address as HttpServer.TcpAddress).port}`

const heap = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
const create = (sid: string) =>
  fetch(`${url}/create`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-session-id": sid },
    body: JSON.stringify({ split: "train", index: 1 })
  }).then((response) => response.text())

for (let i = 0; i < 200; i++) await create(`warm-${i}`)
const before = heap()
for (let i = 0; i < sessions; i += 50) {
  await Promise.all(Array.from({ length: Math.min(50, sessions - i) }, (_, j) => create(`s-${i + j}`)))
}
await new Promise((resolve) => setTimeout(resolve, 500))
const after = heap()
const perSession = (after - before) / sessions
const limit = v8.getHeapStatistics().heap_size_limit
console.log(`${sessions} sessions: ${(perSession / 1024).toFixed(1)} KB each in the server's heap`)
console.log(
  `10,000 sessions (the default maxSessions): ${(perSession * 10_000 / 1024 / 1024).toFixed(0)} MB, ` +
    `of a heap limit of ${(limit / 1024 / 1024).toFixed(0)} MB (Node ${process.version}, ${os.cpus().length} cores, ${
      (os.totalmem() / 1024 ** 3).toFixed(1)
    } GB)`
)
await runtime.dispose()
