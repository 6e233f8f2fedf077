import Foundation
import OpenSSLCrypto
import PinSetClient
import PinSetCore
import PinSetWitness
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetServer

/// PROTOCOL §7.4 through ``PinSetUpdater``: documents, proofs and tiles made by the server's log code (OpenSSL,
/// SQLite, two witnesses), served to the client's updater by an in-memory transport.
@Suite struct UpdaterLogTests {
    static let host = "api.example"

    /// A pin server's paths as the updater reads them: `/pins/<host>`, `/pins/<host>/proof` with the same ETag,
    /// `/trust/<n>/proof` and `/log/…`; every request path recorded.
    final class LogTransport: PinSetTransport, @unchecked Sendable {
        let bodies = Guarded<[String: [UInt8]]>([:])
        let requests = Guarded<[String]>([])

        /// Serves `document` for `host` with the proof of leaf `index`, and the log's files, as `server` has them.
        func serve(_ document: [UInt8], host: String, index: Int, from server: LogServer) throws {
            let proof = try server.log.proof(index: index).bytes
            let files = try server.files(changedSince: 0)
            bodies.withLock { bodies in
                bodies["/pins/\(host)"] = document
                bodies["/pins/\(host)/proof"] = proof
                for file in files { bodies["/log/" + file.path] = file.body }
            }
        }

        func get(_ url: URL, headers: [String: String]) async throws -> TransportResponse {
            requests.withLock { $0.append(url.path) }
            guard let body = bodies.withLock({ $0[url.path] }) else { return TransportResponse(status: 404) }
            // A proof carries its document's ETag.
            let owner = url.path.hasSuffix("/proof") ? String(url.path.dropLast("/proof".count)) : url.path
            let tagged = bodies.withLock { $0[owner] } ?? body
            let etag = "\"" + Base64URL.encode(crypto.sha256(tagged).prefix(18)) + "\""
            if headers["If-None-Match"] == etag { return TransportResponse(status: 304, headers: ["ETag": etag]) }
            return TransportResponse(status: 200, headers: ["ETag": etag], body: body)
        }
    }

    /// Two witnesses, a log key, a signing key and the 2-of-2 policy over them.
    struct World {
        let directory: URL
        let logKey: Ed25519SigningKey
        let signingKey: Ed25519SigningKey
        let witnesses: [Witness]
        let policyText: String

        init() throws {
            directory = try makeTemporaryDirectory("pinset-updater-log")
            logKey = try Ed25519SigningKey.generate()
            signingKey = try Ed25519SigningKey.generate()
            let logVKey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey).key
            let directory = directory
            witnesses = try (1...2).map { i in
                try Witness(
                    signer: NoteSigner(name: "w\(i).example", type: .cosignature, key: Ed25519SigningKey.generate()),
                    logs: [logVKey], databasePath: directory.appendingPathComponent("w\(i).sqlite").path,
                    crypto: crypto)
            }
            policyText = """
                log \(logVKey)
                witness w1 \(witnesses[0].verifierKey)
                witness w2 \(witnesses[1].verifierKey)
                group both all w1 w2
                quorum both
                """
        }

        /// A signed pin document for ``UpdaterLogTests/host``.
        func document(version: Int) -> [UInt8] {
            let now = Date()
            let set = PinSet(
                host: UpdaterLogTests.host, version: version, issuedAt: now.addingTimeInterval(-60),
                expiresAt: now.addingTimeInterval(86_400),
                pins: [Pin(sha256: Base64.encode([UInt8](repeating: UInt8(version % 256), count: 32)))])
            let protected = Base64URL.encode(SignedDocument.protectedHeader(kid: signingKey.kid))
            let payload = Base64URL.encode(set.encodedJSON())
            let signature = signingKey.sign(Array((protected + "." + payload).utf8))
            return SignedDocument(protected: protected, payload: payload, signature: Base64URL.encode(signature))
                .serialized
        }

