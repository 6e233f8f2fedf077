import Foundation
import TestSupport
import Testing

/// `pinset export --watch` (issue 16) with a real server, a real nginx serving the export directory, and a
/// second writer process: every committed write is served by nginx within 2 s and `--exec` runs once per batch,
/// also across a server restart, and a failing `--exec` never stops the watch.
@Suite(.blocking) struct ExportWatchTests {
    static func body() -> String {
        #"{"pins":[{"sha256":"\#(HostileDocuments.pin())"},{"sha256":"\#(HostileDocuments.pin())","role":"backup"}]}"#
    }

    /// Polls `condition` every 50 ms for at most `seconds`; whether it became true.
    static func waitUntil(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date() + seconds
        repeat {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        } while Date() < deadline
        return try condition()
    }

    /// The lines `--exec` appended so far.
    private static func execLines(_ file: URL) -> [String] {
        ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Seconds from now until nginx serves `expected` at `path` (at most 5 s of polling), or nil.
    private static func secondsUntilServed(_ nginx: LoopbackHTTP, _ path: String, _ expected: String) throws -> Double?
    {
        let start = Date()
        let served = try waitUntil(5) {
            let answer = try nginx.request("GET", path)
            return answer.status == 200 && answer.body == expected
        }
        return served ? Date().timeIntervalSince(start) : nil
    }

    /// A `pinset serve` on an existing database and key (no --dev): its URL from the banner's first line.
    private static func startServer(_ dir: URL) throws -> (ChildProcess, String) {
        let process = try ProcessRunner.start(
            CLIRunner.binary,
            [
                "serve", "--db", dir.appendingPathComponent("db.sqlite").path, "--key",
                dir.appendingPathComponent("key.pem").path, "--port", "0",
            ], stdout: .pipe)
        let text = process.readStdout()
        guard let range = text.range(of: "http://") else {
            process.terminate()
            throw ShellError(command: "pinset serve", stderr: "no banner: \(text)")
        }
        return (process, String(text[range.lowerBound...].prefix { $0 != "\n" }))
    }

    @Test func mirrorFollowsEveryCommittedWriteWithinTwoSeconds() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try RunningServer(directory: dir)
        var serverStopped = false
        defer { if !serverStopped { server.stop() } }
        let api = LoopbackHTTP(url: server.url)
        #expect(try api.request("PUT", "/admin/hosts/a.example", token: server.token, body: Self.body()).status == 201)

        let mirror = dir.appendingPathComponent("mirror")
        let execLog = dir.appendingPathComponent("exec.log")
        let watchLog = dir.appendingPathComponent("watch.log")
        FileManager.default.createFile(atPath: watchLog.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: watchLog)
        let watch = try ProcessRunner.start(
            CLIRunner.binary,
            [
                "export", "--watch", "--db", dir.appendingPathComponent("db.sqlite").path, "--out", mirror.path,
                "--poll-interval", "0.25",
                // Logs the batch (a failing command is retried: see execRunsAtStartAndIsRetriedUntilItSucceeds).
                "--exec", "echo \"$PINSET_EXPORT_CHANGED\" >> '\(execLog.path)'; echo synced",
            ], stdout: .file(logHandle), stderr: .file(logHandle))
        defer { if watch.isRunning { watch.terminate(); watch.waitUntilExit() } }

        // The first batch: everything already in the database.
        #expect(Self.waitUntil(10) { Self.execLines(execLog).count == 1 })
        #expect(Self.execLines(execLog) == ["keys pins/a.example"])

        let nginxServer = try Nginx(root: mirror, work: dir)
        defer { nginxServer.stop() }
        let nginx = LoopbackHTTP(url: nginxServer.url)

        // 1. A write through the admin API.
        #expect(try api.request("PUT", "/admin/hosts/b.example", token: server.token, body: Self.body()).status == 201)
        let b = try api.request("GET", "/pins/b.example").body
        let bDelay = try #require(try Self.secondsUntilServed(nginx, "/pins/b.example", b))
        #expect(bDelay < 2, "served by nginx after \(bDelay) s")
        Thread.sleep(forTimeInterval: 0.6)
        #expect(Self.execLines(execLog) == ["keys pins/a.example", "pins/b.example"])

        // 2. The server stops; another process writes (two hosts in one transaction: one batch).
        server.stop()
        serverStopped = true
        let seed = try CLIRunner.pinset([
            "seed", "--db", dir.appendingPathComponent("db.sqlite").path, "--key",
            dir.appendingPathComponent("key.pem").path, "--hosts", "2",
        ])
        #expect(seed.status == 0, "\(seed.stderr)")
        let h0 = try #require(
            try CLIRunner.run(
                "/usr/bin/sqlite3",
                [
                    dir.appendingPathComponent("db.sqlite").path,
                    "SELECT CAST(d.body AS TEXT) FROM document d JOIN host h ON h.id = d.hostId WHERE h.name = 'h0.bench.example'",
                ]
            ).stdout.split(separator: "\n").first.map(String.init))
        let seedDelay = try #require(try Self.secondsUntilServed(nginx, "/pins/h0.bench.example", h0))
        #expect(seedDelay < 2, "served by nginx after \(seedDelay) s")

