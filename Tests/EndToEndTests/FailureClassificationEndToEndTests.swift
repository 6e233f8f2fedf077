import Foundation
import Locking
import NIOCore
import NIOPosix
import PinSetClient
import PinSetCore
import PinSetNIO
import TestSupport
import Testing
import X509

/// Issue 18, all real: a pin server, the updater over URLSession, a NIO client and TLS servers on loopback. A
/// refused chain makes the updater fetch that host's document at once and evaluate the same chain again, so the
/// app can tell a legitimate rotation it was behind (`staleSet`) from a key nobody published (`unexpectedKey`).
@Suite(.serialized) struct FailureClassificationEndToEndTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let pki = try! TestPKI(name: "pinset e2e")

    static func randomPin() -> String { Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }) }

    /// A client whose updater polls only once an hour: every refresh in these tests comes from a pin failure.
    struct Client {
        let manager: PinTrustManager
        let updater: PinSetUpdater
        let recorder: EventRecorder
        let classified: Locked<[PinFailure]>
        let tls: PinnedTLSConfiguration

        init(server: TestServer, reporter: PinFailureReporter?) throws {
            manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [try server.trustedKey()]))
            let classified = Locked<[PinFailure]>([])
            self.classified = classified
            updater = PinSetUpdater(
                configuration: .init(
                    server: server.baseURL, hosts: ["localhost"], defaultRefreshInterval: 3600,
                    minimumRefreshInterval: 3600, jitter: 0),
                trustManager: manager, reporter: reporter,
                onPinFailure: { failure in classified.withLock { $0.append(failure) } })
            recorder = EventRecorder(updater.events)
            tls = PinnedTLSConfiguration(trustManager: manager, trustRoots: CertificateStore([pki.root]))
        }

        /// Connects with `PinSetNIO.connect`; `nil` when the handshake passed, else the error.
        func connect(port: Int) async -> PinnedConnectionError? {
            do {
                let channel = try await PinSetNIO.connect(
                    host: "localhost", port: port, configuration: tls, group: FailureClassificationEndToEndTests.group)
                try? await channel.close()
                return nil
            } catch let error as PinnedConnectionError {
                return error
            } catch {
                Issue.record("unexpected error \(error)")
                return nil
            }
        }

        /// Waits (bounded) for the first classified failure.
        func waitForClassification(timeout: TimeInterval = 30) async -> PinFailure? {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let first = classified.withLock({ $0.first }) { return first }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
    }

    @Test func aRotationTheClientWasBehindIsAStaleSetAndTheNextConnectionSucceeds() async throws {
        let listener = try await ReportListener(group: Self.group)
        defer { listener.channel.close(promise: nil) }
        let server = try TestServer(refreshInterval: 1)
        let (leafA, _) = try Self.pki.makeLeaf()
        let (leafB, keyB) = try Self.pki.makeLeaf()
        let backup = Self.randomPin()
        #expect(
            try server.putSet("localhost", pins: [(leafA.spkiPin, "current"), (backup, "backup")]) == 201)

        let client = try Client(server: server, reporter: PinFailureReporter(fallbackReportURI: listener.url))
        await client.updater.start()
        #expect(await client.recorder.waitForUpdate(host: "localhost", version: 1))

        // The host rotates to key B and the server publishes it; the client, polling hourly, still holds A.
        #expect(
            try server.putSet("localhost", pins: [(leafB.spkiPin, "current"), (backup, "backup")]) == 200)
        let tls = try await TLSServerFixture.start(leaf: leafB, key: keyB, pki: Self.pki, group: Self.group)
        defer { tls.channel.close(promise: nil) }

        let refused = await client.connect(port: tls.port)
        #expect(refused?.code == .pinningRefused)
        #expect(refused?.description.contains(leafB.spkiPin) == true)
        let failure = await client.waitForClassification()
        #expect(failure?.classification == .staleSet)
        #expect(failure?.version == 1)
        #expect(client.manager.pinSet(for: "localhost")?.version == 2)
        // The events stream is read by a task of its own: wait (bounded) for the classified failure there too.
        var event = false
        for _ in 0..<250 where !event {
            event = client.recorder.all.contains {
                if case .pinFailure(let f) = $0, f.classification == .staleSet { return true }
                return false
            }
            if !event { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(event)

        // No restart: the next connection passes with the set the failure fetched.
        #expect(await client.connect(port: tls.port) == nil)

        // The report carries the classification as an extra field.
        #expect(await listener.waitFor(count: 1))
        let report = try JSONSerialization.jsonObject(with: Data(listener.bodies[0])) as? [String: Any]
        #expect(report?["pinset-classification"] as? String == "staleSet")
        await client.updater.stop()
    }

    @Test func aValidCertificateWithAnUnpublishedKeyIsAnUnexpectedKey() async throws {
        let listener = try await ReportListener(group: Self.group)
        defer { listener.channel.close(promise: nil) }
        let server = try TestServer(refreshInterval: 1)
        let (leafA, _) = try Self.pki.makeLeaf()
        let (leafD, keyD) = try Self.pki.makeLeaf()
        #expect(
            try server.putSet(
                "localhost", pins: [(leafA.spkiPin, "current"), (Self.randomPin(), "backup")])
                == 201)
        let client = try Client(server: server, reporter: PinFailureReporter(fallbackReportURI: listener.url))
        await client.updater.start()
        #expect(await client.recorder.waitForUpdate(host: "localhost", version: 1))

        // An interceptor with a certificate from a CA the client trusts, for a key nobody published.
        let tls = try await TLSServerFixture.start(leaf: leafD, key: keyD, pki: Self.pki, group: Self.group)
        defer { tls.channel.close(promise: nil) }
        #expect(await client.connect(port: tls.port)?.code == .pinningRefused)
        let failure = await client.waitForClassification()
        #expect(failure?.classification == .unexpectedKey)
        #expect(client.manager.pinSet(for: "localhost")?.version == 1)
        // Still refused: the newest set does not accept it.
        #expect(await client.connect(port: tls.port)?.code == .pinningRefused)

        #expect(await listener.waitFor(count: 1))
        let report = try JSONSerialization.jsonObject(with: Data(listener.bodies[0])) as? [String: Any]
        #expect(report?["pinset-classification"] as? String == "unexpectedKey")
        await client.updater.stop()
    }

    @Test func aReportURIOnAPinnedHostWithAWrongPinStillGetsTheReport() async throws {
        // The set's reportUri is on localhost, the very host whose pins are wrong: the reporter's own requests
        // are never pin-evaluated, so the report arrives.
        let listener = try await ReportListener(group: Self.group)
        defer { listener.channel.close(promise: nil) }
        let server = try TestServer(refreshInterval: 1)
        let reportUri = "http://localhost:\(listener.port)/reports"
        let pins = [(Self.randomPin(), "current"), (Self.randomPin(), "backup")]
        #expect(try server.putSet("localhost", pins: pins, reportUri: reportUri) == 201)
        let client = try Client(server: server, reporter: PinFailureReporter())
        await client.updater.start()
        #expect(await client.recorder.waitForUpdate(host: "localhost", version: 1))

        let (leaf, key) = try Self.pki.makeLeaf()
        let tls = try await TLSServerFixture.start(leaf: leaf, key: key, pki: Self.pki, group: Self.group)
        defer { tls.channel.close(promise: nil) }
        #expect(await client.connect(port: tls.port)?.code == .pinningRefused)
        #expect(await listener.waitFor(count: 1))
        let report = try JSONDecoder().decode(PinFailureReport.self, from: Data(listener.bodies[0]))
        #expect(report.hostname == "localhost")
        #expect(report.pinsetClassification == "unexpectedKey")
        await client.updater.stop()
    }

    @Test func aFailingReportURIFallsBackToThePinServersReports() async throws {
        // A reportUri where nothing listens: the report goes to the pin server's own /reports instead.
        let dead = try await ReportListener(group: Self.group)
        let deadURI = dead.url.absoluteString
        try await dead.channel.close()
        let server = try TestServer(refreshInterval: 1)
        let pins = [(Self.randomPin(), "current"), (Self.randomPin(), "backup")]
        #expect(try server.putSet("localhost", pins: pins, reportUri: deadURI) == 201)
        let client = try Client(server: server, reporter: PinFailureReporter(timeout: 5))
        await client.updater.start()
        #expect(await client.recorder.waitForUpdate(host: "localhost", version: 1))

        let (leaf, key) = try Self.pki.makeLeaf()
        let tls = try await TLSServerFixture.start(leaf: leaf, key: key, pki: Self.pki, group: Self.group)
        defer { tls.channel.close(promise: nil) }
        #expect(await client.connect(port: tls.port)?.code == .pinningRefused)

        var groups: [[String: Any]] = []
        for _ in 0..<100 where groups.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            groups = try server.reportGroups()
        }
        #expect(groups.count == 1)
        #expect(groups.first?["host"] as? String == "localhost")
        await client.updater.stop()
    }
}
