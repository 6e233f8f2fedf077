#!/usr/bin/env bash
# bench/monitor.sh: the host monitor at scale (issue 22 item 3). Prints markdown rows for BENCHMARKS.md:
#   B10  one monitor pass over MONITOR_HOSTS hosts (default 10,000) vs its interval (default 60 s)   goal <= 1.0x
#        (every host is probed through a `*.bench.example` --connect-to mapping to one loopback openssl s_server;
#        a pass that fits a 60 s interval fits the default 10-minute one ten times over)
#   B10g GET /pins/{host} req/s while the monitor runs at the default 10-minute interval over those hosts vs the
#        same server without a monitor                                                                   goal >= 0.95x
#   B10c (information) the server's CPU time per GET in those runs, its monitor's included: steadier than B10g,
#        whose wrk shares its core with the TLS host the probes reach
# Usage: PINSET=.build/release/pinset bash bench/monitor.sh   (make bench runs it; every wait is bounded)
set -euo pipefail
BENCH=monitor
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
HOSTS="${MONITOR_HOSTS:-10000}"
INTERVAL="${MONITOR_INTERVAL:-60}"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-5}"

# One TLS host for every monitored name, and HOSTS hosts (the hidden `pinset seed`: h<i>.bench.example).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$TMP/tls.key" -out "$TMP/tls.pem" \
    -days 2 -subj /CN=bench.example 2>/dev/null
TLS_PORT="$(free_port)"
taskset -c "$LOAD_CPU" openssl s_server -quiet -accept "127.0.0.1:$TLS_PORT" -cert "$TMP/tls.pem" \
    -key "$TMP/tls.key" </dev/null >"$TMP/s_server.log" 2>&1 &
PIDS+=("$!")
openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null
chmod 600 "$TMP/key.pem"
"$PINSET" seed --db "$TMP/pinset.sqlite" --key "$TMP/key.pem" --hosts "$HOSTS" >&2

# serve MONITOR: starts pinset on a free port (monitor interval MONITOR, 0 = none); sets PORT and PID.
serve() {
    serve_pinset "$TMP/pinset-$1.log" --db "$TMP/pinset.sqlite" --key "$TMP/key.pem" --threads 1 --preflight off \
        --monitor-interval "$1" --connect-to "*.bench.example:443:127.0.0.1:$TLS_PORT"
}
# rps PORT: GET req/s over DURATION seconds, then the server's (PID's) CPU µs per request, on one line.
rps() {
    local cpu0 cpu1 out
    cpu0=$(awk '{print $14 + $15}' "/proc/$PID/stat")
    out="$(taskset -c "$LOAD_CPU" wrk -t1 -c50 -d"${DURATION}s" "http://127.0.0.1:$1/pins/h1.bench.example" 2>&1)"
    cpu1=$(awk '{print $14 + $15}' "/proc/$PID/stat")
    python3 -c "import sys; rps, n = sys.argv[1:3]; print(rps, ($cpu1 - $cpu0) / $(getconf CLK_TCK) * 1e6 / float(n))" \
        "$(echo "$out" | awk '/Requests\/sec/ { print $2 }')" "$(echo "$out" | awk '/requests in/ { print $1 }')"
}

base=(); during=(); passes=(); base_cpu=(); during_cpu=()
for round in $(seq 1 "$ROUNDS"); do
    serve 0
    read -r r c <<<"$(rps "$PORT")"; base+=("$r"); base_cpu+=("$c")
    kill "$PID"; wait "$PID" 2>/dev/null || true
    serve 10m
    read -r r c <<<"$(rps "$PORT")"; during+=("$r"); during_cpu+=("$c")
    kill "$PID"; wait "$PID" 2>/dev/null || true
    serve "${INTERVAL}s"
    # The pass ends within the interval or it is a miss; wait for it at most twice the interval.
    seconds=""
    for _ in $(seq 1 $((INTERVAL * 20))); do
        seconds="$(metric "$PORT" pinset_monitor_pass_seconds)"
        [ -n "$seconds" ] && break
        sleep 0.1
    done
    hosts="$(metric "$PORT" pinset_monitor_pass_hosts)"
    [ -n "$seconds" ] || { log "round $round: no pass ended within $((INTERVAL * 2)) s"; seconds=$((INTERVAL * 2)); }
    log "round $round: GET ${base[-1]} req/s alone, ${during[-1]} during the pass; pass over ${hosts:-?} hosts: $seconds s"
    passes+=("$seconds")
    kill "$PID"; wait "$PID" 2>/dev/null || true
done

python3 - "$HOSTS" "$INTERVAL" "${base[*]}" "${during[*]}" "${passes[*]}" "${base_cpu[*]}" "${during_cpu[*]}" <<'PY'
import statistics, sys
hosts, interval = int(sys.argv[1]), float(sys.argv[2])
base, during, passes, base_cpu, during_cpu = ([float(x) for x in arg.split()] for arg in sys.argv[3:8])
ratios = sorted(d / b for d, b in zip(during, base))
pass_ratios = sorted(p / interval for p in passes)
def cell(ratios):
    return f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f})"
# The same 7 cells as bench/client.sh, which bench/report.py turns into BENCHMARKS.md rows.
print(f"| B10 | one monitor pass over {hosts:,} hosts vs its interval | {statistics.median(passes):.1f} s | "
      f"{interval:.0f} s | {cell(pass_ratios)} | ≤ 1.0× | {'PASS' if max(pass_ratios) <= 1.0 else 'FAIL'} |")
print(f"| B10g | GET /pins req/s while the monitor watches {hosts:,} hosts (10 min interval) vs no monitor | "
      f"{statistics.median(during):,.0f} req/s | {statistics.median(base):,.0f} req/s | {cell(ratios)} | ≥ 0.95× | "
      f"{'PASS' if statistics.median(ratios) >= 0.95 else 'FAIL'} |")
cpu_ratios = sorted(d / b for d, b in zip(during_cpu, base_cpu))
print(f"| B10c | server CPU per GET while the monitor watches {hosts:,} hosts, its own work included, vs no monitor "
      f"(information) | {statistics.median(during_cpu):.2f} µs | {statistics.median(base_cpu):.2f} µs | "
      f"{cell(cpu_ratios)} | — | info |")
PY
