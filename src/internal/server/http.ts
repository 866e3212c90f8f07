/**
 * HTTP answers in the reference's (FastAPI's) shape: JSON bodies typed by their route's success
 * schema, and `{"detail": ...}` errors from the protocol's error answers (`ProtocolError`).
 *
 * @internal
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Protocol from "../../Protocol.js"
import * as ProtocolError from "../../ProtocolError.js"

/**
 * @internal
 */
export const json = (
  body: string,
  status = 200,
  headers?: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(body, {
    status,
    contentType: "application/json",
    ...(headers === undefined ? {} : { headers })
  })

const encoder = new TextEncoder()

/**
 * A JSON body, encoded once (for answers that never change).
 *
 * @internal
 */
export const encode = (body: string): Uint8Array => encoder.encode(body)

/**
 * A JSON response from an encoded body.
 *
 * @internal
 */
export const jsonBytes = (body: Uint8Array, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(body, { status, contentType: "application/json" })

/**
 * A route's answer: its JSON, as its success schema encodes it (the type is checked; the value is
 * written as it is, with no Schema encode).
 *
 * @internal
 */
export const answer = <R extends Protocol.Route>(
  _route: R,
  value: Protocol.Route.SuccessEncoded<R>
): HttpServerResponse.HttpServerResponse => json(JSON.stringify(value))

/**
 * A route's answer written once, for answers that never change (see {@link answer}).
 *
 * @internal
 */
export const fixedAnswer = <R extends Protocol.Route>(
  _route: R,
  value: Protocol.Route.SuccessEncoded<R>,
  status = 200
): HttpServerResponse.HttpServerResponse => jsonBytes(encode(JSON.stringify(value)), status)

/**
 * The answer of an error: its status, `{"detail": ...}` and headers.
 *
 * @internal
 */
export const toResponse = (error: ProtocolError.ProtocolError): HttpServerResponse.HttpServerResponse => {
  const { body, headers, status } = ProtocolError.answer(error)
  return json(JSON.stringify(body), status, headers)
}

/**
 * @internal
 */
export const empty = (
  status: number,
  headers: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse => HttpServerResponse.empty({ status, headers })
