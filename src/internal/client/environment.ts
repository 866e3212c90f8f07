/**
 * Environment handles and sessions: the reference SDK's `AsyncEnvironment` and `AsyncSession`
 * (`openreward/api/environments/client.py`, `openreward/api/_session/*`) as Effect code.
 *
 * @internal
 */
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as ApiRequest from "../../ApiRequest.js"
import * as Block from "../../Block.js"
import type * as Client from "../../Client.js"
import * as ClientError from "../../ClientError.js"
import * as Conversation from "../../Conversation.js"
import type * as ConversionError from "../../ConversionError.js"
import * as Format from "../../Format.js"
import type * as Json from "../../Json.js"
import * as Prompt from "../../Prompt.js"
import * as Protocol from "../../Protocol.js"
import type * as Provider from "../../Provider.js"
import * as ToolFormat from "../../ToolFormat.js"
import { issueOf } from "../parseIssue.js"
import type * as Retry from "./retry.js"
import * as Secrets from "./secrets.js"
import * as Transport from "./transport.js"

/** Everything the client was configured with. */
export interface Settings {
  readonly transport: Transport.Config
  readonly baseUrl: string
  readonly apiUrl: string | undefined
  readonly serviceUrls: ReadonlyArray<string>
  readonly pingInterval: Duration.Duration
  readonly maxPingFailures: number
  readonly createTimeout: Duration.Duration
  readonly callTimeout: Duration.Duration
  readonly policies: {
    readonly requests: Retry.Policy
    readonly sessions: Retry.Policy
    readonly calls: Retry.Policy
  }
}

export const trimUrl = (url: string): string => url.replace(/\/+$/, "")

// -----------------------------------------------------------------------------
// response bodies
// -----------------------------------------------------------------------------

/** What came back, for a `MalformedResponse`: the body's content type and first characters. */
interface Answer {
  readonly contentType: string | undefined
  readonly excerpt: string
}

const malformed = (request: Transport.Request, answer: Answer, path: ConversionError.Path, reason: string) =>
  Transport.malformed(request, reason, { path, contentType: answer.contentType, excerpt: answer.excerpt })

const fromParseError = (request: Transport.Request, answer: Answer, error: ParseResult.ParseError) => {
  const { message, path } = issueOf(error, "first")
  return malformed(request, answer, path, message)
}

const fromMalformedInput = (
  request: Transport.Request,
  answer: Answer,
  prefix: ConversionError.Path,
  error: ConversionError.ConversionError
) => malformed(request, answer, [...prefix, ...error.path], error.message)

type Decoder<A> = (request: Transport.Request, body: Transport.Body) => Either.Either<A, ClientError.MalformedResponse>

/**
 * Decode a body with a schema, or fail with `MalformedResponse` pointing into it. The Schema's
 * parser is built on first use.
 */
const decodeWith = <A, I>(schema: Schema.Schema<A, I>): Decoder<A> => {
  let decode: ((u: unknown) => Either.Either<A, ParseResult.ParseError>) | undefined
  return (request, body) => {
    decode ??= Schema.decodeUnknownEither(schema, { onExcessProperty: "preserve" })
    return Either.mapLeft(decode(body.json), (e) => fromParseError(request, body, e))
  }
}

const answerDecoders = new Map<Protocol.Route, Decoder<unknown>>()

/**
 * A route's answer, decoded by the route's success schema (`Protocol.routes`): keys the schema
 * does not declare are kept, anything else that does not match is a `MalformedResponse` naming the
 * route and pointing into the body. One decoder per route, made on first use.
 */
const decodeAnswer = <R extends Protocol.Route>(route: R): Decoder<Protocol.Route.Success<R>> => {
  let decode = answerDecoders.get(route)
  if (decode === undefined) {
    decode = decodeWith<unknown, unknown>(route.success)
    answerDecoders.set(route, decode)
  }
  return decode as Decoder<Protocol.Route.Success<R>>
}

/**
 * `/tools` and `/task_tools`, decoded by the route's schema, with the tools read by
 * `ToolFormat.decode`: in the server's key order (the Schema decode puts declared keys first), which
 * `ToolFormat.convert` writes back as the reference does.
 */
const decodeToolList = (route: typeof Protocol.routes.tools | typeof Protocol.routes.taskTools): Decoder<
  Protocol.ListToolsOutput
