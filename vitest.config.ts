import { defineConfig } from "vitest/config"
import { alias } from "./vitest.shared.js"

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/interop/**", "test/scale/**", "node_modules/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
