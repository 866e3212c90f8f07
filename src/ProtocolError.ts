/**
 * Every error answer of the OpenReward environment protocol, as tagged errors that carry their HTTP
 * status: what a server answers when it refuses a request, declared once for the route table
 * (`Protocol.routes`, where each route lists the errors it may answer) and for the server that
 * answers them.
 *
 * Each error is a `Schema.TaggedError` with a literal `status` (filled in when it is made) and the
 * same status as `@effect/platform`'s `HttpApiSchema` annotation, so
 * `HttpApiSchema.getStatusError(ProtocolError.SessionNotFound)` is 404 and the classes can serve as
 * an `HttpApiEndpoint`'s errors. On the wire an error is its status and `{"detail": detail}`, in the
 * reference server's (FastAPI's) words; a 422's detail is a list of pydantic-style items. Some add
 * headers (`Retry-After`).
 *
 * | error                   | status | detail                                                     |
 * | ----------------------- | ------ | ---------------------------------------------------------- |
 * | `MissingSessionId`      | 400    | `X-Session-ID header is required`                          |
 * | `InvalidSecrets`        | 400    | `Invalid X-Secrets header: ...`                            |
 * | `UnparsableBody`        | 400    | `There was an error parsing the body`                      |
 * | `SessionExists`         | 400    | `Session already exists`                                   |
 * | `InvalidSplit`          | 400    | `Invalid split`                                            |
 * | `InvalidIndex`          | 400    | `Invalid index`                                            |
 * | `ListTasksUnsupported`  | 400    | `list_tasks is not supported for this environment. ...`    |
 * | `UnknownToolset`        | 400    | `unknown toolset 'x'; valid options are [...]`             |
 * | `SessionNotFound`       | 404    | `Active environment not found`                             |
 * | `UnknownEnvironment`    | 404    | `unknown environment 'x'`                                  |
 * | `ScoreGroupUnsupported` | 404    | `Environment 'x' does not implement score_group`           |
 * | `SessionGone`           | 410    | `Session deleted`, or (this server) why it ended           |
 * | `ContentTooLarge`       | 413    | `Content Too Large`                                        |
 * | `ValidationFailed`      | 422    | the validation items                                       |
 * | `InternalError`         | 500    | `Type: message` of what failed (as the server is set)      |
 * | `SessionStarting`       | 503    | `Environment still starting.` (`Retry-After: 2`)           |
 * | `Draining`              | 503    | `Server is draining: it takes no new sessions`             |
 * | `TooManySessions`       | 503    | `Too many sessions: ...` (`Retry-After: 5`)                |
 * | `ShuttingDown`          | 503    | `Server is shutting down` (`Retry-After: 1`)               |
 *
 * @example
 * ```ts
 * import * as ProtocolError from "openreward-effect/ProtocolError"
 *
 * const error = new ProtocolError.UnknownEnvironment({ environment: "lab" })
 * console.log(error.status, JSON.stringify({ detail: error.detail }))
 * ```
 *
 * ```text output
 * 404 {"detail":"unknown environment 'lab'"}
 * ```
 *
 * @since 0.2.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { reprList, reprString } from "./internal/server/python.js"

const TypeIdKey = "~openreward-effect/ProtocolError"

/**
 * @category symbols
 * @since 0.2.0
 */
export const TypeId: typeof TypeIdKey = TypeIdKey

/**
 * @category symbols
 * @since 0.2.0
 */
export type TypeId = typeof TypeId

/**
 * The annotation that carries an error's HTTP status: `@effect/platform`'s
 * `HttpApiSchema.AnnotationStatus` (the same global symbol; this module does not need the package).
 *
 * @category annotations
 * @since 0.2.0
 */
export const StatusAnnotationId: unique symbol = Symbol.for("@effect/platform/HttpApiSchema/AnnotationStatus") as never

const statusField = <Status extends number>(status: Status) =>
  Schema.Literal(status).pipe(Schema.propertySignature, Schema.withConstructorDefault(() => status))

/**
 * The base of an error answer: a `Schema.TaggedError` with the fields given and a literal `status`
 * (filled in by the constructor, and annotated for `HttpApiSchema`).
 */
const Base = <Self>() =>
<Tag extends string, Status extends number, Fields extends Schema.Struct.Fields = {}>(
  tag: Tag,
  status: Status,
  fields?: Fields
) =>
  Schema.TaggedError<Self>(`openreward-effect/ProtocolError/${tag}`)(
    tag,
    { ...(fields ?? {}) as Fields, status: statusField(status) },
    { [StatusAnnotationId]: status }
  )