> => {
  const decode = decodeAnswer(route)
  return (request, body) =>
    Either.flatMap(
      decode(request, body),
      (list) =>
        Either.match(ToolFormat.decode((body.json as { readonly tools: unknown }).tools), {
          onLeft: (error) => Either.left(fromMalformedInput(request, body, ["tools"], error)),
          onRight: (tools) => Either.right({ ...list, tools: tools as ReadonlyArray<Protocol.ToolSpec> })
        })
    )
}

const decodeTools = decodeToolList(Protocol.routes.tools)
const decodeTaskTools = decodeToolList(Protocol.routes.taskTools)

const optionalNull = <S extends Schema.Schema.Any>(schema: S) =>
  Schema.optionalWith(Schema.NullOr(schema), { default: () => null, exact: true })

/**
 * `/call`'s answer as this client reads it: the route's success schema (`Protocol.RunToolOutput`)
 * with its content left to the canonical reader (`Prompt.decodeLenient` skips, and reports, blocks
 * of a type this version does not know) and a refusal's `reason` any string (read as the closest
 * reason this version knows, see {@link refusalReason}): what a newer server sends still reads.
 */
const decodeRunToolOutput = decodeWith(Schema.Union(
  Schema.Struct({
    ...Protocol.RunToolSuccess.fields,
    output: Schema.Struct({ ...Protocol.ToolOutput.fields, blocks: Schema.Array(Schema.Unknown) })
  }),
  Schema.Struct({ ...Protocol.RunToolError.fields, reason: optionalNull(Schema.String) })
))

const reasons: ReadonlySet<string> = new Set(ClientError.ToolCallErrorReason.literals)

/** The refusal reason: the server's, or read from its text for servers that do not send one. */
const refusalReason = (reason: string | null, error: string): ClientError.ToolCallErrorReason => {
  if (reason !== null && reasons.has(reason)) return reason as ClientError.ToolCallErrorReason
  if (error.startsWith("Tool name collision")) return "name_collision"
  if (error.startsWith("Tool input validation error")) return "input_validation"
  return "not_found"
}

const typeName = (u: unknown): string =>
  u === null
    ? "null"
    : Array.isArray(u)
    ? "array"
    : typeof u === "object"
    ? (u.constructor?.name ?? "object")
    : typeof u

const isPlainObject = (u: unknown): u is Json.JsonObject =>
  typeof u === "object" && u !== null && !Array.isArray(u) &&
  (Object.getPrototypeOf(u) === Object.prototype || Object.getPrototypeOf(u) === null)

const logSkipped = (what: string, skipped: ReadonlyArray<{ readonly blockType: string }>) =>
  skipped.length === 0 ? Effect.void : Effect.logWarning(
    `skipped ${skipped.length} block(s) of unknown type in ${what}: ${
      [...new Set(skipped.map((s) => s.blockType))].join(", ")
    }`
  )

// -----------------------------------------------------------------------------
// environment
// -----------------------------------------------------------------------------

const isTaskIndex = (source: Client.Task | Client.TaskIndex): source is Client.TaskIndex =>
  "split" in source && "index" in source && !("spec" in source)

