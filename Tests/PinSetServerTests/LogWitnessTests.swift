import Foundation
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetServer

/// The server asks real `pinset witness` processes to cosign its checkpoints (PROTOCOL §7.2) and attaches their
/// cosignatures to the proofs it serves.
@Suite(.blocking) struct LogWitnessTests {
    @Test func aWriteGetsAProofWithBothCosignatures() throws {
        let server = try TestServer()
        let vkey = try LogFixture.logKey(server)
        let witnesses = try (0..<2).map {
            try WitnessProcess(name: "w\($0).test", logVKey: vkey, directory: server.directory)
        }
        try LogFixture.enableLog(server, witnesses: witnesses)
        let policy = try LogFixture.policy(log: vkey, witnesses: witnesses)
        #expect(try server.put("a.example", pinPair(1)).status == 201)
        // The write is answered once the checkpoint is signed; the cosignatures follow within the round.
        #expect(
            LogFixture.eventually(10) {
                (try? LogFixture.verifiedProof(server, "/pins/a.example", policy: policy)) != nil
            })
        try LogFixture.verifiedProof(server, "/pins/a.example", policy: policy)
        #expect(try LogFixture.checkpoint(server).note.signatures.count == 3)
        let status = try server.client.request("GET", "/admin/log", headers: server.auth).json()
        let answers = try #require(status["witnesses"] as? [[String: Any]])
        #expect(answers.compactMap { $0["lastAnswer"] as? String } == ["cosigned", "cosigned"])
        #expect(Set(status["cosignedBy"] as? [String] ?? []) == ["w0.test", "w1.test"])

        // A second write: its own checkpoint, consistent with the first, cosigned again by both.
        #expect(try server.put("b.example", pinPair(2)).status == 201)
        #expect(
            LogFixture.eventually(10) {
                (try? LogFixture.verifiedProof(server, "/pins/b.example", policy: policy)) != nil
            })
    }

    @Test func aWitnessThatWasDownIsCaughtUp() throws {
        let server = try TestServer()
        let vkey = try LogFixture.logKey(server)
        let witness = try WitnessProcess(name: "late.test", logVKey: vkey, directory: server.directory)
        witness.stop()
        try LogFixture.enableLog(server, witnesses: [witness], retry: 1, deadline: 1)
        let policy = try LogFixture.policy(log: vkey, witnesses: [witness])
        #expect(try server.put("a.example", pinPair(1)).status == 201)
        #expect(try server.put("b.example", pinPair(2)).status == 201)
        // Served without the cosignature (the quorum is not met), and the admin view says why.
        #expect(throws: LogError.self) { try LogFixture.verifiedProof(server, "/pins/a.example", policy: policy) }
        // Incomplete: no-cache, and never a 304. Its ETag is its own (PROTOCOL §7.3): it changes with the cosignature.
        let incomplete = try server.client.request("GET", "/pins/a.example/proof")
        let etag = try #require(incomplete.header("ETag"))
        #expect(incomplete.header("Cache-Control") == "no-cache")
        #expect(
            try server.client.request("GET", "/pins/a.example/proof", headers: ["If-None-Match": etag]).status == 200)
        #expect(
            LogFixture.eventually(5) {
                let status = try? server.client.request("GET", "/admin/log", headers: server.auth).json()
                let answers = status?["witnesses"] as? [[String: Any]]
                return answers?.first?["lastAnswer"] as? String == "unreachable"
            })

        try witness.start()
        #expect(
            LogFixture.eventually(10) {
                (try? LogFixture.verifiedProof(server, "/pins/a.example", policy: policy)) != nil
            })
        try LogFixture.verifiedProof(server, "/pins/b.example", policy: policy)
        let complete = try server.client.request("GET", "/pins/a.example/proof", headers: ["If-None-Match": etag])
        #expect(complete.status == 200 && complete.header("ETag") != etag)
        #expect(complete.header("Cache-Control") == "public, max-age=3600")
        let completeTag = try #require(complete.header("ETag"))
        #expect(
            try server.client.request("GET", "/pins/a.example/proof", headers: ["If-None-Match": completeTag]).status
                == 304)
    }

    /// After a restart a proof is built at its first request: it carries the cosignature the stored checkpoint has,
    /// and one built while the witness is down is completed once it cosigns.
    @Test func proofsBuiltAfterARestartGetTheirCosignatures() throws {
        let server = try TestServer()
        let vkey = try LogFixture.logKey(server)
        let witness = try WitnessProcess(name: "w.test", logVKey: vkey, directory: server.directory)
        try LogFixture.enableLog(server, witnesses: [witness], retry: 1, deadline: 1)
        let policy = try LogFixture.policy(log: vkey, witnesses: [witness])
        #expect(try server.put("a.example", pinPair(1)).status == 201)
        #expect(
            LogFixture.eventually(10) {
                (try? LogFixture.verifiedProof(server, "/pins/a.example", policy: policy)) != nil
            })
        witness.stop()
        server.stop()
        try server.start()
        try LogFixture.verifiedProof(server, "/pins/a.example", policy: policy)

        #expect(try server.put("b.example", pinPair(2)).status == 201)
        server.stop()
        try server.start()
        #expect(throws: LogError.self) { try LogFixture.verifiedProof(server, "/pins/b.example", policy: policy) }
        try witness.start()
        #expect(
            LogFixture.eventually(10) {
                (try? LogFixture.verifiedProof(server, "/pins/b.example", policy: policy)) != nil
            })
        try LogFixture.verifiedProof(server, "/pins/a.example", policy: policy)
    }
}
