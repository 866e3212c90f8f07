/**
 * The command line. Most cases run `main` in this process (the same function `src/bin/cli.ts` calls,
 * with strings for stdin, stdout and stderr); what only a process shows (exit codes, heap limits,
 * signals, loading TypeScript without a loader) runs the CLI as users do, compiled and started with
 * plain `node`, from one transpiled copy of `src/` made once for the file.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import { execFile, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Readable, Writable } from "node:stream"
import * as zlib from "node:zlib"
import { Format } from "openreward-effect"
import type * as AnthropicFormat from "openreward-effect/AnthropicFormat"
import type * as GoogleFormat from "openreward-effect/GoogleFormat"
import type * as OpenAiFormat from "openreward-effect/OpenAiFormat"
import type * as OpenAiResponsesFormat from "openreward-effect/OpenAiResponsesFormat"
import type * as OpenRouterFormat from "openreward-effect/OpenRouterFormat"
import type * as ShareGptFormat from "openreward-effect/ShareGptFormat"
import * as Args from "../src/internal/cli/args.js"
import { main } from "../src/internal/cli/main.js"
import * as CompiledCli from "./utils/compiledCli.js"

const root = path.resolve(__dirname, "..")

interface Result {
  readonly code: number | undefined
  readonly stdout: string
  readonly stderr: string
}

/** The CLI in this process. */
const cli = async (args: ReadonlyArray<string>, stdin = ""): Promise<Result> => {
  let stdout = ""
  let stderr = ""
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        append(chunk.toString())
        callback()
      }
    })
  const code = await main(args, {
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s))
  })
  return { code, stdout, stderr }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "openreward-cli-"))
const write = (name: string, text: string) => {
  const file = path.join(tmp, name)
  fs.writeFileSync(file, text)
  return file
}

// -----------------------------------------------------------------------------
// one compiled copy of the CLI for the whole-process cases
// -----------------------------------------------------------------------------

// Inside node_modules so that the build resolves the package's dependencies as `dist/` does.
const build = path.join(root, "node_modules", ".cache", `openreward-cli-test-${process.pid}`)
const compiled = path.join(build, "dist", "bin", "cli.js")

beforeAll(() => void CompiledCli.make(root, build), 60_000)

afterAll(() => {
  fs.rmSync(build, { recursive: true, force: true })
  fs.rmSync(tmp, { recursive: true, force: true })
})

/** The compiled CLI in its own process, as `node dist/bin/cli.js ...`. */
const node = (
  args: ReadonlyArray<string>,
  options: { readonly stdin?: string; readonly env?: NodeJS.ProcessEnv; readonly cwd?: string } = {}
): Promise<Result> =>
  new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [compiled, ...args],
      { cwd: options.cwd ?? root, env: { ...process.env, ...options.env }, maxBuffer: 1 << 28 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(error)
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr })
      }
    )
    child.stdin?.end(options.stdin ?? "")
  })

// -----------------------------------------------------------------------------
// conversations
// -----------------------------------------------------------------------------

const text = (t: string) => ({ type: "text", text: t })
const support = [
  { role: "system", blocks: [text("You are a support agent for Acme.")] },
  { role: "user", blocks: [text("My order hasn't arrived.")] },
  { role: "assistant", blocks: [text("Sorry to hear that — what's the order number?")] },
  { role: "user", blocks: [text("It's #4411, ordered two weeks ago.")] }
]
const rich = [
  { role: "user", blocks: [text("My order #4411 hasn't arrived.")] },
  {
    role: "assistant",
    blocks: [
      { type: "reasoning", text: "Two weeks late — check the carrier first.", signature: "sig" },
      { type: "tool_call", id: "tc_1", name: "lookup_order", input: { id: "4411", note: "naïve" } }
    ]
  },
  { role: "user", blocks: [{ type: "tool_result", tool_call_id: "tc_1", blocks: [text("stalled")] }] }
]
const toolOnly = [rich[0], { role: "assistant", blocks: [rich[1]!.blocks[1]] }, rich[2]]
const failedTool = [rich[0], toolOnly[1], {
  role: "user",
  blocks: [{ type: "tool_result", tool_call_id: "tc_1", is_error: true, blocks: [text("timeout")] }]
}]
// a trajectory that reuses its tool-call id (tau-bench does)
const reusedIds = [...toolOnly, { role: "assistant", blocks: [text("again")] }, toolOnly[1], toolOnly[2]]
const toolImage = [rich[0], toolOnly[1], {
  role: "user",
  blocks: [{
    type: "tool_result",
    tool_call_id: "tc_1",
    blocks: [text("label:"), { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }]
  }]
}]
const unsigned = [rich[0], { role: "assistant", blocks: [{ type: "reasoning", text: "Check." }, text("On it.")] }]
const laterSystem = [...support.slice(0, 2), { role: "system", blocks: [text("Be brief.")] }, support[3]]
// a provider block of a provider no format writes back: each format's `providerContent` decides
const hosted = [support[1], {
  role: "assistant",
  blocks: [
    { type: "provider", provider: "example", kind: "search", item: { type: "search", query: "order 4411" } },
    text("It is on its way.")
  ]
}]

