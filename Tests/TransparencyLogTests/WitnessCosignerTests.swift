import Foundation
import OpenSSLCrypto
import Testing
import TransparencyLog

@testable import PinSetServer

/// The server side of tlog-witness against two real `pinset witness` processes and one address nobody answers.
@Suite struct WitnessCosignerTests {
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
}
