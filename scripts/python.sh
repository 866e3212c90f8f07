#!/usr/bin/env bash
# Print a Python >= 3.12 interpreter (the reference SDK, openreward 0.1.167, requires it).
# Falls back to 3.11 (installed with --ignore-requires-python by the callers) when nothing newer exists.
set -euo pipefail
for candidate in python3.12 python3.13 python3; do
  if command -v "$candidate" >/dev/null 2>&1; then
    if "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
      command -v "$candidate"; exit 0
    fi
  fi
done
if command -v pyenv >/dev/null 2>&1; then
  root="$(pyenv root)"
  for v in $(ls "$root/versions" 2>/dev/null | sort -V -r); do
    bin="$root/versions/$v/bin/python3"
    if [ -x "$bin" ] && "$bin" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
      echo "$bin"; exit 0
    fi
  done
fi
command -v python3