describe("cli convert", () => {
  it("converts one canonical conversation from a file to a provider format", async () => {
    const result = await cli(["convert", "--to", "anthropic", write("support.json", JSON.stringify(support))])
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

  it("reads standard input (also as `-`), and writes the /prompt flattening and canonical JSON", async () => {
    const prompt = await cli(["convert", "--to", "prompt", "-"], JSON.stringify(rich))
    assert.strictEqual(prompt.code, 0, prompt.stderr)
    assert.deepStrictEqual(JSON.parse(prompt.stdout).map((b: { text: string }) => b.text), [
      "[user]",
      "My order #4411 hasn't arrived.",
      "[assistant]",
      "<think>Two weeks late — check the carrier first.</think>",
      "[tool_call lookup_order] {\"id\": \"4411\", \"note\": \"na\\u00efve\"}",
      "[user]",
      "[tool_result]",
      "stalled"
    ])
    const canonical = await cli(["convert", "--to", "canonical"], JSON.stringify(toolOnly))
    assert.strictEqual(canonical.code, 0, canonical.stderr)
    assert.strictEqual(JSON.parse(canonical.stdout)[2].blocks[0].is_error, false)
  })

  it("reports a failed conversation with its tag and the library's whole message, and exits 1", async () => {
    const result = await cli(["convert", "--to", "google"], JSON.stringify(rich))
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stdout, "")
    const error = Format.convert(rich, { from: "canonical", to: "google" })
    assert.isTrue(Either.isLeft(error))
    const { _tag, message } = (error as Either.Left<{ _tag: string; message: string }, unknown>).left
    assert.strictEqual(result.stderr, `${_tag}: ${message} (on the command line: --reasoning thought)\n`)
    assert.match(result.stderr, /^UnsupportedBlock: google: message 1, block 0: /)
  })

  it("names the flag and value when the library's message names an option, and following it converts", async () => {
    const cases: ReadonlyArray<readonly [string, unknown, RegExp, ReadonlyArray<string>]> = [
      ["google", rich, /encode with \{ reasoning: "thought" \}.* \(on the command line: --reasoning thought\)\n$/, [
        "--reasoning",
        "thought"
      ]],
      ["anthropic", laterSystem, /set laterSystem to "user".* \(on the command line: --later-system user\)\n$/, [
        "--later-system",
        "user"
      ]],
      [
        "openai",
        toolImage,
        /set toolResultImages to "user-message".* \(on the command line: --tool-result-images user-message\)\n$/,
        ["--tool-result-images", "user-message"]
      ]
    ]
    for (const [to, input, hint, flags] of cases) {
      const failed = await cli(["convert", "--to", to], JSON.stringify(input))
      assert.strictEqual(failed.code, 1)
      assert.match(failed.stderr, hint)
      const followed = await cli(["convert", "--to", to, ...flags], JSON.stringify(input))
      assert.strictEqual(followed.code, 0, followed.stderr)
    }
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
    const result = await cli(["convert", "--from", "openai", "--to", "canonical"], JSON.stringify(openai))
    assert.strictEqual(result.code, 0, result.stderr)
    const conversation = JSON.parse(result.stdout)
    assert.deepStrictEqual(conversation.map((m: { role: string }) => m.role), ["user", "assistant", "user"])
    assert.strictEqual(conversation[2].blocks[0].type, "tool_result")
    const bad = await cli(
      ["convert", "--from=openai", "--to=anthropic"],
      JSON.stringify([{
        role: "assistant",
        tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{oops" } }]
      }])
    )
    assert.strictEqual(bad.code, 1)
    assert.match(bad.stderr, /^InvalidToolArguments: openai: message 0, block 0: /)
  })

  it("with --jsonl converts every good line in order and reports each bad one with its line number", async () => {
    const lines = [
      JSON.stringify(support),
      "{not json",
      JSON.stringify(rich),
      "",
      JSON.stringify([{ role: "user", blocks: [{ type: "video", url: "x" }] }]),
      JSON.stringify([{ role: "user", blocks: [text("last")] }])
    ]
    const result = await cli(["convert", "--to", "google", "--jsonl", write("mixed.jsonl", lines.join("\n") + "\n")])
    assert.strictEqual(result.code, 1)
    const out = result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l))
    assert.strictEqual(out.length, 2)
    assert.strictEqual(out[0].system_instruction, "You are a support agent for Acme.")
    assert.deepStrictEqual(out[1].contents, [{ role: "user", parts: [{ text: "last" }] }])
    const errors = result.stderr.trimEnd().split("\n")
    assert.strictEqual(errors.length, 4)
    assert.match(errors[0]!, /^MalformedInput: line 2: not valid JSON/)
    assert.match(errors[1]!, /^UnsupportedBlock: line 3: google: message 1, block 0: /)
    assert.match(errors[2]!, /^UnknownBlockType: line 5: canonical: message 0, block 0: unknown block type "video"/)
    assert.strictEqual(errors[3], "openreward-effect convert: 2 converted, 3 failed, 1 blank (6 lines)")
  })

  it("with --jsonl reads a last line without a newline, CRLF line ends, and lines split across chunks", async () => {
    const one = JSON.stringify([{ role: "user", blocks: [text("ü".repeat(70_000))] }])
    const result = await cli(["convert", "--to", "openai", "--jsonl"], `${one}\r\n${one}`)
    assert.strictEqual(result.code, 0, result.stderr)
    const out = result.stdout.split("\n")
    assert.deepStrictEqual(out.slice(2), [""])
    assert.strictEqual(JSON.parse(out[1]!)[0].content, "ü".repeat(70_000))
  })

  it("decodes strictly: an unknown block type is an error, never skipped", async () => {
    const result = await cli(
      ["convert", "--to", "openai"],
      JSON.stringify([{ role: "user", blocks: [text("a"), { type: "audio" }] }])
    )
    assert.strictEqual(result.code, 1)
    assert.match(result.stderr, /^UnknownBlockType: canonical: message 0, block 1: /)
  })

  it("refuses a key the chosen format does not have instead of dropping it", async () => {
    // An Anthropic body read as OpenAI: its system prompt would be lost.
    const anthropic = { system: "Be brief.", messages: [{ role: "user", content: "hi" }] }
    const result = await cli(["convert", "--from", "openai", "--to", "canonical"], JSON.stringify(anthropic))
    assert.strictEqual(result.code, 1)
    assert.strictEqual(result.stdout, "")
    assert.match(
      result.stderr,
      /^MalformedInput: openai: malformed input at \$\.system: "system" is not a key of an openai /
    )
    assert.include(result.stderr, "pass --from anthropic")
    // its request parameters and keys of no conversation are read past, each counted as lost
    const body = { model: "gpt-4o", temperature: 0, messages: [{ role: "user", content: "hi" }] }
    assert.strictEqual((await cli(["convert", "--from", "openai", "--to", "canonical"], JSON.stringify(body))).code, 0)
    const lines = [{ ...body, foo: 1 }, body].map((b) => JSON.stringify(b)).join("\n")
    const odd = await cli(["convert", "--jsonl", "--from", "openai", "--to", "canonical"], lines)
    assert.strictEqual(odd.code, 0, odd.stderr)
    assert.strictEqual(odd.stdout.split("\n").length, 3)
    // the first loss of each kind is shown, the summary counts them all
    assert.include(
      odd.stderr,
      "lost: line 1: openai: model is lost at $.model (decode): a request parameter of the Chat Completions API"
    )
    assert.include(odd.stderr, "openai: foo is lost at $.foo (decode): not a request parameter")
    assert.notInclude(odd.stderr, "lost: line 2")
    assert.include(
      odd.stderr,
      "; lost by the formats' rules: openai model (decode) 2, openai temperature (decode) 2, openai foo (decode) 1 ("
    )
    // --strict: any loss fails its record
    const strict = await cli(["convert", "--jsonl", "--strict", "--from", "openai", "--to", "canonical"], lines)
    assert.strictEqual(strict.code, 1)
    assert.match(strict.stderr, /^Lost: line 1: openai: model is lost at \$\.model \(decode\)/)
    assert.include(strict.stderr, "0 converted, 2 failed")
  })

  it("hints at --from when the input looks like another format", async () => {
    const cases: ReadonlyArray<readonly [unknown, ReadonlyArray<string>, string]> = [
      [[{ role: "user", content: "hi" }], [], "pass --from openai (or openrouter)"],
      [{ system: "Be brief.", messages: [{ role: "user", content: "hi" }] }, [], "pass --from anthropic"],
      [{ contents: [{ role: "user", parts: [{ text: "hi" }] }] }, [], "pass --from google"],
      [
        [
          { role: "assistant", content: [{ type: "tool_use", id: "a", name: "f", input: {} }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "a", content: "x" }] }
        ],
        ["--from", "openai"],
        "pass --from anthropic"
      ],
      [[{ role: "user", blocks: [text("hi")] }], ["--from", "openai"], "pass --from canonical"],
      [{ input: "hi", instructions: "Be brief." }, [], "pass --from openai-responses"],
      [{ id: 1, conversations: [{ from: "human", value: "hi" }] }, ["--from", "openai"], "pass --from sharegpt"],
      [[{ from: "human", value: "hi" }, { from: "gpt", value: "yo" }], [], "pass --from sharegpt"]
    ]
    for (const [input, from, hint] of cases) {
      const result = await cli(["convert", "--to", "anthropic", ...from], JSON.stringify(input))
      assert.strictEqual(result.code, 1, JSON.stringify(input))
      assert.strictEqual(result.stderr.split("\n").length, 2, result.stderr)
      assert.include(result.stderr, hint)
      // the hint is right: following it converts
      const [, format] = /pass (--from \S+)/.exec(hint)![1]!.split(" ")
      const followed = await cli(["convert", "--to", "anthropic", "--from", format!], JSON.stringify(input))
      assert.strictEqual(followed.code, 0, followed.stderr)
    }
    // an Anthropic block the canonical model cannot hold, read as anthropic: no format hint (it is one)
    const document = {
      messages: [{
        role: "user",
        content: [{ type: "document", source: { type: "text", media_type: "text/plain", data: "x" } }]
      }]
    }
    const held = await cli(["convert", "--from", "anthropic", "--to", "openai"], JSON.stringify(document))
    assert.strictEqual(held.code, 1)
    assert.match(held.stderr, /^UnsupportedContent: /)
    assert.notInclude(held.stderr, "pass --from")
    // records: a preference line read as a conversation is named for what it is, and reads as one
    const dpo = {
      input: { messages: [{ role: "user", content: "hi" }] },
      preferred_output: [{ role: "assistant", content: "hello" }],
      non_preferred_output: [{ role: "assistant", content: "go away" }]
    }
    const asChat = await cli(["convert", "--from", "openai", "--to", "anthropic"], JSON.stringify(dpo))
    assert.strictEqual(asChat.code, 1)
    assert.include(asChat.stderr, "(this looks like an OpenAI preference fine-tuning record: pass --record openai-dpo)")
    assert.notInclude(asChat.stderr, "pass --from")
    const asRecord = await cli(["convert", "--record", "openai-dpo", "--to", "anthropic"], JSON.stringify(dpo))
    assert.strictEqual(asRecord.code, 0, asRecord.stderr)
    // a fine-tuning line with an id: its record shape
    const sft = { id: 7, messages: [{ role: "user", content: "hi" }] }
    const bare = await cli(["convert", "--from", "openai", "--to", "anthropic"], JSON.stringify(sft))
    assert.strictEqual(bare.code, 0, bare.stderr)
    assert.include(bare.stderr, "openai: id is lost at $.id (decode)")
    const strictly = await cli(["convert", "--strict", "--from", "openai", "--to", "anthropic"], JSON.stringify(sft))
    assert.strictEqual(strictly.code, 1)
    assert.include(strictly.stderr, "pass --record openai-sft")
    assert.strictEqual(
      (await cli(["convert", "--record", "openai-sft", "--to", "anthropic"], JSON.stringify(sft))).code,
      0
    )
    // tools beside a bare conversation: the body record carries them
    const tools = { ...sft, id: undefined, tools: [{ type: "function", function: { name: "f" } }] }
    const dropped = await cli(["convert", "--from", "openai", "--to", "anthropic"], JSON.stringify(tools))
    assert.strictEqual(dropped.code, 1)
    assert.match(dropped.stderr, /^UnsupportedParameter: anthropic: cannot hold tools at \$\.tools: /)
    assert.include(dropped.stderr, "pass --record openai-sft")
    // a Responses body with tools: the body record
    const responses = { input: "hi", tools: [{ type: "function", name: "f", parameters: null, strict: false }] }
    const asBare = await cli(["convert", "--from", "openai-responses", "--to", "anthropic"], JSON.stringify(responses))
    assert.include(asBare.stderr, "(this is a request body: pass --record body to convert it with its tool settings)")
    const asBody = await cli(
      ["convert", "--record", "body", "--from", "openai-responses", "--to", "anthropic"],
      JSON.stringify(responses)
    )
    assert.strictEqual(asBody.code, 0, asBody.stderr)
    assert.deepStrictEqual(JSON.parse(asBody.stdout).tools, [{
      name: "f",
      input_schema: { type: "object", properties: {} },
      strict: false
    }])
    const carried = await cli(["convert", "--record", "openai-sft", "--to", "anthropic"], JSON.stringify(tools))
    assert.strictEqual(carried.code, 0, carried.stderr)
    assert.deepStrictEqual(JSON.parse(carried.stdout).tools, [{
      name: "f",
      input_schema: { type: "object", properties: {} }
    }])
    // no hint when the input is the format it was read as, only wrong
    const wrong = await cli(["convert", "--to", "anthropic"], JSON.stringify([{ role: "user", blocks: [{}] }]))
    assert.strictEqual(wrong.code, 1)
    assert.notInclude(wrong.stderr, "pass --from")
  })
})

