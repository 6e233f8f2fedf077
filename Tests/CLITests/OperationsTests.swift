import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Operations the Kubernetes way (issue 37), through real `pinset serve` processes: `/readyz` apart from
/// `/healthz`, the drain after SIGTERM, `pinset health --ready`, and `--log-format json`.
///
/// The tests are `async` and wait with `Task.sleep`, so no thread of the cooperative pool is held while a process
/// works; every wait is bounded.
@Suite struct OperationsTests {
    /// A `pinset serve --dev --port 0` process with stdout and stderr collected.
    final class Server: @unchecked Sendable {
        let process: ChildProcess
        let directory: URL
        private(set) var url = ""
        private(set) var token = ""

        init(directory: URL, _ arguments: [String], key: String? = nil, environment: [String: String] = [:]) throws {
            self.directory = directory
            var variables: [String: String?] = ["PINSET_TOKEN": nil, "PINSET_SERVER": nil]
            for (name, value) in environment { variables[name] = value }
            process = try ProcessRunner.start(
                CLIRunner.binary,
                [
                    "serve", "--dev", "--db", directory.appendingPathComponent("db.sqlite").path, "--key",
                    key ?? directory.appendingPathComponent("key.pem").path, "--port", "0",
                ] + arguments, environment: variables, stdout: .collect, stderr: .collect)
        }

        /// Waits (at most 30 s) for the banner's URL (a text line on stdout, or the JSON log's `url`) and the
        /// token line (stdout).
        func started() async throws {
            for _ in 0..<600 {
                let lines = process.stdoutText.split(separator: "\n").map(String.init)
                var text: String?
                if let first = lines.first, let range = first.range(of: "http://") {
                    text = String(first[range.lowerBound...])
                }
                let json =
                    process.stderrText.split(separator: "\n").lazy.compactMap {
                        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
                    }.first { $0["url"] != nil }?["url"] as? String
                if let found = text ?? json, let last = lines.last, last.hasPrefix("pst_") {
                    url = found
                    token = last
                    return
                }
                guard process.isRunning else { break }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            process.kill()
            throw ShellError(command: "pinset serve", stderr: process.stdoutText + process.stderrText)
        }

        var http: LoopbackHTTP { LoopbackHTTP(url: url) }

        /// Waits (at most `seconds`) for the process to end; its status, `nil` if it still runs.
        func exit(within seconds: Double) async throws -> Int32? {
            for _ in 0..<Int(seconds * 20) where process.isRunning { try await Task.sleep(nanoseconds: 50_000_000) }
            return process.isRunning ? nil : process.terminationStatus
        }

        func stop() {
            if process.isRunning { process.kill() }
            process.waitUntilExit()
        }
    }

    static func pin() -> String { Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() }

    static func body() -> String {
        #"{"pins":[{"sha256":"\#(pin())","role":"current"},{"sha256":"\#(pin())","role":"backup"}]}"#
    }

    /// `/readyz` is 200 with the conditions it checked; on SIGTERM it turns 503 (`draining`) at once while every
    /// other route keeps answering for `--drain` seconds; then the server stops and exits 0.
    @Test func sigtermDrainsWithReadyz503ThenStops() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A 6 s drain: the requests below must all be answered inside it, even on a loaded 2-core machine.
        let server = try Server(directory: directory, ["--drain", "6", "--log-key", try logKey(in: directory)])
        defer { server.stop() }
        try await server.started()
        let http = server.http
        #expect(try http.request("PUT", "/admin/hosts/a.example", token: server.token, body: Self.body()).status == 201)
        let ready = try http.request("GET", "/readyz")
        #expect(ready.status == 200, "\(ready.body)")
        let conditions = #"{"status":"ready","conditions":["index","signer","storage","integrity","log","draining"]}"#
        #expect(ready.body == conditions, "\(ready.body)")
        let health = try CLIRunner.pinset(["health", "--ready", "--server", server.url])
        #expect(health.status == 0 && health.stdout.contains("ready:"), "\(health.stderr)")

