/**
 * The example environments (examples/support.ts), served on a free loopback port for the agent
 * examples, as `openreward-effect serve examples/support.ts` would serve them. A harness in
 * production points at a real server instead; only this helper starts one.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { createServer } from "node:http"
import * as Server from "openreward-effect/Server"
import { environments } from "./support.js"

/** A running server of the example environments. */
export interface Served {
  /** `http://127.0.0.1:PORT` */
  readonly url: string
  /** Stop it: sessions still open are deleted and torn down. */
  readonly close: () => Promise<void>
}

/** Serve the example environments on 127.0.0.1, on a free port. */
export const serveExamples = async (): Promise<Served> => {
  const runtime = ManagedRuntime.make(
    Server.layer(environments).pipe(
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
    )
  )
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  const url = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  return { url, close: () => runtime.dispose() }
}