describe("cli options", () => {
  // `onLoss` is the library's callback (Codec.Reporting), what `convert` itself passes: not a flag
  type Covered<O> = { readonly [K in Exclude<keyof Required<O>, "onLoss">]: true }
  // A compile error here when a format gains an option: give it a flag in src/internal/cli/args.ts.
  const options: Covered<
    & OpenAiFormat.EncodeOptions
    & OpenRouterFormat.EncodeOptions
    & AnthropicFormat.EncodeOptions
    & GoogleFormat.EncodeOptions
    & OpenAiResponsesFormat.EncodeOptions
    & ShareGptFormat.EncodeOptions
    & OpenAiFormat.DecodeOptions
    & OpenRouterFormat.DecodeOptions
    & OpenAiResponsesFormat.DecodeOptions
    & ShareGptFormat.DecodeOptions
  > = {
    reasoningField: true,
    reasoningOnToolCalls: true,
    toolResultImages: true,
    toolArguments: true,
    system: true,
    laterSystem: true,
    casing: true,
    systemInstruction: true,
    toolCallIds: true,
    toolErrors: true,
    reasoning: true,
    unsignedReasoning: true,
    reasoningWithoutId: true,
    systemRole: true,
    systemPrompt: true,
    reusedToolCallIds: true,
    encryptedReasoning: true,
    providerContent: true,
    invalidToolArguments: true
  }

  it("has a flag for every encode and decode option of the formats, and the formats' names", () => {
    assert.deepStrictEqual(
      [...new Set(Args.formatFlags.map((f) => f.option ?? f.key))].sort(),
      Object.keys(options).sort()
    )
    // the flag's value is stored under its own key
    assert.strictEqual(new Set(Args.formatFlags.map((f) => f.key)).size, Args.formatFlags.length)
    assert.deepStrictEqual([...Args.sources], [...Format.sources])
    assert.deepStrictEqual([...Args.targets], [...Format.targets])
    assert.deepStrictEqual([...Args.providers], [...Format.providers])
    assert.deepStrictEqual([...Args.formats], Object.keys(Format.codecs))
  })

  it("reads every format's codec from the library's registry: Format.load(name) is Format.encoders[name]", async () => {
    for (const name of Format.targets) assert.strictEqual(await Format.load(name), Format.encoders[name], name)
    assert.deepStrictEqual(Object.keys(Format.encoders).sort(), [...Format.targets].sort())
    await Format.load("gemini" as never).then(
      () => assert.fail("a name no format has loaded a codec"),
      (e: unknown) => assert.match(String(e), /no format is named "gemini"/)
    )
  })

  // Each flag, on a conversation where it matters: the CLI writes what the codec writes with that
  // option, which is not what it writes without it.
  const encodeCases: ReadonlyArray<
    readonly [format: Args.Provider, flag: string, value: string | true, conversation: ReadonlyArray<unknown>]
  > = [
    ["openai", "reasoning-field", "reasoning", rich],
    ["openrouter", "reasoning-field", "omit", rich],
    ["openai", "reasoning-on-tool-calls", true, toolOnly],
    ["openrouter", "reasoning-on-tool-calls", true, toolOnly],
    ["openai", "tool-result-images", "user-message", toolImage],
    ["openrouter", "tool-result-images", "tool-message", toolImage],
    ["openai", "tool-arguments", "json", rich],
    ["openrouter", "tool-arguments", "json", rich],
    ["anthropic", "system", "blocks", support],
    ["anthropic", "later-system", "inline", laterSystem],
    ["anthropic", "later-system", "user", laterSystem],
    ["google", "later-system", "user", laterSystem],
    ["google", "casing", "camel", support],
    ["google", "system-instruction", "content", support],
    ["google", "tool-call-ids", true, toolOnly],
    ["google", "tool-errors", "error", failedTool],
    ["google", "reasoning", "thought", rich],
    ["anthropic", "unsigned-reasoning", "text", unsigned],
    ["anthropic", "reused-tool-call-ids", "rename", reusedIds],
    ["openai-responses", "reasoning-without-id", "text", rich],
    ["openai-responses", "system-role", "developer", support],
    ["openai-responses", "tool-arguments", "json", toolOnly],
    ...(["openai", "openrouter", "anthropic", "google", "openai-responses"] as const).flatMap((format) =>
      (["text", "omit"] as const).map((value) => [format, "provider-content-to", value, hosted] as const)
    )
  ]
  const codecOutput = (result: Either.Either<unknown, { readonly message: string }>) =>
    Either.match(result, { onLeft: (e) => `error: ${e.message}`, onRight: (wire) => wire })

  it("reaches every encode option with a flag", async () => {
    for (const [format, flag, value, conversation] of encodeCases) {
      const found = Args.formatFlags.find((f) => f.name === flag)!
      const key = found.option ?? found.key
      const decoded = Format.read("canonical", conversation)
      assert.isTrue(Either.isRight(decoded))
      const canonical = (decoded as Either.Right<never, Format.Target & never>).right
      const expected = codecOutput(Format.codecs[format].encode(canonical, { [key]: value }))
      assert.notDeepEqual(expected, codecOutput(Format.codecs[format].encode(canonical)), `${format} --${flag}`)
      const args = ["convert", "--to", format, ...(value === true ? [`--${flag}`] : [`--${flag}`, value])]
      const result = await cli(args, JSON.stringify(conversation))
      assert.strictEqual(result.code, 0, `${args.join(" ")}: ${result.stderr}`)
      assert.deepStrictEqual(JSON.parse(result.stdout), expected, args.join(" "))
    }
  })

  it("reaches every decode option with a flag", async () => {
    const openrouter = [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello", reasoning_details: [{ type: "reasoning.encrypted", data: "opaque" }] }
    ]
    for (const from of ["openai", "openrouter"]) {
      // kept by default, as a reasoning block with the data as its signature
      const kept = await cli(["convert", "--from", from, "--to", "canonical"], JSON.stringify(openrouter))
      assert.strictEqual(kept.code, 0, kept.stderr)
      assert.strictEqual(JSON.parse(kept.stdout)[1].blocks[0].signature, "opaque")
      const strictArgs = ["convert", "--from", from, "--to", "canonical", "--encrypted-reasoning", "error"]
      const strict = await cli(strictArgs, JSON.stringify(openrouter))
      assert.strictEqual(strict.code, 1)
      assert.match(strict.stderr, /^UnsupportedContent: /)
      const args = ["convert", "--from", from, "--to", "canonical", "--encrypted-reasoning", "drop"]
      const dropped = await cli(args, JSON.stringify(openrouter))
      assert.strictEqual(dropped.code, 0, dropped.stderr)
      assert.deepStrictEqual(
        JSON.parse(dropped.stdout),
        codecOutput(
          Either.map(
            Format.codecs[from as Args.Provider].decode(openrouter, { encryptedReasoning: "drop" }),
            (c) => JSON.parse(JSON.stringify(Format.write("canonical", c).pipe(Either.getOrThrow)))
          )
        )
      )
    }
    const cut = "{\"city\": \"Par"
    const inputs = {
      openai: [{
        role: "assistant",
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: cut } }]
      }],
      "openai-responses": [{ type: "function_call", call_id: "c1", name: "f", arguments: cut }]
    } as const
    for (const [from, input] of [...Object.entries(inputs), ["openrouter", inputs.openai] as const]) {
      const strict = await cli(["convert", "--from", from, "--to", "canonical"], JSON.stringify(input))
      assert.strictEqual(strict.code, 1)
      assert.match(strict.stderr, /^InvalidToolArguments: /)
      const kept = await cli(
        ["convert", "--from", from, "--to", "canonical", "--invalid-tool-arguments", "keep"],
        JSON.stringify(input)
      )
      assert.strictEqual(kept.code, 0, kept.stderr)
      const [message] = JSON.parse(kept.stdout)
      assert.deepStrictEqual(message.blocks[0].input, {}, from)
      assert.deepStrictEqual(message.blocks[0].detail.invalid_arguments, { raw: cut, reason: "not valid JSON" }, from)
    }
  })

  it("reaches the providerContent decode option with --provider-content, and names the flags in errors", async () => {
    const transcript = {
      messages: [
        { role: "user", content: "What is the weather in Paris?" },
        {
          role: "assistant",
          content: [
            { type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: { query: "Paris weather" } },
            { type: "text", text: "Sunny." }
          ]
        }
      ]
    }
    const refused = await cli(["convert", "--from", "anthropic", "--to", "canonical"], JSON.stringify(transcript))
    assert.strictEqual(refused.code, 1)
    assert.match(refused.stderr, /^UnsupportedContent: anthropic: message 1, block 0: "server_tool_use" /)
    assert.include(refused.stderr, "(on the command line: --provider-content keep)")
    const kept = await cli(
      ["convert", "--from", "anthropic", "--to", "anthropic", "--provider-content", "keep"],
      JSON.stringify(transcript)
    )
    assert.strictEqual(kept.code, 0, kept.stderr)
    assert.deepStrictEqual(JSON.parse(kept.stdout), {
      system: null,
      messages: transcript.messages.map((m) =>
        typeof m.content === "string" ? { role: m.role, content: [{ type: "text", text: m.content }] } : m
      )
    })
    // to another format: an error naming the flag, or the block as text
    const other = await cli(
      ["convert", "--from", "anthropic", "--to", "openai", "--provider-content", "keep"],
      JSON.stringify(transcript)
    )
    assert.strictEqual(other.code, 1)
    assert.match(other.stderr, /^UnsupportedBlock: openai: message 1, block 0: cannot represent a "provider" block: /)
    assert.include(other.stderr, "(on the command line: --provider-content-to omit)")
  })

  it("refuses an option, or an option's value, that the chosen format does not have", async () => {
    for (
      const [args, message] of [
        [["--to", "openai", "--casing", "camel"], "--casing applies to --to google, not openai"],
        [
          ["--to", "openai", "--tool-result-images", "tool-message"],
          "--tool-result-images tool-message applies to --to openrouter only"
        ],
        [["--to", "google", "--later-system", "inline"], "--later-system inline applies to --to anthropic only"],
        [
          ["--from", "google", "--to", "openai", "--encrypted-reasoning", "drop"],
          "--encrypted-reasoning applies to --from openai or openrouter, not google"
        ]
      ] as const
    ) {
      const result = await cli(["convert", ...args], JSON.stringify(support))
      assert.strictEqual(result.code, 2)
      assert.strictEqual(result.stderr.split("\n")[0], `openreward-effect convert: ${message}`)
    }
  })
})

