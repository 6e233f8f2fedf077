#!/usr/bin/env python3
"""Crash durability (issue 6.1): kill -9 the server under concurrent admin writes, restart, check nothing
acknowledged was lost.

    PINSET=path/to/pinset crash_durability.py [--cycles 5] [--clients 4]

Each cycle: start the server on the same database, run CLIENTS threads that PUT pin sets over keep-alive
connections (each thread owns its hosts), kill -9 the server at a random moment, run `PRAGMA
integrity_check` on the stopped database, restart, and check for every host: the admin version is at least
the highest acknowledged one, the history lists the acknowledged version, the pins of the acknowledged
version are the ones written when it is still the latest, and the served document verifies with the
independent verifier and carries the latest version. Exits 1 on any loss.
"""

import argparse
import random
import sqlite3
import sys
import threading
import time

from common import Server, figure, request, valid_set, verify_document, wait_healthy


COUNT = [0]
COUNT_LOCK = threading.Lock()


def writer(server: Server, token: str, hosts: list[str], acked: dict, written: dict, stop: threading.Event):
    conn = server.conn(5)
    while not stop.is_set():
        host = random.choice(hosts)
        body = valid_set()
        try:
            status, _, payload = request(conn, "PUT", f"/admin/hosts/{host}", token, body)
        except (OSError, Exception):
            return  # the server died; an unanswered write was never acknowledged
        if status not in (200, 201):
            print(f"unexpected {status} on PUT {host}: {payload[:200]!r}", file=sys.stderr)
            continue
        import json
        version = json.loads(payload)["version"]
        with COUNT_LOCK:
            COUNT[0] += 1
        if version > acked.get(host, 0):
            acked[host] = version
            written[host] = sorted(p["sha256"] for p in body["pins"])


def integrity(db: str) -> str:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def check(server: Server, token: str, acked: dict, written: dict) -> list[str]:
    import json
    problems = []
    conn = server.conn(10)
    for host, version in sorted(acked.items()):
        status, headers, payload = request(conn, "GET", f"/admin/hosts/{host}", token)
        if status != 200:
            problems.append(f"{host}: acked v{version}, GET /admin/hosts answers {status}")
            continue
        detail = json.loads(payload)
        if detail["version"] < version:
            problems.append(f"{host}: acked v{version}, server has v{detail['version']}")
            continue
        if detail["version"] == version:
            pins = sorted(p["sha256"] for p in detail["pins"])
            if pins != written[host]:
                problems.append(f"{host}: v{version} has other pins than the acknowledged write")
        status, _, hist = request(conn, "GET", f"/admin/hosts/{host}/history", token)
        versions = {v["version"] for v in json.loads(hist)["versions"]} if status == 200 else set()
        if version not in versions:
            problems.append(f"{host}: history lacks acked v{version}")
        status, _, doc = request(conn, "GET", f"/pins/{host}")
        payload = verify_document(doc, server.pub, host) if status == 200 else None
        if payload is None:
            problems.append(f"{host}: served document ({status}) does not verify")
        elif payload["version"] != detail["version"]:
            problems.append(f"{host}: serves v{payload['version']}, latest is v{detail['version']}")
    conn.close()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--hosts-per-client", type=int, default=5)
    args = parser.parse_args()

    server = Server()
    token = server.token("crash")
    acked: dict[str, int] = {}
    written: dict[str, list] = {}
    lost = 0
    problems_total = []
    cycles = 0
    try:
        for cycle in range(args.cycles):
            server.start()
            if not wait_healthy(server):
                problems_total.append(f"cycle {cycle}: server not healthy after restart")
                break
            problems = check(server, token, acked, written)
            lost += len(problems)
            problems_total += [f"cycle {cycle} (after restart): {p}" for p in problems]
            before = COUNT[0]
            stop = threading.Event()
            threads = [threading.Thread(target=writer, args=(server, token,
                       [f"h{c}-{i}.crash.test" for i in range(args.hosts_per_client)], acked, written, stop))
                       for c in range(args.clients)]
            for t in threads:
                t.start()
            time.sleep(random.uniform(0.5, 2.5))
            server.kill9()
            stop.set()
            for t in threads:
                t.join(10)
            result = integrity(server.db)
            if result != "ok":
                problems_total.append(f"cycle {cycle}: integrity_check = {result}")
            cycles += 1
            print(f"cycle {cycle}: killed after {COUNT[0] - before} acknowledged writes, "
                  f"integrity {result}", flush=True)
        server.start()
        wait_healthy(server)
        problems = check(server, token, acked, written)
        lost += len(problems)
        problems_total += [f"final: {p}" for p in problems]
    finally:
        server.cleanup()
    for p in problems_total:
        print("FAIL", p, file=sys.stderr)
    acked_writes = COUNT[0]
    print(f"acknowledged writes: {acked_writes} over {len(acked)} hosts, "
          f"writes lost: {lost}, kill -9 cycles: {cycles}")
    figure("crash", acked_writes=acked_writes, writes_lost=lost, cycles=cycles, problems=len(problems_total))
    return 0 if not problems_total and cycles == args.cycles else 1


if __name__ == "__main__":
    sys.exit(main())
