import Foundation
import NIOPosix
import OpenSSLCrypto
import PinSetClient
import PinSetCore
import PinSetServer
import TestSupport
import Testing

/// Issue 24 (PROTOCOL §7.4) with every part real: `pinset serve --log-key` and two `pinset witness` processes,
/// the client's updater over URLSession with a 2-of-2 tlog-policy. A witness refusing an inconsistent checkpoint
/// with 409 is covered by `WitnessProcessTests`.
@Suite struct TransparencyLogEndToEndTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let binary = packageRoot.appendingPathComponent(".build/debug/pinset").path
    static let origin = "pins.test/log"
    static let host = "api.example.com"
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// A process that did not print the banner expected.
    struct NoBanner: Error {
        let lines: [String]
    }

    /// A `pinset witness` process on a free loopback port; its URL and vkey from its banner.
    final class WitnessProcess {
        let process: ChildProcess
        let url: String
        let vkey: String

        /// Starts witness `name` with its key and database in `directory`; a witness started again under the same
        /// name in the same directory is the same witness (its key and database are kept), on a new port.
        init(name: String, logVKey: String, directory: URL) throws {
            let key = directory.appendingPathComponent("\(name)-key.pem").path
            if !FileManager.default.fileExists(atPath: key) {
                try ProcessRunner.text("openssl", "genpkey", "-algorithm", "ed25519", "-out", key)
            }
            process = try ProcessRunner.start(
                TransparencyLogEndToEndTests.binary,
                [
                    "witness", "--name", name, "--key", key, "--db",
                    directory.appendingPathComponent("\(name).sqlite").path, "--log", logVKey, "--port", "0",
                ], stdout: .pipe)
            let lines = process.readStdout(lines: 2).split(separator: "\n").map(String.init)
            guard lines.count >= 2, let start = lines[0].range(of: "http://"), lines[1].hasPrefix("  vkey: ") else {
                process.terminate()
                throw NoBanner(lines: lines)
            }
            url = String(lines[0][start.lowerBound...]).trimmingCharacters(in: .whitespaces)
            vkey = String(lines[1].dropFirst("  vkey: ".count))
        }

        deinit { stop() }

        /// Stops the witness (SIGTERM) and waits for it to exit.
        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// `pinset serve --dev` with the shared signing and log keys, its own database, and the witnesses.
    final class LoggedServer {
        let process: ChildProcess
        let url: URL
        let token: String

        init(directory: URL, database: String, witnesses: [WitnessProcess]) throws {
            process = try ProcessRunner.start(
                TransparencyLogEndToEndTests.binary,
                [
                    "serve", "--dev", "--db", directory.appendingPathComponent(database).path, "--key",
                    directory.appendingPathComponent("key.pem").path, "--port", "0", "--log-key",
                    directory.appendingPathComponent("log-key.pem").path, "--log-origin",
                    TransparencyLogEndToEndTests.origin, "--witness-deadline", "2",
                ] + witnesses.flatMap { ["--witness", $0.url, $0.vkey] }, stdout: .pipe)
            // The banner: URL, database, signing key, log, log vkey, the token's label, the token.
            let lines = process.readStdout(lines: 7).split(separator: "\n").map(String.init)
            guard let first = lines.first, let start = first.range(of: "http://"), lines.count >= 7,
                let url = URL(string: String(first[start.lowerBound...]))
            else {
                process.terminate()
                throw NoBanner(lines: lines)
            }
            self.url = url
            token = lines[6].trimmingCharacters(in: .whitespaces)
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }

        /// `PUT /admin/hosts/{host}` with one random current and backup pin; returns the status.
        func put(_ host: String) throws -> Int {
            let pins = (0..<2).map { _ in Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }) }
            let body = #"{"pins":[{"sha256":"\#(pins[0])","role":"current"},{"sha256":"\#(pins[1])","role":"backup"}]}"#
            return try TestHTTPClient(url: url.absoluteString).request(
                "PUT", "/admin/hosts/\(host)",
                headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                body: Array(body.utf8)
            ).status
        }
    }

    /// A client of `server` with the 2-of-2 policy; storage in `storage` if given.
    static func client(
        _ server: LoggedServer, policy: String, directory: URL, storage: PinStorage?, reporter: PinFailureReporter?
    ) throws -> (PinTrustManager, PinSetUpdater) {
        var options = PinningOptions()
        try options.setLogPolicy(text: policy)
        let keyPEM = try ProcessRunner.text(
            "openssl", "pkey", "-in", directory.appendingPathComponent("key.pem").path, "-pubout")
        let manager = PinTrustManager(
            verifier: DocumentVerifier(trustedKeys: [try TrustedKey(spkiPEM: keyPEM)]), options: options)
        let updater = PinSetUpdater(
            configuration: .init(server: server.url, hosts: [host]), trustManager: manager,
            transport: URLSessionTransport(timeout: 5), storage: storage, reporter: reporter)
        return (manager, updater)
    }

    /// Fetches until `host` reaches `version` (the cosignatures follow the write within a witness round), at most
    /// 40 tries 250 ms apart; returns the last event.
    static func fetch(_ updater: PinSetUpdater, until version: Int) async -> UpdateEvent {
        var event = await updater.refreshNow(host: host)
        for _ in 0..<40 {
            if case .updated(_, let reached) = event, reached >= version { return event }
            try? await Task.sleep(for: .milliseconds(250))
            event = await updater.refreshNow(host: host)
        }
        return event
    }

    @Test func aLoggedWriteIsAcceptedUnderTwoOfTwoAndASplitViewIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinset-e2e-log-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["key.pem", "log-key.pem"] {
            try ProcessRunner.text(
                "openssl", "genpkey", "-algorithm", "ed25519", "-out", directory.appendingPathComponent(name).path)
        }
        let logKey = try Ed25519SigningKey.load(pemFile: directory.appendingPathComponent("log-key.pem").path)
        let logVKey = try NoteSigner(name: Self.origin, type: .ed25519, key: logKey).key.description
        let witnesses = try (0..<2).map {
            try WitnessProcess(name: "w\($0).test", logVKey: logVKey, directory: directory)
        }
        let policy = """
            log \(logVKey)
            witness w0 \(witnesses[0].vkey)
            witness w1 \(witnesses[1].vkey)
            group both all w0 w1
            quorum both
            """

        // The honest server: two writes, each served with a proof cosigned by both witnesses; the second is checked
        // against the first checkpoint through a consistency proof read from the served tiles.
        let honest = try LoggedServer(directory: directory, database: "honest.sqlite", witnesses: witnesses)
        let listener = try await ReportListener(group: Self.group)
        let storage = PinStorage(directory: directory.appendingPathComponent("client"))
        let reporter = PinFailureReporter(fallbackReportURI: listener.url)
        let (manager, updater) = try Self.client(
            honest, policy: policy, directory: directory, storage: storage, reporter: reporter)
        #expect(try honest.put(Self.host) == 201)
        let first = await Self.fetch(updater, until: 1)
        guard case .updated(_, 1) = first else {
            Issue.record("the logged document was not accepted: \(first)")
            return
        }
        #expect(try honest.put(Self.host) == 200)
        let second = await Self.fetch(updater, until: 2)
        guard case .updated(_, 2) = second else {
            Issue.record("the second logged document was not accepted: \(second)")
            return
        }
        let honestCheckpoint = try #require(storage.loadCheckpoint(origin: Self.origin))
        #expect(try Checkpoint(text: honestCheckpoint.text).size == 2)
        await updater.stop()

        // The rogue server: the same signing and log keys, the same witnesses, its own history with rogue sets.
        let rogue = try LoggedServer(directory: directory, database: "rogue.sqlite", witnesses: witnesses)
        #expect(try rogue.put(Self.host) == 201)
        for _ in 0..<2 { #expect(try rogue.put(Self.host) == 200) }

        // A client that has seen the honest log (restarted from its storage): a fork, both notes to the app and
        // the report URI, the set in force kept.
        let (seen, seenUpdater) = try Self.client(
            rogue, policy: policy, directory: directory, storage: storage, reporter: reporter)
        await seenUpdater.loadPersisted()
        #expect(seen.pinSet(for: Self.host)?.version == 2)
        let forked = await seenUpdater.refreshNow(host: Self.host)
        guard case .rejected(_, let rejection) = forked, rejection.code == .logFork else {
            Issue.record("the rogue document was not refused as a fork: \(forked)")
            return
        }
        #expect(seen.pinSet(for: Self.host)?.version == 2)
        let events = await Self.collect(seenUpdater)
        let forks = events.compactMap { if case .logFork(_, let fork) = $0 { fork } else { nil } }
        #expect(forks.count == 1)
        #expect(forks.first?.kept == honestCheckpoint)
        #expect(try forks.first.map { try Checkpoint(text: $0.refused.text).size } == 3)
        #expect(await listener.waitFor(count: 1, timeout: 10))
        let report = try JSONDecoder().decode(LogForkReport.self, from: Data(try #require(listener.bodies.first)))
        #expect(report.report == "log-fork" && report.document == "/pins/\(Self.host)")
        #expect(report.logOrigin == Self.origin)
        #expect(report.keptCheckpoint == String(decoding: honestCheckpoint.bytes, as: UTF8.self))
        #expect(report.refusedCheckpoint == forks.first.map { String(decoding: $0.refused.bytes, as: UTF8.self) })

        // A client that has seen neither: refused all the same, the honest witnesses did not cosign the rogue log.
        let (fresh, freshUpdater) = try Self.client(
            rogue, policy: policy, directory: directory, storage: nil, reporter: nil)
        let unwitnessed = await freshUpdater.refreshNow(host: Self.host)
        guard case .rejected(_, let refusal) = unwitnessed, refusal.code == .notLogged else {
            Issue.record("the rogue document was not refused by a fresh client: \(unwitnessed)")
            return
        }
        #expect(refusal.detail.contains("quorumNotMet"))
        #expect(fresh.pinSet(for: Self.host) == nil)
        await freshUpdater.stop()
    }

    static func collect(_ updater: PinSetUpdater) async -> [UpdateEvent] {
        await updater.stop()
        var events: [UpdateEvent] = []
        for await event in updater.events { events.append(event) }
        return events
    }
}
