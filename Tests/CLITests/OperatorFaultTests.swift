import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 41: the faults an environment or an operator causes, each on a real `pinset serve` process over a real
/// SQLite file, each checked for "nothing acknowledged is lost, nothing corrupt is served".
@Suite(.serialized, .blocking) struct OperatorFaultTests {
    /// A database with a token, a key, and `pinset serve` processes started on it one after the other.
    final class Deployment {
        let directory: URL
        let token: String
        var database: String { directory.appendingPathComponent("db.sqlite").path }
        var key: String { directory.appendingPathComponent("key.pem").path }

        init(directory: URL? = nil) throws {
            let folder = try directory ?? CLIRunner.temporaryDirectory()
            self.directory = folder
            let created = try CLIRunner.pinset([
                "token", "create", "--db", folder.appendingPathComponent("db.sqlite").path, "--name", "ops",
            ])
            guard created.status == 0 else { throw ShellError(command: "token create", stderr: created.stderr) }
            token = String(created.stdout.split(separator: "\n").last ?? "")
        }

        /// Starts `pinset serve` (with `prefix`, e.g. a shell setting limits, before it) and waits for its banner;
        /// ``Server/url`` is `nil` when it exits first (its stderr in ``Server/process``).
        func start(_ extra: [String] = [], prefix: [String] = [], environment: [String: String] = [:]) throws
            -> Server
        {
            let arguments =
                prefix + [CLIRunner.binary, "serve", "--dev", "--db", database, "--key", key, "--port", "0"]
                + ["--preflight", "off"] + extra
            let process = try ProcessRunner.start(
                arguments[0], Array(arguments.dropFirst()), environment: environment.mapValues { $0 },
                stdout: .collect, stderr: .collect)
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, process.isRunning, !process.stdoutText.contains("pinset is serving on") {
                Thread.sleep(forTimeInterval: 0.05)
            }
            return Server(process: process)
        }
    }

    /// One `pinset serve` process.
    struct Server {
        let process: ChildProcess

        /// The banner's URL, `nil` when the server did not start.
        var url: String? {
            process.stdoutText.split(separator: "\n").first { $0.hasPrefix("pinset is serving on ") }
                .map { String($0.dropFirst("pinset is serving on ".count)) }
        }

        /// Waits (at most 30 s) for the process to end; returns its status, `nil` if it still runs.
        func exitStatus() -> Int32? {
            let deadline = Date().addingTimeInterval(30)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            return process.isRunning ? nil : process.terminationStatus
        }

