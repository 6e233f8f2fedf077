import Foundation
import OpenSSLCrypto
import PinSetClient
import Testing
import TransparencyLog

@testable import PinSetServer

/// PROTOCOL §7.4 end to end, with everything made by the server-side code (OpenSSL, SQLite): a log, two
/// witnesses cosigning its checkpoints, proofs and tiles; checked by the client's verifier over swift-crypto
/// with a 2-of-2 policy.
@Suite struct ClientVerificationTests {
    static let origin = "pins.example.com/log"

    /// A pin server's log with its witnesses, in process.
    final class Server {
        let directory: URL
        let store: PinDatabase
        let log: LogState
        let witnesses: [Witness]
        /// The size each witness holds, as the server believes.
        var witnessSizes: [Int]

        init(logKey: Ed25519SigningKey, witnesses: [Witness]) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "pinset-client-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            store = try PinDatabase(path: directory.appendingPathComponent("pinset.sqlite").path)
            log = try LogState(
                origin: ClientVerificationTests.origin,
                signer: NoteSigner(name: ClientVerificationTests.origin, type: .ed25519, key: logKey), crypto: crypto)
            self.witnesses = witnesses
            witnessSizes = witnesses.map { _ in 0 }
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Logs `documents` in one write, signs a checkpoint and asks every witness to cosign it (once more after a
        /// 409, with the size the witness holds). Returns the witnesses' statuses.
        @discardableResult
        func publish(_ documents: [String]) throws -> [Int] {
            let append = try store.serializedWrite { db in try log.append(documents.map { Array($0.utf8) }, in: db) }
            log.didCommit(append)
            let note = try #require(try store.serializedWrite { db in try log.signCheckpoint(in: db, at: Date()) })
            let size = try Checkpoint(text: note.text).size
            var statuses: [Int] = []
            for (i, witness) in witnesses.enumerated() {
                var request = try log.witnessRequest(oldSize: witnessSizes[i])
                var answer = witness.addCheckpoint(request.bytes)
                if answer.status == 409, let held = Int(String(decoding: answer.body, as: UTF8.self).dropLast()) {
                    request = try log.witnessRequest(oldSize: min(held, size))
                    answer = witness.addCheckpoint(request.bytes)
                }
                statuses.append(answer.status)
                guard answer.status == 200 else { continue }
                witnessSizes[i] = size
                let lines = try request.cosignatures(
                    inResponse: answer.body, witness: witness.verifierKey, crypto: crypto)
                try store.serializedWrite { db in try log.addCosignatures(lines, size: size, in: db, at: Date()) }
            }
            return statuses
        }

        /// The served tiles, by path, as a client reads them.
        func reader() -> TileReader {
            let files = Dictionary(uniqueKeysWithValues: log.files(changedSince: 0).map { ($0.path, $0.body) })
            return TileReader(treeSize: log.treeSize, hasher: hasher) { tile in
                guard let bytes = files[tile.path] else { throw LogError(.missingHash, tile.path) }
                return bytes
            }
        }
    }

    static func document(_ host: String, _ version: Int) -> String {
        #"{"protected":"eyJhbGciOiJFZERTQSJ9","payload":"\#(host) v\#(version)","signature":"AAAA"}"#
    }

    @Test func aDocumentIsAcceptedOnlyWithItsProofAndAForkIsReportedWithBothNotes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pinset-witnesses-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logKey = try Ed25519SigningKey.generate()
        let logVKey = try NoteSigner(name: Self.origin, type: .ed25519, key: logKey).key
        let witnesses = try (1...2).map { i in
            try Witness(
                signer: NoteSigner(name: "w\(i).example", type: .cosignature, key: Ed25519SigningKey.generate()),
                logs: [logVKey], databasePath: directory.appendingPathComponent("w\(i).sqlite").path, crypto: crypto)
        }
        let policy = try LogPolicy(
            parsing: Array(
                """
                log \(logVKey)
                witness w1 \(witnesses[0].verifierKey)
                witness w2 \(witnesses[1].verifierKey)
                group both all w1 w2
                quorum both
                """.utf8))
        let client = LogProofVerifier(policy: policy)

        let honest = try Server(logKey: logKey, witnesses: witnesses)
        #expect(try honest.publish((0..<40).map { Self.document("host\($0).example", 1) }) == [200, 200])
        // The client fetches api.example's document with its proof, and accepts it.
        #expect(try honest.publish([Self.document("api.example", 1)]) == [200, 200])
        let proof = try LogProof(parsing: try honest.log.proof(index: 40).bytes)
        let document = Array(Self.document("api.example", 1).utf8)
        var largest = try client.verify(entry: document, proof: proof, largest: nil, consistencyProof: [])
        #expect(largest.checkpoint.size == 41 && largest.witnesses == ["w1", "w2"])
        // Other bytes with that proof: refused.
        #expect(throws: LogRejection.self) {
            try client.verify(
                entry: Array(Self.document("api.example", 2).utf8), proof: proof, largest: largest, consistencyProof: []
            )
        }

        // The log grows past a tile; the next document's checkpoint is checked against the largest through tiles.
        #expect(
            try honest.publish(
                (41..<300).map { Self.document("host\($0).example", 1) } + [Self.document("api.example", 2)]) == [
                    200, 200,
                ])
        let next = try honest.log.proof(index: 300)
        let consistency = try MerkleTree(hasher: hasher, reader: honest.reader()).consistencyProof(
            from: largest.checkpoint.size, to: 301)
        largest = try client.verify(
            entry: Array(Self.document("api.example", 2).utf8), proof: next, largest: largest,
            consistencyProof: consistency)
        #expect(largest.checkpoint.size == 301)

        // A split view: the same log key, another history from entry 41 with a rogue set for api.example.
        let rogue = try Server(logKey: logKey, witnesses: witnesses)
        let first = try rogue.publish(
            (0..<40).map { Self.document("host\($0).example", 1) } + [Self.document("api.example", 1)])
        #expect(first == [409, 409], "the witnesses hold 301")
        rogue.witnessSizes = honest.witnessSizes
        let statuses = try rogue.publish(
            (41..<300).map { Self.document("host\($0).example", 1) } + [Self.document("api.example", 666)] + [
                Self.document("x", 1)
            ])
        #expect(statuses == [422, 422], "the honest witnesses will not cosign the rogue history")
        let rogueDocument = Array(Self.document("api.example", 666).utf8)
        let rogueProof = try rogue.log.proof(index: 300)
        #expect(rogueProof.checkpoint.signatures.count == 1, "the log signature only")
        // A client that has seen neither: refused, the quorum is not met.
        #expect(
            performing: {
                try client.verify(entry: rogueDocument, proof: rogueProof, largest: nil, consistencyProof: [])
            },
            throws: {
                ($0 as? LogRejection)
                    == .refused(LogError(.quorumNotMet, "cosigned by 0 witness(es) (), short of the quorum both"))
            })
        // A client that has seen the honest log: a fork, with both signed notes, whatever tiles the rogue serves.
        let rogueConsistency = try MerkleTree(hasher: hasher, reader: rogue.reader()).consistencyProof(
            from: 301, to: 302)
        #expect(throws: LogRejection.fork(LogFork(kept: largest.note, refused: rogueProof.checkpoint))) {
            try client.verify(
                entry: rogueDocument, proof: rogueProof, largest: largest, consistencyProof: rogueConsistency)
        }
    }
}
