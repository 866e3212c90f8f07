import { defineConfig } from "vitest/config"
import { alias } from "./vitest.shared.js"

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["test/scale/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false
  }
})
