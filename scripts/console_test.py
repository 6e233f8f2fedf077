#!/usr/bin/env python3
"""The admin console (issue 15) in a real browser: headless Chromium driven by selenium against a real
`pinset serve --dev --port 0` on a temporary database, on loopback only.

    PINSET=.build/debug/pinset scripts/console_test.py [--screenshots DIR] [--docs DIR] [--keep]

Checks: 1 log in; 2 create a host with a current and a backup pin; 3 GET /pins/{host} serves it; 4 an
unsafe set shows its 422 rule; 5 a posted report shows in the chart; 6 the signature badge says verified;
7 an XSS attempt in a comment shows as text; 8 the browser console logs no errors; 9 usable 375 px wide and
in dark mode; 10 add a pin by PEM, capture shows the server's answer; 11 a write from a stale page gets 412;
12 the hosts page shows the monitor's last pass; 13 it pages through hosts 200 at a time; 14 the Log page
shows the tree size, the checkpoint with its log signature checked in the browser (WebCrypto Ed25519), the
witness's cosignature and last answer; 15 a host's page checks its document's log proof in the browser
(RFC 6962 inclusion with WebCrypto SHA-256, and the checkpoint's signature); 16 a log fork (issue 35: a thief's
server on a backup, with the same keys and witness) shows on the Log page with both notes, and its Acknowledge
button closes it (still listed); 17 log-out forgets the token; 18 a readable error when the server is down. The server keeps a transparency log cosigned by a real
`pinset witness`. Screenshots of every page go to --screenshots (default
.build/console-screenshots). --docs DIR also writes the two screenshots of docs/CONSOLE.md there. Every wait is
bounded; the closing line reads `N passed, M failed`.
"""

import argparse
import base64
import concurrent.futures
import json
import os
import queue
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parent.parent
WAIT = 15  # seconds, for every wait in the browser
XSS = '<script>window.__xss = 1</script><img src="x" onerror="window.__xss = 2">'
HOST = "console.example.com"


def pin() -> str:
    return base64.b64encode(secrets.token_bytes(32)).decode()


LOG_ORIGIN = "console.test/log"


def banner(proc: subprocess.Popen, seconds: float = 30):
    """The lines a child prints on standard output, stripped, for at most `seconds` (a thread reads them)."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            yield lines.get(timeout=max(0.1, deadline - time.time())).strip()
        except queue.Empty:
            return


def ed25519_key(path: str) -> str:
    """A new Ed25519 PKCS#8 PEM key at `path`, mode 0600, made by the openssl CLI."""
    subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", path], check=True, capture_output=True,
                   timeout=30)
    os.chmod(path, 0o600)
    return path


