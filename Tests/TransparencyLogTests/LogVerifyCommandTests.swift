import Foundation
import OpenSSLCrypto
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetServer

/// `pinset log verify` on a proof, a document and a policy made by the server-side code.
@Suite(.blocking) struct LogVerifyCommandTests {
    @Test func aProofIsCheckedOffline() throws {
        let directory = try makeTemporaryDirectory("pinset-logverify")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (server, witness) = try LogServer.withOneWitness(in: directory)
        let logVKey = server.signer.key
        #expect(try server.publish((0..<5).map { ClientVerificationTests.document("host\($0).example", 1) }) == [200])
        func write(_ name: String, _ text: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        let proof = try write("doc.tlog-proof", String(decoding: try server.log.proof(index: 3).bytes, as: UTF8.self))
        let document = try write("doc.json", ClientVerificationTests.document("host3.example", 1))
        let other = try write("other.json", ClientVerificationTests.document("host2.example", 1))
        let policy = try write("policy", "log \(logVKey)\nwitness w1 \(witness.verifierKey)\nquorum w1\n")
        let ok = try WitnessProcessTests.run(["log", "verify", proof, "--doc", document, "--policy", policy])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout == "ok: entry 3 of pins.example.com/log at tree size 5\ncosigned by: w1\n")

        let wrong = try WitnessProcessTests.run(["log", "verify", proof, "--doc", other, "--policy", policy])
        #expect(wrong.status == 1 && wrong.stderr.contains("refused: notIncluded"), "\(wrong.stderr)")
        let w2 = try NoteSigner(name: "w2.example", type: .cosignature, key: Ed25519SigningKey.generate()).key
        let stricter = try write(
            "strict",
            "log \(logVKey)\nwitness w1 \(witness.verifierKey)\nwitness w2 \(w2)\ngroup g all w1 w2\nquorum g\n")
        let short = try WitnessProcessTests.run(["log", "verify", proof, "--doc", document, "--policy", stricter])
        #expect(short.status == 1 && short.stderr.contains("refused: quorumNotMet"), "\(short.stderr)")
        let broken = try write("broken", "log \(logVKey)\n")
        let bad = try WitnessProcessTests.run(["log", "verify", proof, "--doc", document, "--policy", broken])
        #expect(bad.status == 1 && bad.stderr.contains("no quorum line"), "\(bad.stderr)")
    }
}
