/**
 * The command line, run as a user runs it (`npm run cli -- ...` is `tsx src/bin/cli.ts ...`).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = path.resolve(__dirname, "..")
const tsx = path.join(root, "node_modules", ".bin", "tsx")
const cli = path.join(root, "src", "bin", "cli.ts")

interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const runCli = (args: ReadonlyArray<string>, stdin?: string, env?: NodeJS.ProcessEnv): Promise<Result> =>
  new Promise((resolve, reject) => {
    const child = execFile(
      tsx,
      [cli, ...args],
      { cwd: root, env: { ...process.env, ...env }, maxBuffer: 1 << 28 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(error)
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr })
      }
    )
    child.stdin?.end(stdin ?? "")
  })

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "openreward-cli-"))
const write = (name: string, text: string) => {
  const file = path.join(tmp, name)
  fs.writeFileSync(file, text)
  return file
}

const support = [
  { role: "system", blocks: [{ type: "text", text: "You are a support agent for Acme." }] },
  { role: "user", blocks: [{ type: "text", text: "My order hasn't arrived." }] },
  { role: "assistant", blocks: [{ type: "text", text: "Sorry to hear that — what's the order number?" }] },
  { role: "user", blocks: [{ type: "text", text: "It's #4411, ordered two weeks ago." }] }
]
const rich = [
  { role: "user", blocks: [{ type: "text", text: "My order #4411 hasn't arrived." }] },
  {
    role: "assistant",
    blocks: [
      { type: "reasoning", text: "Two weeks late — check the carrier first." },
      { type: "tool_call", id: "tc_1", name: "lookup_order", input: { id: "4411" } }
    ]
  },
  { role: "user", blocks: [{ type: "tool_result", tool_call_id: "tc_1", blocks: [{ type: "text", text: "stalled" }] }] }
]

describe("cli convert", () => {
  it("converts one canonical conversation from a file to a provider format", async () => {
    const result = await runCli(["convert", "--to", "anthropic", write("support.json", JSON.stringify(support))])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.deepStrictEqual(JSON.parse(result.stdout), {
      system: "You are a support agent for Acme.",
      messages: [
        { role: "user", content: [{ type: "text", text: "My order hasn't arrived." }] },
        { role: "assistant", content: [{ type: "text", text: "Sorry to hear that — what's the order number?" }] },
        { role: "user", content: [{ type: "text", text: "It's #4411, ordered two weeks ago." }] }
      ]
    })
  })

  it("reads standard input, and writes the /prompt flattening and canonical JSON", async () => {
    const prompt = await runCli(["convert", "--to", "prompt"], JSON.stringify(rich))
    assert.strictEqual(prompt.code, 0, prompt.stderr)
    assert.deepStrictEqual(JSON.parse(prompt.stdout).map((b: { text: string }) => b.text), [
      "[user]",
      "My order #4411 hasn't arrived.",
      "[assistant]",
      "<think>Two weeks late — check the carrier first.</think>",
      "[tool_call lookup_order] {\"id\": \"4411\"}",
      "[user]",
      "[tool_result]",
      "stalled"
    ])
    const canonical = await runCli(["convert", "--to", "canonical"], JSON.stringify(rich))
    assert.strictEqual(JSON.parse(canonical.stdout)[1].blocks[0].signature, null)
  })

  it("fails with the tagged error, message and block index, and exit code 1", async () => {
    const result = await runCli(["convert", "--to", "google"], JSON.stringify(rich))
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stdout, "")
    assert.match(result.stderr, /^UnsupportedBlock: message 1, block 0: /)
  })

  it("decodes a provider transcript with --from", async () => {
    const openai = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{\"x\": 1}" } }]
      },
      { role: "tool", tool_call_id: "a", content: "done" }
    ]
    const result = await runCli(["convert", "--from", "openai", "--to", "canonical"], JSON.stringify(openai))
    assert.strictEqual(result.code, 0, result.stderr)
    const conversation = JSON.parse(result.stdout)
    assert.deepStrictEqual(conversation.map((m: { role: string }) => m.role), ["user", "assistant", "user"])
    assert.strictEqual(conversation[2].blocks[0].type, "tool_result")
    const bad = await runCli(
      ["convert", "--from", "openai", "--to", "anthropic"],
      JSON.stringify([{
        role: "assistant",
        tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{oops" } }]
      }])
    )
    assert.strictEqual(bad.code, 1)
    assert.match(bad.stderr, /^InvalidToolArguments: message 0, block 0: /)
  })

  it("with --jsonl converts every good line in order and reports each bad one with its line number", async () => {
    const lines = [
      JSON.stringify(support),
      "{not json",
      JSON.stringify(rich),
      "",
      JSON.stringify([{ role: "user", blocks: [{ type: "video", url: "x" }] }]),
      JSON.stringify([{ role: "user", blocks: [{ type: "text", text: "last" }] }])
    ]
    const result = await runCli(["convert", "--to", "google", "--jsonl", write("mixed.jsonl", lines.join("\n") + "\n")])
    assert.strictEqual(result.code, 1)
    const out = result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l))
    assert.strictEqual(out.length, 2)
    assert.strictEqual(out[0].system_instruction, "You are a support agent for Acme.")
    assert.deepStrictEqual(out[1].contents, [{ role: "user", parts: [{ text: "last" }] }])
    const errors = result.stderr.trimEnd().split("\n")
    assert.strictEqual(errors.length, 3)
    assert.match(errors[0]!, /^MalformedInput: line 2: not valid JSON/)
    assert.match(errors[1]!, /^UnsupportedBlock: line 3, message 1, block 0: /)
    assert.match(errors[2]!, /^UnknownBlockType: line 5, message 0, block 0: unknown block type "video"/)
  })

  it("decodes strictly: an unknown block type is an error, never skipped", async () => {
    const result = await runCli(
      ["convert", "--to", "openai"],
      JSON.stringify([{ role: "user", blocks: [{ type: "text", text: "a" }, { type: "audio" }] }])
    )
    assert.strictEqual(result.code, 1)
    assert.match(result.stderr, /^UnknownBlockType: message 0, block 1: /)
  })

  it("documents itself", async () => {
    const result = await runCli(["convert", "--help"])
    assert.strictEqual(result.code, 0)
    for (const word of ["--to", "--from", "--jsonl", "openrouter", "prompt", "canonical"]) {
      assert.include(result.stdout, word)
    }
  })

  it("streams: converts more JSONL than its heap can hold", async () => {
    // 72 MB of conversations through a process whose heap is capped at 48 MB: buffering the input
    // (or the output) would run out of memory.
    const line = JSON.stringify([
      { role: "user", blocks: [{ type: "text", text: "x".repeat(3000) }] },
      { role: "assistant", blocks: [{ type: "text", text: "y".repeat(3000) }] }
    ]) + "\n"
    const count = 12000
    const result = await new Promise<{ code: number | null; lines: number; stderr: string }>((resolve, reject) => {
      const child = spawn(tsx, [cli, "convert", "--to", "anthropic", "--jsonl"], {
        cwd: root,
        env: { ...process.env, NODE_OPTIONS: "--max-old-space-size=48" }
      })
      let lines = 0
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => {
        for (const byte of chunk) if (byte === 10) lines++
      })
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, lines, stderr }))
      let written = 0
      const pump = () => {
        while (written < count) {
          written++
          if (!child.stdin.write(line)) return child.stdin.once("drain", pump)
        }
        child.stdin.end()
      }
      pump()
    })
    assert.strictEqual(result.code, 0, result.stderr)
    assert.strictEqual(result.lines, count)
  }, 180_000)
})

describe("cli serve", () => {
  it("serves every environment a module exports, and shuts down gracefully on SIGINT", async () => {
    // port 0: the system picks a free port and the CLI prints it, so parallel runs cannot collide
    const child = spawn(tsx, [cli, "serve", "examples/support.ts", "--port", "0", "--host", "127.0.0.1"], {
      cwd: root
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve))
    try {
      const deadline = Date.now() + 60_000
      while (!stderr.includes("serving") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      const served = /serving dialogueenv, triviaenv, transcriptenv on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr)
      assert.isNotNull(served, stderr)
      const port = Number(served![1])
      assert.isAbove(port, 0)
      const response = await fetch(`http://127.0.0.1:${port}/list_environments`)
      assert.deepStrictEqual(await response.json(), ["dialogueenv", "triviaenv", "transcriptenv"])
      const redirect = await fetch(`http://127.0.0.1:${port}/tools`, { redirect: "manual" })
      assert.strictEqual(redirect.status, 308)
      assert.strictEqual(redirect.headers.get("location"), "/dialogueenv/tools")
    } finally {
      child.kill("SIGINT")
    }
    assert.strictEqual(await closed, 0)
    assert.include(stderr, "shutting down")
  }, 90_000)

  it("refuses a module that exports no environment", async () => {
    const result = await runCli(["serve", write("empty.ts", "export const x = 1\n")])
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, "exports no environment")
  })
})
