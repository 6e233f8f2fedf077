#!/usr/bin/env python3
"""Resources over time (issue 41): a real server under steady reads and writes, its RSS and open descriptors
sampled every few seconds and printed as a table, so a slow leak shows as a line that keeps rising.

    PINSET=path/to/pinset resources.py [--duration 600] [--every 10]

Clients: 4 threads GET random hosts on kept-alive connections, 1 thread PUTs, and every sample a burst of 50 new
connections opened and closed. Fails when the descriptors left once the load stops exceed those at start by
more than --fd-slack (a descriptor leak), when RSS after the load exceeds --rss-mib, when any acknowledged write
is not served at the end, or when the server dies.
"""

import argparse
import http.client
import random
import socket
import sys
import threading
import time

from common import Server, figure, request, valid_set, wait_healthy


def fds(pid: int) -> int:
    import os
    return len(os.listdir(f"/proc/{pid}/fd"))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=600, help="seconds of load")
    parser.add_argument("--every", type=int, default=10, help="seconds between samples")
    parser.add_argument("--hosts", type=int, default=200)
    parser.add_argument("--fd-slack", type=int, default=16)
    parser.add_argument("--rss-mib", type=int, default=256)
    args = parser.parse_args()

    server = Server(extra=["--preflight", "off", "--threads", "2"])
    token = server.token("resources")
    failures = []
    acknowledged: dict[str, int] = {}
    samples = []
    stop = threading.Event()
    counts = {"gets": 0, "puts": 0, "errors": 0}
    lock = threading.Lock()
    try:
        server.start()
        wait_healthy(server)
        conn = server.conn()
        for i in range(args.hosts):
            status, _, body = request(conn, "PUT", f"/admin/hosts/r{i}.example.com", token, valid_set())
            if status in (200, 201):
                acknowledged[f"r{i}.example.com"] = 1
        conn.close()
        time.sleep(1)
        pid = server.proc.pid
        fd0, rss0 = fds(pid), server.rss_kib()

        def reader():
            c = server.conn()
            while not stop.is_set():
                try:
                    status, _, _ = request(c, "GET", f"/pins/r{random.randrange(args.hosts)}.example.com")
                    with lock:
                        counts["gets"] += 1
                        counts["errors"] += status != 200
                except (OSError, http.client.HTTPException):
                    c.close()
                    c = server.conn()
            c.close()

        def writer():
            c = server.conn()
            while not stop.is_set():
                host = f"r{random.randrange(args.hosts)}.example.com"
                try:
                    status, _, body = request(c, "PUT", f"/admin/hosts/{host}", token, valid_set())
                    with lock:
                        counts["puts"] += 1
                        if status in (200, 201):
                            import json
                            acknowledged[host] = max(acknowledged.get(host, 0), json.loads(body)["version"])
                        else:
                            counts["errors"] += 1
                except (OSError, http.client.HTTPException):
                    c.close()
                    c = server.conn()
                time.sleep(0.01)
            c.close()

        threads = [threading.Thread(target=reader) for _ in range(4)] + [threading.Thread(target=writer)]
        for t in threads:
            t.start()
        print(f"{'seconds':>8} {'rss_mib':>8} {'fds':>6} {'gets':>9} {'puts':>7}", flush=True)
        started = time.time()
        while time.time() - started < args.duration:
            time.sleep(args.every)
            if not server.alive():
                failures.append("the server died")
                break
            for _ in range(50):  # connections that come and go
                try:
                    socket.create_connection(("127.0.0.1", server.port), timeout=2).close()
                except OSError:
                    pass
            row = (int(time.time() - started), server.rss_kib() / 1024, fds(pid), counts["gets"], counts["puts"])
            samples.append(row)
            print(f"{row[0]:>8} {row[1]:>8.1f} {row[2]:>6} {row[3]:>9} {row[4]:>7}", flush=True)
        stop.set()
        for t in threads:
            t.join(15)
        time.sleep(3)
        fd1, rss1 = fds(pid), server.rss_kib()
        conn = server.conn()
        lost = [h for h, v in acknowledged.items() if request(conn, "GET", f"/pins/{h}")[0] != 200]
        conn.close()
        alive = server.alive()
    finally:
        server.cleanup()

    if fd1 > fd0 + args.fd_slack:
        failures.append(f"descriptors: {fd0} at start, {fd1} after the load (a leak?)")
    if rss1 / 1024 > args.rss_mib:
        failures.append(f"RSS after the load {rss1 / 1024:.0f} MiB > {args.rss_mib} MiB")
    if lost:
        failures.append(f"{len(lost)} acknowledged hosts not served: {lost[:5]}")
    if not alive:
        failures.append("the server is not alive after the load")
    print(f"resources: fds {fd0} -> {fd1} (max {max([s[2] for s in samples] or [fd1])}), "
          f"RSS {rss0 / 1024:.1f} -> {rss1 / 1024:.1f} MiB (max {max([s[1] for s in samples] or [0]):.1f}), "
          f"{counts['gets']} GETs, {counts['puts']} PUTs, {counts['errors']} non-2xx")
    figure("resources", fds_start=fd0, fds_end=fd1, rss_start_mib=round(rss0 / 1024, 1),
           rss_end_mib=round(rss1 / 1024, 1), gets=counts["gets"], puts=counts["puts"], samples=len(samples))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
