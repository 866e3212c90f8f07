import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Block from "openreward-effect/Block"
import * as Environment from "openreward-effect/Environment"
import * as Message from "openreward-effect/Message"
import * as Protocol from "openreward-effect/Protocol"
import * as Tool from "openreward-effect/Tool"
import {
  DialogueEnv,
  environments,
  gradeAnswer,
  gradeReply,
  gradeTranscriptReply,
  TranscriptEnv,
  TriviaEnv
} from "../examples/support.js"
import { fastSuccess, success } from "../src/internal/server/calls.js"
import { compile as compileErased } from "../src/internal/server/compiled.js"
import { Hostile } from "./fixtures/hostile/env.js"

/** The server's view of an environment, for environments that need no services. */
const compile = (env: Environment.Any) => {
  const c = compileErased(env)
  const pure = <A, E>(effect: Effect.Effect<A, E, unknown>) => effect as Effect.Effect<A, E>
  return {
    listTasks: (split: string) => pure(c.listTasks(split)),
    numTasks: (split: string) => pure(c.numTasks(split)),
    task: (split: string, index: number) => pure(c.task(split, index)),
    taskJson: (split: string, index: number) => pure(c.taskJson(split, index)),
    taskRange: (split: string, start: number | null, stop: number | null) => pure(c.taskRange(split, start, stop))
  }
}

const session = <Task>(task: Task): Environment.Session<Task, void> => ({
  id: "sid",
  environment: "Test",
  task,
  secrets: { token: Redacted.make("s3cr3t") },
  state: undefined
})

