#!/usr/bin/env python3
"""Issue 41's operator faults, played against a real `pinset` binary (any version, old or new).

    python3 scripts/fault_drill.py BINARY [--newer NEWER] [--only 1,2a,...] [--markdown]

Each fault runs a real `pinset serve --dev` on 127.0.0.1 (port 0, so an ephemeral port) over a real SQLite file in a
temporary folder, and prints one line: what happened, how many acknowledged writes were lost, and whether anything
corrupt was served. The verdict is `ok` when the server noticed the fault and lost and served nothing wrong, `BAD`
otherwise. Nothing here needs the test suite, so it runs against a binary built from any commit (issue 41 was filed
against c34d719): `make fault-drill OLD=... NEW=...` prints both columns.

Faults (issue 41's list): 1 bytes flipped in a stored document's overflow page; 2a `-shm` and 2b `-wal` deleted under
the server; 3a the database replaced by `mv` and 3b by `cp` (a careless restore); 4 the clock a year ahead
(Debian's `faketime`); 5 a binary older than its database (with --newer, a database that NEWER made; without, a
migration from the future inserted by hand); 6 a full disk (a 3 MB tmpfs: needs root); 7 too few file descriptors
(`ulimit -n`); 8 an immutable database file (`chattr +i`: needs root and ext2/3/4 under the temporary folder).

Every wait is bounded; every server is stopped and every temporary folder, mount and attribute undone at the end.
Exit status: 0 when every fault played is `ok`, 1 otherwise, 2 on a usage error.
"""

import argparse
import base64
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

BANNER = "pinset is serving on "
HOSTS = [f"h{i}.drill.test" for i in range(20)]


def pin():
    return base64.b64encode(secrets.token_bytes(32)).decode()


def body(pins=2):
    """A pin set: one current pin and `pins - 1` backups (64 make a document longer than a 4 KB page)."""
    return json.dumps({"pins": [{"sha256": pin()}] + [{"sha256": pin(), "role": "backup"} for _ in range(pins - 1)]})


def request(url, method, path, token=None, payload=None, timeout=10):
    """(status, body bytes) of one HTTP request; status 0 when there was no answer."""
    match = re.match(r"http://([^:/]+):(\d+)", url)
    connection = http.client.HTTPConnection(match.group(1), int(match.group(2)), timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        connection.request(method, path, body=payload, headers=headers)
        answer = connection.getresponse()
        return answer.status, answer.read()
    except (OSError, http.client.HTTPException):
        return 0, b""
    finally:
        connection.close()


def problem_type(data):
    try:
        return json.loads(data).get("type", "").rsplit(":", 1)[-1] or "?"
    except ValueError:
        return "?"


def payload_of(document):
    """The decoded JWS payload of a served document, `None` when it is not a well-formed JWS of UTF-8 JSON."""
    try:
        text = json.loads(document.decode("utf-8"))["payload"]
        return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("utf-8"))
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return None


class Server:
    """One `pinset serve` process (in a session of its own, so a wrapper such as `faketime` and its child stop
    together)."""

    def __init__(self, drill, extra=(), prefix=(), env=None):
        self.drill = drill
        base = os.path.join(drill.logs, f"serve-{len(drill.servers)}")
        self.log = open(base + ".log", "w+")
        self.out = open(base + ".out", "w+")
        command = list(prefix) + [drill.binary, "serve", "--dev", "--db", drill.db, "--key", drill.key, "--port", "0"]
        command += ["--preflight", "off", "--monitor-interval", "0"] if drill.has_monitor else ["--preflight", "off"]
        self.process = subprocess.Popen(
            command + list(extra), stdout=self.out, stderr=self.log, start_new_session=True,
            env={**os.environ, **(env or {})})
        drill.servers.append(self)
        self.url = None
        deadline = time.time() + 60
        while time.time() < deadline and self.url is None:
            self.out.seek(0)
            for line in self.out.read().splitlines():
                if line.startswith(BANNER):
                    self.url = line[len(BANNER):].strip()
            if self.url is None and self.process.poll() is not None:
                break
            time.sleep(0.05)

    def stderr(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def exit_status(self, seconds=30):
        try:
            return self.process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, sig=signal.SIGTERM):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                pass
            if self.exit_status(30) is None:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.exit_status(10)


