/**
 * A value made on first use. A format's internal modules import its public module for the wire
 * schemas, and the public module imports them: an ESM cycle, so while an internal module loads the
 * schemas may not be initialised yet. Whatever an internal module builds from them (a guard, a
 * Schema decoder, a set of known types) it builds through this, on the first call.
 *
 * @internal
 */

/** `make()`, called on the first call of the function returned (`make` must not return `undefined`). */
export const lazy = <A>(make: () => A): () => A => {
  let value: A | undefined
  return () => value ??= make()
}
