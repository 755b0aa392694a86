#!/usr/bin/env bash
# Installs and starts every engine of this folder that can run here; writes the variables of those
# that started to $ODP_ENGINES_RUN/env (source it before the tests). An engine that fails is reported
# with its reason and left out, so its suites skip. Always exits 0.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
run="${ODP_ENGINES_RUN:-/tmp/odp-engines}"
mkdir -p "$run"
: >"$run/env"
for script in "$here"/*.sh; do
  name=$(basename "$script" .sh)
  case "$name" in up | down) continue ;; esac
  started=$(date +%s)
  if ! bash "$script" install >"$run/$name.install.log" 2>&1; then
    echo "engines: $name did not install (see $run/$name.install.log): $(tail -n 1 "$run/$name.install.log")"
    continue
  fi
  if vars=$(bash "$script" start 2>"$run/$name.start.log"); then
    printf '%s\n' "$vars" | sed 's/^/export /' >>"$run/env"
    echo "engines: $name is up in $(($(date +%s) - started)) s"
  else
    echo "engines: $name did not start (see $run/$name.start.log): $(tail -n 1 "$run/$name.start.log")"
  fi
done
