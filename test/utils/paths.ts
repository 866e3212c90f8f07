/**
 * Does an error's path exist in the input it was decoding? Every step walks into what is there: a
 * number indexes an array, a string keys an object (not an array). The last step may name a key that
 * is missing (an error saying it is missing points at it), never an index past an array's end, nor
 * a key of something that is not an object.
 */
export const pathExists = (input: unknown, path: ReadonlyArray<string | number>): boolean => {
  let value: unknown = input
  for (let i = 0; i < path.length; i++) {
    const step = path[i]!
    const last = i === path.length - 1
    if (typeof step === "number") {
      if (!Array.isArray(value) || step < 0 || step >= value.length) return false
      value = value[step]
    } else {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return false
      if (!Object.prototype.hasOwnProperty.call(value, step)) return last
      value = (value as { readonly [key: string]: unknown })[step]
    }
  }
  return true
}
