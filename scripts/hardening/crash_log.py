#!/usr/bin/env python3
"""Crash durability of the transparency log (issue 24, PROTOCOL §7.1): kill -9 the server under concurrent admin
writes with a log and one `pinset witness`, restart, and check the log and the documents agree.

    PINSET=path/to/pinset crash_log.py [--cycles 3] [--clients 4]

Each cycle runs crash_durability.py's writers (nothing acknowledged lost) while a thread collects every
checkpoint the server serves (/log/checkpoint and the proofs' checkpoints), then kill -9. After each restart,
checked here in Python, independently of the server's Swift code:
- the log holds exactly one entry per stored document version (tree size = logged documents, none twice);
- every served document has a proof (`/pins/{host}/proof`, with its own ETag, PROTOCOL §7.3) whose inclusion proof (RFC 9162) leads
  from the exact served bytes to its checkpoint's root, and that checkpoint's log signature verifies;
- every checkpoint collected during the whole run has a root equal to the RFC 6962 root of the first `size`
  entries of the final log (read from the served entry bundles): none is inconsistent with the last.
Exits 1 on any problem.
"""

import argparse
import base64
import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_private_key

from common import Server, binary, figure, request, wait_healthy
from crash_durability import check, integrity, writer

ORIGIN = "crash.test/log"


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def leaf_hash(entry: bytes) -> bytes:
    return sha256(b"\x00" + entry)


def node_hash(left: bytes, right: bytes) -> bytes:
    return sha256(b"\x01" + left + right)


def root(leaves: list[bytes]) -> bytes:
    """RFC 6962 MTH over leaf hashes."""
    if not leaves:
        return sha256(b"")
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return node_hash(root(leaves[:k]), root(leaves[k:]))


def verify_inclusion(leaf: bytes, index: int, size: int, proof: list[bytes], expected: bytes) -> bool:
    """RFC 9162 §2.1.3.2."""
    if index >= size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == expected


def log_public_key(path: str) -> bytes:
    with open(path, "rb") as f:
        key = load_pem_private_key(f.read(), None)
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def vkey(name: str, public: bytes) -> str:
    """A signed-note verifier key (type 0x01 Ed25519)."""
    key_id = sha256(name.encode() + b"\n" + b"\x01" + public)[:4]
    encoded = base64.b64encode(b"\x01" + public).decode()
    return f"{name}+{key_id.hex()}+{encoded}"


def parse_note(note: bytes, public: bytes) -> tuple[int, bytes] | None:
    """(size, root) of a checkpoint whose log signature verifies, else None."""
    text, _, signatures = note.partition(b"\n\n")
    lines = text.decode().split("\n")
    if len(lines) < 3 or lines[0] != ORIGIN:
        return None
    key_id = sha256(ORIGIN.encode() + b"\n\x01" + public)[:4]
    for line in signatures.decode().splitlines():
        parts = line.split(" ")
        if len(parts) != 3 or parts[1] != ORIGIN:
            continue
        raw = base64.b64decode(parts[2])
        if raw[:4] != key_id:
            continue
        try:
            Ed25519PublicKey.from_public_bytes(public).verify(raw[4:], text + b"\n")
            return int(lines[1]), base64.b64decode(lines[2])
        except Exception:
            return None
    return None


def parse_proof(body: bytes) -> tuple[int, list[bytes], bytes]:
    head, _, note = body.partition(b"\n\n")
    lines = head.decode().split("\n")
    assert lines[0] == "c2sp.org/tlog-proof@v1", lines[0]
    index = int(lines[1].split(" ")[1])
    return index, [base64.b64decode(x) for x in lines[2:]], note


def tile_index(n: int) -> str:
    digits = f"{n:03d}"
    groups = [digits[max(0, i - 3):i] for i in range(len(digits), 0, -3)][::-1]
    groups = [g.zfill(3) for g in groups]
    return "/".join(["x" + g for g in groups[:-1]] + [groups[-1]])


def entries(server: Server, size: int) -> list[bytes]:
    """Every entry, from the served entry bundles (C2SP tlog-tiles)."""
    conn = server.conn(10)
    out: list[bytes] = []
    n = 0
    while len(out) < size:
        width = min(256, size - n * 256)
        path = f"/log/tile/entries/{tile_index(n)}" + ("" if width == 256 else f".p/{width}")
        status, _, bundle = request(conn, "GET", path)
        assert status == 200, f"{path}: {status}"
        i = 0
        while i < len(bundle):
            length = int.from_bytes(bundle[i:i + 2], "big")
            out.append(bundle[i + 2:i + 2 + length])
            i += 2 + length
        n += 1
    conn.close()
    return out


def collector(server: Server, hosts: list[str], seen: set, stop: threading.Event) -> None:
    """Collects every checkpoint served while the writers run."""
    try:
        conn = server.conn(2)
        while not stop.is_set():
            status, _, note = request(conn, "GET", "/log/checkpoint")
            if status == 200:
                seen.add(note)
            for host in hosts[:3]:
                status, _, body = request(conn, "GET", f"/pins/{host}/proof")
                if status == 200:
                    seen.add(parse_proof(body)[2])
            time.sleep(0.01)
    except Exception:
        return  # the server died


