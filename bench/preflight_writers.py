"""Concurrent admin writers for bench/preflight.sh (issue 22 item 2).

Usage: preflight_writers.py PORT TOKEN WRITERS SECONDS DOMAIN
Each writer PUTs a fresh enforcing set to w<writer>-<n>.DOMAIN in a loop (keep-alive, one connection per
writer) for SECONDS; prints one line: writes per second, the slowest write in ms, and the statuses seen.
"""
import base64
import http.client
import json
import os
import sys
import threading
import time

port, token, writers, seconds, domain = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
lock = threading.Lock()
latencies, statuses = [], {}


def pin():
    return base64.b64encode(os.urandom(32)).decode()


def writer(index):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    stop = time.monotonic() + seconds
    n = 0
    while time.monotonic() < stop:
        body = json.dumps({"pins": [{"sha256": pin()}, {"sha256": pin(), "role": "backup"}]})
        started = time.monotonic()
        connection.request("PUT", f"/admin/hosts/w{index}-{n}.{domain}", body=body,
                           headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        elapsed = time.monotonic() - started
        with lock:
            latencies.append(elapsed)
            statuses[response.status] = statuses.get(response.status, 0) + 1
        n += 1


threads = [threading.Thread(target=writer, args=(i,)) for i in range(writers)]
started = time.monotonic()
for t in threads:
    t.start()
for t in threads:
    t.join()
total = time.monotonic() - started
print(f"{len(latencies) / total:.2f} {max(latencies) * 1000:.0f} {json.dumps(statuses, sort_keys=True)}")