        // 3. The server restarts; the watch carries on.
        let (restarted, url) = try Self.startServer(dir)
        defer {
            restarted.terminate()
            restarted.waitUntilExit()
        }
        let api2 = LoopbackHTTP(url: url)
        #expect(try api2.request("PUT", "/admin/hosts/a.example", token: server.token, body: Self.body()).status == 200)
        let a2 = try api2.request("GET", "/pins/a.example").body
        let aDelay = try #require(try Self.secondsUntilServed(nginx, "/pins/a.example", a2))
        #expect(aDelay < 2, "served by nginx after \(aDelay) s")
        Thread.sleep(forTimeInterval: 0.6)
        #expect(
            Self.execLines(execLog) == [
                "keys pins/a.example", "pins/b.example", "pins/h0.bench.example pins/h1.bench.example",
                "pins/a.example",
            ])

        // SIGTERM stops it cleanly.
        watch.terminate()
        #expect(Self.waitUntil(5) { !watch.isRunning })
        watch.waitUntilExit()
        #expect(watch.terminationReason == .exit && watch.terminationStatus == 0)
        let log = try String(contentsOf: watchLog, encoding: .utf8)
        #expect(log.contains("exec: exit 0"), "\(log)")
        #expect(log.contains("synced"))
        #expect(log.hasSuffix("export: stopped\n"), "\(log)")
        // Never deletes: every file ever exported is still there.
        let files = try FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("pins").path)
        #expect(Set(files) == ["a.example", "b.example", "h0.bench.example", "h1.bench.example"])
    }

    /// Issue 26 item 4: `--exec` runs at start even when the export is already current, and a failing `--exec`
    /// is retried with back-off, without waiting for the next write, until it succeeds.
    @Test func execRunsAtStartAndIsRetriedUntilItSucceeds() throws {
        let dir = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("db.sqlite").path
        let key = dir.appendingPathComponent("key.pem").path
        #expect(try CLIRunner.pinset(["keygen", "--out", key]).status == 0)
        #expect(try CLIRunner.pinset(["seed", "--db", db, "--key", key, "--hosts", "1"]).status == 0)
        let mirror = dir.appendingPathComponent("mirror")
        // The export is current before the watch starts.
        #expect(try CLIRunner.pinset(["export", "--db", db, "--out", mirror.path]).status == 0)

        let execLog = dir.appendingPathComponent("exec.log")
        let tries = dir.appendingPathComponent("tries")
        let watchLog = dir.appendingPathComponent("watch.log")
        FileManager.default.createFile(atPath: watchLog.path, contents: nil)
        let logHandle = try FileHandle(forWritingTo: watchLog)
        let watch = try ProcessRunner.start(
            CLIRunner.binary,
            [
                "export", "--watch", "--db", db, "--out", mirror.path, "--poll-interval", "0.25",
                // Fails on its first two runs (the sync target is down), then succeeds.
                "--exec",
                "echo x >> '\(tries.path)'; [ $(wc -l < '\(tries.path)') -ge 3 ] || exit 5; echo \"ok $PINSET_EXPORT_CHANGED\" >> '\(execLog.path)'",
            ], stdout: .file(logHandle), stderr: .file(logHandle))
        defer { if watch.isRunning { watch.terminate(); watch.waitUntilExit() } }

        // Tries at 0 s, 1 s and 3 s: the third succeeds with no write in between.
        #expect(Self.waitUntil(10) { Self.execLines(execLog).count == 1 })
        #expect(Self.execLines(execLog) == ["ok "], "ran at start with nothing changed")
        Thread.sleep(forTimeInterval: 1.5)
        #expect(Self.execLines(execLog).count == 1, "no further run once it succeeded")
        watch.terminate()
        watch.waitUntilExit()
        let log = try String(contentsOf: watchLog, encoding: .utf8)
        #expect(log.contains("already current"), "\(log)")
        #expect(
            log.contains("exec: exit 5") && log.contains("retrying in 1 s") && log.contains("retrying in 2 s"), "\(log)"
        )
    }
}