// -----------------------------------------------------------------------------
// validation items
// -----------------------------------------------------------------------------

/**
 * One item of a 422's detail, in pydantic's shape: the error `type`, where (`loc`, starting with
 * `"body"` for a request body), the message, the offending input (quoted, or an excerpt of it when
 * large), and sometimes a context.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ValidationItem = Schema.Struct({
  type: Schema.String,
  loc: Schema.Array(Schema.Union(Schema.String, Schema.Number)),
  msg: Schema.String,
  input: Schema.Unknown,
  ctx: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}).annotations({ identifier: "ValidationItem" })

/**
 * @category models
 * @since 0.2.0
 */
export interface ValidationItem extends Schema.Schema.Type<typeof ValidationItem> {}

// -----------------------------------------------------------------------------
// 400
// -----------------------------------------------------------------------------

/**
 * A session route was called without an `X-Session-ID` header.
 *
 * @category errors
 * @since 0.2.0
 */
export class MissingSessionId extends Base<MissingSessionId>()("MissingSessionId", 400) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "X-Session-ID header is required"
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * The `X-Secrets` header is not base64 of a JSON object of `{"value": ...}` entries. The header is
 * never quoted back.
 *
 * @category errors
 * @since 0.2.0
 */
export class InvalidSecrets extends Base<InvalidSecrets>()("InvalidSecrets", 400) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "Invalid X-Secrets header: expected base64-encoded JSON mapping each secret name to {\"value\": ..., \"allowed_domains\": [...]}"
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * The request body is not UTF-8, or its JSON nests deeper than the server reads.
 *
 * @category errors
 * @since 0.2.0
 */
export class UnparsableBody extends Base<UnparsableBody>()("UnparsableBody", 400) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "There was an error parsing the body"
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * `/create` for a session id that already has a session.
 *
 * @category errors
 * @since 0.2.0
 */
export class SessionExists extends Base<SessionExists>()("SessionExists", 400) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "Session already exists"
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * The environment has no such split (the answer does not name it, as the reference's does not).
 *
 * @category errors
 * @since 0.2.0
 */
export class InvalidSplit extends Base<InvalidSplit>()("InvalidSplit", 400, { split: Schema.String }) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "Invalid split"
  }
  override get message(): string {
    return `${this.detail}: ${JSON.stringify(this.split)}`
  }
}

/**
 * The split has no task at that index (Python indexing: `-1` is the last).
 *
 * @category errors
 * @since 0.2.0
 */
export class InvalidIndex extends Base<InvalidIndex>()("InvalidIndex", 400, {
  split: Schema.String,
  index: Schema.Number
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "Invalid index"
  }
  override get message(): string {
    return `${this.detail}: ${this.index} in split ${JSON.stringify(this.split)}`
  }
}

/**
 * `/tasks` on an environment whose tasks are read by index only.
 *
 * @category errors
 * @since 0.2.0
 */
export class ListTasksUnsupported extends Base<ListTasksUnsupported>()("ListTasksUnsupported", 400) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "list_tasks is not supported for this environment. Use the index-based API (num_tasks + get_task) instead."
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * `/create` named a toolset the server does not have; `valid` lists those it has.
 *
 * @category errors
 * @since 0.2.0
 */
export class UnknownToolset extends Base<UnknownToolset>()("UnknownToolset", 400, {
  toolset: Schema.String,
  valid: Schema.Array(Schema.String)
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return `unknown toolset ${reprString(this.toolset)}; valid options are ${reprList(this.valid)}`
  }
  override get message(): string {
    return this.detail
  }
}

// -----------------------------------------------------------------------------
// 404
// -----------------------------------------------------------------------------

/**
 * No session has that id: it was never created, or it was deleted.
 *
 * @category errors
 * @since 0.2.0
 */
export class SessionNotFound extends Base<SessionNotFound>()("SessionNotFound", 404) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "Active environment not found"
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * `/create` named an environment the server does not serve.
 *
 * @category errors
 * @since 0.2.0
 */