        /// SIGTERM to the process and to its children (the server, when a wrapper such as `faketime` forked it),
        /// then waits for it.
        func stop() {
            let pid = process.processIdentifier
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ Int32($0) }) { kill(child, SIGTERM) }
            process.kill(SIGTERM)
            _ = exitStatus()
        }
    }

    private static func body() -> String {
        #"{"pins":[{"sha256":"\#(HostileDocuments.pin())"},{"sha256":"\#(HostileDocuments.pin())","role":"backup"}]}"#
    }

    /// PUTs `hosts` and returns each acknowledged version.
    private static func write(_ hosts: [String], url: String, token: String) throws -> [String: Int] {
        let http = LoopbackHTTP(url: url)
        var versions: [String: Int] = [:]
        for host in hosts {
            let answer = try http.request("PUT", "/admin/hosts/\(host)", token: token, body: body())
            try #require(answer.status == 200 || answer.status == 201, "\(answer.status) \(answer.body)")
            let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
            versions[host] = try #require(json?["version"] as? Int)
        }
        return versions
    }

    /// Every acknowledged host is served, at its acknowledged version or later, with a document that verifies.
    private static func expectServed(_ acknowledged: [String: Int], url: String) throws {
        let http = LoopbackHTTP(url: url)
        for (host, version) in acknowledged {
            let answer = try http.request("GET", "/pins/\(host)")
            #expect(answer.status == 200, "\(host): \(answer.status) \(answer.body)")
            guard answer.status == 200 else { continue }
            let payload = try Self.payload(answer.body)
            #expect((payload["version"] as? Int ?? 0) >= version, "\(host)")
        }
    }

    /// The decoded payload of a served JWS.
    static func payload(_ document: String) throws -> [String: Any] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])
        var text = try #require(json["payload"] as? String).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        let data = try #require(Data(base64Encoded: text))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private static func sqlite(_ file: String, _ sql: String) throws -> String {
        let result = try CLIRunner.run("/usr/bin/sqlite3", [file, sql])
        guard result.status == 0 else { throw ShellError(command: "sqlite3 \(sql)", stderr: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static let hosts = (0..<20).map { "h\($0).example.com" }

    /// A deployment whose server wrote ``hosts`` and stopped: the database to damage, and what was acknowledged.
    private static func stoppedDeploymentWithHosts() throws -> (Deployment, [String: Int]) {
        let d = try Deployment()
        let server = try d.start()
        defer { server.stop() }
        let url = try #require(server.url, "\(server.process.stderrText)")
        return (d, try Self.write(Self.hosts, url: url, token: d.token))
    }

    // MARK: 4. Downgrades

    @Test func aDatabaseFromANewerPinsetIsRefusedByTheServerAndTheCLI() throws {
        let d = try Deployment()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        _ = try Self.sqlite(d.database, "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        let server = try d.start()
        #expect(server.exitStatus() == 1)
        let stderr = server.process.stderrText
        #expect(stderr.contains("v99-from-the-future") && stderr.contains("this pinset's newest is v"), "\(stderr)")
        let token = try CLIRunner.pinset(["token", "create", "--db", d.database, "--name", "late"])
        #expect(token.status == 1)
        #expect(token.stderr.contains("newer pinset"), "\(token.stderr)")
        #expect(try Self.sqlite(d.database, "SELECT count(*) FROM adminToken") == "1")
    }

    // MARK: 1. Nothing corrupt is served

    @Test func aDamagedDocumentRefusesTheStartNamingItsHostOrAnswers503WithServeDamaged() throws {
        let (d, acknowledged) = try Self.stoppedDeploymentWithHosts()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        var server: Server
        // Bytes changed on disk inside the document: SQLite's own checks see nothing (issue 41, fault 1).
        _ = try Self.sqlite(
            d.database,
            "UPDATE document SET body = CAST(replace(CAST(body AS TEXT), 'ey', 'eX') AS BLOB) WHERE hostId = (SELECT id FROM host WHERE name = 'h3.example.com')"
        )
        #expect(try Self.sqlite(d.database, "PRAGMA quick_check") == "ok")
        server = try d.start()
        #expect(server.exitStatus() == 1)
        let refusal = server.process.stderrText
        #expect(refusal.contains("h3.example.com") && refusal.contains("pinset backup --check"), "\(refusal)")

        server = try d.start(["--serve-damaged"])
        defer { server.stop() }
        let served = try #require(server.url, "\(server.process.stderrText)")
        let http = LoopbackHTTP(url: served)
        let damaged = try http.request("GET", "/pins/h3.example.com")
        #expect(damaged.status == 503)
        #expect(damaged.body.contains("urn:pinset:problem:document-damaged"), "\(damaged.body)")
        var intact = acknowledged
        intact["h3.example.com"] = nil
        try Self.expectServed(intact, url: served)
        #expect(try http.request("GET", "/metrics").body.contains("pinset_damaged_hosts 1"))
        // Writing the host again repairs it.
        _ = try Self.write(["h3.example.com"], url: served, token: d.token)
        #expect(try http.request("GET", "/pins/h3.example.com").status == 200)
    }

    /// Structural damage only SQLite's `quick_check` sees (a page of the `pin` table; every document still matches
    /// its hash). The check runs on after the server listens, so the server answers reads meanwhile; writes wait for
    /// it, and the damage stops the server with the refused start's message before any write is acknowledged.
    @Test func aDamagedPageStopsTheServerBeforeAnyWriteIsAcknowledgedOrIsServedAroundWithServeDamaged() throws {
        let (d, acknowledged) = try Self.stoppedDeploymentWithHosts()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        var server: Server
        let pageSize = try #require(Int(try Self.sqlite(d.database, "PRAGMA page_size")))
        let page = try #require(
            Int(try Self.sqlite(d.database, "SELECT max(pageno) FROM dbstat WHERE name = 'pin' AND pagetype = 'leaf'")))
        let file = try #require(FileHandle(forUpdatingAtPath: d.database))
        try file.seek(toOffset: UInt64((page - 1) * pageSize + 8))  // the page's cell pointers
        try file.write(contentsOf: [UInt8](repeating: 0xFF, count: 16))
        try file.close()
        let sqliteCheck = try CLIRunner.run("/usr/bin/sqlite3", [d.database, "PRAGMA quick_check"])
        #expect(sqliteCheck.status != 0 || sqliteCheck.stdout != "ok\n", "\(sqliteCheck.stdout)")

        server = try d.start()
        if let url = server.url {
            let write = try? LoopbackHTTP(url: url).request(
                "PUT", "/admin/hosts/late.example.com", token: d.token, body: Self.body())
            #expect(write.map { !(200..<300).contains($0.status) } ?? true, "\(write?.body ?? "")")
        }
        #expect(server.exitStatus() == 1)
        let refusal = server.process.stderrText
        #expect(
            refusal.contains("cannot start: the database") && refusal.contains("is damaged: SQLite's quick_check")
                && refusal.contains("pinset backup --check"), "\(refusal)")
        #expect(try Self.sqlite(d.database, "SELECT count(*) FROM host WHERE name = 'late.example.com'") == "0")

        server = try d.start(["--serve-damaged", "--drain", "0"])
        defer { server.stop() }
        let served = try #require(server.url, "\(server.process.stderrText)")
        let http = LoopbackHTTP(url: served)
        try Self.expectServed(acknowledged, url: served)
        _ = try Self.write(["late.example.com"], url: served, token: d.token)
        #expect(try http.request("GET", "/readyz").status == 200)
        #expect(try http.request("GET", "/metrics").body.contains(#"pinset_storage_problem{kind="damaged_hosts"} 1"#))
    }

    // MARK: 2. Files swapped or deleted under the server

    @Test(arguments: ["-shm", "-wal"])
    func aDeletedWalOrShmTurnsWritesInto503AndKillNineLosesNothingAcknowledged(suffix: String) throws {
        let d = try Deployment()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        var server = try d.start()
        let url = try #require(server.url, "\(server.process.stderrText)")
        let acknowledged = try Self.write(Self.hosts, url: url, token: d.token)
        try FileManager.default.removeItem(atPath: d.database + suffix)
        let http = LoopbackHTTP(url: url)
        let refused = try http.request("PUT", "/admin/hosts/late.example.com", token: d.token, body: Self.body())
        #expect(refused.status == 503)
        #expect(refused.body.contains("urn:pinset:problem:storage-replaced"), "\(refused.body)")
        #expect(refused.body.contains("db.sqlite\(suffix)"), "\(refused.body)")
        #expect(try http.request("GET", "/metrics").body.contains("pinset_storage_problem{kind=\"file_replaced\"} 1"))
        #expect(server.process.stderrText.contains("critical"))
        // A CLI write beside the server is refused, not silently lost (fault 2: `token create` succeeded before).
        let token = try CLIRunner.pinset(["token", "create", "--db", d.database, "--name", "lost"])
        #expect(token.status == 1, "\(token.stdout)")
        #expect(token.stderr.contains("gone"), "\(token.stderr)")
        // Reads go on.
        try Self.expectServed(acknowledged, url: url)
        server.process.kill(SIGKILL)
        _ = server.exitStatus()

        server = try d.start()
        defer { server.stop() }
        let restarted = try #require(server.url, "\(server.process.stderrText)")
        try Self.expectServed(acknowledged, url: restarted)
        #expect(try LoopbackHTTP(url: restarted).request("GET", "/pins/late.example.com").status == 404)
    }

    @Test func aDatabaseRenamedOverTheRunningServerIsNoticedBeforeTheNextWrite() throws {
        let d = try Deployment()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        let server = try d.start()
        defer { server.stop() }
        let url = try #require(server.url, "\(server.process.stderrText)")
        _ = try Self.write(Array(Self.hosts.prefix(5)), url: url, token: d.token)
        let backup = d.directory.appendingPathComponent("backup.sqlite").path
        #expect(try CLIRunner.pinset(["backup", "--db", d.database, "--out", backup]).status == 0)
        // A careless restore: mv over the live database.
        #expect(rename(backup, d.database) == 0)
        let http = LoopbackHTTP(url: url)
        let refused = try http.request("PUT", "/admin/hosts/late.example.com", token: d.token, body: Self.body())
        #expect(refused.status == 503)
        #expect(refused.body.contains("db.sqlite was replaced"), "\(refused.body)")
    }

    @Test func aBackupCopiedOverTheRunningServersDatabaseIsNoticedAndTheRestoredFileStartsClean() throws {
        let d = try Deployment()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        var server = try d.start()
        let url = try #require(server.url, "\(server.process.stderrText)")
        let inBackup = try Self.write(Array(Self.hosts.prefix(5)), url: url, token: d.token)
        let backup = d.directory.appendingPathComponent("backup.sqlite").path
        #expect(try CLIRunner.pinset(["backup", "--db", d.database, "--out", backup]).status == 0)
        _ = try Self.write(["after-backup.example.com"], url: url, token: d.token)
        // A careless restore: cp over the live database keeps its inode and replaces its bytes.
        #expect(try CLIRunner.run("/bin/cp", [backup, d.database]).status == 0)
        let refused = try LoopbackHTTP(url: url).request(
            "PUT", "/admin/hosts/late.example.com", token: d.token, body: Self.body())
        #expect(refused.status == 503)
        #expect(refused.body.contains("db.sqlite was overwritten"), "\(refused.body)")
        server.stop()
        // The old WAL was moved aside, so the restored file is not replayed into: it opens sound, as restored.
        #expect(try Self.sqlite(d.database, "PRAGMA quick_check") == "ok")
        let aside = try FileManager.default.contentsOfDirectory(atPath: d.directory.path)
        #expect(aside.contains { $0.hasPrefix("db.sqlite-wal.replaced-") }, "\(aside)")
        server = try d.start()
        defer { server.stop() }
        let restarted = try #require(server.url, "\(server.process.stderrText)")
        try Self.expectServed(inBackup, url: restarted)
        let http = LoopbackHTTP(url: restarted)
        #expect(try http.request("GET", "/pins/late.example.com").status == 404)
        #expect(try http.request("GET", "/pins/after-backup.example.com").status == 404)
        _ = try Self.write(["after-restore.example.com"], url: restarted, token: d.token)
    }

    // MARK: 5. Resource faults

    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskAnswers503StorageFullAndRecoversWithoutLosingAnything() throws {
        let d0 = try CLIRunner.temporaryDirectory()
        let mount = d0.appendingPathComponent("mnt")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        try CLIRunner.shell("mount -t tmpfs -o size=3m tmpfs '\(mount.path)'", in: d0)
        defer {
            _ = try? CLIRunner.shell("umount '\(mount.path)'", in: d0)
            try? FileManager.default.removeItem(at: d0)
        }
        let d = try Deployment(directory: mount)
        var server = try d.start()
        defer { server.stop() }
        let url = try #require(server.url, "\(server.process.stderrText)")
        // Leave little room: a filler file takes the rest.
        _ = try? CLIRunner.shell("dd if=/dev/zero of=filler bs=64k count=36 2>/dev/null", in: mount)
        let http = LoopbackHTTP(url: url)
        var acknowledged: [String: Int] = [:]
        var full: LoopbackHTTP.Response?
        for index in 0..<2_000 {
            let host = "f\(index).example.com"
            let answer = try http.request("PUT", "/admin/hosts/\(host)", token: d.token, body: Self.body())
            guard answer.status == 200 || answer.status == 201 else {
                full = answer
                break
            }
            acknowledged[host] = 1
        }
        let answer = try #require(full, "the disk never filled")
        #expect(answer.status == 503, "\(answer.body)")
        #expect(answer.body.contains("urn:pinset:problem:storage-full"), "\(answer.body)")
        #expect(try http.request("GET", "/metrics").body.contains("pinset_storage_problem{kind=\"disk_full\"} 1"))
        // Not ready while the disk is full (issue 37's /readyz, condition `storage`).
        let notReady = try http.request("GET", "/readyz")
        #expect(notReady.status == 503 && notReady.body.contains(#""name":"storage""#), "\(notReady.body)")
        try FileManager.default.removeItem(at: mount.appendingPathComponent("filler"))
        let again = try http.request("PUT", "/admin/hosts/after.example.com", token: d.token, body: Self.body())
        #expect(again.status == 201, "\(again.body)")
        acknowledged["after.example.com"] = 1
        #expect(try http.request("GET", "/metrics").body.contains("pinset_storage_problem{kind=\"disk_full\"} 0"))
        #expect(try http.request("GET", "/readyz").status == 200)
        try Self.expectServed(acknowledged, url: url)

        // A start on a full disk names the cause (it said "check the path and its permissions" before).
        server.stop()
        _ = try? CLIRunner.shell("dd if=/dev/zero of=filler bs=64k count=1000 2>/dev/null", in: mount)
        server = try d.start()
        #expect(server.exitStatus() == 1)
        #expect(server.process.stderrText.contains("full"), "\(server.process.stderrText)")
        try FileManager.default.removeItem(at: mount.appendingPathComponent("filler"))
        server = try d.start()
        let restarted = try #require(server.url, "\(server.process.stderrText)")
        try Self.expectServed(acknowledged, url: restarted)
    }

    @Test func descriptorLimitsAreRaisedAndAConnectionLimitAboveThemIsWarnedAbout() throws {
        let d = try Deployment()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        // Soft limit 200 under a higher hard limit: raised at start.
        var server = try d.start(prefix: ["/bin/sh", "-c", "ulimit -Sn 200 && exec \"$@\"", "sh"])
        #expect(server.url != nil, "\(server.process.stderrText)")
        server.stop()
        #expect(server.process.stderrText.contains("raised the open-file limit"), "\(server.process.stderrText)")
        // Hard limit 100 too, --connection-limit 1024 above it: warned at start, and connections past the limit,
        // which are never answered, are logged (they were silent before).
        server = try d.start(
            ["--connection-limit", "1024"], prefix: ["/bin/sh", "-c", "ulimit -n 100 && exec \"$@\"", "sh"])
        let url = try #require(server.url, "\(server.process.stderrText)")
        let port = try #require(UInt16(url.split(separator: ":").last ?? ""))
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<150 {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if connected == 0 { sockets.append(socket) } else { close(socket) }
        }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !server.process.stderrText.contains("libmicrohttpd:") {
            Thread.sleep(forTimeInterval: 0.1)
        }
        server.stop()
        let log = server.process.stderrText
        #expect(log.contains("exceeds the open-file limit"), "\(log)")
        #expect(log.contains("libmicrohttpd:"), "\(log)")
    }

    @Test(.enabled(if: getuid() == 0, "chattr +i needs root"))
    func aCheckpointThatFailsIsLoggedAndCounted() throws {
        let d = try Deployment()
        defer {
            _ = try? CLIRunner.shell("chattr -i db.sqlite", in: d.directory)
            try? FileManager.default.removeItem(at: d.directory)
        }
        let server = try d.start()
        defer { server.stop() }
        let url = try #require(server.url, "\(server.process.stderrText)")
        guard (try? CLIRunner.shell("chattr +i db.sqlite", in: d.directory)) != nil else { return }  // not ext2/3/4
        let acknowledged = try Self.write(Array(Self.hosts.prefix(5)), url: url, token: d.token)
        let http = LoopbackHTTP(url: url)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, !server.process.stderrText.contains("WAL checkpoint failed") {
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(server.process.stderrText.contains("WAL checkpoint failed"), "\(server.process.stderrText)")
        let metrics = try http.request("GET", "/metrics").body
        #expect(!metrics.contains("pinset_wal_checkpoint_failures_total 0"), "\(metrics)")
        #expect(metrics.contains("pinset_wal_bytes "))
        try Self.expectServed(acknowledged, url: url)
    }

    // MARK: 3. Clocks

    /// The command prefix that runs the server `offset` (e.g. `+30d`) in the future with Debian's `faketime`. Monotonic
    /// clocks stay real: only the wall clock jumps, as when NTP or an operator sets it. (`faketime` forks the server:
    /// ``Server/stop()`` signals its children too.)
    static func faketime(_ offset: String) -> [String] {
        ["/usr/bin/env", "FAKETIME_DONT_FAKE_MONOTONIC=1", "faketime", "-f", offset]
    }

    @Test func documentsSignedUnderAClockAheadAreReSignedOnceTheClockIsRight() throws {
        let d = try Deployment()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        var server = try d.start(prefix: Self.faketime("+30d"))
        let ahead = try #require(server.url, "\(server.process.stderrText)")
        let acknowledged = try Self.write(Array(Self.hosts.prefix(3)), url: ahead, token: d.token)
        server.stop()

        server = try d.start()
        defer { server.stop() }
        let url = try #require(server.url, "\(server.process.stderrText)")
        let http = LoopbackHTTP(url: url)
        let deadline = Date().addingTimeInterval(30)
        var issued: [Double] = []
        repeat {
            issued = try acknowledged.keys.map { host in
                let body = try http.request("GET", "/pins/\(host)").body
                let text = try #require(try Self.payload(body)["issuedAt"] as? String)
                return try #require(ISO8601DateFormatter().date(from: text)).timeIntervalSinceNow
            }
            if issued.allSatisfy({ $0 < 300 }) { break }
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < deadline
        #expect(issued.allSatisfy { $0 < 300 }, "issuedAt still ahead of the clock by \(issued) s")
        try Self.expectServed(acknowledged, url: url)
        #expect(server.process.stderrText.contains("clock is behind"), "\(server.process.stderrText)")
        let metrics = try http.request("GET", "/metrics").body
        #expect(metrics.contains("pinset_documents_newest_issued_at_seconds "))
        let status = try CLIRunner.pinset(["status"], environment: ["PINSET_SERVER": url, "PINSET_TOKEN": d.token])
        #expect(status.stdout.contains("newest document issued at"), "\(status.stdout) \(status.stderr)")
    }

    @Test func aClockFarAheadOfTheNewestDocumentRefusesToStartUnlessTrusted() throws {
        let d = try Deployment()
        defer { try? FileManager.default.removeItem(at: d.directory) }
        var server = try d.start()
        let url = try #require(server.url, "\(server.process.stderrText)")
        let acknowledged = try Self.write(Array(Self.hosts.prefix(3)), url: url, token: d.token)
        server.stop()
        let before = try Self.sqlite(d.database, "SELECT group_concat(etag) FROM document")

        let faked = Self.faketime("+365d")
        server = try d.start(prefix: faked)
        #expect(server.exitStatus() == 1)
        #expect(server.process.stderrText.contains("--trust-clock"), "\(server.process.stderrText)")
        #expect(try Self.sqlite(d.database, "SELECT group_concat(etag) FROM document") == before)

        server = try d.start(["--trust-clock"], prefix: faked)
        defer { server.stop() }
        let trusted = try #require(server.url, "\(server.process.stderrText)")
        try Self.expectServed(acknowledged, url: trusted)
    }
}
