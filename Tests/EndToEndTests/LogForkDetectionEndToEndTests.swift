import Foundation
import NIOPosix
import OpenSSLCrypto
import PinSetClient
import PinSetCore
import PinSetOpenSSL
import PinSetServer
import TestSupport
import Testing

/// Issue 35 (PROTOCOL §7.2, §7.5) with every part real: a thief with the signing key, the log key and a backup of
/// the database runs its own `pinset serve` with the same witnesses and has them cosign an extension of the public
/// log. The honest `pinset serve` finds the fork at its next checkpoint, from the witnesses' own checkpoints, and
/// says so everywhere until acknowledged; `pinset log watch --witness` sees it too; the witnesses keep evidence.
@Suite(.serialized, .blocking) struct LogForkDetectionEndToEndTests {
    static let binary = TransparencyLogEndToEndTests.binary
    static let origin = TransparencyLogEndToEndTests.origin
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    /// The honest server's `--witness-retry`: detection must come within one.
    static let retry = 2

    typealias WitnessProcess = TransparencyLogEndToEndTests.WitnessProcess

    /// `pinset serve --dev` with the shared keys, its own database, its witnesses and an alert webhook.
    final class ServeProcess {
        let process: ChildProcess
        let url: URL
        let token: String

        /// - Parameter token: an admin token of the database; `nil` for a new database (`--dev` prints one; it
        ///   prints none for a database that holds tokens already, a backup's or a restarted server's).
        init(
            directory: URL, database: String, witnesses: [WitnessProcess], webhook: URL? = nil, token: String? = nil
        ) throws {
            process = try ProcessRunner.start(
                LogForkDetectionEndToEndTests.binary,
                [
                    "serve", "--dev", "--db", directory.appendingPathComponent(database).path, "--key",
                    directory.appendingPathComponent("key.pem").path, "--port", "0", "--log-key",
                    directory.appendingPathComponent("log-key.pem").path, "--log-origin",
                    LogForkDetectionEndToEndTests.origin, "--witness-deadline", "2", "--witness-retry",
                    "\(LogForkDetectionEndToEndTests.retry)",
                ] + witnesses.flatMap { ["--witness", $0.url, $0.vkey] }
                    + (webhook.map { ["--alert-webhook", $0.absoluteString] } ?? []), stdout: .pipe)
            // The banner: URL, database, signing key, log, log vkey, then (a new database) the token's label and
            // the token.
            let lines = process.readStdout(lines: token == nil ? 7 : 5).split(separator: "\n").map(String.init)
            guard let first = lines.first, let start = first.range(of: "http://"),
                lines.count >= (token == nil ? 7 : 5), let url = URL(string: String(first[start.lowerBound...]))
            else {
                process.terminate()
                throw TransparencyLogEndToEndTests.NoBanner(lines: lines)
            }
            self.url = url
            self.token = token ?? lines[6].trimmingCharacters(in: .whitespaces)
        }

        deinit { stop() }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }

        var client: TestHTTPClient { TestHTTPClient(url: url.absoluteString) }
        var auth: [String: String] { ["Authorization": "Bearer \(token)"] }

