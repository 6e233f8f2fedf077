#!/usr/bin/env bash
# Builds and runs docs/ANDROID.md's quickstart as a new user would (issues 23, 39): PinnedClient.java copied verbatim
# out of docs/ANDROID.md into a consumer Maven project (clients/jvm/consumer) that resolves dev.pinset:pinset-jvm by
# its coordinates from the local repository `make jvm-publish-local` filled, built offline with Debian's Maven, then
# run against a real pin server (the built `pinset serve`) and a real TLS server (openssl s_server with a test CA). It
# must connect when the served key is pinned, be refused (exit 1) naming the served key when it is not, and be
# refused when it holds no set. The Kotlin sample (clients/jvm/samples/kotlin) is compiled with kotlinc against the
# same artifact and run too, and a Kotlin call without `?.` on a value that may be missing must not compile.
# Every wait is bounded; everything it starts is stopped on exit. Needs `make jvm-publish-local` first.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PINSET=${PINSET:-$ROOT/.build/debug/pinset}
REPO=$ROOT/.build-jvm/maven-repo
JAR=$REPO/dev/pinset/pinset-jvm/0.1.0/pinset-jvm-0.1.0.jar
WORK=$(mktemp -d /tmp/pinset-jvm-quickstart.XXXXXX)
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT
fail() { echo "quickstart-jvm: FAIL: $*" >&2; exit 1; }
[ -f "$JAR" ] || fail "$JAR is missing: run make jvm-publish-local"

mkdir -p "$WORK/pinned-jvm" "$WORK/pinned-demo" "$WORK/data" "$WORK/consumer/src/main/java"
python3 - "$ROOT/docs/ANDROID.md" "$WORK/consumer/src/main/java" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
match = re.search(r"<!-- quickstart-jvm: PinnedClient.java -->\n```java\n(.*?)\n```", text, re.S)
if not match:
    sys.exit("docs/ANDROID.md has no quickstart-jvm block for PinnedClient.java")
code = match.group(1)
# What Android API 24 lacks (UnitTest checks the library the same way).
forbidden = re.findall(r"java\.nio\.file|java\.time|java\.util\.Base64|transferTo\(|readString\(|readAllBytes\(|(?:List|Map|Set)\.of\(", code)
if forbidden:
    sys.exit("docs/ANDROID.md's PinnedClient.java uses what Android API 24 lacks: %s" % sorted(set(forbidden)))
open(f"{sys.argv[2]}/PinnedClient.java", "w").write(code + "\n")
PY
. "$ROOT/scripts/quickstart_fixture.sh"

passed=0
check() { if eval "$1"; then passed=$((passed + 1)); else fail "$2"; fi; }

# 1b. The published artifact: Java 8 class files (what every D8 takes), sources and javadoc jars, optional deps.
DIR=$(dirname "$JAR")
# (grep -c reads all its input: with pipefail, an early grep -q could fail the pipe with SIGPIPE.)
check '[ "$(javap -v -cp "$JAR" dev.pinset.PinSetUpdater | grep -c "major version: 52$")" = 1 ]' \
  "the published classes are not Java 8 (major version 52)"
check '[ "$(jar tf "$DIR/pinset-jvm-0.1.0-sources.jar" | grep -c "^dev/pinset/PinSetUpdater.java$")" = 1 ] && [ "$(jar tf "$DIR/pinset-jvm-0.1.0-javadoc.jar" | grep -c "^dev/pinset/PinSetUpdater.html$")" = 1 ]' \
  "the sources or javadoc jar lacks PinSetUpdater"
check '[ "$(jar tf "$DIR/pinset-jvm-0.1.0-javadoc.jar" | grep -c "dev/pinset/internal/")" = 0 ]' "the javadoc documents dev.pinset.internal"
check '[ "$(grep -c "<optional>true</optional>" "$DIR/pinset-jvm-0.1.0.pom")" = 3 ] && grep -q "<artifactId>okhttp</artifactId>" "$DIR/pinset-jvm-0.1.0.pom"' \
  "the POM does not declare OkHttp, BouncyCastle and JSR-305 as optional"

