#!/usr/bin/env bash
# The packages as another project gets them: packs every public package of the workspace (`pnpm
# pack`, after `pnpm build`), installs the tarballs with npm into a scratch project outside the
# workspace, type-checks the embedding example (examples/embedding/main.ts) with tsc against the
# packed .d.ts and runs it with plain node on the example model. Exits 0 when every step passed.
# `ODP_PACK_KEEP=1` keeps the scratch directory (its path is printed).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/odp-pack-test-XXXXXX")"
[ "${ODP_PACK_KEEP:-}" = 1 ] && echo "scratch project: $scratch" || trap 'rm -rf "$scratch"' EXIT

(cd "$root" && pnpm -s build >/dev/null)
mkdir -p "$scratch/tarballs" "$scratch/project"
for manifest in "$root"/packages/*/package.json "$root"/apps/*/package.json; do
  dir="$(dirname "$manifest")"
  [ "$(node -p "require('$manifest').private === true")" = true ] && continue
  (cd "$dir" && pnpm pack --pack-destination "$scratch/tarballs" >/dev/null)
done
echo "packed: $(ls "$scratch/tarballs" | wc -l) packages"

# Nothing published may point at TypeScript sources or carry the workspace's source condition.
for tarball in "$scratch"/tarballs/*.tgz; do
  entries="$(tar -xOzf "$tarball" package/package.json |
    node -e 'const m = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(JSON.stringify([m.exports, m.main, m.types, m.bin]))')"
  if echo "$entries" | grep -q '"@odp/source"\|[^d]\.ts"'; then
    echo "$(basename "$tarball"): an entry point names TypeScript sources: $entries" >&2
    exit 1
  fi
  if tar -tzf "$tarball" | grep -q '\.test\.\|^package/src/'; then
    echo "$(basename "$tarball"): carries sources or tests" >&2
    exit 1
  fi
done

cd "$scratch/project"
cp "$root/examples/embedding/main.ts" "$root/examples/embedding/tsconfig.json" .
cp -r "$root/examples/models/crm" model
echo '{ "name": "odp-pack-test", "private": true, "type": "module" }' >package.json
# swagger-ui-dist (the admin page's API explorer) depends on @scarf/scarf, whose install script
# reports the install to its vendor: this project sends nothing anywhere.
SCARF_ANALYTICS=false npm install --no-audit --no-fund --loglevel=error "$scratch"/tarballs/*.tgz \
  express@^5.1.0 typescript@~5.9.3 @types/node@^20.19.0 @types/express@^5.0.3
npx --no-install tsc -p tsconfig.json
node dist/main.js model