        /// `PUT /admin/hosts/{host}` with random pins (and `reportUri`, if given); the status.
        func put(_ host: String, reportUri: String? = nil) throws -> Int {
            let pins = (0..<2).map { _ in Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }) }
            let report = reportUri.map { #","reportUri":"\#($0)""# } ?? ""
            let body =
                #"{"pins":[{"sha256":"\#(pins[0])","role":"current"},{"sha256":"\#(pins[1])","role":"backup"}]\#(report)}"#
            return try client.request(
                "PUT", "/admin/hosts/\(host)", headers: auth.merging(["Content-Type": "application/json"]) { $1 },
                body: Array(body.utf8)
            ).status
        }

        /// `GET /admin/log` as JSON.
        func log() throws -> [String: Any] {
            let answer = try client.request("GET", "/admin/log", headers: auth)
            return (try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
        }

        /// Polls `GET /admin/log` every 100 ms until `condition` holds, at most `seconds`; whether it did.
        func waitForLog(seconds: Double, _ condition: ([String: Any]) -> Bool) async throws -> Bool {
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                if condition(try log()) { return true }
                try await Task.sleep(for: .milliseconds(100))
            }
            return condition(try log())
        }
    }

    /// Keys, three witnesses.
    struct Setup {
        let directory: URL
        let logVKey: String
        let witnesses: [WitnessProcess]
    }

    /// Keys and `witnesses` witnesses (default three) in a new temporary directory.
    static func setUp(witnesses count: Int = 3) throws -> Setup {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-e2e-fork-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in ["key.pem", "log-key.pem"] {
            try ProcessRunner.text(
                "openssl", "genpkey", "-algorithm", "ed25519", "-out", directory.appendingPathComponent(name).path)
            try ProcessRunner.text("chmod", "600", directory.appendingPathComponent(name).path)
        }
        let logKey = try Ed25519SigningKey.load(pemFile: directory.appendingPathComponent("log-key.pem").path)
        let logVKey = try NoteSigner(name: origin, type: .ed25519, key: logKey).key.description
        let witnesses = try (0..<count).map {
            try WitnessProcess(name: "w\($0).test", logVKey: logVKey, directory: directory)
        }
        return Setup(directory: directory, logVKey: logVKey, witnesses: witnesses)
    }

    static func cosigners(_ log: [String: Any]) -> Int { (log["cosignedBy"] as? [String])?.count ?? 0 }
    static func openForks(_ log: [String: Any]) -> Int { log["openForks"] as? Int ?? 0 }

    /// The honest server with two cosigned writes, then the thief's extension cosigned by `thiefWitnesses`; then the
    /// honest server's next write. Returns the honest server, the thief, and the seconds from that write to the
    /// fork shown by `GET /admin/log`.
    static func attack(
        _ setup: Setup, thiefWitnesses: [WitnessProcess], webhook: URL?, rogueReportUri: String? = nil,
        copy: ThiefCopy = .backup
    ) async throws -> (
        honest: ServeProcess, thief: ServeProcess, seconds: Double, thiefSize: Int
    ) {
        let honest = try ServeProcess(
            directory: setup.directory, database: "honest.sqlite", witnesses: setup.witnesses, webhook: webhook)
        #expect(try honest.put("api.example.com") == 201)
        #expect(try honest.put("api.example.com") == 200)
        #expect(
            try await honest.waitForLog(seconds: 30) {
                cosigners($0) == 3 && ($0["checkpointSize"] as? Int) == ($0["treeSize"] as? Int)
            })
        let size = try #require(try honest.log()["checkpointSize"] as? Int)

        // The thief: a copy of the honest log (a stolen backup, or one rebuilt from the public tiles), the same keys,
        // its own server.
        let backup = setup.directory.appendingPathComponent("thief.sqlite").path
        switch copy {
        case .backup:
            let copied = try ProcessRunner.run(
                binary,
                ["backup", "--db", setup.directory.appendingPathComponent("honest.sqlite").path, "--out", backup])
            #expect(copied.status == 0, "\(copied.errorText)")
        case .publicTiles:
            try rebuildFromTiles(of: honest, into: backup)
        }
        let thiefToken =
            try ProcessRunner.run(binary, ["token", "create", "--db", backup, "--name", "thief"]).text
            .split(separator: "\n").last.map(String.init) ?? ""
        let thief = try ServeProcess(
            directory: setup.directory, database: "thief.sqlite", witnesses: thiefWitnesses, token: thiefToken)
        // A backup holds the host (an update); a log rebuilt from tiles holds no host table (a new host).
        #expect(try thief.put("api.example.com", reportUri: rogueReportUri) == (copy == .backup ? 200 : 201))
        #expect(
            try await thief.waitForLog(seconds: 30) {
                cosigners($0) == thiefWitnesses.count && ($0["checkpointSize"] as? Int ?? 0) > size
            }, "the witnesses cosign the thief's extension: it is consistent with what they saw")
        #expect(openForks(try honest.log()) == 0)

        // The honest server's next checkpoint: the witnesses the thief reached refuse it; the fork is found.
        let started = Date()
        #expect(try honest.put("www.example.com") == 201)
        let found = try await honest.waitForLog(seconds: Double(retry) + 30) { openForks($0) >= 1 }
        let seconds = Date().timeIntervalSince(started)
        #expect(found, "the honest server did not record the fork")
        return (honest, thief, seconds, try #require(try thief.log()["checkpointSize"] as? Int))
    }

    @Test func theHonestServerFindsAnExtensionCosignedByTheWitnessesAndSaysSoUntilAcknowledged() async throws {
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let listener = try await ReportListener(group: Self.group)
        var (honest, thief, seconds, thiefSize) = try await Self.attack(
            setup, thiefWitnesses: setup.witnesses, webhook: listener.url)
        print(
            "issue 35: fork detected \(String(format: "%.2f", seconds)) s after the honest server's next write "
                + "(--witness-retry \(Self.retry) s)")
        #expect(seconds < Double(Self.retry) + 8, "detection within one witness retry (plus the machine's load)")

        // GET /admin/log: the foreign checkpoint (the thief's) and the server's own.
        let log = try honest.log()
        let fork = try #require((log["forks"] as? [[String: Any]])?.first)
        let thiefCheckpoint = try #require(thief.log()["checkpoint"] as? String)
        #expect((fork["foreignCheckpoint"] as? String)?.hasPrefix(String(thiefCheckpoint.prefix(40))) == true)
        #expect((fork["foreignCheckpoint"] as? String)?.contains("\n\(thiefSize)\n") == true)
        #expect((fork["source"] as? String)?.hasPrefix("witness http://127.0.0.1:") == true)
        #expect((fork["ownCheckpoint"] as? String)?.contains(Self.origin) == true)
        // /metrics, the alert webhook, pinset status.
        #expect(try honest.client.request("GET", "/metrics").text.contains("pinset_log_forks 1\n"))
        #expect(await listener.waitFor(count: 1, timeout: 15))
        let event = try #require(
            listener.bodies.compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }.first {
                $0["event"] as? String == "log-fork"
            })
        #expect(event["origin"] as? String == Self.origin)
        #expect((event["foreignCheckpoint"] as? String)?.contains("\n\(thiefSize)\n") == true)
        let status = try ProcessRunner.run(
            Self.binary, ["status", "--server", honest.url.absoluteString], environment: ["PINSET_TOKEN": honest.token])
        #expect(status.text.contains("LOG FORK: 1 open fork"), "\(status.text)\(status.errorText)")

        // pinset log watch, following the honest log and asking the witnesses: a fork, exit 3, both notes.
        let watch = try ProcessRunner.run(
            Self.binary,
            ["log", "watch", honest.url.absoluteString, "--hosts", "*", "--log-key", setup.logVKey, "--once"]
                + setup.witnesses.flatMap { ["--witness", $0.url] })
        #expect(watch.status == 3, "\(watch.errorText)")
        #expect(watch.errorText.contains("FORK") && watch.errorText.contains("a witness holds a checkpoint"))

        // The witnesses kept the honest server's conflicting checkpoints as evidence, across a restart: the same
        // conflicts and the same newest cosigned checkpoint (the thief's), read from the restarted witness.
        let hash = OpenSSLTrustCrypto().sha256(Array(Self.origin.utf8)).map { String(format: "%02x", $0) }.joined()
        let evidence = try TestHTTPClient(url: setup.witnesses[0].url).request("GET", "/\(hash)/conflicts")
        let kept = try JSONSerialization.jsonObject(with: Data(evidence.body)) as? [[String: Any]]
        #expect(kept?.isEmpty == false, "\(evidence.text)")
        let newest = try TestHTTPClient(url: setup.witnesses[0].url).request("GET", "/\(hash)/checkpoint")
        #expect(newest.text.contains("\n\(thiefSize)\n"), "the witness's newest checkpoint is the thief's")
        setup.witnesses[0].stop()
        let restarted = try WitnessProcess(name: "w0.test", logVKey: setup.logVKey, directory: setup.directory)
        #expect(restarted.vkey == setup.witnesses[0].vkey, "the same witness (its key kept)")
        let after = try TestHTTPClient(url: restarted.url).request("GET", "/\(hash)/conflicts")
        // Newest first: every conflict kept before the restart is still there (the honest server's retries may
        // have added none or more).
        let afterKept = (try JSONSerialization.jsonObject(with: Data(after.body)) as? [[String: Any]]) ?? []
        let before = kept ?? []
        #expect(after.status == 200 && afterKept.count >= before.count, "\(after.status) \(after.text)")
        #expect(NSArray(array: Array(afterKept.suffix(before.count))).isEqual(to: before), "\(after.text)")
        #expect(try TestHTTPClient(url: restarted.url).request("GET", "/\(hash)/checkpoint").body == newest.body)

        // A restart keeps the fork open; acknowledging it closes it (still listed).
        honest.stop()
        honest = try ServeProcess(
            directory: setup.directory, database: "honest.sqlite", witnesses: [restarted] + setup.witnesses.dropFirst(),
            token: honest.token)
        #expect(Self.openForks(try honest.log()) == 1)
        let id = try #require(fork["id"] as? Int)
        let ack = try honest.client.request("POST", "/admin/log/forks/\(id)/acknowledge", headers: honest.auth)
        #expect(ack.status == 204)
        #expect(Self.openForks(try honest.log()) == 0)
        #expect((try honest.log()["forks"] as? [[String: Any]])?.count == 1)
        #expect(try honest.client.request("GET", "/metrics").text.contains("pinset_log_forks 0\n"))
        #expect(
            try honest.client.request("POST", "/admin/log/forks/\(id)/acknowledge", headers: honest.auth).status == 404)
        thief.stop()
        honest.stop()
    }

    @Test func aThiefThatReachesOneWitnessOfThreeIsFoundThroughIt() async throws {
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let (honest, thief, seconds, _) = try await Self.attack(
            setup, thiefWitnesses: [setup.witnesses[0]], webhook: nil)
        print("issue 35: fork via one witness of three detected \(String(format: "%.2f", seconds)) s after the write")
        #expect(seconds < Double(Self.retry) + 8)
        // The two witnesses the thief did not reach still cosign the honest log (2 of 3 remain a quorum).
        #expect(try await honest.waitForLog(seconds: 20) { Self.cosigners($0) == 2 })
        let witnesses = try #require(honest.log()["witnesses"] as? [[String: Any]])
        #expect(witnesses.first?["lastAnswer"] as? String == "fork")
        thief.stop()
        honest.stop()
    }

    /// PROTOCOL §7.4: a victim that accepted the thief's set (its proof verifies, the witnesses cosigned it) sees
    /// the fork when it next reads the honest server, keeps the set in force, reports the fork to the address the
    /// app configured and to its pin server, never to the rogue set's reportUri, and accepts nothing more under
    /// the log key.
    @Test func aVictimReportsTheForkToItsOwnAddressesAndTrustsTheLogKeyNoMore() async throws {
        let setup = try Self.setUp()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let configured = try await ReportListener(group: Self.group)
        let rogueReports = try await ReportListener(group: Self.group)
        let (honest, thief, _, _) = try await Self.attack(
            setup, thiefWitnesses: setup.witnesses, webhook: nil, rogueReportUri: rogueReports.url.absoluteString)

        var options = PinningOptions()
        try options.setLogPolicy(
            text: "log \(setup.logVKey)\n"
                + setup.witnesses.enumerated().map { "witness w\($0.offset) \($0.element.vkey)\n" }.joined()
                + "group two 2 w0 w1 w2\nquorum two\n")
        let keyPEM = try ProcessRunner.text(
            "openssl", "pkey", "-in", setup.directory.appendingPathComponent("key.pem").path, "-pubout")
        let manager = PinTrustManager(
            verifier: DocumentVerifier(trustedKeys: [try TrustedKey(spkiPEM: keyPEM)]), options: options)
        let storage = PinStorage(directory: setup.directory.appendingPathComponent("victim"))
        let reporter = PinFailureReporter(fallbackReportURI: configured.url)
        func updater(_ server: ServeProcess) -> PinSetUpdater {
            PinSetUpdater(
                configuration: .init(server: server.url, hosts: ["api.example.com"]), trustManager: manager,
                transport: URLSessionTransport(timeout: 5), storage: storage, reporter: reporter)
        }
        // Shown the thief's server: the rogue set is accepted (a valid proof, cosigned by the witnesses).
        let shown = updater(thief)
        let accepted = await shown.refreshNow(host: "api.example.com")
        guard case .updated(_, let rogueVersion) = accepted else {
            Issue.record("the rogue set was not accepted: \(accepted)")
            return
        }
        await shown.stop()

        // Then the honest server: a fork. The set in force stays; the report goes to the app's address and the
        // configured pin server, not to the rogue set's reportUri.
        // (Its new document, in a tree larger than the thief's: the honest tiles lead to its root and give another
        // root at the thief's size. A smaller honest checkpoint could not be judged from them: refused, not a fork.)
        #expect(try honest.put("api.example.com") == 200)
        let back = updater(honest)
        let forked = await back.refreshNow(host: "api.example.com")
        guard case .rejected(_, let rejection) = forked, rejection.code == .logFork else {
            Issue.record("the honest document was not refused as a fork: \(forked)")
            return
        }
        #expect(manager.pinSet(for: "api.example.com")?.version == rogueVersion)
        await back.stop()
        #expect(await configured.waitFor(count: 1, timeout: 15))
        let body = try #require(configured.bodies.first)
        let report = try JSONDecoder().decode(LogForkReport.self, from: Data(body))
        #expect(report.origin == Self.origin && report.held != nil && report.new != nil)
        // The pin server's copy is posted beside the app's: wait for it (at most 15 s).
        var listed = 0
        for _ in 0..<150 {
            let reports = try honest.client.request("GET", "/admin/reports", headers: honest.auth)
            let forks = (try JSONSerialization.jsonObject(with: Data(reports.body)) as? [String: Any])?["logForks"]
            listed = (forks as? [Any])?.count ?? 0
            if listed > 0 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(listed == 1, "the honest server stored the report: both notes verify")
        try await Task.sleep(for: .seconds(2))
        #expect(rogueReports.bodies.isEmpty, "nothing went to the rogue set's reportUri")

        // No document under that log key any more: the thief's next set is refused too.
        #expect(try thief.put("api.example.com") == 200)
        try await Task.sleep(for: .seconds(1))
        let again = updater(thief)
        let refused = await again.refreshNow(host: "api.example.com")
        guard case .rejected(_, let after) = refused, after.code == .notLogged else {
            Issue.record("a document under the forked log key was not refused: \(refused)")
            return
        }
        #expect(manager.pinSet(for: "api.example.com")?.version == rogueVersion)
        await again.stop()
        thief.stop()
        honest.stop()
    }
}