describe("cli usage", () => {
  const usageLine = `Usage: ${Args.convert.usage}`

  it("reports a usage error as one message and the command's usage, once, and exits 2", async () => {
    const file = write("ok.json", JSON.stringify(support))
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [
        ["convert", "--to", "gpt", file],
        "--to must be one of openai, openrouter, anthropic, google, openai-responses, sharegpt, prompt, canonical; got \"gpt\""
      ],
      [["convert", file], "--to is required"],
      [
        ["convert", "--to", "openai", path.join(tmp, "missing.json")],
        `no such file: ${path.join(tmp, "missing.json")}`
      ],
      [["convert", "--to", "openai", tmp], `${tmp} is a directory`],
      [["convert", "--to", "openai", "--color", file], "unknown option --color"],
      [["convert", "--to", "openai", "--jsonl=yes", file], "--jsonl takes no value"],
      [["convert", "--to", "openai", "--to", "google", file], "--to is given twice"],
      [["convert", "--to"], "--to needs a value"],
      [
        ["convert", "--to", "openai", file, file],
        `one FILE at most, got ${JSON.stringify(file)}, ${JSON.stringify(file)}`
      ]
    ]
    for (const [args, message] of cases) {
      const result = await cli(args)
      assert.strictEqual(result.code, 2, args.join(" "))
      assert.strictEqual(result.stdout, "")
      assert.strictEqual(
        result.stderr,
        `openreward-effect convert: ${message}\n\n${usageLine}\nRun 'openreward-effect convert --help' for the options and examples.\n`
      )
    }
    for (
      const [args, message] of [[["transmogrify"], "unknown command \"transmogrify\""], [
        [],
        "a command is required"
      ]] as const
    ) {
      const result = await cli(args)
      assert.strictEqual(result.code, 2)
      assert.strictEqual(result.stderr.split("\n")[0], `openreward-effect: ${message}`)
      assert.include(result.stderr, "Usage: openreward-effect COMMAND")
    }
    const serve = await cli(["serve", "--port", "eighty"])
    assert.strictEqual(serve.code, 2)
    assert.strictEqual(
      serve.stderr.split("\n")[0],
      "openreward-effect serve: --port must be a whole number; got \"eighty\""
    )
    assert.include(serve.stderr, `Usage: ${Args.serve.usage}`)
    const key = await cli(["serve", "env.js", "--route-key", "r1.x"])
    assert.strictEqual(key.code, 2)
    assert.strictEqual(
      key.stderr.split("\n")[0],
      "openreward-effect serve: --route-key must be 1 to 64 letters, digits, '_' or '-'; got \"r1.x\""
    )
    const drain = await cli(["serve", "env.js", "--drain-timeout", "-1"])
    assert.strictEqual(drain.code, 2)
    assert.include(drain.stderr.split("\n")[0], "--drain-timeout")
  })

  it("documents itself: the program's name, defaults, examples, and no boilerplate", async () => {
    const help = await cli(["convert", "--help"])
    assert.strictEqual(help.code, 0)
    assert.strictEqual(help.stderr, "")
    assert.isTrue(help.stdout.startsWith("openreward-effect convert: "))
    assert.include(help.stdout, `Usage: openreward-effect convert --to FORMAT`)
    assert.match(help.stdout, /--from FORMAT .*default: canonical/)
    assert.include(help.stdout, "Examples:\n  openreward-effect convert --to anthropic conversation.json")
    for (const flag of Args.convert.flags) assert.include(help.stdout, `--${flag.name}`)
    for (const word of ["--wizard", "--completions", "--log-level", "$ convert"]) assert.notInclude(help.stdout, word)
    assert.strictEqual((await cli(["help", "convert"])).stdout, help.stdout)
    assert.strictEqual((await cli(["convert", "--to", "openai", "-h"])).stdout, help.stdout)
    const serve = await cli(["serve", "--help"])
    assert.include(serve.stdout, "--port N")
    assert.include(serve.stdout, "default: 8080")
    assert.include(serve.stdout, "--route-key KEY")
    assert.match(serve.stdout, /--drain-timeout SECONDS .*default: 30/)
    const rootHelp = await cli(["--help"])
    assert.include(rootHelp.stdout, "Commands:\n  convert")
    assert.include(rootHelp.stdout, "--version")
  })

  it("prints the version in package.json", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
    for (const flag of ["--version", "-V"]) {
      assert.deepStrictEqual(await cli([flag]), { code: 0, stdout: `openreward-effect ${version}\n`, stderr: "" })
    }
  })

  it("as a process: exits 2 on a usage error, writes no ANSI codes to a pipe, with or without NO_COLOR", async () => {
    const plain = await node(["convert", "--to", "gpt"])
    assert.strictEqual(plain.code, 2)
    assert.strictEqual(plain.stderr, (await cli(["convert", "--to", "gpt"])).stderr)
    const noColor = await node(["convert", "--to", "gpt"], { env: { NO_COLOR: "1", FORCE_COLOR: undefined } })
    assert.strictEqual(noColor.stderr, plain.stderr)
    const help = await node(["convert", "--help"], { env: { FORCE_COLOR: "1" } })
    assert.strictEqual(help.code, 0)
    for (const output of [plain.stderr, help.stdout]) assert.notInclude(output, "\u001b[")
    assert.strictEqual((await node(["--version"])).code, 0)
  })
})

