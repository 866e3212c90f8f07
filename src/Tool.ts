/**
 * Tools: the actions a model may take in an environment.
 *
 * A tool has a name, a description, an optional input given as an Effect Schema, and a handler that
 * returns a {@link Protocol.ToolOutput} (content blocks, optional metadata, an optional reward, and
 * whether the episode is finished). The server advertises the input as JSON Schema (`input_schema`,
 * `null` for a tool without input), decodes each call's input with the Schema before the handler
 * runs, and answers a call whose input does not decode with the reference's
 * `{"ok": false, "reason": "input_validation", ...}` result without running the handler.
 *
 * The handler's second argument is the session it runs in; annotate it with
 * `Environment.Session<Task, State>` to read the typed task and the state `setup` built. A tool
 * that needs neither works in any environment.
 *
 * @example
 * ```ts
 * import { Tool } from "openreward-effect"
 * import * as Schema from "effect/Schema"
 *
 * const add = Tool.make("add", {
 *   description: "Add two numbers.",
 *   input: Schema.Struct({ a: Schema.Number, b: Schema.Number }),
 *   handler: ({ a, b }) => Tool.output(String(a + b))
 * })
 * console.log(JSON.stringify(add.inputSchema))
 * // {"type":"object","required":["a","b"],"properties":{"a":{"type":"number"},"b":{"type":"number"}},"additionalProperties":false}
 * ```
 *
 * ```text output
 * {"type":"object","required":["a","b"],"properties":{"a":{"type":"number"},"b":{"type":"number"}},"additionalProperties":false}
 * ```
 *
 * Calls to the same tool run one at a time per session; different tools overlap. That is the
 * reference's rule (0.1.161 and later): parallel calls cannot race a grader or an attempt counter,
 * and once a call returns `finished: true` every queued call is refused without running. Change it
 * per tool with `concurrency`:
 *
 * | `concurrency` | runs                                                                  |
 * | ------------- | --------------------------------------------------------------------- |
 * | `"serial"`    | one call of this tool at a time per session (the default)             |
 * | `"concurrent"`| alongside anything; for tools that never grant reward (reads, search) |
 * | `"exclusive"` | alone: waits for every call in flight and holds new ones until done   |
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { identity } from "effect/Function"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import { type Pipeable, pipeArguments } from "effect/Pipeable"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as Block from "./Block.js"
import * as ProtoKeys from "./internal/protoKeys.js"
import { repr, Tuple } from "./internal/server/python.js"
import * as Validation from "./internal/server/validation.js"
import type * as Json from "./Json.js"
import type * as Protocol from "./Protocol.js"

/**
 * @category type ids
 * @since 0.1.0
 */
export const TypeId: unique symbol = Symbol.for("openreward-effect/Tool")

/**
 * @category type ids
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

/**
 * How calls of a tool may overlap within one session.
 *
 * @category models
 * @since 0.1.0
 */
export type Concurrency = "serial" | "concurrent" | "exclusive"

/**
 * A tool whose handler runs in sessions of type `Session`, may fail with `E` and needs the services
 * `R`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Tool<in Session = unknown, out E = never, out R = never> extends Pipeable {
  readonly [TypeId]: {
    readonly _Session: (_: Session) => void
    readonly _E: (_: never) => E
    readonly _R: (_: never) => R
  }
  /** The name the model calls the tool by. */
  readonly name: string
  /** What the tool does, for the model. */
  readonly description: string
  /** The input as JSON Schema, or `null` for a tool that takes no input. */
  readonly inputSchema: Json.JsonObject | null
  /** How calls of this tool may overlap within one session. */
  readonly concurrency: Concurrency
  /**
   * A terminal tool is hidden from the tool list; the harness feeds the final plain assistant
   * message to it (the reference's `@terminal`). Its input has at most one field.
   */
  readonly terminal: boolean
  /** For a terminal tool: the one input field the harness passes the message as, or `null`. */
  readonly terminalArg: string | null
  /** Why the definition is unusable (reported when a server starts), if it is. */
  readonly defect: string | null
  /**
   * Decode `input`, then build the handler's effect. Decoding failures are returned, not run.
   */
  readonly invoke: (
    input: unknown,
    session: Session
  ) => Either.Either<Effect.Effect<Protocol.ToolOutput, E, R>, InvalidInput>
}

