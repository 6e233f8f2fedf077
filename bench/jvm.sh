#!/usr/bin/env bash
# B8j/B9j (issue 23) and B12j (issue 24): the JVM client's document verification, warm pin evaluation and a
# document's tlog-proof verification, as ratios against a raw JDK Ed25519 verify and one SHA-256 measured in the same
# run (the shapes of B8/B9/B12 in bench/client.sh). Builds the library with jvm.mk (Debian's JDK), then prints a
# markdown table fragment. Usage: bash bench/jvm.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
make -s jvm-build >&2
OUT=.build-jvm/bench-classes
rm -rf "$OUT" && mkdir -p "$OUT"
javac --release 17 -encoding UTF-8 -cp .build-jvm/classes -d "$OUT" clients/jvm/src/bench/java/dev/pinset/JvmBench.java
java -cp .build-jvm/classes:"$OUT" dev.pinset.JvmBench Tests/Vectors "${1:-15}"