describe("cli processes", () => {
  it("streams: converts more JSONL than its heap can hold", async () => {
    // 72 MB of conversations through a process whose heap is capped at 48 MB: buffering the input
    // (or the output) would run out of memory.
    const line = JSON.stringify([
      { role: "user", blocks: [text("x".repeat(3000))] },
      { role: "assistant", blocks: [text("y".repeat(3000))] }
    ]) + "\n"
    const count = 12000
    const result = await new Promise<{ code: number | null; lines: number; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [
        "--max-old-space-size=48",
        compiled,
        "convert",
        "--to",
        "anthropic",
        "--jsonl"
      ], {
        cwd: root
      })
      let lines = 0
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => {
        for (const byte of chunk) if (byte === 10) lines++
      })
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      child.on("error", reject)
      child.stdin.on("error", reject)
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
  }, 120_000)

  it("stops quietly when its reader goes away (`| head`)", async () => {
    const lines = Array.from({ length: 20_000 }, () => JSON.stringify(support)).join("\n")
    const result = await new Promise<{ code: number | null; stderr: string; first: string }>((resolve) => {
      const child = spawn(process.execPath, [compiled, "convert", "--to", "openai", "--jsonl"], { cwd: root })
      let stderr = ""
      let first = ""
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      child.stdout.once("data", (chunk: Buffer) => {
        first = chunk.toString().split("\n")[0]!
        child.stdout.destroy()
      })
      child.on("close", (code) => resolve({ code, stderr, first }))
      child.stdin.on("error", () => {})
      child.stdin.end(lines)
    })
    assert.strictEqual(JSON.parse(result.first)[0].role, "system")
    assert.strictEqual(result.stderr, "")
    assert.strictEqual(result.code, 0)
  }, 60_000)
})

