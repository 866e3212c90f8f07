/**
 * The address of the client behind a request, for the session limit per client.
 *
 * The connection's own address, unless the server is told how many proxies stand in front of it
 * (`Server.Options.trustedProxies`). Each proxy appends the address it received the request from
 * to `X-Forwarded-For` (nginx: `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`), so
 * with `n` proxies the client is the `n`-th address from the right, counting the connection's as
 * the first. Whatever stands further left was written by the client itself and proves nothing, so
 * it is never read; and without trusted proxies the header is ignored altogether.
 *
 * @internal
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Option from "effect/Option"

/** An IPv4 address as IPv6 writes it (`::ffff:1.2.3.4`) is the IPv4 address. */
const normalize = (address: string): string => {
  const trimmed = address.trim()
  return trimmed.toLowerCase().startsWith("::ffff:") && trimmed.includes(".") ? trimmed.slice(7) : trimmed
}

/**
 * The client address of a request, trusting `trustedProxies` proxies in front of the server.
 *
 * @internal
 */
export const of = (request: HttpServerRequest.HttpServerRequest, trustedProxies: number): string => {
  const connection = normalize(Option.getOrElse(request.remoteAddress, () => ""))
  if (trustedProxies === 0) return connection
  const forwarded = request.headers["x-forwarded-for"]
  if (forwarded === undefined) return connection
  const chain = forwarded.split(",").map(normalize).filter((a) => a !== "")
  chain.push(connection)
  return chain[Math.max(0, chain.length - 1 - trustedProxies)]!
}
