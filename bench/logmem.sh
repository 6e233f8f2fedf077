#!/usr/bin/env bash
# bench/logmem.sh: memory and start-up of a server with a transparency log (issue 22 item 1, PROTOCOL §7). Prints
# rows for BENCHMARKS.md:
#   B7l RSS after one request, 100k hosts, --log-key (a later start) vs no log          goal <= 1.5x
#   B7m start-up to /healthz, 100k hosts, --log-key (a later start) vs no log           goal <= 2.0x
#   B7f start-up to /healthz of the FIRST start with --log-key (logs every document) vs no log   (information)
#   B7g RSS after one request, that first start vs no log                                          (information)
#   B7w RSS once every host's document (and, with the log, its proof) was asked for once, round 1  (information)
# One seeded database; each round starts the server without a log on it, then on a fresh copy with a log twice
# (the first start logs every host, the second loads what is stored). Rows give the median ratio and its range.
# Usage: PINSET=.build/release/pinset bash bench/logmem.sh   (HOSTS=100000 ROUNDS=3; WARM=0 skips B7w's warm-up;
# every wait is bounded)
set -euo pipefail
BENCH=logmem
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
HOSTS="${HOSTS:-100000}"
ROUNDS="${ROUNDS:-3}"
WARM="${WARM:-1}"
ORIGIN="bench.test/log"
for key in key log-key; do
    openssl genpkey -algorithm ed25519 -out "$TMP/$key.pem" 2>/dev/null
    chmod 600 "$TMP/$key.pem"
done

log "seeding $HOSTS hosts"
"$PINSET" seed --db "$TMP/base.sqlite" --key "$TMP/key.pem" --hosts "$HOSTS" >&2

# Every host's document once, then (PROOFS=1) every host's proof once: the responses and proofs a warm server
# holds (one wrk thread, so the counter is shared).
cat >"$TMP/warm.lua" <<'LUA'
local n = tonumber(os.getenv("BENCH_HOSTS"))
local proofs = os.getenv("PROOFS") == "1"
local i = 0
function request()
  local h = i % n
  local suffix = (proofs and math.floor(i / n) % 2 == 1) and "/proof" or ""
  i = i + 1
  return wrk.format("GET", "/pins/h" .. h .. ".bench.example" .. suffix)
end
LUA

# start DB WARM [LOG ARGS...]: starts the server, waits (at most 120 s) for /healthz, makes one request, then
# prints "<seconds to /healthz> <VmRSS kB> <warm VmRSS kB, or 0 unless WARM is 1>" and stops it.
start() {
    local db="$1" warm="$2" port start end rss warm_rss=0 requests
    shift 2
    port="$(free_port)"
    start=$(date +%s.%N)
    taskset -c "$SERVER_CPU" "$PINSET" serve --db "$db" --key "$TMP/key.pem" --port "$port" --bind 127.0.0.1 \
        --threads 1 --preflight off --monitor-interval 0 "$@" >>"$TMP/pinset.log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
    for _ in $(seq 1 12000); do
        curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && break
        kill -0 "$PID" 2>/dev/null || { log "the server exited: $(tail -n 3 "$TMP/pinset.log")"; exit 1; }
        sleep 0.01
    done
    end=$(date +%s.%N)
    curl -sf -o /dev/null "http://127.0.0.1:$port/pins/h1.bench.example" || { log "no document served"; exit 1; }
    if [ $# -gt 0 ]; then
        curl -sf -o /dev/null "http://127.0.0.1:$port/pins/h1.bench.example/proof" || { log "no proof served"; exit 1; }
    fi
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
    if [ "$warm" = 1 ]; then
        requests=$(( HOSTS * ($# > 0 ? 2 : 1) ))
        BENCH_HOSTS="$HOSTS" PROOFS=$(( $# > 0 )) taskset -c "$LOAD_CPU" wrk -t1 -c8 -d"$(( requests / 10000 + 5 ))s" \
            -s "$TMP/warm.lua" "http://127.0.0.1:$port/" >"$TMP/warm.txt" 2>&1 || log "warm-up: wrk failed"
        warm_rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
        log "warm-up: $(awk '/requests in/ {print $1}' "$TMP/warm.txt") requests (wanted at least $requests)"
    fi
    stop "$PID"
    python3 -c "print(f'{$end - $start:.3f} $rss $warm_rss')"
}

rows=()
for round in $(seq 1 "$ROUNDS"); do
    warm=$(( round == 1 && WARM == 1 ))
    plain="$(start "$TMP/base.sqlite" "$warm")"
    rm -f "$TMP"/log.sqlite*
    cp "$TMP/base.sqlite" "$TMP/log.sqlite"
    first="$(start "$TMP/log.sqlite" 0 --log-key "$TMP/log-key.pem" --log-origin "$ORIGIN")"
    later="$(start "$TMP/log.sqlite" "$warm" --log-key "$TMP/log-key.pem" --log-origin "$ORIGIN")"
    log "round $round: no log $plain; log, first start $first; log, later start $later (seconds, kB, warm kB)"
    rows+=("$plain $first $later")
done

python3 - "$HOSTS" "${rows[@]}" <<'PY'
import statistics, sys
hosts = int(sys.argv[1])
rounds = [[float(x) for x in r.split()] for r in sys.argv[2:]]
def row(name, what, subject, baseline, ratios, goal, limit):
    m = statistics.median(ratios)
    verdict = "info" if limit is None else ("PASS" if m <= limit else "FAIL")
    print(f"| {name} | {what} | {subject} | {baseline} | {m:.2f}× ({min(ratios):.2f}–{max(ratios):.2f}) | {goal} | {verdict} |")
# Per round: no log (s, kB, warm kB), first start with the log (s, kB, 0), later start (s, kB, warm kB).
med = lambda i: statistics.median(r[i] for r in rounds)
row("B7l", f"RSS after one request, {hosts} hosts, --log-key (later start) vs no log",
    f"{med(7) / 1024:.1f} MB", f"{med(1) / 1024:.1f} MB", [r[7] / r[1] for r in rounds], "≤ 1.5×", 1.5)
row("B7m", f"start-up to /healthz, {hosts} hosts, --log-key (later start) vs no log",
    f"{med(6):.2f} s", f"{med(0):.2f} s", [r[6] / r[0] for r in rounds], "≤ 2.0×", 2.0)
row("B7f", f"start-up to /healthz, {hosts} hosts, first start with --log-key (logs every host) vs no log",
    f"{med(3):.2f} s", f"{med(0):.2f} s", [r[3] / r[0] for r in rounds], "—", None)
row("B7g", f"RSS after one request, first start with --log-key vs no log",
    f"{med(4) / 1024:.1f} MB", f"{med(1) / 1024:.1f} MB", [r[4] / r[1] for r in rounds], "—", None)
w = rounds[0]
if w[2] > 0:
  row("B7w", "RSS once every host's document (and with the log its proof) was asked for once, log vs no log",
      f"{w[8] / 1024:.1f} MB", f"{w[2] / 1024:.1f} MB", [w[8] / w[2]], "—", None)
PY