class Drill:
    """A temporary folder with a database, a key and a token; the servers started on it."""

    def __init__(self, binary, root, name, directory=None):
        self.binary = binary
        self.dir = directory or tempfile.mkdtemp(prefix=f"{name}.", dir=root)
        self.db = os.path.join(self.dir, "db.sqlite")
        self.key = os.path.join(self.dir, "key.pem")
        self.logs = self.dir  # the servers' output (fault 6 keeps it off its small tmpfs)
        self.servers = []
        self.mounts, self.immutable = [], []
        self.has_monitor = "--monitor-interval" in cli(binary, "serve", "--help").stdout
        self.token = None

    def create_token(self, binary=None, name="ops"):
        result = cli(binary or self.binary, "token", "create", "--db", self.db, "--name", name)
        token = result.stdout.strip().splitlines()[-1] if result.returncode == 0 and result.stdout.strip() else None
        return result, token

    def setup(self, binary=None):
        result, self.token = self.create_token(binary)
        if self.token is None:
            raise RuntimeError(f"token create failed: {result.stderr.strip()}")
        return self

    def start(self, *args, **kwargs):
        return Server(self, *args, **kwargs)

    def write(self, url, hosts, pins=2):
        """PUTs each host; returns {host: version} of the acknowledged ones and the last refusal (status, type)."""
        acknowledged, refused = {}, None
        for host in hosts:
            status, data = request(url, "PUT", f"/admin/hosts/{host}", self.token, body(pins))
            if status in (200, 201):
                version = json.loads(data).get("version", 1)
                acknowledged[host] = version
            else:
                refused = (status, problem_type(data))
        return acknowledged, refused

    def check(self, url, acknowledged):
        """(lost, corrupt): acknowledged hosts not served at their version or later; documents served that are not
        well-formed."""
        lost, corrupt = [], []
        for host, version in acknowledged.items():
            status, data = request(url, "GET", f"/pins/{host}")
            if status != 200:
                lost.append(host)
                continue
            payload = payload_of(data)
            if payload is None:
                corrupt.append(host)
            elif payload.get("version", 0) < version:
                lost.append(host)
        return lost, corrupt

    def stop_all(self):
        for server in self.servers:
            server.stop()
            server.log.close()
            server.out.close()


def cli(binary, *args, timeout=60):
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)


def sql(db, statement):
    connection = sqlite3.connect(db, timeout=10)
    try:
        rows = connection.execute(statement).fetchall()
        connection.commit()
        return rows
    finally:
        connection.close()


def first_line(text, *words):
    """The first log line holding any of `words` (lower case), shortened."""
    for line in text.splitlines():
        if any(word in line.lower() for word in words):
            return line.strip()[:160]
    return None


# MARK: the faults. Each returns (what happened, lost, corrupt served, ok).


def fault_1(drill):
    """Bytes flipped in a stored document's overflow page (a 64-pin document spans more than one 4 KB page)."""
    server = drill.start()
    acknowledged, _ = drill.write(server.url, HOSTS[:5])
    big, _ = drill.write(server.url, ["big.drill.test"], pins=64)
    _, original = request(server.url, "GET", "/pins/big.drill.test")
    server.stop()
    sql(drill.db, "PRAGMA wal_checkpoint(TRUNCATE)")
    with open(drill.db, "r+b") as file:
        data = bytearray(file.read())
        middle = len(original) // 2
        where = -1
        for offset in range(middle, len(original) - 64, 32):
            where = data.find(original[offset:offset + 48])
            if where >= 0:
                break
        if where < 0:
            return "could not find the document's bytes in the file", 0, 0, False
        for index in range(where + 16, where + 24):
            data[index] ^= 0x80
        file.seek(0)
        file.write(data)
    quick = sql(drill.db, "PRAGMA quick_check")[0][0]
    server = drill.start()
    if server.url is None:
        refusal = server.stderr()
        names = "big.drill.test" in refusal
        return (f"quick_check {quick}; start refused" + (", naming the host" if names else "")), 0, 0, True
    status, served = request(server.url, "GET", "/pins/big.drill.test")
    healthz, _ = request(server.url, "GET", "/healthz")
    lost, corrupt = drill.check(server.url, acknowledged)
    if status == 200 and served != original:
        corrupt.append("big.drill.test")
    what = f"quick_check {quick}; started, /healthz {healthz}; damaged host GET {status}"
    if status == 200 and served != original:
        what += " with the damaged bytes"
    return what, len(lost), len(corrupt), not corrupt and not lost and status != 200


