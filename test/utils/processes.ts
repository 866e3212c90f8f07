/**
 * Child processes for the tests that run servers as users start them: spawn, wait for a line,
 * wait for the exit, check a port is free. Every child is killed (SIGKILL, its whole process
 * group) by `killAll`, so a failing test leaves nothing behind.
 */
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"

export const root = path.resolve(__dirname, "../..")

export interface Child {
  readonly process: ChildProcess
  readonly output: () => string
  /** Resolves with the exit code (or 128 + the signal's number) once the process has exited. */
  readonly exited: Promise<number>
  /** Wait (at most `ms`) for the output to match `pattern`; the match. */
  readonly waitFor: (pattern: RegExp, ms?: number) => Promise<RegExpExecArray>
}

/** Process groups started, kept after their leader exits: an orphan may still be in one. */
const groups = new Set<number>()

const signals: Record<string, number> = { SIGINT: 2, SIGKILL: 9, SIGTERM: 15 }

/** Start a process in its own process group (as a terminal runs a command), output captured. */
export const start = (command: string, args: ReadonlyArray<string>, options: SpawnOptions = {}): Child => {
  const child = spawn(command, args, { cwd: root, detached: true, stdio: ["ignore", "pipe", "pipe"], ...options })
  if (child.pid !== undefined) groups.add(child.pid)
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number>((resolve) =>
    child.on("exit", (code, signal) => {
      resolve(code ?? 128 + (signals[signal ?? ""] ?? 0))
    })
  )
  const waitFor = async (pattern: RegExp, ms = 90_000) => {
    const deadline = Date.now() + ms
    for (;;) {
      const match = pattern.exec(output)
      if (match !== null) return match
      if (Date.now() > deadline || child.exitCode !== null) {
        throw new Error(`no ${pattern} in the output of ${command} ${args.join(" ")}:\n${output}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return { process: child, output: () => output, exited, waitFor }
}

/** Kill whatever is left in the process groups of the children. */
export const killAll = (): void => {
  for (const group of groups) {
    try {
      process.kill(-group, "SIGKILL")
    } catch {
      // the group is empty
    }
  }
}

/** Whether nothing listens on the port (binding it succeeds). */
export const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = net.createServer()
    probe.once("error", () => resolve(false))
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)))
  })

/** A port nothing listens on now (for programs that cannot be told to take port 0). */
export const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const probe = net.createServer()
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })

/** Whether a process with this id exists. */
export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
