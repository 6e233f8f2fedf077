#!/usr/bin/env python3
"""Parser fuzzing (issue 6.6): the document decoder and verifier, the admin JSON bodies, certificates, reports
and host names, through Sources/PinSetFuzzing/FuzzHarness.swift.

    PINSET=path/to/pinset parser_fuzz.py [--runs N] [--libfuzzer BINARY --libfuzzer-runs N]

1. The seeded mutation engine (PinSetFuzz, next to the pinset binary) replays every saved regression input
   (Tests/EndToEndTests/FuzzRegressions) and runs N mutated inputs.
2. With --libfuzzer, the coverage-guided libFuzzer build (`make fuzz-build`) runs N more from the seed corpus.
Findings are written to .build/fuzz-findings; copy a fixed one into FuzzRegressions as a regression test.
Passes when no input crashed or broke a property.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

from common import figure

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REGRESSIONS = os.path.join(ROOT, "Tests", "EndToEndTests", "FuzzRegressions")
FINDINGS = os.path.join(ROOT, ".build", "fuzz-findings")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=20261121)
    parser.add_argument("--libfuzzer", help="the libFuzzer build of PinSetFuzz")
    parser.add_argument("--libfuzzer-runs", type=int, default=1000000)
    args = parser.parse_args()
    engine = os.path.join(os.path.dirname(os.environ["PINSET"]), "PinSetFuzz")
    os.makedirs(FINDINGS, exist_ok=True)
    failures = []

    r = subprocess.run([engine, "--runs", str(args.runs), "--seed", str(args.seed), "--regressions", REGRESSIONS,
                        "--findings", FINDINGS], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr[-4000:])
    m = re.search(r'FIGURE fuzz (\{.*\})', r.stdout)
    import json
    engine_fig = json.loads(m.group(1)) if m else {"executions": 0, "failures": 1}
    if r.returncode != 0:
        failures.append(f"mutation engine exit {r.returncode} (crash or finding; see {FINDINGS})")
    executions = engine_fig["executions"]

    lib_execs = 0
    if args.libfuzzer:
        with tempfile.TemporaryDirectory() as corpus:
            subprocess.run([engine, "--write-seeds", corpus], check=True, capture_output=True)
            for name in os.listdir(REGRESSIONS):
                if name != "README.md":
                    with open(os.path.join(REGRESSIONS, name), "rb") as src, \
                            open(os.path.join(corpus, "regression-" + name), "wb") as dst:
                        dst.write(src.read())
            r = subprocess.run([args.libfuzzer, f"-runs={args.libfuzzer_runs}", "-max_len=70000",
                                f"-artifact_prefix={FINDINGS}/", "-print_final_stats=1", corpus],
                               capture_output=True, text=True)
            tail = r.stderr[-3000:]
            sys.stderr.write(tail)
            m = re.search(r"stat::number_of_executed_units:\s*(\d+)", r.stderr)
            lib_execs = int(m.group(1)) if m else 0
            if r.returncode != 0:
                failures.append(f"libFuzzer exit {r.returncode} (crash or finding saved under {FINDINGS})")
            cov = re.findall(r"cov: (\d+)", r.stderr)
            print(f"libFuzzer: {lib_execs} executions, coverage {cov[-1] if cov else '?'} edges, exit {r.returncode}")
        executions += lib_execs

    for f in failures:
        print("FAIL", f, file=sys.stderr)
    print(f"parser fuzzing: {executions} executions ({engine_fig['executions']} mutation engine, "
          f"{lib_execs} libFuzzer), failures {len(failures)}")
    figure("parser_fuzz", executions=executions, engine=engine_fig["executions"], libfuzzer=lib_execs,
           failures=len(failures))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
