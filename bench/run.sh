#!/usr/bin/env bash
# bench/run.sh: issue 5 benchmarks (`make bench`). Runs wrk on loopback against pinset and its baselines,
# load generator and server each pinned to one core, interleaved rounds, and writes BENCHMARKS.md with
# ratio figures (median, min, max over the rounds).
#
#   B0 calibration: bare C libmicrohttpd server vs nginx (no pinset needed)
#   B0w calibration: minimal handler over the MicroHTTPD Swift wrapper vs the bare C server
#   B1 GET /pins/{host} 200 req/s vs the bare C server          goal >= 0.95x
#   B2 same vs nginx (one worker, document from disk)          goal >= 1.2x
#   B3 If-None-Match -> 304 req/s vs own 200                   goal >= 1.0x
#   B4 HOSTS hosts stored, random hosts vs one host            goal >= 0.95x (both via random_hosts.lua)
#      B4f (information) the same for B4's floor, a bare C server with as many documents (baseline_hosts.c)
#   B5 p99 latency at 50 connections vs the C server's p99     goal <= 1.3x
#      B5r the same while junk reports flood /reports from many addresses (bench/reports_flood.lua)  goal <= 1.3x
#   B1p GET 200 with the admin plane on its own listener (--admin-port) vs one listener  goal >= 0.95x
#   B6 sequential admin PUTs/s vs sqlite3 CLI single-row transactions, WAL + synchronous=FULL  information (B6m is the bound)
#      with floor rows B6s/B6b/B6m: pinset's SQL alone, plus one signature, and the least any audited signed write costs
#   I1 instructions per request under callgrind, wrapper and pinset vs C (load-independent; needs valgrind)
#   B7 start-up time and RSS with 100k hosts vs sqlite3 dumping the documents table
#      goal start-up <= 3x, RSS <= 2 x stored document bytes + 30 MB
#   B8/B9 client micro-benchmarks: rows pasted from `bash bench/client.sh` when that script exists
#   B8j/B9j the same on the JVM client: rows from `bash bench/jvm.sh` (Debian's JDK)
#   B10 the monitor: a pass over 10,000 hosts within its interval, GET req/s while it runs (bench/monitor.sh)
#   B11 writes with the pre-flight on: throughput, slowest write vs the deadline, GET p99 (bench/preflight.sh)
#   B13 writes with the transparency log and one witness vs without a log, 4 writers (bench/logwrites.sh)
#   B7L RSS and start-up with a transparency log vs without, HOSTS hosts (rows B7l B7m B7f B7g B7w, bench/logmem.sh)
#   H1/H1t/H2 keys in hardware: signing through SoftHSM vs the OpenSSL key, start-up re-sign of HOSTS documents
#      through the token (bench/hsm.sh; about 10 minutes at 100,000 hosts, most of it H2)
#
# Environment (all optional):
#   PINSET=.build/release/pinset  the server binary; when missing only B0 (and B0w) run
#   WRAPPER_REF=1                 also measure bench/wrapper_reference.swift (row B0w); 0 skips it
#   ROUNDS=5 DURATION=5           rounds and seconds per wrk run (every run is bounded)
#   CONNECTIONS=50                wrk -c
#   HOSTS=100000                  hosts seeded for B4/B7 (with the hidden `pinset seed`, see below)
#   SCALE_DIR=                    B4/B7 on a database bench/scale.sh seeded (HOSTS hosts in SCALE_DIR/pinset.sqlite,
#                                 its key SCALE_DIR/key.pem) instead of seeding one: a million hosts in seconds, e.g.
#                                 HOSTS=1000000 SCALE_DIR=/tmp/pinset-scale ONLY="B4" bash bench/run.sh (B4 vs B4f at 1M)
#   PUTS=5000                     transactions per B6 baseline (and floor) round
#   SERVER_CPU=0 LOAD_CPU=1       taskset cores for the servers and for wrk
#   ONLY="B0 B1 B2 B3 B4 B5 B6 B7 B7L B8 B8j B10 B11 B13 H"  subset to run (B8: client.sh, B8j: jvm.sh); add I1 for callgrind instruction counts (slow)
#   DOCS_TABLE=document           table sqlite3 dumps for B7
#   OUT=BENCHMARKS.md
set -euo pipefail

