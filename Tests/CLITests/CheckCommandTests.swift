import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `openssl s_server` for one host name on a random 127.0.0.0/8 address, with a leaf from a test CA.
/// (PinSetServerTests has the same helper as TLSTestHost; issue 17 item 6 moves both into one test-support target.)
private final class CLITLSHost {
    let dir: URL
    let ip = "127.0.\(Int.random(in: 1...250)).\(Int.random(in: 2...250))"
    let port = Int.random(in: 20_000...60_000)
    let name = "api.example.com"
    private var server: ChildProcess?

    init() throws {
        dir = try CLIRunner.temporaryDirectory()
        try CLIRunner.shell(
            """
            printf 'basicConstraints=critical,CA:TRUE\\nkeyUsage=critical,keyCertSign,cRLSign\\n' > ca.ext && \
            printf 'subjectAltName=DNS:\(name)\\n' > leaf.ext && \
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem -days 30 -subj /CN=Test-CA 2>/dev/null && \
            for k in current backup rogue; do \
              openssl genpkey -algorithm ec -pkeyopt ec_paramgen_curve:P-256 -out $k.key 2>/dev/null && \
              openssl req -new -key $k.key -out $k.csr -subj /CN=\(name) 2>/dev/null && \
              openssl x509 -req -in $k.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out $k.pem -days 90 -extfile leaf.ext 2>/dev/null; \
            done
            """, in: dir)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: dir)
    }

    var mapping: String { "\(name):443:\(ip):\(port)" }
    func path(_ file: String) -> String { dir.appendingPathComponent(file).path }

    func pin(_ key: String) throws -> String {
        try CLIRunner.shell(
            "openssl pkey -in \(key).key -pubout -outform DER | openssl dgst -sha256 -binary | base64", in: dir
        ).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func serve(_ key: String) throws {
        stop()
        server = try ProcessRunner.start(
            "/usr/bin/openssl",
            [
                "s_server", "-accept", "\(ip):\(port)", "-cert", "\(key).pem", "-key", "\(key).key", "-cert_chain",
                "ca.pem", "-quiet", "-www",
            ], directory: dir)
        for _ in 0..<50 {
            let probe = try CLIRunner.run("/bin/bash", ["-c", "exec 3<>/dev/tcp/\(ip)/\(port)"])
            if probe.status == 0 { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    func stop() {
        guard let server else { return }
        server.kill()
        server.waitUntilExit()
        self.server = nil
    }
}

/// `pinset check` (exit 0 / 1 / 3, `--cert`) and `pinset status`, against a real server and TLS host.
@Suite(.serialized) struct CheckCommandTests {
    @Test func exitCodesSayMatchLockOutOrUnreachable() throws {
        let host = try CLITLSHost()
        try host.serve("current")
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(
            directory: dir, extraArguments: ["--connect-to", host.mapping, "--monitor-interval", "1s"])
        defer { server.stop() }
        let set = try CLIRunner.pinset(
            ["set", host.name, "--pin", try host.pin("current"), "--backup", try host.pin("backup"), "--json"],
            environment: server.environment)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains(#""status":"match""#))

        let check = ["check", host.name, "--server", server.url, "--connect-to", host.mapping]
        let matching = try CLIRunner.pinset(check)
        #expect(matching.status == 0, "\(matching.stdout)\(matching.stderr)")
        #expect(matching.stdout.contains("matches"))

        #expect(try CLIRunner.pinset(check + ["--cert", host.path("backup.pem")]).status == 0)
        let rogueCert = try CLIRunner.pinset(check + ["--cert", host.path("rogue.pem")])
        #expect(rogueCert.status == 1, "\(rogueCert.stdout)\(rogueCert.stderr)")
        #expect(rogueCert.stdout.contains("WOULD LOCK OUT"))

        // The monitor (1 s interval) has seen the host by now.
        var status = try CLIRunner.pinset(["status", host.name], environment: server.environment)
        for _ in 0..<50 where !status.stdout.contains("\tok\t") {
            Thread.sleep(forTimeInterval: 0.1)
            status = try CLIRunner.pinset(["status", host.name], environment: server.environment)
        }
        #expect(status.stdout.contains("\(host.name)\tok\t"), "\(status.stdout)\(status.stderr)")
        let json = try CLIRunner.pinset(["status", "--json"], environment: server.environment)
        #expect(json.status == 0)
        #expect(json.stdout.hasPrefix("[") && json.stdout.contains(#""state":"ok""#))

        try host.serve("rogue")
        let lockedOut = try CLIRunner.pinset(check)
        #expect(lockedOut.status == 1, "\(lockedOut.stdout)\(lockedOut.stderr)")

        host.stop()
        let unreachable = try CLIRunner.pinset(check + ["--timeout", "2"])
        #expect(unreachable.status == 3, "\(unreachable.stdout)\(unreachable.stderr)")

        let unpublished = try CLIRunner.pinset(["check", "nothing.example", "--server", server.url])
        #expect(unpublished.status == 2)
    }
}
