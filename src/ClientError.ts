/**
 * Everything the OpenReward client can fail with, as one closed union of tagged errors.
 *
 * | error               | meaning                                                                              |
 * | ------------------- | ------------------------------------------------------------------------------------ |
 * | `HttpError`         | the server answered with an error status (after retries, where retrying applies)     |
 * | `TransportError`    | the connection failed or was lost, and retrying did not help or was not safe         |
 * | `MalformedResponse` | the server's answer does not follow the protocol (or is larger than the client reads) |
 * | `RedirectRefused`   | the server redirected to another origin, or too many times; nothing was sent there   |
 * | `UnknownEnvironment`| the server does not serve the environment or variant asked for; it lists what it does |
 * | `UnknownSplit`      | the environment has no such split; it lists the splits it has                        |
 * | `ToolCallError`     | the server refused a tool call (unknown tool, bad input, episode finished); the session lives on |
 * | `ToolFailed`        | the tool ran and raised; the session is now terminated, as the reference SDK does    |
 * | `ScoreGroupUnsupported` | the environment scores no groups, or not candidates with these block types; the session lives on |
 * | `ScoreGroupFailed`  | the environment's group scoring raised (a judge that never gave a verdict); the session lives on |
 * | `SessionTerminated` | the session is gone: a tool failed, pings failed, or the server answered 410         |
 * | `ConversionFailed`  | the conversation or tool list has no form in the requested provider format           |
 *
 * Each method's error type names the members it can produce; match the whole union exhaustively:
 *
 * @example
 * ```ts
 * import * as Match from "effect/Match"
 * import * as ClientError from "openreward-effect/ClientError"
 *
 * const advice = Match.type<ClientError.ClientError>().pipe(
 *   Match.tagsExhaustive({
 *     HttpError: (e) => (e.status >= 500 ? "retry later" : `fix the request: ${e.detail}`),
 *     TransportError: () => "check the network",
 *     MalformedResponse: (e) => `server bug at ${e.url}`,
 *     RedirectRefused: (e) => `allow ${e.to} only if you trust it`,
 *     UnknownEnvironment: (e) => `pick one of ${e.served.join(", ")}`,
 *     UnknownSplit: (e) => `pick one of ${e.splits.join(", ")}`,
 *     ToolCallError: (e) => `tell the model: ${e.detail}`,
 *     ToolFailed: () => "end the rollout",
 *     ScoreGroupUnsupported: () => "keep the pointwise rewards",
 *     ScoreGroupFailed: (e) => `score the group again: ${e.detail}`,
 *     SessionTerminated: () => "start a new session",
 *     ConversionFailed: (e) => `pick another format: ${e.error.message}`
 *   })
 * )
 * console.log(advice(new ClientError.SessionTerminated({ sid: "s1", reason: "ping failed" })))
 * ```
 *
 * ```text output
 * start a new session
 * ```
 *
 * Every error is a `Schema.TaggedError`, so the union encodes to JSON and back with
 * {@link ClientError}.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ConversionError from "./ConversionError.js"

const TypeIdKey = "~openreward-effect/ClientError"

/**
 * @category symbols
 * @since 0.1.0
 */
export const TypeId: typeof TypeIdKey = TypeIdKey

/**
 * @category symbols
 * @since 0.1.0
 */
export type TypeId = typeof TypeId

/**
 * The server answered with an error status. `detail` is the server's `{"detail": ...}` text (JSON
 * text when the detail is not a string, such as a 422's validation errors), or the raw body.
 *
 * @category errors
 * @since 0.1.0
 */
