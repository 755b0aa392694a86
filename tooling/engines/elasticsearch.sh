#!/usr/bin/env bash
# Elasticsearch 8 for the scale-out suites (see README.md beside this file): install | start | stop.
#
# The distribution archive is not reachable here; Maven Central has the server jar with its runtime
# dependencies and the transport-netty4 module (HTTP). `install` lays them out as an Elasticsearch
# home (lib/ on the module path, modules/transport-netty4/ as a module bundle with its plugin
# descriptor) and compiles the launcher in elasticsearch/. The modules analysis-common, reindex and
# rest-root are not published, so the node has no edge_ngram, asciifolding, delete_by_query or
# `GET /`. `start` runs the node as `nobody` (Elasticsearch refuses root) with a 512 MB heap.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version="${ODP_ELASTICSEARCH_VERSION:-8.19.21}"
home="${ODP_ENGINES_CACHE:-$HOME/.cache/odp-engines}/elasticsearch-$version"
run_dir="${ODP_ENGINES_RUN:-/tmp/odp-engines}/elasticsearch"
launcher_source="$here/elasticsearch/OdpElasticsearchNode.java"

# shellcheck source=common.bash
. "$(dirname "$0")/common.bash"

install_jars() {
  command -v mvn >/dev/null 2>&1 || { echo "elasticsearch: mvn is not installed" >&2; exit 1; }
  local work
  work=$(mktemp -d)
  cat >"$work/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>odp.engines</groupId><artifactId>elasticsearch-node</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.elasticsearch</groupId><artifactId>elasticsearch</artifactId><version>$version</version></dependency>
    <dependency><groupId>org.elasticsearch.plugin</groupId><artifactId>transport-netty4</artifactId><version>$version</version></dependency>
  </dependencies>
</project>
EOF
  echo "elasticsearch: fetching $version from Maven Central" >&2
  mvn -B -q -f "$work/pom.xml" org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
    -DoutputDirectory="$work/jars" -DincludeScope=runtime >&2
  rm -rf "$home.partial"
  mkdir -p "$home.partial/lib" "$home.partial/modules/transport-netty4"
  for jar in "$work"/jars/*.jar; do
    case "$(basename "$jar")" in
      netty-* | transport-netty4-*) cp "$jar" "$home.partial/modules/transport-netty4/" ;;
      *) cp "$jar" "$home.partial/lib/" ;;
    esac
  done
  unzip -p "$home.partial/modules/transport-netty4/transport-netty4-$version.jar" \
    META-INF/es-plugins/transport-netty4/plugin-descriptor.properties \
    >"$home.partial/modules/transport-netty4/plugin-descriptor.properties"
  rm -rf "$work" "$home"
  mv "$home.partial" "$home"
}

case "${1:-}" in
  install)
    command -v javac >/dev/null 2>&1 || { echo "elasticsearch: javac (JDK 17+) is not installed" >&2; exit 1; }
    [ -f "$home/modules/transport-netty4/plugin-descriptor.properties" ] || install_jars
    if [ ! -f "$home/launcher/OdpElasticsearchNode.class" ] || [ "$launcher_source" -nt "$home/launcher/OdpElasticsearchNode.class" ]; then
      mkdir -p "$home/launcher"
      javac -d "$home/launcher" --module-path "$home/lib" --add-modules ALL-MODULE-PATH "$launcher_source" >&2
    fi
    ;;
  start)
    [ -f "$home/launcher/OdpElasticsearchNode.class" ] || { echo "elasticsearch: not installed (run $0 install)" >&2; exit 1; }
    "$0" stop >/dev/null 2>&1 || true
    mkdir -p "$run_dir"
    # The node runs as nobody, which cannot read the cache under a private home: it gets a copy.
    cp -r "$home" "$run_dir/home"
    mkdir -p "$run_dir/node"
    chown -R nobody "$run_dir/node"
    chmod -R a+rX "$run_dir"
    runuser -u nobody -- test -w "$run_dir/node" || {
      echo "elasticsearch: nobody cannot write $run_dir/node (set ODP_ENGINES_RUN to a directory all users can reach)" >&2
      exit 1
    }
    port=$(free_port)
    runuser -u nobody -- setsid java -Xms512m -Xmx512m \
      --module-path "$run_dir/home/lib" --add-modules ALL-MODULE-PATH -cp "$run_dir/home/launcher" \
      OdpElasticsearchNode "$run_dir/home" "$run_dir/node" "$port" >"$run_dir/node.log" 2>&1 </dev/null &
    url="http://127.0.0.1:$port"
    for _ in $(seq 1 120); do
      if curl -fsS "$url/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null 2>&1; then
        echo "ODP_TEST_ELASTICSEARCH_URL=$url"
        exit 0
      fi
      if ! jobs -r | grep -q .; then break; fi
      sleep 0.5
    done
    echo "elasticsearch: did not answer on port $port: $(tail -n 3 "$run_dir/node.log" | tr '\n' ' ')" >&2
    exit 1
    ;;
  stop)
    pid_file="$run_dir/node/node.pid"
    if [ -f "$pid_file" ]; then
      pid=$(cat "$pid_file")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    fi
    rm -rf "$run_dir"
    ;;
  *) echo "usage: $0 install|start|stop" >&2; exit 2 ;;
esac