        kill(server.process.processIdentifier, SIGTERM)
        let signalled = Date()
        var draining: LoopbackHTTP.Response?
        for _ in 0..<120 {
            let answer = try http.request("GET", "/readyz")
            if answer.status == 503 {
                draining = answer
                break
            }
            try await Task.sleep(nanoseconds: 25_000_000)
        }
        let answer = try #require(draining, "/readyz still 200 three seconds after SIGTERM")
        #expect(Date().timeIntervalSince(signalled) < 3)
        let problem = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        #expect(problem["type"] as? String == "urn:pinset:problem:not-ready")
        let notReady = problem["notReady"] as? [[String: String]] ?? []
        #expect(notReady.map { $0["name"] } == ["draining"], "\(answer.body)")
        #expect((problem["detail"] as? String)?.contains("draining") == true)
        // Still serving: documents, liveness, even writes.
        #expect(try http.request("GET", "/pins/a.example").status == 200)
        #expect(try http.request("GET", "/healthz").status == 200)
        #expect(try http.request("PUT", "/admin/hosts/b.example", token: server.token, body: Self.body()).status == 201)
        let refused = try CLIRunner.pinset(["health", "--ready", "--server", server.url])
        #expect(refused.status == 1 && refused.lastErrorLine.contains("not ready"), "\(refused.stderr)")
        #expect(refused.lastErrorLine.contains("draining"), "\(refused.stderr)")

        let status = try await server.exit(within: 20)
        #expect(status == 0, "\(server.process.stderrText)")
        // A 6 s drain (generous lower bound for a loaded machine's timer; the upper bound is the 20 s wait).
        #expect(Date().timeIntervalSince(signalled) >= 5)
    }

    /// A server nobody asked `/readyz` (nothing routes by it) stops at once on SIGTERM, drain or not; and a
    /// second signal ends a drain.
    @Test func noDrainWhenReadyzWasNeverAskedAndASecondSignalEndsIt() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let quiet = try Server(directory: directory, ["--drain", "30"])
        defer { quiet.stop() }
        try await quiet.started()
        kill(quiet.process.processIdentifier, SIGTERM)
        #expect(try await quiet.exit(within: 10) == 0)

