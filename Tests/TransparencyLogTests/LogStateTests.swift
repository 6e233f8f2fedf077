import Foundation
import GRDB
import OpenSSLCrypto
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetLogServer
@testable import PinSetServer
@testable import PinSetStorage

/// The server's log over a real SQLite file: appends inside write transactions, checkpoints, proofs, the
/// served files, and a restart.
@Suite(.blocking) struct LogStateTests {

    /// A log over a real SQLite file, no witnesses, checked with a policy of its key and no quorum.
    final class Fixture {
        let server: LogServer
        let verifier: LogProofVerifier
        var store: PinDatabase { server.store }
        var log: LogState { server.log }
        var signer: NoteSigner { server.signer }

        init() throws {
            server = try LogServer(logKey: Ed25519SigningKey.generate(), witnesses: [])
            let policy = try LogPolicy(parsing: Array("log \(server.signer.key)\nquorum none\n".utf8), crypto: crypto)
            verifier = LogProofVerifier(policy: policy, crypto: crypto)
        }

        func write(_ documents: [String]) throws { try server.write(documents) }
        func sign() throws -> SignedNote? { try server.sign() }
    }

    static func document(_ i: Int) -> String { #"{"payload":"document \#(i)","signature":"…"}"# }

    @Test func documentsAreLoggedProvedAndServed() throws {
        let fixture = try Fixture()
        #expect(try fixture.sign() != nil, "the empty log signs a checkpoint of size 0")
        #expect(try fixture.sign() == nil, "nothing new: no new signature")
        for batch in stride(from: 0, to: 300, by: 50) {
            try fixture.write((batch..<(batch + 50)).map(Self.document))
        }
        // A write that rolls back logs nothing.
        _ = try? fixture.store.serializedWrite { db in
            try db.inTransaction {
                _ = try fixture.log.append([Array("rolled back".utf8)], in: db)
                return .rollback
            }
        }
        let note = try #require(try fixture.sign())
        #expect(try Checkpoint(text: note.text).size == 300)
        for index in [0, 1, 255, 256, 299] {
            let proof = try LogProof(parsing: try fixture.log.proof(index: index).bytes)
            let verified = try fixture.verifier.verify(entry: Array(Self.document(index).utf8), proof: proof)
            #expect(verified.checkpoint.size == 300)
        }
        #expect(throws: LogError.self) { try fixture.log.proof(index: 300) }

        let files = try fixture.server.files(changedSince: 0)
        #expect(
            files.map(\.path) == [
                "checkpoint", "tile/0/000", "tile/entries/000", "tile/0/001.p/44", "tile/entries/001.p/44",
                "tile/1/000.p/1",
            ])
        #expect(files[0].body == note.bytes && files[0].contentType == "text/plain; charset=utf-8")
        #expect(files[1].isFull && files[1].cacheControl == "public, max-age=31536000, immutable")
        #expect(try EntryBundle.decode(files[4].body) == (256..<300).map { Array(Self.document($0).utf8) })
        // What a client fetches: a proof computed from the served tiles equals the server's.
        let served = Dictionary(uniqueKeysWithValues: files.map { ($0.path, $0.body) })
        let reader = TileReader(treeSize: 300, hasher: hasher) { tile in served[tile.path]! }
        #expect(
            try MerkleTree(hasher: hasher, reader: reader).inclusionProof(index: 7, size: 300)
                == fixture.log.proof(index: 7).inclusionProof)
        let resource = files[1].resource(prefix: "/log/", version: 300, crypto: crypto)
        #expect(resource.key == "/log/tile/0/000" && resource.bodyCount == 8192)

