#!/usr/bin/env bash
# bench/preflight.sh: admin writes with the pre-flight check on (issue 22 item 2). Prints rows for BENCHMARKS.md:
#   B11n 4 concurrent writers, pre-flight on, fresh names under nothing.invalid, vs --preflight off  information (goal retired: writers / deadline is the floor)
#        (RFC 6761: .invalid names fail at once, without asking DNS)
#   B11s the same to fresh names under silent.test, all mapped to one loopback address that drops SYNs, the
#        firewalled host (a probe's connect waits the deadline; then the address is answered at once for
#        every name for --probe-unreachable-ttl, 30 s by default, and probed again after it)        information (goal retired, as B11n)
#   B11d the slowest of those writes vs the probe deadline (2 s here) + 100 ms                       goal <= 1.0x
#   B11g GET /pins p99 during 8 concurrent writes to hosts that do not answer vs an idle server       goal <= 1.1x
#        (on a server with --probe-unreachable-ttl 0, so that every one of those writes really probes)
#   B11t information: 4 writers to fresh names under tls-quiet.test, mapped to a listener that accepts the
#        connection but never answers TLS (a proxy hanging for a dead backend): that silence is remembered
#        per name only, so every fresh name pays the deadline
#   B11r information: 4 writers to fresh names under nothing.example, which is not special and does not resolve:
#        every write asks the system resolver (NXDOMAIN, or the deadline when the resolver drops the query)
# B11n and B11s run in PREFLIGHT_ROUNDS interleaved rounds (default 3) of PREFLIGHT_SECONDS per run (default 10; it
# was one 6 s run): --preflight off, then names that do not resolve, then hosts that do not answer, against two
# servers started once; each round's ratios use that round's baseline (the load on a shared machine drifts), and
# the rows give their median, min and max. B11s runs last PREFLIGHT_SILENT_SECONDS (default 30 s, one TTL): each
# pays one probe deadline (2 s) per TTL, as a steady stream of such writes does, so its ceiling is (30 - 2) / 30
# of B11n's (with 10 s runs it was 0.8x, and B11s sat on its goal). About 4 minutes in all.
# Usage: PINSET=.build/release/pinset bash bench/preflight.sh   (make bench runs it; every wait is bounded)
set -euo pipefail
BENCH=preflight
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
SECONDS_PER_RUN="${PREFLIGHT_SECONDS:-10}"
ROUNDS="${PREFLIGHT_ROUNDS:-3}"
SILENT_SECONDS="${PREFLIGHT_SILENT_SECONDS:-30}"  # one --probe-unreachable-ttl: the steady state, one deadline paid
DEADLINE=2

# A host that does not answer, as a firewall makes it: a listener with listen(0) whose one accept-queue slot is
# taken by a connection of its own that it never accepts; Linux then drops every further SYN (accept queue full),
# so a probe's connect() times out. Checked below before it is relied on: refused would be another case.
SILENT_PORT="$(free_port)"
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(0)
held = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); time.sleep(3600)' "$SILENT_PORT" &
PIDS+=("$!")
# A host that accepts the connection but never answers TLS (a proxy hanging for a dead backend): a listener whose
# backlog completes connections that nobody ever reads.
QUIET_PORT="$(free_port)"
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1024); time.sleep(3600)' "$QUIET_PORT" &
PIDS+=("$!")
sleep 0.3
if ! python3 -c 'import socket, sys
c = socket.socket(); c.settimeout(1)
try:
    c.connect(("127.0.0.1", int(sys.argv[1])))
except TimeoutError:
    sys.exit(0)
except OSError as e:
    print(e); sys.exit(1)
print("connected"); sys.exit(1)' "$SILENT_PORT" >&2; then
    log "the SYN-dropping listener on $SILENT_PORT did not time out a connect: this kernel does not drop SYNs on a full accept queue"
    exit 1
fi
openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null
chmod 600 "$TMP/key.pem"

