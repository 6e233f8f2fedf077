import Foundation
import TestSupport
import Testing

/// `pinset backup` (issue 16): an online backup while a real server writes, and `--check` refusing damaged files.
@Suite(.blocking) struct BackupTests {
    private static func body() -> String {
        #"{"pins":[{"sha256":"\#(HostileDocuments.pin())"},{"sha256":"\#(HostileDocuments.pin())","role":"backup"}]}"#
    }

    private static func sqlite(_ file: String, _ sql: String) throws -> String {
        let result = try CLIRunner.run("/usr/bin/sqlite3", [file, sql])
        guard result.status == 0 else { throw ShellError(command: "sqlite3 \(sql)", stderr: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func backupDuringAWriteLoopHoldsEveryWriteAcknowledgedBeforeIt() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // No pre-flight: each write would wait for a probe of h*.example.com (0.25-0.75 s here, 6-12 min a run).
        let server = try RunningServer(directory: dir, extraArguments: ["--preflight", "off"])
        defer { server.stop() }
        let http = LoopbackHTTP(url: server.url)
        let backupFile = dir.appendingPathComponent("backups/pinset-backup.sqlite").path
        let backup = ProcessRunner.child(
            CLIRunner.binary, ["backup", "--db", dir.appendingPathComponent("db.sqlite").path, "--out", backupFile],
            stdout: .pipe, stderr: .sameAsStdout)

        var acknowledged = 0
        var ackedBeforeBackup: [String: Int] = [:]  // host -> highest version acknowledged before the backup began
        var countBeforeBackup = 0
        var ackedWhileBackupRan = 0
        var latest: [String: Int] = [:]
        // Bounded: at most 20,000 writes; it stops once 2,000 are acknowledged and the backup has finished.
        for i in 0..<20_000 {
            if acknowledged == 1_000 {
                ackedBeforeBackup = latest
                countBeforeBackup = acknowledged
                try backup.run()
            }
            if acknowledged >= 2_000, !backup.isRunning { break }
            let host = "h\(i % 25).example.com"
            let answer = try http.request("PUT", "/admin/hosts/\(host)", token: server.token, body: Self.body())
            try #require(answer.status == 200 || answer.status == 201, "\(answer.status) \(answer.body)")
            let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
            latest[host] = try #require(json?["version"] as? Int)
            acknowledged += 1
            if countBeforeBackup > 0, backup.isRunning { ackedWhileBackupRan += 1 }
        }
        backup.waitUntilExit()
        let output = String(decoding: backup.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
        #expect(backup.terminationStatus == 0, "\(output)")
        #expect(output.contains("backup written and checked"))
        #expect(acknowledged >= 2_000)
        #expect(ackedWhileBackupRan > 0, "the backup should run while writes go on")

        // Every write acknowledged before the backup began is in it: each write is one history version.
        let rows = try Self.sqlite(
            backupFile,
            "SELECT h.name, max(v.version) FROM host h JOIN hostVersion v ON v.hostId = h.id GROUP BY h.name")
        var inBackup: [String: Int] = [:]
        for line in rows.split(separator: "\n") {
            let parts = line.split(separator: "|")
            inBackup[String(parts[0])] = Int(parts[1])
        }
        for (host, version) in ackedBeforeBackup {
            #expect(
                (inBackup[host] ?? 0) >= version, "\(host): acknowledged v\(version), backup has \(inBackup[host] ?? 0)"
            )
        }
        let versions = Int(try Self.sqlite(backupFile, "SELECT count(*) FROM hostVersion")) ?? 0
        #expect(versions >= countBeforeBackup)
        // Written as one self-contained file, no temporary left beside it.
        let siblings = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("backups").path)
        #expect(siblings == ["pinset-backup.sqlite"])

        let check = try CLIRunner.pinset(["backup", "--check", backupFile])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("integrity ok") && check.stdout.contains("25 document(s) verified"))
    }

    @Test func damagedBackupsAreRefusedWithAClearMessage() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(directory: dir)
        let http = LoopbackHTTP(url: server.url)
        for i in 0..<40 {
            let answer = try http.request(
                "PUT", "/admin/hosts/h\(i).example.com", token: server.token, body: Self.body())
            try #require(answer.status == 201)
        }
        let good = dir.appendingPathComponent("good.sqlite").path
        let made = try CLIRunner.pinset(["backup", "--db", dir.appendingPathComponent("db.sqlite").path, "--out", good])
        server.stop()
        try #require(made.status == 0, "\(made.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let pageSize = 4096
        try #require(bytes.count > 4 * pageSize)

        func refused(
            _ name: String, _ data: Data, because expected: String, sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            let file = dir.appendingPathComponent(name).path
            try data.write(to: URL(fileURLWithPath: file))
            let check = try CLIRunner.pinset(["backup", "--check", file])
            #expect(check.status == 1, sourceLocation: sourceLocation)
            #expect(check.stdout.isEmpty, sourceLocation: sourceLocation)
            #expect(check.lastErrorLine.hasPrefix("Error: "), "\(check.stderr)", sourceLocation: sourceLocation)
            #expect(check.lastErrorLine.contains(expected), "\(check.stderr)", sourceLocation: sourceLocation)
            // One line for people: no stack trace, no crash.
            #expect(check.stderr.split(separator: "\n").count == 1, "\(check.stderr)", sourceLocation: sourceLocation)
        }

        try refused("truncated.sqlite", bytes.prefix(bytes.count / 2), because: "is truncated")
        try refused("truncated-odd.sqlite", bytes.prefix(bytes.count - 100), because: "is truncated")
        try refused("empty.sqlite", Data(), because: "is not an SQLite database")
        try refused(
            "random.sqlite", Data((0..<8192).map { _ in UInt8.random(in: 0...255) }),
            because: "is not an SQLite database")
        var corrupted = bytes
        for page in stride(from: pageSize, to: corrupted.count, by: pageSize) {
            corrupted.replaceSubrange(page..<page + 24, with: [UInt8](repeating: 0x58, count: 24))
        }
        try refused("corrupted.sqlite", corrupted, because: "is damaged")

        // A document whose signature no longer verifies (a flipped byte inside the stored JWS).
        let tampered = dir.appendingPathComponent("tampered.sqlite").path
        try bytes.write(to: URL(fileURLWithPath: tampered))
        _ = try Self.sqlite(
            tampered,
            "UPDATE document SET body = CAST(replace(CAST(body AS TEXT), '\"signature\":\"', '\"signature\":\"A') AS BLOB) "
                + "WHERE hostId = (SELECT min(hostId) FROM document)")
        let check = try CLIRunner.pinset(["backup", "--check", tampered])
        #expect(check.status == 1)
        #expect(check.lastErrorLine.contains("do not verify"), "\(check.stderr)")

        let missing = try CLIRunner.pinset(["backup", "--check", dir.appendingPathComponent("nothing.sqlite").path])
        #expect(missing.status == 1 && missing.lastErrorLine.contains("cannot open"))
        let good2 = try CLIRunner.pinset(["backup", "--check", good])
        #expect(good2.status == 0, "\(good2.stderr)")
        #expect(good2.stdout.contains("40 document(s) verified"))
    }
}
