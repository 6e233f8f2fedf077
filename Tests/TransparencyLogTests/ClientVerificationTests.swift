import Foundation
import OpenSSLCrypto
import PinSetClient
import PinSetWitness
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetServer

/// PROTOCOL §7.4 end to end, with everything made by the server-side code (OpenSSL, SQLite): a log, two
/// witnesses cosigning its checkpoints, proofs and tiles; checked by the client's verifier over swift-crypto
/// with a 2-of-2 policy.
@Suite(.blocking) struct ClientVerificationTests {

    static func document(_ host: String, _ version: Int) -> String {
        #"{"protected":"eyJhbGciOiJFZERTQSJ9","payload":"\#(host) v\#(version)","signature":"AAAA"}"#
    }

    @Test func aDocumentIsAcceptedOnlyWithItsProofAndAForkIsReportedWithBothNotes() throws {
        let directory = try makeTemporaryDirectory("pinset-witnesses")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logKey = try Ed25519SigningKey.generate()
        let logVKey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey).key
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

        let honest = try LogServer(logKey: logKey, witnesses: witnesses)
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
        let rogue = try LogServer(logKey: logKey, witnesses: witnesses)
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
