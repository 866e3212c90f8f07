/**
 * What every server process of `npm run bench:server` shares: it reads its port from `--port`, and
 * it exits the moment its standard input closes (the benchmark closes it on exit, and the system
 * closes it if the benchmark dies), so no server outlives the benchmark.
 */

/** Exit when standard input closes. */
export const exitWithParent = (): void => {
  process.stdin.on("end", () => process.exit(0))
  process.stdin.on("error", () => process.exit(0))
  process.stdin.resume()
}

/** The `--port` argument. */
export const portArgument = (): number => {
  const at = process.argv.indexOf("--port")
  const port = Number(at === -1 ? undefined : process.argv[at + 1])
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new Error(`expected --port <1-65535>, got ${process.argv.slice(2).join(" ")}`)
  }
  return port
}
