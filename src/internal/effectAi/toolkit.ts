/**
 * An environment's tools as `@effect/ai` 0.37 tools, a toolkit, and a toolkit whose handlers call
 * a session's tools.
 *
 * @internal
 */
import * as Tool from "@effect/ai/Tool"
import * as Toolkit from "@effect/ai/Toolkit"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Block from "../../Block.js"
import type * as Client from "../../Client.js"
import * as ClientError from "../../ClientError.js"
import * as ConversionError from "../../ConversionError.js"
import * as Json from "../../Json.js"
import * as Protocol from "../../Protocol.js"
import * as Bridge from "../bridge.js"

/** Tool input: any JSON object. The server checks it against its schema. */
export const Parameters = Schema.Struct({}, Schema.Record({ key: Schema.String, value: Json.JsonValue }))

/** The ways a session tool call fails the generation (a refused call is a failed result instead). */
export const Failure = Schema.Union(
  ClientError.ToolFailed,
  ClientError.HttpError,
  ClientError.TransportError,
  ClientError.MalformedResponse,
  ClientError.RedirectRefused,
  ClientError.SessionTerminated
)

export type ParametersSchema = typeof Parameters
export type FailureSchema = typeof Failure

export type SessionTool = Tool.Tool<string, {
  readonly parameters: ParametersSchema
  readonly success: typeof Protocol.ToolOutput
  readonly failure: FailureSchema
  readonly failureMode: "error"
}>

export type Tools = { readonly [name: string]: SessionTool }

/** The schema a tool without one takes: an object with no properties. */
export const emptySchema: Json.JsonObject = { type: "object", properties: {} }

export const tool = (spec: Protocol.ToolSpec): SessionTool =>
  Tool.make(spec.name, {
    description: spec.description,
    success: Protocol.ToolOutput,
    failure: Failure,
    failureMode: "error"
  }).setParameters(Parameters.annotations({ jsonSchema: spec.input_schema ?? emptySchema })) as SessionTool

const byName = (specs: ReadonlyArray<Protocol.ToolSpec>): Either.Either<Tools, ConversionError.MalformedInput> => {
  const tools: { [name: string]: SessionTool } = {}
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!
    if (Object.prototype.hasOwnProperty.call(tools, spec.name)) {
      return Either.left(
        new ConversionError.MalformedInput({
          format: "effect-ai",
          path: [i, "name"],
          reason: `two tools are named ${JSON.stringify(spec.name)}; a toolkit holds tools by name`
        })
      )
    }
    tools[spec.name] = tool(spec)
  }
  return Either.right(tools)
}

export const toolkit = (
  specs: ReadonlyArray<Protocol.ToolSpec>
): Either.Either<Toolkit.Toolkit<Tools>, ConversionError.MalformedInput> =>
  Either.map(byName(specs), (tools) => Toolkit.make(...Object.values(tools)) as unknown as Toolkit.Toolkit<Tools>)

/** What the model is shown of a tool's output: its content blocks, by the tool-result convention. */
export const modelResult = (output: Protocol.ToolOutput): Json.JsonValue => Bridge.resultJson(output.blocks)

/** The output a refused call stands for: the refusal as text. */
export const refusedOutput = (error: ClientError.ToolCallError): Protocol.ToolOutput => ({
  blocks: [Block.text(error.message)],
  metadata: null,
  reward: null,
  finished: false
})

type Handle = (
  name: string,
  params: Json.JsonObject
) => Effect.Effect<Tool.HandlerResult<SessionTool>, Schema.Schema.Type<FailureSchema>>

export const handler = (session: Client.Session): Handle => (name, params) =>
  session.callTool(name, params).pipe(
    Effect.map((output) => ({ isFailure: false, result: output, encodedResult: modelResult(output) })),
    Effect.catchTag("ToolCallError", (error) => {
      const output = refusedOutput(error)
      return Effect.succeed({ isFailure: true, result: output, encodedResult: modelResult(output) })
    })
  )

export const withHandler = (
  specs: ReadonlyArray<Protocol.ToolSpec>,
  session: Client.Session
): Either.Either<Toolkit.WithHandler<Tools>, ConversionError.MalformedInput> =>
  Either.map(byName(specs), (tools) => ({
    tools,
    handle: handler(session) as unknown as Toolkit.WithHandler<Tools>["handle"]
  }))

export const sessionToolkit = (
  session: Client.Session
): Effect.Effect<Toolkit.WithHandler<Tools>, ClientError.SessionError | ConversionError.MalformedInput> =>
  Effect.flatMap(session.listTools(), (specs) => withHandler(specs, session))