BENCH=bench
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
ROOT="$(cd "$HERE/.." && pwd)"
ROUNDS="${ROUNDS:-5}"
DURATION="${DURATION:-5}"
CONNECTIONS="${CONNECTIONS:-50}"
HOSTS="${HOSTS:-100000}"
PUTS="${PUTS:-5000}"
ONLY="${ONLY:-B0 B1 B2 B3 B4 B5 B6 B7 B7L B8 B8j B10 B11 B13 H}"
DOCS_TABLE="${DOCS_TABLE:-document}"
OUT="${OUT:-$ROOT/BENCHMARKS.md}"
HOST="api.example.com"

want() { [[ " $ONLY " == *" $1 "* ]]; }

# ---------------------------------------------------------------- tools
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
missing=""
for tool in wrk:wrk nginx:nginx-light sqlite3:sqlite3 curl:curl python3:python3 cc:gcc taskset:util-linux \
    openssl:openssl pkg-config:pkg-config; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing="$missing ${tool#*:}"
done
dpkg -s libmicrohttpd-dev >/dev/null 2>&1 || missing="$missing libmicrohttpd-dev"
if [ -n "$missing" ]; then
    log "installing:$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

# ---------------------------------------------------------------- scratch space and clean-up
# (TMP, PIDS and their clean-up at exit: bench/harness.sh)
chmod 755 "$TMP"   # nginx workers run as nobody when started by root
trap 'exit 130' INT TERM
RESULTS="$TMP/results.tsv"   # bench <tab> round <tab> variant <tab> metric <tab> value
: >"$RESULTS"

# run_wrk BENCH ROUND VARIANT URL [wrk args...]: records rps and p99 (ms).
run_wrk() {
    local bench="$1" round="$2" variant="$3" url="$4"; shift 4
    local out="$TMP/wrk-$bench-$round-$variant.txt"
    # With SERVER_PID set, also record the server's CPU time (user + system) per request: less sensitive to
    # what the neighbours on a shared VM do than throughput.
    local cpu0=0
    [ -n "${SERVER_PID:-}" ] && cpu0=$(awk '{print $14 + $15}' "/proc/$SERVER_PID/stat")
    taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@" "$url" >"$out" 2>&1 || {
        log "wrk failed for $variant: $(tail -3 "$out")"; return 1; }
    local cpu1=0
    [ -n "${SERVER_PID:-}" ] && cpu1=$(awk '{print $14 + $15}' "/proc/$SERVER_PID/stat")
    python3 - "$out" "$bench" "$round" "$variant" "$cpu0" "$cpu1" "$(getconf CLK_TCK)" >>"$RESULTS" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
bench, rnd, variant = sys.argv[2:5]
cpu0, cpu1, hz = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
requests = re.search(r"(\d+) requests in", text)
if cpu1 > cpu0 and requests and int(requests.group(1)) > 0:
    print(f"{bench}\t{rnd}\t{variant}\tcpu_us\t{(cpu1 - cpu0) / hz * 1e6 / int(requests.group(1))}")
rps = float(re.search(r"Requests/sec:\s*([\d.]+)", text).group(1))
m = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
scale = {"us": 0.001, "ms": 1.0, "s": 1000.0}
p99 = float(m.group(1)) * scale[m.group(2)] if m else float("nan")
non2xx = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", text)
errors = re.search(r"Socket errors:.*", text)
print(f"{bench}\t{rnd}\t{variant}\trps\t{rps}")
print(f"{bench}\t{rnd}\t{variant}\tp99_ms\t{p99}")
print(f"{bench}\t{rnd}\t{variant}\tbad\t{int(non2xx.group(1)) if non2xx else 0}")
PY
    log "$bench round $round $variant: $(grep 'Requests/sec' "$out" | awk '{print $2}') req/s"
}

# ---------------------------------------------------------------- the document served by everyone
HAVE_PINSET=0
[ -x "$PINSET" ] && HAVE_PINSET=1
if [ "$HAVE_PINSET" = 0 ]; then
    log "no pinset binary at $PINSET: only B0, B0w and I1 (C baseline, wrapper, nginx) run"
    ONLY="B0 I1"
fi

B64_A="$(head -c 32 /dev/urandom | base64)"
B64_B="$(head -c 32 /dev/urandom | base64)"
PIN_BODY="{\"pins\":[{\"sha256\":\"$B64_A\"},{\"sha256\":\"$B64_B\",\"role\":\"backup\"}]}"

