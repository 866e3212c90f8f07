/**
 * Run deploy/nginx/openreward.conf, unprivileged, on loopback: the file as it is, with only its
 * addresses replaced (nginx's own, and the three replicas'), from a temporary prefix directory.
 * Used by the scale-out test and the server benchmark.
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

/** Start nginx in front of the replicas; it answers once this resolves. */
export const start = async (replicaPorts: readonly [number, number, number]): Promise<Nginx> => {
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "openreward-nginx-"))
  fs.mkdirSync(path.join(prefix, "tmp"))
  const port = await freePort()
  fs.writeFileSync(path.join(prefix, "nginx.conf"), render(port, replicaPorts))
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
