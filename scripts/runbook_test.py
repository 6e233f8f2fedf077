#!/usr/bin/env python3
"""Runs the runbooks of README.md and docs/*.md exactly as written (issues 26, 36): `make runbooks`, part of
`make test`.

The pages read, in this order: README.md, then every docs/*.md by file name (`pages()`). The convention, which
every section of them with commands to paste follows:

  <!-- runbook: NAME -->                 the ```sh block right below is part of runbook NAME
  <!-- runbook: NAME skip: REASON -->    the block cannot run here (a real remote host, aws, rsync): it is
                                         listed as skipped, by name and reason, never silently
  <!-- runbook: NAME fixture: F -->      before NAME's first block, the runner sets up fixture F (below); the
                                         block itself says so in a `#` comment line the reader also sees
  <!-- runbook: NAME nginx -->           the ```nginx block below is a `server { … }` the reader puts in their
                                         nginx; at that point of the runbook the runner starts nginx with it
                                         (the server block verbatim, in a minimal nginx.conf of its own)

A runbook lives on one page: its blocks run in the order of that page. A NAME whose blocks are on two pages is an
error (exit status 1, naming both), and so is a marker not directly followed by its block.

The blocks of one NAME run in page order, verbatim, in ONE bash with `set -euo pipefail`, in a fresh
directory, with the built `pinset` first on PATH and no PINSET_* variables inherited. A block fails its
runbook when any command in it fails. Whatever the blocks start in the background (servers, s_server) is
stopped when the runbook ends: each runbook runs in its own process group, which is killed. Every runbook has
a time limit.

Fixtures (each stands for a step the reader did in an earlier section):
  server   `make run`'s server: `pinset serve --dev` on ./data, port 8080, with PINSET_TOKEN exported
  pins     the Quickstart's $CURRENT and $BACKUP (two fresh keys' pins)
  mirror   the nginx mirror of Admin workflow step 4 on 127.0.0.1:8081 (the `admin-workflow nginx` block,
           read from whichever page holds it: docs/OPERATIONS.md)
  shipped-key  app-trusted.pub, the public half of ./data/signing-key.pem (what the apps ship)
  published    a set for api.example.com on the running server (with `pins`' $CURRENT and $BACKUP)
A marker may name several fixtures, comma-separated, set up in that order.

Prints each runbook's result and ends with `runbooks: N passed, N failed, N skipped`; exit 1 if any failed
(--list prints each runbook with its page and its blocks instead).
Usage: runbook_test.py [--only NAME ...] [--keep] [--list] [--print NAME]
(--print writes runbook NAME's blocks, skipped ones included, to stdout, wherever NAME lives:
scripts/container_test.sh runs the Docker block of docs/CONFIGURATION.md that way, with podman standing in for docker.)
"""
import argparse
import base64
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKER = re.compile(r"^<!-- runbook: ([a-z0-9-]+)(?: (skip|fixture): (.*?)| (nginx))? -->\n```(?:sh|nginx)\n(.*?)\n```", re.S | re.M)
TIME_LIMIT = int(os.environ.get("RUNBOOK_TIME_LIMIT", "240"))


def pages():
    """The pages that hold runbooks, in the order they are read: README.md, then docs/*.md by name."""
    docs = os.path.join(ROOT, "docs")
    names = sorted(n for n in os.listdir(docs) if n.endswith(".md")) if os.path.isdir(docs) else []
    return [os.path.join(ROOT, "README.md")] + [os.path.join(docs, n) for n in names]


def blocks(page):
    """[(name, kind, argument, code)] of one page, in page order."""
    text = open(page, encoding="utf-8").read()
    found = [(m.group(1), m.group(2) or m.group(4), m.group(3), m.group(5)) for m in MARKER.finditer(text)]
    # A marker not followed by a ```sh block is a mistake in the page, not a silent skip.
    if len(re.findall(r"^<!-- runbook:", text, re.M)) != len(found):
        sys.exit(f"{os.path.relpath(page, ROOT)}: a <!-- runbook: ... --> marker is not directly followed by a ```sh "
                 "(or ```nginx) block")
    return found


