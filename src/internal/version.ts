/**
 * The package's version, generated from package.json by scripts/version.ts (do not edit).
 *
 * @since 0.1.0
 * @internal
 */
export const version: string = "0.1.0"
