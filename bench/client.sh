#!/usr/bin/env bash
# Client micro-benchmarks B8 and B9 (issue 5): builds PinSetBench in release and prints a markdown table fragment.
# Usage: bash bench/client.sh [rounds] [iteration scale]
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product PinSetBench >&2
"$(swift build -c release --show-bin-path)/PinSetBench" "$@"