def stop_process(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class Witness:
    """`pinset witness` on an ephemeral loopback port, following the log whose vkey is given."""

    def __init__(self, binary: str, directory: str, log_vkey: str):
        key = ed25519_key(os.path.join(directory, "witness-key.pem"))
        self.proc = subprocess.Popen([binary, "witness", "--port", "0", "--name", "w1.console.test", "--key", key,
                                      "--log", log_vkey, "--db", os.path.join(directory, "witness.sqlite")],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.url = self.vkey = None
        for line in banner(self.proc):
            if "serving on" in line:
                self.url = line.rsplit(" ", 1)[1].rstrip("/")
            elif line.startswith("vkey: "):
                self.vkey = line.split(" ", 1)[1]
                break
        if not self.url or not self.vkey:
            self.stop()
            raise RuntimeError("pinset witness did not print its URL and vkey")

    def stop(self) -> None:
        stop_process(self.proc)


class Server:
    """`pinset serve --dev` on an ephemeral loopback port, with its database and key in a temp folder, and a
    transparency log (PROTOCOL §7) cosigned by a `pinset witness`."""

    def __init__(self, binary: str, directory: str):
        self.directory = directory
        self.binary = binary
        log_key = ed25519_key(os.path.join(directory, "log-key.pem"))
        self.log_vkey = subprocess.run([binary, "log", "vkey", "--key", log_key, "--origin", LOG_ORIGIN], check=True,
                                       capture_output=True, text=True, timeout=30).stdout.strip()
        self.witness = Witness(binary, directory, self.log_vkey)
        # A 3 s monitor interval, so that full passes end while the checks run (check 12).
        args = [binary, "serve", "--dev", "--port", "0", "--bind", "127.0.0.1", "--monitor-interval", "3s",
                "--db", os.path.join(directory, "pinset.sqlite"), "--key", os.path.join(directory, "key.pem"),
                "--log-key", log_key, "--log-origin", LOG_ORIGIN, "--witness", self.witness.url, self.witness.vkey,
                "--witness-retry", "2"]
        self.stderr = open(os.path.join(directory, "stderr.log"), "wb")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.url = self.token = None
        want_token = False
        for line in banner(self.proc):
            if "serving on" in line:
                self.url = line.rsplit(" ", 1)[1].rstrip("/")
            elif line.startswith("admin token"):
                want_token = True
            elif want_token and line:
                self.token = line
                break
        if not self.url or not self.token:
            self.stop()
            raise RuntimeError(f"pinset serve --dev did not print its URL and token; see {directory}/stderr.log")

    def request(self, method: str, path: str, body=None, token: str | None = None) -> tuple[int, bytes]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=10) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def stop(self) -> None:
        stop_process(self.proc)
        self.stderr.close()
        self.witness.stop()


class Thief:
    """Issue 35's attack on the console's server: a `pinset serve` on a backup of its database with the same signing
    and log keys and the same witness, so that the witness cosigns the thief's extension of the log and then refuses
    the honest server's next checkpoint, which the honest server records as a fork (PROTOCOL §7.2)."""

    def __init__(self, server: Server):
        directory, binary = server.directory, server.binary
        database = os.path.join(directory, "thief.sqlite")
        subprocess.run([binary, "backup", "--db", os.path.join(directory, "pinset.sqlite"), "--out", database],
                       check=True, capture_output=True, timeout=60)
        self.token = subprocess.run([binary, "token", "create", "--db", database, "--name", "thief"], check=True,
                                    capture_output=True, text=True, timeout=60).stdout.strip().splitlines()[-1]
        args = [binary, "serve", "--dev", "--port", "0", "--bind", "127.0.0.1", "--db", database,
                "--key", os.path.join(directory, "key.pem"), "--log-key", os.path.join(directory, "log-key.pem"),
                "--log-origin", LOG_ORIGIN, "--witness", server.witness.url, server.witness.vkey]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.url = next((line.rsplit(" ", 1)[1].rstrip("/") for line in banner(self.proc) if "serving on" in line), None)
        if not self.url:
            self.stop()
            raise RuntimeError("the thief's pinset serve did not print its URL")

    request = Server.request

    def stop(self) -> None:
        stop_process(self.proc)


def certificate(directory: str, name: str) -> str:
    """A self-signed P-256 certificate made with the openssl CLI, as PEM."""
    key, cert = os.path.join(directory, f"{name}.key"), os.path.join(directory, f"{name}.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", key, "-out", cert, "-subj", f"/CN={name}", "-days", "2"],
                   check=True, capture_output=True, timeout=30)
    return Path(cert).read_text()


