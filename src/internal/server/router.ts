/**
 * Dispatch on the protocol's one route table (`Protocol.routes`), as the reference (Starlette behind
 * its default-environment middleware) routes:
 *
 * - the path is percent-decoded first, as uvicorn decodes it (`urllib.parse.unquote`: `%XX` runs
 *   decoded as UTF-8 with replacement characters, `%2F` included, malformed escapes kept);
 * - a path whose first segment is neither a root route nor an environment is redirected (308)
 *   under the default environment;
 * - a route's path with the wrong method is 405 (with `Allow`), with a trailing slash 307 to the
 *   path without it, and anything else 404.
 *
 * Each request costs a map lookup or two: there is no router to skip on the session routes a
 * rollout calls again and again.
 *
 * @internal
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Effect from "effect/Effect"
import * as Protocol from "../../Protocol.js"
import type * as ProtocolError from "../../ProtocolError.js"
import type { Compiled } from "./compiled.js"
import { encode, jsonBytes } from "./http.js"

/**
 * Where a request landed: the environment of its path (the default one for root routes), and the
 * path segment as spelt (environment names match without regard to case, and answers echo them).
 *
 * @internal
 */
export interface Target {
  readonly compiled: Compiled
  readonly name: string
}

/**
 * A handler: it answers, or fails with one of the error answers `E`.
 *
 * @internal
 */
export type Handler<E, R> = (
  request: HttpServerRequest.HttpServerRequest,
  target: Target
) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>

/**
 * A handler for every route of the protocol, each failing only with the error answers its route
 * lists (`Protocol.routes[name].errors`): the compiler checks every handler's failures.
 *
 * @internal
 */
export type Handlers<R> = {
  readonly [K in Protocol.RouteName]: Handler<Protocol.Route.Error<typeof Protocol.routes[K]>, R>
}

/**
 * Any handler of {@link Handlers}.
 *
 * @internal
 */
export type AnyHandler<R> = Handler<ProtocolError.ProtocolError, R>

/**
 * What a request resolves to.
 *
 * @internal
 */
export type Resolved<R> =
  | { readonly _tag: "Route"; readonly handler: AnyHandler<R>; readonly target: Target }
  | { readonly _tag: "Answer"; readonly response: HttpServerResponse.HttpServerResponse }

const decoder = new TextDecoder("utf-8")
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
const utf8 = new TextEncoder()

/**
 * Python's `urllib.parse.unquote`, as uvicorn decodes a request path.
 *
 * @internal
 */
export const unquote = (path: string): string => {
  if (!path.includes("%")) return path
  const bytes: Array<number> = []
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i)
    if (c === 37 && i + 2 < path.length + 0 && isHex(path.charCodeAt(i + 1)) && isHex(path.charCodeAt(i + 2))) {
      bytes.push(parseInt(path.slice(i + 1, i + 3), 16))
      i += 2
    } else if (c < 0x80) {
      bytes.push(c)
    } else {
      const point = path.codePointAt(i)!
      if (point > 0xffff) i++
      for (const b of utf8.encode(String.fromCodePoint(point))) bytes.push(b)
    }
  }
  return decoder.decode(Uint8Array.from(bytes))
}

const quoteSafe = new Set(
  Array.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~:/%#?=@[]!$&'()*+,;")
)

/**
 * A redirect's `Location`, quoted as Starlette's `RedirectResponse` quotes it.
 *
 * @internal
 */
export const quoteLocation = (url: string): string => {
  let out = ""
  for (const b of utf8.encode(url)) {
    const ch = String.fromCharCode(b)
    out += b < 0x80 && quoteSafe.has(ch) ? ch : `%${b.toString(16).toUpperCase().padStart(2, "0")}`
  }
  return out
}

/** First segments that never redirect: the root routes, and FastAPI's documentation routes. */
const exempt: ReadonlySet<string> = new Set([
  ...Object.values(Protocol.routes).filter((r) => r.scope === "root").map((r) => r.path),
  "docs",
  "redoc",
  "openapi.json"
])

interface Entry<R> {
  readonly route: Protocol.Route
  readonly handler: AnyHandler<R>
}

/**
 * The dispatcher of a server: its environments (by lower-cased key, the first the default) and a
 * handler for every route.
 *
 * @internal
 */
export const make = <R>(
  compiled: ReadonlyArray<Compiled>,
  handlers: Handlers<R>
): (request: HttpServerRequest.HttpServerRequest) => Resolved<R> => {
  const envs = new Map(compiled.map((c) => [c.key, c] as const))
  const defaultEnv = compiled[0]!
  const root = new Map<string, Entry<R>>()
  const env = new Map<string, Entry<R>>()
  for (const name of Object.keys(Protocol.routes) as Array<Protocol.RouteName>) {
    const route = Protocol.routes[name]
    ;(route.scope === "root" ? root : env).set(route.path, { route, handler: handlers[name] })
  }

  /** The route at a decoded path, and the environment it is under. */
  const lookup = (path: string): { readonly entry: Entry<R>; readonly target: Target } | undefined => {
    const slash = path.indexOf("/", 1)
    if (slash === -1) {
      const entry = root.get(path.slice(1))
      return entry === undefined ? undefined : { entry, target: { compiled: defaultEnv, name: "" } }
    }
    if (path.indexOf("/", slash + 1) !== -1) return undefined
    const name = path.slice(1, slash)
    const target = envs.get(name.toLowerCase())
    const entry = target === undefined ? undefined : env.get(path.slice(slash + 1))
    return entry === undefined ? undefined : { entry, target: { compiled: target!, name } }
  }

  const notFound = jsonBytes(encode(JSON.stringify({ detail: "Not Found" })), 404)
  const methodNotAllowed = encode(JSON.stringify({ detail: "Method Not Allowed" }))

  return (request) => {
    const url = request.url
    const q = url.indexOf("?")
    const path = unquote(q === -1 ? url : url.slice(0, q))
    const query = q === -1 ? "" : url.slice(q + 1)
    const found = lookup(path)
    if (found !== undefined) {
      if (found.entry.route.method === request.method) {
        return { _tag: "Route", handler: found.entry.handler, target: found.target }
      }
      // FastAPI does not answer HEAD on GET routes, as a router might: no route takes HEAD.
      return {
        _tag: "Answer",
        response: HttpServerResponse.uint8Array(methodNotAllowed, {
          status: 405,
          contentType: "application/json",
          headers: { allow: found.entry.route.method }
        })
      }
    }
    let start = 0
    let end = path.length
    while (start < end && path.charCodeAt(start) === 47) start++
    while (end > start && path.charCodeAt(end - 1) === 47) end--
    const stripped = path.slice(start, end)
    const slash = stripped.indexOf("/")
    const first = (slash === -1 ? stripped : stripped.slice(0, slash)).toLowerCase()
    if (!exempt.has(first) && !envs.has(first)) {
      const location = quoteLocation(`/${defaultEnv.key}${path}${query === "" ? "" : `?${query}`}`)
      return { _tag: "Answer", response: HttpServerResponse.empty({ status: 308, headers: { location } }) }
    }
    // Starlette's redirect_slashes: the path without its trailing slashes names a route.
    if (end < path.length && end > 0 && lookup(path.slice(0, end)) !== undefined) {
      const host = request.headers["host"] ?? "localhost"
      const location = quoteLocation(`http://${host}${path.slice(0, end)}${query === "" ? "" : `?${query}`}`)
      return { _tag: "Answer", response: HttpServerResponse.empty({ status: 307, headers: { location } }) }
    }
    return { _tag: "Answer", response: notFound }
  }
}
