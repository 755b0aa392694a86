#!/usr/bin/env bash
# FerretDB v1 (a MongoDB wire-protocol server on SQLite) for the scale-out suites (see README.md beside
# this file): install | start | stop. No registry has a real mongod; FerretDB proves the store adapter's
# wire-level behaviour (it has no transactions and uses no index, so it never proves speed).
# `go install` of the module is refused (its go.mod has replace directives), so install downloads the
# module source, builds ./cmd/ferretdb and caches the binary.
set -euo pipefail
version="v1.24.0"
cache="${ODP_ENGINES_CACHE:-$HOME/.cache/odp-engines}"
binary="$cache/bin/ferretdb"
run_dir="${ODP_ENGINES_RUN:-/tmp/odp-engines}/ferretdb"

# shellcheck source=common.bash
. "$(dirname "$0")/common.bash"

case "${1:-}" in
  install)
    if [ -x "$binary" ] && [ "$("$binary" --version 2>/dev/null | grep -o "$version" | head -n 1)" = "$version" ]; then
      exit 0
    fi
    command -v go >/dev/null 2>&1 || { echo "ferretdb: go is not installed" >&2; exit 1; }
    module_dir=$(go mod download -json "github.com/FerretDB/FerretDB@$version" | node -e \
      'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const m=JSON.parse(s);if(m.Error){console.error(m.Error);process.exit(1)}console.log(m.Dir)})')
    src="$cache/src/ferretdb-$version"
    rm -rf "$src"
    mkdir -p "$cache/src" "$cache/bin"
    cp -R "$module_dir" "$src"
    chmod -R u+w "$src"
    echo "$version" >"$src/build/version/version.txt"
    echo "ferretdb: building $version (a few minutes on 2 cores)" >&2
    (cd "$src" && go build -o "$binary.tmp" ./cmd/ferretdb) >&2
    mv "$binary.tmp" "$binary"
    ;;
  start)
    [ -x "$binary" ] || { echo "ferretdb: not installed (run '$0 install')" >&2; exit 1; }
    "$0" stop >/dev/null 2>&1 || true
    mkdir -p "$run_dir/data" "$run_dir/state"
    port=$(free_port)
    nohup "$binary" --handler=sqlite --sqlite-url="file:$run_dir/data/" --state-dir="$run_dir/state" \
      --listen-addr="127.0.0.1:$port" --debug-addr=- --telemetry=disable --log-level=warn \
      >"$run_dir/ferretdb.log" 2>&1 &
    echo $! >"$run_dir/ferretdb.pid"
    for _ in $(seq 1 100); do
      if node -e 'const c=require("net").connect(+process.argv[1],"127.0.0.1",()=>{c.end();process.exit(0)});c.on("error",()=>process.exit(1))' "$port"; then
        echo "ODP_TEST_MONGODB_URL=mongodb://127.0.0.1:$port"
        echo "ODP_TEST_MONGODB_ENGINE=ferretdb-$version"
        exit 0
      fi
      kill -0 "$(cat "$run_dir/ferretdb.pid")" 2>/dev/null || { echo "ferretdb: exited: $(tail -n 1 "$run_dir/ferretdb.log")" >&2; exit 1; }
      sleep 0.1
    done
    echo "ferretdb: did not answer on port $port" >&2; exit 1
    ;;
  stop)
    [ -f "$run_dir/ferretdb.pid" ] && kill "$(cat "$run_dir/ferretdb.pid")" 2>/dev/null || true
    rm -rf "$run_dir"
    ;;
  *) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
