import Dispatch
import Foundation
import Locking
import PinSetClient
import PinSetCore
import TestSupport
import Testing

@testable import PinSetClient

/// The launch cost (issue 38, Performance): `PinningClient`'s initializer registers the persisted and bundled
/// documents, and each host's are read and checked, with every check of before, the first time the host is needed.
/// These tests hold the guarantees that made the initializer synchronous: nothing is decided before its documents
/// are installed, a tampered file is refused, the order persisted-then-bundled holds.
@Suite struct DeferredLaunchTests {
    let signer = TestSigner()
    let server = InTestServer()
    let chain = testChain.map(\.der)

    func client(hosts: [String], storage: URL?, bundle: URL? = nil) throws -> PinningClient {
        try PinningClient(
            configuration: PinningClient.Configuration(
                server: URL(string: "https://pins.test")!, hosts: hosts, trustedKeys: [signer.trustedKey],
                bundledExport: bundle, storageDirectory: storage, reportsPinFailures: false),
            transport: server, clock: { testNow }, startsPolling: false)
    }

    /// A bundle folder holding `documents` by host.
    func bundle(_ documents: [String: [UInt8]]) throws -> URL {
        let bundle = try makeTemporaryDirectory()
        let pins = bundle.appendingPathComponent("pins")
        try FileManager.default.createDirectory(at: pins, withIntermediateDirectories: true)
        for (host, bytes) in documents { try Data(bytes).write(to: pins.appendingPathComponent(host)) }
        return bundle
    }

    /// A storage folder holding `documents` by host.
    func storage(_ documents: [String: [UInt8]]) throws -> URL {
        let storage = try makeTemporaryDirectory()
        for (host, bytes) in documents { try PinStorage(directory: storage).save(bytes, for: host) }
        return storage
    }

    /// `set` signed, then its signature replaced by another document's: well-formed, signed by a trusted key's
    /// `kid`, and refused as `badSignature`.
    func tampered(_ set: PinSet) -> [UInt8] {
        let genuine = signer.document(payload: set.encodedJSON())
        let other = signer.document(payload: makeSet(host: set.host, version: 1).encodedJSON())
        return SignedDocument(protected: genuine.protected, payload: genuine.payload, signature: other.signature)
            .serialized
    }

    @Test func aTamperedPersistedFileIsRefusedAndTheBundledSetGoverns() throws {
        let host = "api.example"
        let pinning = try client(
            hosts: [host],
            storage: storage([host: tampered(makeSet(host: host, version: 9, pins: [randomPin()]))]),
            bundle: bundle([host: signer.sign(makeSet(host: host, version: 3, pins: [.spki(testChain[0])]))]))
        // The first thing asked is a handshake: it is decided by the bundled set, never by the tampered one.
        #expect(pinning.trustManager.evaluate(chain: chain, host: host, now: testNow).allowsConnection)
        #expect(pinning.trustManager.pinSet(for: host)?.version == 3)
    }

    @Test func persistedThenBundledTheNewerWins() throws {
        let older = try client(
            hosts: ["a.example"], storage: storage(["a.example": signer.sign(makeSet(host: "a.example", version: 5))]),
            bundle: bundle(["a.example": signer.sign(makeSet(host: "a.example", version: 4))]))
        #expect(older.trustManager.acceptedVersion(for: "a.example")?.version == 5)
        // An app update ships a newer bundle than the set persisted by the previous version.
        let newer = try client(
            hosts: ["a.example"], storage: storage(["a.example": signer.sign(makeSet(host: "a.example", version: 5))]),
            bundle: bundle(["a.example": signer.sign(makeSet(host: "a.example", version: 6))]))
        #expect(newer.trustManager.document(for: "a.example")?.pinSet.version == 6)
    }

    @Test func aParentsDeferredSetDecidesForItsSubdomains() throws {
        let pinning = try client(
            hosts: ["example.com"],
            storage: storage([
                "example.com": signer.sign(makeSet(host: "example.com", pins: [randomPin()], includeSubdomains: true))
            ]))
        // Asked first about a subdomain: the parent's set is installed and refuses the chain (before it was
        // installed, the subdomain would have been an unpinned host, allowed by default).
        guard
            case .pinMismatch(let failure) = pinning.trustManager.evaluate(
                chain: chain, host: "api.example.com", now: testNow)
        else {
            Issue.record("the parent's deferred set did not decide")
            return
        }
        #expect(failure.notedHost == "example.com")
    }

    @Test func deferredSetsAnnounceNoSwapAndReplaceNoSession() throws {
        let pinning = try client(
            hosts: ["example.com"], storage: storage(["example.com": signer.sign(makeSet(pins: [.spki(testChain[0])]))])
        )
        let swaps = Locked(0)
        pinning.trustManager.observeSetSwaps { _ in swaps.withLock { $0 += 1 } }
        let resource = pinning.pinnedResource(make: { 0 }, retire: { _ in })
        #expect(pinning.trustManager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
        // The launch state, as before: installing it is not a rotation.
        #expect(swaps.withLock { $0 } == 0)
        #expect(resource.generation == 0)
        // A fetched set that tightens still rotates.
        _ = pinning.trustManager.accept(
            signer.sign(makeSet(version: 6, pins: [randomPin()])), for: "example.com", now: testNow)
        #expect(swaps.withLock { $0 } == 1)
        #expect(resource.generation == 1)
    }

    @Test func theFirstFetchSendsThePersistedDocumentsETag() async throws {
        let document = signer.sign(makeSet(pins: [.spki(testChain[0])]))
        server.serve("example.com", document)
        let pinning = try client(hosts: ["example.com"], storage: storage(["example.com": document]))
        let events = pinning.events()
        let fetched = await pinning.refreshNow()
        #expect(server.requests.withLock { $0.map(\.ifNoneMatch) } == [InTestServer.etag(document)])
        #expect(fetched.count == 1 && "\(fetched[0])".hasPrefix("notModified"))
        await pinning.stop()
        var seen: [String] = []
        for await event in events { seen.append("\(event)") }
        // The persisted document's `.loaded`, sent when it was installed (by the fetch), then the fetch's own.
        #expect(seen.count == 2 && seen[0].hasPrefix("loaded") && seen[1].hasPrefix("notModified"))
    }

    /// Threads that need one host at the same moment all wait for its documents: none sees it without a set.
    @Test(.blocking) func concurrentFirstHandshakesAllSeeTheSet() throws {
        let hosts = (0..<20).map { "h\($0).example" }
        var saved: [String: [UInt8]] = [:]
        for host in hosts { saved[host] = signer.sign(makeSet(host: host, pins: [.spki(testChain[0])])) }
        let storage = try storage(saved)
        for _ in 0..<5 {
            let pinning = try client(hosts: hosts, storage: storage)
            let refused = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 40) { index in
                let host = hosts[index % 4]  // ten threads a host
                if !pinning.trustManager.evaluate(chain: chain, host: host, now: testNow).allowsConnection {
                    refused.withLock { $0 += 1 }
                }
            }
            #expect(refused.withLock { $0 } == 0)
            #expect(pinning.hostsMissingSets.isEmpty)
        }
    }
}