def fault_2(drill, suffix):
    """`suffix` (-shm or -wal) deleted under the running server; a CLI token and more writes; kill -9; restart."""
    server = drill.start()
    acknowledged, _ = drill.write(server.url, HOSTS)
    os.remove(drill.db + suffix)
    result, token = drill.create_token(name="late")
    late_token = None
    if token:
        status, _ = request(server.url, "PUT", "/admin/hosts/token.drill.test", token, body())
        late_token = status
    more, refused = drill.write(server.url, [f"late{i}.drill.test" for i in range(60)])
    acknowledged.update(more)
    server.stop(signal.SIGKILL)
    server = drill.start()
    if server.url is None:
        return f"restart failed: {first_line(server.stderr(), 'error', 'critical') or '?'}", len(acknowledged), 0, False
    lost, corrupt = drill.check(server.url, acknowledged)
    token_after = request(server.url, "PUT", "/admin/hosts/token2.drill.test", token, body())[0] if token else None
    cli_part = (f"CLI token create exit 0, token answers {late_token} now, {token_after} after restart" if token
                else f"CLI token create refused (exit {result.returncode}{', says the file is gone' if 'gone' in result.stderr else ''})")
    writes = f"{len(more)}/60 later writes acknowledged" + (f", refused {refused[0]} {refused[1]}" if refused else "")
    token_lost = token is not None and (late_token == 401 or token_after == 401)
    what = f"{cli_part}; {writes}; kill -9 + restart"
    return what, len(lost) + (1 if token_lost else 0), len(corrupt), not lost and not corrupt and not token_lost


def fault_3(drill, how):
    """A backup put over the live database by `mv` or `cp` while the server runs; more writes; restart."""
    server = drill.start()
    in_backup, _ = drill.write(server.url, HOSTS[:5])
    backup = os.path.join(drill.dir, "backup.sqlite")
    made = cli(drill.binary, "backup", "--db", drill.db, "--out", backup)
    if made.returncode != 0:
        return f"pinset backup failed: {made.stderr.strip()[:120]}", 0, 0, False
    undone, _ = drill.write(server.url, HOSTS[5:10])  # after the backup: the restore removes these, as it should
    if how == "mv":
        os.rename(backup, drill.db)
    else:
        shutil.copyfile(backup, drill.db)
    after, refused = drill.write(server.url, [f"after{i}.drill.test" for i in range(30)])
    server.stop()
    server = drill.start()
    writes = f"{len(after)}/30 writes after the {how} acknowledged" + (
        f" (refused: {refused[0]} {refused[1]})" if refused and not after else "")
    if server.url is None:
        cause = first_line(server.stderr(), "error", "cannot", "corrupt", "malformed") or "?"
        return f"{writes}; restart FAILED: {cause}", len(after), 0, False
    lost, corrupt = drill.check(server.url, {**in_backup, **after})
    quick = sql(drill.db, "PRAGMA quick_check")[0][0]
    # The old WAL replayed onto the restored file brings back what the restore removed (and can corrupt it).
    back = sum(request(server.url, "GET", f"/pins/{host}")[0] == 200 for host in undone)
    restored = "restore kept" if back == 0 else f"RESTORE UNDONE ({back}/{len(undone)} writes made after the backup came back)"
    ok = not lost and not corrupt and back == 0 and quick == "ok"
    return f"{writes}; restart ok, quick_check {quick}, {restored}", len(lost), len(corrupt), ok


def fault_4(drill):
    """The server started with its clock a year ahead."""
    server = drill.start()
    acknowledged, _ = drill.write(server.url, HOSTS[:3])
    server.stop()
    before = sql(drill.db, "SELECT group_concat(etag) FROM document")[0][0]
    fake = ["/usr/bin/env", "FAKETIME_DONT_FAKE_MONOTONIC=1", "faketime", "-f", "+365d"]
    server = drill.start(prefix=fake)
    if server.url is None:
        said = "--trust-clock" in server.stderr()
        unchanged = sql(drill.db, "SELECT group_concat(etag) FROM document")[0][0] == before
        what = "start refused" + (" (says --trust-clock)" if said else "") + (", documents untouched" if unchanged else "")
        return what, 0, 0, unchanged
    ahead, deadline = [], time.time() + 20
    while time.time() < deadline:
        ahead = []
        for host in acknowledged:
            payload = payload_of(request(server.url, "GET", f"/pins/{host}")[1]) or {}
            issued = payload.get("issuedAt", "")
            if issued[:4].isdigit() and int(issued[:4]) > time.gmtime().tm_year:
                ahead.append(issued)
        if len(ahead) == len(acknowledged):
            break
        time.sleep(0.5)
    said = first_line(server.stderr(), "clock")
    what = f"started; {len(ahead)}/{len(acknowledged)} documents re-signed dated {ahead[0][:10] if ahead else '-'}"
    what += f"; log: {said}" if said else "; nothing logged"
    # Documents dated a year ahead are refused by clients (notYetValid) once the clock is right: served corrupt.
    return what, 0, len(ahead), not ahead


