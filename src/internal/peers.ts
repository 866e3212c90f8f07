/**
 * The optional peers the HTTP modules need (`Server`, `Client`, `Promise`, `Testing.serve` and the
 * CLI's `serve`), each pinned to the line of package.json's `peerDependencies`: npm's `latest` may
 * be a later line that needs another `effect` (test/Install.test.ts keeps the two in step).
 *
 * @internal
 */
export const server: ReadonlyArray<string> = [
  "@effect/platform@^0.97",
  "@effect/platform-node@^0.108",
  "@effect/experimental@^0.61"
]

/** The package a failed import could not find, when that is why it failed. */
export const missingPackage = (e: unknown): string | undefined =>
  /Cannot find package '(@effect\/[a-z-]+)'/.exec(e instanceof Error ? e.message : "")?.[1]

/** What to say when an optional peer is missing: which, and the command that installs them all. */
export const hint = (who: string, missing: string): string =>
  `${who} needs ${missing}, an optional peer; install the server's peers next to the library:\n` +
  `  npm install ${server.join(" ")}`
