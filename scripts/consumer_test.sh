#!/usr/bin/env bash
# Issue 38 item 7: an app that depends on this package for PinSetClient, with the default traits off exactly as
# README.md shows, fetches swift-crypto, swift-certificates and swift-asn1 and nothing else. A consumer package in a
# temporary folder depends on this checkout by path; `swift package resolve` fetches what it needs; the checkouts
# are compared with the expected list. Then the same with the default traits, which must still fetch everything.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/pinset-consumer.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "consumer: FAIL: $*" >&2; exit 1; }

# The README's line, with the URL replaced by this checkout's path.
line=$(grep -o '\.package(url: "https://github.com/<owner>/pinset", from: "1.0.0", traits: \[\])' "$ROOT/README.md" | head -1)
[ -n "$line" ] || fail "README.md does not show the .package(...) line with traits: []"

consumer() {  # $1 folder, $2 the .package(...) line
  mkdir -p "$1/Sources/App"
  cat >"$1/Package.swift" <<SWIFT
// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [$2],
    targets: [.target(name: "App", dependencies: [.product(name: "PinSetClient", package: "pinset")])]
)
SWIFT
  echo 'import PinSetClient' >"$1/Sources/App/App.swift"
  (cd "$1" && swift package resolve >"$1/resolve.log" 2>&1) || { cat "$1/resolve.log"; fail "swift package resolve failed in $1"; }
  ls "$1/.build/checkouts" | sort | tr '\n' ' '
}

ln -s "$ROOT" "$WORK/pinset"
light=$(consumer "$WORK/app" "${line/url: \"https:\/\/github.com\/<owner>\/pinset\", from: \"1.0.0\"/path: \"../pinset\"}")
echo "consumer: traits [] fetched: $light"
[ "$light" = "swift-asn1 swift-certificates swift-crypto " ] || fail "an app using PinSetClient fetched more than swift-crypto, swift-certificates and swift-asn1: $light"

full=$(consumer "$WORK/full" '.package(path: "../pinset")')
echo "consumer: default traits fetched: $full"
for package in GRDB.swift swift-nio swift-nio-ssl swift-log swift-argument-parser; do
  case " $full" in *" $package "*) ;; *) fail "the default traits did not fetch $package" ;; esac
done
echo "consumer: 2 passed, 0 failed"
