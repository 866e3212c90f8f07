// Writes handlers.ts and handlers.cts for the consumers: one handler per tag in the installed
// package's own `ConversionError.tags`, so `Match.tagsExhaustive(handlers)` type-checks only if that
// list and the ConversionError union agree.
import * as fs from "node:fs"
import { ConversionError } from "openreward-effect"

const cases = ConversionError.tags.map((tag) =>
  `  ${tag}: (e) => "${tag}" + ("messageIndex" in e && e.messageIndex !== undefined ? " at message " + e.messageIndex : "")`
)
const source = `import type { ConversionError } from "openreward-effect"

type Handlers = {
  readonly [K in ConversionError.ConversionError["_tag"]]: (e: Extract<ConversionError.ConversionError, { _tag: K }>) => string
}

export const handlers = {
${cases.join(",\n")}
} satisfies Handlers
`
fs.writeFileSync("handlers.ts", source)
fs.writeFileSync("handlers.cts", source)