        // Ten more: only the files that changed.
        try fixture.write((300..<310).map(Self.document))
        let before = try Checkpoint(text: note.text)
        let next = try Checkpoint(text: try #require(try fixture.sign()).text)
        #expect(
            try fixture.server.files(changedSince: 300).map(\.path) == [
                "checkpoint", "tile/0/001.p/54", "tile/entries/001.p/54", "tile/1/000.p/1",
            ])
        #expect(
            hasher.verifyConsistency(
                oldSize: 300, newSize: 310, oldRoot: before.rootHash, newRoot: next.rootHash,
                proof: try fixture.log.consistencyProof(from: 300, to: 310)))

        // Cosignatures are added to the latest checkpoint, and survive a restart with everything else.
        let witness = try makeSigner(name: "w1.example", type: .cosignature)
        let latest = try #require(fixture.log.checkpoint)
        try fixture.store.serializedWrite { db in
            try fixture.log.addCosignatures(
                [witness.signature(of: latest.text, timestamp: 1_764_000_000)], size: 310, in: db, at: Date())
        }
        let restarted = try LogState(origin: LogServer.origin, signer: fixture.signer, crypto: crypto)
        try fixture.store.read { db in try restarted.load(from: db) }
        #expect(restarted.treeSize == 310)
        #expect(restarted.checkpoint == fixture.log.checkpoint)
        #expect(restarted.checkpoint?.signatures.count == 2)
        #expect(try restarted.proof(index: 309) == fixture.log.proof(index: 309))
    }

    /// Start-up indexes the stored entries by leaf hash: a served document's entry is found from its bytes.
    /// A log row changed on disk is never served: its bundle is checked against the leaf hashes in memory.
    @Test func anEntryChangedInTheDatabaseIsNotServedInItsBundle() throws {
        let fixture = try Fixture()
        try fixture.write((0..<300).map(Self.document))
        _ = try #require(try fixture.sign())
        let full = try #require(Tile.parse(path: "tile/entries/000")?.tile)
        let partial = try #require(Tile.parse(path: "tile/entries/001.p/44")?.tile)
        #expect(try fixture.store.read { db in try fixture.log.bundle(full, in: db) } != nil)
        try fixture.store.serializedWrite { db in
            try db.execute(
                sql: "UPDATE logEntry SET body = CAST('{\"payload\":\"forged\"}' AS BLOB) WHERE leafIndex = 7")
        }
        let error = #expect(throws: ServiceError.self) {
            try fixture.store.read { db in try fixture.log.bundle(full, in: db) }
        }
        #expect(
            error?.code == .documentDamaged && error?.detail.contains("entry 7 ") == true,
            "\(String(describing: error))")
        #expect(try fixture.store.read { db in try fixture.log.bundle(partial, in: db) } != nil, "the other tile")
    }

    @Test func storedEntriesAreFoundByTheirBytes() throws {
        let fixture = try Fixture()
        try fixture.write((0..<300).map(Self.document))
        let restarted = try LogState(origin: LogServer.origin, signer: fixture.signer, crypto: crypto)
        try fixture.store.read { db in try restarted.load(from: db) }
        restarted.indexStoredEntries()
        for index in [0, 1, 255, 256, 299] {
            #expect(restarted.storedIndex(of: restarted.leafHash(Array(Self.document(index).utf8))) == index)
        }
        #expect(restarted.storedIndex(of: restarted.leafHash(Array("not logged".utf8))) == nil)
        // Entries appended later are not indexed: their documents' proofs are built when they are published.
        try fixture.write(["later"])
        #expect(fixture.log.storedIndex(of: fixture.log.leafHash(Array("later".utf8))) == nil)
    }

    @Test func commitsReportedOutOfOrderAreAppliedInOrder() throws {
        let fixture = try Fixture()
        var appends: [LogAppend] = []
        for i in 0..<3 {
            appends.append(
                try fixture.store.serializedWrite { db in try fixture.log.append([Array(Self.document(i).utf8)], in: db)
                })
        }
        fixture.log.didCommit(appends[2])
        fixture.log.didCommit(appends[1])
        #expect(fixture.log.treeSize == 0)
        fixture.log.didCommit(appends[0])
        #expect(fixture.log.treeSize == 3)
        _ = try fixture.sign()
        #expect(
            try fixture.verifier.verify(entry: Array(Self.document(2).utf8), proof: fixture.log.proof(index: 2))
                .checkpoint.size == 3)
    }

    @Test func aCheckpointThatDisagreesWithTheEntriesStopsTheStart() throws {
        let fixture = try Fixture()
        try fixture.write(["a", "b", "c"])
        let forged = SignedNote(
            text: try Checkpoint(origin: LogServer.origin, size: 3, rootHash: hasher.emptyRoot).text, signatures: [])
        try fixture.store.serializedWrite { db in
            try LogTable.saveCheckpoint(
                db, treeSize: 3, note: forged.text + [0x0A] + Array("\u{2014} x AAAAAAAA\n".utf8), signedAt: Date())
        }
        let restarted = try LogState(origin: LogServer.origin, signer: fixture.signer, crypto: crypto)
        // (The pool directly: PinDatabase's own calls turn any error into a 500 for the API.)
        #expect(throws: LogError.self) { try fixture.store.pool.read { db in try restarted.load(from: db) } }
        // A gap in the entries stops it too.
        try fixture.store.pool.write { db in
            try db.execute(sql: "DELETE FROM logCheckpoint")
            try db.execute(sql: "DELETE FROM logEntry WHERE leafIndex = 1")
        }
        #expect(throws: LogError.self) { try fixture.store.pool.read { db in try restarted.load(from: db) } }
    }

    @Test func anEntryTooLargeForABundleIsRefused() throws {
        let fixture = try Fixture()
        #expect(throws: LogError.self) {
            try fixture.store.pool.write { db in try fixture.log.append([Array(repeating: 0x20, count: 65536)], in: db)
            }
        }
        #expect(throws: LogError.self) {
            try LogState(origin: "other.example/log", signer: fixture.signer, crypto: crypto)
        }
    }
}

/// The `log` readiness condition (issue 37): behind once a handed-over write waited over 5 s for its checkpoint,
/// caught up once the publisher signed one, and not ready once stopped.
@Suite(.blocking) struct LogPublisherReadinessTests {
    @Test func behindWhileAWriteWaitsTooLongCaughtUpOnceSignedNotReadyOnceStopped() throws {
        let server = try LogServer(logKey: Ed25519SigningKey.generate(), witnesses: [])
        let publisher = LogPublisher(
            log: server.log, store: server.store, witnessCount: 0, maxAge: 60, crypto: crypto, documents: { _ in nil })
        #expect(publisher.behind() == nil, "nothing handed over")
        // Handed over while the publisher thread is not running yet: it waits.
        let ticket = publisher.committed([], [])
        let now = Readiness.now()
        #expect(publisher.behind(now: now + 1) == nil, "a second is normal")
        let late = try #require(publisher.behind(now: now + LogPublisher.readinessLag + 1))
        #expect(late.contains("waited") && late.contains("signed checkpoint"), "\(late)")
        // The publisher signs a checkpoint for it: caught up, however late it is.
        publisher.start()
        #expect(ticket.wait(seconds: 30))
        #expect(publisher.behind(now: now + 3600) == nil)
        publisher.stop()
        #expect(publisher.behind()?.contains("stopped") == true)
    }
}
