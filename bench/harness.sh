# bench/harness.sh: the server-launch harness every bench script sources (one copy; issue 36 item 4).
#   BENCH=monitor; source "$(dirname "${BASH_SOURCE[0]}")/harness.sh"
# Sets HERE (bench/), PINSET (.build/release/pinset unless given), SERVER_CPU and LOAD_CPU (taskset cores, 0 and 1
# unless given), TMP (a scratch folder, /tmp/pinset-$BENCH.*, removed at exit) and PIDS (every process started
# through start_server, or added by the script: TERM at exit, then KILL). Defines:
#   log MESSAGE...                  a line on stderr: [$BENCH hh:mm:ss] MESSAGE
#   free_port                       a free TCP port on 127.0.0.1
#   wait_http PORT [PATH] [TICKS]   waits until http://127.0.0.1:PORT$PATH answers, any status (PATH /healthz,
#                                   at most TICKS x 10 ms, default 3000 = 30 s); returns 1 (and logs) if not
#   start_server LOG COMMAND...     starts COMMAND on SERVER_CPU, output to LOG; its pid in LAST_PID and PIDS
#   serve_pinset LOG ARGS...        `pinset serve --bind 127.0.0.1 --port PORT ARGS` through start_server on a free
#                                   port; sets PORT and PID, waits for /healthz
#   stop [PID]                      stops PID (default $PID) and waits for it
#   metric PORT NAME                the value of the sample NAME on PORT's /metrics
# Every wait is bounded.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PINSET="${PINSET:-$HERE/../.build/release/pinset}"
SERVER_CPU="${SERVER_CPU:-0}"
LOAD_CPU="${LOAD_CPU:-1}"
log() { printf '[%s %s] %s\n' "$BENCH" "$(date +%H:%M:%S)" "$*" >&2; }

TMP="$(mktemp -d "/tmp/pinset-$BENCH.XXXXXX")"
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
    for _ in $(seq 1 "${3:-3000}"); do
        curl -s -o /dev/null "http://127.0.0.1:$1${2:-/healthz}" && return 0
        sleep 0.01
    done
    log "server on port $1 did not come up"
    return 1
}

start_server() {
    local logfile="$1"
    shift
    taskset -c "$SERVER_CPU" "$@" >"$logfile" 2>&1 &
    LAST_PID=$!
    PIDS+=("$LAST_PID")
}

serve_pinset() {
    local logfile="$1"
    shift
    PORT="$(free_port)"
    start_server "$logfile" "$PINSET" serve --bind 127.0.0.1 --port "$PORT" "$@"
    PID=$LAST_PID
    wait_http "$PORT"
}

stop() {
    local pid="${1:-$PID}"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}

metric() { curl -s "http://127.0.0.1:$1/metrics" | awk -v name="$2" '$1 == name { print $2 }'; }