export const makeEnvironment = (
  settings: Settings,
  name: string,
  options: Client.EnvironmentOptions | undefined
): Client.Environment => {
  const config = settings.transport
  const baseUrl = trimUrl(options?.baseUrl ?? settings.baseUrl)
  const slash = name.indexOf("/")
  const namespace = slash === -1 ? undefined : name.slice(0, slash)
  const envName = slash === -1 ? name : name.slice(slash + 1)
  const deployment = namespace === undefined ? envName : `${namespace}/${envName}`
  const variant = options?.variant
  const url = (route: Protocol.Route, prefix: string | undefined) => `${baseUrl}${Protocol.routePath(route, prefix)}`
  /** A request to `route`, its body typed by the route's payload schema. */
  const requestOf = <R extends Protocol.Route>(
    route: R,
    prefix: string | undefined,
    fields: Omit<Transport.Request, "method" | "url" | "route" | "body"> & {
      readonly body?: Protocol.Route.PayloadEncoded<R>
    }
  ): Transport.Request => ({ method: route.method, url: url(route, prefix), route: `/${route.path}`, ...fields })

  const createSid = (
    secrets: string | undefined,
    body: Protocol.Route.PayloadEncoded<typeof Protocol.routes.createSession>
  ) => {
    const request = requestOf(Protocol.routes.createSession, undefined, { deployment, body, secrets })
    return Transport.stream(config, request, settings.policies.sessions, {
      resume: false,
      resumableOnly: false,
      timeout: settings.createTimeout,
      timeoutOption: "createTimeout"
    })
      .pipe(
        Effect.catchTag("Remote", (remote) =>
          Effect.fail(
            new ClientError.TransportError({
              method: request.method,
              url: request.url,
              reason: `the server could not create a session: ${remote.detail}`,
              retries: 0
            })
          )),
        Effect.flatMap((result) => {
          // Local servers name the session in the `task_id` event; the platform may answer `{"sid"}`.
          const fromBody = decodeAnswer(Protocol.routes.createSession)(request, { ...result, json: result.value })
          if (Either.isRight(fromBody) && fromBody.right !== null) return Effect.succeed(fromBody.right.sid)
          return result.taskId === undefined || result.taskId === ""
            ? Effect.fail(
              malformed(
                request,
                result,
                [],
                "no session id: neither a task_id event nor {\"sid\"} in the end data"
              )
            )
            : Effect.succeed(result.taskId)
        })
      )
  }

  const deleteSid = (sid: string) =>
    Effect.ignore(
      Transport.request(
        config,
        requestOf(Protocol.routes.deleteSession, undefined, { sid }),
        settings.policies.requests,
        "none"
      )
    )

  // ---------------------------------------------------------------------------
  // which environment
  // ---------------------------------------------------------------------------

  /** The path prefix requests use: the variant, the name the server serves, or none (its default). */
  let resolved: { readonly prefix: string | undefined } | undefined

  const select = (
    served: Option.Option<ReadonlyArray<string>>
  ): Effect.Effect<{ readonly prefix: string | undefined }, ClientError.UnknownEnvironment> => {
    if (Option.isNone(served)) return Effect.succeed({ prefix: variant })
    const list = served.value
    const find = (wanted: string) => list.find((s) => s.toLowerCase() === wanted.toLowerCase())
    const unknown = (requested: string, kind: "name" | "variant") =>
      Effect.fail(new ClientError.UnknownEnvironment({ url: baseUrl, requested, kind, served: list }))
    if (variant !== undefined) {
      return find(variant) === undefined
        ? unknown(variant, "variant")
        : Effect.succeed({ prefix: variant })
    }
    const listed = find(envName)
    if (listed !== undefined) return Effect.succeed({ prefix: listed })
    // `namespace/name` is the platform's naming: the deployment, not necessarily an environment the server lists.
    return namespace === undefined ? unknown(envName, "name") : Effect.succeed({ prefix: undefined })
  }

  /**
   * Ask the server which environments it serves (once per handle), and pick the one to use. A
   * server that does not answer the list (an error status, or not a list of names) is used as the
   * reference uses every server: the variant's paths, or bare paths without one.
   */
  const resolve = (sid: string) =>
    Effect.suspend(() => {
      if (resolved !== undefined) return Effect.succeed(resolved)
      const request = requestOf(Protocol.routes.listEnvironments, undefined, { sid, deployment })
      return Transport.request(config, request, settings.policies.requests, "json").pipe(
        Effect.map((body) => Either.getRight(decodeAnswer(Protocol.routes.listEnvironments)(request, body))),
        Effect.catchIf(
          (e): e is ClientError.HttpError | ClientError.MalformedResponse =>
            e._tag === "HttpError" || e._tag === "MalformedResponse",
          () => Effect.succeed(Option.none<ReadonlyArray<string>>())
        ),
        Effect.flatMap(select),
        Effect.tap((r) => {
          resolved = r
        })
      )
    })

  /** Run `f` with a throw-away session id, as the reference does for environment-level calls. */
  const withSid = <A, E>(f: (sid: string, prefix: string | undefined) => Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      // Interruptible, so that a caller's timeout ends a creation that hangs.
      Effect.interruptible(createSid(undefined, {})),
      (sid) => Effect.flatMap(resolve(sid), ({ prefix }) => f(sid, prefix)),
      deleteSid
    )

  /** The environment's splits, with a session id already made. */
  const listSplits = (sid: string, prefix: string | undefined) => {
    const request = requestOf(Protocol.routes.splits, prefix, { sid, deployment })
    return Effect.flatMap(
      Transport.request(config, request, settings.policies.requests, "json"),
      (body) => decodeAnswer(Protocol.routes.splits)(request, body)
    )
  }

  /**
   * A 400 to a request naming `split`: when the environment's splits do not include it, an
   * `UnknownSplit` listing them; otherwise (or when the splits cannot be read) the 400 itself.
   */
  const checkSplit = (split: string, sid: string, prefix: string | undefined) =>
  <A, E>(
    effect: Effect.Effect<A, E>
  ): Effect.Effect<A, E | ClientError.UnknownSplit> =>
    Effect.catchAll(effect, (error): Effect.Effect<never, E | ClientError.UnknownSplit> => {
      const status = error as { readonly _tag?: unknown; readonly status?: unknown }
      if (status._tag !== "HttpError" || status.status !== 400) return Effect.fail(error)
      return Effect.flatMap(Effect.either(listSplits(sid, prefix)), (splits): Effect.Effect<
        never,
        E | ClientError.UnknownSplit
      > =>
        Either.isRight(splits) && !splits.right.some((s) => s.name === split)
          ? Effect.fail(
            new ClientError.UnknownSplit({
              environment: prefix ?? deployment,
              split,
              splits: splits.right.map((s) => s.name)
            })
          )
          : Effect.fail(error))
    })

  /**
   * A request to an environment route, with a throw-away session id; its answer decoded by the
   * route's success schema (or by `decode`, which reads it further).
   */
  const call = <R extends Protocol.Route, A = Protocol.Route.Success<R>>(
    route: R,
    body: Protocol.Route.PayloadEncoded<R>,
    decode: Decoder<A> = decodeAnswer(route) as Decoder<A>
  ) =>
    withSid((sid, prefix) => {
      const request = requestOf(route, prefix, { sid, deployment, body })
      return Effect.flatMap(
        Transport.request(config, request, settings.policies.requests, "json"),
        (json) => decode(request, json)
      )
    })

  /** `call` for a route that takes a split, with a split the environment does not have as `UnknownSplit`. */
  const callSplit = <R extends Protocol.Route>(
    route: R,
    body: Protocol.Route.PayloadEncoded<R> & { readonly split: string }
  ) =>
    withSid((sid, prefix) => {
      const request = requestOf(route, prefix, { sid, deployment, body })
      return checkSplit(body.split, sid, prefix)(Effect.flatMap(
        Transport.request(config, request, settings.policies.requests, "json"),
        (json) => decodeAnswer(route)(request, json)
      ))
    })

  const toTask = (environmentName: string | undefined) => (spec: Json.JsonObject): Client.Task => ({
    serverName: envName,
    environmentName: environmentName ?? variant ?? envName,
    namespace: namespace ?? null,
    spec
  })

  const environment: Client.Environment = {
    name: envName,
    namespace,
    variant,
    baseUrl,
    deployment,
    splits: call(Protocol.routes.splits, undefined),
    tasks: (split) =>
      Effect.map(
        callSplit(Protocol.routes.tasks, { split }),
        (res) => res.tasks.map(toTask(res.env_name))
      ),
    numTasks: (split) => Effect.map(callSplit(Protocol.routes.numTasks, { split }), (res) => res.num_tasks),
    task: (split, index) =>
      Effect.map(
        callSplit(Protocol.routes.task, { split, index }),
        (res) => toTask(res.env_name)(res.task)
      ),
    taskRange: (split, range) =>
      Effect.map(
        callSplit(Protocol.routes.taskRange, {
          split,
          ...(range?.start === undefined ? {} : { start: range.start }),
          ...(range?.stop === undefined ? {} : { stop: range.stop })
        }),
        (res) => res.tasks.map(toTask(res.env_name))
      ),
    listTools: ((options?: ToolsOptions) =>
      Effect.flatMap(
        call(Protocol.routes.tools, undefined, decodeTools),
        (list) => formatTools(list.tools, options)
      )) as Client.Environment["listTools"],
    session: (source, sessionOptions) => makeSession(environment, source, sessionOptions)
  }

  // ---------------------------------------------------------------------------
  // session
  // ---------------------------------------------------------------------------

  const secretsHeader = (secrets: Client.SessionOptions["secrets"]): string => {
    const entries: Array<readonly [string, Secrets.Secret]> = Object.entries(secrets ?? {}).map((
      [key, secret]
    ) => [key, typeof secret === "string" ? { value: secret, allowedDomains: Secrets.domainsOf(key) } : secret])
    // As the reference, the API key goes along so that the environment can call OpenReward services.
    const domains = Secrets.apiKeyDomains(
      [baseUrl, settings.apiUrl],
      settings.serviceUrls.flatMap((u) => {
        try {
          return [new URL(u).hostname]
        } catch {
          return []
        }
      })
    )
    const key: Secrets.Secret = { value: config.apiKey, allowedDomains: domains }
    return Secrets.header([
      ...entries.filter(([k]) => k !== "api_key" && k !== "OPENREWARD_API_KEY"),
      ["api_key", key],
      ["OPENREWARD_API_KEY", key]
    ])
  }

  const makeSession = (
    self: Client.Environment,
    source: Client.Task | Client.TaskIndex,
    options: Client.SessionOptions | undefined
  ): Effect.Effect<
    Client.Session,
    ClientError.EnvironmentError | ClientError.UnknownSplit,
    Scope.Scope
  > =>
    Effect.gen(function*() {
      const secrets = secretsHeader(options?.secrets)
      const creationBody = options?.envOverrides === undefined ? {} : { env: { ...options.envOverrides } }
      // The steps are interruptible, so that a caller's timeout ends a creation that hangs; an
      // interrupted `/create` may have reached the server, so the environment is deleted all the same.
      const sid = yield* Effect.acquireRelease(Effect.interruptible(createSid(secrets, creationBody)), deleteSid)
      const { prefix } = yield* resolve(sid)
      const deleteEnvironment = Effect.ignore(
        Transport.request(
          config,
          requestOf(Protocol.routes.delete, undefined, { sid }),
          settings.policies.requests,
          "none"
        )
      )
      const createBody = {
        ...(isTaskIndex(source)
          ? { split: source.split, index: source.index, ...(prefix === undefined ? {} : { env_name: prefix }) }
          : { task_spec: source.spec, env_name: source.environmentName }),
        ...(options?.toolset === undefined ? {} : { toolset_name: options.toolset })
      }
      const createRequest = requestOf(Protocol.routes.create, undefined, { sid, deployment, body: createBody, secrets })
      const create = Effect.flatMap(
        Transport.request(config, createRequest, settings.policies.requests, "json"),
        (body) => decodeAnswer(Protocol.routes.create)(createRequest, body)
      )
      yield* Effect.acquireRelease(
        Effect.interruptible(isTaskIndex(source) ? checkSplit(source.split, sid, prefix)(create) : create).pipe(
          Effect.onExit((exit) => Exit.isInterrupted(exit) ? deleteEnvironment : Effect.void)
        ),
        () => deleteEnvironment
      )

      const scope = yield* Effect.scope
      const dead = yield* Deferred.make<never, ClientError.SessionTerminated>()
      const terminate = (error: ClientError.SessionTerminated) =>
        Effect.flatMap(Deferred.fail(dead, error), (first) =>
          first
            ? Effect.zipRight(
              // The session id stays out of log lines: on the platform it is a credential for the session.
              Effect.logWarning(`environment session terminated: ${error.reason}`),
              // Free the server's resources now rather than when the scope closes, as the reference does.
              Effect.asVoid(Effect.forkIn(deleteEnvironment, scope))
            )
            : Effect.void)
      const terminated = (reason: string) => new ClientError.SessionTerminated({ sid, reason })

      /**
       * Run a session call: fail at once when the session is terminated, interrupt it when the
       * session terminates meanwhile, and terminate the session on a 410 or a failed tool.
       */
      const guard = <A, E extends ClientError.ClientError>(
        effect: Effect.Effect<A, E>
      ): Effect.Effect<A, E | ClientError.SessionTerminated> =>
        Effect.flatMap(Deferred.isDone(dead), (done) =>
          done ? Deferred.await(dead) : Effect.raceFirst(effect, Deferred.await(dead))).pipe(
            Effect.catchIf(
              (e): e is E & ClientError.HttpError =>
                e._tag === "HttpError" && e.status === 410,
              (e) => {
                const error = terminated(`server returned 410: ${e.detail}`)
                return Effect.zipRight(terminate(error), Effect.fail(error))
              }
            ),
            Effect.tapError((e) => e._tag === "ToolFailed" ? terminate(terminated(e.detail)) : Effect.void)
          )

      const get = (route: Protocol.Route) => {
        const request = requestOf(route, prefix, { sid, deployment })
        return Effect.map(
          Transport.request(config, request, settings.policies.requests, "json"),
          (body) => ({ request, body })
        )
      }
      const notFound = (e: ClientError.RequestError): e is ClientError.HttpError =>
        e._tag === "HttpError" && e.status === 404

      const readPrompt = Effect.gen(function*() {
        const { body, request } = yield* get(Protocol.routes.prompt)
        const decoded = Prompt.decodeLenient(body.json)
        if (Either.isLeft(decoded)) return yield* fromMalformedInput(request, body, [], decoded.left)
        yield* logSkipped("the prompt", decoded.right.skipped)
        return decoded.right
      })

      const hasMessages = yield* Ref.make(true)
      const readMessages: Effect.Effect<Client.MessagesResult, ClientError.RequestError> = Effect.gen(function*() {
        if (yield* Ref.get(hasMessages)) {
          const served = yield* get(Protocol.routes.messages).pipe(
            Effect.map(Option.some),
            // A server before reference 0.1.157 has no /messages route: fall back, and remember.
            Effect.catchIf(notFound, () => Effect.as(Ref.set(hasMessages, false), Option.none()))
          )
          if (Option.isSome(served)) {
            const { body, request } = served.value
            const decoded = Conversation.decodeLenient(body.json)
            if (Either.isLeft(decoded)) return yield* fromMalformedInput(request, body, [], decoded.left)
            yield* logSkipped("the messages", decoded.right.skipped)
            return { ...decoded.right, source: "messages" as const }
          }
        }
        const { prompt, skipped } = yield* readPrompt
        return {
          conversation: Prompt.toConversation(prompt),
          source: "prompt" as const,
          skipped: skipped.map((s) => ({
            messageIndex: 0,
            blockIndex: s.index,
            path: [s.index],
            blockType: s.blockType
          }))
        }
      })

      const hasTaskTools = yield* Ref.make(true)
      /** What the tool list says of the session beside its tools, kept from the last reading. */
      const listed = yield* Ref.make(Option.none<Listed>())
      const readTools = Effect.gen(function*() {
        const served = (yield* Ref.get(hasTaskTools))
          ? yield* get(Protocol.routes.taskTools).pipe(
            Effect.map(Option.some),
            // A server without per-session tool lists: use the environment's, and remember.
            Effect.catchIf(notFound, () => Effect.as(Ref.set(hasTaskTools, false), Option.none()))
          )
          : Option.none()
        const list = Option.isSome(served)
          ? yield* decodeTaskTools(served.value.request, served.value.body)
          : yield* Effect.flatMap(get(Protocol.routes.tools), ({ body, request }) => decodeTools(request, body))
        yield* Ref.set(listed, Option.some(listedOf(list)))
        return list
      })
      /** The tool list's session facts: read once, then kept (an environment's terminal tool is static). */
      const facts = Effect.flatMap(
        Ref.get(listed),
        (cached) => Option.isSome(cached) ? Effect.succeed(cached.value) : Effect.map(readTools, listedOf)
      )

      const getMessages = (options?: { readonly format?: Client.MessagesFormat }) =>
        guard(Effect.flatMap(readMessages, ({ conversation }) => formatMessages(conversation, options?.format)))

      const callTool = (name: string, input: Json.JsonObject = {}) =>
        guard(Effect.gen(function*() {
          if (!isPlainObject(input)) {
            return yield* new ClientError.ToolCallError({
              tool: name,
              reason: "bad_input_shape",
              detail: `Tool input must be a dictionary, got ${typeName(input)}`
            })
          }
          const request = requestOf(Protocol.routes.call, prefix, { sid, deployment, body: { name, input } })
          const answer = yield* Transport.stream(config, request, settings.policies.calls, {
            resume: true,
            resumableOnly: true,
            timeout: settings.callTimeout,
            timeoutOption: "callTimeout"
          }).pipe(
            Effect.catchTag("Remote", (remote) =>
              Effect.fail(new ClientError.ToolFailed({ tool: name, sid, detail: remote.detail })))
          )
          const result = yield* decodeRunToolOutput(request, { ...answer, json: answer.value })
          if (!result.ok) {
            return yield* new ClientError.ToolCallError({
              tool: name,
              reason: refusalReason(result.reason, result.error),
              detail: result.error
            })
          }
          const blocks = Prompt.decodeLenient(result.output.blocks)
          if (Either.isLeft(blocks)) {
            return yield* fromMalformedInput(request, answer, ["output", "blocks"], blocks.left)
          }
          yield* logSkipped(`the output of tool ${JSON.stringify(name)}`, blocks.right.skipped)
          const output: Protocol.ToolOutput = {
            blocks: blocks.right.prompt,
            metadata: result.output.metadata,
            reward: result.output.reward,
            finished: result.output.finished
          }
          return output
        }))

      const environmentName = prefix ?? deployment
      const scoreGroup = (candidates: ReadonlyArray<Client.Candidate>) =>
        guard(Effect.gen(function*() {
          const group = candidates.map(toCandidate)
          const rich = richTypes(group)
          if (rich.length > 0) {
            const { blockTypes: accepted } = yield* facts
            const refused = rich.filter((t) => !accepted.includes(t))
            if (refused.length > 0) {
              return yield* new ClientError.ScoreGroupUnsupported({
                environment: environmentName,
                blockTypes: refused,
                detail: `the server accepts ${
                  accepted.map((t) => JSON.stringify(t)).join(", ")
                } (message_block_types); send output-only candidates, or upgrade the environment server`
              })
            }
          }
          const request = requestOf(Protocol.routes.scoreGroup, prefix, {
            sid,
            deployment,
            body: {
              candidates: group.map((c) => ({ messages: Conversation.encode(c.messages), metadata: c.metadata }))
            }
          })
          const answer = yield* Transport.stream(config, request, settings.policies.calls, {
            resume: true,
            // Scoring changes no state on the server: a request lost before it was acknowledged is sent again.
            resumableOnly: false,
            timeout: settings.callTimeout,
            timeoutOption: "callTimeout"
          }).pipe(
            Effect.catchTag("Remote", (remote) =>
              Effect.fail(new ClientError.ScoreGroupFailed({ environment: environmentName, detail: remote.detail }))),
            Effect.catchIf((e): e is ClientError.HttpError =>
              e._tag === "HttpError" && e.status === 404, (e) =>
              Effect.fail(
                new ClientError.ScoreGroupUnsupported({
                  environment: environmentName,
                  blockTypes: [],
                  detail: e.detail
                })
              ))
          )
          const { scores } = yield* decodeAnswer(Protocol.routes.scoreGroup)(request, { ...answer, json: answer.value })
          if (scores.length !== group.length) {
            return yield* malformed(
              request,
              answer,
              ["scores"],
              `${scores.length} scores for ${group.length} candidates`
            )
          }
          return scores
        }))

      const session: Client.Session = {
        sid,
        environment: self,
        source,
        getPrompt: guard(Effect.map(readPrompt, (r) => r.prompt)),
        getMessages: getMessages as Client.Session["getMessages"],
        readMessages: guard(readMessages),
        listTools: ((options?: ToolsOptions) =>
          guard(Effect.flatMap(readTools, (list) =>
            formatTools(list.tools, options)))) as Client.Session["listTools"],
        request: ((api: ApiRequest.Api, options?: ApiRequest.Options<ApiRequest.Api>) =>
          guard(Effect.flatMap(
            Effect.zip(readMessages, readTools),
            ([{ conversation }, list]) =>
              Either.match(ApiRequest.make(api, conversation, list.tools, options), {
                onLeft: (error) => Effect.fail(new ClientError.ConversionFailed({ error })),
                onRight: Effect.succeed
              })
          ))) as Client.Session["request"],
        messageBlockTypes: guard(Effect.map(facts, (f) => f.blockTypes)),
        callTool,
        terminalTool: guard(Effect.map(facts, (f) => f.terminal)),
        isAssistantMessageFinal: guard(Effect.map(facts, (f) => Option.isSome(f.terminal))),
        callTerminalTool: (text = "") =>
          Effect.flatMap(
            guard(facts),
            ({ terminal }) =>
              Option.isNone(terminal)
                ? Effect.fail(
                  new ClientError.ToolCallError({
                    tool: "",
                    reason: "not_found",
                    detail: `environment ${JSON.stringify(prefix ?? deployment)} has no terminal tool`
                  })
                )
                : callTool(terminal.value.name, terminal.value.arg === null ? {} : { [terminal.value.arg]: text })
          ),
        supportsScoreGroup: guard(Effect.map(facts, (f) => f.supportsScoreGroup)),
        scoreGroup,
        terminated: Effect.flatMap(
          Deferred.poll(dead),
          Option.match({
            onNone: () => Effect.succeedNone,
            onSome: (result) => Effect.map(Effect.flip(result), Option.some)
          })
        )
      }

      // Keep the session alive: a ping every interval (start to start). A 410 terminates the session
      // at once; otherwise it takes `maxPingFailures` failures in a row (each one already retried).
      const failures = yield* Ref.make(0)
      const pingRequest = requestOf(Protocol.routes.ping, undefined, { sid, deployment })
      const ping = Transport.request(config, pingRequest, settings.policies.requests, "none").pipe(
        Effect.timeoutFail({
          duration: "30 seconds",
          onTimeout: () =>
            new ClientError.TransportError({
              method: "POST",
              url: pingRequest.url,
              reason: "timed out",
              retries: 0
            })
        }),
        Effect.matchEffect({
          onSuccess: () => Effect.as(Ref.set(failures, 0), false),
          onFailure: (error) =>
            error._tag === "HttpError" && error.status === 410
              ? Effect.as(terminate(terminated(`ping: server returned 410: ${error.detail}`)), true)
              : Effect.flatMap(Ref.updateAndGet(failures, (n) => n + 1), (n) =>
                n >= settings.maxPingFailures
                  ? Effect.as(terminate(terminated(`${n} consecutive ping failures: ${error.message}`)), true)
                  : Effect.as(
                    Effect.logWarning(`ping failed (${n}/${settings.maxPingFailures}): ${error.message}`),
                    false
                  ))
        })
      )
      yield* Effect.forkScoped(Effect.repeat(ping, {
        schedule: Schedule.fixed(settings.pingInterval),
        until: (stop) => stop
      }))

      return session
    }).pipe(Effect.annotateLogs({ environment: deployment }))

  return environment
}

