#!/usr/bin/env node
// The published entry point runs the compiled CLI (`npm install` in a clone and `npm pack` build
// dist/ first). `npm run cli -- ...` runs this; `npm run cli:dev -- ...` runs the TypeScript sources.
// dist/bin/cli.js is one bundle (scripts/bundle-cli.ts) that holds `convert`, its codecs and `effect`,
// split so that a command loads only what it needs; `serve` runs from dist/ and says which optional
// peers to install when they are missing (src/internal/cli/main.ts).
import "../dist/bin/cli.js"