# serve NAME PREFLIGHT UNREACHABLE_TTL: a server on a fresh database of its own; sets PORT, PID and TOKEN.
serve() {
    TOKEN="$("$PINSET" token create --db "$TMP/$1.sqlite" --name bench | tail -n 1)"
    serve_pinset "$TMP/$1.log" --db "$TMP/$1.sqlite" --key "$TMP/key.pem" --threads 2 --preflight "$2" \
        --probe-timeout "$DEADLINE" --probe-unreachable-ttl "$3" --monitor-interval 0 \
        --connect-to "*.silent.test:443:127.0.0.1:$SILENT_PORT" --connect-to "*.tls-quiet.test:443:127.0.0.1:$QUIET_PORT"
}
# writers PORT TOKEN WRITERS DOMAIN [SECONDS]: one line, "writes/s slowest-ms statuses".
writers() { taskset -c "$LOAD_CPU" python3 "$HERE/preflight_writers.py" "$1" "$2" "$3" "${5:-$SECONDS_PER_RUN}" "$4"; }
p99() {
    taskset -c "$LOAD_CPU" wrk -t1 -c20 -d"${SECONDS_PER_RUN}s" --latency "http://127.0.0.1:$PORT/pins/get.silent.test" \
        | python3 -c 'import re, sys
m = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", sys.stdin.read(), re.M)
print(float(m.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[m.group(2)])'
}

serve off off 0
OFF_PORT=$PORT OFF_TOKEN=$TOKEN OFF_PID=$PID
serve warn warn 30s
WARN_PORT=$PORT WARN_TOKEN=$TOKEN WARN_PID=$PID
: >"$TMP/rounds"
for round in $(seq 1 "$ROUNDS"); do
    # Fresh names every round (r<round>.DOMAIN): every write creates a host.
    off=$(writers "$OFF_PORT" "$OFF_TOKEN" 4 "r$round.nothing.invalid"); log "round $round, preflight off: $off"
    nx=$(writers "$WARN_PORT" "$WARN_TOKEN" 4 "r$round.nothing.invalid"); log "round $round, not resolving: $nx"
    silent=$(writers "$WARN_PORT" "$WARN_TOKEN" 4 "r$round.silent.test" "$SILENT_SECONDS"); log "round $round, not answering: $silent"
    echo "$off|$nx|$silent" >>"$TMP/rounds"
done
resolver=$(writers "$WARN_PORT" "$WARN_TOKEN" 4 nothing.example); log "not resolving, asking the resolver: $resolver"
quiet=$(writers "$WARN_PORT" "$WARN_TOKEN" 4 tls-quiet.test); log "connected but no TLS answer, fresh names: $quiet"
stop "$OFF_PID"
stop "$WARN_PID"
# GET p99: idle, then with 8 writers to hosts that do not answer, each write waiting for its own probe.
serve busy warn 0
curl -sf -X PUT -H "Authorization: Bearer $TOKEN" --data '{"pins":[{"sha256":"'"$(head -c32 /dev/urandom | base64)"'"},{"sha256":"'"$(head -c32 /dev/urandom | base64)"'","role":"backup"}],"force":true}' \
    "http://127.0.0.1:$PORT/admin/hosts/get.silent.test" >/dev/null
idle=$(p99); log "GET p99 idle: $idle ms"
writers "$PORT" "$TOKEN" 8 silent.test >"$TMP/busy-writers" &
busy_writers=$!
busy=$(p99); wait "$busy_writers"; log "GET p99 with 8 probing writers: $busy ms ($(cat "$TMP/busy-writers"))"
stop "$PID"

python3 - "$TMP/rounds" "$idle" "$busy" "$DEADLINE" "$resolver" "$quiet" <<'PY'
import statistics, sys
rounds = [[run.split() for run in line.strip().split("|")] for line in open(sys.argv[1]) if line.strip()]
idle, busy, deadline = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
resolver, quiet = sys.argv[5].split(), sys.argv[6].split()
offs = [float(off[0]) for off, _, _ in rounds]
def row(name, what, subject, baseline, ratios, goal, ok):
    m = statistics.median(ratios)
    verdict = "info" if ok is None else ("PASS" if ok(m) else "FAIL")
    print(f"| {name} | {what} | {subject} | {baseline} | {m:.2f}× ({min(ratios):.2f}–{max(ratios):.2f}) | {goal or '—'} | {verdict} |")
for name, index, what in (("B11n", 1, "names that do not resolve"), ("B11s", 2, "hosts that do not answer")):
    values = [float(r[index][0]) for r in rounds]
    ratios = [value / off for value, off in zip(values, offs)]
    row(name, f"4 writers, pre-flight on, {what} vs --preflight off ({len(rounds)} rounds)",
        f"{statistics.median(values):.1f} writes/s", f"{statistics.median(offs):.1f} writes/s", ratios, None, None)
slowest = max(float(r[i][1]) for r in rounds for i in (1, 2))
limit = deadline * 1000 + 100
row("B11d", f"slowest of those writes vs the {deadline:.0f} s probe deadline + 100 ms", f"{slowest:.0f} ms",
    f"{limit:.0f} ms", [slowest / limit], "≤ 1.0×", lambda m: m <= 1.0)
row("B11g", "GET /pins p99 during 8 writes to hosts that do not answer vs idle", f"{busy:.2f} ms", f"{idle:.2f} ms",
    [busy / idle], "≤ 1.1×", lambda m: m <= 1.1)
r = float(resolver[0]) / statistics.median(offs)
print(f"| B11r | 4 writers, pre-flight on, names under nothing.example (the resolver is asked) vs --preflight off | {float(resolver[0]):.1f} writes/s | {statistics.median(offs):.1f} writes/s | {r:.2f}× | — | info (slowest {float(resolver[1]):.0f} ms) |")
t = float(quiet[0]) / statistics.median(offs)
print(f"| B11t | 4 writers, pre-flight on, fresh names at an address that connects but never answers TLS (remembered per name: each pays the deadline) vs --preflight off | {float(quiet[0]):.1f} writes/s | {statistics.median(offs):.1f} writes/s | {t:.3f}× | — | info (slowest {float(quiet[1]):.0f} ms) |")
PY
