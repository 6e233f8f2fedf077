"""Shared helpers for the hardening scripts: start/stop a real pinset server, make tokens, talk HTTP.

Every script takes the server binary from $PINSET (default: `pinset` on PATH).
"""

import base64
import http.client
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PINSET = os.environ.get("PINSET", "pinset")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERIFIER = os.path.join(ROOT, "scripts", "verify_document.py")
OPENAPI = os.path.join(ROOT, "openapi.yaml")


def binary() -> str:
    """The pinset binary; waits up to 120 s if it is being rebuilt."""
    path = shutil.which(PINSET) or PINSET
    for _ in range(120):
        if os.path.exists(path) and os.access(path, os.X_OK):
            return path
        time.sleep(1)
    sys.exit(f"pinset binary not found at {PINSET}: set $PINSET")


class Server:
    """A pinset server in a temp dir: real SQLite file, real key, ephemeral port."""

    def __init__(self, workdir: str | None = None, extra: list[str] | None = None):
        self.dir = workdir or tempfile.mkdtemp(prefix="pinset-hardening-")
        self.db = os.path.join(self.dir, "pinset.sqlite")
        self.key = os.path.join(self.dir, "key.pem")
        self.pub = os.path.join(self.dir, "pub.pem")
        self.stderr_path = os.path.join(self.dir, "stderr.log")
        self.extra = extra or []
        self.proc: subprocess.Popen | None = None
        self.port = 0
        if not os.path.exists(self.key):
            subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", self.key], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            os.chmod(self.key, 0o600)
            subprocess.run(["openssl", "pkey", "-in", self.key, "-pubout", "-out", self.pub], check=True)

    def token(self, name: str, *options: str) -> str:
        """A new token; options such as "--role", "writer", "--hosts", "*.example.com" scope it."""
        out = subprocess.run([binary(), "token", "create", "--db", self.db, "--name", name, *options],
                             check=True, capture_output=True, text=True).stdout
        return out.strip().splitlines()[-1].strip()

    def revoke(self, name: str) -> None:
        subprocess.run([binary(), "token", "revoke", "--db", self.db, name], check=True, capture_output=True)

    def start(self, port: int = 0) -> None:
        args = [binary(), "serve", "--db", self.db, "--key", self.key, "--port", str(port),
                "--bind", "127.0.0.1", *self.extra]
        err = open(self.stderr_path, "ab")
        # The pre-flight check (issue 14) probes each written host: send every probe to a closed loopback port,
        # so runs are the same offline and online (no probe of a real example.com) and never wait on a timeout.
        env = dict(os.environ)
        env.setdefault("PINSET_CONNECT_TO", "::127.0.0.1:9")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err, env=env)
        line = self.proc.stdout.readline().decode()
        if "serving on" not in line:
            self.proc.wait(5)
            raise RuntimeError(f"server did not start: {line!r}; stderr in {self.stderr_path}")
        self.port = int(line.strip().rsplit(":", 1)[1].strip("/"))
        # Drain stdout so the server never blocks on a full pipe.
        import threading
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()

    def kill9(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> int:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()
                return -9
        return self.proc.returncode if self.proc else 0

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def rss_kib(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def conn(self, timeout: float = 10) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def cleanup(self) -> None:
        self.stop()
        if not os.environ.get("KEEP"):
            shutil.rmtree(self.dir, ignore_errors=True)


def request(conn: http.client.HTTPConnection, method: str, path: str, token: str | None = None,
            body=None, headers: dict | None = None) -> tuple[int, dict, bytes]:
    h = dict(headers or {})
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = json.dumps(body).encode() if not isinstance(body, bytes) else body
        h["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=h)
    resp = conn.getresponse()
    payload = resp.read()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, payload


def random_pin(role: str = "current") -> dict:
    return {"sha256": base64.b64encode(secrets.token_bytes(32)).decode(), "role": role}


def valid_set() -> dict:
    return {"pins": [random_pin("current"), random_pin("backup")], "includeSubdomains": False, "enforce": True}


def verify_document(doc: bytes, pubkey: str, host: str) -> dict | None:
    """Runs the independent verifier; returns the payload or None when rejected."""
    r = subprocess.run([sys.executable, VERIFIER, "--doc", "-", "--pubkey", pubkey, "--host", host],
                       input=doc, capture_output=True)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout)


def wait_healthy(server: Server, seconds: float = 10) -> bool:
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            c = server.conn(2)
            status, _, _ = request(c, "GET", "/healthz")
            c.close()
            if status == 200:
                return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def figure(name: str, **values) -> None:
    """Prints the script's final figure line (run_all.py parses it)."""
    print(f"FIGURE {name} " + json.dumps(values), flush=True)
