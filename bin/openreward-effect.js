#!/usr/bin/env node
// The published entry point runs the compiled CLI (`npm install` in a clone and `npm pack` build
// dist/ first). `npm run cli -- ...` runs this; `npm run cli:dev -- ...` runs the TypeScript sources.
import "../dist/bin/cli.js"
