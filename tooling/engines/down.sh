#!/usr/bin/env bash
# Stops every engine that up.sh started.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for script in "$here"/*.sh; do
  name=$(basename "$script" .sh)
  case "$name" in up | down) continue ;; esac
  bash "$script" stop >/dev/null 2>&1 || true
done
