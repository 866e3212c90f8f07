/**
 * `Testing.serve`: environments served on a free loopback port. Its own module, loaded only when
 * `serve` is called, so that `openreward-effect/Testing` (the stand-ins) needs none of the server's
 * optional peers.
 *
 * @internal
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { createServer } from "node:http"
import type * as Environment from "../../Environment.js"
import * as Server from "../../Server.js"
import type * as Testing from "../../Testing.js"

/** The URL host for an address the server listens on: loopback for a wildcard, brackets for IPv6. */
const urlHost = (hostname: string): string =>
  hostname === "0.0.0.0"
    ? "127.0.0.1"
    : hostname === "::"
    ? "[::1]"
    : hostname.includes(":")
    ? `[${hostname}]`
    : hostname

/** Serve `environments` until the returned server is closed. */
export const serve = async (
  environments: ReadonlyArray<Environment.Any>,
  options: Testing.ServeOptions<unknown>
): Promise<Testing.Served> => {
  const listen = NodeHttpServer.layer(createServer, { port: options.port ?? 0, host: options.host ?? "127.0.0.1" })
  const served = Server.layer(environments).pipe(Layer.provideMerge(listen)) as Layer.Layer<
    HttpServer.HttpServer,
    unknown,
    unknown
  >
  const layer = (options.layer === undefined ? served : Layer.provide(served, options.layer)) as Layer.Layer<
    HttpServer.HttpServer,
    unknown
  >
  const runtime = ManagedRuntime.make(layer)
  // the failure itself (an InvalidDefinition, the listener's ServeError), not a FiberFailure around it
  const started = await runtime.runPromiseExit(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (Exit.isFailure(started)) {
    await runtime.dispose()
    throw Cause.squash(started.cause)
  }
  const address = started.value
  const url = address._tag === "TcpAddress"
    ? `http://${urlHost(address.hostname)}:${address.port}`
    : `unix:${address.path}`
  let closed: Promise<void> | undefined
  const close = (): Promise<void> => closed ??= runtime.dispose()
  return { url, close, [Symbol.asyncDispose]: close }
}