/**
 * Any tool, whatever its session type, errors and requirements.
 *
 * @category models
 * @since 0.1.0
 */
export interface Any {
  readonly [TypeId]: {
    readonly _Session: (_: never) => void
    readonly _E: (_: never) => unknown
    readonly _R: (_: never) => unknown
  }
  readonly name: string
}

/**
 * The services a tool needs.
 *
 * @category type-level
 * @since 0.1.0
 */
export type Context<T> = T extends Tool<infer _S, infer _E, infer R> ? R : never

/**
 * The errors a tool's handler may fail with.
 *
 * @category type-level
 * @since 0.1.0
 */
export type Error<T> = T extends Tool<infer _S, infer E, infer _R> ? E : never

/**
 * A call's input did not decode with the tool's input Schema. `issues` are pydantic-style items
 * (`type`, `loc`, `msg`, `input`), as the reference reports them.
 *
 * @category errors
 * @since 0.1.0
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>("openreward-effect/Tool/InvalidInput")(
  "InvalidInput",
  {
    tool: Schema.String,
    issues: Schema.Array(Schema.Struct({
      type: Schema.String,
      loc: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
      msg: Schema.String,
      input: Schema.Unknown
    }))
  }
) {
  /**
   * The reference's wire text: `Tool input validation error: [{'type': ..., 'loc': (...), ...}]`.
   */
  override get message(): string {
    const items = this.issues.map((i) => ({ type: i.type, loc: new Tuple(i.loc), msg: i.msg, input: i.input }))
    return `Tool input validation error: ${repr(items)}`
  }
}

const Proto = {
  pipe() {
    // eslint-disable-next-line prefer-rest-params
    return pipeArguments(this, arguments)
  }
}

const variance = { _Session: identity, _E: identity, _R: identity }

