#!/usr/bin/env node
// The published entry point runs the compiled CLI (`npm install` in a clone and `npm pack` build
// dist/ first). `npm run cli -- ...` runs this; `npm run cli:dev -- ...` runs the TypeScript sources.
// `convert` and `--help` need only `effect`; `serve` says which optional peers to install when they
// are missing (src/internal/cli/main.ts).
import "../dist/bin/cli.js"
