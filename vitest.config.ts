import * as os from "node:os"
import { defineConfig } from "vitest/config"
import { alias } from "./vitest.shared.js"

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/interop/**", "test/scale/**", "node_modules/**"],
    // One module graph per worker instead of per file: the files share effect and the library's
    // modules already loaded, which took a quarter of the run to load again (collect 27 s -> 5 s).
    // Every file restores what it changes (console capture, env variables), so none leaks.
    isolate: false,
    // vitest's default is one worker per core less one: one worker on a 2-core machine, which
    // leaves a core idle whenever a file computes in-process. Two workers there took the suite from
    // 81-85 s to 53-71 s on an idle 2-vCPU machine. The files share no port, directory or state.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // The type-level tests (test/types/*.test-d.ts) run in the same `vitest run`: `tsc -p
    // tsconfig.typetest.json` checks them, and an assertion that no longer holds (or a
    // `@ts-expect-error` with no error under it) fails the run.
    typecheck: {
      enabled: true,
      include: ["test/types/**/*.test-d.ts"],
      tsconfig: "./tsconfig.typetest.json"
    },
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
