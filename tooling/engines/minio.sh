#!/usr/bin/env bash
# MinIO for the S3 blob store suites (see README.md beside this file): install | start | stop.
# install builds the server with `go install` into $ODP_ENGINES_CACHE/bin (a built binary is reused).
set -euo pipefail
cache="${ODP_ENGINES_CACHE:-$HOME/.cache/odp-engines}"
run_dir="${ODP_ENGINES_RUN:-/tmp/odp-engines}/minio"
binary="$cache/bin/minio"
access_key=odp-test
secret_key=odp-test-secret-key

# shellcheck source=common.bash
. "$(dirname "$0")/common.bash"

case "${1:-}" in
  install)
    [ -x "$binary" ] && exit 0
    command -v go >/dev/null 2>&1 || { echo "minio: go is not installed (needed to build the server)" >&2; exit 1; }
    mkdir -p "$cache/bin"
    GOBIN="$cache/bin" go install github.com/minio/minio@latest >&2
    ;;
  start)
    [ -x "$binary" ] || { echo "minio: $binary is missing (run: $0 install)" >&2; exit 1; }
    "$0" stop >/dev/null 2>&1 || true
    mkdir -p "$run_dir/data"
    port=$(free_port)
    console=$(free_port)
    MINIO_ROOT_USER="$access_key" MINIO_ROOT_PASSWORD="$secret_key" MINIO_BROWSER=off \
      nohup "$binary" server "$run_dir/data" --address "127.0.0.1:$port" --console-address "127.0.0.1:$console" \
      >"$run_dir/minio.log" 2>&1 &
    echo $! >"$run_dir/minio.pid"
    for _ in $(seq 1 150); do
      if node -e 'require("http").get(process.argv[1],r=>process.exit(r.statusCode===200?0:1)).on("error",()=>process.exit(1))' \
        "http://127.0.0.1:$port/minio/health/ready" 2>/dev/null; then
        echo "ODP_TEST_S3_ENDPOINT=http://127.0.0.1:$port"
        echo "ODP_TEST_S3_ACCESS_KEY=$access_key"
        echo "ODP_TEST_S3_SECRET_KEY=$secret_key"
        exit 0
      fi
      sleep 0.2
    done
    echo "minio: did not answer on port $port (see $run_dir/minio.log)" >&2; exit 1
    ;;
  stop)
    [ -f "$run_dir/minio.pid" ] && kill "$(cat "$run_dir/minio.pid")" 2>/dev/null || true
    rm -rf "$run_dir"
    ;;
  *) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