        let second = directory.appendingPathComponent("second")
        try FileManager.default.createDirectory(at: second, withIntermediateDirectories: true)
        let asked = try Server(directory: second, ["--drain", "30"])
        defer { asked.stop() }
        try await asked.started()
        #expect(try asked.http.request("GET", "/readyz").status == 200)
        kill(asked.process.processIdentifier, SIGTERM)
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(asked.process.isRunning, "draining for 30 s")
        kill(asked.process.processIdentifier, SIGINT)
        #expect(try await asked.exit(within: 10) == 0)
    }

    @Test(.blocking) func badDrainAndLogFormatAreRefusedWithTheFlag() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (arguments, message) in [
            (["--drain", "-1"], "--drain"), (["--drain", "601"], "--drain"),
            (["--log-format", "yaml"], "--log-format"),
        ] {
            let refused = try CLIRunner.pinset(
                ["serve", "--dev", "--db", directory.appendingPathComponent("db.sqlite").path, "--port", "0"]
                    + arguments)
            #expect(refused.status != 0, "\(arguments)")
            #expect(refused.stderr.contains(message), "\(arguments): \(refused.stderr)")
        }
        let environment = try CLIRunner.pinset(
            ["serve", "--dev", "--db", directory.appendingPathComponent("db.sqlite").path, "--port", "0"],
            environment: ["PINSET_LOG_FORMAT": "xml"])
        #expect(environment.status != 0 && environment.stderr.contains("PINSET_LOG_FORMAT"), "\(environment.stderr)")
    }

    /// `--log-format json`: every line a serving, writing, probing and failing server writes is one JSON object
    /// with `time` (RFC 3339), `level`, `message` and `logger`; none holds the admin token, the PKCS#11 PIN or key
    /// material; and GETs add no line at `info`. The signing key is on a SoftHSM token (the PIN from the
    /// environment), the log key a PEM file.
    @Test func jsonLogsAreOneObjectPerLineWithoutSecrets() async throws {
        let hsm = try SoftHSM()
        defer { hsm.remove() }
        let pin = "Pn" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(14))
        let pinFile = try hsm.initToken("pinset", pin: pin)
        let key = "pkcs11:token=pinset;object=signing-json"
        let made = try CLIRunner.pinset(
            ["keygen", "--pkcs11", "\(key)?pin-source=file:\(pinFile)"], environment: hsm.environment)
        try #require(made.status == 0, "\(made.stderr)")
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let logKeyPath = try logKey(in: directory)
        let server = try Server(
            directory: directory,
            [
                "--drain", "1", "--log-key", logKeyPath, "--monitor-interval", "2s", "--probe-timeout", "1s",
                "--probe-allow-private",
                "--connect-to", "*.probe.test:443:127.0.0.1:1",
            ], key: key,
            environment: hsm.environment.merging(["PINSET_PKCS11_PIN": pin, "PINSET_LOG_FORMAT": "json"]) {
                $1
            })
        defer { server.stop() }
        try await server.started()
        let http = server.http

        // Writing (each write probes its host: refused connections on 127.0.0.1:1), reading, failing.
        for index in 0..<3 {
            let put = try http.request(
                "PUT", "/admin/hosts/h\(index).probe.test", token: server.token, body: Self.body())
            #expect(put.status == 201, "\(put.body)")
        }
        #expect(try http.request("PUT", "/admin/hosts/x.example", token: "pst_wrong", body: Self.body()).status == 401)
        #expect(try http.request("PUT", "/admin/hosts/bad..host", token: server.token, body: "{").status == 400)
        let scoped = try CLIRunner.pinset([
            "token", "create", "--db", directory.appendingPathComponent("db.sqlite").path, "--name", "reader",
            "--role", "reader",
        ])
        let readerToken = try #require(scoped.stdout.split(separator: "\n").last.map(String.init))
        #expect(
            try http.request("PUT", "/admin/hosts/y.example", token: readerToken, body: Self.body()).status == 403)
        // The token gone: a write cannot be signed (503), readiness says which condition fails.
        let away = hsm.directory.appendingPathComponent("tokens.away")
        try FileManager.default.moveItem(at: hsm.tokenDirectory, to: away)
        #expect(try http.request("PUT", "/admin/hosts/z.example", token: server.token, body: Self.body()).status == 503)
        try await Task.sleep(nanoseconds: 1_200_000_000)  // past the signer check's 1 s cache
        let unready = try http.request("GET", "/readyz")
        #expect(unready.status == 503 && unready.body.contains(#""name":"signer""#), "\(unready.body)")
        try FileManager.default.moveItem(at: away, to: hsm.tokenDirectory)
        try await Task.sleep(nanoseconds: 1_200_000_000)
        #expect(try http.request("GET", "/readyz").status == 200)
        // Let the monitor probe at least once (every 2 s).
        try await Task.sleep(nanoseconds: 3_000_000_000)

        // No line per GET at info.
        let before = server.process.stderrText.split(separator: "\n").count
        for _ in 0..<50 {
            _ = try http.request("GET", "/pins/h0.probe.test")
            _ = try http.request("GET", "/pins/missing.example")
            _ = try http.request("GET", "/healthz")
        }
        try await Task.sleep(nanoseconds: 300_000_000)
        let after = server.process.stderrText.split(separator: "\n").count
        #expect(after - before < 5, "GETs logged lines: \(server.process.stderrText)")

        kill(server.process.processIdentifier, SIGTERM)
        #expect(try await server.exit(within: 20) == 0)

        let lines = server.process.stderrText.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .map(String.init)
        #expect(lines.count >= 8, "\(server.process.stderrText)")
        var messages: Set<String> = []
        for line in lines {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                Issue.record("not a JSON object: \(line)")
                continue
            }
            for field in ["time", "level", "message", "logger"] {
                #expect(object[field] is String, "\(field) missing: \(line)")
            }
            let time = object["time"] as? String ?? ""
            #expect(
                time.count == 24 && time.hasSuffix("Z") && ISO8601DateFormatter.withFractions.date(from: time) != nil)
            messages.insert(object["message"] as? String ?? "")
        }
        #expect(messages.contains("started") && messages.contains("stopped"), "\(messages)")
        #expect(messages.contains("pinset is serving"), "the banner is a JSON line: \(messages)")
        // Standard output holds only the --dev token, shown once for a terminal.
        #expect(
            server.process.stdoutText == "  admin token (shown once; export it as PINSET_TOKEN):\n\(server.token)\n",
            "\(server.process.stdoutText)")
        #expect(messages.contains { $0.contains("forbidden") }, "\(messages)")
        // No secret: the tokens, the PIN, the log key's base64 body.
        let all = server.process.stderrText + server.process.stdoutText.replacingOccurrences(of: server.token, with: "")
        let logKeyBody = try String(contentsOfFile: logKeyPath, encoding: .utf8).split(separator: "\n")[1]
        for secret in [server.token, String(server.token.dropFirst(4)), readerToken, pin, String(logKeyBody)] {
            #expect(!all.contains(secret), "a secret is in the log")
        }
        #expect(!all.contains("PRIVATE KEY"))
    }

    func logKey(in directory: URL) throws -> String {
        try CLIRunner.shell("umask 077 && openssl genpkey -algorithm ed25519 -out log-key.pem", in: directory)
        return directory.appendingPathComponent("log-key.pem").path
    }
}

extension ISO8601DateFormatter {
    /// RFC 3339 with fractional seconds.
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