describe("Tool", () => {
  it("advertises its input as JSON Schema, without $schema; no input is null", () => {
    const add = Tool.make("add", {
      description: "\n  Add two numbers.\n",
      input: Schema.Struct({ a: Schema.Number, b: Schema.optional(Schema.Number) }),
      handler: ({ a, b }) => Tool.output(String(a + (b ?? 0)))
    })
    assert.deepStrictEqual(add.inputSchema, {
      type: "object",
      required: ["a"],
      properties: { a: { type: "number" }, b: { type: "number" } },
      additionalProperties: false
    })
    assert.strictEqual(add.description, "Add two numbers.")
    assert.strictEqual(add.concurrency, "serial")
    assert.isFalse(add.terminal)
    const ping = Tool.make("ping", { handler: () => Tool.output("pong") })
    assert.isNull(ping.inputSchema)
    assert.strictEqual(ping.description, "")
    const empty = Tool.make("empty", { input: Schema.Struct({}), handler: () => Tool.output("") })
    assert.deepStrictEqual(empty.inputSchema, {
      type: "object",
      required: [],
      properties: {},
      additionalProperties: false
    })
  })

  it("a terminal tool runs exclusively and names its one input field", () => {
    const submit = Tool.make("submit", {
      terminal: true,
      input: Schema.Struct({ answer: Schema.String }),
      handler: () => Tool.output("")
    })
    assert.strictEqual(submit.concurrency, "exclusive")
    assert.strictEqual(submit.terminalArg, "answer")
    assert.isNull(submit.defect)
    const bare = Tool.make("done", { terminal: true, handler: () => Tool.output("") })
    assert.isNull(bare.terminalArg)
    const concurrent = Tool.make("c", { terminal: true, concurrency: "concurrent", handler: () => Tool.output("") })
    assert.match(concurrent.defect!, /is marked concurrent/)
  })

  it("an input that JSON Schema cannot describe makes the tool unusable, reported when serving", () => {
    const odd = Tool.make("odd", {
      input: Schema.Struct({ when: Schema.DateFromSelf }),
      handler: () => Tool.output("")
    })
    assert.match(odd.defect!, /^its input cannot be written as JSON Schema/)
  })

  it.effect("call decodes the input, then runs the handler (plain value or Effect)", () =>
    Effect.gen(function*() {
      const greet = Tool.make("greet", {
        input: Schema.Struct({ name: Schema.String }),
        handler: ({ name }, s: Environment.Session<{ readonly greeting: string }>) =>
          Effect.succeed(Tool.output(`${s.task.greeting} ${name}`, { reward: 1 }))
      })
      const output = yield* Tool.call(greet, { name: "Ada", ignored: true }, session({ greeting: "hello" }))
      assert.deepStrictEqual(output, {
        blocks: [{ text: "hello Ada", detail: null, type: "text" }],
        metadata: null,
        reward: 1,
        finished: false
      })
    }))

  it.effect("input that fails the schema is an InvalidInput with the reference's text", () =>
    Effect.gen(function*() {
      const tool = Tool.make("t", {
        input: Schema.Struct({ n: Schema.Int, tags: Schema.Array(Schema.String), mode: Schema.Literal("a", "b") }),
        handler: () => Tool.output("")
      })
      const error = yield* Effect.flip(Tool.call(tool, { n: "x", tags: [1], mode: "c", extra: null }, session({})))
      assert.strictEqual(error._tag, "InvalidInput")
      assert.strictEqual(
        (error as Tool.InvalidInput).message,
        "Tool input validation error: [" +
          "{'type': 'int_parsing', 'loc': ('n',), 'msg': 'Input should be a valid integer, unable to parse string as an integer', 'input': 'x'}, " +
          "{'type': 'string_type', 'loc': ('tags', 0), 'msg': 'Input should be a valid string', 'input': 1}, " +
          "{'type': 'literal_error', 'loc': ('mode',), 'msg': \"Input should be 'a' or 'b'\", 'input': 'c'}]"
      )
      const missing = yield* Effect.flip(Tool.call(tool, {}, session({})))
      assert.strictEqual(
        (missing as Tool.InvalidInput).issues.map((i) => `${i.type}@${i.loc.join(".")}`).join(" "),
        "missing@n missing@tags missing@mode"
      )
    }))

  it.effect("a handler that throws dies; one that fails fails with its error", () =>
    Effect.gen(function*() {
      const thrower = Tool.make("thrower", {
        handler: (): Protocol.ToolOutput => {
          throw new Error("thrown")
        }
      })
      const exit = yield* Effect.exit(Tool.call(thrower, {}, session({})))
      assert.isTrue(Exit.isFailure(exit) && exit.cause._tag === "Die")
      class Nope extends Schema.TaggedError<Nope>()("Nope", {}) {}
      const failing = Tool.make("failing", { handler: () => Effect.fail(new Nope()) })
      const error = yield* Effect.flip(Tool.call(failing, {}, session({})))
      assert.strictEqual(error._tag, "Nope")
    }))

  it("output builds a ToolOutput", () => {
    assert.deepStrictEqual(Tool.output([Block.image("AAAA", "image/png")], { finished: true, metadata: { a: 1 } }), {
      blocks: [{ data: "AAAA", mimeType: "image/png", detail: null, type: "image" }],
      metadata: { a: 1 },
      reward: null,
      finished: true
    })
  })

  it.prop(
    "the direct writer of a call's result agrees with the Schema wherever it applies",
    [Protocol.ToolOutput],
    ([output]) => {
      const fast = fastSuccess(output)
      const checked = success(output)
      assert.isTrue(Either.isRight(checked))
      if (fast !== undefined) assert.strictEqual(fast, Either.getOrThrow(checked))
      const parsed = JSON.parse(Either.getOrThrow(checked))
      assert.deepStrictEqual(parsed.output.blocks, Schema.encodeSync(Protocol.ToolOutput)(output).blocks)
    },
    { fastCheck: { numRuns: 100 } }
  )

  it("the direct writer applies to the common output, and writes rewards as pydantic does", () => {
    assert.strictEqual(
      fastSuccess(Tool.output("hi", { reward: 1, finished: true })),
      "{\"ok\":true,\"output\":{\"blocks\":[{\"text\":\"hi\",\"detail\":null,\"type\":\"text\"}],\"metadata\":null,\"reward\":1.0,\"finished\":true}}"
    )
    assert.isUndefined(fastSuccess(Tool.output("hi", { metadata: { a: 1 } })))
    assert.isUndefined(
      fastSuccess({ blocks: [{ type: "text", text: 1, detail: null }], metadata: null, reward: null, finished: false })
    )
  })
})