def runbooks():
    """{name: (page, [(kind, argument, code)])}, pages in pages() order, each runbook's blocks in its page's order.
    A runbook whose blocks are on two pages is an error: it could not be read as one procedure."""
    found = {}
    for page in pages():
        where = os.path.relpath(page, ROOT)
        for name, kind, argument, code in blocks(page):
            if name in found and found[name][0] != where:
                sys.exit(f"runbook {name} has blocks on two pages, {found[name][0]} and {where}: "
                         "keep a runbook on one page")
            found.setdefault(name, (where, []))[1].append((kind, argument, code))
    return found


def port_free(port):
    # SO_REUSEADDR as servers set it: connections of a stopped server in TIME_WAIT do not hold the port.
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise RuntimeError(f"fixture: {what} did not happen within {seconds} s")


def fixture_server(directory, env, started):
    """`make run`: pinset serve --dev on ./data, port 8080; exports PINSET_TOKEN."""
    deadline = time.monotonic() + 10
    while not port_free(8080):
        if time.monotonic() > deadline:
            raise RuntimeError("fixture server: port 8080 is in use (stop `make run` while the runbooks run)")
        time.sleep(0.1)
    os.makedirs(os.path.join(directory, "data"), exist_ok=True)
    log = open(os.path.join(directory, "make-run.out"), "w")
    process = subprocess.Popen(
        ["pinset", "serve", "--db", "./data/pinset.sqlite", "--key", "./data/signing-key.pem", "--port", "8080",
         "--dev"], cwd=directory, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    started.append(process)
    path = os.path.join(directory, "make-run.out")
    wait_for(lambda: any(l.startswith("pst_") for l in open(path)), 20, "the server's admin token")
    env["PINSET_TOKEN"] = next(l.strip() for l in open(path) if l.startswith("pst_"))


def fixture_pins(directory, env, started):
    """The Quickstart's $CURRENT and $BACKUP: two fresh P-256 keys' pins."""
    for name in ("CURRENT", "BACKUP"):
        der = subprocess.run(
            "openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 | openssl pkey -pubout -outform DER",
            shell=True, check=True, capture_output=True).stdout
        env[name] = base64.b64encode(hashlib.sha256(der).digest()).decode()


def fixture_mirror(directory, env, started):
    """The nginx mirror of Admin workflow step 4, started as its page (docs/OPERATIONS.md) writes it."""
    page, parts = runbooks().get("admin-workflow", (None, []))
    server_block = next((code for kind, _, code in parts if kind == "nginx"), None)
    if server_block is None:
        raise RuntimeError("fixture mirror: no page has the admin-workflow nginx block")
    process = subprocess.Popen(["bash", "-c", nginx_start(directory, server_block) + "\nwait"], cwd=directory,
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    started.append(process)
    wait_for(lambda: not port_free(8081), 10, "nginx on 127.0.0.1:8081")


def fixture_shipped_key(directory, env, started):
    """app-trusted.pub: the public half of ./data/signing-key.pem, as shipped in the apps before any drill."""
    subprocess.run(["openssl", "pkey", "-in", "data/signing-key.pem", "-pubout", "-out", "app-trusted.pub"],
                   cwd=directory, check=True, capture_output=True)


def fixture_published(directory, env, started):
    """A set for api.example.com on the running server, as the Quickstart publishes it."""
    fixture_pins(directory, env, started)
    subprocess.run(["pinset", "set", "api.example.com", "--pin", env["CURRENT"], "--backup", env["BACKUP"]],
                   cwd=directory, env=env, check=True, capture_output=True)


FIXTURES = {"server": fixture_server, "pins": fixture_pins, "mirror": fixture_mirror,
            "shipped-key": fixture_shipped_key, "published": fixture_published}


def nginx_start(directory, server_block):
    """Bash that starts nginx (Debian's nginx-light) with `server_block` verbatim and waits for its port."""
    port = re.search(r"listen\s+127\.0\.0\.1:(\d+);", server_block)
    if not port:
        raise RuntimeError("an nginx block must listen on 127.0.0.1:PORT")
    conf = os.path.join(directory, ".nginx.conf")
    open(conf, "w").write(
        f"pid {directory}/.nginx.pid;\nerror_log {directory}/.nginx.error.log;\nevents {{}}\n"
        f"http {{\n  access_log off;\n  include /etc/nginx/mime.types;\n  client_body_temp_path {directory}/.nginx-tmp;\n"
        f"{server_block}\n}}\n")
    return (f"/usr/sbin/nginx -c {conf} -g 'daemon off;' &\n"
            f"for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/{port.group(1)}) 2>/dev/null && break; sleep 0.1; done")


def stop(process):
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    # The group's other members (servers a block started with &) may outlive its leader: wait for them too.
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


# Absolute paths the README's blocks write to (an nginx root must be absolute): emptied before each runbook.
SHARED_PATHS = ["/tmp/pinset-mirror", "/tmp/rehearsal"]


def run(name, parts, binary, keep):
    """Runs one runbook; returns (ok, detail)."""
    for path in SHARED_PATHS:
        shutil.rmtree(path, ignore_errors=True)
    directory = tempfile.mkdtemp(prefix=f"pinset-runbook-{name}-")
    bindir = os.path.join(directory, ".bin")
    os.makedirs(bindir)
    os.symlink(binary, os.path.join(bindir, "pinset"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PINSET_")}
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    started = []
    script = ["set -euo pipefail"]
    try:
        for index, (kind, argument, code) in enumerate(parts, 1):
            if kind == "fixture":
                for fixture in argument.split(","):
                    FIXTURES[fixture.strip()](directory, env, started)
            if kind == "skip":
                script.append(f"echo '### block {index}: skipped ({argument})'")
                continue
            if kind == "nginx":
                script.append(f"echo '### block {index}: nginx with this server block'")
                script.append(nginx_start(directory, code))
                continue
            script.append(f"echo '### block {index}'")
            script.append(code)
        script.append("echo '### runbook done'")
        path = os.path.join(directory, ".runbook.sh")
        open(path, "w").write("\n".join(script) + "\n")
        output_path = os.path.join(directory, ".runbook.out")
        with open(output_path, "w") as output:
            shell = subprocess.Popen(["bash", path], cwd=directory, env=env, stdin=subprocess.DEVNULL,
                                     stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
            started.append(shell)
            try:
                status = shell.wait(timeout=TIME_LIMIT)
            except subprocess.TimeoutExpired:
                status = None
        text = open(output_path, encoding="utf-8", errors="replace").read()
        if status == 0 and text.rstrip().endswith("### runbook done"):
            return True, text
        reason = "timed out after %d s" % TIME_LIMIT if status is None else f"exit {status}"
        return False, f"{reason}; output (last 60 lines):\n" + "\n".join(text.splitlines()[-60:])
    except Exception as error:  # a fixture that could not start
        return False, str(error)
    finally:
        for process in reversed(started):
            stop(process)
        if keep:
            print(f"  kept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--keep", action="store_true", help="keep each runbook's directory")
    parser.add_argument("--list", action="store_true", help="list the runbooks and their blocks, run nothing")
    parser.add_argument("--print", metavar="NAME", help="print runbook NAME's blocks (skipped ones too), run nothing")
    args = parser.parse_args()
    found = runbooks()
    if args.print:
        if args.print not in found:
            sys.exit(f"no page (README.md, docs/*.md) has a runbook named {args.print}")
        print("\n".join(code for _, _, code in found[args.print][1]))
        return
    binary = os.path.abspath(os.environ.get("PINSET", os.path.join(ROOT, ".build/debug/pinset")))
    if not args.list and not os.access(binary, os.X_OK):
        sys.exit(f"no pinset binary at {binary}: run `swift build` first (or set PINSET)")
    if args.only is not None:
        unknown = [name for name in args.only if name not in found]
        if unknown:
            sys.exit(f"no page has a runbook named {', '.join(unknown)}")
    passed = failed = skipped = 0
    for name, (page, parts) in found.items():
        if args.only is not None and name not in args.only:
            continue
        if args.list:
            print(f"{name} ({page}): " + ", ".join(k or "run" for k, _, _ in parts))
            continue
        for index, (kind, argument, _) in enumerate(parts, 1):
            if kind == "skip":
                skipped += 1
                print(f"runbook {name} block {index}: skipped: {argument}")
        if all(kind == "skip" for kind, _, _ in parts):
            continue
        started = time.monotonic()
        ok, detail = run(name, parts, binary, args.keep)
        seconds = time.monotonic() - started
        if ok:
            passed += 1
            print(f"runbook {name}: passed ({seconds:.1f} s)")
        else:
            failed += 1
            print(f"runbook {name}: FAILED ({seconds:.1f} s): {detail}")
        sys.stdout.flush()
    if not args.list:
        print(f"runbooks: {passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