// -----------------------------------------------------------------------------
// formats
// -----------------------------------------------------------------------------

interface ToolsOptions extends ToolFormat.Options {
  readonly format?: Client.ToolsFormat
}

const formatTools = (
  tools: ReadonlyArray<Protocol.ToolSpec>,
  options: ToolsOptions | undefined
): Effect.Effect<ReadonlyArray<unknown>, ClientError.ConversionFailed> => {
  const format = options?.format ?? "none"
  if (format === "none") return Effect.succeed(tools)
  return Either.match(ToolFormat.convert(tools, format, options), {
    onLeft: (error) => Effect.fail(new ClientError.ConversionFailed({ error })),
    onRight: Effect.succeed
  })
}

const formatMessages = (
  conversation: Conversation.Conversation,
  format: Client.MessagesFormat | undefined
): Effect.Effect<unknown, ClientError.ConversionFailed> => {
  if (format === undefined || format === "none") return Effect.succeed(conversation)
  return Either.match(Format.encode(format as Provider.Format, conversation), {
    onLeft: (error) => Effect.fail(new ClientError.ConversionFailed({ error })),
    onRight: Effect.succeed
  })
}

// -----------------------------------------------------------------------------
// tool list facts and group candidates
// -----------------------------------------------------------------------------

/** What a tool list says of the session beside its tools. */
interface Listed {
  readonly terminal: Option.Option<Protocol.TerminalToolSpec>
  readonly supportsScoreGroup: boolean
  readonly blockTypes: ReadonlyArray<string>
}

const listedOf = (list: Protocol.ListToolsOutput): Listed => ({
  terminal: Option.fromNullable(list.terminal_tool),
  supportsScoreGroup: list.supports_score_group === true,
  blockTypes: list.message_block_types ?? Block.legacyTypes
})

const toCandidate = (candidate: Client.Candidate): Protocol.GroupCandidate =>
  Array.isArray(candidate)
    ? { messages: candidate as Conversation.Conversation, metadata: null }
    : {
      messages: (candidate as Exclude<Client.Candidate, Conversation.Conversation>).messages,
      metadata: (candidate as Exclude<Client.Candidate, Conversation.Conversation>).metadata ?? null
    }

/** The block types of the candidates beyond text and image (which every server accepts), sorted. */
const richTypes = (candidates: ReadonlyArray<Protocol.GroupCandidate>): ReadonlyArray<string> => {
  const types = new Set<string>()
  for (const { messages } of candidates) {
    for (const message of messages) {
      for (const block of message.blocks) {
        if (block.type !== "text" && block.type !== "image") types.add(block.type)
      }
    }
  }
  return [...types].sort()
}
