#!/usr/bin/env python3
"""Auth and secrets (issue 6.5).

    PINSET=path/to/pinset auth_secrets.py

- Every admin operation of openapi.yaml, called with no token, a wrong token, malformed Authorization
  headers and a revoked token, answers 401 with `WWW-Authenticate: Bearer ...` (and never changes anything).
- The tokens never appear in clear in the database files (main, -wal, -shm, -journal) nor in the server's
  stderr/stdout log (checked in raw, base64 and hex forms).
- `pinset serve` refuses a key file of mode 0644: non-zero exit and a message that mentions chmod.
"""

import base64
import glob
import os
import subprocess
import sys
import time

import yaml

from common import OPENAPI, Server, binary, figure, request, valid_set, wait_healthy


def admin_operations() -> list[tuple[str, str]]:
    with open(OPENAPI) as f:
        spec = yaml.safe_load(f)
    ops = []
    for path, item in spec["paths"].items():
        if not path.startswith("/admin/"):
            continue
        for method in ("get", "put", "post", "delete", "patch", "head"):
            if method in item:
                ops.append((method.upper(), path))
    return ops


def main() -> int:
    server = Server(extra=["--log-level", "trace"])  # the most verbose log must not hold a token either
    good = server.token("auth-good")
    revoked = server.token("auth-revoked")
    failures = []
    tried = 0
    try:
        server.start()
        wait_healthy(server)
        conn = server.conn()
        host = "auth.example.com"
        body = valid_set()
        status, headers, _ = request(conn, "PUT", f"/admin/hosts/{host}", good, body)
        assert status in (200, 201), status
        etag = headers.get("etag")
        pin = body["pins"][0]["sha256"]
        pin_url = base64.urlsafe_b64encode(base64.b64decode(pin)).rstrip(b"=").decode()
        server.revoke("auth-revoked")
        # The server rereads the token table on every admin request: a token revoked by the CLI in another
        # process must be refused at once (the first request after the revoke).
        revoked_at = time.monotonic()
        window = None
        while time.monotonic() - revoked_at < 10:
            status, _, _ = request(conn, "GET", "/admin/hosts", revoked)
            if status == 401:
                window = time.monotonic() - revoked_at
                break
            time.sleep(0.1)
        if window is None or window > 0.5:
            failures.append(f"revoked token still accepted {window or '>10'} s after `pinset token revoke`")
        wrong = good[:-4] + ("AAAA" if not good.endswith("AAAA") else "BBBB")
        bad_headers = {
            "no token": {},
            "wrong token": {"Authorization": f"Bearer {wrong}"},
            "revoked token": {"Authorization": f"Bearer {revoked}"},
            "lowercase scheme, wrong": {"Authorization": f"bearer {wrong}"},
            "Basic scheme": {"Authorization": "Basic " + base64.b64encode(f"admin:{good}".encode()).decode()},
            "token without scheme": {"Authorization": good},
            "empty bearer": {"Authorization": "Bearer "},
            "bearer only": {"Authorization": "Bearer"},
            "two tokens": {"Authorization": f"Bearer {wrong} {wrong}"},
            "token prefix": {"Authorization": f"Bearer {good[:-1]}"},
            "token + suffix": {"Authorization": f"Bearer {good}x"},
            "non-ascii": {"Authorization": "Bearer \u00e9\u00e9"},
        }
        ops = admin_operations()
        for method, template in ops:
            path = (template.replace("{host}", host).replace("{sha256}", pin_url))
            payload = {"pins": [body["pins"][0]]} if method in ("PUT", "POST") else None
            if method == "PUT":
                payload = valid_set()
            for label, hdrs in bad_headers.items():
                h = dict(hdrs)
                if etag and method in ("PUT", "POST", "DELETE"):
                    h["If-Match"] = etag
                data = None
                if payload is not None:
                    import json
                    data = json.dumps(payload).encode()
                    h["Content-Type"] = "application/json"
                try:
                    conn.putrequest(method, path, skip_accept_encoding=True)
                    for k, v in h.items():
                        conn.putheader(k, v.encode("utf-8"))
                    if data is not None:
                        conn.putheader("Content-Length", str(len(data)))
                    conn.endheaders(data)
                    resp = conn.getresponse()
                    resp.read()
                    status, www = resp.status, resp.getheader("WWW-Authenticate") or ""
                except OSError as e:
                    conn = server.conn()
                    status, www = f"connection error {e}", ""
                tried += 1
                if status == 404 and template == "/admin/reports":
                    # Not implemented yet (issue 7): a 404 before auth would leak nothing but is noted.
                    failures.append(f"{method} {template} [{label}]: 404 (route missing?)")
                elif status != 401 or not www.startswith("Bearer"):
                    failures.append(f"{method} {template} [{label}]: {status}, WWW-Authenticate {www!r}")
        # Nothing changed.
        status, headers, _ = request(conn, "GET", f"/admin/hosts/{host}", good)
        if headers.get("etag") != etag:
            failures.append("a refused request changed the host")
        # The good token still works (control).
        if status != 200:
            failures.append(f"good token refused: {status}")
        conn.close()
        server.stop()
        # Secrets at rest and in the log.
        files = glob.glob(server.db + "*") + [server.stderr_path]
        forms = {}
        for name, tok in (("good", good), ("revoked", revoked)):
            forms[name] = [tok.encode(), tok.encode().hex().encode(), base64.b64encode(tok.encode())]
        scanned = 0
        for path in files:
            with open(path, "rb") as f:
                data = f.read()
            scanned += len(data)
            for name, needles in forms.items():
                for needle in needles:
                    if needle in data:
                        failures.append(f"{name} token found in clear in {os.path.basename(path)}")
        # Key file mode 0644 is refused.
        os.chmod(server.key, 0o644)
        r = subprocess.run([binary(), "serve", "--db", server.db, "--key", server.key, "--port", "0"],
                           capture_output=True, text=True, timeout=20)
        message = r.stdout + r.stderr
        if r.returncode == 0 or "chmod" not in message:
            failures.append(f"key mode 0644: exit {r.returncode}, message {message.strip()[:200]!r}")
        os.chmod(server.key, 0o600)
    finally:
        server.cleanup()
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    print(f"revoked token refused {window:.1f} s after `pinset token revoke` " if window
          else "revoked token never refused")
    print(f"admin operations: {len(ops)}, unauthorised requests tried: {tried}, all 401: "
          f"{not any('[' in f for f in failures)}; bytes scanned for tokens: {scanned}; "
          f"key 0644 refused: {not any('0644' in f for f in failures)}")
    figure("auth", operations=len(ops), requests=tried, failures=len(failures), bytes_scanned=scanned)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
