import Crypto
import Foundation
import PinSetClient
import PinSetCore
import Synchronization
import TestSupport
import Testing

/// A tiny in-memory pin server behind the transport protocol: serves one document per host with the ETag and
/// Cache-Control of PROTOCOL §3, answers 304 to a matching If-None-Match, and records the requests.
final class InTestServer: PinSetTransport, Sendable {
    struct Stored { var status: Int; var body: [UInt8] }
    let documents = Mutex<[String: Stored]>([:])
    let requests = Mutex<[(path: String, ifNoneMatch: String?)]>([])
    let failTransport = Mutex(false)

    func serve(_ host: String, _ body: [UInt8], status: Int = 200) {
        documents.withLock { $0[host] = Stored(status: status, body: body) }
    }

    static func etag(_ body: [UInt8]) -> String {
        ETag.of(sha256: SHA256.hash(data: body))
    }

    func get(_ url: URL, headers: [String: String]) async throws -> TransportResponse {
        struct Down: Error {}
        requests.withLock { $0.append((url.path, headers["If-None-Match"])) }
        if failTransport.withLock({ $0 }) { throw Down() }
        let host = url.lastPathComponent
        guard let stored = documents.withLock({ $0[host] }) else { return TransportResponse(status: 404) }
        guard stored.status == 200 else { return TransportResponse(status: stored.status) }
        let etag = Self.etag(stored.body)
        let common = ["ETag": etag, "Cache-Control": "public, max-age=120"]
        if headers["If-None-Match"] == etag { return TransportResponse(status: 304, headers: common) }
        return TransportResponse(
            status: 200, headers: common.merging(["Content-Type": "application/json"]) { a, _ in a }, body: stored.body)
    }
}

@Suite struct PinSetUpdaterTests {
    let signer = TestSigner()
    let server = InTestServer()
    let configuration = PinSetUpdater.Configuration(server: URL(string: "https://pins.test")!, hosts: ["example.com"])

    func makeUpdater(storage: PinStorage?) -> (PinTrustManager, PinSetUpdater) {
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        let updater = PinSetUpdater(
            configuration: configuration, trustManager: manager, transport: server, storage: storage, clock: { testNow }
        )
        return (manager, updater)
    }

    @Test func persistenceAndRollbackProtectionAcrossARestart() async throws {
        let storage = PinStorage(directory: try makeTemporaryDirectory().appendingPathComponent("pins"))
        let v5 = signer.sign(makeSet(version: 5, pins: [.spki(testChain[0]), randomPin()]))
        server.serve("example.com", v5)

        let (manager1, updater1) = makeUpdater(storage: storage)
        guard case .updated(_, 5) = await updater1.refreshNow(host: "example.com") else {
            Issue.record("v5 not accepted")
            return
        }
        #expect(storage.load(host: "example.com") == v5)
        #expect(manager1.evaluate(chain: [testChain[0].der], host: "example.com", now: testNow).allowsConnection)
        await updater1.stop()

        // Restart: the server (or a man in the middle) now serves an older, validly signed version.
        server.serve("example.com", signer.sign(makeSet(version: 4, pins: [randomPin(role: .current), randomPin()])))
        let (manager2, updater2) = makeUpdater(storage: storage)
        await updater2.loadPersisted()
        #expect(manager2.acceptedVersion(for: "example.com")?.version == 5)
        guard case .rejected(_, let rejection) = await updater2.refreshNow(host: "example.com") else {
            Issue.record("the rollback was not refused")
            return
        }
        #expect(rejection.code == .rollback)
        #expect(manager2.acceptedVersion(for: "example.com")?.version == 5)
        #expect(manager2.evaluate(chain: [testChain[0].der], host: "example.com", now: testNow).allowsConnection)
        #expect(storage.load(host: "example.com") == v5)

        // A newer version goes through and replaces the file.
        let v6 = signer.sign(makeSet(version: 6, pins: [.spki(testChain[1]), randomPin()]))
        server.serve("example.com", v6)
        guard case .updated(_, 6) = await updater2.refreshNow(host: "example.com") else {
            Issue.record("v6 not accepted")
            return
        }
        #expect(storage.load(host: "example.com") == v6)
        await updater2.stop()
    }

    @Test func conditionalRequestsAfterReload() async throws {
        let storage = PinStorage(directory: try makeTemporaryDirectory())
        let v5 = signer.sign(makeSet(version: 5))
        try storage.save(v5, for: "example.com")
        server.serve("example.com", v5)
        let (_, updater) = makeUpdater(storage: storage)
        await updater.loadPersisted()
        guard case .notModified = await updater.refreshNow(host: "example.com") else {
            Issue.record("expected 304 with the ETag computed from the persisted document")
            return
        }
        #expect(server.requests.withLock { $0.last?.ifNoneMatch } == InTestServer.etag(v5))
        #expect(server.requests.withLock { $0.last?.path } == "/pins/example.com")
    }

