#!/usr/bin/env bash
# bench/b4_compare.sh: B4 (random hosts vs one host) for several pinset binaries on ONE seeded database, their
# servers resident side by side and measured in interleaved rounds, so that a change to the read path is judged
# against the code before it in the same minutes of this shared VM (its noise swings B4 by ±0.1 between runs).
#
#   bash bench/b4_compare.sh NAME=BINARY [NAME=BINARY ...]
#   cc -O2 -o /tmp/baseline_hosts bench/baseline_hosts.c $(pkg-config --cflags --libs libmicrohttpd)
#   bash bench/b4_compare.sh pinset=.build/release/pinset c=/tmp/baseline_hosts   # against B4's floor in C
#
# Environment (all optional): HOSTS=1000000 hosts seeded (once, kept in DIR), DIR=/tmp/pinset-b4 (database and
# key), ROUNDS=5, DURATION=5 seconds per wrk run, SERVER_CPU=0 LOAD_CPU=1.
# Prints per server: B4 (random/one req/s) and B4c (server CPU per request, random/one), median (all rounds).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HOSTS="${HOSTS:-1000000}" DIR="${DIR:-/tmp/pinset-b4}" ROUNDS="${ROUNDS:-5}" DURATION="${DURATION:-5}"
SERVER_CPU="${SERVER_CPU:-0}" LOAD_CPU="${LOAD_CPU:-1}"
[ $# -ge 1 ] || { echo "usage: $0 NAME=BINARY [NAME=BINARY ...]" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 2; }
export PINSET_PREFLIGHT=off PINSET_MONITOR_INTERVAL=0
mkdir -p "$DIR"
first="${1#*=}"
if [ ! -f "$DIR/seeded-$HOSTS" ]; then
    rm -f "$DIR"/pinset.sqlite* "$DIR/key.pem"
    openssl genpkey -algorithm ed25519 -out "$DIR/key.pem" 2>/dev/null && chmod 600 "$DIR/key.pem"
    "$first" seed --db "$DIR/pinset.sqlite" --key "$DIR/key.pem" --hosts "$HOSTS" >&2
    touch "$DIR/seeded-$HOSTS"
fi
NAMES=() PORTS=() PIDS=()
cleanup() { for pid in "${PIDS[@]:-}"; do kill -9 "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT
for spec in "$@"; do
    name="${spec%%=*}" binary="${spec#*=}"
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
    if [ "$(basename "$binary")" = baseline_hosts ]; then  # B4's floor: the bare C server of bench/baseline_hosts.c
        taskset -c "$SERVER_CPU" "$binary" "$port" "$HOSTS" >"$DIR/server-$name.log" 2>&1 &
    else
        taskset -c "$SERVER_CPU" "$binary" serve --db "$DIR/pinset.sqlite" --key "$DIR/key.pem" --port "$port" \
            --threads 1 --bind 127.0.0.1 >"$DIR/server-$name.log" 2>&1 &
    fi
    PIDS+=($!) NAMES+=("$name") PORTS+=("$port")
    for _ in $(seq 1 1200); do curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break; sleep 0.1; done
    # Start-up's background move onto huge pages ends before any round (binaries without it never log it).
    for _ in $(seq 1 600); do grep -q "huge pages" "$DIR/server-$name.log" && break; sleep 0.1; done
done
load() { BENCH_HOSTS="$1" taskset -c "$LOAD_CPU" wrk -t1 -c50 -d"$2s" -s "$HERE/random_hosts.lua" "http://127.0.0.1:$3/"; }
for i in "${!PIDS[@]}"; do load "$HOSTS" "$DURATION" "${PORTS[$i]}" >/dev/null; done  # warm-up: the response cache
RESULTS="$DIR/results.tsv"
: >"$RESULTS"
for round in $(seq 1 "$ROUNDS"); do
    for i in "${!PIDS[@]}"; do
        for hosts in 1 "$HOSTS"; do
            cpu0=$(awk '{print $14 + $15}' "/proc/${PIDS[$i]}/stat")
            out="$(load "$hosts" "$DURATION" "${PORTS[$i]}")"
            cpu1=$(awk '{print $14 + $15}' "/proc/${PIDS[$i]}/stat")
            requests=$(echo "$out" | awk '/requests in/ {print $1}')
            rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
            printf '%s\t%s\t%s\t%s\t%s\n' "${NAMES[$i]}" "$round" "$hosts" "$rps" \
                "$(python3 -c "print(($cpu1 - $cpu0) / $(getconf CLK_TCK) * 1e6 / $requests)")" >>"$RESULTS"
        done
    done
done
python3 - "$RESULTS" "$HOSTS" <<'PY'
import collections, statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]).read().splitlines()]
runs = collections.defaultdict(dict)
for name, rnd, hosts, rps, cpu in rows:
    runs[(name, rnd)][hosts] = (float(rps), float(cpu))
order = list(dict.fromkeys(name for name, *_ in rows))
for name in order:
    pairs = [v for (n, _), v in runs.items() if n == name]
    b4 = [p[sys.argv[2]][0] / p["1"][0] for p in pairs]
    b4c = [p[sys.argv[2]][1] / p["1"][1] for p in pairs]
    print(f"{name}: B4 {statistics.median(b4):.3f}x ({' '.join(f'{x:.2f}' for x in b4)}); "
          f"B4c {statistics.median(b4c):.3f}x; CPU per request one {statistics.median(p['1'][1] for p in pairs):.2f} us, "
          f"random {statistics.median(p[sys.argv[2]][1] for p in pairs):.2f} us")
PY