const toEffect = <A, E, R>(value: A | Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.isEffect(value) ? value as Effect.Effect<A, E, R> : Effect.succeed(value as A)

const jsonSchemaOf = (schema: Schema.Schema.AnyNoContext): Either.Either<Json.JsonObject, string> => {
  const encoded = AST.encodedAST(schema.ast)
  if (AST.isTypeLiteral(encoded) && encoded.propertySignatures.length === 0 && encoded.indexSignatures.length === 0) {
    return Either.right({ type: "object", required: [], properties: {}, additionalProperties: false })
  }
  try {
    const { $schema: _, ...rest } = JSONSchema.make(schema) as unknown as Record<string, Json.JsonValue>
    return Either.right(rest)
  } catch (e) {
    return Either.left(e instanceof globalThis.Error ? e.message : String(e))
  }
}

const fieldsOf = (schema: Schema.Schema.AnyNoContext): ReadonlyArray<string> | undefined => {
  const encoded = AST.encodedAST(schema.ast)
  return AST.isTypeLiteral(encoded) ? encoded.propertySignatures.map((p) => String(p.name)) : undefined
}

/**
 * The options of {@link make} shared by tools with and without input.
 *
 * @category models
 * @since 0.1.0
 */
export interface BaseOptions {
  /** What the tool does, for the model (trimmed, as the reference trims docstrings). */
  readonly description?: string | undefined
  /** How calls may overlap within one session (default `"serial"`). */
  readonly concurrency?: Concurrency | undefined
  /** Make this the environment's terminal tool (always exclusive). */
  readonly terminal?: boolean | undefined
}

/**
 * Define a tool. With `input`, calls are decoded with the Schema (unknown keys are ignored, as
 * pydantic ignores them) and the handler receives the decoded value; without it the tool takes no
 * input and the call's input is ignored.
 *
 * The handler may return the output directly or as an Effect.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make: {
  <I extends Schema.Schema.AnyNoContext, Session = unknown, E = never, R = never>(
    name: string,
    options: BaseOptions & {
      readonly input: I
      readonly handler: (
        input: Schema.Schema.Type<I>,
        session: Session
      ) => Protocol.ToolOutput | Effect.Effect<Protocol.ToolOutput, E, R>
    }
  ): Tool<Session, E, R>
  <Session = unknown, E = never, R = never>(
    name: string,
    options: BaseOptions & {
      readonly handler: (
        input: void,
        session: Session
      ) => Protocol.ToolOutput | Effect.Effect<Protocol.ToolOutput, E, R>
    }
  ): Tool<Session, E, R>
} = <Session, E, R>(
  name: string,
  options: BaseOptions & {
    readonly input?: Schema.Schema.AnyNoContext
    readonly handler: (input: any, session: Session) => Protocol.ToolOutput | Effect.Effect<Protocol.ToolOutput, E, R>
  }
): Tool<Session, E, R> => {
  const terminal = options.terminal ?? false
  const input = options.input
  let inputSchema: Json.JsonObject | null = null
  let terminalArg: string | null = null
  let defect: string | null = null
  if (input !== undefined) {
    const schema = jsonSchemaOf(input)
    if (Either.isLeft(schema)) defect = `its input cannot be written as JSON Schema: ${schema.left}`
    else inputSchema = schema.right
    if (terminal) {
      const fields = fieldsOf(input)
      if (fields === undefined || fields.length > 1) {
        defect = `terminal tool '${name}' must take at most one input field (the message), but its input has ${
          fields === undefined ? "no fixed fields" : `${fields.length} fields: ${fields.join(", ")}`
        }`
      } else terminalArg = fields[0] ?? null
    }
  }
  if (terminal && options.concurrency === "concurrent") {
    defect = `terminal tool '${name}' is marked concurrent; a terminal tool grades the episode, so it runs exclusively`
  }
  const decode = input === undefined
    ? undefined
    : ProtoKeys.keeping(
      ParseResult.decodeUnknownEither(input as Schema.Schema<unknown, unknown, never>, { errors: "all" })
    )
  const run = (value: unknown, session: Session) => Effect.suspend(() => toEffect(options.handler(value, session)))
  const invoke = decode === undefined
    ? (_: unknown, session: Session) => Either.right(run(undefined, session))
    : (raw: unknown, session: Session) => {
      const decoded = decode(raw)
      return Either.isRight(decoded)
        ? Either.right(run(decoded.right, session))
        : Either.left(new InvalidInput({ tool: name, issues: Validation.items(decoded.left, []) }))
    }
  const tool: Tool<Session, E, R> = Object.assign(Object.create(Proto), {
    [TypeId]: variance,
    name,
    description: (options.description ?? "").trim(),
    inputSchema,
    concurrency: terminal ? "exclusive" : options.concurrency ?? "serial",
    terminal,
    terminalArg,
    defect,
    invoke
  })
  return tool
}

/**
 * Is this a tool?
 *
 * @category guards
 * @since 0.1.0
 */
export const isTool = (u: unknown): u is Tool<never, unknown, unknown> =>
  typeof u === "object" && u !== null && TypeId in u

/**
 * Options of {@link output}.
 *
 * @category models
 * @since 0.1.0
 */
export interface OutputOptions {
  readonly reward?: number | null | undefined
  readonly finished?: boolean | undefined
  readonly metadata?: Json.JsonObject | null | undefined
}

/**
 * A tool's output. A string is shorthand for one text block.
 *
 * @category constructors
 * @since 0.1.0
 */
export const output = (
  content: string | ReadonlyArray<Block.ContentBlock>,
  options?: OutputOptions
): Protocol.ToolOutput => ({
  blocks: typeof content === "string" ? [Block.text(content)] : content,
  metadata: options?.metadata ?? null,
  reward: options?.reward ?? null,
  finished: options?.finished ?? false
})

/**
 * Run a tool outside a server (in a test, say): decode `input`, then run the handler.
 *
 * @category combinators
 * @since 0.1.0
 */
export const call = <Session, E, R>(
  tool: Tool<Session, E, R>,
  input: unknown,
  session: Session
): Effect.Effect<Protocol.ToolOutput, E | InvalidInput, R> => {
  const invoked = tool.invoke(input, session)
  return Either.isLeft(invoked) ? Effect.fail(invoked.left) : invoked.right
}
