#!/usr/bin/env node
// The published entry point runs the compiled CLI (`npm pack` builds dist/ first).
// In a clone of the repository, use `npm run cli -- ...`, which runs the TypeScript sources directly.
// The library needs only `effect`; the CLI also needs optional peers, so say which when they are missing
// (npm installs @effect/cli's own peers, @effect/printer, @effect/printer-ansi and @effect/typeclass, with it).
try {
  await import("../dist/bin/cli.js")
} catch (error) {
  const missing = /Cannot find package '(@effect\/(?:cli|printer|printer-ansi|typeclass|platform|platform-node|experimental))'/.exec(String(error?.message))
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || missing === null) throw error
  process.stderr.write(
    `openreward-effect: the CLI needs ${missing[1]}; install the optional peers next to the library:\n` +
      "  npm install @effect/cli @effect/platform @effect/platform-node @effect/experimental\n"
  )
  process.exitCode = 1
}
