#!/usr/bin/env python3
"""Hostile clients (issue 6.3) while a well-behaved load measures GET throughput.

    PINSET=path/to/pinset hostile_clients.py [--duration 10] [--idle 1000]

1. Baseline: wrk (or a Python keep-alive load when wrk is missing) on GET /pins/{host}, no abusers.
2. Same load while: IDLE connections are held open doing nothing, slowloris clients trickle header bytes,
   clients send bodies over 64 KiB, and clients send a Content-Length larger than the body. Passes when the
   loaded throughput is ≥ 50% of the baseline, the server's RSS stays under --rss-mib, and the server
   itself closes the idle and slowloris connections (it runs with --idle-timeout 3 and --request-timeout 4: each
   slowloris connection must be closed within the request timeout plus the sweeper's slack).
3. Garbage: unknown methods, `..`, `%00`, percent tricks, oversized headers, non-UTF-8 bytes: each gets a
   4xx or a closed connection, never a 5xx or a crash; /healthz still answers after.
"""

import argparse
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

from common import Server, figure, request, valid_set, wait_healthy

HOST = "load.example.com"


def load(port: int, seconds: int) -> float:
    """Requests per second of GET /pins/HOST, well-behaved keep-alive clients."""
    url = f"http://127.0.0.1:{port}/pins/{HOST}"
    if shutil.which("wrk"):
        out = subprocess.run(["wrk", "-t1", "-c20", f"-d{seconds}s", url], capture_output=True, text=True).stdout
        m = re.search(r"Requests/sec:\s+([\d.]+)", out)
        non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
        if non2xx:
            print(f"wrk: {non2xx.group(1)} non-2xx answers", file=sys.stderr)
        return float(m.group(1)) if m else 0.0
    import http.client
    count = [0]
    stop = time.time() + seconds

    def worker():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.time() < stop:
            c.request("GET", f"/pins/{HOST}")
            c.getresponse().read()
            count[0] += 1
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return count[0] / seconds


def closed_by_server(sock: socket.socket) -> bool:
    """True when the peer has closed (EOF or reset), without blocking."""
    sock.setblocking(False)
    try:
        data = sock.recv(65536)
        return data == b"" or b"HTTP/1.1 4" in data or b"HTTP/1.0 4" in data
    except BlockingIOError:
        return False
    except OSError:
        return True


def slowloris(port: int, stop: threading.Event, stats: dict):
    while not stop.is_set():
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /pins/" + HOST.encode() + b" HTTP/1.1\r\nHost: x\r\n")
        t0 = time.time()
        closed = False
        while not stop.is_set():
            try:
                s.sendall(b"X-a: b\r\n")
                s.settimeout(1)
                if s.recv(1) == b"":
                    closed = True
                    break
            except socket.timeout:
                continue
            except OSError:
                closed = True
                break
        if closed:
            stats["slowloris_closed"] += 1
            stats["slowloris_secs"] = max(stats["slowloris_secs"], time.time() - t0)
        s.close()


