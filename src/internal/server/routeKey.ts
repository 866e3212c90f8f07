/**
 * What a route key may be: one to 64 letters, digits, `_` or `-`, so it sits in a session id and
 * an nginx `map` pattern without escaping. A module of its own, with no imports, so that the CLI's
 * grammar checks `--route-key` without loading the server.
 *
 * @internal
 */
export const pattern = /^[A-Za-z0-9_-]{1,64}$/

/**
 * @internal
 */
export const rule = "1 to 64 letters, digits, '_' or '-'"
