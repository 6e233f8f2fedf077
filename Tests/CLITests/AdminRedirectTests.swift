import Foundation
import TestSupport
import Testing

/// Issue 40, item 8: the CLI never sends the admin token across a redirect to another origin.
@Suite(.blocking) struct AdminRedirectTests {
    /// Two listeners on 127.0.0.1: the first redirects (307) `/admin/hosts` to itself under `/same/` once, then to
    /// the second (another port: another origin); each writes the `Authorization` it received to the file named by
    /// its argument.
    static let script = #"""
        import http.server, sys, threading
        log = open(sys.argv[1], "a")
        def seen(line): log.write(line + "\n"); log.flush()
        class Other(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen("other:" + self.path + ":" + str(self.headers.get("Authorization")))
                body = b'{"hosts":[]}'
                self.send_response(200); self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
            def log_message(self, *a): pass
        other = http.server.HTTPServer(("127.0.0.1", 0), Other)
        class First(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen("first:" + self.path + ":" + str(self.headers.get("Authorization")))
                target = "/same" + self.path if not self.path.startswith("/same") else "http://127.0.0.1:%d%s" % (other.server_port, self.path)
                self.send_response(307); self.send_header("Location", target); self.send_header("Content-Length", "0"); self.end_headers()
            def log_message(self, *a): pass
        first = http.server.HTTPServer(("127.0.0.1", 0), First)
        for server in (first, other): threading.Thread(target=server.serve_forever, daemon=True).start()
        print(first.server_port, flush=True)
        threading.Event().wait(120)
        """#

    @Test func theTokenStaysWithItsOrigin() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = dir.appendingPathComponent("seen.txt").path
        let redirector = try ProcessRunner.start("python3", ["-c", Self.script, log], stdout: .pipe)
        defer { redirector.kill() }
        let port = redirector.readStdout(lines: 1).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int(port) != nil)
        let secret = "pst_" + String(repeating: "S", count: 43)
        let hosts = try CLIRunner.pinset(
            ["hosts", "--json"], environment: ["PINSET_SERVER": "http://127.0.0.1:\(port)", "PINSET_TOKEN": secret])
        #expect(hosts.status == 0, "\(hosts.stderr)")
        let seen = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(seen.count == 3, "\(seen)")
        // The same origin keeps the token (a redirect within the server); another port of the same host does not.
        #expect(seen.first == "first:/admin/hosts:Bearer \(secret)")
        #expect(seen.dropFirst().first == "first:/same/admin/hosts:Bearer \(secret)")
        #expect(seen.last == "other:/same/admin/hosts:None", "\(seen)")
    }
}
