import Foundation
import PinSetCore
import PinSetOpenSSL
import TestSupport
import Testing

/// Issue 35, item 6, the cases `LogForkDetectionEndToEndTests` left (all real processes): a thief that rebuilds the
/// log from the public tiles instead of a backup, a rogue log smaller than the one a monitor holds, and a witness
/// restart that keeps its evidence. In the same suite (serialized: one attack's processes at a time).
extension LogForkDetectionEndToEndTests {
    /// Where the thief's copy of the honest log comes from.
    enum ThiefCopy {
        /// A stolen backup of the honest database (`pinset backup`).
        case backup
        /// The honest server's public `/log/` files, written into a new database (``rebuildFromTiles(of:into:)``).
        case publicTiles
    }

    /// What a thief without a backup does: reads the honest log's public files (the checkpoint, the level-0 tile and
    /// the entry bundle), checks every entry against the tile's leaf hashes, and writes the entries into a new
    /// database as its log. The CLI has no command that seeds a log from tiles: `pinset token create` makes the
    /// database (its schema), `sqlite3` writes the `logEntry` rows; the thief's `pinset serve` then signs a
    /// checkpoint of that tree at start-up (the honest root, since the entries are the honest ones). Host and
    /// document tables stay empty: the rogue set is a new host there (version 1).
    static func rebuildFromTiles(of honest: ServeProcess, into path: String) throws {
        let checkpoint = try honest.client.request("GET", "/log/checkpoint")
        let lines = checkpoint.text.split(separator: "\n", omittingEmptySubsequences: false)
        let size = try #require(lines.count > 2 ? Int(lines[1]) : nil, "\(checkpoint.text)")
        try #require(size > 0 && size < 256, "one partial tile holds the log (size \(size))")
        let tile = try honest.client.request("GET", "/log/tile/0/000.p/\(size)")
        let bundle = try honest.client.request("GET", "/log/tile/entries/000.p/\(size)")
        try #require(tile.status == 200 && tile.body.count == 32 * size, "the level-0 tile: \(tile.status)")
        try #require(bundle.status == 200, "the entry bundle: \(bundle.status)")
        let entries = try decodeBundle(bundle.body)
        try #require(entries.count == size)
        let crypto = OpenSSLTrustCrypto()
        var sql = "BEGIN;\n"
        for (index, entry) in entries.enumerated() {
            let leafHash = crypto.sha256([0] + entry)
            #expect(leafHash == Array(tile.body[(32 * index)..<(32 * index + 32)]), "entry \(index) is the tile's")
            sql +=
                "INSERT INTO logEntry (leafIndex, leafHash, body) VALUES (\(index), X'\(hex(leafHash))', X'\(hex(entry))');\n"
        }
        sql += "DELETE FROM logCheckpoint;\nCOMMIT;\n"
        try ProcessRunner.checked(binary, ["token", "create", "--db", path, "--name", "rebuild"])
        try ProcessRunner.checked("sqlite3", [path], stdin: Data(sql.utf8))
    }

    /// The entries of a C2SP tlog-tiles entry bundle (each a big-endian uint16 length, then the bytes).
    static func decodeBundle(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        var at = 0
        while at < bytes.count {
            try #require(at + 2 <= bytes.count, "a length past the end of the bundle")
            let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
            try #require(at + 2 + length <= bytes.count, "an entry past the end of the bundle")
            entries.append(Array(bytes[(at + 2)..<(at + 2 + length)]))
            at += 2 + length
        }
        return entries
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// Copies `server`'s log files (checkpoint, level-0 tile, entry bundle; a log under 256 entries) into the
    /// directory `mirror`, as a static mirror serves them: the tiles first, the checkpoint last.
    static func mirror(_ server: ServeProcess, into mirror: URL) throws {
        let checkpoint = try server.client.request("GET", "/log/checkpoint")
        let lines = checkpoint.text.split(separator: "\n", omittingEmptySubsequences: false)
        let size = try #require(lines.count > 2 ? Int(lines[1]) : nil, "\(checkpoint.text)")
        try #require(size > 0 && size < 256)
        for path in ["log/tile/0/000.p/\(size)", "log/tile/entries/000.p/\(size)"] {
            let file = try server.client.request("GET", "/" + path)
            try #require(file.status == 200, "\(path): \(file.status)")
            let url = mirror.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.body).write(to: url, options: .atomic)
        }
        try Data(checkpoint.body).write(to: mirror.appendingPathComponent("log/checkpoint"), options: .atomic)
    }

    /// Polls `condition` every 100 ms, at most `seconds`; whether it held.
    static func wait(seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }

