#!/usr/bin/env bash
# Redis for the scale-out suites (see README.md beside this file): install | start | stop.
set -euo pipefail
run_dir="${ODP_ENGINES_RUN:-/tmp/odp-engines}/redis"

# shellcheck source=common.bash
. "$(dirname "$0")/common.bash"

case "${1:-}" in
  install)
    command -v redis-server >/dev/null 2>&1 && exit 0
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; } >&2
    ;;
  start)
    command -v redis-server >/dev/null 2>&1 || { echo "redis: redis-server is not installed" >&2; exit 1; }
    "$0" stop >/dev/null 2>&1 || true
    mkdir -p "$run_dir"
    port=$(free_port)
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
      --pidfile "$run_dir/redis.pid" --logfile "$run_dir/redis.log" --dir "$run_dir" >&2
    for _ in $(seq 1 100); do
      redis-cli -p "$port" ping >/dev/null 2>&1 && { echo "ODP_TEST_REDIS_URL=redis://127.0.0.1:$port"; exit 0; }
      sleep 0.1
    done
    echo "redis: did not answer on port $port" >&2; exit 1
    ;;
  stop)
    [ -f "$run_dir/redis.pid" ] && kill "$(cat "$run_dir/redis.pid")" 2>/dev/null || true
    rm -rf "$run_dir"
    ;;
  *) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