describe("a `__proto__` key in decoded input (issue 17)", () => {
  // JSON.parse makes `__proto__` an own key; the reference's pydantic keeps it in a dict.
  const input = (text: string): unknown => JSON.parse(text)
  const own = (u: object, key: string) => Object.prototype.hasOwnProperty.call(u, key)

  it.effect("a Schema.Record keeps it as an own key, in its place, decoded by the value schema", () =>
    Effect.gen(function*() {
      const tool = Tool.make("keys", {
        input: Schema.Struct({
          m: Schema.Record({ key: Schema.String, value: Schema.NumberFromString }),
          nested: Schema.optional(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown })))
        }),
        handler: ({ m, nested }) =>
          Tool.output(JSON.stringify({
            keys: Object.keys(m),
            values: Object.values(m),
            own: own(m, "__proto__"),
            plain: Object.getPrototypeOf(m) === Object.prototype,
            nested: nested?.map((
              r
            ) => [Object.keys(r), own(r, "__proto__"), Object.getPrototypeOf(r) === Object.prototype])
          }))
      })
      const output = yield* Tool.call(
        tool,
        input("{\"m\":{\"a\":\"1\",\"__proto__\":\"2\",\"b\":\"3\"},\"nested\":[{\"__proto__\":{\"x\":1}}]}"),
        session({})
      )
      assert.deepStrictEqual(JSON.parse(output.blocks[0]!.type === "text" ? output.blocks[0]!.text : ""), {
        keys: ["a", "__proto__", "b"],
        values: [1, 2, 3],
        own: true,
        plain: true,
        nested: [[["__proto__"], true, true]]
      })
      // nothing leaked into Object.prototype
      assert.isUndefined(({} as { x?: unknown }).x)
    }))

  it("a wrong value under the key is reported at `__proto__`, quoting the input as sent", () => {
    const tool = Tool.make("keys", {
      input: Schema.Struct({ m: Schema.Record({ key: Schema.String, value: Schema.Number }) }),
      handler: () => Tool.output("")
    })
    const invoked = tool.invoke(input("{\"m\":{\"__proto__\":\"x\"}}"), session({}))
    assert.isTrue(Either.isLeft(invoked))
    const issues = Either.isLeft(invoked) ? invoked.left.issues : []
    assert.deepStrictEqual(issues.map((i) => [i.type, i.loc, i.input]), [["float_type", ["m", "__proto__"], "x"]])
    assert.include(Either.isLeft(invoked) ? invoked.left.message : "", "('m', '__proto__')")
  })

  it("a task Schema keeps it in a task spec", () => {
    const env = Hostile // its task: { i: number, labels?: Record<string, string> }
    const decoded = env.task.decode(input("{\"i\":0,\"labels\":{\"__proto__\":\"x\",\"b\":\"y\"}}"))
    assert.isTrue(Either.isRight(decoded))
    const labels = (Either.isRight(decoded) ? decoded.right.labels : undefined) ?? {}
    assert.deepStrictEqual(Object.keys(labels), ["__proto__", "b"])
    assert.strictEqual(Object.getPrototypeOf(labels), Object.prototype)
  })
})

