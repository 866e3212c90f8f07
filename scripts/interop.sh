#!/usr/bin/env bash
# Live interop with the reference SDK: makes its own venv, then runs test/interop/**.
set -euo pipefail
cd "$(dirname "$0")/.."
export OPENREWARD_PYTHON="$(bash scripts/venv.sh)"
exec npx vitest run --config vitest.interop.config.ts "$@"
