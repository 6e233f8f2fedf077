#!/usr/bin/env bash
# bench/scale.sh: start-up and memory at a million hosts (issue 36 item 6, issue 41's start-up checks). For each
# pinset binary named, in interleaved rounds on ONE seeded database:
#   start-up   seconds from `pinset serve` to the first `/healthz` 200, against the floor: `sqlite3` reading the
#              same rows (`SELECT * FROM document` into a file, as B7 does), measured just before      goal <= 2x
#   ready      seconds to the first `/readyz` 200: `PRAGMA quick_check` runs on after the server listens (reads are
#              answered from documents checked against their hashes; writes wait for it), so this is when
#              writes are accepted                                                                      info
#   RSS        after start-up and one request, and (WARM=1, first round only) once every host was answered
#              with a 200 and a 304 (bench/all_hosts.lua), per host                        goal <= 1.2 KB (1.5 log)
# With LOG=1 every server starts on a copy of the database with --log-key whose log already holds every host (the
# first start, which logs them all, is made once and kept in DIR; not timed).
# Each binary starts on its own copy (DIR/NAME-pinset.sqlite, DIR/NAME-log.sqlite, made once and started once before
# the rounds, not timed): a binary with a newer migration upgrades its copy there, and an older binary would refuse
# that copy. Delete them to start over.
#   checks     CHECKS_OFF="NAME ..." also starts those binaries with PINSET_MEASURE_STARTUP_CHECKS=off (no
#              quick_check, no hash check; a measurement-only switch) in the same rounds, as NAME-off: the checks'
#              share of start-up, measured, is (on - off) / on, in wall-clock and CPU time          goal <= 20%
#
#   bash bench/scale.sh NAME=BINARY [NAME=BINARY ...]
#   HOSTS=1000000 ROUNDS=3 bash bench/scale.sh before=/work/pinset-before after=.build/release/pinset
#
# Seeding is quick: `pinset seed` signs SEED (10,000) real documents, then SQL replicates them to HOSTS hosts
# named h<i>.bench.example (host, pins, history and document rows copied from host i mod SEED). A replica's
# document is byte for byte its source's, so its stored hash matches (the start-up check passes) but the JWS
# inside names the source host: fine for the server's start-up and read path, not for a client that verifies.
# Environment (all optional): HOSTS=1000000 SEED=10000 DIR=/tmp/pinset-scale (kept between runs: the seeded
# database is reused) ROUNDS=3 WARM=0 LOG=0 SERVER_CPU=0 (a list such as 0,1 lets quick_check use the second
# core, as on a real multi-core host) LOAD_CPU=1 CHECKS_OFF="". Every wait is bounded.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
HOSTS="${HOSTS:-1000000}" SEED="${SEED:-10000}" DIR="${DIR:-/tmp/pinset-scale}" ROUNDS="${ROUNDS:-3}"
WARM="${WARM:-0}" LOG="${LOG:-0}" SERVER_CPU="${SERVER_CPU:-0}" LOAD_CPU="${LOAD_CPU:-1}" CHECKS_OFF="${CHECKS_OFF:-}"
ORIGIN="bench.test/log"
[ $# -ge 1 ] || { echo "usage: $0 NAME=BINARY [NAME=BINARY ...]" >&2; exit 2; }
for tool in sqlite3 curl python3 taskset; do
    command -v "$tool" >/dev/null || { echo "$tool is missing (make bench-deps)" >&2; exit 2; }
done
[ "$WARM" = 0 ] || command -v wrk >/dev/null || { echo "wrk is missing (apt-get install wrk)" >&2; exit 2; }
log() { printf '[scale %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
[ "$SEED" -le "$HOSTS" ] || SEED="$HOSTS"
mkdir -p "$DIR"
PID=""
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
    sleep 0.2
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null || true
    rm -f "$DIR/dump.txt"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
first="${1#*=}"
DB="$DIR/pinset.sqlite"

# ------------------------------------------------------------------ seeding (once per HOSTS, kept in DIR)
if [ ! -f "$DIR/seeded-$HOSTS" ]; then
    rm -f "$DIR"/pinset.sqlite* "$DIR"/log.sqlite* "$DIR"/seeded-* "$DIR"/logged-* "$DIR/key.pem" "$DIR/log-key.pem"
    for key in key log-key; do
        openssl genpkey -algorithm ed25519 -out "$DIR/$key.pem" 2>/dev/null && chmod 600 "$DIR/$key.pem"
    done
    started=$(date +%s.%N)
    "$first" seed --db "$DB" --key "$DIR/key.pem" --hosts "$SEED" --batch 5000 >&2
    # pinset seed writes h0..h<SEED-1> as host ids 1..SEED, in order; the replication below relies on it.
    [ "$(sqlite3 "$DB" "SELECT count(*) FROM host WHERE id = (CAST(substr(name, 2, instr(name, '.') - 2) AS INTEGER) + 1)")" = "$SEED" ] \
        || { log "seeded host ids are not h<id-1>; cannot replicate"; exit 1; }
    sqlite3 "$DB" >/dev/null <<SQL
PRAGMA busy_timeout = 10000;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT $SEED UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $HOSTS)
INSERT INTO host (id, name, version, includeSubdomains, enforce, reportUri, retired, createdAt, updatedAt)
SELECT n.i + 1, 'h' || n.i || '.bench.example', s.version, s.includeSubdomains, s.enforce, s.reportUri, s.retired,
       s.createdAt, s.updatedAt
FROM n JOIN host s ON s.id = (n.i % $SEED) + 1;
INSERT INTO pin (hostId, position, sha256, type, role, expiresAt, comment)
SELECT h.id, p.position, p.sha256, p.type, p.role, p.expiresAt, p.comment
FROM host h JOIN pin p ON p.hostId = ((h.id - 1) % $SEED) + 1 WHERE h.id > $SEED;
INSERT INTO hostVersion (hostId, version, at, tokenName, change, added, removed, payload, forced)
SELECT h.id, v.version, v.at, v.tokenName, v.change, v.added, v.removed, v.payload, v.forced
FROM host h JOIN hostVersion v ON v.hostId = ((h.id - 1) % $SEED) + 1 WHERE h.id > $SEED;
INSERT INTO document (hostId, version, body, etag, kid, issuedAt, expiresAt, logIndex)
SELECT h.id, d.version, d.body, d.etag, d.kid, d.issuedAt, d.expiresAt, NULL
FROM host h JOIN document d ON d.hostId = ((h.id - 1) % $SEED) + 1 WHERE h.id > $SEED;
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
SQL
    touch "$DIR/seeded-$HOSTS"
    log "seeded $HOSTS hosts ($SEED signed, the rest replicated) in $(python3 -c "print(f'{$(date +%s.%N) - $started:.1f}')") s, $(du -m "$DB" | cut -f1) MB"
fi
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM document')" = "$HOSTS" ] || { log "$DB does not hold $HOSTS documents"; exit 1; }
LOG_ARGS=()
if [ "$LOG" = 1 ]; then
    LOG_ARGS=(--log-key "$DIR/log-key.pem" --log-origin "$ORIGIN")
fi

# start NAME BINARY DB WARM: prints "<seconds to /healthz> <CPU seconds by then> <VmRSS kB> <warm VmRSS kB or 0> <loadMs> <quickCheckMs>
# <hashCheckMs> <loadCpuMs> <quickCheckCpuMs> <storeCpuMs>" (the server's own figures from its log line, -1 when it
# does not give them: storeCpuMs is the CPU of the thread that checks and stores the documents beside the reading
# one, since issue 36 item 6's two-thread load) <log preloadCpuMs> <log loadCpuMs> (with LOG=1: the thread that reads
# the log's hashes beside the documents, and the log's load after them; -1 without) and stops the server.
start() {
    local name="$1" binary="$2" db="$3" warm="$4" checks="${5:-on}" port t0 t1 t2 rss warm_rss=0 line
    local environment=()
    [ "$checks" = off ] && environment=(PINSET_MEASURE_STARTUP_CHECKS=off)
    port="$(free_port)"
    : >"$DIR/server-$name.log"
    t0=$(date +%s.%N)
    env "${environment[@]}" taskset -c "$SERVER_CPU" "$binary" serve --db "$db" --key "$DIR/key.pem" --port "$port" --bind 127.0.0.1 \
        --threads 1 --preflight off --monitor-interval 0 "${LOG_ARGS[@]}" >>"$DIR/server-$name.log" 2>&1 &
    PID=$!
    # Waits (5 ms steps, at most 300 s) for PATH to answer 200; stops the run if the server exits first.
    answers() {
        for _ in $(seq 1 60000); do
            curl -sf -o /dev/null "http://127.0.0.1:$port$1" && return 0
            kill -0 "$PID" 2>/dev/null || { log "$name exited: $(tail -n 3 "$DIR/server-$name.log")"; exit 1; }
            sleep 0.005
        done
    }
    answers /healthz
    t1=$(date +%s.%N)
    cpu=$(awk '{print ($14 + $15) / 100}' "/proc/$PID/stat")
    curl -sf -o /dev/null "http://127.0.0.1:$port/pins/h1.bench.example" || { log "$name: no document served"; exit 1; }
    # Ready: the integrity check, which runs on after the server listens (writes wait for it), has passed.
    answers /readyz
    t2=$(date +%s.%N)
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
    if [ "$warm" = 1 ]; then
        BENCH_HOSTS="$HOSTS" taskset -c "$LOAD_CPU" wrk -t1 -c8 -d"$(( HOSTS / 5000 + 10 ))s" -s "$HERE/all_hosts.lua" \
            "http://127.0.0.1:$port/" >"$DIR/warm-$name.txt" 2>&1 || log "warm-up: wrk failed"
        warm_rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
        log "$name warm-up: $(awk '/requests in/ {print $1}' "$DIR/warm-$name.txt") requests (wanted at least $(( 2 * HOSTS )))"
    fi
    kill "$PID"
    wait "$PID" 2>/dev/null || true
    PID=""
    line="$(grep -m1 'loaded published documents' "$DIR/server-$name.log" || true)"
    logline="$(grep -m1 'loaded the transparency log' "$DIR/server-$name.log" || true)"
    # quick_check's figures: on their own line since it runs on after the server listens (older binaries: in $line).
    checkline="$(grep -m1 'checked the database' "$DIR/server-$name.log" || echo "$line")"
    python3 - "$t0" "$t1" "$rss" "$warm_rss" "$line" "$cpu" "$logline" "$checkline" "$t2" <<'PY'
import re, sys
t0, t1, rss, warm, line, cpu = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
check, t2 = sys.argv[8], float(sys.argv[9])
def field(name, text=line):
    m = re.search(r'\b' + name + r'\W+(\d+)', text)
    return m.group(1) if m else "-1"
print(f"{t1 - t0:.3f} {cpu} {rss} {warm} {field('loadMs')} {field('quickCheckMs', check)} {field('hashCheckMs')} "
      f"{field('loadCpuMs')} {field('quickCheckCpuMs', check)} {field('storeCpuMs')} {field('preloadCpuMs', sys.argv[7])} "
      f"{field('loadCpuMs', sys.argv[7])} {t2 - t0:.3f}")
PY
}

# sqlite3 reading the documents, as B7 does: the floor start-up is measured against.
# Prints "<seconds> <CPU seconds>".
floor() {
    local TIMEFORMAT='%R %U %S' timing
    timing="$({ time sqlite3 "$DB" "SELECT * FROM document" >"$DIR/dump.txt"; } 2>&1)"
    rm -f "$DIR/dump.txt"
    awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$timing"
}

# `PRAGMA quick_check` alone: what the server's check costs in CPU.
quick_check() {
    local TIMEFORMAT='%R %U %S' timing
    timing="$({ time sqlite3 "$DB" "PRAGMA quick_check" >"$DIR/quick_check.txt"; } 2>&1)"
    [ "$(cat "$DIR/quick_check.txt")" = ok ] || log "quick_check: $DB is not sound"
    awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$timing"
}

LOG_DB="$DIR/log.sqlite"
if [ "$LOG" = 1 ] && [ ! -f "$DIR/logged-$HOSTS" ]; then
    # A copy with every host in the log, made once by the first binary and kept in DIR (the first start appends every
    # host to the log, minutes at a million hosts: not what is timed). Every binary then starts on it.
    rm -f "$LOG_DB"* "$DIR"/logged-*
    sqlite3 "$DB" "VACUUM INTO '$LOG_DB'"
    log "first start with the log (logs $HOSTS hosts): $(start first "$first" "$LOG_DB" 0 | cut -d' ' -f1) s"
    touch "$DIR/logged-$HOSTS"
fi

# Each binary's own copy, started once (a newer binary migrates it there; not timed).
copy_of() {
    local name="$1" source="$DB"
    [ "$LOG" = 1 ] && source="$LOG_DB"
    echo "$DIR/$name-$(basename "$source")"
}
for spec in "$@"; do
    name="${spec%%=*}" binary="${spec#*=}"
    copy="$(copy_of "$name")"
    if [ ! -f "$copy.started" ]; then
        rm -f "$copy" "$copy-wal" "$copy-shm"
        source="$DB"
        [ "$LOG" = 1 ] && source="$LOG_DB"
        cp --reflink=auto "$source" "$copy"
        log "$name: first start on its own copy (migrations, if any): $(start "$name" "$binary" "$copy" 0 | cut -d' ' -f1) s"
        touch "$copy.started"
    fi
done

RESULTS="$DIR/results.txt"
: >"$RESULTS"
log "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
    for spec in "$@"; do
        name="${spec%%=*}" binary="${spec#*=}"
        db="$(copy_of "$name")"
        warm=$(( round == 1 && WARM == 1 ))
        runs=(on)
        [[ " $CHECKS_OFF " == *" $name "* ]] && runs=(on off)
        for checks in "${runs[@]}"; do
            label="$name"
            [ "$checks" = off ] && label="$name-off"
            base="$(floor)"
            qc="$(quick_check)"
            result="$(start "$label" "$binary" "$db" "$warm" "$checks")"
            echo "$label $round $base $qc $result" >>"$RESULTS"
            log "round $round $label: sqlite3 $base s (wall, CPU), quick_check $qc s; start-up s, CPU s, RSS kB, warm kB, load ms, quick_check ms, hash ms: $result (load $(cut -d' ' -f1 /proc/loadavg))"
            warm=0
        done
    done
done

# Wall-clock ratios are what the goals name; on a loaded machine (see the load average logged with each round) the
# CPU-time figures are the steadier ones: the server's user + system CPU until /healthz against sqlite3's.
python3 - "$HOSTS" "$LOG" "$RESULTS" <<'PY'
import statistics, sys
hosts, withlog = int(sys.argv[1]), sys.argv[2] == "1"
rows = {}
for line in open(sys.argv[3]):
    name, _, *values = line.split()
    rows.setdefault(name, []).append([float(x) for x in values])
# base, base_cpu, qc, qc_cpu, start, start_cpu, rss, warm, load_ms, qc_ms, hash_ms, load_cpu_ms, qc_cpu_ms, store_cpu_ms,
# log_preload_cpu_ms, log_load_cpu_ms, ready (seconds to the first /readyz 200: the integrity check passed)
B, BC, Q, QC, S, SC, RSS, WARM, LOAD, QMS, HMS, LCPU, QCPU, STORE, PRE, LOGLOAD, READY = range(17)
goal_kb = 1.5 if withlog else 1.2
tag = "l" if withlog else ""
for name, rs in rows.items():
    med = lambda i: statistics.median(r[i] for r in rs)
    def row(label, what, subject, baseline, ratios, goal, limit):
        m = statistics.median(ratios)
        verdict = "info" if limit is None else ("PASS" if m <= limit else "FAIL")
        print(f"| {label} | {name}: {what} | {subject} | {baseline} | {m:.2f}× ({min(ratios):.2f}–{max(ratios):.2f}) | {goal} | {verdict} |")
    row(f"B7a{tag}", f"start-up to /healthz, {hosts:,} hosts{', log' if withlog else ''}, vs sqlite3 reading the documents",
        f"{med(S):.2f} s", f"{med(B):.2f} s", [r[S] / r[B] for r in rs], "≤ 2×", 2)
    row(f"B7r{tag}", "start-up to /readyz (the integrity check passed, writes accepted), vs sqlite3 reading the documents",
        f"{med(READY):.2f} s", f"{med(B):.2f} s", [r[READY] / r[B] for r in rs], "—", None)
    row(f"B7a{tag}-cpu", "the same in CPU time, one core (server's user + system until /healthz, vs sqlite3's)",
        f"{med(SC):.2f} s", f"{med(BC):.2f} s", [r[SC] / r[BC] for r in rs], "≤ 2×", 2)
    print(f"| B7b{tag} | {name}: RSS after start-up and one request | {med(RSS) / 1024:.1f} MB | — | "
          f"{med(RSS) / hosts:.2f} KB per host | — | info |")
    warm = [r[WARM] for r in rs if r[WARM] > 0]
    if warm:
        per = warm[0] / hosts
        print(f"| B7c{tag} | {name}: RSS once every host got a 200 and a 304 | {warm[0] / 1024:.1f} MB | — | "
              f"{per:.2f} KB per host | ≤ {goal_kb} KB | {'PASS' if per <= goal_kb else 'FAIL'} |")
    # CHECKS_OFF: the same binary without its start-up checks, in the same rounds: the checks' share, measured.
    off = rows.get(name + "-off")
    if off and not name.endswith("-off"):
        pairs = list(zip(rs, off))
        for label, column, what, limit in ((f"B7m{tag}", S, "wall clock to /healthz", 0.2),
                                           (f"B7m{tag}-cpu", SC, "CPU time to /healthz", 0.2),
                                           (f"B7m{tag}-ready", READY, "wall clock to /readyz, info", None)):
            shares = [(on[column] - o[column]) / on[column] for on, o in pairs]
            m = statistics.median(shares)
            verdict = "info" if limit is None else ("PASS" if m <= limit else "FAIL")
            print(f"| {label} | {name}: what the start-up checks cost, measured ({what}: with them, without them, "
                  f"PINSET_MEASURE_STARTUP_CHECKS=off) | {statistics.median(on[column] for on, _ in pairs):.2f} s | "
                  f"{statistics.median(o[column] for _, o in pairs):.2f} s | {m * 100:.0f}% ({min(shares) * 100:.0f}–"
                  f"{max(shares) * 100:.0f}%) | {'≤ 20%' if limit else '—'} | {verdict} |")
PY
