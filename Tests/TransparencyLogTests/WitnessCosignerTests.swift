import Foundation
import OpenSSLCrypto
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetLogServer
@testable import PinSetServer

/// The server side of tlog-witness against two real `pinset witness` processes and one address nobody answers.
@Suite(.blocking) struct WitnessCosignerTests {
    @Test func aRoundGathersCosignaturesWithinItsDeadlineAndLearnsSizesFrom409() throws {
        let directory = try makeTemporaryDirectory("pinset-cosigner")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logKey = try Ed25519SigningKey.generate()
        let server = try LogServer(logKey: logKey, witnesses: [])
        let logVKey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey).key
        let processes = try (1...2).map { i -> WitnessProcessTests.RunningWitness in
            let key = directory.appendingPathComponent("w\(i).pem").path
            try Ed25519SigningKey.generate().write(toNewFile: key)
            return try WitnessProcessTests.RunningWitness(arguments: [
                "--name", "w\(i).example", "--key", key, "--log", "\(logVKey)", "--db",
                directory.appendingPathComponent("w\(i).sqlite").path,
            ])
        }
        defer { processes.forEach { $0.stop() } }
        var endpoints = try processes.map {
            WitnessEndpoint(url: URL(string: $0.url)!, key: try VerifierKey(parsing: $0.vkey, crypto: crypto))
        }
        // Port 1 on loopback: nothing listens, the connection is refused.
        endpoints.append(WitnessEndpoint(url: URL(string: "http://127.0.0.1:1")!, key: endpoints[0].key))

        try server.publish((0..<5).map { ClientVerificationTests.document("host\($0).example", 1) })
        let cosigner = WitnessCosigner(log: server.log, witnesses: endpoints, crypto: crypto)
        let started = Date()
        var round = cosigner.round(deadline: 5)
        #expect(Date().timeIntervalSince(started) < 6)
        #expect(round.size == 5)
        #expect(round.cosignatures.count == 2)
        #expect(round.outcomes[2] == .unreachable)
        try server.store.serializedWrite { db in
            try server.log.addCosignatures(round.cosignatures, size: round.size, in: db, at: Date())
        }
        #expect(server.log.checkpoint?.signatures.count == 3)
        // The next round asks only the witness still missing.
        round = cosigner.round(deadline: 2)
        #expect(round.outcomes[0] == .alreadyCosigned && round.outcomes[1] == .alreadyCosigned)

        // After a restart the server believes the witnesses hold nothing: each answers 409 with 5, and cosigns
        // when asked again from there.
        try server.publish((5..<300).map { ClientVerificationTests.document("host\($0).example", 1) })
        let restarted = WitnessCosigner(log: server.log, witnesses: Array(endpoints.prefix(2)), crypto: crypto)
        round = restarted.round(deadline: 5)
        #expect(round.size == 300 && round.cosignatures.count == 2, "\(round.outcomes)")

        // A witness configured with another key's vkey: its answer does not verify.
        let mismatched = WitnessCosigner(
            log: server.log, witnesses: [WitnessEndpoint(url: endpoints[0].url, key: endpoints[1].key)], crypto: crypto)
        try server.publish([ClientVerificationTests.document("late.example", 1)])
        round = mismatched.round(deadline: 5)
        guard case .badAnswer = round.outcomes[0] else {
            Issue.record("expected a bad answer, got \(round.outcomes)")
            return
        }
    }

    /// Writes that never pause: a round asks about the checkpoint it started with even when a newer one was signed
    /// meanwhile, and what the witnesses cosigned is kept for that earlier checkpoint, whose proofs then carry it.
    @Test func cosignaturesOfAnEarlierCheckpointAreKeptWhenANewerOneWasSigned() throws {
        let directory = try makeTemporaryDirectory("pinset-cosigner-earlier")
        defer { try? FileManager.default.removeItem(at: directory) }
        let logKey = try Ed25519SigningKey.generate()
        let server = try LogServer(logKey: logKey, witnesses: [])
        let logVKey = try NoteSigner(name: LogServer.origin, type: .ed25519, key: logKey).key
        let key = directory.appendingPathComponent("w.pem").path
        try Ed25519SigningKey.generate().write(toNewFile: key)
        let witness = try WitnessProcessTests.RunningWitness(arguments: [
            "--name", "w.example", "--key", key, "--log", "\(logVKey)", "--db",
            directory.appendingPathComponent("w.sqlite").path,
        ])
        defer { witness.stop() }
        let endpoint = WitnessEndpoint(
            url: URL(string: witness.url)!, key: try VerifierKey(parsing: witness.vkey, crypto: crypto))

        try server.publish((0..<5).map { ClientVerificationTests.document("host\($0).example", 1) })
        let earlier = try #require(server.log.checkpoint)
        try server.publish((5..<9).map { ClientVerificationTests.document("host\($0).example", 1) })
        let round = WitnessCosigner(log: server.log, witnesses: [endpoint], crypto: crypto)
            .round(deadline: 5, checkpoint: earlier)
        #expect(round.size == 5 && round.cosignatures.count == 1, "\(round.outcomes)")
        try server.store.serializedWrite { db in
            try server.log.addCosignatures(round.cosignatures, to: round.note, size: round.size, in: db, at: Date())
        }
        #expect(server.log.checkpoint?.signatures.count == 1)  // the latest (size 9) is not cosigned
        let kept = try #require(server.log.cosignedEarlier)
        #expect(kept.size == 5 && kept.note.signatures.count == 2)
        let policy = try LogPolicy(
            parsing: Array("log \(logVKey)\nwitness w \(witness.vkey)\nquorum w\n".utf8), crypto: crypto)
        let proof = try server.log.proof(index: 3, in: kept.note, size: kept.size)
        _ = try LogProofVerifier(policy: policy, crypto: crypto).verify(
            entry: Array(ClientVerificationTests.document("host3.example", 1).utf8), proof: proof)
    }
}
