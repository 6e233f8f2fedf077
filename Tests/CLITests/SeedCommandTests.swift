import Foundation
import TestSupport
import Testing

/// `pinset seed` writes through storage, without a server (issue 36): what it stores is what `PUT` would have
/// stored, so a real server serves it, clients verify it, and the history records it.
@Suite(.blocking) struct SeedCommandTests {
    @Test func seededVersionsAreServedVerifiedAndInTheHistory() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("db.sqlite").path
        let key = dir.appendingPathComponent("key.pem").path
        #expect(try CLIRunner.pinset(["keygen", "--out", key]).status == 0)
        let first = try CLIRunner.pinset(["seed", "--db", db, "--key", key, "--hosts", "3", "--batch", "2"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("seeded 3 hosts"), "\(first.stdout)")
        // Seeding again writes the next version of the hosts it names.
        #expect(try CLIRunner.pinset(["seed", "--db", db, "--key", key, "--hosts", "2"]).status == 0)

        let server = try RunningServer(directory: dir, key: key)
        defer { server.stop() }
        for (host, version) in [("h0.bench.example", 2), ("h1.bench.example", 2), ("h2.bench.example", 1)] {
            let fetched = try CLIRunner.pinset(["fetch", host, "--server", server.url, "--trust-key", key])
            #expect(fetched.status == 0, "\(host): \(fetched.stderr)")
            #expect(fetched.stdout.contains("version:           \(version)"), "\(host): \(fetched.stdout)")
        }
        let history = try CLIRunner.pinset(["history", "h0.bench.example"], environment: server.environment)
        #expect(history.status == 0, "\(history.stderr)")
        let rows = history.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
        // VERSION AT TOKEN CHANGE ADDED REMOVED, newest first: two fresh random pins replace the two before.
        #expect(
            rows.map { [$0[0], $0[2], $0[3], $0[4], $0[5]] } == [
                ["2", "seed", "replace", "2", "2"], ["1", "seed", "create", "2", "0"],
            ])
    }

    @Test func badCountsAreRefusedWithoutTouchingTheDatabase() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("db.sqlite").path
        let refused = try CLIRunner.pinset(["seed", "--db", db, "--key", "none.pem", "--hosts", "1", "--batch", "0"])
        #expect(refused.status != 0)
        #expect(refused.lastErrorLine.contains("hosts must be >= 0"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: db))
    }
}