def fault_5(drill, newer):
    """A database made by a newer pinset, opened by this one."""
    if newer:
        drill.setup(newer)
        how = "database made by --newer"
    else:
        drill.setup()
        sql(drill.db, "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        how = "database with a migration from the future"
    server = drill.start()
    cli_result = drill.create_token(name="old-cli")[0]
    cli_part = "CLI token create " + ("refused" if cli_result.returncode != 0 else "WROTE")
    if server.url is None:
        said = server.stderr()
        names = "v99" in said or "migration" in said
        return (f"{how}: start refused{' (names the migrations)' if names else ''}; {cli_part}", 0, 0,
                cli_result.returncode != 0)
    acknowledged, _ = drill.write(server.url, ["o2.drill.test"])
    return f"{how}: served, {len(acknowledged)}/1 write acknowledged into it; {cli_part}", 0, 0, False


def fault_6(drill, root):
    """A full disk: the database on a 3 MB tmpfs, filled by a file beside it."""
    if os.geteuid() != 0:
        return "skipped: mounting a tmpfs needs root", 0, 0, True
    mount = os.path.join(drill.dir, "mnt")
    os.makedirs(mount)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mount]).returncode != 0:
        return "skipped: cannot mount a tmpfs here", 0, 0, True
    drill.mounts.append(mount)
    full = Drill(drill.binary, root, "full", directory=mount)
    full.logs = drill.dir
    full.setup()
    drill.servers = full.servers
    server = full.start()
    filler = os.path.join(mount, "filler")
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k", "count=36"], capture_output=True)
    acknowledged, refused = {}, None
    for index in range(2000):
        done, refused = full.write(server.url, [f"f{index}.drill.test"])
        acknowledged.update(done)
        if refused:
            break
    healthz = request(server.url, "GET", "/healthz")[0]
    readyz = request(server.url, "GET", "/readyz")[0]
    os.remove(filler)
    again, _ = full.write(server.url, ["after.drill.test"])
    acknowledged.update(again)
    server.stop()
    subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k", "count=1000"], capture_output=True)
    server = full.start()
    start_message = "started" if server.url else (first_line(server.stderr(), "cannot start", "error:") or "?")
    cause = "names the full disk" if "full" in start_message else (
        "says 'check the path and its permissions'" if "permissions" in start_message else repr(start_message[-60:]))
    server.stop()
    os.remove(filler)
    server = full.start()
    lost, corrupt = full.check(server.url, acknowledged) if server.url else (list(acknowledged), [])
    says_full = "full" in start_message
    failed = f"{refused[0]} {refused[1]}" if refused else "none"
    what = (f"write on a full disk: {failed}, /healthz {healthz}, /readyz {readyz}; after room freed "
            f"{'accepted' if again else 'refused'}; start on a full disk {cause}")
    ok = refused is not None and refused[0] == 503 and says_full and not lost and not corrupt
    return what, len(lost), len(corrupt), ok


def fault_7(drill):
    """Too few descriptors: `ulimit -n 256` (soft and hard), --connection-limit 1024, 400 idle connections."""
    limit = ["/bin/sh", "-c", 'ulimit -n 256 && exec "$@"', "sh"]
    server = drill.start(["--connection-limit", "1024"], prefix=limit)
    if server.url is None:
        return f"start failed: {first_line(server.stderr(), 'error') or '?'}", 0, 0, False
    acknowledged, _ = drill.write(server.url, HOSTS[:3])
    port = int(server.url.rsplit(":", 1)[1])
    sockets = []
    try:
        for _ in range(400):
            sock = socket.socket()
            sock.settimeout(2)
            try:
                sock.connect(("127.0.0.1", port))
                sockets.append(sock)
            except OSError:
                sock.close()
        answered = sum(request(server.url, "GET", "/healthz", timeout=2)[0] == 200 for _ in range(5))
        time.sleep(3)
    finally:
        for sock in sockets:
            sock.close()
    time.sleep(1)
    recovered = request(server.url, "GET", "/healthz")[0] == 200
    lost, corrupt = drill.check(server.url, acknowledged)
    log = server.stderr()
    warned = first_line(log, "open-file limit", "descriptor")
    accepts = first_line(log, "libmicrohttpd:", "accept")
    what = (f"{len(sockets)} connections held; /healthz answered {answered}/5 meanwhile, "
            f"{'recovered' if recovered else 'NOT recovered'} after; start warning: {'yes' if warned else 'none'}; "
            f"failed accepts logged: {'yes' if accepts else 'none'}")
    return what, len(lost), len(corrupt), bool(warned and accepts) and not lost and not corrupt and recovered


