// Writes src/internal/version.ts from package.json, the one source of the package's version (the
// client's user agent and the CLI's --version read it). npm runs this on `npm version`;
// test/Package.test.ts fails when the two disagree.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }
/** The generated module's text. */
export const source: string = `/**
 * The package's version, generated from package.json by scripts/version.ts (do not edit).
 *
 * @since 0.1.0
 * @internal
 */
export const version: string = ${JSON.stringify(version)}
`
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(path.join(root, "src", "internal", "version.ts"), source)
}
