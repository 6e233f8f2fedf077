#!/usr/bin/env bash
# bench/preflight.sh: admin writes with the pre-flight check on (issue 22 item 2). Prints rows for BENCHMARKS.md:
#   B11n 4 concurrent writers, pre-flight on, fresh names under nothing.invalid, vs --preflight off  goal >= 0.5x
#        (RFC 6761: .invalid names fail at once, without asking DNS)
#   B11s the same to fresh names under silent.test, all mapped to one loopback listener that never
#        answers TLS (the first probe waits the deadline; later ones within --probe-unreachable-ttl,
#        30 s by default, are answered at once)                                                     goal >= 0.5x
#   B11d the slowest of those writes vs the probe deadline (2 s here) + 100 ms                       goal <= 1.0x
#   B11g GET /pins p99 during 8 concurrent writes to hosts that do not answer vs an idle server       goal <= 1.1x
#        (on a server with --probe-unreachable-ttl 0, so that every one of those writes really probes)
#   B11r information: 4 writers to fresh names under nothing.example, which is not special and does not resolve:
#        every write asks the system resolver (NXDOMAIN, or the deadline when the resolver drops the query)
# Each run lasts PREFLIGHT_SECONDS (default 20; it was 6): B11s pays one probe deadline (2 s) at its start, which
# must not dominate the run. The --preflight off baseline runs before and after the others. About 3 minutes.
# Usage: PINSET=.build/release/pinset bash bench/preflight.sh   (make bench runs it; every wait is bounded)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PINSET="${PINSET:-$HERE/../.build/release/pinset}"
SECONDS_PER_RUN="${PREFLIGHT_SECONDS:-20}"
DEADLINE=2
SERVER_CPU="${SERVER_CPU:-0}"
LOAD_CPU="${LOAD_CPU:-1}"
log() { printf '[preflight %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

TMP="$(mktemp -d /tmp/pinset-preflight.XXXXXX)"
PIDS=()
cleanup() {
    for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
    sleep 0.2
    for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() {
    for _ in $(seq 1 3000); do curl -s -o /dev/null "http://127.0.0.1:$1/healthz" && return 0; sleep 0.01; done
    log "server on port $1 did not come up"; exit 1
}

# A host that does not answer: a listener whose backlog completes connections that nobody ever reads.
SILENT_PORT="$(free_port)"
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1024); time.sleep(3600)' "$SILENT_PORT" &
PIDS+=("$!")
openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null
chmod 600 "$TMP/key.pem"

# serve PREFLIGHT [UNREACHABLE_TTL]: a fresh database each time; sets PORT, PID and TOKEN.
serve() {
    rm -f "$TMP"/pinset.sqlite*
    TOKEN="$("$PINSET" token create --db "$TMP/pinset.sqlite" --name bench | tail -n 1)"
    PORT="$(free_port)"
    taskset -c "$SERVER_CPU" "$PINSET" serve --db "$TMP/pinset.sqlite" --key "$TMP/key.pem" --port "$PORT" \
        --bind 127.0.0.1 --threads 2 --preflight "$1" --probe-timeout "$DEADLINE" --probe-unreachable-ttl "${2:-30s}" --monitor-interval 0 \
        --connect-to "*.silent.test:443:127.0.0.1:$SILENT_PORT" >"$TMP/pinset-$1.log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
    wait_http "$PORT"
}
stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; }
writers() { taskset -c "$LOAD_CPU" python3 "$HERE/preflight_writers.py" "$PORT" "$TOKEN" "$1" "$SECONDS_PER_RUN" "$2"; }
p99() {
    taskset -c "$LOAD_CPU" wrk -t1 -c20 -d"${SECONDS_PER_RUN}s" --latency "http://127.0.0.1:$PORT/pins/get.silent.test" \
        | python3 -c 'import re, sys
m = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", sys.stdin.read(), re.M)
print(float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)])'
}

serve off
off=$(writers 4 nothing.invalid); log "preflight off: $off"
stop
serve warn
nx=$(writers 4 nothing.invalid); log "not resolving: $nx"
silent=$(writers 4 silent.test); log "not answering: $silent"
resolver=$(writers 4 nothing.example); log "not resolving, asking the resolver: $resolver"
stop
# The baseline again after the pre-flight runs: on a shared machine the load drifts; the ratios use the mean of
# the two and their range uses each.
serve off
off2=$(writers 4 nothing.invalid); log "preflight off, again: $off2"
stop
# GET p99: idle, then with 8 writers to hosts that do not answer, each write waiting for its own probe.
serve warn 0
curl -sf -X PUT -H "Authorization: Bearer $TOKEN" --data '{"pins":[{"sha256":"'"$(head -c32 /dev/urandom | base64)"'"},{"sha256":"'"$(head -c32 /dev/urandom | base64)"'","role":"backup"}],"force":true}' \
    "http://127.0.0.1:$PORT/admin/hosts/get.silent.test" >/dev/null
idle=$(p99); log "GET p99 idle: $idle ms"
writers 8 silent.test >"$TMP/busy-writers" &
busy_writers=$!
busy=$(p99); wait "$busy_writers"; log "GET p99 with 8 probing writers: $busy ms ($(cat "$TMP/busy-writers"))"
stop

python3 - "$off" "$nx" "$silent" "$idle" "$busy" "$DEADLINE" "$resolver" "$off2" <<'PY'
import sys
off, nx, silent = (s.split() for s in sys.argv[1:4])
idle, busy, deadline = float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
resolver = sys.argv[7].split()
offs = [float(off[0]), float(sys.argv[8].split()[0])]
base = sum(offs) / 2
def row(name, what, subject, baseline, ratio, goal, ok, low=None, high=None):
    low, high = ratio if low is None else low, ratio if high is None else high
    print(f"| {name} | {what} | {subject} | {baseline} | {ratio:.2f}× ({low:.2f}–{high:.2f}) | {goal} | {'PASS' if ok else 'FAIL'} |")
def throughput(name, what, measured):
    value = float(measured[0])
    r = value / base
    row(name, what, f"{value:.1f} writes/s", f"{base:.1f} writes/s (mean of {offs[0]:.1f}, {offs[1]:.1f})", r, "≥ 0.5×",
        r >= 0.5, value / max(offs), value / min(offs))
throughput("B11n", "4 writers, pre-flight on, names that do not resolve vs --preflight off", nx)
throughput("B11s", "4 writers, pre-flight on, hosts that do not answer vs --preflight off", silent)
slowest = max(float(nx[1]), float(silent[1]))
r = slowest / (deadline * 1000 + 100)
row("B11d", f"slowest of those writes vs the {deadline:.0f} s probe deadline + 100 ms", f"{slowest:.0f} ms", f"{deadline * 1000 + 100:.0f} ms", r, "≤ 1.0×", r <= 1.0)
r = busy / idle
row("B11g", "GET /pins p99 during 8 writes to hosts that do not answer vs idle", f"{busy:.2f} ms", f"{idle:.2f} ms", r, "≤ 1.1×", r <= 1.1)
r = float(resolver[0]) / base
print(f"| B11r | 4 writers, pre-flight on, names under nothing.example (the resolver is asked) vs --preflight off | {float(resolver[0]):.1f} writes/s | {base:.1f} writes/s | {r:.2f}× ({float(resolver[0]) / max(offs):.2f}–{float(resolver[0]) / min(offs):.2f}) | — | info (slowest {float(resolver[1]):.0f} ms) |")
PY