describe("Environment", () => {
  const noop = Tool.make("noop", { handler: () => Tool.output("") })

  it("names route lower-cased; plain split names are typed by the reference's rule", () => {
    const env = Environment.make({
      name: "MixedCase",
      splits: ["train", "test", "validation", "dev", { name: "holdout", type: "test" }],
      tasks: {},
      prompt: () => [],
      tools: [noop]
    })
    assert.strictEqual(Environment.key(env), "mixedcase")
    assert.deepStrictEqual(env.splits, [
      { name: "train", type: "train" },
      { name: "test", type: "test" },
      { name: "validation", type: "validation" },
      { name: "dev", type: "validation" },
      { name: "holdout", type: "test" }
    ])
    assert.isTrue(Environment.isEnvironment(env))
    assert.isFalse(Environment.isEnvironment({ name: "x" }))
  })

  it.effect("tasks may be a record per split, a function of the split, or an index", () =>
    Effect.gen(function*() {
      const fromRecord = compile(
        Environment.make({ name: "R", splits: ["a", "b"], tasks: { a: [{ i: 1 }] }, prompt: () => [], tools: [noop] })
      )
      assert.deepStrictEqual(Option.getOrThrow(yield* fromRecord.listTasks("a")), [{ i: 1 }])
      assert.strictEqual(yield* fromRecord.numTasks("b"), 0)
      let listed = 0
      const fromFunction = compile(
        Environment.make({
          name: "F",
          splits: ["a"],
          tasks: (split) => Effect.sync(() => (listed++, [{ split }, { split: `${split}!` }])),
          prompt: () => [],
          tools: [noop]
        })
      )
      assert.strictEqual(yield* fromFunction.numTasks("a"), 2)
      assert.deepStrictEqual(yield* fromFunction.taskRange("a", -1, null), [{ split: "a!" }])
      assert.strictEqual(listed, 1, "a split's list is computed once")
      const fromIndex = compile(
        Environment.make({
          name: "I",
          splits: ["a"],
          tasks: Environment.taskIndex({ count: () => 10, get: (_, i) => ({ i }) }),
          prompt: () => [],
          tools: [noop]
        })
      )
      assert.strictEqual((yield* fromIndex.listTasks("a"))._tag, "None")
      assert.deepStrictEqual(yield* fromIndex.taskRange("a", 8, 100), [{ i: 8 }, { i: 9 }])
      assert.strictEqual((yield* fromIndex.taskJson("a", -11))._tag, "None")
    }))

  it.effect("a task Schema types tasks, validates task_spec and encodes tasks for the wire", () =>
    Effect.gen(function*() {
      const Task = Schema.Struct({ when: Schema.Date })
      const env = Environment.make({
        name: "Dated",
        task: Task,
        splits: ["train"],
        tasks: { train: [{ when: new Date("2026-01-02T00:00:00.000Z") }] },
        prompt: ({ task }) => [Block.text(task.when.toISOString())],
        tools: [noop]
      })
      assert.deepStrictEqual(yield* compile(env).taskRange("train", null, null), [{ when: "2026-01-02T00:00:00.000Z" }])
      assert.isTrue(Either.isRight(env.task.decode({ when: "2026-01-02T00:00:00.000Z" })))
      assert.isTrue(Either.isLeft(env.task.decode({ when: 5 })))
    }))

  it.effect("a task whose encoded form is not a JSON object is refused when served (the protocol's tasks are objects)", () =>
    Effect.gen(function*() {
      const env = Environment.make({
        name: "Words",
        task: Schema.String,
        splits: ["train"],
        tasks: { train: ["alpha"] },
        prompt: ({ task }) => [Block.text(task)],
        tools: [noop]
      })
      const served = compile(env)
      const attempts: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
        served.listTasks("train"),
        served.taskJson("train", 0),
        served.taskRange("train", 0, 1)
      ]
      for (const attempt of attempts) {
        const error = yield* Effect.flip(attempt)
        assert.include(String(error), "a task's encoded form is not a JSON object: alpha")
      }
      // reading a task for a session is not writing it: that still works
      assert.deepStrictEqual(yield* served.task("train", 0), Option.some("alpha"))
    }))

  it("validate reports what the server would refuse", () => {
    const base = { splits: ["train"], tasks: {}, prompt: () => [], tools: [noop] } as const
    const reason = (env: Environment.Any) =>
      Either.match(Environment.validate(env), { onLeft: (e) => e.message, onRight: () => "ok" })
    assert.strictEqual(reason(Environment.make({ name: "Fine", ...base })), "ok")
    assert.strictEqual(
      reason(Environment.make({ ...base, name: "a/b" })),
      "Environment 'a/b' has an unusable name; a name must be one non-empty path segment"
    )
    assert.strictEqual(
      reason(Environment.make({ ...base, name: "Twice", splits: ["x", "x"] })),
      "Environment 'twice' lists the split 'x' twice"
    )
    assert.strictEqual(
      reason(Environment.make({ ...base, name: "Dup", tools: [noop, noop] })),
      "Environment 'dup' defines the tool 'noop' twice"
    )
    assert.strictEqual(
      reason(Environment.make({ ...base, name: "Ping" })),
      "Environment 'ping' collides with the server's own route /ping; choose another name"
    )
    // Definitions from untyped JavaScript (`serve` loads any module) are refused with a reason, not a TypeError.
    const untyped = (options: Record<string, unknown>) =>
      reason(Environment.make(options as unknown as Parameters<typeof Environment.make>[0]))
    assert.strictEqual(
      untyped({ ...base, tools: undefined, name: "NoTools" }),
      "Environment 'notools' has no tools defined. Add at least one tool."
    )
    assert.strictEqual(
      untyped({ ...base, splits: undefined, name: "NoSplits" }),
      "Environment 'nosplits' has no splits defined. Give `splits` at least one split."
    )
    assert.strictEqual(untyped({ ...base, name: undefined }), "An environment has no name; give `name` a string.")
  })

  it.effect("setup's state reaches the prompt surface and tools", () =>
    Effect.gen(function*() {
      const env = Environment.make({
        name: "Stateful",
        splits: ["train"],
        tasks: { train: [{}] },
        setup: () => Effect.succeed({ visits: 3 }),
        messages: ({ state }) => [Message.user(`visits: ${state.visits}`)],
        tools: [Tool.make("n", {
          handler: (_, s: Environment.Session<unknown, { visits: number }>) => Tool.output(String(s.state.visits))
        })]
      })
      const state = yield* Effect.scoped(env.setup({ id: "x", environment: "Stateful", task: {}, secrets: {} }))
      const messages = yield* env.messages!({ id: "x", environment: "Stateful", task: {}, secrets: {}, state })
      assert.deepStrictEqual(messages, [Message.user("visits: 3")])
    }))
})

