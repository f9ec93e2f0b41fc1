#!/usr/bin/env bash
# Starts and stops a curvekit cluster on loopback ports: a fresh PostgreSQL database, the chain
# host (the devnet and its JSON-RPC, an API-only replica that never indexes), three replicas that
# follow the chain through --rpc-url and elect one indexer among them, and nginx in front of all
# four. Each server's Prometheus metrics are on its port + 100.
#
#   examples/cluster/cluster.sh start   # prints the URL; state, logs and pids in $CLUSTER_DIR
#   examples/cluster/cluster.sh stop    # stops nginx and every server gracefully
#
# Settings (environment): CLUSTER_DIR (default ./cluster), CLUSTER_PORT (nginx's port, default
# 8080; the servers take the next ones), CLUSTER_PG (an admin DSN of the PostgreSQL server, default
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable), CLUSTER_DB (the database, created
# afresh, default curvekit_cluster), CLUSTER_REDIS (default 127.0.0.1:6379), CLUSTER_LEASE (the
# indexer's lease, default 10s), CLUSTER_SIMULATE (the devnet's simulated trades, default 1s),
# CLUSTER_CONNS (each server's --db-conns, default 4: four servers share one machine's
# PostgreSQL, whose default limit is 100 connections), CLUSTER_BIN (a server binary; default built from examples/server), CLUSTER_FLAGS (more flags for
# every server, e.g. "--rate-limit 6000"), CLUSTER_UPSTREAMS (the servers nginx balances over,
# default "chain replica1 replica2 replica3").
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mkdir -p "${CLUSTER_DIR:-cluster}" && cd "${CLUSTER_DIR:-cluster}" && pwd)
port=${CLUSTER_PORT:-8080}
admin=${CLUSTER_PG:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
dbname=${CLUSTER_DB:-curvekit_cluster}
if ! [[ $dbname =~ ^[a-z_][a-z0-9_]*$ ]]; then
  echo "cluster: CLUSTER_DB must be a plain lower-case identifier, not '$dbname'" >&2
  exit 2
fi
redis=${CLUSTER_REDIS:-127.0.0.1:6379}
lease=${CLUSTER_LEASE:-10s}
conns=${CLUSTER_CONNS:-4}
simulate=${CLUSTER_SIMULATE:-1s}
chain_port=$((port + 1)) rpc_port=$((port + 2))
replica_ports=($((port + 3)) $((port + 4)) $((port + 5)))

# The database's DSN: the admin DSN with its database replaced.
dsn=$(sed -E "s#^(postgres(ql)?://[^/]*)/[^?]*#\1/$dbname#" <<<"$admin")

wait_ready() { # name port
  for _ in $(seq 240); do
    if curl -sf "127.0.0.1:$2/readyz" >/dev/null; then return 0; fi
    if ! kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null; then break; fi
    sleep 0.25
  done
  echo "cluster: $1 did not become ready; its log:" >&2
  tail -n 30 "$dir/$1.log" >&2
  return 1
}

serve() { # name port flags...
  local name=$1 p=$2
  shift 2
  "$bin" --addr "127.0.0.1:$p" --metrics-addr "127.0.0.1:$((p + 100))" --db "$dsn" --db-conns "$conns" --redis "$redis" --lease "$lease" \
    --trusted-proxies 127.0.0.1 --public-url "http://127.0.0.1:$port" \
    --master-key-file "$dir/master.key" --ipfs-dir "$dir/ipfs" ${CLUSTER_FLAGS:-} "$@" >>"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid"
}

start() {
  if [ -f "$dir/nginx.pid" ] && kill -0 "$(cat "$dir/nginx.pid")" 2>/dev/null; then
    echo "cluster: already running in $dir (stop it first)" >&2
    exit 1
  fi
  bin=${CLUSTER_BIN:-}
  if [ -z "$bin" ]; then
    bin="$dir/server"
    (cd "$root" && go build -o "$bin" ./examples/server)
  fi
  psql -q "$admin" -c "DROP DATABASE IF EXISTS $dbname" -c "CREATE DATABASE $dbname" >/dev/null
  rm -rf "$dir/devnet" "$dir/ipfs" "$dir"/*.log

  # The chain host: the devnet, its JSON-RPC and the simulated trades; it serves the API but
  # never indexes.
  serve chain "$chain_port" --no-indexer --devnet-dir "$dir/devnet" \
    --devnet-rpc-addr "127.0.0.1:$rpc_port" --simulate "$simulate"
  # Its readiness needs an indexer, which the replicas provide: wait for its config instead.
  for _ in $(seq 240); do
    curl -sf "127.0.0.1:$chain_port/config" >"$dir/config.json" 2>/dev/null && break
    sleep 0.25
  done
  factory=$(jq -r .contracts.factory "$dir/config.json")
  router=$(jq -r .contracts.router "$dir/config.json")

  # Over WebSocket, the leader hears each new block of the devnet as it is sealed.
  for i in 0 1 2; do
    serve "replica$((i + 1))" "${replica_ports[$i]}" --rpc-url "ws://127.0.0.1:$rpc_port" \
      --factory "$factory" --router "$router"
  done
  for i in 0 1 2; do
    wait_ready "replica$((i + 1))" "${replica_ports[$i]}"
  done
  wait_ready chain "$chain_port"

  mkdir -p "$dir/nginx-tmp"
  declare -A ports=([chain]=$chain_port [replica1]=${replica_ports[0]} [replica2]=${replica_ports[1]} [replica3]=${replica_ports[2]})
  upstreams=""
  for name in ${CLUSTER_UPSTREAMS:-chain replica1 replica2 replica3}; do
    upstreams+="        server 127.0.0.1:${ports[$name]} max_fails=1 fail_timeout=5s;"$'\n'
  done
  awk -v d="$dir" -v l="127.0.0.1:$port" -v u="$upstreams" -v c="127.0.0.1:$chain_port" \
    '{gsub("__DIR__", d); gsub("__LISTEN__", l); gsub("__CHAIN__", c)} /^__UPSTREAMS__$/ {printf "%s", u; next} {print}' \
    "$root/examples/cluster/nginx.conf" >"$dir/nginx.conf"
  nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" >>"$dir/nginx.log" 2>&1 &
  for _ in $(seq 40); do
    curl -sf "127.0.0.1:$port/healthz" >/dev/null && break
    sleep 0.25
  done
  curl -sf "127.0.0.1:$port/healthz" >/dev/null || { cat "$dir/nginx-error.log" >&2; exit 1; }
  echo "cluster: http://127.0.0.1:$port (chain host :$chain_port, JSON-RPC :$rpc_port, replicas :${replica_ports[*]}; $dir)"
}

stop() {
  local pids=()
  for name in nginx replica1 replica2 replica3 chain; do
    f="$dir/$name.pid"
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
      if [ "$name" = nginx ]; then kill -QUIT "$pid"; else kill -INT "$pid"; fi
      pids+=("$pid")
    fi
    rm -f "$f"
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.25
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  echo "cluster: stopped"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*)
  echo "usage: $0 start|stop" >&2
  exit 2
  ;;
esac
