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

. "$ROOT/scripts/quickstart_fixture.sh"

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
