import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.dirname(fileURLToPath(import.meta.url))

/** Resolve the package's own name to its sources, so tests and docs import it as users do. */
export const alias = [
  { find: /^openreward-effect$/, replacement: path.join(root, "src/index.ts") },
  { find: /^openreward-effect\/(.*)$/, replacement: path.join(root, "src/$1.ts") }
]