export class HttpError extends Schema.TaggedError<HttpError>("openreward-effect/ClientError/HttpError")("HttpError", {
  method: Schema.String,
  url: Schema.String,
  status: Schema.Number,
  detail: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.method} ${this.url}: HTTP ${this.status}: ${this.detail}`
  }
}

/**
 * The request could not be sent, or the connection was lost, and retrying did not help (`retries`
 * retries were made) or was not safe (a `/call` lost before the server acknowledged it is not sent
 * again, so the tool cannot run twice).
 *
 * @category errors
 * @since 0.1.0
 */
export class TransportError extends Schema.TaggedError<TransportError>(
  "openreward-effect/ClientError/TransportError"
)("TransportError", {
  method: Schema.String,
  url: Schema.String,
  reason: Schema.String,
  retries: Schema.Number
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const retried = this.retries === 0 ? "" : ` (after ${this.retries} ${this.retries === 1 ? "retry" : "retries"})`
    return `${this.method} ${this.url}: ${this.reason}${retried}`
  }
}

/**
 * The server's answer does not follow the protocol: not JSON, JSON of the wrong shape, not an event
 * stream where the route answers one, or larger than the client's `maxResponseBytes`. `route` is the
 * protocol route (`/create_session`, `/tasks`, ...), `path` points into the response body, and
 * `contentType` and `excerpt` (its first bytes, at most 200 characters) say what came back.
 *
 * @category errors
 * @since 0.1.0
 */
export class MalformedResponse extends Schema.TaggedError<MalformedResponse>(
  "openreward-effect/ClientError/MalformedResponse"
)("MalformedResponse", {
  method: Schema.String,
  url: Schema.String,
  route: Schema.String,
  path: ConversionError.Path,
  reason: Schema.String,
  contentType: Schema.optional(Schema.String),
  excerpt: Schema.optional(Schema.String)
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const at = this.path.length === 0 ? "" : ` at ${JSON.stringify(this.path)}`
    const what = [
      ...(this.contentType === undefined ? [] : [`content-type ${JSON.stringify(this.contentType)}`]),
      ...(this.excerpt === undefined ? [] : [`body ${JSON.stringify(this.excerpt)}`])
    ]
    return `${this.method} ${this.url}: malformed response${at}: ${this.reason}${
      what.length === 0 ? "" : ` (${what.join(", ")})`
    }`
  }
}

/**
 * Why a redirect was not followed:
 *
 * - `other-origin`: to an origin (scheme, host and port) other than the configured base URL's,
 *   and not listed in the client's `allowedRedirectOrigins`;
 * - `secrets`: to another origin, listed or not, by a request that carries `X-Secrets`, which is
 *   sent to the configured base URL only;
 * - `too-many`: more redirects in a row than the client's `maxRedirects`;
 * - `invalid-location`: the `Location` header is not an `http:` or `https:` URL.
 *
 * @category schemas
 * @since 0.2.0
 */
export const RedirectRefusedReason = Schema.Literal("other-origin", "secrets", "too-many", "invalid-location")

/**
 * @category models
 * @since 0.2.0
 */
export type RedirectRefusedReason = typeof RedirectRefusedReason.Type

/**
 * The server answered with a redirect the client does not follow (see {@link RedirectRefusedReason}).
 * Nothing was sent to the redirect's target. `url` is the request as first sent, `from` the origin
 * that answered the redirect, `to` the origin it pointed to and `location` the whole target.
 *
 * @category errors
 * @since 0.2.0
 */
export class RedirectRefused extends Schema.TaggedError<RedirectRefused>(
  "openreward-effect/ClientError/RedirectRefused"
)("RedirectRefused", {
  method: Schema.String,
  url: Schema.String,
  status: Schema.Number,
  from: Schema.String,
  to: Schema.String,
  location: Schema.String,
  reason: RedirectRefusedReason
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const why = this.reason === "other-origin"
      ? "another origin (list it in allowedRedirectOrigins to follow it)"
      : this.reason === "secrets"
      ? "another origin, and the request carries X-Secrets, which goes to the configured base URL only"
      : this.reason === "too-many"
      ? "too many redirects (see maxRedirects)"
      : "the Location is not an http(s) URL"
    return `${this.method} ${this.url}: refused a ${this.status} redirect from ${this.from} to ${this.to}: ${why}`
  }
}

/**
 * The server lists the environments it serves (`/list_environments`), and the name or variant
 * given to `client.environment` is not among them. `requested` is that name or variant, `served`
 * what the server lists.
 *
 * @category errors
 * @since 0.2.0
 */
export class UnknownEnvironment extends Schema.TaggedError<UnknownEnvironment>(
  "openreward-effect/ClientError/UnknownEnvironment"
)("UnknownEnvironment", {
  url: Schema.String,
  requested: Schema.String,
  kind: Schema.Literal("name", "variant"),
  served: Schema.Array(Schema.String)
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    const served = this.served.length === 0 ? "nothing" : this.served.map((s) => JSON.stringify(s)).join(", ")
    return `${this.url} does not serve the environment ${this.kind === "variant" ? "variant " : ""}${
      JSON.stringify(this.requested)
    }; it serves ${served}`
  }
}

/**
 * The environment has no split of that name (the server answered 400, and its `/splits` do not
 * list it). `splits` are the splits it has.
 *
 * @category errors
 * @since 0.2.0
 */
export class UnknownSplit extends Schema.TaggedError<UnknownSplit>("openreward-effect/ClientError/UnknownSplit")(
  "UnknownSplit",
  {
    environment: Schema.String,
    split: Schema.String,
    splits: Schema.Array(Schema.String)
  }
) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `environment ${JSON.stringify(this.environment)} has no split ${
      JSON.stringify(this.split)
    }; its splits are ${this.splits.length === 0 ? "none" : this.splits.map((s) => JSON.stringify(s)).join(", ")}`
  }
}

/**
 * Why the server refused a tool call. Servers before the `reason` field are read by their error
 * text, as the reference SDK does; `bad_input_shape` is the client's own check that the input is a
 * JSON object.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ToolCallErrorReason = Schema.Literal(
  "not_found",
  "name_collision",
  "input_validation",
  "bad_input_shape",
  "episode_finished"
)

/**
 * @category models
 * @since 0.1.0
 */
export type ToolCallErrorReason = typeof ToolCallErrorReason.Type

/**
 * The server refused a tool call (`{"ok": false, ...}`): the call was malformed or the episode is
 * over. The tool did not run and the session is still usable; report `detail` to the model.
 *
 * @category errors
 * @since 0.1.0
 */
export class ToolCallError extends Schema.TaggedError<ToolCallError>("openreward-effect/ClientError/ToolCallError")(
  "ToolCallError",
  {
    tool: Schema.String,
    reason: ToolCallErrorReason,
    detail: Schema.String
  }
) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    // `tool` is empty for `callTerminalTool` on an environment without a terminal tool.
    return `${this.tool === "" ? "terminal tool" : `tool ${JSON.stringify(this.tool)}`}: ${this.reason}: ${this.detail}`
  }
}

/**
 * The tool ran and raised (the server's stream ended with an `error` event). The environment is
 * in an unknown state, so the session is terminated: later calls fail with
 * {@link SessionTerminated}.
 *
 * @category errors
 * @since 0.1.0
 */
export class ToolFailed extends Schema.TaggedError<ToolFailed>("openreward-effect/ClientError/ToolFailed")(
  "ToolFailed",
  {
    tool: Schema.String,
    sid: Schema.String,
    detail: Schema.String
  }
) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `tool ${JSON.stringify(this.tool)} failed (sid=${this.sid}): ${this.detail}`
  }
}

/**
 * The environment does not score groups (`/score_group` answered 404: it has no `scoreGroup`, or
 * the server is older than reference 0.1.157), or the candidates hold block types the server does
 * not accept (`blockTypes`, beyond its `message_block_types`; nothing was sent then). Scoring
 * changes nothing on the server, so the session lives on: use the pointwise rewards instead.
 *
 * @category errors
 * @since 0.2.0
 */
export class ScoreGroupUnsupported extends Schema.TaggedError<ScoreGroupUnsupported>(
  "openreward-effect/ClientError/ScoreGroupUnsupported"
)("ScoreGroupUnsupported", {
  environment: Schema.String,
  /** The block types of the candidates the server does not accept; empty when it scores no groups at all. */
  blockTypes: Schema.Array(Schema.String),
  detail: Schema.String
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return this.blockTypes.length === 0
      ? `environment ${JSON.stringify(this.environment)} does not score groups: ${this.detail}`
      : `environment ${JSON.stringify(this.environment)} does not accept ${
        this.blockTypes.map((t) => JSON.stringify(t)).join(", ")
      } blocks in group candidates: ${this.detail}`
  }
}

/**
 * The environment's group scoring raised or returned something that is not one score per candidate
 * (its `/score_group` stream ended with an `error` event; a judge that never gave a verdict it could
 * read ends here). Unlike {@link ToolFailed} the session is **not** terminated: scoring does not
 * change the environment's state, so the group may be scored again.
 *
 * @category errors
 * @since 0.2.0
 */
export class ScoreGroupFailed extends Schema.TaggedError<ScoreGroupFailed>(
  "openreward-effect/ClientError/ScoreGroupFailed"
)("ScoreGroupFailed", {
  environment: Schema.String,
  detail: Schema.String
}) {
  /** @since 0.2.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `environment ${JSON.stringify(this.environment)}: scoring the group failed: ${this.detail}`
  }
}

/**
 * The session is gone or unusable: a tool failed, the keep-alive pings failed, or the server said
 * the session was deleted (410). Start a new session.
 *
 * @category errors
 * @since 0.1.0
 */
export class SessionTerminated extends Schema.TaggedError<SessionTerminated>(
  "openreward-effect/ClientError/SessionTerminated"
)("SessionTerminated", {
  sid: Schema.String,
  reason: Schema.String
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `environment session terminated (sid=${this.sid}): ${this.reason}`
  }
}

/**
 * A conversation or tool list has no form in the requested format (for example reasoning for
 * `google`, or an image inside a tool result for `openai`). `error` is the codec's own error.
 *
 * @category errors
 * @since 0.1.0
 */
export class ConversionFailed extends Schema.TaggedError<ConversionFailed>(
  "openreward-effect/ClientError/ConversionFailed"
)("ConversionFailed", {
  error: ConversionError.ConversionError
}) {
  /** @since 0.1.0 */
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return this.error.message
  }
}

/**
 * What any request to an environment server can fail with.
 *
 * @category models
 * @since 0.1.0
 */
export type RequestError = HttpError | TransportError | MalformedResponse | RedirectRefused

/**
 * What a call on an environment handle can fail with: any request's errors, and an environment the
 * server does not serve.
 *
 * @category models
 * @since 0.2.0
 */
export type EnvironmentError = RequestError | UnknownEnvironment

/**
 * What any call on a session can fail with.
 *
 * @category models
 * @since 0.1.0
 */
export type SessionError = RequestError | SessionTerminated

/**
 * The closed union of every client error.
 *
 * @category models
 * @since 0.1.0
 */
export type ClientError =
  | HttpError
  | TransportError
  | MalformedResponse
  | RedirectRefused
  | UnknownEnvironment
  | UnknownSplit
  | ToolCallError
  | ToolFailed
  | ScoreGroupUnsupported
  | ScoreGroupFailed
  | SessionTerminated
  | ConversionFailed

/**
 * Schema of the union, for sending errors over the wire.
 *
 * @category schemas
 * @since 0.1.0
 */
export const ClientError = Schema.Union(
  HttpError,
  TransportError,
  MalformedResponse,
  RedirectRefused,
  UnknownEnvironment,
  UnknownSplit,
  ToolCallError,
  ToolFailed,
  ScoreGroupUnsupported,
  ScoreGroupFailed,
  SessionTerminated,
  ConversionFailed
)

/**
 * Every tag of the union.
 *
 * @category constants
 * @since 0.1.0
 */
export const tags: ReadonlyArray<ClientError["_tag"]> = [
  "HttpError",
  "TransportError",
  "MalformedResponse",
  "RedirectRefused",
  "UnknownEnvironment",
  "UnknownSplit",
  "ToolCallError",
  "ToolFailed",
  "ScoreGroupUnsupported",
  "ScoreGroupFailed",
  "SessionTerminated",
  "ConversionFailed"
]

/**
 * Is `u` one of the client's errors?
 *
 * @category guards
 * @since 0.1.0
 */
export const isClientError = (u: unknown): u is ClientError => typeof u === "object" && u !== null && TypeId in u