DOC="$TMP/doc.json"
# The read and write benchmarks measure pinset's own paths: no pre-flight probes of the bench hosts on PUT,
# and no monitor probing 100,000 seeded hosts in the background (issue 14).
export PINSET_PREFLIGHT=off PINSET_MONITOR_INTERVAL=0
if [ "$HAVE_PINSET" = 1 ]; then
    openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null
    chmod 600 "$TMP/key.pem"
    DB="$TMP/pinset.sqlite"
    TOKEN="$("$PINSET" token create --db "$DB" --name bench | tail -n 1)"
    PINSET_PORT="$(free_port)"
    start_server "$TMP/pinset.log" "$PINSET" serve --db "$DB" --key "$TMP/key.pem" --port "$PINSET_PORT" \
        --threads 1 --bind 127.0.0.1
    PINSET_PID=$LAST_PID
    wait_http "$PINSET_PORT" /healthz
    curl -sf -X PUT -H "Authorization: Bearer $TOKEN" -d "$PIN_BODY" \
        "http://127.0.0.1:$PINSET_PORT/admin/hosts/$HOST" >/dev/null
    curl -sf -D "$TMP/doc.headers" -o "$DOC" "http://127.0.0.1:$PINSET_PORT/pins/$HOST"
    ETAG="$(grep -i '^etag:' "$TMP/doc.headers" | sed 's/^[^:]*: *//' | tr -d '\r')"
    # Issue 40: the same server with its admin plane on a listener of its own (row B1p) and 127.0.0.1 trusted as
    # a proxy, so that row B5r's junk reports come from many addresses (X-Forwarded-For); on a copy of the database.
    "$PINSET" backup --db "$DB" --out "$TMP/planes.sqlite" >/dev/null
    PLANES_PORT="$(free_port)"
    start_server "$TMP/planes.log" "$PINSET" serve --db "$TMP/planes.sqlite" --key "$TMP/key.pem" \
        --port "$PLANES_PORT" --admin-port "$(free_port)" --trusted-proxy 127.0.0.1 --threads 1 --bind 127.0.0.1
    PLANES_PID=$LAST_PID
    wait_http "$PLANES_PORT" /healthz
else
    # A stand-in of the real size (about 700 bytes) and shape.
    python3 - "$DOC" <<'PY'
import base64, json, os, sys
b = lambda n: base64.urlsafe_b64encode(os.urandom(n)).decode().rstrip("=")
payload = {"host": "api.example.com", "version": 1, "issuedAt": "2026-11-21T14:00:00Z",
           "expiresAt": "2026-11-28T14:00:00Z", "includeSubdomains": False, "enforce": True,
           "pins": [{"sha256": base64.b64encode(os.urandom(32)).decode(), "type": "spki", "role": r}
                    for r in ("current", "backup")]}
p = base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode().rstrip("=")
h = base64.urlsafe_b64encode(b'{"alg":"EdDSA","kid":"' + b(32).encode() + b'","typ":"pinset+jws"}').decode().rstrip("=")
open(sys.argv[1], "w").write(json.dumps({"protected": h, "payload": p, "signature": b(64)}, separators=(",", ":")))
PY
    ETAG="\"$(head -c 18 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')\""
fi
DOC_BYTES="$(wc -c <"$DOC")"
log "document: $DOC_BYTES bytes, ETag $ETAG"

# ---------------------------------------------------------------- the bare C server and nginx
cc -O2 -o "$TMP/baseline" "$HERE/baseline.c" $(pkg-config --cflags --libs libmicrohttpd)
C_PORT="$(free_port)"
start_server "$TMP/baseline.log" "$TMP/baseline" "$C_PORT" "$DOC" "$ETAG"
C_PID=$LAST_PID
wait_http "$C_PORT" /
# The same C server with an 8 KiB connection pool instead of MHD's (and pinset's) 32 KiB default: row B0m.
C8_PORT="$(free_port)"
start_server "$TMP/baseline8.log" "$TMP/baseline" "$C8_PORT" "$DOC" "$ETAG" 8192
C8_PID=$LAST_PID
wait_http "$C8_PORT" /

