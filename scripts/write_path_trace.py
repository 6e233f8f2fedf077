#!/usr/bin/env python3
"""The source files one admin write runs, measured (issue 21): the dynamic count beside write_path_files.py's static one.

    python3 scripts/write_path_trace.py                 # builds with coverage in .build-cov, runs, prints
    python3 scripts/write_path_trace.py --skip-build    # reuses that build
    python3 scripts/write_path_trace.py --functions     # each file's functions too, with how often each ran
    python3 scripts/write_path_trace.py --no-log        # the transparency log off (as before PROTOCOL §7)
    python3 scripts/write_path_trace.py --no-preflight  # no probe of the live host before the write
    python3 scripts/write_path_trace.py --root /tmp/old # another tree (it needs WritePathProfileTests.swift)

How it measures: WritePathProfileTests (Tests/PinSetServerTests) starts a real server with the pre-flight and the
transparency log on, over a real SQLite file, probing a real `openssl s_server` host, and writes one host
PINSET_WRITE_PATH_PUTS times over HTTP. It runs twice under LLVM's coverage counters, with 1 and with 2 writes; a
function whose count grew between the two runs ran in the second write, a rotation of a live host (a PUT with
its probe, safety rules, transaction, signature, log append and publication, and its answer). A file is on the
path when one of those functions is in it. Start-up, the first write and anything both runs do equally cancel out.
It counts only Sources/, the code a server runs; the test client and the dependencies (GRDB, swift-log) are not
counted, and neither is libmicrohttpd's or OpenSSL's C.
"""

import argparse
import collections
import glob
import json
import os
import signal
import subprocess
import sys
import tempfile

HERE = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ROOT = HERE  # the package measured (--root)
TOOLS = "/opt/swift/usr/bin"  # the toolchain's llvm-profdata and llvm-cov read the profiles its compiler wrote
SUITE = "WritePathProfileTests"


def tool(name):
    path = os.path.join(TOOLS, name)
    return path if os.path.exists(path) else name


def run(args, env=None, input=None):
    result = subprocess.run(args, cwd=ROOT, env=env, input=input, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({result.returncode}):\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return result.stdout


def function_counts(scratch, puts, work, log, preflight):
    """Each Sources/ function's execution count in a run with `puts` writes: {(file, name): count}."""
    codecov = os.path.join(scratch, "debug", "codecov")
    for stale in glob.glob(os.path.join(codecov, "*.profraw")):
        os.remove(stale)
    env = dict(os.environ, PINSET_WRITE_PATH_PUTS=str(puts), PINSET_WRITE_PATH_LOG="1" if log else "0",
               PINSET_WRITE_PATH_PREFLIGHT="warn" if preflight else "off")
    run(["swift", "test", "--skip-build", "--enable-code-coverage", "--scratch-path", scratch, "--filter", SUITE], env)
    raw = glob.glob(os.path.join(codecov, "*.profraw"))
    if not raw:
        sys.exit(f"no coverage profile in {codecov}: was the build made with --enable-code-coverage?")
    merged = os.path.join(work, f"puts-{puts}.profdata")
    run([tool("llvm-profdata"), "merge", "-sparse", *raw, "-o", merged])
    binary = os.path.join(scratch, "debug", "pinsetPackageTests.xctest")
    exported = json.loads(run([tool("llvm-cov"), "export", "-format=text", "-skip-expansions", binary,
                               f"-instr-profile={merged}"]))
    sources = os.path.join(ROOT, "Sources") + os.sep
    counts = collections.Counter()
    for function in exported["data"][0]["functions"]:
        file = function["filenames"][0]
        if file.startswith(sources):
            counts[(os.path.relpath(file, ROOT), function["name"])] += function["count"]
    return counts


def main():
    global ROOT
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the listing quietly
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=HERE, help="the package to measure (default: this one)")
    parser.add_argument("--scratch", help="the coverage build's folder (default: ROOT/.build-cov)")
    parser.add_argument("--no-log", action="store_true", help="the transparency log off")
    parser.add_argument("--no-preflight", action="store_true", help="the pre-flight off")
    parser.add_argument("--skip-build", action="store_true", help="reuse the coverage build")
    parser.add_argument("--functions", action="store_true", help="list each file's functions that ran")
    options = parser.parse_args()
    ROOT = os.path.abspath(options.root)
    options.scratch = os.path.abspath(options.scratch or os.path.join(ROOT, ".build-cov"))
    if not options.skip_build:
        run(["swift", "build", "--build-tests", "--enable-code-coverage", "--scratch-path", options.scratch])
    with tempfile.TemporaryDirectory() as work:
        one, two = (function_counts(options.scratch, puts, work, not options.no_log, not options.no_preflight) for puts in (1, 2))
    ran = collections.defaultdict(list)  # file: [(name, how many more times it ran)]
    for (file, name), count in two.items():
        if count > one.get((file, name), 0):
            ran[file].append((name, count - one.get((file, name), 0)))
    modules = collections.defaultdict(list)
    for file in sorted(ran):
        modules[file.split(os.sep)[1]].append(file)
    print(f"{len(ran)} files in {len(modules)} modules ran in one write (PUT /admin/hosts/{{host}}, a rotation, "
          f"pre-flight {'off' if options.no_preflight else 'on'}, transparency log {'off' if options.no_log else 'on'}); {sum(map(len, ran.values()))} functions")
    for module, files in sorted(modules.items()):
        print(f"  {module}: {len(files)}")
        for file in files:
            print(f"    {file} ({len(ran[file])})")
            if options.functions:
                names = run(["swift", "demangle", "--simplified", "--compact"],
                             input="\n".join(name for name, _ in ran[file])).splitlines()
                for name, times in sorted(zip(names, (times for _, times in ran[file]))):
                    print(f"        {times:>4}x {name}")


if __name__ == "__main__":
    main()