describe("examples/support.ts", () => {
  it("every example environment can be served", () => {
    for (const env of environments) assert.isTrue(Either.isRight(Environment.validate(env)), env.name)
    assert.deepStrictEqual(environments.map(Environment.key), ["dialogueenv", "triviaenv", "transcriptenv"])
  })

  it("DialogueEnv: a reply that refers to order 4411 earns 1 and ends the episode", () => {
    assert.deepStrictEqual(gradeReply("Thanks! I've found order #4411."), { reward: 1, finished: true })
    assert.deepStrictEqual(gradeReply("Order 4411 is on its way"), { reward: 1, finished: true })
    assert.deepStrictEqual(gradeReply("Let me check that for you."), { reward: 0, finished: false })
    assert.deepStrictEqual(gradeReply("Is it 44110?"), { reward: 0, finished: false })
  })

  it("TriviaEnv and TranscriptEnv grade as documented", () => {
    const task = { id: "x", question: "?", answer: "Paris" }
    assert.strictEqual(gradeAnswer(task, "  paris "), 1)
    assert.strictEqual(gradeAnswer(task, "Lyon"), 0)
    assert.strictEqual(gradeTranscriptReply("It's stuck at the Leipzig hub."), 1)
    assert.strictEqual(gradeTranscriptReply("It's stuck somewhere."), 0)
    assert.strictEqual(gradeTranscriptReply("Check GitHub."), 0)
  })

  it.effect("DialogueEnv serves the seed page's four turns", () =>
    Effect.gen(function*() {
      const task = Option.getOrThrow(yield* compile(DialogueEnv).task("train", 0)) as typeof DialogueEnv.task extends
        Environment.TaskCodec<infer T> ? T : never
      const messages = yield* DialogueEnv.messages!(session(task))
      assert.deepStrictEqual(messages.map((m) => m.role), ["system", "user", "assistant", "user"])
      assert.strictEqual((messages[3]!.blocks[0] as Block.TextBlock).text, "It's #4411, ordered two weeks ago.")
      assert.isUndefined(TriviaEnv.messages)
      assert.isUndefined(TranscriptEnv.prompt)
    }))
})
