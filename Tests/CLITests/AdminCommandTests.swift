import Foundation
import TestSupport
import Testing

/// The admin subcommands round-trip against a real `pinset serve` subprocess.
@Suite(.blocking) struct AdminCommandTests {
    static func pin() -> String { Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString() }

    @Test func setAddShowHostsRemoveHistoryRetireRoundTrip() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(directory: dir)
        defer { server.stop() }
        let env = server.environment
        try CLIRunner.shell(
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout k.pem -out c.pem -days 2 -subj /CN=a.example 2>/dev/null",
            in: dir)
        let certPin = try CLIRunner.pinset(["pin", dir.appendingPathComponent("c.pem").path]).stdout
            .components(separatedBy: "  ")[0]
        let backup = Self.pin()
        let future = Self.pin()

        let set = try CLIRunner.pinset(
            ["set", "a.example", "--cert", dir.appendingPathComponent("c.pem").path, "--backup", backup],
            environment: env)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains("version:           1"))
        #expect(set.stdout.contains("\(certPin)  current  spki"))
        #expect(set.stdout.contains("\(backup)  backup  spki"))

        let add = try CLIRunner.pinset(["add", "a.example", "--pin", future, "--role", "future"], environment: env)
        #expect(add.status == 0, "\(add.stderr)")
        #expect(add.stdout.contains("\(future)  future  spki"))

        let show = try CLIRunner.pinset(["show", "a.example", "--json"], environment: env)
        let detail = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
        #expect(detail?["version"] as? Int == 2)
        #expect((detail?["pins"] as? [Any])?.count == 3)

        let hosts = try CLIRunner.pinset(["hosts"], environment: env)
        #expect(hosts.stdout.contains("a.example\t2\t3\t"))

        let remove = try CLIRunner.pinset(["remove", "a.example", future], environment: env)
        #expect(remove.status == 0, "\(remove.stderr)")
        #expect(!remove.stdout.contains(future))
        #expect(remove.stdout.contains("version:           3"))

        let stale = try CLIRunner.pinset(
            ["add", "a.example", "--pin", Self.pin(), "--if-match", "\"stale\""], environment: env)
        #expect(stale.status == 1)
        #expect(stale.lastErrorLine.contains("412"))

        let history = try CLIRunner.pinset(["history", "a.example"], environment: env)
        let rows = history.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
        #expect(rows.map { $0[3] } == ["remove", "add", "create"])
        #expect(rows.allSatisfy { $0[2] == "admin" })

        let retire = try CLIRunner.pinset(["retire", "a.example", "--json"], environment: env)
        let retired = try JSONSerialization.jsonObject(with: Data(retire.stdout.utf8)) as? [String: Any]
        #expect((retired?["pins"] as? [Any])?.isEmpty == true)
        #expect(retired?["version"] as? Int == 4)
    }

    @Test func errorsSurfaceTheServersDetailAndMissingTokenIsClear() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(directory: dir)
        defer { server.stop() }
        let noBackup = try CLIRunner.pinset(["set", "b.example", "--pin", Self.pin()], environment: server.environment)
        #expect(noBackup.status == 1)
        #expect(noBackup.lastErrorLine.contains("422"))
        #expect(noBackup.lastErrorLine.contains("backupRuleViolated"))

        let unknown = try CLIRunner.pinset(["show", "nowhere.example"], environment: server.environment)
        #expect(unknown.status == 1)
        #expect(unknown.lastErrorLine.contains("404"))

        let noToken = try CLIRunner.pinset(["hosts"], environment: ["PINSET_SERVER": server.url])
        #expect(noToken.status == 1)
        #expect(noToken.lastErrorLine.contains("PINSET_TOKEN"))

        let wrong = try CLIRunner.pinset(["hosts"], environment: ["PINSET_SERVER": server.url, "PINSET_TOKEN": "nope"])
        #expect(wrong.status == 1)
        #expect(wrong.lastErrorLine.contains("401"))
        #expect(!wrong.stderr.contains("nope"))

        let tokenFile = dir.appendingPathComponent("token")
        try (server.token + "\n").write(to: tokenFile, atomically: true, encoding: .utf8)
        let viaFile = try CLIRunner.pinset(
            ["hosts", "--token-file", tokenFile.path], environment: ["PINSET_SERVER": server.url])
        #expect(viaFile.status == 0, "\(viaFile.stderr)")

        let badPin = try CLIRunner.pinset(["remove", "b.example", "xyz"], environment: server.environment)
        #expect(badPin.status == 1)
        #expect(badPin.lastErrorLine.contains("not a pin"))
    }

    /// Issue 26 item 8: the API says to send `"force": true`; the CLI says what its user types, `--force`.
    @Test func aRefusedWriteTellsTheCLIUserToPassForce() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Nothing listens on 127.0.0.1:9, so the required pre-flight probe cannot reach the host.
        let server = try RunningServer(
            directory: dir,
            extraArguments: [
                "--preflight", "require", "--connect-to", "down.example:443:127.0.0.1:9", "--monitor-interval", "0",
            ])
        defer { server.stop() }
        let pins = ["--pin", Self.pin(), "--backup", Self.pin()]
        let refused = try CLIRunner.pinset(["set", "down.example"] + pins, environment: server.environment)
        #expect(refused.status == 1)
        #expect(refused.lastErrorLine.contains("pass --force"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(#""force": true"#), "\(refused.stderr)")
        let forced = try CLIRunner.pinset(["set", "down.example", "--force"] + pins, environment: server.environment)
        #expect(forced.status == 0, "\(forced.stderr)")
    }

    /// Issue 22 item 5: `pinset health` replaces curl in the container's HEALTHCHECK.
    @Test func healthExitsZeroWhileTheServerAnswersAndOneAfterItStops() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(directory: dir)
        let healthy = try CLIRunner.pinset(["health", "--server", server.url])
        #expect(healthy.status == 0 && healthy.stdout.contains("answered 200"), "\(healthy.stderr)")
        let port = try #require(server.url.split(separator: ":").last)
        let fromEnvironment = try CLIRunner.pinset(["health"], environment: ["PINSET_PORT": String(port)])
        #expect(fromEnvironment.status == 0, "PINSET_PORT picks the port: \(fromEnvironment.stderr)")
        server.stop()
        let down = try CLIRunner.pinset(["health", "--server", server.url, "--timeout", "2"])
        #expect(down.status == 1 && down.lastErrorLine.contains("unhealthy: cannot reach"), "\(down.stderr)")
    }
}
