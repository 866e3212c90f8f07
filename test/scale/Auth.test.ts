/**
 * Authentication in front of a server (docs/deploying.md): deploy/nginx/auth.conf, as it is with
 * only its addresses and key replaced, in front of `openreward-effect serve --host 127.0.0.1
 * --trusted-proxies 1`. Requests without a listed `X-API-Key` get 401 (in the server's JSON shape),
 * `/health` answers without one, the reference Python client and this library's client run
 * rollouts with the key, and the session limit per client counts the address nginx saw, whatever
 * the client writes into `X-Forwarded-For` itself.
 *
 * Run by `npm run test:scale` (needs nginx on PATH and the reference SDK's venv).
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { execFile } from "node:child_process"
import * as path from "node:path"
import * as Client from "openreward-effect/Client"
import * as Nginx from "../utils/nginx.js"
import { type Child, killAll, root, start } from "../utils/processes.js"

const python = process.env["OPENREWARD_PYTHON"] ?? path.join(root, ".venv-interop/bin/python")
const driver = path.join(root, "test/scale/fixtures/driver.py")
/** The key the driver sends (its `api_key`). */
const key = "scale-test"

let server: Child
let nginx: Nginx.Nginx

beforeAll(async () => {
  server = start("node", [
    "--import",
    "tsx",
    "src/bin/cli.ts",
    "serve",
    "test/fixtures/replica/env.ts",
    "--port",
    "0",
    "--host",
    "127.0.0.1",
    "--trusted-proxies",
    "1",
    "--max-sessions-per-client",
    "4"
  ])
  const port = Number((await server.waitFor(/serving replicated on http:\/\/127\.0\.0\.1:(\d+)/))[1])
  nginx = await Nginx.start((listen) => Nginx.renderAuth(listen, port, key))
})

afterAll(async () => {
  await nginx?.stop()
  killAll()
})

const post = (path: string, headers: Readonly<Record<string, string>>, body: unknown = {}) =>
  fetch(nginx.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body)
  }).then(async (r) => ({ status: r.status, body: await r.text() }))

describe("an API key in front of the server (deploy/nginx/auth.conf)", () => {
  it("without a listed key: 401 in the server's shape; /health answers without one", async () => {
    for (const headers of [{}, { "x-api-key": "wrong" }, { "x-api-key": "" }]) {
      const reply = await post("/create_session", headers)
      assert.strictEqual(reply.status, 401)
      assert.deepStrictEqual(JSON.parse(reply.body), { detail: "Missing or unknown X-API-Key" })
    }
    assert.strictEqual((await fetch(`${nginx.url}/health`)).status, 200)
    assert.strictEqual((await post("/create_session", { "x-api-key": key })).status, 200)
  })

  it("the reference Python client, with the key, runs its rollouts", async () => {
    const result = await new Promise<string>((resolve, reject) =>
      execFile(
        python,
        [driver, nginx.url, "2", "2", "0"],
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr.slice(-4000)}`)) : resolve(stdout)
      )
    )
    const sessions = result.trim().split("\n").map((line) => JSON.parse(line)).find((e) => e.event === "result")
      .sessions as ReadonlyArray<{ readonly error: string | null; readonly replicas: ReadonlyArray<string> }>
    assert.strictEqual(sessions.length, 2)
    for (const session of sessions) {
      assert.isNull(session.error)
      assert.strictEqual(session.replicas.length, 2)
    }
  })

  it("this library's client: with the key it runs a rollout, without it the session fails", async () => {
    const rollout = (apiKey: string) =>
      Effect.runPromise(
        Effect.scoped(Effect.gen(function*() {
          const env = (yield* Client.Client).environment("replicated")
          const session = yield* env.session({ split: "train", index: 0 })
          return yield* session.callTool("work", { step: 1 })
        })).pipe(
          Effect.either,
          Effect.provide(Client.layer({ baseUrl: nginx.url, apiKey })),
          Effect.provide(NodeHttpClient.layerUndici)
        )
      )
    const allowed = await rollout(key)
    assert.isTrue(Either.isRight(allowed), String(Either.isLeft(allowed) ? allowed.left : ""))
    const refused = await rollout("not-a-key")
    assert.isTrue(Either.isLeft(refused))
    assert.include(String(Either.isLeft(refused) ? refused.left : ""), "X-API-Key")
  })

  it("the session limit per client counts the address nginx saw, not what the client wrote", async () => {
    // the other tests' sessions have ended; this client holds none
    const statuses: Array<number> = []
    for (let i = 0; i < 5; i++) {
      const reply = await post("/create", {
        "x-api-key": key,
        "x-session-id": `spoof-${i}`,
        "x-forwarded-for": `10.0.0.${i}`
      }, {
        split: "train",
        index: 0
      })
      statuses.push(reply.status)
    }
    assert.deepStrictEqual(statuses, [200, 200, 200, 200, 503])
  })
})