def check_log(server: Server, public: bytes, hosts: list[str], seen: set) -> list[str]:
    problems = []
    conn = server.conn(10)
    status, _, note = request(conn, "GET", "/log/checkpoint")
    parsed = parse_note(note, public) if status == 200 else None
    if parsed is None:
        return [f"/log/checkpoint ({status}) does not verify"]
    size, final_root = parsed
    db = sqlite3.connect(f"file:{server.db}?mode=ro", uri=True)
    versions = db.execute("SELECT COUNT(*) FROM hostVersion").fetchone()[0]
    logged = db.execute("SELECT COUNT(*) FROM logEntry").fetchone()[0]
    db.close()
    if not size == logged == versions:
        problems.append(f"tree size {size}, entries stored {logged}, document versions {versions}: not all equal")
    all_entries = entries(server, size)
    leaves = [leaf_hash(e) for e in all_entries]
    if root(leaves) != final_root:
        problems.append("the served entries do not hash to the checkpoint's root")
    if len(set(all_entries)) != len(all_entries):
        problems.append("a document is logged twice")
    for host in hosts:
        status, headers, doc = request(conn, "GET", f"/pins/{host}")
        if status == 404:
            continue
        status, proof_headers, body = request(conn, "GET", f"/pins/{host}/proof")
        if status != 200:
            problems.append(f"{host}: served without a proof ({status})")
            continue
        # PROTOCOL §7.3: the proof's ETag is its own, the hash of its bytes (it changes as cosignatures arrive).
        own = '"' + base64.urlsafe_b64encode(hashlib.sha256(body).digest()[:18]).decode().rstrip("=") + '"'
        if proof_headers.get("etag") != own:
            problems.append(f"{host}: the proof's ETag is not the hash of its own bytes")
        index, path, proof_note = parse_proof(body)
        checkpoint = parse_note(proof_note, public)
        if checkpoint is None or not verify_inclusion(leaf_hash(doc), index, checkpoint[0], path, checkpoint[1]):
            problems.append(f"{host}: the proof does not verify for the served bytes")
        seen.add(proof_note)
    for note in seen:
        parsed = parse_note(note, public)
        if parsed is None:
            problems.append(f"a collected checkpoint does not verify: {note[:80]!r}")
        elif parsed[0] > size or root(leaves[:parsed[0]]) != parsed[1]:
            problems.append(f"checkpoint of size {parsed[0]} is inconsistent with the final one of size {size}")
    conn.close()
    return problems


def start_witness(server: Server, log_vkey: str, port: int) -> tuple[subprocess.Popen, int, str]:
    key = os.path.join(server.dir, "witness-key.pem")
    if not os.path.exists(key):
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", key], check=True,
                       stdout=subprocess.DEVNULL)
        os.chmod(key, 0o600)
    proc = subprocess.Popen([binary(), "witness", "--name", "w.crash.test", "--key", key, "--db",
                             os.path.join(server.dir, "witness.sqlite"), "--log", log_vkey, "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first = proc.stdout.readline().decode()
    second = proc.stdout.readline().decode()
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    return proc, int(first.strip().rsplit(":", 1)[1]), second.split("vkey: ", 1)[1].strip()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--hosts-per-client", type=int, default=5)
    args = parser.parse_args()

    server = Server()
    log_key = os.path.join(server.dir, "log-key.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", log_key], check=True,
                   stdout=subprocess.DEVNULL)
    os.chmod(log_key, 0o600)
    public = log_public_key(log_key)
    witness, witness_port, witness_vkey = start_witness(server, vkey(ORIGIN, public), 0)
    server.extra = ["--log-key", log_key, "--log-origin", ORIGIN, "--witness", f"http://127.0.0.1:{witness_port}",
                    witness_vkey, "--witness-retry", "1", "--witness-deadline", "2"]
    token = server.token("crash")
    hosts = [f"h{c}-{i}.crash.test" for c in range(args.clients) for i in range(args.hosts_per_client)]
    acked: dict[str, int] = {}
    written: dict[str, list] = {}
    seen: set = set()
    problems_total = []
    cycles = 0
    try:
        for cycle in range(args.cycles + 1):
            server.start()
            if not wait_healthy(server):
                problems_total.append(f"cycle {cycle}: server not healthy after restart")
                break
            problems = check(server, token, acked, written) + check_log(server, public, hosts, seen)
            problems_total += [f"cycle {cycle} (after restart): {p}" for p in problems]
            if cycle == args.cycles:
                break
            stop = threading.Event()
            threads = [threading.Thread(target=writer, args=(server, token, hosts[c::args.clients], acked, written,
                                                             stop)) for c in range(args.clients)]
            threads.append(threading.Thread(target=collector, args=(server, hosts, seen, stop)))
            for t in threads:
                t.start()
            time.sleep(0.5 + (cycle % 3) * 0.7)
            server.kill9()
            stop.set()
            for t in threads:
                t.join(10)
            result = integrity(server.db)
            if result != "ok":
                problems_total.append(f"cycle {cycle}: integrity_check = {result}")
            cycles += 1
            print(f"cycle {cycle}: killed; {len(seen)} checkpoints collected so far, integrity {result}", flush=True)
        status, _, body = request(server.conn(5), "GET", "/admin/log", token)
        witnesses = json.loads(body).get("witnesses", []) if status == 200 else []
        print(f"witness after the last restart: {witnesses[0].get('lastAnswer') if witnesses else None}")
    finally:
        witness.terminate()
        witness.wait(5)
        server.cleanup()
    for p in problems_total:
        print("FAIL", p, file=sys.stderr)
    print(f"kill -9 cycles: {cycles}, checkpoints checked: {len(seen)}, problems: {len(problems_total)}")
    figure("crash_log", cycles=cycles, checkpoints=len(seen), problems=len(problems_total))
    return 0 if not problems_total and cycles == args.cycles else 1


if __name__ == "__main__":
    sys.exit(main())
