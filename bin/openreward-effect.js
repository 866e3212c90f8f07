#!/usr/bin/env node
// The published entry point runs the compiled CLI (`npm pack` builds dist/ first).
// In a clone of the repository, use `npm run cli -- ...`, which runs the TypeScript sources directly.
import "../dist/bin/cli.js"