# The wrapper's own floor (row B0w): optional, needs swiftc; WRAPPER_REF=0 skips it.
HAVE_WREF=0
if [ "${WRAPPER_REF:-1}" = 1 ] && command -v swiftc >/dev/null; then
    log "compiling bench/wrapper_reference.swift (about a minute)"
    cp "$HERE/wrapper_reference.swift" "$TMP/main.swift"   # top-level code must sit in main.swift
    # One module: the wrapper's sources with the lock type they import from the Locking target.
    mkdir -p "$TMP/wrapper-src"
    for f in "$ROOT"/Sources/MicroHTTPD/*.swift "$ROOT"/Sources/Locking/*.swift; do
        grep -v '^import Locking$' "$f" > "$TMP/wrapper-src/$(basename "$f")"
    done
    if swiftc -O -module-name WrapperReference -package-name pinset "$TMP"/wrapper-src/*.swift "$TMP/main.swift" \
        -I "$ROOT/Sources/CMicroHTTPD" -lmicrohttpd -o "$TMP/wrapper_reference" >"$TMP/swiftc.log" 2>&1; then
        W_PORT="$(free_port)"
        start_server "$TMP/wrapper.log" "$TMP/wrapper_reference" "$W_PORT" "$DOC" "$ETAG"
        W_PID=$LAST_PID
        wait_http "$W_PORT" /
        HAVE_WREF=1
    else
        log "wrapper_reference did not compile (see below); row B0w skipped"; tail -5 "$TMP/swiftc.log" >&2
    fi
fi

mkdir -p "$TMP/www/pins"
cp "$DOC" "$TMP/www/pins/$HOST"
NGINX_PORT="$(free_port)"
sed -e "s|@PORT@|$NGINX_PORT|g" -e "s|@ROOT@|$TMP/www|g" -e "s|@TMP@|$TMP|g" -e "s|@ETAG@|$ETAG|g" \
    "$HERE/nginx.conf" >"$TMP/nginx.conf"
start_server "$TMP/nginx.log" "$NGINX" -p "$TMP" -c "$TMP/nginx.conf"
wait_http "$NGINX_PORT" "/pins/$HOST"
for port in "$C_PORT" "$C8_PORT" "$NGINX_PORT" ${W_PORT:-}; do
    cmp -s "$DOC" <(curl -s "http://127.0.0.1:$port/pins/$HOST") || { log "port $port serves other bytes"; exit 1; }
done

# ---------------------------------------------------------------- B0, B1, B2, B3, B5: interleaved rounds
if want B0 || want B1 || want B2 || want B3 || want B5; then
    for round in $(seq 1 "$ROUNDS"); do
        SERVER_PID=$C_PID run_wrk R "$round" c "http://127.0.0.1:$C_PORT/pins/$HOST"
        SERVER_PID=$C8_PID run_wrk R "$round" c8 "http://127.0.0.1:$C8_PORT/pins/$HOST"
        run_wrk R "$round" nginx "http://127.0.0.1:$NGINX_PORT/pins/$HOST"
        if [ "$HAVE_WREF" = 1 ]; then
            run_wrk R "$round" wrapper "http://127.0.0.1:$W_PORT/pins/$HOST"
        fi
        if [ "$HAVE_PINSET" = 1 ]; then
            SERVER_PID=$PINSET_PID run_wrk R "$round" pinset "http://127.0.0.1:$PINSET_PORT/pins/$HOST"
            if want B3; then
                SERVER_PID=$PINSET_PID run_wrk R "$round" pinset304 "http://127.0.0.1:$PINSET_PORT/pins/$HOST" -H "If-None-Match: $ETAG"
            fi
            if want B1; then
                SERVER_PID=$PLANES_PID run_wrk R "$round" planes "http://127.0.0.1:$PLANES_PORT/pins/$HOST"
            fi
        fi
    done
    # B5r: the same GETs while junk reports flood /reports (bench/reports_flood.lua, 8 connections). Its rounds
    # run after every other round, each followed by a 2 s pause, so that no row is measured on a machine still
    # busy with a flood (B5 measured 2.52x in rounds that came after a flood, 0.87x without one). Row B5rf: the
    # bare C server under the same flood (it answers each report with its document), the floor any server on
    # libmicrohttpd pays to receive the flood.
    if [ "$HAVE_PINSET" = 1 ] && want B5; then
        for round in $(seq 1 "$ROUNDS"); do
            taskset -c "$LOAD_CPU" wrk -t1 -c8 -d"$((DURATION + 2))s" -s "$HERE/reports_flood.lua" \
                "http://127.0.0.1:$C_PORT/" >/dev/null 2>&1 &
            FLOOD_PID=$!
            sleep 1
            SERVER_PID=$C_PID run_wrk R "$round" cflood "http://127.0.0.1:$C_PORT/pins/$HOST"
            wait "$FLOOD_PID" || true
            sleep 2
            taskset -c "$LOAD_CPU" wrk -t1 -c8 -d"$((DURATION + 2))s" -s "$HERE/reports_flood.lua" \
                "http://127.0.0.1:$PLANES_PORT/" >"$TMP/flood-$round.txt" 2>&1 &
            FLOOD_PID=$!
            sleep 1
            SERVER_PID=$PLANES_PID run_wrk R "$round" flood "http://127.0.0.1:$PLANES_PORT/pins/$HOST"
            wait "$FLOOD_PID" || true
            python3 - "$TMP/flood-$round.txt" "$round" >>"$RESULTS" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"(\d+) requests in ([\d.]+)s", text)
bad = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", text)
if m:
    print(f"R\t{sys.argv[2]}\tflood\treports_per_s\t{int(m.group(1)) / float(m.group(2))}")
    print(f"R\t{sys.argv[2]}\tflood\treports_refused\t{int(bad.group(1)) if bad else 0}")
PY
            sleep 2
        done
    fi
fi

# ---------------------------------------------------------------- I1: instructions per request (callgrind)
# Throughput on a shared 2-core VM is noisy; instruction counts are not. Each server runs under callgrind twice:
# once only started (start-up cost), once with a wrk load; (Ir_loaded - Ir_idle) / requests is its cost.
icount() {
    local variant="$1" port="$2"; shift 2
    local ir=()
    for mode in idle loaded; do
        local cg="$TMP/cg-$variant-$mode"
        taskset -c "$SERVER_CPU" valgrind --tool=callgrind --callgrind-out-file="$cg.out" "$@" >"$cg.log" 2>&1 &
        local pid=$!
        PIDS+=("$pid")
        # Under valgrind, on a loaded machine, a Swift server can take a minute to start; a miss skips the row.
        wait_http "$port" "/pins/$HOST" 12000 || { kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; return 0; }
        local requests=0
        if [ "$mode" = loaded ]; then
            taskset -c "$LOAD_CPU" wrk -t1 -c10 -d"${DURATION}s" "http://127.0.0.1:$port/pins/$HOST" >"$cg.wrk" 2>&1
            requests=$(awk '/requests in/ {print $1}' "$cg.wrk")
        fi
        kill -TERM "$pid"
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true   # counts are lost then, and the row says so
        wait "$pid" 2>/dev/null || true
        ir+=("$(awk '/^(summary|totals):/ {print $2}' "$cg.out" 2>/dev/null | tail -1)")
    done
    if [ -z "${ir[0]}" ] || [ -z "${ir[1]}" ] || [ "${requests:-0}" = 0 ]; then
        log "I1 $variant: no callgrind counts (server did not exit on SIGTERM?)"; return 0
    fi
    python3 -c "print('I1	1	$variant	ir_per_req	' + str(($((ir[1])) - $((ir[0]))) / $requests))" >>"$RESULTS"
    log "I1 $variant: $(tail -1 "$RESULTS" | cut -f5) instructions/request ($requests requests)"
}
if want I1 && command -v valgrind >/dev/null; then
    stop "$C_PID"
    icount c "$C_PORT" "$TMP/baseline" "$C_PORT" "$DOC" "$ETAG"
    if [ "$HAVE_WREF" = 1 ]; then
        stop "$W_PID"
        icount wrapper "$W_PORT" "$TMP/wrapper_reference" "$W_PORT" "$DOC" "$ETAG"
    fi
    if [ "$HAVE_PINSET" = 1 ]; then
        stop "$PINSET_PID"
        icount pinset "$PINSET_PORT" "$PINSET" serve --db "$DB" --key "$TMP/key.pem" --port "$PINSET_PORT" \
            --threads 1 --bind 127.0.0.1
        start_server "$TMP/pinset.log" "$PINSET" serve --db "$DB" --key "$TMP/key.pem" --port "$PINSET_PORT" \
            --threads 1 --bind 127.0.0.1
        PINSET_PID=$LAST_PID
        wait_http "$PINSET_PORT" /healthz
    fi
fi

# ---------------------------------------------------------------- B6: sequential admin PUTs vs sqlite3
if want B6; then
    for round in $(seq 1 "$ROUNDS"); do
        # One keep-alive connection, one PUT at a time (fresh random pins each, bench/put.lua): wrk's per-request
        # cost is a few µs, where a Python http.client loop alone costs ~160 µs per request on this machine.
        BENCH_TOKEN="$TOKEN" CONNECTIONS=1 run_wrk B6 "$round" pinset "http://127.0.0.1:$PINSET_PORT/" \
            -s "$HERE/put.lua"
        SQ="$TMP/b6-$round.sqlite"
        python3 - "$PUTS" "$DOC" >"$TMP/b6.sql" <<'PY'
import sys
n, doc = int(sys.argv[1]), open(sys.argv[2]).read().replace("'", "''")
print("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;")
print("CREATE TABLE IF NOT EXISTS documents(host TEXT PRIMARY KEY, version INTEGER, body TEXT);")
for i in range(n):
    print(f"BEGIN; INSERT OR REPLACE INTO documents VALUES('b6.bench.example',{i},'{doc}'); COMMIT;")
PY
        start=$(date +%s.%N)
        sqlite3 "$SQ" <"$TMP/b6.sql" >/dev/null
        end=$(date +%s.%N)
        python3 -c "print('B6\t$round\tsqlite3\trps\t' + str($PUTS / ($end - $start)))" >>"$RESULTS"
        # Floors under B6 (not goals): one PUT's SQL on pinset's schema, and the least an audited write stores,
        # both through Python's sqlite3 with reused statements (bench/put_floor.py), and the Ed25519 signatures
        # per second of the libcrypto pinset signs with.
        sqlite3 "$DB" .schema >"$TMP/schema.sql"
        for floor in pinset minimal; do
            rm -f "$TMP/floor.sqlite"*
            files=("$DOC"); [ "$floor" = pinset ] && files=("$TMP/schema.sql" "$DOC")
            rate="$(python3 "$HERE/put_floor.py" "$floor" "$PUTS" "$TMP/floor.sqlite" "${files[@]}")"
            printf 'B6\t%s\tfloor_%s\trps\t%s\n' "$round" "$floor" "$rate" >>"$RESULTS"
        done
        rm -f "$TMP/floor.sqlite"*
        sign="$(openssl speed -seconds 1 ed25519 2>/dev/null | awk '/Ed25519/ {print $(NF-1)}')"
        printf 'B6\t%s\tsign\trps\t%s\n' "$round" "${sign:-nan}" >>"$RESULTS"
        log "B6 round $round done"
    done
fi

# ---------------------------------------------------------------- B4, B7: 100k hosts
if want B4 || want B7; then
    # Seeding through the admin API would be one durable (fsync'd) commit per host: ~100/s here, 15+ minutes
    # for 100,000 hosts. `pinset seed` (hidden, dev/bench only) writes the same signed versions through
    # storage (PinDatabase.seed, no server), 1,000 hosts per transaction. The server is stopped meanwhile and restarted
    # on the seeded database, so its snapshot holds every host.
    stop "$PINSET_PID"
    if [ -n "${SCALE_DIR:-}" ]; then
        # bench/scale.sh's seeded database, used in place (the server only reads it and stamps its identity).
        DB="$SCALE_DIR/pinset.sqlite"
        [ -f "$SCALE_DIR/seeded-$HOSTS" ] || { log "$SCALE_DIR holds no $HOSTS-host database (run bench/scale.sh)"; exit 2; }
        cp "$SCALE_DIR/key.pem" "$TMP/key.pem"
        log "B4/B7 on $DB ($HOSTS hosts, seeded by bench/scale.sh)"
    else
        log "seeding $HOSTS hosts with pinset seed (1,000 per transaction)"
        "$PINSET" seed --db "$DB" --key "$TMP/key.pem" --hosts "$HOSTS" >&2
    fi
    start_server "$TMP/pinset.log" "$PINSET" serve --db "$DB" --key "$TMP/key.pem" --port "$PINSET_PORT" \
        --threads 1 --bind 127.0.0.1
    PINSET_PID=$LAST_PID
    wait_http "$PINSET_PORT" /healthz
    if want B4; then
        # Steady state before the rounds (not recorded): start-up's background move of the documents onto huge
        # pages has ended (it logs when done; a few seconds at a million hosts, at most 60 s waited), and one
        # random pass has filled the response cache as a running server's is.
        for _ in $(seq 1 600); do grep -q "documents moved to huge pages" "$TMP/pinset.log" && break; sleep 0.1; done
        # B4's floor (row B4f): a bare C libmicrohttpd server holding the same number of documents in the layout
        # most favourable to it (bench/baseline_hosts.c), measured in the same rounds.
        cc -O2 -o "$TMP/baseline_hosts" "$HERE/baseline_hosts.c" $(pkg-config --cflags --libs libmicrohttpd)
        F_PORT="$(free_port)"
        start_server "$TMP/baseline_hosts.log" "$TMP/baseline_hosts" "$F_PORT" "$HOSTS"
        F_PID=$LAST_PID
        wait_http "$F_PORT" /healthz
        BENCH_HOSTS="$HOSTS" taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$HERE/random_hosts.lua" \
            "http://127.0.0.1:$F_PORT/" >/dev/null 2>&1 || log "B4f warm-up: wrk failed"
        BENCH_HOSTS="$HOSTS" taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$HERE/random_hosts.lua" \
            "http://127.0.0.1:$PINSET_PORT/" >/dev/null 2>&1 || log "B4 warm-up: wrk failed"
        for round in $(seq 1 "$ROUNDS"); do
            # Both runs use the same Lua script, so wrk spends the same per-request time formatting requests:
            # BENCH_HOSTS=1 makes it ask for h0.bench.example every time (plain wrk would be unfairly faster).
            BENCH_HOSTS=1 SERVER_PID=$PINSET_PID run_wrk B4 "$round" one "http://127.0.0.1:$PINSET_PORT/" -s "$HERE/random_hosts.lua"
            BENCH_HOSTS="$HOSTS" SERVER_PID=$PINSET_PID run_wrk B4 "$round" random "http://127.0.0.1:$PINSET_PORT/" -s "$HERE/random_hosts.lua"
            # B4s (information): the same random pattern over 1,000 of the hosts, a working set that fits in cache.
            BENCH_HOSTS=1000 SERVER_PID=$PINSET_PID run_wrk B4 "$round" random1k "http://127.0.0.1:$PINSET_PORT/" -s "$HERE/random_hosts.lua"
            # B4f (information): the same two runs against B4's floor, the bare C server of baseline_hosts.c.
            BENCH_HOSTS=1 SERVER_PID=$F_PID run_wrk B4F "$round" one "http://127.0.0.1:$F_PORT/" -s "$HERE/random_hosts.lua"
            BENCH_HOSTS="$HOSTS" SERVER_PID=$F_PID run_wrk B4F "$round" random "http://127.0.0.1:$F_PORT/" -s "$HERE/random_hosts.lua"
        done
        stop "$F_PID"
    fi
    if want B7; then
        stop "$PINSET_PID"
        for round in $(seq 1 "$ROUNDS"); do
            start=$(date +%s.%N)
            start_server "$TMP/pinset-b7.log" "$PINSET" serve --db "$DB" --key "$TMP/key.pem" --port "$PINSET_PORT" \
                --threads 1 --bind 127.0.0.1
            pid=$LAST_PID
            wait_http "$PINSET_PORT" /healthz
            end=$(date +%s.%N)
            # B7b's RSS once start-up is over: /readyz answers 200 once the integrity check that runs after the
            # server listens has passed; while it runs, the file it maps counts in RSS (15 MB at 100,000 hosts).
            for _ in $(seq 1 3000); do curl -sf -o /dev/null "http://127.0.0.1:$PINSET_PORT/readyz" && break; sleep 0.01; done
            curl -s -o /dev/null "http://127.0.0.1:$PINSET_PORT/pins/h1.bench.example"
            rss_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
            if [ "$round" = 1 ]; then
                # B7c: responses are built on a host's first request, so also read RSS once every host has
                # been served a 200 and a 304 (2 × HOSTS requests, one wrk thread so the Lua counter is shared).
                BENCH_HOSTS="$HOSTS" taskset -c 1 wrk -t1 -c8 -d"$(( HOSTS / 5000 + 10 ))s" -s "$HERE/all_hosts.lua" \
                    "http://127.0.0.1:$PINSET_PORT/" >"$TMP/b7c.txt" 2>&1 || log "B7c: wrk failed"
                warm_kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
                warm_requests=$(awk '/requests in/ {print $1}' "$TMP/b7c.txt")
                echo "B7	0	pinset	rss_warm_kb	$warm_kb" >>"$RESULTS"
                echo "B7	0	pinset	warm_requests	${warm_requests:-0}" >>"$RESULTS"
            fi
            stop "$pid"
            s2=$(date +%s.%N)
            sqlite3 "$DB" "SELECT * FROM $DOCS_TABLE" >"$TMP/dump.txt" || log "B7: no table $DOCS_TABLE (set DOCS_TABLE)"
            e2=$(date +%s.%N)
            python3 -c "print('B7\t$round\tpinset\tstart_s\t' + str($end - $start)); print('B7\t$round\tpinset\trss_kb\t$rss_kb'); print('B7\t$round\tsqlite3\tstart_s\t' + str($e2 - $s2))" >>"$RESULTS"
        done
        echo "B7	0	sqlite3	doc_bytes	$(sqlite3 "$DB" "SELECT sum(length(body)) FROM $DOCS_TABLE")" >>"$RESULTS"
    fi
fi

# ---------------------------------------------------------------- B8/B9: client micro-benchmarks
CLIENT_ROWS="$TMP/client-rows.md"
: >"$CLIENT_ROWS"
if want B8 && [ -f "$HERE/client.sh" ]; then
    log "B8/B9: bash bench/client.sh"
    bash "$HERE/client.sh" | grep -E '^\| *B(8|9|12)[a-z]? ' >>"$CLIENT_ROWS" || log "bench/client.sh failed or gave no B8/B9 rows"
fi

# ---------------------------------------------------------------- B10: the monitor at 10,000 hosts (issue 22)
if want B10; then
    log "B10: bash bench/monitor.sh"
    PINSET="$PINSET" ROUNDS=3 DURATION="$DURATION" SERVER_CPU="$SERVER_CPU" LOAD_CPU="$LOAD_CPU" \
        bash "$HERE/monitor.sh" | grep '^| *B10' >>"$CLIENT_ROWS" || log "bench/monitor.sh failed or gave no rows"
fi

# ---------------------------------------------------------------- B11: writes with the pre-flight on (issue 22)
if want B11; then
    log "B11: bash bench/preflight.sh"
    PINSET="$PINSET" SERVER_CPU="$SERVER_CPU" LOAD_CPU="$LOAD_CPU" \
        bash "$HERE/preflight.sh" | grep '^| *B11' >>"$CLIENT_ROWS" || log "bench/preflight.sh failed or gave no rows"
fi

# ---------------------------------------------------------------- B13: writes with the transparency log (issue 24)
if want B13; then
    log "B13: bash bench/logwrites.sh"
    PINSET="$PINSET" SERVER_CPU="$SERVER_CPU" LOAD_CPU="$LOAD_CPU" \
        bash "$HERE/logwrites.sh" | grep '^| *B13' >>"$CLIENT_ROWS" || log "bench/logwrites.sh failed or gave no rows"
fi

# ---------------------------------------------------------------- B7L: memory and start-up with the log (issue 22)
if want B7L; then
    log "B7L: bash bench/logmem.sh"
    PINSET="$PINSET" HOSTS="$HOSTS" SERVER_CPU="$SERVER_CPU" LOAD_CPU="$LOAD_CPU" \
        bash "$HERE/logmem.sh" | grep '^| *B7[lmfgw]' >>"$CLIENT_ROWS" || log "bench/logmem.sh failed or gave no rows"
fi

# ---------------------------------------------------------------- B8j/B9j: the JVM client (issue 23)
if want B8j && [ -f "$HERE/jvm.sh" ]; then
    log "B8j/B9j: bash bench/jvm.sh"
    bash "$HERE/jvm.sh" | grep -E '^\| *B(8|9|12)j ' >>"$CLIENT_ROWS" || log "bench/jvm.sh failed or gave no B8j/B9j rows"
fi

# ---------------------------------------------------------------- H: keys in hardware (issue 25)
if want H; then
    log "H: bash bench/hsm.sh"
    PINSET="$PINSET" HOSTS="$HOSTS" bash "$HERE/hsm.sh" | grep '^| *H' >>"$CLIENT_ROWS" || log "bench/hsm.sh failed or gave no rows"
fi

# ---------------------------------------------------------------- BENCHMARKS.md
python3 "$HERE/report.py" "$RESULTS" "$OUT" "$ROUNDS" "$DURATION" "$CONNECTIONS" "$DOC_BYTES" "$HOSTS" "$ONLY" "$CLIENT_ROWS"
log "wrote $OUT"