    /// Issue 35: "a thief without a backup can rebuild it" from the public tiles. Rebuilt, extended and cosigned by
    /// the three witnesses, it is found by the honest server at its next checkpoint exactly as the backup's is.
    @Test func aThiefThatRebuildsTheLogFromThePublicTilesIsFoundTheSameWay() async throws {
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let (honest, thief, seconds, thiefSize) = try await Self.attack(
            setup, thiefWitnesses: setup.witnesses, webhook: nil, copy: .publicTiles)
        print(
            "issue 35: fork by a log rebuilt from the public tiles detected \(String(format: "%.2f", seconds)) s after "
                + "the honest server's next write (--witness-retry \(Self.retry) s)")
        #expect(seconds < Double(Self.retry) + 8, "detection within one witness retry (plus the machine's load)")
        let fork = try #require((try honest.log()["forks"] as? [[String: Any]])?.first)
        #expect((fork["foreignCheckpoint"] as? String)?.contains("\n\(thiefSize)\n") == true)
        #expect(try honest.client.request("GET", "/metrics").text.contains("pinset_log_forks 1\n"))
        let watch = try ProcessRunner.run(
            Self.binary,
            ["log", "watch", honest.url.absoluteString, "--hosts", "*", "--log-key", setup.logVKey, "--once"]
                + setup.witnesses.flatMap { ["--witness", $0.url] })
        #expect(watch.status == 3, "\(watch.errorText)")
        thief.stop()
        honest.stop()
    }

    /// PROTOCOL §7.5, issue 35 item 5: a log smaller than the one a monitor holds is a stale cache only if its root
    /// is the held tree's root at that size. A real `pinset log watch` follows a mirror directory; the mirror is
    /// then fed the thief's log (a backup taken at size 1): unchanged (size 1, the honest root) it is a stale cache
    /// and watching goes on; extended by a rogue set (size 2 < 3, another root) it is a fork, exit 3. Asked through
    /// a witness that cosigned the thief's smaller log, a monitor of the honest server finds the same fork.
    @Test func aRogueLogSmallerThanTheOneHeldIsAForkNotAStaleCache() async throws {
        let setup = try Self.setUp(witnesses: 0)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let honest = try ServeProcess(directory: setup.directory, database: "honest.sqlite", witnesses: [])
        #expect(try honest.put("api.example.com") == 201)
        #expect(try await honest.waitForLog(seconds: 30) { ($0["checkpointSize"] as? Int) == 1 })
        let backup = setup.directory.appendingPathComponent("thief.sqlite").path
        try ProcessRunner.checked(
            Self.binary,
            ["backup", "--db", setup.directory.appendingPathComponent("honest.sqlite").path, "--out", backup])
        #expect(try honest.put("www.example.com") == 201)
        #expect(try honest.put("mail.example.com") == 201)
        #expect(try await honest.waitForLog(seconds: 30) { ($0["checkpointSize"] as? Int) == 3 })

        // The monitor follows a mirror of the honest log (size 3).
        let mirror = setup.directory.appendingPathComponent("mirror")
        try Self.mirror(honest, into: mirror)
        let watch = try ProcessRunner.start(
            Self.binary,
            ["log", "watch", mirror.path, "--hosts", "*", "--log-key", setup.logVKey, "--interval", "0.2"],
            stdout: .collect, stderr: .collect)
        defer {
            watch.terminate()
            watch.waitUntilExit()
        }
        #expect(try await Self.wait(seconds: 30) { watch.stdoutText.contains("mail.example.com") })

        // The thief's server on the backup, with a witness the honest server never used.
        let witness = try WitnessProcess(name: "w-thief.test", logVKey: setup.logVKey, directory: setup.directory)
        let thiefToken =
            try ProcessRunner.run(Self.binary, ["token", "create", "--db", backup, "--name", "thief"]).text
            .split(separator: "\n").last.map(String.init) ?? ""
        let thief = try ServeProcess(
            directory: setup.directory, database: "thief.sqlite", witnesses: [witness], token: thiefToken)
        try Self.mirror(thief, into: mirror)
        #expect(
            try await Self.wait(seconds: 30) { watch.stderrText.contains("of size 1, older than the 3 held") },
            "\(watch.stderrText)")
        #expect(watch.stderrText.contains("a stale cache"), "\(watch.stderrText)")
        #expect(watch.isRunning, "a stale cache is waited for, not a fork")

        #expect(try thief.put("api.example.com") == 200)
        #expect(
            try await thief.waitForLog(seconds: 30) {
                ($0["checkpointSize"] as? Int) == 2 && Self.cosigners($0) == 1
            }, "the thief's witness cosigns its smaller log")
        let rogue = try thief.log()["checkpoint"] as? String ?? ""
        try Self.mirror(thief, into: mirror)
        #expect(try await Self.wait(seconds: 30) { !watch.isRunning }, "the watch stops at the fork")
        #expect(!watch.isRunning && watch.terminationStatus == 3, "\(watch.stderrText)")
        #expect(watch.stderrText.contains("FORK"), "\(watch.stderrText)")
        #expect(watch.stderrText.contains(String(rogue.prefix(40))), "both notes are printed")

        // The same fork through the witness: following the honest server, its checkpoint of size 2 is not one of
        // the honest tree's.
        let viaWitness = try ProcessRunner.run(
            Self.binary,
            [
                "log", "watch", honest.url.absoluteString, "--hosts", "*", "--log-key", setup.logVKey, "--once",
                "--witness", witness.url,
            ])
        #expect(viaWitness.status == 3, "\(viaWitness.errorText)")
        #expect(viaWitness.errorText.contains("a witness holds a checkpoint"), "\(viaWitness.errorText)")
        thief.stop()
        honest.stop()
    }
}
