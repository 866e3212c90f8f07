/**
 * `layer()` of @effect/vitest, leaving the shared `it` as it found it.
 *
 * That `layer()` assigns its own methods (`effect`, `scoped`, ..., bound to its layer) onto the
 * `it` object every test file imports, and this project's vitest runs the files of a worker in one
 * module graph (`isolate: false`), so that object is shared by them all: an `it.effect` collected
 * after such a block, in the same file or in any file the worker collects later, would run on that
 * block's layer (and without the test services, when the block excludes them). Here the block's
 * tests get the block's methods on an object of their own, and the shared `it` is put back at once.
 * (That object is not callable: write `it.effect`, `it.scoped`, `it.prop`, ...)
 */
import * as Vitest from "@effect/vitest"
import type * as Duration from "effect/Duration"
import type * as Layer from "effect/Layer"

/** The methods `layer()` assigns. */
const methods = <It extends Record<"effect" | "scoped" | "prop" | "flakyTest" | "layer", unknown>>(it: It) => ({
  effect: it.effect,
  scoped: it.scoped,
  prop: it.prop,
  flakyTest: it.flakyTest,
  layer: it.layer
})

export const layer = <R, E, const ExcludeTestServices extends boolean = false>(
  layer_: Layer.Layer<R, E>,
  options?: {
    readonly timeout?: Duration.DurationInput
    readonly excludeTestServices?: ExcludeTestServices
  }
) =>
(name: string, f: (it: Vitest.Vitest.MethodsNonLive<R, ExcludeTestServices>) => void): void => {
  const saved = methods(Vitest.it)
  Vitest.layer(layer_, options)(name, (shared) => {
    const own = Object.assign(Object.create(shared), methods(shared)) as typeof shared
    Object.assign(shared, saved)
    f(own)
  })
}
