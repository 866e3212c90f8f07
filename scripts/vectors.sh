#!/usr/bin/env bash
# Regenerate the golden vectors (test/vectors/expected.json) by running the reference SDK,
# openreward 0.1.167, over test/vectors/corpus.json. Extra arguments go to scripts/vectors.py
# (`--check FILE`, `--out FILE`). OPENREWARD_PYTHON picks the interpreter; otherwise the interop venv.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${OPENREWARD_PYTHON:-$(bash scripts/venv.sh)}"
exec "$PY" scripts/vectors.py "$@"
