/**
 * The input checks a hand-written decoder of untrusted JSON cannot skip, as plain functions that
 * throw a plain `Error`.
 */
import type * as Json from "../../../src/Json.js"

/** Throw a plain error. (A declaration, so that a call narrows types like a `throw`.) */
export function fail(message: string): never {
  throw new Error(message)
}

/** A non-null, non-array object. */
export const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** `u` if it is a string. */
export const string = (u: unknown, what: string): string => typeof u === "string" ? u : fail(`${what} must be a string`)

/** `u` if it is a string, `null` if it is absent or null. */
export const optionalString = (u: unknown, what: string): string | null =>
  u === undefined || u === null ? null : typeof u === "string" ? u : fail(`${what} must be a string`)

const isJson = (u: unknown): boolean => {
  switch (typeof u) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(u)
    case "object": {
      if (u === null) return true
      if (Array.isArray(u)) {
        for (let i = 0; i < u.length; i++) if (!isJson(u[i])) return false
        return true
      }
      for (const key in u) if (!isJson((u as { readonly [key: string]: unknown })[key])) return false
      return true
    }
    default:
      return false
  }
}

/** `u` if it is a JSON object (checked deeply: finite numbers, no `undefined`, no functions). */
export const jsonObject = (u: unknown, what: string): Json.JsonObject =>
  isRecord(u) && isJson(u) ? (u as Json.JsonObject) : fail(`${what} must be a JSON object`)

/** Image data in standard base64: base64url (`-`, `_`, padding left out) rewritten, anything else as it is. */
export const base64 = (data: string): string => {
  if (!/[-_]/.test(data) || !/^[A-Za-z0-9_-]*={0,2}$/.test(data)) return data
  const bare = data.replace(/=+$/, "")
  if (bare.length % 4 === 1) return data
  return bare.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (bare.length % 4)) % 4)
}