export class UnknownEnvironment extends Base<UnknownEnvironment>()("UnknownEnvironment", 404, {
  environment: Schema.String
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return `unknown environment ${reprString(this.environment)}`
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * `/score_group` on an environment that scores no groups.
 *
 * @category errors
 * @since 0.2.0
 */
export class ScoreGroupUnsupported extends Base<ScoreGroupUnsupported>()("ScoreGroupUnsupported", 404, {
  environment: Schema.String
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return `Environment ${reprString(this.environment)} does not implement score_group`
  }
  override get message(): string {
    return this.detail
  }
}

// -----------------------------------------------------------------------------
// 410
// -----------------------------------------------------------------------------

/**
 * Why a session is gone:
 *
 * - `deleted`: it was deleted while the request waited for its setup (the reference's answer);
 * - `ended`: its id carries this server's route key, but the server does not hold it: it ended,
 *   or was created before the replica restarted;
 * - `shutdown`: the server is draining and takes no new tool calls.
 *
 * @category schemas
 * @since 0.2.0
 */
export const SessionGoneReason = Schema.Literal("deleted", "ended", "shutdown")

/**
 * @category models
 * @since 0.2.0
 */
export type SessionGoneReason = typeof SessionGoneReason.Type

const goneDetail: Record<SessionGoneReason, string> = {
  deleted: "Session deleted",
  ended: "Session gone: it ended, or its replica restarted",
  shutdown: "Session ended: the server is shutting down"
}

/**
 * The session is gone for good (see {@link SessionGoneReason}): a client ends it rather than retry.
 *
 * @category errors
 * @since 0.2.0
 */
export class SessionGone extends Base<SessionGone>()("SessionGone", 410, { reason: SessionGoneReason }) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return goneDetail[this.reason]
  }
  override get message(): string {
    return this.detail
  }
}

// -----------------------------------------------------------------------------
// 413, 422
// -----------------------------------------------------------------------------

/**
 * The request body is larger than the server reads.
 *
 * @category errors
 * @since 0.2.0
 */
export class ContentTooLarge extends Base<ContentTooLarge>()("ContentTooLarge", 413) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "Content Too Large"
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * The request body does not match the route's payload schema (or is not JSON): every problem as a
 * pydantic-style item, at most 100 of them (the rest counted in a last item).
 *
 * @category errors
 * @since 0.2.0
 */
export class ValidationFailed extends Base<ValidationFailed>()("ValidationFailed", 422, {
  items: Schema.Array(ValidationItem)
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): ReadonlyArray<ValidationItem> {
    return this.items
  }
  override get message(): string {
    const first = this.items[0]
    const count = `${this.items.length} validation error${this.items.length === 1 ? "" : "s"}`
    return first === undefined ? count : `${count}; first at ${JSON.stringify(first.loc)}: ${first.msg}`
  }
}

// -----------------------------------------------------------------------------
// 500
// -----------------------------------------------------------------------------

/**
 * Environment code failed (a task source, `setup`, the prompt), or the server did: `detail` says
 * what, as the server is set to (`Internal Server Error`, `Type: message`, or the chain of errors;
 * never a stack frame), with secrets redacted.
 *
 * @category errors
 * @since 0.2.0
 */
export class InternalError extends Base<InternalError>()("InternalError", 500, { detail: Schema.String }) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return this.detail
  }
}

// -----------------------------------------------------------------------------
// 503
// -----------------------------------------------------------------------------

/**
 * The session's setup has not finished within the server's wait: try again (`Retry-After: 2`).
 *
 * @category errors
 * @since 0.2.0
 */
export class SessionStarting extends Base<SessionStarting>()("SessionStarting", 503) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "Environment still starting."
  }
  /** @since 0.2.0 */
  get headers(): Readonly<Record<string, string>> {
    return { "x-backend-state": "starting", "retry-after": "2" }
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * The server is draining before it stops: it takes no new sessions (a proxy tries another replica).
 *
 * @category errors
 * @since 0.2.0
 */
export class Draining extends Base<Draining>()("Draining", 503) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "Server is draining: it takes no new sessions"
  }
  /** @since 0.2.0 */
  get headers(): Readonly<Record<string, string>> {
    return { "retry-after": "1" }
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * The server holds as many sessions as it may (`scope: "server"`, `maxSessions`), or the client
 * address does (`scope: "client"`, `maxSessionsPerClient`); `held` is how many. `Retry-After: 5`:
 * sessions free their places as clients delete them, and the reference client retries a 503 three
 * times, waiting as long as `Retry-After` says.
 *
 * @category errors
 * @since 0.2.0
 */
export class TooManySessions extends Base<TooManySessions>()("TooManySessions", 503, {
  scope: Schema.Literal("server", "client"),
  held: Schema.Number
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return this.scope === "server"
      ? `Too many sessions: this server holds ${this.held}, its limit (maxSessions); end some or try again later`
      : `Too many sessions: this client holds ${this.held}, the limit per client (maxSessionsPerClient); end some or try again later`
  }
  /** @since 0.2.0 */
  get headers(): Readonly<Record<string, string>> {
    return { "retry-after": "5" }
  }
  override get message(): string {
    return this.detail
  }
}

/**
 * The server has stopped serving (its drain is over and its sessions are ending).
 *
 * @category errors
 * @since 0.2.0
 */
export class ShuttingDown extends Base<ShuttingDown>()("ShuttingDown", 503) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  /** @since 0.2.0 */
  get detail(): string {
    return "Server is shutting down"
  }
  /** @since 0.2.0 */
  get headers(): Readonly<Record<string, string>> {
    return { "retry-after": "1" }
  }
  override get message(): string {
    return this.detail
  }
}

