#!/usr/bin/env bash
# bench/filewatch.sh: what the file watch (issue 41: the database, -wal and -shm checked before and after each
# write, Sources/PinSetStorage/Storage/DatabaseFiles.swift) costs a write. B13's no-log row (4 writers, --preflight
# off, no log), with the watch on and with it off (PINSET_MEASURE_FILE_WATCH=off, a measurement switch only),
# alternated round by round on fresh databases; each run prints writes/s and the server's CPU per write
# (utime + stime from /proc, over the run). Prints medians per mode at the end.
#   PINSET=.build/release/pinset WATCH_ROUNDS=4 WATCH_SECONDS=6 bash bench/filewatch.sh
set -euo pipefail
BENCH=filewatch
source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
SECONDS_PER_RUN="${WATCH_SECONDS:-6}"
ROUNDS="${WATCH_ROUNDS:-4}"
openssl genpkey -algorithm ed25519 -out "$TMP/key.pem" 2>/dev/null
chmod 600 "$TMP/key.pem"
TICKS="$(getconf CLK_TCK)"
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# run MODE: one run on a fresh database; prints "MODE writes/s cpu-us-per-write".
run() {
    rm -f "$TMP"/pinset.sqlite*
    TOKEN="$("$PINSET" token create --db "$TMP/pinset.sqlite" --name bench | tail -n 1)"
    if [ "$1" = off ]; then export PINSET_MEASURE_FILE_WATCH=off; else unset PINSET_MEASURE_FILE_WATCH; fi
    serve_pinset "$TMP/pinset.log" --db "$TMP/pinset.sqlite" --key "$TMP/key.pem" --threads 2 --preflight off \
        --monitor-interval 0
    unset PINSET_MEASURE_FILE_WATCH
    local before after line rate
    before="$(cpu_ticks "$PID")"
    line="$(taskset -c "$LOAD_CPU" python3 "$HERE/preflight_writers.py" "$PORT" "$TOKEN" 4 "$SECONDS_PER_RUN" bench.test)"
    after="$(cpu_ticks "$PID")"
    stop
    rate="$(cut -d' ' -f1 <<<"$line")"
    awk -v m="$1" -v r="$rate" -v t=$((after - before)) -v hz="$TICKS" -v s="$SECONDS_PER_RUN" \
        'BEGIN { printf "%s %.0f %.0f\n", m, r, t / hz * 1e6 / (r * s) }'
}

results=()
for round in $(seq 1 "$ROUNDS"); do
    for mode in on off; do
        results+=("$(run "$mode")")
        log "round $round: ${results[-1]}"
    done
done
printf '%s\n' "${results[@]}" | python3 -c '
import statistics, sys
rows = [line.split() for line in sys.stdin if line.strip()]
for mode in ("on", "off"):
    rates = [float(r[1]) for r in rows if r[0] == mode]
    cpu = [float(r[2]) for r in rows if r[0] == mode]
    print(f"watch {mode:<3} median {statistics.median(rates):.0f} writes/s ({min(rates):.0f}-{max(rates):.0f}), "
          f"{statistics.median(cpu):.0f} us CPU per write ({min(cpu):.0f}-{max(cpu):.0f}), {len(rates)} runs")
'
