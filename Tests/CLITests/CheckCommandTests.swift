import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `pinset check` (exit 0 / 1 / 3, `--cert`) and `pinset status`, against a real server and TLS host.
@Suite(.serialized, .blocking) struct CheckCommandTests {
    @Test func exitCodesSayMatchLockOutOrUnreachable() throws {
        let host = try TLSTestHost()
        try host.issue("backup")
        try host.issue("rogue")
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

        try host.serve(key: "rogue")
        let lockedOut = try CLIRunner.pinset(check)
        #expect(lockedOut.status == 1, "\(lockedOut.stdout)\(lockedOut.stderr)")

        host.stop()
        let unreachable = try CLIRunner.pinset(check + ["--timeout", "2"])
        #expect(unreachable.status == 3, "\(unreachable.stdout)\(unreachable.stderr)")

        let unpublished = try CLIRunner.pinset(["check", "nothing.example", "--server", server.url])
        #expect(unpublished.status == 2)
    }
}
