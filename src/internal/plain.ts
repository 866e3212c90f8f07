/**
 * Plain values, as `JSON.parse` builds them: the checks every reader of untrusted input shares (the
 * guard, the decoders, the JSON schemas, the bridges), written once.
 *
 * Schema decoding recurses once per level of nesting, so a value nested a few thousand levels deep
 * (which `JSON.parse` builds without complaint) or a cyclic one would overflow the stack. Everything
 * that reads input holds it to {@link maxDepth} first, with {@link tooDeep}, so such input is a
 * `MalformedInput`, not an exception.
 *
 * @internal
 */

/** How deeply input may nest: far beyond any transcript, far below the stack's limit. */
export const maxDepth = 512

/** An object that is not an array (any prototype). */
export const isRecord = (u: unknown): u is { readonly [key: string]: unknown } =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const getPrototypeOf = Object.getPrototypeOf
const objectPrototype = Object.prototype
const hasOwn = objectPrototype.hasOwnProperty

/**
 * A plain object, as `JSON.parse` builds them (not an array): its prototype is `Object.prototype` or
 * `null`, so a property read finds what the Schema decode finds. An object with another prototype (a
 * class instance, a `Date`) may inherit keys.
 */
export const isPlainObject = (u: unknown): u is { readonly [key: string]: unknown } => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto: unknown = getPrototypeOf(u)
  return proto === objectPrototype || proto === null
}

// the path from `u` to the first value too deep, in reverse, or `undefined`
const deepest = (u: unknown, depth: number): Array<string | number> | undefined => {
  if (typeof u !== "object" || u === null) return undefined
  if (depth > maxDepth) return []
  if (Array.isArray(u)) {
    const items: ReadonlyArray<unknown> = u
    for (let i = 0; i < items.length; i++) {
      const path = deepest(items[i], depth + 1)
      if (path !== undefined) {
        path.push(i)
        return path
      }
    }
    return undefined
  }
  const record = u as { readonly [key: string]: unknown }
  for (const key in record) {
    if (!hasOwn.call(record, key)) continue
    const path = deepest(record[key], depth + 1)
    if (path !== undefined) {
      path.push(key)
      return path
    }
  }
  return undefined
}

/**
 * The path (from `u`) to the first object or array nested more than {@link maxDepth} levels below
 * the root, when `u` sits at `depth` below it (the root's elements are at level 1), or `undefined`.
 * A cyclic value is infinitely deep, so it is caught too. Own enumerable keys are walked, in order;
 * the walk recurses at most {@link maxDepth} levels.
 */
export const tooDeep = (u: unknown, depth = 0): ReadonlyArray<string | number> | undefined =>
  deepest(u, depth)?.reverse()

/** Does `u`, found at `depth`, nest no deeper than {@link maxDepth} (and is it acyclic)? */
export const withinDepth = (u: unknown, depth: number): boolean => deepest(u, depth) === undefined