def fault_8(drill):
    """The database file made immutable (`chattr +i`) under the running server."""
    if os.geteuid() != 0:
        return "skipped: chattr +i needs root", 0, 0, True
    server = drill.start()
    if subprocess.run(["chattr", "+i", drill.db], capture_output=True).returncode != 0:
        return "skipped: chattr +i not supported on this file system", 0, 0, True
    drill.immutable.append(drill.db)
    acknowledged, refused = drill.write(server.url, [f"i{i}.drill.test" for i in range(200)])
    deadline = time.time() + 15
    while time.time() < deadline and not first_line(server.stderr(), "checkpoint"):
        time.sleep(0.5)
    logged = first_line(server.stderr(), "checkpoint")
    wal = os.path.getsize(drill.db + "-wal") if os.path.exists(drill.db + "-wal") else 0
    subprocess.run(["chattr", "-i", drill.db])
    drill.immutable.remove(drill.db)
    server.stop()
    server = drill.start()
    lost, corrupt = drill.check(server.url, acknowledged) if server.url else (list(acknowledged), [])
    what = (f"{len(acknowledged)}/200 writes acknowledged, WAL {wal // 1024} KB; failed checkpoint logged: "
            f"{'yes' if logged else 'none'}; after chattr -i + restart all served: {'yes' if not lost else 'no'}")
    return what, len(lost), len(corrupt), bool(logged) and not lost and not corrupt


FAULTS = [
    ("1", "corrupt document at start", lambda d, a: fault_1(d.setup())),
    ("2a", "-shm deleted under the server", lambda d, a: fault_2(d.setup(), "-shm")),
    ("2b", "-wal deleted under the server", lambda d, a: fault_2(d.setup(), "-wal")),
    ("3a", "database replaced by mv", lambda d, a: fault_3(d.setup(), "mv")),
    ("3b", "database replaced by cp", lambda d, a: fault_3(d.setup(), "cp")),
    ("4", "clock a year ahead", lambda d, a: fault_4(d.setup())),
    ("5", "binary older than its database", lambda d, a: fault_5(d, a.newer)),
    ("6", "full disk", lambda d, a: fault_6(d, a.root)),
    ("7", "out of descriptors", lambda d, a: fault_7(d.setup())),
    ("8", "immutable database (chattr +i)", lambda d, a: fault_8(d.setup())),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--newer", help="a newer pinset binary: fault 5 runs BINARY on a database it made")
    parser.add_argument("--only", help="comma-separated fault ids (1,2a,2b,3a,3b,4,5,6,7,8)")
    arguments = parser.parse_args()
    if not os.access(arguments.binary, os.X_OK):
        parser.error(f"{arguments.binary} is not an executable")
    chosen = set(arguments.only.split(",")) if arguments.only else None
    arguments.root = tempfile.mkdtemp(prefix="pinset-fault-drill.")
    failures = 0
    print(f"fault drill: {arguments.binary}")
    try:
        for fault_id, name, play in FAULTS:
            if chosen and fault_id not in chosen:
                continue
            drill = Drill(arguments.binary, arguments.root, f"f{fault_id}")
            started = time.time()
            try:
                what, lost, corrupt, ok = play(drill, arguments)
            except Exception as error:  # a drill that broke is a failed drill, reported on its line
                what, lost, corrupt, ok = f"drill error: {type(error).__name__}: {error}"[:200], 0, 0, False
            finally:
                drill.stop_all()
                for path in drill.immutable:
                    subprocess.run(["chattr", "-i", path])
                for mount in drill.mounts:  # lazily if still busy, so that the folder can go
                    if subprocess.run(["umount", mount], capture_output=True).returncode != 0:
                        subprocess.run(["umount", "-l", mount])
            what = what.replace(arguments.root, "TMP")
            failures += 0 if ok else 1
            print(f"{fault_id:>3} {name:<32} {'ok ' if ok else 'BAD'} lost {lost} corrupt-served {corrupt} "
                  f"({time.time() - started:.0f} s): {what}", flush=True)
    finally:
        shutil.rmtree(arguments.root, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
