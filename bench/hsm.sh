#!/usr/bin/env bash
# bench/hsm.sh: keys in hardware (issue 25), `make bench-hsm`. Signing through a PKCS#11 token (SoftHSM 2, the
# token Debian ships) against the in-memory OpenSSL key, in interleaved rounds, as ratio rows (median, min, max):
#
#   H1   signatures/s through SoftHSM (CKM_EDDSA, one C_Sign each), 1 thread, vs the PEM key in OpenSSL
#   H1t  the same with 2 threads (one session each) vs the PEM key with 2 threads
#   H2   start-up re-sign of HOSTS documents (all signed by another key) through the token vs with a PEM key:
#        seconds from `pinset serve` until it logs that it re-signed them all
#
# Reads are not measured here: signing is never on the read path (B1 holds whatever the ratio).
# Environment (all optional): PINSET (default .build/release/pinset), ROUNDS=3 (H1), RESIGN_ROUNDS=1 (H2: each
# round re-signs HOSTS twice, about 8 minutes each at 100,000 here), COUNT=5000, HOSTS=100000,
# OUT (a file the rows are appended to; default: standard output only).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
PINSET="${PINSET:-$ROOT/.build/release/pinset}"
ROUNDS="${ROUNDS:-3}"
RESIGN_ROUNDS="${RESIGN_ROUNDS:-1}"
COUNT="${COUNT:-5000}"
HOSTS="${HOSTS:-100000}"
OUT="${OUT:-}"
MODULE=/usr/lib/softhsm/libsofthsm2.so

log() { printf '[bench-hsm %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
[ -x "$PINSET" ] || { echo "no pinset binary at $PINSET (make release)" >&2; exit 1; }
for tool in softhsm2-util openssl python3; do command -v "$tool" >/dev/null || { echo "missing $tool (make hsm-deps)" >&2; exit 1; }; done

WORK="$(mktemp -d /tmp/pinset-bench-hsm.XXXXXX)"
SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

mkdir -p "$WORK/tokens"
printf 'directories.tokendir = %s/tokens\nobjectstore.backend = file\nlog.level = ERROR\n' "$WORK" > "$WORK/softhsm2.conf"
export SOFTHSM2_CONF="$WORK/softhsm2.conf" PINSET_PKCS11_MODULE="$MODULE"
(umask 077; echo 1234 > "$WORK/pin")
softhsm2-util --init-token --free --label bench --so-pin 87654321 --pin 1234 > /dev/null
TOKEN_KEY="pkcs11:token=bench;object=signing?pin-source=file:$WORK/pin"
"$PINSET" keygen --pkcs11 "$TOKEN_KEY" > /dev/null
for name in seed file; do (umask 077; openssl genpkey -algorithm ed25519 -out "$WORK/$name.pem"); done

rate() { "$PINSET" sign-bench --key "$1" --count "$COUNT" --threads "$2" | sed -E 's/.*: ([0-9.]+) signatures\/s/\1/'; }

# Seconds from start until the server logs the re-signing of every document (each round on a fresh copy).
resign_seconds() {
    cp "$WORK/base.sqlite" "$WORK/round.sqlite"
    rm -f "$WORK/round.sqlite-wal" "$WORK/round.sqlite-shm" "$WORK/serve.log"
    local started; started=$(date +%s.%N)
    "$PINSET" serve --db "$WORK/round.sqlite" --key "$1" --port 0 > /dev/null 2> "$WORK/serve.log" &
    SERVER_PID=$!
    local i
    for ((i = 0; i < 36000; i++)); do   # bounded: 2 hours
        grep -q "count=$HOSTS .*re-signed documents" "$WORK/serve.log" 2>/dev/null && break
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.log" >&2; exit 1; }
        sleep 0.2
    done
    local ended; ended=$(date +%s.%N)
    kill "$SERVER_PID"; wait "$SERVER_PID" 2>/dev/null || true; SERVER_PID=""
    python3 -c "print(f'{$ended - $started:.2f}')"
}

declare -a H1 H1T H2 FILE1 TOKEN1 FILE2 TOKEN2 RFILE RTOKEN
for ((r = 1; r <= ROUNDS; r++)); do
    f=$(rate "$WORK/file.pem" 1); t=$(rate "$TOKEN_KEY" 1)
    f2=$(rate "$WORK/file.pem" 2); t2=$(rate "$TOKEN_KEY" 2)
    FILE1+=("$f"); TOKEN1+=("$t"); FILE2+=("$f2"); TOKEN2+=("$t2")
    log "round $r: 1 thread file $f/s token $t/s; 2 threads file $f2/s token $t2/s"
done

log "seeding $HOSTS hosts signed by another key"
"$PINSET" seed --db "$WORK/base.sqlite" --key "$WORK/seed.pem" --hosts "$HOSTS" >&2
for ((r = 1; r <= RESIGN_ROUNDS; r++)); do
    f=$(resign_seconds "$WORK/file.pem"); t=$(resign_seconds "$TOKEN_KEY")
    RFILE+=("$f"); RTOKEN+=("$t")
    log "round $r: re-sign $HOSTS with the file key ${f} s, through the token ${t} s"
done

python3 - "$HOSTS" "${FILE1[*]}" "${TOKEN1[*]}" "${FILE2[*]}" "${TOKEN2[*]}" "${RFILE[*]}" "${RTOKEN[*]}" <<'PY' | tee -a "${OUT:-/dev/null}"
import statistics, sys
hosts = int(sys.argv[1])
f1, t1, f2, t2, rf, rt = ([float(x) for x in a.split()] for a in sys.argv[2:8])
def row(name, what, measured, baseline, unit, fmt):
    ratios = [m / b for m, b in zip(measured, baseline)]
    print(f"| {name} | {what} | **{statistics.median(ratios):.2f}×** | {min(ratios):.2f}× | {max(ratios):.2f}× | — | info | "
          f"token {fmt.format(statistics.median(measured))} {unit}, file key {fmt.format(statistics.median(baseline))} {unit} (medians) |")
row("H1", "signatures/s through SoftHSM (CKM_EDDSA) vs the PEM key in OpenSSL, 1 thread", t1, f1, "/s", "{:,.0f}")
row("H1t", "the same, 2 threads (a session each)", t2, f2, "/s", "{:,.0f}")
row("H2", f"start-up re-sign of {hosts:,} documents through the token vs with the PEM key", rt, rf, "s", "{:.1f}")
PY
