/**
 * Run deploy/nginx/openreward.conf (or auth.conf), unprivileged, on loopback: the file as it is,
 * with only its addresses replaced (nginx's own, and the replicas'), from a temporary prefix
 * directory. Used by the scale-out tests and the server benchmark.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "../..")

/** The deploy/ configuration, pointed at `port` and at the replicas' `replicaPorts` (r1, r2, r3). */
export const render = (port: number, replicaPorts: readonly [number, number, number]): string => {
  let conf = fs.readFileSync(path.join(root, "deploy/nginx/openreward.conf"), "utf8")
  const replace = (from: string, to: string) => {
    if (!conf.includes(from)) throw new Error(`deploy/nginx/openreward.conf has no ${from}`)
    conf = conf.replaceAll(from, to)
  }
  replace("listen 127.0.0.1:8080;", `listen 127.0.0.1:${port};`)
  replicaPorts.forEach((replicaPort, i) => replace(`127.0.0.1:${8081 + i}`, `127.0.0.1:${replicaPort}`))
  return conf
}

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = net.createServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

export interface Nginx {
  readonly url: string
  readonly stop: () => Promise<void>
}

/**
 * deploy/nginx/auth.conf, pointed at `port`, at the server's `serverPort`, with `key` its one key.
 */
export const renderAuth = (port: number, serverPort: number, key: string): string => {
  let conf = fs.readFileSync(path.join(root, "deploy/nginx/auth.conf"), "utf8")
  for (
    const [from, to] of [
      ["listen 127.0.0.1:8080;", `listen 127.0.0.1:${port};`],
      ["127.0.0.1:8081", `127.0.0.1:${serverPort}`],
      ["\"replace-with-a-long-random-key\"", JSON.stringify(key)]
    ] as const
  ) {
    if (!conf.includes(from)) throw new Error(`deploy/nginx/auth.conf has no ${from}`)
    conf = conf.replaceAll(from, to)
  }
  return conf
}

/**
 * Start nginx with the configuration `conf` makes for the port nginx is given (`render` or
 * `renderAuth`); it answers once this resolves.
 */
export const start = async (conf: (port: number) => string): Promise<Nginx> => {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "openreward-nginx-"))
  fs.mkdirSync(path.join(prefix, "tmp"))
  const port = await freePort()
  fs.writeFileSync(path.join(prefix, "nginx.conf"), conf(port))
  const child = spawn("nginx", ["-p", prefix, "-c", path.join(prefix, "nginx.conf"), "-e", "stderr"], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 20_000
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => {
        socket.destroy()
        resolve(true)
      })
      socket.on("error", () => resolve(false))
    })
    if (up) break
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM")
    await exited
    fs.rmSync(prefix, { recursive: true, force: true })
  }
  return { url, stop }
}
