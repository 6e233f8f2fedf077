#!/usr/bin/env bash
# Builds and runs the README's JVM quickstart as a new user would (issue 23): PinnedClient.java copied verbatim out
# of README.md, compiled with javac against .build-jvm/pinset-jvm.jar and Debian's OkHttp, run against a real pin
# server (the built `pinset serve`) and a real TLS server (openssl s_server with a test CA). It must connect when the
# served key is pinned, be refused (exit 1) naming the served key when it is not, and be refused when it holds no set.
# Every wait is bounded; everything it starts is stopped on exit. Needs `make jvm-build` first (quickstart-jvm does it).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PINSET=${PINSET:-$ROOT/.build/debug/pinset}
JAR=$ROOT/.build-jvm/pinset-jvm.jar
CP=$JAR:/usr/share/java/okhttp.jar:/usr/share/java/okio.jar
WORK=$(mktemp -d /tmp/pinset-jvm-quickstart.XXXXXX)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
fail() { echo "quickstart-jvm: FAIL: $*" >&2; exit 1; }
[ -f "$JAR" ] || fail "$JAR is missing: run make jvm-build"

mkdir -p "$WORK/pinned-jvm" "$WORK/pinned-demo" "$WORK/data"
python3 - "$ROOT/README.md" "$WORK/pinned-jvm" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
match = re.search(r"<!-- quickstart-jvm: PinnedClient.java -->\n```java\n(.*?)\n```", text, re.S)
if not match:
    sys.exit("README.md has no quickstart-jvm block for PinnedClient.java")
open(f"{sys.argv[2]}/PinnedClient.java", "w").write(match.group(1) + "\n")
PY

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# 1. The pin server (--dev: key created, admin token printed as the banner's last line).
"$PINSET" serve --dev --db "$WORK/data/pinset.sqlite" --key "$WORK/data/signing-key.pem" --port 0 --preflight off \
    >"$WORK/serve.out" 2>"$WORK/serve.err" &
PIDS+=($!)
for _ in $(seq 100); do grep -q '^pst_' "$WORK/serve.out" 2>/dev/null && break; sleep 0.1; done
SERVER=$(grep -o 'http://[0-9.:]*' "$WORK/serve.out" | head -1)
TOKEN=$(grep '^pst_' "$WORK/serve.out" | head -1)
[ -n "$SERVER" ] && [ -n "$TOKEN" ] || fail "pinset serve printed no URL or token: $(cat "$WORK/serve.out" "$WORK/serve.err")"

# The README's test CA and localhost certificate, served by openssl s_server.
cd "$WORK/pinned-demo"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
  -subj '/CN=demo CA' -days 30 -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key -out leaf.csr -subj '/CN=localhost' 2>/dev/null
printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n' > leaf.ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 7 -extfile leaf.ext -out leaf.pem 2>/dev/null
TLS_PORT=$(free_port)
openssl s_server -accept "127.0.0.1:$TLS_PORT" -cert leaf.pem -key leaf.key -quiet -www >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$TLS_PORT") 2>/dev/null && break; sleep 0.1; done

LEAF=$(openssl x509 -in leaf.pem -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64)
put_pins() {
  curl -sS -o /dev/null -w '%{http_code}' -X PUT "$SERVER/admin/hosts/localhost" -H "Authorization: Bearer $TOKEN" \
    -H 'Content-Type: application/json' \
    -d "{\"pins\": [{\"sha256\": \"$1\", \"role\": \"current\"}, {\"sha256\": \"$2\", \"role\": \"backup\"}]}"
}
status=$(put_pins "$LEAF" "$(openssl rand 32 | base64)")
[ "$status" = 201 ] || fail "publishing the pins answered $status"

# 2. Compile the client exactly as the README has it.
cd "$WORK/pinned-jvm"
openssl pkey -in "$WORK/data/signing-key.pem" -pubout -out pinset-signing-key.pub.pem
javac -Xlint:all,-path -Werror -cp "$CP" PinnedClient.java || fail "the README's PinnedClient.java does not compile"

run_client() {  # stdout+stderr to $WORK/run.out; returns the exit status
  set +e
  PINSET_SERVER="$1" PINNED_PORT="$TLS_PORT" TRUST_ROOTS_PEM="$WORK/pinned-demo/ca.pem" timeout 60 \
    java -cp "$CP:." PinnedClient >"$WORK/run.out" 2>&1
  local code=$?
  set -e
  echo "--- PinnedClient ($2): exit $code"; sed 's/^/    /' "$WORK/run.out"
  return $code
}
passed=0
check() { if eval "$1"; then passed=$((passed + 1)); else fail "$2"; fi; }

# 3a. The served key is pinned: connects, exit 0.
run_client "$SERVER" "key pinned" && code=0 || code=$?
check '[ $code = 0 ] && grep -q "^pin set: UPDATED localhost v1" "$WORK/run.out" && grep -q "^connected: HTTP 200" "$WORK/run.out"' \
  "the client did not connect to a pinned host"

# 3b. A set without the served key: refused, exit 1, naming what was served and what is pinned.
status=$(put_pins "$(openssl rand 32 | base64)" "$(openssl rand 32 | base64)")
[ "$status" = 200 ] || fail "publishing the second set answered $status"
run_client "$SERVER" "key not pinned" && code=0 || code=$?
check '[ $code = 1 ] && grep -qF "refused: pinMismatch (refused): pin failure for localhost (set of localhost, version 2): served [$LEAF]" "$WORK/run.out"' \
  "a refused handshake did not exit 1 with the reason"

# 3c. No pin server and no cache: the configured host is refused, not silently unpinned.
rm -rf "$WORK/pinned-jvm/pinset-cache"
run_client "http://127.0.0.1:$(free_port)" "no set" && code=0 || code=$?
check '[ $code = 1 ] && grep -q "^pin set: FETCH_FAILED" "$WORK/run.out" && grep -q "^refused: setMissing (refused)" "$WORK/run.out"' \
  "a host without a set was not refused"

echo "quickstart-jvm: $passed passed, 0 failed"