    @Test func failuresAreReportedAndChangeNothing() async {
        let (manager, updater) = makeUpdater(storage: nil)
        server.serve("example.com", signer.sign(makeSet(version: 5)))
        await updater.refreshNow(host: "example.com")
        server.serve("example.com", [], status: 500)
        guard case .fetchFailed(_, let error) = await updater.refreshNow(host: "example.com") else {
            Issue.record("500 not reported")
            return
        }
        #expect(error.code == .httpStatus && error.status == 500)
        server.failTransport.withLock { $0 = true }
        guard case .fetchFailed(_, let down) = await updater.refreshNow(host: "example.com") else {
            Issue.record("transport failure not reported")
            return
        }
        #expect(down.code == .transport)
        server.failTransport.withLock { $0 = false }
        server.serve("example.com", TestSigner().sign(makeSet(version: 9)))
        guard case .rejected(_, let rejection) = await updater.refreshNow(host: "example.com") else {
            Issue.record("foreign document not rejected")
            return
        }
        #expect(rejection.code == .unknownKey)
        #expect(manager.acceptedVersion(for: "example.com")?.version == 5)
    }

    @Test(.blocking) func delaysHonourMaxAgeJitterAndBackoff() {
        let config = PinSetUpdater.Configuration(
            server: URL(string: "https://pins.test")!, hosts: [], defaultRefreshInterval: 3600,
            minimumRefreshInterval: 60,
            maximumRefreshInterval: 86_400, jitter: 0.1, initialBackoff: 5, maximumBackoff: 600)
        #expect(PinSetUpdater.nextDelay(maxAge: 120, consecutiveFailures: 0, configuration: config, random: 0) == 120)
        #expect(PinSetUpdater.nextDelay(maxAge: 120, consecutiveFailures: 0, configuration: config, random: 1) == 132)
        #expect(PinSetUpdater.nextDelay(maxAge: nil, consecutiveFailures: 0, configuration: config, random: 0) == 3600)
        #expect(PinSetUpdater.nextDelay(maxAge: 1, consecutiveFailures: 0, configuration: config, random: 0) == 60)
        #expect(
            PinSetUpdater.nextDelay(maxAge: 10_000_000, consecutiveFailures: 0, configuration: config, random: 0)
                == 86_400)
        let backoff = (1...10).map {
            PinSetUpdater.nextDelay(maxAge: 120, consecutiveFailures: $0, configuration: config, random: 0)
        }
        #expect(backoff == [5, 10, 20, 40, 80, 160, 320, 600, 600, 600])
        #expect(
            PinSetUpdater.nextDelay(maxAge: nil, consecutiveFailures: 1000, configuration: config, random: 0.5) == 630)
    }

    @Test func pollsUntilStoppedAndFinishesTheEventStream() async throws {
        let config = PinSetUpdater.Configuration(
            server: URL(string: "https://pins.test")!, hosts: ["example.com"], defaultRefreshInterval: 0.05,
            minimumRefreshInterval: 0.05, maximumRefreshInterval: 0.05, jitter: 0.1)
        server.serve("example.com", signer.sign(makeSet(version: 5)))
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        let updater = PinSetUpdater(configuration: config, trustManager: manager, transport: server, clock: { testNow })
        await updater.start()
        var seen: [String] = []
        for await event in updater.events {
            switch event {
            case .updated(_, let version): seen.append("updated \(version)")
            case .notModified: seen.append("notModified")
            default: seen.append("other")
            }
            if seen.count == 3 { break }
        }
        await updater.stop()
        #expect(seen == ["updated 5", "notModified", "notModified"])
        var afterStop = 0
        for await _ in updater.events { afterStop += 1 }  // must terminate
        #expect(afterStop <= 1)
    }

    @Test func pinFailureEventTriggersARefresh() async {
        let (manager, updater) = makeUpdater(storage: nil)
        server.serve("example.com", signer.sign(makeSet(version: 5)))
        await updater.refreshNow(host: "example.com")
        let before = server.requests.withLock { $0.count }
        guard let failure = manager.evaluate(chain: [testChain[0].der], host: "example.com", now: testNow).failure
        else {
            Issue.record("expected a failure")
            return
        }
        await updater.reportPinFailure(failure)
        #expect(server.requests.withLock { $0.count } == before + 1)
    }
}
