#!/usr/bin/env python3
"""Runs the hardening scripts (issue 6) and prints a summary table.

    PINSET=path/to/pinset run_all.py [--soak]

Fast (make test-hardening, about 4 minutes): 5 kill -9 cycles, 120 s of fuzzing, ≥1,000 fuzz cases, 8 s load runs.
Soak (make soak): 20 kill -9 cycles, ≥5,000 fuzz cases with every schemathesis phase, 60 s load runs.
Exits 1 if any script failed.
"""

import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

FAST = [
    ("crash durability", ["crash_durability.py", "--cycles", "5"]),
    ("auth and secrets", ["auth_secrets.py"]),
    ("hostile clients", ["hostile_clients.py", "--duration", "8"]),
    ("API fuzzing", ["fuzz_api.py", "--examples", "30", "--max-time", "120", "--min-cases", "1000"]),
]
SOAK = [
    ("crash durability", ["crash_durability.py", "--cycles", "20", "--clients", "6"]),
    ("auth and secrets", ["auth_secrets.py"]),
    ("hostile clients", ["hostile_clients.py", "--duration", "60", "--idle", "2000", "--slowloris", "200"]),
    ("API fuzzing", ["fuzz_api.py", "--examples", "300", "--max-time", "1200", "--min-cases", "5000",
                     "--phases", "examples,coverage,fuzzing,stateful"]),
]


def main() -> int:
    soak = "--soak" in sys.argv
    rows = []
    for name, cmd in (SOAK if soak else FAST):
        t0 = time.time()
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
                                                  ("auth and secrets", "requests")))
    print(f"\nload held: {get('hostile clients', 'loaded_rps')} req/s under abuse "
          f"({get('hostile clients', 'ratio')} of {get('hostile clients', 'baseline_rps')} unloaded); "
          f"faults survived: {get('crash durability', 'cycles')} kill -9; "
          f"bad inputs tried: {bad_inputs}; "
          f"writes lost: {get('crash durability', 'writes_lost')}")
    return 0 if all(r[1] == "PASS" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