        func manager(policy: Bool = true) throws -> PinTrustManager {
            var options = PinningOptions()
            if policy { try options.setLogPolicy(text: policyText) }
            return PinTrustManager(
                verifier: DocumentVerifier(trustedKeys: [try TrustedKey(rawRepresentation: signingKey.publicKey)]),
                options: options)
        }

        func updater(_ manager: PinTrustManager, _ transport: LogTransport, storage: PinStorage?) -> PinSetUpdater {
            PinSetUpdater(
                configuration: .init(server: URL(string: "https://pins.example")!, hosts: [UpdaterLogTests.host]),
                trustManager: manager, transport: transport, storage: storage)
        }
    }

    func storedSize(_ storage: PinStorage) -> Int? {
        storage.loadCheckpoint(origin: LogServer.origin).flatMap { try? Checkpoint(text: $0.text).size }
    }

    /// An honest log with version 1 at leaf 40 (cosigned), accepted by an updater that keeps the checkpoint of 41
    /// in `storage`; `nil` (an issue recorded) when it was not accepted.
    func acceptVersionOneAtLeaf40(_ world: World, _ storage: PinStorage) async throws
        -> (honest: LogServer, v1: [UInt8], transport: LogTransport)?
    {
        let honest = try LogServer(logKey: world.logKey, witnesses: world.witnesses)
        let v1 = world.document(version: 1)
        #expect(
            try honest.publish((0..<40).map(Self.filler) + [String(decoding: v1, as: UTF8.self)]) == [200, 200])
        let transport = LogTransport()
        try transport.serve(v1, host: Self.host, index: 40, from: honest)
        let updater = world.updater(try world.manager(), transport, storage: storage)
        guard case .updated(_, 1) = await updater.refreshNow(host: Self.host) else {
            Issue.record("version 1 was not accepted")
            return nil
        }
        await updater.stop()
        return (honest, v1, transport)
    }

    static func filler(_ n: Int) -> String { #"{"filler":\#(n)}"# }

    /// A client restarted from `storage` (persisted sets and checkpoint loaded) that fetches the host from
    /// `transport` and must refuse it as a fork; `nil` (an issue recorded) when it accepted the document.
    func refusedAsAForkAfterARestart(_ world: World, _ transport: LogTransport, _ storage: PinStorage) async throws
        -> (manager: PinTrustManager, updater: PinSetUpdater)?
    {
        let manager = try world.manager()
        let updater = world.updater(manager, transport, storage: storage)
        await updater.loadPersisted()
        guard case .rejected(_, let forked) = await updater.refreshNow(host: Self.host) else {
            Issue.record("the rogue document was accepted")
            return nil
        }
        #expect(forked.code == .logFork)
        return (manager, updater)
    }

    @Test func aLoggedDocumentIsAcceptedTheLogGrowsThroughTilesAndAForkIsRefusedAfterARestart() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let storage = PinStorage(directory: world.directory.appendingPathComponent("client"))
        let honest = try LogServer(logKey: world.logKey, witnesses: world.witnesses)
        let transport = LogTransport()

        // Version 1 at leaf 40, cosigned by both witnesses: accepted, the checkpoint of 41 persisted.
        let v1 = world.document(version: 1)
        #expect(
            try honest.publish((0..<40).map(Self.filler) + [String(decoding: v1, as: UTF8.self)]) == [200, 200])
        try transport.serve(v1, host: Self.host, index: 40, from: honest)
        let manager = try world.manager()
        let updater = world.updater(manager, transport, storage: storage)
        guard case .updated(_, 1) = await updater.refreshNow(host: Self.host) else {
            Issue.record("version 1 was not accepted")
            return
        }
        #expect(storedSize(storage) == 41)
        #expect(transport.requests.withLock { $0 } == ["/pins/\(Self.host)", "/pins/\(Self.host)/proof"])

        // Version 2 at leaf 300: its checkpoint is checked against 41 with a consistency proof read from tiles.
        let v2 = world.document(version: 2)
        #expect(
            try honest.publish((41..<300).map(Self.filler) + [String(decoding: v2, as: UTF8.self)]) == [200, 200])
        try transport.serve(v2, host: Self.host, index: 300, from: honest)
        guard case .updated(_, 2) = await updater.refreshNow(host: Self.host) else {
            Issue.record("version 2 was not accepted")
            return
        }
        #expect(transport.requests.withLock { $0 }.contains { $0.hasPrefix("/log/tile/") })
        #expect(storedSize(storage) == 301)
        let honestCheckpoint = try #require(storage.loadCheckpoint(origin: LogServer.origin))

        // The same document with a proof for other bytes: refused, nothing changes.
        transport.bodies.withLock { $0["/pins/\(Self.host)"] = world.document(version: 3) }
        guard case .rejected(_, let notLogged) = await updater.refreshNow(host: Self.host) else {
            Issue.record("a document whose proof is for other bytes was accepted")
            return
        }
        #expect(notLogged.code == .notLogged)
        #expect(manager.pinSet(for: Self.host)?.version == 2)
        await updater.stop()

        // A split view (same log key, another history with a rogue version 666), seen by a client restarted from
        // storage: refused as a fork with both notes, the set in force stays, the evidence is stored.
        let rogue = try LogServer(logKey: world.logKey, witnesses: world.witnesses)
        let rogueDocument = world.document(version: 666)
        _ = try rogue.publish((0..<40).map(Self.filler) + [String(decoding: v1, as: UTF8.self)])
        rogue.witnessSizes = honest.witnessSizes
        #expect(
            try rogue.publish((41..<300).map(Self.filler) + [String(decoding: rogueDocument, as: UTF8.self)])
                == [409, 409],
            "the honest witnesses will not cosign the rogue history (tlog-witness: same size, another root)")
        let rogueTransport = LogTransport()
        try rogueTransport.serve(rogueDocument, host: Self.host, index: 300, from: rogue)
        guard let (restarted, again) = try await refusedAsAForkAfterARestart(world, rogueTransport, storage) else {
            return
        }
        #expect(restarted.pinSet(for: Self.host)?.version == 2)
        let events = await again.stopAndCollect()
        let forks = events.compactMap {
            if case .logFork(let document, let fork) = $0 { (document, fork) } else { nil }
        }
        #expect(forks.count == 1)
        #expect(forks.first?.0 == "/pins/\(Self.host)")
        #expect(forks.first?.1.kept == honestCheckpoint)
        #expect(forks.first?.1.refused == (try rogue.log.proof(index: 300)).checkpoint)
        let stored = try FileManager.default.contentsOfDirectory(atPath: storage.directory.path)
            .filter { $0.hasPrefix("log-fork-") }
        #expect(stored.count == 1)
        #expect(storage.loadForks(origin: LogServer.origin).first?.proof == [], "one size: the notes are the evidence")
        #expect(storage.loadCheckpoint(origin: LogServer.origin) == honestCheckpoint)

        // A client that has seen neither log: refused all the same, the quorum is not met.
        let fresh = try world.manager()
        guard
            case .rejected(_, let unwitnessed) = await world.updater(fresh, rogueTransport, storage: nil)
                .refreshNow(host: Self.host)
        else {
            Issue.record("the rogue document was accepted by a fresh client")
            return
        }
        #expect(unwitnessed.code == .notLogged && unwitnessed.detail.contains("quorumNotMet"))
        #expect(fresh.pinSet(for: Self.host) == nil)
    }

    /// Issue 35 / PROTOCOL §3: a fork found across two sizes is reported with the consistency proof that failed
    /// (smaller size to larger, base64 of each hash): it leads to the rogue checkpoint's root and gives another root
    /// than the held checkpoint's, so the report proves the fork by itself.
    @Test func aForkAcrossSizesIsReportedWithTheConsistencyProofThatFailed() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let storage = PinStorage(directory: world.directory.appendingPathComponent("client"))
        guard try await acceptVersionOneAtLeaf40(world, storage) != nil else { return }
        let held = try Checkpoint(text: try #require(storage.loadCheckpoint(origin: LogServer.origin)).text)
        #expect(held.size == 41)

        // The same log key, another leaf 40, grown to 300 with a rogue version 666 at leaf 299.
        let rogue = try LogServer(logKey: world.logKey, witnesses: world.witnesses)
        let rogueDocument = world.document(version: 666)
        _ = try rogue.publish(
            (0..<40).map(Self.filler) + [Self.filler(-1)] + (41..<299).map(Self.filler)
                + [String(decoding: rogueDocument, as: UTF8.self)])
        let rogueTransport = LogTransport()
        try rogueTransport.serve(rogueDocument, host: Self.host, index: 299, from: rogue)
        guard let (_, again) = try await refusedAsAForkAfterARestart(world, rogueTransport, storage) else { return }
        await again.stop()

        let reports = storage.loadForks(origin: LogServer.origin)
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        let rogueTree = MerkleTree(hasher: hasher, reader: rogue.reader())
        let expected = try rogueTree.consistencyProof(from: 41, to: 300)
        #expect(!expected.isEmpty)
        #expect(report.proof == expected.map { Base64.encode($0) })
        let proof = try (report.proof ?? []).map { try #require(Base64.decode($0)) }
        #expect(proof.allSatisfy { $0.count == 32 })
        let rogueRoot = try Checkpoint(text: try rogue.log.proof(index: 299).checkpoint.text).rootHash
        // The proof leads to the rogue root from the rogue tree's own size-41 root, not from the held one.
        #expect(
            hasher.verifyConsistency(
                oldSize: 41, newSize: 300, oldRoot: try rogueTree.rootHash(size: 41), newRoot: rogueRoot, proof: proof))
        #expect(
            !hasher.verifyConsistency(
                oldSize: 41, newSize: 300, oldRoot: held.rootHash, newRoot: rogueRoot, proof: proof))
    }

    @Test(.blocking) func aBundledDocumentNeedsItsProofUnderAPolicy() throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let server = try LogServer(logKey: world.logKey, witnesses: world.witnesses)
        let v1 = world.document(version: 1)
        #expect(try server.publish([String(decoding: v1, as: UTF8.self)]) == [200, 200])
        let export = world.directory.appendingPathComponent("export")
        for folder in ["pins", "proofs"] {
            try FileManager.default.createDirectory(
                at: export.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data(v1).write(to: export.appendingPathComponent("pins/\(Self.host)"))

        // No proof beside it: refused under a policy, installed without one.
        #expect(throws: DocumentRejection.self) {
            try world.manager().installBundledDocuments(directory: export)[Self.host]?.get()
        }
        #expect(try world.manager(policy: false).installBundledDocuments(directory: export)[Self.host] != nil)
        // A proof for other bytes: refused.
        try Data(try server.log.proof(index: 0).bytes).write(to: export.appendingPathComponent("proofs/\(Self.host)"))
        try Data(world.document(version: 2)).write(to: export.appendingPathComponent("pins/\(Self.host)"))
        let wrong = try world.manager().installBundledDocuments(directory: export)[Self.host]
        #expect(throws: DocumentRejection.self) { try wrong?.get() }
        // Its own proof: installed.
        try Data(v1).write(to: export.appendingPathComponent("pins/\(Self.host)"))
        let manager = try world.manager()
        _ = try #require(manager.installBundledDocuments(directory: export)[Self.host]).get()
        #expect(manager.pinSet(for: Self.host)?.version == 1)
    }

    /// PROTOCOL §7.4 for a bundled document: a proof of the held size with another root is a fork even with no
    /// cosignature (a fork needs no quorum). It is refused as `logFork`, the log key is trusted no more, and the
    /// updater of the manager keeps the fork as it keeps one a fetched proof showed. The proof is read where
    /// `pinset export --log-from` writes it (`proof/pins/<host>`).
    @Test func aBundledProofOfTheHeldSizeWithAnotherRootIsAForkWithoutAQuorum() async throws {
        let world = try World()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let storage = PinStorage(directory: world.directory.appendingPathComponent("client"))
        guard let (honest, v1, transport) = try await acceptVersionOneAtLeaf40(world, storage) else { return }

        // The thief's log: the same key, another leaf 40 (a rogue version 666), the same size. The witnesses refuse
        // to cosign it (409), so its proof carries the log's signature only.
        let rogue = try LogServer(logKey: world.logKey, witnesses: world.witnesses)
        rogue.witnessSizes = honest.witnessSizes
        let rogueDocument = world.document(version: 666)
        #expect(
            try rogue.publish((0..<40).map(Self.filler) + [String(decoding: rogueDocument, as: UTF8.self)])
                == [409, 409])
        let export = world.directory.appendingPathComponent("export")
        for folder in ["pins", "proof/pins"] {
            try FileManager.default.createDirectory(
                at: export.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data(rogueDocument).write(to: export.appendingPathComponent("pins/\(Self.host)"))
        try Data(try rogue.log.proof(index: 40).bytes).write(
            to: export.appendingPathComponent("proof/pins/\(Self.host)"))

        // A client restarted from storage (the held checkpoint of 41), its updater made before the bundle is read.
        let manager = try world.manager()
        let updater = world.updater(manager, transport, storage: storage)
        await updater.loadPersisted()
        let outcome = try #require(manager.installBundledDocuments(directory: export)[Self.host])
        #expect(throws: DocumentRejection.self) { try outcome.get() }
        if case .failure(let rejection) = outcome { #expect(rejection.code == .logFork, "\(rejection)") }
        #expect(manager.pinSet(for: Self.host)?.version == 1)
        let events = await updater.stopAndCollect()
        #expect(events.contains { if case .logFork("/pins/\(Self.host)", _) = $0 { true } else { false } })
        let reports = storage.loadForks(origin: LogServer.origin)
        #expect(reports.count == 1)
        #expect(reports.first?.proof == [], "one size: the two notes are the evidence")

        // The log key is trusted no more: the honest document with its own, cosigned proof is refused too.
        try Data(v1).write(to: export.appendingPathComponent("pins/\(Self.host)"))
        try Data(try honest.log.proof(index: 40).bytes).write(
            to: export.appendingPathComponent("proof/pins/\(Self.host)"))
        let honestAgain = try #require(manager.installBundledDocuments(directory: export)[Self.host])
        #expect(throws: DocumentRejection.self) { try honestAgain.get() }
        // A client that knows of no fork installs that same honest bundle from proof/pins/.
        let fresh = try world.manager()
        _ = try #require(fresh.installBundledDocuments(directory: export)[Self.host]).get()
        #expect(fresh.pinSet(for: Self.host)?.version == 1)
    }

    @Test(.blocking) func anInvalidPolicyIsRefusedAtConfigurationNamingTheLine() {
        var options = PinningOptions()
        #expect {
            try options.setLogPolicy(text: "log not-a-vkey\nquorum none\n")
        } throws: { error in
            (error as? LogError)?.code == .malformed && "\(error)".contains("line 1")
        }
        #expect(options.logPolicy == nil)
    }
}

/// A value behind a lock (this target does not import Locking).
final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension PinSetUpdater {
    /// Stops the updater and returns every event it emitted.
    fileprivate func stopAndCollect() async -> [UpdateEvent] {
        await stop()
        var events: [UpdateEvent] = []
        for await event in self.events { events.append(event) }
        return events
    }
}
