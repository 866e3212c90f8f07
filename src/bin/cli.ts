/**
 * The `openreward-effect` command line: `convert` stored transcripts between formats, and `serve`
 * environments over the OpenReward HTTP protocol. `openreward-effect --help` lists the commands,
 * `openreward-effect convert --help` the options and examples.
 *
 * In a clone of the repository run it with `npm run cli -- <command> ...` (the build that
 * `npm install` makes), or `npm run cli:dev -- ...` (the TypeScript sources, through tsx).
 *
 * @since 0.1.0
 */
import { main } from "../internal/cli/main.js"

// `openreward-effect convert ... | head`: the reader went away, which is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0)
  throw error
})

main(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    if (code !== undefined) process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`openreward-effect: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  }
)