// -----------------------------------------------------------------------------
// the union
// -----------------------------------------------------------------------------

/**
 * Every error answer of the protocol.
 *
 * @category models
 * @since 0.2.0
 */
export type ProtocolError =
  | MissingSessionId
  | InvalidSecrets
  | UnparsableBody
  | SessionExists
  | InvalidSplit
  | InvalidIndex
  | ListTasksUnsupported
  | UnknownToolset
  | SessionNotFound
  | UnknownEnvironment
  | ScoreGroupUnsupported
  | SessionGone
  | ContentTooLarge
  | ValidationFailed
  | InternalError
  | SessionStarting
  | Draining
  | TooManySessions
  | ShuttingDown

/**
 * Schema of the union.
 *
 * @category schemas
 * @since 0.2.0
 */
export const ProtocolError = Schema.Union(
  MissingSessionId,
  InvalidSecrets,
  UnparsableBody,
  SessionExists,
  InvalidSplit,
  InvalidIndex,
  ListTasksUnsupported,
  UnknownToolset,
  SessionNotFound,
  UnknownEnvironment,
  ScoreGroupUnsupported,
  SessionGone,
  ContentTooLarge,
  ValidationFailed,
  InternalError,
  SessionStarting,
  Draining,
  TooManySessions,
  ShuttingDown
)

/**
 * The class of an error answer: a schema whose values carry their status.
 *
 * @category models
 * @since 0.2.0
 */
export type Class = Schema.Schema.AnyNoContext & { readonly Type: ProtocolError }

/**
 * The status of an error class, read from its annotation (`HttpApiSchema.getStatusError` reads the
 * same).
 *
 * @example
 * ```ts
 * import * as ProtocolError from "openreward-effect/ProtocolError"
 * import * as Protocol from "openreward-effect/Protocol"
 *
 * console.log(Protocol.routes.call.errors.map((error) => `${ProtocolError.statusOf(error)} ${error._tag}`))
 * ```
 *
 * ```text output
 * [
 *   '500 InternalError',
 *   '503 ShuttingDown',
 *   '413 ContentTooLarge',
 *   '400 UnparsableBody',
 *   '422 ValidationFailed',
 *   '400 MissingSessionId',
 *   '404 SessionNotFound',
 *   '410 SessionGone',
 *   '503 SessionStarting'
 * ]
 * ```
 *
 * @category accessors
 * @since 0.2.0
 */
export const statusOf = (error: Class): number => {
  const ast = error.ast
  const own = AST.getAnnotation<number>(ast, StatusAnnotationId)
  const status = Option.isSome(own) ? own : Option.flatMap(
    AST.getSurrogateAnnotation(ast),
    (surrogate) => AST.getAnnotation<number>(surrogate, StatusAnnotationId)
  )
  return Option.getOrElse(status, () => 500)
}

/**
 * Is `u` one of the protocol's error answers?
 *
 * @category guards
 * @since 0.2.0
 */
export const isProtocolError = (u: unknown): u is ProtocolError => typeof u === "object" && u !== null && TypeId in u

/**
 * An error's answer: its status, its `{"detail": ...}` body and its headers.
 *
 * @category accessors
 * @since 0.2.0
 */
export const answer = (error: ProtocolError): {
  readonly status: number
  readonly body: { readonly detail: string | ReadonlyArray<ValidationItem> }
  readonly headers: Readonly<Record<string, string>> | undefined
} => ({ status: error.status, body: { detail: error.detail }, headers: "headers" in error ? error.headers : undefined })