describe("cli serve", () => {
  it("serves a TypeScript module from the compiled CLI, and shuts down gracefully on SIGINT", async () => {
    // plain `node` on Node 20 cannot import .ts: the CLI loads it through the project's tsx.
    // port 0: the system picks a free port and the CLI prints it, so parallel runs cannot collide
    const child = spawn(process.execPath, [
      compiled,
      "serve",
      "examples/support.ts",
      "--port",
      "0",
      "--host",
      "127.0.0.1"
    ], {
      cwd: root
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve))
    try {
      const deadline = Date.now() + 60_000
      while (!/serving|openreward-effect serve:/.test(stderr) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50))
      }
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

  it("says exactly what to do when a TypeScript module cannot be loaded", async () => {
    // outside the repository: no tsx to find from the module
    const module = write("my-env.ts", "export const x: number = 1\n")
    const result = await node(["serve", module], { cwd: tmp })
    if (Number(process.versions.node.split(".")[0]) >= 23) return // Node strips types itself
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, `cannot load ${module}: Node ${process.version} cannot import TypeScript by itself`)
    assert.include(result.stderr, "npm install --save-dev tsx")
    assert.notInclude(result.stderr, "Unknown file extension")
  }, 60_000)

  it("refuses a module that exports no environment", async () => {
    const result = await node(["serve", write("empty.mjs", "export const x = 1\n")], { cwd: tmp })
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, "exports no environment")
  }, 60_000)
})

// -----------------------------------------------------------------------------
// datasets
// -----------------------------------------------------------------------------

const corpusCli = path.resolve(root, "..", "shared", "corpora", "transcripts", "cli")

/** The CLI in this process, with bytes for stdin and a terminal (or not) for stderr. */
const cliBytes = async (
  args: ReadonlyArray<string>,
  stdin: Uint8Array,
  options: { readonly tty?: boolean } = {}
): Promise<Result & { readonly stdoutBytes: Buffer }> => {
  const out: Array<Buffer> = []
  let stderr = ""
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      out.push(Buffer.from(chunk))
      callback()
    }
  })
  const err = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        stderr += chunk.toString()
        callback()
      }
    }),
    { isTTY: options.tty === true }
  )
  const code = await main(args, { stdin: Readable.from([Buffer.from(stdin)]), stdout, stderr: err })
  const stdoutBytes = Buffer.concat(out)
  return { code, stdout: stdoutBytes.toString(), stderr, stdoutBytes }
}

const sftLine = (id: number, content: string) =>
  JSON.stringify({ id, messages: [{ role: "user", content }, { role: "assistant", content: "ok" }], weight: 1 })

