/**
 * HTTP answers in the reference's (FastAPI's) shape: JSON bodies, `{"detail": ...}` errors.
 *
 * @internal
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Data from "effect/Data"
import type * as Validation from "./validation.js"

/**
 * A request is answered with an error status. `detail` is a message or a list of validation items.
 *
 * @internal
 */
export class HttpFailure extends Data.TaggedError("HttpFailure")<{
  readonly status: number
  readonly detail: string | ReadonlyArray<Validation.Item>
  readonly headers?: Readonly<Record<string, string>> | undefined
}> {}

/**
 * @internal
 */
export const fail = (status: number, detail: string, headers?: Readonly<Record<string, string>>): HttpFailure =>
  new HttpFailure({ status, detail, headers })

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
 * @internal
 */
export const toResponse = (failure: HttpFailure): HttpServerResponse.HttpServerResponse =>
  json(JSON.stringify({ detail: failure.detail }), failure.status, failure.headers)

/**
 * @internal
 */
export const empty = (
  status: number,
  headers: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse => HttpServerResponse.empty({ status, headers })
