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
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
