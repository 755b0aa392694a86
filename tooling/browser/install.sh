#!/usr/bin/env bash
# Installs Chromium from the Debian archive for the browser tests (test/src/admin-ui.test.ts drives it
# with puppeteer-core; nothing is downloaded by npm). Idempotent: a Chromium already on the PATH is
# reported and kept. Prints `ODP_TEST_CHROMIUM=<path>` on stdout; progress goes to stderr.
set -euo pipefail

find_chromium() {
  for name in chromium chromium-browser google-chrome-stable google-chrome; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
  done
  return 1
}

if ! binary=$(find_chromium); then
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
    echo "tooling/browser/install.sh: Chromium is missing and installing it needs root (apt-get)" >&2
    exit 1
  fi
  run_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  echo "installing chromium from the Debian archive (apt-get; takes a few minutes)" >&2
  run_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  run_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >&2
  binary=$(find_chromium)
fi
echo "chromium: $("$binary" --version 2>/dev/null || echo "$binary")" >&2
echo "ODP_TEST_CHROMIUM=$binary"
