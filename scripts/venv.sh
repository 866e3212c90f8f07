#!/usr/bin/env bash
# Make (once) the Python venv that holds the reference SDK, openreward 0.1.167, and print its python.
# Kept out of git (.venv-interop/). Used by `npm run test:interop` and `npm run vectors`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv-interop
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import openreward' 2>/dev/null; then
  PY="$(bash scripts/python.sh)"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV" >&2
  extra=""
  if ! "$VENV/bin/python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)'; then
    echo "warning: no Python >= 3.12 found; installing openreward with --ignore-requires-python" >&2
    extra="--ignore-requires-python"
  fi
  "$VENV/bin/pip" install --quiet --disable-pip-version-check $extra "openreward==0.1.167" >&2
fi
echo "$PWD/$VENV/bin/python"