def oversized_and_lying(port: int, token: str, stop: threading.Event, stats: dict):
    while not stop.is_set():
        # Body over the 64 KiB limit.
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            body = b"{" + b" " * (200 * 1024) + b"}"
            s.sendall(f"PUT /admin/hosts/x.example.com HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                      f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode())
            try:
                s.sendall(body)
            except OSError:
                pass
            data = s.recv(200)
            stats["oversized"] += 1
            if data and not data.startswith(b"HTTP/1.1 413"):
                stats["oversized_bad"].append(data[:40])
            s.close()
        except OSError:
            stats["oversized"] += 1
        # Content-Length that lies (announces more than is sent): the server must time out and close.
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(f"PUT /admin/hosts/x.example.com HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                      f"Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{{\"pins\":[]".encode())
            t0 = time.time()
            data = s.recv(200)
            stats["liars"] += 1
            if data == b"" or data.startswith(b"HTTP/1.1 4"):
                stats["liars_closed"] += 1
                stats["liar_secs"] = max(stats["liar_secs"], time.time() - t0)
            s.close()
        except OSError:
            stats["liars"] += 1
            stats["liars_closed"] += 1


GARBAGE = [
    b"FOO /pins/a.example.com HTTP/1.1\r\nHost: x\r\n\r\n",
    b"BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/../admin/hosts HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/..%2fadmin%2fhosts HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/example.com%00.evil HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/%00 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/%zz%G0%%% HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/%25252e HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/%C0%AE%C0%AE HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/\xff\xfe\xc3\x28 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /admin/hosts/\xff HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe\r\n\r\n",
    b"GET /pins/" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"A" * 100000 + b"\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(5000)) + b"\r\n",
    b"GET /healthz HTTP/9.9\r\n\r\n",
    b"GET /healthz\r\n\r\n",
    b"\x00\x01\x02\x03\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 100,  # a TLS ClientHello
    b"POST /reports HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
    b"POST /reports HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
    b"POST /reports HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\n",
    b"POST /reports HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    b"PUT /admin/hosts/a.example.com HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 6\r\n\r\n\xff\xfe\xfd\xfc\xfb\xfa",
    b"GET /pins/a.example.com HTTP/1.1\r\nHost: x\r\nIf-None-Match: " + b"\"" * 5000 + b"\r\n\r\n",
    b"GET //////pins//a.example.com HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /pins/a.example.com?%00=%ff HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET http://evil/pins/a.example.com HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET * HTTP/1.1\r\nHost: x\r\n\r\n",
    b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
    b"DELETE /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    b"CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: x\r\n\r\n",
    b"TRACE / HTTP/1.1\r\nHost: x\r\n\r\n",
]


def garbage(port: int, token: str) -> list[str]:
    bad = []
    for raw in GARBAGE:
        raw = raw.replace(b"Bearer \xff\xfe", b"Bearer \xff\xfe" + token.encode()[:4])
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(raw)
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # the server already closed or reset it: read what it answered, if anything
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            s.close()
        except (ConnectionResetError, BrokenPipeError, ConnectionAbortedError):
            continue  # closed by the server: acceptable
        except socket.timeout:
            bad.append(f"{raw[:40]!r}: no answer and not closed within 10 s")
            continue
        m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
        if raw.startswith(b"GET /healthz HTTP/9.9") and m and m.group(1) == b"505":
            continue  # 505 HTTP Version Not Supported is the right answer (libmicrohttpd's own)
        if data and (not m or not m.group(1).startswith(b"4")):
            bad.append(f"{raw[:40]!r}: answered {data[:60]!r}")
    return bad


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duration", type=int, default=10, help="seconds of each load measurement")
    parser.add_argument("--idle", type=int, default=1000, help="idle connections to hold")
    parser.add_argument("--slowloris", type=int, default=50)
    parser.add_argument("--rss-mib", type=int, default=256)
    parser.add_argument("--request-timeout", type=int, default=4, help="the server's --request-timeout")
    args = parser.parse_args()
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))

    server = Server(extra=["--idle-timeout", "3", "--request-timeout", str(args.request_timeout),
                           "--connection-limit", "4000", "--threads", "2"])
    token = server.token("hostile")
    failures = []
    stats = {"slowloris_closed": 0, "slowloris_secs": 0.0, "oversized": 0, "oversized_bad": [], "liars": 0,
             "liars_closed": 0, "liar_secs": 0.0}
    try:
        server.start()
        wait_healthy(server)
        conn = server.conn()
        request(conn, "PUT", f"/admin/hosts/{HOST}", token, valid_set())
        conn.close()
        rss0 = server.rss_kib()
        baseline = load(server.port, args.duration)

        # Abusers.
        idle = []
        for _ in range(args.idle):
            try:
                idle.append(socket.create_connection(("127.0.0.1", server.port), timeout=5))
            except OSError as e:
                failures.append(f"could not open idle connection {len(idle)}: {e}")
                break
        stop = threading.Event()
        abusers = [threading.Thread(target=slowloris, args=(server.port, stop, stats)) for _ in range(args.slowloris)]
        abusers += [threading.Thread(target=oversized_and_lying, args=(server.port, token, stop, stats))
                    for _ in range(4)]
        for t in abusers:
            t.start()
        peak = [rss0]

        def sample():
            while not stop.is_set():
                try:
                    peak[0] = max(peak[0], server.rss_kib())
                except OSError:
                    return
                time.sleep(0.2)
        sampler = threading.Thread(target=sample)
        sampler.start()
        loaded = load(server.port, args.duration)
        time.sleep(1)
        idle_closed = sum(1 for s in idle if closed_by_server(s))
        stop.set()
        for t in abusers:
            t.join(15)
        sampler.join()
        for s in idle:
            s.close()
        time.sleep(2)  # let the server notice the closed sockets, so the garbage below is really parsed
        bad = garbage(server.port, token)
        alive = server.alive() and wait_healthy(server, 5)
    finally:
        server.cleanup()

    ratio = loaded / baseline if baseline else 0
    rss_mib = peak[0] / 1024
    if ratio < 0.5:
        failures.append(f"throughput under abuse {loaded:.0f}/s is {ratio:.0%} of unloaded {baseline:.0f}/s")
    if rss_mib > args.rss_mib:
        failures.append(f"RSS peaked at {rss_mib:.0f} MiB > {args.rss_mib} MiB")
    if idle_closed < len(idle):
        failures.append(f"server closed only {idle_closed}/{len(idle)} idle connections (idle timeout 3 s)")
    # libmicrohttpd's own timeout is an inactivity timeout that every trickled byte resets; the wrapper's
    # request deadline (--request-timeout) is what closes these.
    if stats["slowloris_closed"] < args.slowloris:
        failures.append(f"only {stats['slowloris_closed']} slowloris connections closed by the server "
                        f"for {args.slowloris} trickling clients in {args.duration + 1} s")
    if stats["slowloris_secs"] > args.request_timeout + 2:
        failures.append(f"a slowloris connection lasted {stats['slowloris_secs']:.1f} s "
                        f"(request timeout {args.request_timeout} s)")
    if stats["liars"] and stats["liars_closed"] < stats["liars"]:
        failures.append(f"lying Content-Length: {stats['liars'] - stats['liars_closed']} not closed")
    if stats["oversized_bad"]:
        failures.append(f"oversized bodies answered {stats['oversized_bad'][:3]}")
    failures += [f"garbage {b}" for b in bad]
    if not alive:
        failures.append("server not alive / healthy after the garbage")
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    print(f"GET /pins: unloaded {baseline:.0f} req/s, under abuse {loaded:.0f} req/s ({ratio:.0%}); "
          f"RSS {rss0 / 1024:.0f} -> peak {rss_mib:.0f} MiB; idle held {len(idle)}, closed by server {idle_closed}; "
          f"slowloris closed {stats['slowloris_closed']} (longest {stats['slowloris_secs']:.1f} s); "
          f"oversized bodies {stats['oversized']}; lying Content-Length {stats['liars']} "
          f"(closed {stats['liars_closed']}, longest {stats['liar_secs']:.1f} s); garbage inputs {len(GARBAGE)}, "
          f"bad answers {len(bad)}")
    figure("hostile", baseline_rps=round(baseline), loaded_rps=round(loaded), ratio=round(ratio, 2),
           rss_peak_mib=round(rss_mib), idle=len(idle), idle_closed=idle_closed,
           slowloris_closed=stats["slowloris_closed"], garbage=len(GARBAGE),
           failures=len(failures))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
