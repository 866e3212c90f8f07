/**
 * Our server, as `npm run bench:server` measures it: `Server.serve` with the Node listener, serving
 * `DialogueEnv` of `examples/support.ts` on 127.0.0.1, exactly as a program would
 * (`Server.serve(...).pipe(Layer.provide(Server.layerListener(...)), Layer.launch, NodeRuntime.runMain)`).
 *
 * ```sh
 * node --import tsx bench/server/ours.ts --port 8123
 * ```
 *
 * The process exits as soon as its standard input closes, so it never outlives the benchmark that
 * started it.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Layer from "effect/Layer"
import { createServer } from "node:http"
import { DialogueEnv } from "../../examples/support.js"
import * as Server from "../../src/Server.js"
import { exitWithParent, portArgument } from "./child.js"

exitWithParent()

Server.serve([DialogueEnv], { port: portArgument(), host: "127.0.0.1" }).pipe(
  Layer.provide(Server.layerListener((address) => NodeHttpServer.layer(createServer, address))),
  Layer.launch,
  NodeRuntime.runMain
)
