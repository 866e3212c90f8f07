#!/usr/bin/env bash
# Scale-out: replicas behind a real nginx, driven by the reference SDK's client (test/scale/**).
# Needs nginx on PATH (Debian: apt-get install -y nginx); runs it unprivileged from a temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nginx >/dev/null || { echo "test:scale needs nginx on PATH (Debian: apt-get install -y nginx)" >&2; exit 1; }
export OPENREWARD_PYTHON="$(bash scripts/venv.sh)"
exec npx vitest run --config vitest.scale.config.ts "$@"
