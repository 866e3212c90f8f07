/**
 * Reading and validating request bodies the way the reference (FastAPI) does:
 *
 * - a body over the size limit is refused with 413 (`{"detail": "Content Too Large"}`) before it is
 *   read when `Content-Length` says so, and while it is read otherwise;
 * - a body is parsed as JSON only when `Content-Type` is `application/json` (or `+json`); malformed
 *   JSON is a 422 `json_invalid` item at the error's position; other content is validated as the
 *   string it is, and an empty body as missing;
 * - bytes that are not UTF-8 are a 400 `There was an error parsing the body`, and so is JSON nested
 *   deeper than the depth limit, as the reference answers input its parser cannot hold (every body
 *   is read here, so the limit holds for every route, and nothing after it walks deeper);
 * - a body is validated against its route's payload schema (`Protocol.routes`), excess keys refused
 *   (`extra="forbid"`), every problem a pydantic-style item of one 422 (`ValidationFailed`).
 *
 * @internal
 */
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import type * as Schema from "effect/Schema"
import * as ProtocolError from "../../ProtocolError.js"
import * as Guard from "../guard.js"
import * as ProtoKeys from "../protoKeys.js"
import * as Validation from "./validation.js"

/**
 * A request body as FastAPI hands it to validation.
 *
 * @internal
 */
export type Body =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Json"; readonly value: unknown }
  | { readonly _tag: "Raw"; readonly value: string }

const missing: Body = { _tag: "Missing" }
const utf8 = new TextDecoder("utf-8", { fatal: true })

const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const semi = contentType.indexOf(";")
  const mime = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase()
  return mime === "application/json" || (mime.startsWith("application/") && mime.endsWith("+json"))
}

const tooLarge = new ProtocolError.ContentTooLarge()
const unparsable = new ProtocolError.UnparsableBody()

/**
 * Whether JSON text nests arrays and objects deeper than `max`. Text shorter than `max` cannot (each
 * level takes a character), so most bodies are not scanned at all.
 *
 * @internal
 */
export const tooDeep = (text: string, max: number): boolean => {
  if (text.length <= max) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // a backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > max) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

const jsonInvalid = (text: string, error: unknown): ProtocolError.ValidationFailed => {
  const message = error instanceof Error ? error.message : String(error)
  const position = /position (\d+)/.exec(message)
  return failed([{
    type: "json_invalid",
    loc: ["body", position === null ? text.length : Number(position[1])],
    msg: "JSON decode error",
    input: {},
    ctx: { error: message.replace(/ in JSON at position \d+.*$/s, "") }
  }])
}

/**
 * What reading a body fails with.
 *
 * @internal
 */
export type ReadError = ProtocolError.ContentTooLarge | ProtocolError.UnparsableBody | ProtocolError.ValidationFailed

/**
 * The limits a body is read under.
 *
 * @internal
 */
export interface Limits {
  /** The largest body accepted, in bytes (then 413). */
  readonly maxBodySize: number
  /** The deepest nesting of JSON arrays and objects accepted (then 400). */
  readonly maxDepth: number
}

/**
 * Read a request body under the limits.
 *
 * @internal
 */
export const read = (
  request: HttpServerRequest.HttpServerRequest,
  { maxBodySize, maxDepth }: Limits
): Effect.Effect<Body, ReadError> => {
  const length = request.headers["content-length"]
  if (length !== undefined && Number(length) > maxBodySize) return Effect.fail(tooLarge)
  if (length === "0") return Effect.succeed(missing)
  return request.arrayBuffer.pipe(
    HttpIncomingMessage.withMaxBodySize(Option.some(maxBodySize)),
    Effect.mapError((error): ReadError => String(error.cause).includes("maxBytes") ? tooLarge : unparsable),
    Effect.flatMap((buffer): Effect.Effect<Body, ReadError> => {
      if (buffer.byteLength === 0) return Effect.succeed(missing)
      if (buffer.byteLength > maxBodySize) return Effect.fail(tooLarge)
      let text: string
      try {
        text = utf8.decode(buffer)
      } catch {
        return Effect.fail(unparsable)
      }
      if (!isJson(request.headers["content-type"])) return Effect.succeed<Body>({ _tag: "Raw", value: text })
      if (tooDeep(text, maxDepth)) return Effect.fail(unparsable)
      try {
        return Effect.succeed<Body>({ _tag: "Json", value: JSON.parse(text) })
      } catch (e) {
        return Effect.fail(jsonInvalid(text, e))
      }
    })
  )
}

/**
 * A 422 with these items (built here, so not checked again against the item schema).
 *
 * @internal
 */
export const failed = (items: ReadonlyArray<ProtocolError.ValidationItem>): ProtocolError.ValidationFailed =>
  new ProtocolError.ValidationFailed({ items }, true)

const missingBody = failed([{ type: "missing", loc: ["body"], msg: "Field required", input: null }])

/** What the payload of a body that is not JSON (or is missing) fails with. */
const notJson = (body: Exclude<Body, { readonly _tag: "Json" }>): ProtocolError.ValidationFailed =>
  body._tag === "Missing" ? missingBody : failed([{
    type: "model_attributes_type",
    loc: ["body"],
    msg: "Input should be a valid dictionary or object to extract fields from",
    input: Validation.quote(body.value)
  }])

const decodeAll = <A, I>(schema: Schema.Schema<A, I, never>) =>
  ProtoKeys.keeping(ParseResult.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" }))

/**
 * A route's payload decoder: the body decoded by the payload schema (defaults filled in, values
 * transformed), or a 422 listing every problem.
 *
 * @internal
 */
export const decoder = <A, I>(schema: Schema.Schema<A, I, never>) => {
  const decode = decodeAll(schema)
  return (body: Body): Either.Either<A, ProtocolError.ValidationFailed> => {
    if (body._tag !== "Json") return Either.left(notJson(body))
    const result = decode(body.value)
    return Either.isRight(result)
      ? Either.right(result.right)
      : Either.left(failed(Validation.items(result.left, ["body"])))
  }
}

/**
 * A route's payload checker, for a route a rollout calls again and again: the body as it was sent,
 * once a guard compiled from the payload schema (on first use) says it decodes, so a valid body
 * costs a few property checks and no Schema decode; otherwise the Schema decode, for its items.
 * The payload is not transformed: defaults are not filled in (a missing optional key is
 * `undefined`), which is why it is offered only for schemas whose decoded values are also valid
 * encoded ones (then a body the guard leaves to the Schema decode, and that decodes, is returned
 * decoded).
 *
 * @internal
 */
export const checker = <S extends Schema.Schema.AnyNoContext>(
  schema: S & ([Schema.Schema.Type<S>] extends [Schema.Schema.Encoded<S>] ? unknown : never)
) => {
  const decode = decoder<Schema.Schema.Type<S>, Schema.Schema.Encoded<S>>(schema)
  let guard: Guard.Guard | undefined
  return (body: Body): Either.Either<Schema.Schema.Encoded<S>, ProtocolError.ValidationFailed> => {
    if (body._tag === "Json") {
      guard ??= Guard.compile(schema, { onExcessProperty: "error" })
      if (guard(body.value)) return Either.right(body.value as Schema.Schema.Encoded<S>)
    }
    // a decoded value is an encoded one (the constraint on `schema`)
    return decode(body) as Either.Either<Schema.Schema.Encoded<S>, ProtocolError.ValidationFailed>
  }
}
