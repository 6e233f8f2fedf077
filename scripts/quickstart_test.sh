#!/usr/bin/env bash
# Builds and runs the Linux client quickstart of docs/SWIFT-CLIENT.md as a new user would: a package of its own that depends on
# this one by path, compiled from the two Swift files copied verbatim out of docs/SWIFT-CLIENT.md, against a real pin server
# (the built `pinset serve`) and a real TLS server (openssl s_server with a test CA). It must connect when the
# served key is pinned, be refused (exit 1) when it is not, and be refused when it holds no set.
# Every wait is bounded; everything it starts is stopped on exit.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PINSET=${PINSET:-$ROOT/.build/debug/pinset}
WORK=$(mktemp -d /tmp/pinset-quickstart.XXXXXX)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
fail() { echo "quickstart: FAIL: $*" >&2; exit 1; }

# The client package, beside a folder named pinset (a link to this checkout), as the README lays it out.
ln -s "$ROOT" "$WORK/pinset"
mkdir -p "$WORK/pinned-client/Sources/pinned-client" "$WORK/pinned-demo" "$WORK/data"
python3 - "$ROOT/docs/SWIFT-CLIENT.md" "$WORK/pinned-client" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for marker, target in [("Package.swift", "Package.swift"), ("main.swift", "Sources/pinned-client/main.swift")]:
    match = re.search(r"<!-- quickstart: " + re.escape(marker) + r" -->\n```swift\n(.*?)\n```", text, re.S)
    if not match:
        sys.exit(f"docs/SWIFT-CLIENT.md has no quickstart block for {marker}")
    open(f"{sys.argv[2]}/{target}", "w").write(match.group(1) + "\n")
PY

. "$ROOT/scripts/quickstart_fixture.sh"

# 2. Build the client package exactly as the README has it.
cd "$WORK/pinned-client"
openssl pkey -in "$WORK/data/signing-key.pem" -pubout -out pinset-signing-key.pub.pem
echo "quickstart: building the client package (depends on this checkout by path)"
if ! swift build >"$WORK/build.log" 2>&1; then cat "$WORK/build.log"; fail "the quickstart package does not build"; fi
if grep -E 'Sources/pinned-client/main.swift:[0-9]+:[0-9]+: warning' "$WORK/build.log"; then
  fail "the quickstart compiles with warnings"
fi
CLIENT=$(swift build --show-bin-path)/pinned-client

run_client() {  # stdout+stderr to $WORK/run.out; returns the exit status
  set +e
  PINSET_SERVER="$1" PINNED_PORT="$TLS_PORT" TRUST_ROOTS_PEM="$WORK/pinned-demo/ca.pem" timeout 60 "$CLIENT" >"$WORK/run.out" 2>&1
  local code=$?
  set -e
  echo "--- pinned-client ($2): exit $code"; sed 's/^/    /' "$WORK/run.out"
  return $code
}
passed=0
check() { if eval "$1"; then passed=$((passed + 1)); else fail "$2"; fi; }

# 3a. The served key is pinned: connects, exit 0.
run_client "$SERVER" "key pinned" && code=0 || code=$?
check '[ $code = 0 ] && grep -q "pin set: updated(host: \"localhost\", version: 1)" "$WORK/run.out" && grep -q "^connected:" "$WORK/run.out"' \
  "the client did not connect to a pinned host"

# 3b. A set without the served key: refused, exit 1, saying what was served and what is pinned.
status=$(put_pins "$(openssl rand 32 | base64)" "$(openssl rand 32 | base64)")
[ "$status" = 200 ] || fail "publishing the second set answered $status"
run_client "$SERVER" "key not pinned" && code=0 || code=$?
check '[ $code = 1 ] && grep -q "^refused: localhost:$TLS_PORT was refused by the pins of localhost (version 2): it served \[$LEAF" "$WORK/run.out"' \
  "a refused handshake did not exit 1 with the reason"

# 3c. No pin server and no cache: the configured host is refused, not silently unpinned.
rm -rf "$WORK/pinned-client/pinset-cache"
run_client "http://127.0.0.1:$(free_port)" "no set" && code=0 || code=$?
check '[ $code = 1 ] && grep -q "pin set: fetchFailed" "$WORK/run.out" && grep -q "holds no pin set for it yet" "$WORK/run.out"' \
  "a host without a set was not refused"

echo "quickstart: $passed passed, 0 failed"