def trustkit_report(host: str, chain_pem: str, known: list[str]) -> dict:
    return {
        "app-bundle-id": "com.example.app", "app-version": "1.0", "app-platform": "IOS",
        "app-platform-version": "17.4.1", "app-vendor-id": "599F9C00-92DC-4B5C-9464-7971F01F8370",
        "trustkit-version": "3.0.3", "hostname": host, "port": 443, "noted-hostname": host,
        "include-subdomains": False, "enforce-pinning": True, "validated-certificate-chain": [chain_pem],
        "known-pins": [f'pin-sha256="{p}"' for p in known], "validation-result": 1,
        "date-time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def browser(width: int, height: int) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    if os.path.exists("/usr/bin/chromium"):
        options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                     "--disable-background-networking", "--disable-sync", "--disable-component-update",
                     f"--window-size={width},{height}", "--force-device-scale-factor=1", "--lang=en-US"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


class Run:
    def __init__(self, driver, server: Server, shots: Path):
        self.driver, self.server, self.shots = driver, server, shots
        self.passed = self.failed = 0
        self.logs: list[dict] = []

    def wait(self, condition, what: str, seconds: float = WAIT):
        try:
            # A page re-renders as its data arrives: an element found a moment ago may be replaced.
            return WebDriverWait(self.driver, seconds, poll_frequency=0.1,
                                 ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)).until(condition)
        except TimeoutException:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}") from None

    def css(self, selector: str, what: str | None = None):
        return self.wait(lambda d: d.find_element(By.CSS_SELECTOR, selector), what or selector)

    def text_of(self, selector: str, contains: str, what: str):
        def check(d):
            elements = d.find_elements(By.CSS_SELECTOR, selector)
            return elements[0] if elements and contains in elements[0].text else False
        return self.wait(check, what)

    def shot(self, name: str) -> None:
        self.shots.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(self.shots / f"{name}.png"))

    def collect_logs(self) -> None:
        self.logs += self.driver.get_log("browser")

    def go(self, hash_route: str, ready: str) -> None:
        self.driver.get(f"{self.server.url}/console{hash_route}")
        self.css(ready, f"{hash_route} to render {ready}")

    def check(self, number: int, title: str, body) -> None:
        start = time.time()
        try:
            body()
            self.passed += 1
            print(f"  ok   {number} {title} ({time.time() - start:.1f} s)", flush=True)
        except Exception as error:  # noqa: BLE001 - every failure is reported, the run goes on
            self.failed += 1
            print(f"  FAIL {number} {title}: {error}", flush=True)
            if not isinstance(error, AssertionError):
                traceback.print_exc()
            try:
                self.shot(f"failure-{number}")
            except Exception:  # noqa: BLE001
                pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", default=str(ROOT / ".build" / "console-screenshots"))
    parser.add_argument("--docs", help="also write docs/CONSOLE.md's screenshots (console-hosts.png, console-host.png) here")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder (database, server log)")
    args = parser.parse_args()
    binary = os.environ.get("PINSET") or str(ROOT / ".build" / "debug" / "pinset")
    if not os.access(binary, os.X_OK):
        print(f"console_test: no pinset binary at {binary}: build it or set $PINSET", file=sys.stderr)
        return 2

    directory = tempfile.mkdtemp(prefix="pinset-console-")
    server = Server(binary, directory)
    driver = None
    try:
        started = time.time()
        driver = browser(1100, 900)
        print(f"console_test: pinset at {server.url}, Chromium {driver.capabilities.get('browserVersion')} "
              f"started in {time.time() - started:.1f} s", flush=True)
        shutil.rmtree(args.screenshots, ignore_errors=True)  # only this run's pictures
        run = Run(driver, server, Path(args.screenshots))
        current, backup = pin(), pin()
        served_cert = certificate(directory, "served")

        def log_page():
            run.go("#/log", "#log-vkey")
            run.text_of("h1", "Transparency log", "the Log heading")
            checkpoint = run.css("#checkpoint").text
            assert checkpoint.startswith(LOG_ORIGIN + "\n"), checkpoint
            assert "tree size" in run.css(".badges").text
            # Without the vkey the signature is not checked; with it, it verifies; with another key, it does not.
            run.text_of("#checkpoint-signature", "not checked", "the unchecked signature badge")
            field = run.css("#log-vkey")
            field.send_keys(server.log_vkey, Keys.ENTER)
            run.text_of("#checkpoint-signature", "log signature verified", "the log signature verified")
            # The witness cosigns within its round; the page shows it and its last answer.
            def cosigned(d):
                d.refresh()
                return "w1.console.test" in d.find_element(By.CSS_SELECTOR, "#cosigned-by").text
            run.wait(cosigned, "the witness's cosignature", seconds=20)
            witnesses = run.css("#witnesses").text
            assert "w1.console.test" in witnesses and server.witness.url in witnesses, witnesses
            run.shot("14-log")
            other = server.log_vkey[:-6] + ("AAAAAA" if not server.log_vkey.endswith("AAAAAA") else "BBBBBB")
            field = run.css("#log-vkey")
            field.clear()
            field.send_keys(other, Keys.ENTER)
            run.wait(lambda d: "verified" in d.find_element(By.CSS_SELECTOR, "#checkpoint-signature").text
                     or "vkey" in d.find_element(By.CSS_SELECTOR, "#checkpoint-signature").text, "a refused key")
            assert run.css("#checkpoint-signature").text != "log signature verified"
            field = run.css("#log-vkey")
            field.clear()
            field.send_keys(server.log_vkey, Keys.ENTER)
            run.text_of("#checkpoint-signature", "log signature verified", "the log signature verified again")

        def host_proof():
            run.go(f"#/hosts/{HOST}", "#log-proof")
            verdict = run.wait(lambda d: (e := d.find_element(By.CSS_SELECTOR, "#proof"))
                               and "checking" not in e.text and e, "the proof check to finish")
            text = verdict.text
            assert text.startswith("included") and "log signature verified" in text, text
            assert f"of {LOG_ORIGIN}" in text, text
            run.shot("15-host-proof")

        def log_fork():
            status, body = server.request("GET", "/admin/log", token=server.token)
            honest_size = json.loads(body)["treeSize"]
            thief = Thief(server)
            try:
                body = {"pins": [{"sha256": pin(), "role": "current"}, {"sha256": pin(), "role": "backup"}]}
                status, answer = thief.request("PUT", f"/admin/hosts/{HOST}", body, token=thief.token)
                assert status == 200, f"the thief's write answered {status}: {answer[:300]!r}"
                deadline = time.time() + 30
                while time.time() < deadline:
                    log = json.loads(thief.request("GET", "/admin/log", token=thief.token)[1])
                    if log["checkpointSize"] > honest_size and log.get("cosignedBy"):
                        break
                    time.sleep(0.2)
                else:
                    raise AssertionError(f"the witness did not cosign the thief's extension: {log}")
                thief_size = log["checkpointSize"]
            finally:
                thief.stop()
            # The honest server's next checkpoint: the witness refuses it, the server records the fork.
            status, _ = server.request("PUT", "/admin/hosts/fork.example.com", body, token=server.token)
            assert status == 201, f"the honest write answered {status}"

            deadline = time.time() + 40
            while time.time() < deadline:
                log = json.loads(server.request("GET", "/admin/log", token=server.token)[1])
                if log["openForks"] >= 1:
                    break
                time.sleep(0.2)
            else:
                raise AssertionError(f"the honest server recorded no fork: {json.dumps(log)[:600]}")
            run.go("#/log", "#log-vkey")
            driver.refresh()  # the same route again: load it afresh
            run.css("#log-forks", "the fork on the Log page")
            run.text_of("#forks-title", "LOG FORK: 1 open", "the open fork's badge")
            foreign = run.css("#log-forks .foreign-checkpoint").text
            assert foreign.startswith(f"{LOG_ORIGIN}\n{thief_size}\n"), foreign
            assert run.css("#log-forks .own-checkpoint").text.startswith(f"{LOG_ORIGIN}\n")
            run.shot("16-log-fork")
            status, body = server.request("GET", "/admin/log", token=server.token)
            fork_id = json.loads(body)["forks"][0]["id"]
            # The button sits behind a disclosure: one stray click cannot hide the alert.
            assert not run.css(f"#ack-fork-{fork_id}").is_displayed()
            run.css("#log-forks details summary").click()
            run.css(f"#ack-fork-{fork_id}").click()
            run.text_of("#log-notice", f"Fork {fork_id} acknowledged", "the acknowledgement's notice")
            assert not driver.find_elements(By.CSS_SELECTOR, "#log-forks"), "no open fork is shown"
            run.text_of("#acknowledged-forks summary", "1 acknowledged fork", "the acknowledged fork, still listed")
            status, body = server.request("GET", "/admin/log", token=server.token)
            assert json.loads(body)["openForks"] == 0, body[:300]
            metrics = server.request("GET", "/metrics", token=server.token)[1].decode()
            assert "pinset_log_forks 0\n" in metrics, [l for l in metrics.splitlines() if "fork" in l]
            run.shot("16-log-fork-acknowledged")

        def log_in():
            driver.get(f"{server.url}/console")
            field = run.css("#token", "the token field")
            assert driver.switch_to.active_element == field, "the token field has the focus (keyboard use)"
            run.shot("1-login")
            field.send_keys(server.token, Keys.ENTER)  # keyboard only: type, then Enter submits
            run.css("#hosts", "the hosts table")
            run.text_of("h1", "Hosts", "the Hosts heading")
            stored = driver.execute_script("return sessionStorage.getItem('pinset.adminToken')")
            assert stored == server.token, "the token is kept in sessionStorage"
            assert driver.execute_script("return document.cookie") == "", "no cookies"
            assert not driver.get_cookies(), "no cookies"

        def create_host():
            run.css("#new-host").send_keys(HOST)
            run.css("#new-current").send_keys(current)
            run.css("#new-backup").send_keys(backup)
            run.css("#new-host-form button[type=submit]").click()
            run.text_of("h1", HOST, "the host's page")
            run.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#pins tbody tr")) == 2, "two pins listed")
            roles = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#pins tbody tr td:first-child")]
            assert roles == ["current", "backup"], roles
            run.shot("2-host")

        def served_document():
            status, body = server.request("GET", f"/pins/{HOST}")
            assert status == 200, f"GET /pins/{HOST} answered {status}"
            document = json.loads(body)
            payload = json.loads(base64.urlsafe_b64decode(document["payload"] + "=" * (-len(document["payload"]) % 4)))
            assert payload["host"] == HOST and {p["sha256"] for p in payload["pins"]} == {current, backup}, payload
            shown = json.loads(run.css("#payload", "the decoded payload").text)
            assert shown == payload, "the page shows the payload as served"

        def unsafe_set():
            run.go("#/hosts", "#new-host-form")
            run.css("#new-host").send_keys("unsafe.example.com")
            run.css("#new-current").send_keys(pin())
            run.css("#new-host-form button[type=submit]").click()
            error = run.text_of("#new-backup-error", "backupRuleViolated", "the 422 rule next to the backup pin")
            assert "422" in error.text, error.text
            assert run.css("#new-backup").get_attribute("aria-invalid") == "true"
            run.shot("4-unsafe-set")
            status, _ = server.request("GET", "/admin/hosts/unsafe.example.com", token=server.token)
            assert status == 404, "the unsafe set was not stored"

        def report_in_chart():
            status, body = server.request("POST", "/reports", trustkit_report(HOST, served_cert, [current, backup]))
            assert status == 204, f"POST /reports answered {status}: {body[:300]!r}"
            run.go("#/reports", "svg.chart")
            bar = run.css(f'svg.chart rect.bar[data-host="{HOST}"]', "a bar for the host")
            assert bar.get_attribute("data-count") == "1", bar.get_attribute("data-count")
            assert bar.get_attribute("data-day") == time.strftime("%Y-%m-%d", time.gmtime())
            run.text_of("#report-groups", HOST, "the report's group in the table")
            run.shot("5-reports")

        def signature_verified():
            run.go(f"#/hosts/{HOST}", "#signature")
            badge = run.wait(lambda d: (e := d.find_element(By.CSS_SELECTOR, "#signature .badge"))
                             and e.text != "checking…" and e, "the signature check to finish")
            assert badge.text == "verified", driver.find_element(By.CSS_SELECTOR, "#signature").text

        def xss_as_text():
            run.css("#pin-hash").send_keys(pin())
            driver.find_element(By.CSS_SELECTOR, "#pin-role option[value=future]").click()
            run.css("#pin-comment").send_keys(XSS)
            run.css("#add-pin-form button[type=submit]").click()
            run.text_of(".notice", "Pin added", "the pin to be added")
            cell = run.wait(lambda d: [c for c in d.find_elements(By.CSS_SELECTOR, "#pins td.comment") if c.text], "the comment")
            assert cell[0].text == XSS, f"comment shown as {cell[0].text!r}"
            assert driver.execute_script("return window.__xss") is None, "the comment's script ran"
            assert not driver.find_elements(By.CSS_SELECTOR, "main script, main img"), "the comment became markup"
            run.shot("7-xss-as-text")

        def no_console_errors():
            for route, ready in (("#/trust", "#keys"), ("#/hosts", "#hosts")):
                run.go(route, ready)
                run.shot(f"8-{route.strip('#/')}")
            run.collect_logs()
            # Expected network answers (Chromium logs every 4xx of fetch as a console error): the 422 of check 4,
            # and the 404 of GET /trust on a server without root keys (feature detection).
            expected = ("/admin/hosts/unsafe.example.com - Failed to load resource: the server responded with a status of 422",
                        "/trust - Failed to load resource: the server responded with a status of 404")
            errors = [e for e in run.logs if e["level"] in ("SEVERE", "WARNING")
                      and not (e.get("source") == "network" and any(x in e["message"] for x in expected))]
            allowed = len([e for e in run.logs if e["level"] in ("SEVERE", "WARNING")]) - len(errors)
            print(f"       browser log: {len(run.logs)} entries, {allowed} expected network answers, {len(errors)} errors")
            assert not errors, "\n".join(f"{e['level']} {e.get('source')}: {e['message']}" for e in errors)

        def narrow_screen():
            driver.set_window_size(375, 800)
            for route, ready, name in ((f"#/hosts/{HOST}", "#signature .badge", "9-host-375px"),
                                       ("#/hosts", "#hosts", "9-hosts-375px"), ("#/reports", "svg.chart", "9-reports-375px")):
                run.go(route, ready)
                measure = """const w = document.documentElement.clientWidth;
                    return [w, document.documentElement.scrollWidth, [...document.querySelectorAll('body *')]
                      .filter(e => !e.closest('.scroll') && e.getBoundingClientRect().right > w + 1)
                      .slice(0, 5).map(e => e.tagName + '.' + e.className)];"""
                try:  # once the page has settled (a resize and a render just happened)
                    run.wait(lambda d: (m := d.execute_script(measure))[1] <= m[0] + 1, "no sideways scroll", 5)
                except AssertionError:
                    width, scroll, wide = driver.execute_script(measure)
                    raise AssertionError(f"{route}: the page scrolls sideways at {width} px ({scroll} px wide): {wide}")
                run.shot(name)
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
            run.go(f"#/hosts/{HOST}", "#signature .badge")
            background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
            assert background != "rgb(246, 247, 249)", f"dark mode background is {background}"
            run.shot("9-host-375px-dark")
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
            driver.set_window_size(1100, 900)

        def pem_and_capture():
            run.go(f"#/hosts/{HOST}", "#add-pin-form")
            # Capture from the live host: a server without the pre-flight refuses it, and the page shows why.
            run.css("#add-pin-form input[value=capture]").click()
            run.css("#add-pin-form button[type=submit]").click()
            refusal = run.wait(lambda d: (e := d.find_element(By.CSS_SELECTOR, "#add-error")).text and e, "the capture's answer")
            assert any(code in refusal.text for code in ("400", "422")), refusal.text
            # A pasted PEM certificate: the server derives the pin, the same one openssl computes.
            run.css("#add-pin-form input[value=certificate]").click()
            run.css("#pin-pem").send_keys(served_cert)
            driver.find_element(By.CSS_SELECTOR, "#pin-role option[value=future]").click()
            run.css("#add-pin-form button[type=submit]").click()
            run.text_of(".notice", "Pin added", "the certificate's pin to be added")
            expected = subprocess.run(
                ["sh", "-c", "openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary"
                 " | base64"], input=served_cert, capture_output=True, text=True, timeout=30, check=True).stdout.strip()
            run.css(f'#pins tr[data-pin="{expected}"]', "the certificate's SPKI pin in the table")
            run.shot("10-pem")

        def stale_etag():
            run.go(f"#/hosts/{HOST}", "#toggle-enforce")
            # Someone else changes the host after the page loaded: the page's ETag is now stale.
            status, _ = server.request("POST", f"/admin/hosts/{HOST}/pins", {"pins": [{"sha256": pin(), "role": "backup"}]},
                                       token=server.token)
            assert status == 200, f"the concurrent write answered {status}"
            run.css("#toggle-enforce").click()
            error = run.text_of("#policy-error", "412", "the 412 next to the policy switch")
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", error)
            status, body = server.request("GET", f"/admin/hosts/{HOST}", token=server.token)
            assert json.loads(body)["enforce"] is True, "the stale write changed nothing"
            run.shot("11-stale-etag")
            run.css("#policy-error button").click()  # "Reload this host"
            run.wait(lambda d: d.find_element(By.CSS_SELECTOR, "#pins-title").text == "Pins (5)", "the reloaded host")

        def server_down():
            driver.execute_script("sessionStorage.setItem('pinset.adminToken', arguments[0])", server.token)
            server.stop()
            driver.execute_script("location.hash = '#/reports'")
            run.text_of("main .error", "does not answer", "a readable error")
            run.css("main button", "a Retry button")
            run.shot("13-server-down")

        def monitor_pass():
            def shown(d):
                time.sleep(0.5)
                d.get(f"{server.url}/console#/hosts")
                elements = d.find_elements(By.CSS_SELECTOR, "#monitor-pass")
                return elements[0] if elements and "the last pass probed" in elements[0].text else False
            text = run.wait(shown, "the monitor's last pass on the hosts page", seconds=30).text
            status, body = server.request("GET", "/metrics")
            hosts = next(line.split()[1] for line in body.decode().splitlines()
                         if line.startswith("pinset_monitor_pass_hosts "))
            assert f"probed {hosts} host" in text, (text, hosts)

        def paging():
            # 16 writers at once: a write costs about 0.3 s here (its pre-flight probe of a name that does not
            # resolve), so 205 in a row took 77 s; the server's worker threads take them two at a time.
            def put(n):
                body = {"pins": [{"sha256": pin(), "role": "current"}, {"sha256": pin(), "role": "backup"}]}
                return server.request("PUT", f"/admin/hosts/page-{n:03d}.example.com", body, token=server.token)[0]
            with concurrent.futures.ThreadPoolExecutor(16) as pool:
                statuses = list(pool.map(put, range(205)))
            assert statuses == [201] * 205, statuses
            status, body = server.request("GET", "/admin/hosts", token=server.token)
            total = len(json.loads(body)["hosts"])
            run.go("#/trust", "#keys")  # leave #/hosts, which check 12 left open, so that it loads again
            run.go("#/hosts", "#next-page")
            run.text_of("#host-count", "200 of 200 hosts on page 1", "the first page of 200")
            assert not driver.find_elements(By.CSS_SELECTOR, "#previous-page")
            run.css("#next-page").click()
            run.text_of("#host-count", f"{total - 200} of {total - 200} host", "the second page")
            run.text_of("#host-count", "on page 2", "the second page's number")
            assert not driver.find_elements(By.CSS_SELECTOR, "#next-page"), "the last page has no Next"
            run.css("#previous-page").click()
            run.text_of("#host-count", "on page 1", "back to the first page")

        def log_out():
            run.go("#/hosts", "#hosts")
            run.css("#logout").click()
            run.css("#token", "the log-in form")
            assert driver.execute_script("return sessionStorage.getItem('pinset.adminToken')") is None
            run.text_of("#login-error", "Logged out", "the log-out notice")

        print("console_test:", flush=True)
        for number, (title, body) in enumerate([
            ("log in (keyboard only; token in sessionStorage, no cookies)", log_in),
            ("create a host with a current and a backup pin", create_host),
            ("GET /pins/{host} serves it, and the page shows the payload served", served_document),
            ("an unsafe set (one pin, no backup) shows its 422 rule next to the field", unsafe_set),
            ("a posted report shows in the chart and the table", report_in_chart),
            ("the signature badge says verified (WebCrypto Ed25519 against /keys)", signature_verified),
            ("an XSS attempt in a comment shows as text", xss_as_text),
            ("the browser console logs no errors", no_console_errors),
            ("usable 375 px wide, and in dark mode", narrow_screen),
            ("add a pin by pasted PEM certificate; a capture shows the server's answer", pem_and_capture),
            ("a write from a stale page is refused (If-Match → 412) and says so", stale_etag),
            ("the hosts page says how long the monitor's last pass took (as /metrics does)", monitor_pass),
            ("the hosts page pages through the hosts, 200 at a time (GET /admin/hosts?limit&after)", paging),
            ("the Log page: tree size, checkpoint signature verified in the browser, the witness's cosignature", log_page),
            ("a host's page verifies its document's log proof in the browser (inclusion and log signature)", host_proof),
            ("a log fork (a thief's extension cosigned by the witness) shows on the Log page and is acknowledged",
             log_fork),
            ("log-out forgets the token", log_out),
            ("a readable error when the server is down", server_down),
        ], start=1):
            if body is server_down and args.docs and run.failed == 0:
                docs_screenshots(run, Path(args.docs))
            run.check(number, title, body)
        print(f"console_test: screenshots in {run.shots}")
        print(f"{run.passed} passed, {run.failed} failed")
        return 0 if run.failed == 0 else 1
    finally:
        if driver is not None:
            driver.quit()
        server.stop()
        if args.keep:
            print(f"console_test: kept {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)


def docs_screenshots(run: Run, docs: Path) -> None:
    """The screenshots of docs/CONSOLE.md: a few more hosts and reports, at a modest window size."""
    server, driver = run.server, run.driver
    for host in ("api.example.com", "cdn.example.com", "login.example.com", "payments.example.com"):
        body = {"pins": [{"sha256": pin(), "role": "current"}, {"sha256": pin(), "role": "backup"}], "enforce": host != "cdn.example.com"}
        server.request("PUT", f"/admin/hosts/{host}", body, token=server.token)
    server.request("POST", "/admin/hosts/api.example.com/pins",
                   {"pins": [{"sha256": pin(), "role": "future", "comment": "next key: deploy after the March rotation",
                              "expiresAt": time.strftime("%Y-%m-%dT00:00:00Z", time.gmtime(time.time() + 200 * 86400))}]},
                   token=server.token)
    driver.set_window_size(1000, 760)
    driver.execute_script("sessionStorage.setItem('pinset.adminToken', arguments[0])", server.token)
    driver.refresh()  # check 10 logged out: start again with the token in place
    docs.mkdir(parents=True, exist_ok=True)
    run.go("#/hosts", "#hosts")
    driver.save_screenshot(str(docs / "console-hosts.png"))
    run.go("#/hosts/api.example.com", "#signature .badge")
    run.wait(lambda d: d.find_element(By.CSS_SELECTOR, "#signature .badge").text == "verified", "verified")
    driver.save_screenshot(str(docs / "console-host.png"))
    print(f"console_test: docs/CONSOLE.md screenshots in {docs}")


if __name__ == "__main__":
    sys.exit(main())