# 2. Build the client exactly as docs/ANDROID.md has it, in a consumer project that resolves the artifact by its
# coordinates (offline: Debian's Maven repository is the only remote, the published artifact is in the local one).
cd "$WORK/pinned-jvm"
openssl pkey -in "$WORK/data/signing-key.pem" -pubout -out pinset-signing-key.pub.pem
cp "$ROOT/clients/jvm/consumer/pom.xml" "$WORK/consumer/pom.xml"
mvn -B -q -f "$WORK/consumer/pom.xml" -s "$ROOT/clients/jvm/debian-settings.xml" -Dmaven.repo.local="$REPO" package \
  >"$WORK/mvn.out" 2>&1 || fail "the consumer project does not build: $(tail -30 "$WORK/mvn.out")"
OKHTTP=$(find "$REPO/com/squareup/okhttp3/okhttp" -name 'okhttp-*.jar' | head -1)
OKIO=$(find "$REPO/com/squareup/okio/okio" -name 'okio-*.jar' | head -1)
[ -n "$OKHTTP" ] && [ -n "$OKIO" ] || fail "Maven did not resolve OkHttp and Okio into $REPO"
CP=$JAR:$OKHTTP:$OKIO:$WORK/consumer/target/classes

run_client() {  # stdout+stderr to $WORK/run.out; returns the exit status
  set +e
  PINSET_SERVER="$1" PINNED_PORT="$TLS_PORT" TRUST_ROOTS_PEM="$WORK/pinned-demo/ca.pem" timeout 60 \
    java -cp "$CP" PinnedClient >"$WORK/run.out" 2>&1
  local code=$?
  set -e
  echo "--- PinnedClient ($2): exit $code"; sed 's/^/    /' "$WORK/run.out"
  return $code
}
# 3a. The served key is pinned: connects, exit 0.
run_client "$SERVER" "key pinned" && code=0 || code=$?
check '[ $code = 0 ] && grep -q "^pin set: localhost v1$" "$WORK/run.out" && grep -q "^connected: HTTP 200" "$WORK/run.out"' \
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
check '[ $code = 1 ] && grep -q "^pin set: none (FETCH_FAILED" "$WORK/run.out" && grep -q "^refused: setMissing (refused)" "$WORK/run.out"' \
  "a host without a set was not refused"

# 4. The Kotlin sample, against the same artifact and servers (the served key is pinned again first).
status=$(put_pins "$LEAF" "$(openssl rand 32 | base64)")
[ "$status" = 200 ] || fail "publishing the third set answered $status"
KOTLIN_STDLIB=/usr/share/java/kotlin-stdlib.jar
nice -n 10 kotlinc -Werror -Xjsr305=strict -cp "$JAR:$OKHTTP:$OKIO" "$ROOT/clients/jvm/samples/kotlin/PinnedClient.kt" \
  -d "$WORK/kotlin" >"$WORK/kotlinc.out" 2>&1 || fail "the Kotlin sample does not compile: $(grep -v Xverify "$WORK/kotlinc.out")"
set +e
PINSET_SERVER="$SERVER" PINNED_PORT="$TLS_PORT" TRUST_ROOTS_PEM="$WORK/pinned-demo/ca.pem" timeout 60 \
  java -cp "$WORK/kotlin:$KOTLIN_STDLIB:$JAR:$OKHTTP:$OKIO" PinnedClientKt >"$WORK/run.out" 2>&1
code=$?
set -e
echo "--- PinnedClient.kt: exit $code"; sed 's/^/    /' "$WORK/run.out"
check '[ $code = 0 ] && grep -q "^pin set: localhost v3$" "$WORK/run.out" && grep -q "^version of other: none" "$WORK/run.out" && grep -q "^connected: HTTP 200" "$WORK/run.out"' \
  "the Kotlin sample did not connect to the pinned host"

# 5. Kotlin refuses a call without `?.` on a set that may be missing (JSR-305 @Nullable seen by kotlinc).
set +e
nice -n 10 kotlinc -Werror -Xjsr305=strict -cp "$JAR" "$ROOT/clients/jvm/samples/kotlin-misuse/Misuse.kt" -d "$WORK/misuse" \
  >"$WORK/misuse.out" 2>&1
code=$?
set -e
check '[ $code != 0 ] && grep -q "only safe (?.) or non-null asserted (!!.) calls are allowed on a nullable receiver of type PinSet?" "$WORK/misuse.out"' \
  "kotlinc compiled store.pinSet(\"other\").version() without a safe call: $(cat "$WORK/misuse.out")"

echo "quickstart-jvm: $passed passed, 0 failed"
