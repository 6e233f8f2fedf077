#!/usr/bin/env python3
"""Runs the hardening scripts (issue 6) and prints a summary table.

    PINSET=path/to/pinset run_all.py [--soak]

Fast (make test-hardening, about 4 minutes): 5 kill -9 cycles, 120 s of fuzzing, ≥1,000 fuzz cases, 8 s load runs,
20,000 parser-fuzz inputs.
Soak (make soak): 20 kill -9 cycles, ≥5,000 fuzz cases with every schemathesis phase, 60 s load runs, 1,000,000
mutated parser inputs plus 1,000,000 libFuzzer executions (PINSET_LIBFUZZER, built by `make fuzz-build`), and
10 minutes of steady load with the server's RSS and descriptors printed every 30 s (resources.py).
The hostile-network test (issue 6.4) is a Swift test (EndToEndTests/HostileNetworkTests), run here through
`swift test --skip-build --filter HostileNetworkTests` (the tests must be built).
Exits 1 if any script failed.
"""

import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# Issue 6.4 is a Swift test (a loopback proxy between the real updater and the real server).
HOSTILE_NETWORK = ["swift", "test", "--skip-build", "--filter", "HostileNetworkTests"]

FAST = [
    ("crash durability", ["crash_durability.py", "--cycles", "5"]),
    ("crash with log", ["crash_log.py", "--cycles", "3"]),
    ("auth and secrets", ["auth_secrets.py"]),
    ("hostile clients", ["hostile_clients.py", "--duration", "8"]),
    ("API fuzzing", ["fuzz_api.py", "--examples", "30", "--max-time", "120", "--min-cases", "1000"]),
    ("hostile network", HOSTILE_NETWORK),
    ("parser fuzzing", ["parser_fuzz.py", "--runs", "20000"]),
]
SOAK = [
    ("crash durability", ["crash_durability.py", "--cycles", "20", "--clients", "6"]),
    ("crash with log", ["crash_log.py", "--cycles", "10", "--clients", "6"]),
    ("auth and secrets", ["auth_secrets.py"]),
    ("hostile clients", ["hostile_clients.py", "--duration", "60", "--idle", "2000", "--slowloris", "200"]),
    ("API fuzzing", ["fuzz_api.py", "--examples", "300", "--max-time", "1200", "--min-cases", "5000",
                     "--phases", "examples,coverage,fuzzing,stateful"]),
    ("hostile network", HOSTILE_NETWORK),
    ("resources", ["resources.py", "--duration", "600", "--every", "30"]),
    ("parser fuzzing", ["parser_fuzz.py", "--runs", "1000000", "--libfuzzer", os.environ.get("PINSET_LIBFUZZER", ""),
                        "--libfuzzer-runs", "1000000"]),
]


def main() -> int:
    soak = "--soak" in sys.argv
    rows = []
    for name, cmd in (SOAK if soak else FAST):
        if "--libfuzzer" in cmd and not cmd[cmd.index("--libfuzzer") + 1]:
            cmd = cmd[:cmd.index("--libfuzzer")]  # no libFuzzer build: the mutation engine alone
        t0 = time.time()
        if cmd[0] == "swift":
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=os.path.join(HERE, "..", ".."))
            m = re.search(r"hostile network: (\d+)/(\d+) hostile answers refused", r.stdout)
            if m:
                r.stdout += "FIGURE hostile_network " + json.dumps({"refused": int(m.group(1)), "tried": int(m.group(2))}) + "\n"
        else:
            r = subprocess.run([sys.executable, os.path.join(HERE, cmd[0]), *cmd[1:]], capture_output=True, text=True)
        sys.stdout.write(r.stdout)
        sys.stderr.write(r.stderr)
        fig = {}
        for line in r.stdout.splitlines():
            if line.startswith("FIGURE "):
                fig = json.loads(line.split(" ", 2)[2])
        rows.append((name, "PASS" if r.returncode == 0 else "FAIL", time.time() - t0, fig))
    get = lambda n, k: next((f.get(k) for name, _, _, f in rows if name == n), None)  # noqa: E731
    print("\n%-18s %-5s %7s  %s" % ("test", "result", "seconds", "figures"))
    for name, result, secs, fig in rows:
        print("%-18s %-6s %7.0f  %s" % (name, result, secs, ", ".join(f"{k}={v}" for k, v in fig.items())))
    bad_inputs = sum(get(n, k) or 0 for n, k in (("API fuzzing", "cases"), ("hostile clients", "garbage"),
                                                  ("auth and secrets", "requests"), ("parser fuzzing", "executions")))
    print(f"\nload held: {get('hostile clients', 'loaded_rps')} req/s under abuse "
          f"({get('hostile clients', 'ratio')} of {get('hostile clients', 'baseline_rps')} unloaded); "
          f"faults survived: {get('crash durability', 'cycles')} kill -9, "
          f"{get('hostile network', 'refused')}/{get('hostile network', 'tried')} hostile network answers refused; "
          f"bad inputs tried: {bad_inputs}; "
          f"writes lost: {get('crash durability', 'writes_lost')}")
    return 0 if all(r[1] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
