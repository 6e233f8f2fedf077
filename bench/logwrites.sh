#!/usr/bin/env bash
# bench/logwrites.sh: admin writes with the transparency log (issue 24 Performance). Prints a row for BENCHMARKS.md:
#   B13 4 concurrent writers, --preflight off, a log with one `pinset witness` on loopback vs no log   goal >= 0.8x
# Rounds alternate the two servers (each on a fresh database) so load drifts hit both alike; the row gives the
# median ratio and its range. Usage: PINSET=.build/release/pinset bash bench/logwrites.sh (make bench runs it).
set -euo pipefail
BENCH=logwrites
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
SECONDS_PER_RUN="${LOG_SECONDS:-6}"
ROUNDS="${LOG_ROUNDS:-3}"
ORIGIN="bench.test/log"
for key in key log-key witness-key; do
    openssl genpkey -algorithm ed25519 -out "$TMP/$key.pem" 2>/dev/null
    chmod 600 "$TMP/$key.pem"
done
# The log's vkey (C2SP signed-note, type 0x01), for the witness.
LOG_VKEY="$(python3 - "$TMP/log-key.pem" "$ORIGIN" <<'PY'
import base64, hashlib, subprocess, sys
der = subprocess.run(["openssl", "pkey", "-in", sys.argv[1], "-pubout", "-outform", "DER"], capture_output=True, check=True).stdout
public = der[-32:]
key_id = hashlib.sha256(sys.argv[2].encode() + b"\n\x01" + public).digest()[:4]
print(f"{sys.argv[2]}+{key_id.hex()}+{base64.b64encode(bytes([1]) + public).decode()}")
PY
)"
# start_witness: a fresh witness (its own database) for each log round, since each round's log starts empty.
start_witness() {
    rm -f "$TMP"/witness.sqlite* "$TMP/witness.out"
    WITNESS_PORT="$(free_port)"
    taskset -c "$LOAD_CPU" "$PINSET" witness --name w.bench.test --key "$TMP/witness-key.pem" \
        --db "$TMP/witness.sqlite" --log "$LOG_VKEY" --port "$WITNESS_PORT" >"$TMP/witness.out" 2>&1 &
    WITNESS_PID=$!
    PIDS+=("$WITNESS_PID")
    for _ in $(seq 1 500); do grep -q vkey "$TMP/witness.out" 2>/dev/null && break; sleep 0.01; done
    WITNESS_VKEY="$(awk '/vkey:/ {print $2}' "$TMP/witness.out")"
}

# serve [LOG ARGS...]: a fresh database each time; sets PORT, PID and TOKEN.
serve() {
    rm -f "$TMP"/pinset.sqlite*
    TOKEN="$("$PINSET" token create --db "$TMP/pinset.sqlite" --name bench | tail -n 1)"
    serve_pinset "$TMP/pinset.log" --db "$TMP/pinset.sqlite" --key "$TMP/key.pem" --threads 2 --preflight off \
        --monitor-interval 0 "$@"
}
writers() { taskset -c "$LOAD_CPU" python3 "$HERE/preflight_writers.py" "$PORT" "$TOKEN" 4 "$SECONDS_PER_RUN" bench.test; }

offs=(); logs=(); cosigned=""
for round in $(seq 1 "$ROUNDS"); do
    serve
    offs+=("$(writers | cut -d' ' -f1)")
    stop
    start_witness
    serve --log-key "$TMP/log-key.pem" --log-origin "$ORIGIN" --witness "http://127.0.0.1:$WITNESS_PORT" "$WITNESS_VKEY"
    logs+=("$(writers | cut -d' ' -f1)")
    cosigned="$(curl -s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/admin/log")"
    stop
    kill "$WITNESS_PID"; wait "$WITNESS_PID" 2>/dev/null || true
    log "round $round: no log ${offs[-1]} writes/s, log + witness ${logs[-1]} writes/s"
done
log "last /admin/log: ${cosigned:0:400}"

python3 - "${offs[*]}" "${logs[*]}" <<'PY'
import statistics, sys
offs = [float(x) for x in sys.argv[1].split()]
logs = [float(x) for x in sys.argv[2].split()]
ratios = [l / o for l, o in zip(logs, offs)]
r = statistics.median(ratios)
print(f"| B13 | 4 writers, --preflight off, transparency log + 1 witness on loopback vs no log | "
      f"{statistics.median(logs):.1f} writes/s | {statistics.median(offs):.1f} writes/s | "
      f"{r:.2f}× ({min(ratios):.2f}–{max(ratios):.2f}) | ≥ 0.8× | {'PASS' if r >= 0.8 else 'FAIL'} |")
PY
