import Foundation
import TestSupport
import Testing

/// Issue 40, items 9 and 12, through a real `pinset serve`: no request can write a line of its own into the log,
/// a decoded NUL or other control character in a path is refused (400), and refused admin logins are logged,
/// rate-limited, without the token.
@Suite(.blocking) struct ServerLogSafetyTests {
    @Test func pathsWithControlCharactersAre400AndForgeNoLogLine() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(directory: dir, stderr: .collect)
        defer { server.stop() }
        let http = TestHTTPClient(url: server.url)
        let admin = ["Authorization": "Bearer \(server.token)"]
        let pins = [UInt8(1), 2].map { Data(repeating: $0, count: 32).base64EncodedString() }
        let set = #"{"pins":[{"sha256":"\#(pins[0])"},{"sha256":"\#(pins[1])","role":"backup"}]}"#
        #expect(
            try http.request("PUT", "/admin/hosts/b.example.com", headers: admin, body: Array(set.utf8)).status == 201)
        // Finding 12: the NUL ended the path, and b.example.com was served.
        let nul = try http.request("GET", "/pins/b.example.com%00.evil")
        #expect(nul.status == 400, "\(nul.status) \(nul.text)")
        #expect(nul.header("Content-Type") == "application/problem+json")
        #expect(try http.request("GET", "/pins/b.example.com").status == 200)
        // Finding 9: a scoped token's refused request logged its path, and %0A started a forged line.
        let reader = try CLIRunner.pinset([
            "token", "create", "--db", dir.appendingPathComponent("db.sqlite").path, "--name", "auditor", "--role",
            "reader",
        ])
        let readerToken = reader.stdout.split(separator: "\n").last.map(String.init) ?? ""
        for path in ["/admin/hosts/a.example%0AFORGED-LINE", "/admin/hosts/a.example%0d%0aFORGED-LINE"] {
            let forged = try http.request(
                "PUT", path, headers: ["Authorization": "Bearer \(readerToken)"], body: Array(set.utf8))
            #expect(forged.status == 400, "\(forged.status) \(forged.text)")
        }
        #expect(try http.request("GET", "/healthz%7F").status == 400)
        // An escape that is no control character still reaches its route.
        #expect(try http.request("GET", "/pins/b%2Eexample.com").status == 200)
        Thread.sleep(forTimeInterval: 0.5)  // the log pipe is read on its own thread
        let lines = server.process.stderrText.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
        #expect(!lines.contains { $0.hasPrefix("FORGED") }, "\(server.process.stderrText)")
    }

    @Test func refusedLoginsAreLoggedRateLimitedWithoutTheToken() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(directory: dir, stderr: .collect)
        defer { server.stop() }
        let http = TestHTTPClient(url: server.url)
        let guess = "pst_" + String(repeating: "G", count: 43)
        for _ in 0..<25 {
            #expect(
                try http.request("GET", "/admin/hosts", headers: ["Authorization": "Bearer \(guess)"]).status == 401)
        }
        #expect(try http.request("GET", "/admin/hosts").status == 401)
        var log = ""
        for _ in 0..<50 {
            log = server.process.stderrText
            if log.contains("admin authentication failed") { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 0.3)
        log = server.process.stderrText
        let failures = log.split(separator: "\n").filter { $0.contains("admin authentication failed") }
        #expect(failures.count >= 1 && failures.count <= 10, "\(failures.count): \(log)")
        #expect(failures.first?.contains("address=127.0.0.1") == true, "\(failures)")
        #expect(!log.contains(guess))
        #expect(!log.contains(String(guess.dropFirst(4).prefix(12))))
    }
}