describe("cli datasets", () => {
  it("--record keeps every other key; --messages-field and --messages-path convert in place", async () => {
    const lines = [sftLine(1, "a"), sftLine(2, "b")].join("\n") + "\n"
    const result = await cli(["convert", "--jsonl", "--record", "openai-sft", "--to", "google"], lines)
    assert.strictEqual(result.code, 0, result.stderr)
    const out = result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l))
    assert.deepStrictEqual(out.map((o) => [o.id, o.weight, Object.keys(o)]), [
      [1, 1, ["id", "contents", "weight"]],
      [2, 1, ["id", "contents", "weight"]]
    ])
    const nested = JSON.stringify({ id: 9, request: { history: [{ role: "user", content: "x" }] } })
    const field = await cli(
      ["convert", "--messages-path", "/request/history", "--from", "openai", "--to", "canonical"],
      nested
    )
    assert.strictEqual(field.code, 0, field.stderr)
    assert.deepStrictEqual(JSON.parse(field.stdout).request.history[0].blocks, [{
      type: "text",
      text: "x",
      detail: null
    }])
    const top = await cli(
      ["convert", "--messages-field", "history", "--from", "openai", "--to", "canonical"],
      JSON.stringify({ id: 9, history: [{ role: "user", content: "x" }] })
    )
    assert.strictEqual(JSON.parse(top.stdout).id, 9)
    // the shape names the format: --from is not needed, and a decode option of that format applies
    const usage = await cli(["convert", "--record", "openai-sft", "--messages-field", "m", "--to", "openai"], "{}")
    assert.strictEqual(usage.code, 2)
    assert.include(usage.stderr, "--record and --messages-field exclude each other")
    const option = await cli(
      ["convert", "--record", "openai-sft", "--to", "canonical", "--encrypted-reasoning", "drop"],
      sftLine(1, "a")
    )
    assert.strictEqual(option.code, 0, option.stderr)
  })

  it("converts the corpus files users have: every line converted, or refused with a typed error", async () => {
    // OpenAI's cookbook ships pretty-printed records: the hint says --json-seq, and following it converts them
    const cookbook = path.join(corpusCli, "cookbook-01-testing-example-head.jsonl")
    const asLines = await cli(["convert", "--jsonl", "--record", "openai-sft", "--to", "anthropic", cookbook])
    assert.strictEqual(asLines.code, 1)
    assert.include(
      asLines.stderr.split("\n")[0],
      "(this looks like pretty-printed JSON, a record over several lines: pass --json-seq)"
    )
    const asSeq = await cli(["convert", "--json-seq", "--record", "openai-sft", "--to", "anthropic", cookbook])
    assert.strictEqual(asSeq.code, 0, asSeq.stderr)
    assert.strictEqual(asSeq.stdout.trimEnd().split("\n").length, 2)
    assert.match(asSeq.stderr, /^openreward-effect convert: 2 converted, 0 failed, 0 blank \(2 records\)\n$/)

    // transcripts and request bodies other projects keep, one per line: converted with their tools
    // and request keys, or refused for content the canonical model has no form for (or input that
    // is not the format: SWE-agent's `tool_call_ids`, arguments encoded twice); Mistral's thinking
    // parts (line 32) are reasoning
    const inputs = path.join(corpusCli, "openai-inputs.jsonl")
    const refused: { readonly [line: number]: string } = {
      7: "MalformedInput",
      8: "MalformedInput",
      11: "UnsupportedContent",
      12: "UnsupportedContent",
      18: "InvalidToolArguments",
      21: "UnsupportedContent",
      22: "UnsupportedContent",
      23: "UnsupportedContent",
      24: "UnsupportedContent"
    }
    const failures = path.join(tmp, "corpus-failures.jsonl")
    const input = fs.readFileSync(inputs, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l))
    for (const to of ["canonical", "anthropic", "google", "openai-responses"]) {
      // tau-bench reuses tool-call ids, which Anthropic refuses: renamed (the default refusal below)
      const rename = to === "anthropic" ? ["--reused-tool-call-ids", "rename"] : []
      const args = ["convert", "--jsonl", "--record", "body", "--from", "openai", "--to", to, "--aligned", ...rename]
      const result = await cli([...args, "--unsupported", "report", "--failures", failures, inputs])
      assert.strictEqual(result.code, 1)
      const out = result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l))
      assert.strictEqual(out.length, input.length)
      const failed = fs.readFileSync(failures, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l))
      // line 32's reasoning has no signature, which Gemini (and the Responses API, without an item
      // id) cannot take
      const unsigned = to === "google" || to === "openai-responses"
      const expected = unsigned ? { ...refused, 32: "UnsupportedBlock" } : refused
      assert.deepStrictEqual(Object.fromEntries(failed.map((f) => [f.line, f.tag])), expected, to)
      for (const f of failed) {
        assert.deepStrictEqual(Object.keys(f), ["line", "tag", "message", "path"])
        assert.strictEqual(out[f.line - 1], null)
      }
      input.forEach((record, i) => {
        if (expected[i + 1] !== undefined || Array.isArray(record)) return
        // every key that is not conversation or tools is carried through as it was
        for (const [key, value] of Object.entries(record)) {
          if (["messages", "tools", "tool_choice", "parallel_tool_calls"].includes(key)) continue
          assert.deepStrictEqual(out[i][key], value, `line ${i + 1} ${key} to ${to}`)
        }
        // and every function tool has its place in the target's tools
        const tools = (record as { tools?: ReadonlyArray<unknown> }).tools ?? []
        const written = to === "google" ? out[i].tools?.[0]?.function_declarations ?? [] : out[i].tools ?? []
        assert.strictEqual(written.length, tools.length, `line ${i + 1} to ${to}`)
      })
      assert.match(
        result.stderr,
        unsigned ? /convert: 22 converted, 10 failed, 0 blank/ : /convert: 23 converted, 9 failed, 0 blank/
      )
    }
    const strictIds = await cli([
      "convert",
      "--jsonl",
      "--record",
      "body",
      "--from",
      "openai",
      "--to",
      "anthropic",
      inputs
    ])
    assert.include(strictIds.stderr, "is used by an earlier tool call, and the Messages API needs unique ids")
    assert.include(strictIds.stderr, "(on the command line: --reused-tool-call-ids rename)")
  })

  it("input as people have it: a byte order mark, bytes that are not UTF-8, gzip in and out", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    const doc = await cliBytes(
      ["convert", "--from", "openai", "--to", "canonical"],
      Buffer.concat([bom, Buffer.from("[{\"role\":\"user\",\"content\":\"hi\"}]")])
    )
    assert.strictEqual(doc.code, 0, doc.stderr)
    const lines = Buffer.concat([
      bom,
      Buffer.from(sftLine(1, "a") + "\n"),
      Buffer.from("{\"id\": 2, \"messages\": [{\"role\": \"user\", \"content\": \"b"),
      Buffer.from([0xff]),
      Buffer.from("\"}]}\n" + sftLine(3, "c") + "\n")
    ])
    const result = await cliBytes(["convert", "--jsonl", "--record", "openai-sft", "--to", "openai"], lines)
    assert.strictEqual(result.code, 1)
    const at = 3 + sftLine(1, "a").length + 1 + 53
    assert.strictEqual(lines[at], 0xff)
    assert.strictEqual(
      result.stderr.split("\n")[0],
      `InvalidUtf8: line 2: not valid UTF-8: byte 53 of the line (byte ${at} of the input)`
    )
    assert.deepStrictEqual(result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l).id), [1, 3])
    const whole = await cliBytes(["convert", "--to", "openai"], Buffer.from([0x5b, 0x0a, 0xc3]))
    assert.strictEqual(whole.stderr, "InvalidUtf8: not valid UTF-8: byte 0 of the line (byte 2 of the input)\n")

    // gzip: read by the file's name or its first bytes, written by --output's name or --gzip
    const plain = [sftLine(1, "a"), sftLine(2, "b")].join("\n") + "\n"
    const gz = write("records.jsonl.gz", "")
    fs.writeFileSync(gz, zlib.gzipSync(plain))
    const out = path.join(tmp, "out.jsonl.gz")
    const fromFile = await cli([
      "convert",
      "--jsonl",
      "--record",
      "openai-sft",
      "--to",
      "anthropic",
      "--output",
      out,
      gz
    ])
    assert.strictEqual(fromFile.code, 0, fromFile.stderr)
    assert.strictEqual(fromFile.stdout, "")
    const expected =
      (await cli(["convert", "--jsonl", "--record", "openai-sft", "--to", "anthropic", "--quiet"], plain)).stdout
    assert.strictEqual(zlib.gunzipSync(fs.readFileSync(out)).toString(), expected)
    const fromStdin = await cliBytes(
      ["convert", "--jsonl", "--record", "openai-sft", "--to", "anthropic", "--gzip"],
      zlib.gzipSync(plain)
    )
    assert.strictEqual(zlib.gunzipSync(fromStdin.stdoutBytes).toString(), expected)
    const broken = await cliBytes(["convert", "--jsonl", "--to", "openai"], zlib.gzipSync(plain).subarray(0, 30))
    assert.strictEqual(broken.code, 2)
    assert.match(broken.stderr, /^openreward-effect convert: cannot read the input: the input is not valid gzip/)
  })

  it("reads a file whose lines cross its 1 MiB reads, the same as from standard input", async () => {
    // (a line's start is kept across reads as a copy: the read buffers are filled again)
    const lines: Array<string> = []
    for (let i = 0; i < 400; i++) lines.push(sftLine(i, "é".repeat((i * 7919) % 20000)))
    const input = lines.join("\n") + "\n"
    assert.isAbove(input.length, 3 << 20)
    const args = ["convert", "--jsonl", "--record", "openai-sft", "--to", "anthropic"]
    const fromFile = await cli([...args, write("crossing.jsonl", input)])
    const fromStdin = await cli(args, input)
    assert.strictEqual(fromFile.stderr, "openreward-effect convert: 400 converted, 0 failed, 0 blank (400 lines)\n")
    assert.strictEqual(fromFile.stdout, fromStdin.stdout)
  })

  it("--json-seq reads concatenated, pretty-printed and RS-separated records, numbered by their first line", async () => {
    const records = [
      JSON.stringify({ id: 1, messages: [{ role: "user", content: "a } { \" [" }] }, null, 2),
      JSON.stringify({ id: 2, messages: [{ role: "user", content: "b" }] }),
      "\u001e" + JSON.stringify({ id: 3, messages: [] }),
      "{\"id\": 4, \"messages\": [{\"role\": \"nobody\"}]}"
    ]
    const input = records.slice(0, 2).join("") + "\n\n" + records.slice(2).join("\n") + "\n"
    const result = await cli(["convert", "--json-seq", "--record", "openai-sft", "--to", "canonical"], input)
    assert.strictEqual(result.code, 1)
    const out = result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l))
    assert.deepStrictEqual(out.map((o) => o.id), [1, 2, 3])
    const lineOf4 = input.slice(0, input.indexOf("{\"id\": 4")).split("\n").length
    assert.match(result.stderr, new RegExp(`^MalformedInput: line ${lineOf4}: `))
    assert.match(result.stderr, /3 converted, 1 failed, 0 blank \(4 records\)\n$/)
  })

  it("--aligned keeps line k of the output for line k of the input; --failures lists each failure; the rerun one-liner converts them alone", async () => {
    const input =
      [sftLine(1, "a"), "{oops", "", sftLine(4, "d"), JSON.stringify({ id: 5 }), sftLine(6, "f")].join("\n") + "\n"
    const file = write("aligned.jsonl", input)
    const failures = path.join(tmp, "failed.jsonl")
    const args = ["convert", "--jsonl", "--record", "openai-sft", "--to", "anthropic"]
    const result = await cli([...args, "--aligned", "--failures", failures, file])
    assert.strictEqual(result.code, 1)
    const out = result.stdout.split("\n")
    assert.strictEqual(out.length - 1, input.split("\n").length - 1)
    assert.deepStrictEqual(out.map((l) => l === "" ? "" : l === "null" ? null : JSON.parse(l).id), [
      1,
      null,
      "",
      4,
      null,
      6,
      ""
    ])
    const listed = fs.readFileSync(failures, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l))
    assert.deepStrictEqual(listed.map((f) => [f.line, f.tag, f.path]), [[2, "MalformedInput", []], [
      5,
      "MalformedInput",
      ["messages"]
    ]])
    assert.match(result.stderr, /3 converted, 2 failed, 1 blank \(6 lines\)\n$/)
    // docs/datasets.md's rerun: the failed lines alone, fixed or with other options
    const rerun = await new Promise<string>((resolve, reject) =>
      execFile(
        "bash",
        ["-c", `jq -r .line "${failures}" | awk 'NR==FNR{want[$1];next} FNR in want' - "${file}"`],
        (error, stdout) => error ? reject(error) : resolve(stdout)
      )
    )
    assert.deepStrictEqual(rerun.trimEnd().split("\n"), ["{oops", JSON.stringify({ id: 5 })])
  })

  it("a summary on stderr; a progress line only on a terminal, and not with --quiet", async () => {
    const input = Buffer.from([sftLine(1, "a"), "", "{"].join("\n") + "\n")
    const args = ["convert", "--jsonl", "--record", "openai-sft", "--to", "openai"]
    const piped = await cliBytes(args, input)
    assert.notInclude(piped.stderr, "\r")
    assert.match(piped.stderr, /openreward-effect convert: 1 converted, 1 failed, 1 blank \(3 lines\)\n$/)
    const terminal = await cliBytes(args, input, { tty: true })
    assert.match(terminal.stderr, /\r\x1b\[K3 lines · 0\.0 MB · [\d.]+ MB\/s · 1 failed/)
    assert.match(terminal.stderr, /\r\x1b\[Kopenreward-effect convert: 1 converted/)
    const quiet = await cliBytes([...args, "--quiet"], input, { tty: true })
    assert.strictEqual(quiet.stderr.split("\n").filter((l) => l !== "").length, 1)
    assert.notInclude(quiet.stderr, "\r")
  })

  it("reads Parquet rows (nested lists, 64-bit integers), one row group at a time", async () => {
    const { parquetWriteBuffer } = await import("hyparquet-writer")
    const rows = [
      { id: 1n, messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] },
      { id: 2n ** 60n, messages: [{ role: "user", content: "ü" }] },
      { id: 3n, messages: [{ role: "wizard", content: "?" }] }
    ]
    const buffer = parquetWriteBuffer({
      columnData: [{ name: "id", data: rows.map((r) => r.id) }, {
        name: "messages",
        data: rows.map((r) => r.messages)
      }],
      schema: [
        { name: "root", num_children: 2 },
        { name: "id", type: "INT64", repetition_type: "REQUIRED" },
        { name: "messages", repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
        { name: "list", repetition_type: "REPEATED", num_children: 1 },
        { name: "element", repetition_type: "OPTIONAL", num_children: 2 },
        { name: "role", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
        { name: "content", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" }
      ],
      rowGroupSize: 2
    })
    const file = path.join(tmp, "train.parquet")
    fs.writeFileSync(file, new Uint8Array(buffer))
    const result = await cli(["convert", "--record", "openai-sft", "--to", "anthropic", "--aligned", file])
    assert.strictEqual(result.code, 1)
    const out = result.stdout.trimEnd().split("\n").map((l) => JSON.parse(l))
    assert.deepStrictEqual(out[0], {
      id: 1,
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "text", text: "hello" }] }
      ]
    })
    assert.strictEqual(out[1].id, String(2n ** 60n))
    assert.strictEqual(out[2], null)
    assert.match(result.stderr, /^MalformedInput: row 3: /)
    assert.match(result.stderr, /2 converted, 1 failed, 0 blank \(3 rows\)\n$/)
    const stdin = await cli(["convert", "--parquet", "--to", "openai"], "")
    assert.strictEqual(stdin.code, 2)
    assert.include(stdin.stderr, "Parquet input needs a FILE")
  })

  it("usage: framings exclude each other; per-record options need many records", async () => {
    for (
      const [args, message] of [
        [["--jsonl", "--json-seq"], "--jsonl and --json-seq exclude each other"],
        [["--aligned"], "--aligned applies to many records"],
        [["--jobs", "2"], "--jobs applies to many records"],
        [["--jsonl", "--jobs", "0"], "--jobs must be between 1 and 64"],
        [["--messages-path", "a/b"], "--messages-path must be a JSON pointer"],
        [["--record", "auto", "--encrypted-reasoning", "drop"], "needs --from with --record auto"]
      ] as const
    ) {
      const result = await cli(["convert", "--to", "openai", ...args], "[]")
      assert.strictEqual(result.code, 2, args.join(" "))
      assert.include(result.stderr, message)
    }
  })

  it(
    "--jobs N: worker threads, output in input order, the same bytes, failures and summary as one thread",
    async () => {
      const lines: Array<string> = []
      for (let i = 1; i <= 3000; i++) {
        lines.push(
          i % 97 === 0 ? "{broken" : i % 89 === 0 ? "" : sftLine(i, "x".repeat(i % 500) + "ü")
        )
      }
      const file = write("many.jsonl", lines.join("\n") + "\n")
      const args = ["convert", "--jsonl", "--record", "openai-sft", "--to", "google", "--aligned", file]
      const one = await node(args)
      const four = await node([...args, "--jobs", "3"])
      assert.strictEqual(one.code, 1)
      assert.strictEqual(four.code, 1)
      assert.strictEqual(four.stdout, one.stdout)
      assert.strictEqual(four.stderr, one.stderr)
      assert.strictEqual(one.stdout.split("\n").length - 1, 3000)
      assert.match(one.stderr, /2,937 converted, 30 failed, 33 blank \(3,000 lines\)\n$/)
    },
    60_000
  )
})
