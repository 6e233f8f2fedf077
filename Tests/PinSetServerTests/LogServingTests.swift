import Foundation
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetLogServer
@testable import PinSetServer

/// The transparency log on the server (PROTOCOL §7.1, §7.3): every published document logged in its write,
/// served only with a proof that verifies for its exact bytes, and the log's tiles valid per C2SP tlog-tiles.
@Suite(.blocking) struct LogServingTests {
    @Test func everyWriteIsLoggedAndServedWithAProof() throws {
        let server = try TestServer()
        let vkey = try LogFixture.enableLog(server)
        let policy = try LogFixture.policy(log: vkey, witnesses: [])
        #expect(try server.put("a.example", pinPair(1)).status == 201)
        #expect(try server.put("b.example", pinPair(2)).status == 201)
        let added = try server.client.request(
            "POST", "/admin/hosts/a.example/pins", headers: server.auth,
            body: Array(#"{"pins":[{"sha256":"\#(pin(9))","role":"backup"}]}"#.utf8))
        #expect(added.status == 200)
        #expect(try server.client.request("DELETE", "/admin/hosts/b.example", headers: server.auth).status == 200)
        let bulk = try server.app!.service.replaceMany(
            [
                ("c.example", try SetRequest(json: Array(pinPair(3).utf8))),
                ("d.example", try SetRequest(json: Array(pinPair(4).utf8))),
            ], tokenName: "tester")
        #expect(bulk.count == 2)

        // Six documents, six entries; the answered writes are served with their proofs already.
        let status = try server.client.request("GET", "/admin/log", headers: server.auth).json()
        #expect(status["treeSize"] as? Int == 6)
        #expect(status["checkpointSize"] as? Int == 6)
        let (_, checkpoint) = try LogFixture.checkpoint(server)
        #expect(checkpoint.size == 6)
        #expect(checkpoint.origin == LogFixture.origin)
        var proofs: [String: LogProof] = [:]
        for host in ["a.example", "b.example", "c.example", "d.example"] {
            proofs[host] = try LogFixture.verifiedProof(server, "/pins/\(host)", policy: policy)
        }

        // The served tiles give the same root and the same inclusion proofs; the bundles hold the exact bytes.
        let tree = MerkleTree(hasher: LogFixture.hasher, reader: LogFixture.tiles(server, treeSize: 6))
        #expect(try tree.rootHash(size: 6) == checkpoint.rootHash)
        let entries = try LogFixture.entries(server, treeSize: 6)
        #expect(entries.count == 6)
        for (host, proof) in proofs {
            let proofSize = try Checkpoint(text: proof.checkpoint.text).size
            #expect(try tree.inclusionProof(index: proof.index, size: proofSize) == proof.inclusionProof)
            #expect(entries[proof.index] == (try server.client.request("GET", "/pins/\(host)")).body)
        }
        let partial = try server.client.request("GET", "/log/tile/0/000.p/6")
        #expect(partial.header("Cache-Control") == "public, max-age=60")
    }

    /// A proof keeps the checkpoint that first included its document, so the partial tiles of that size stay
    /// served until their full tile exists: a client holding a smaller checkpoint proves consistency from them,
    /// however many writes to other hosts came since.
    @Test func aProofsCheckpointStaysProvableAfterLaterWrites() throws {
        let server = try TestServer()
        try LogFixture.enableLog(server)
        #expect(try server.put("old.example", pinPair(1)).status == 201)
        let held = try LogFixture.checkpoint(server).body  // what a client accepted before
        #expect(try server.put("x.example", pinPair(2)).status == 201)
        let proof = try LogProof(parsing: try server.client.request("GET", "/pins/x.example/proof").body)
        let proofSize = try Checkpoint(text: proof.checkpoint.text).size
        for index in 0..<(LogFileIndex.partialGenerations + 4) {
            #expect(try server.put("later\(index).example", pinPair(UInt8(10 + index))).status == 201)
        }
        #expect(try LogFixture.checkpoint(server).body.size > proofSize)
        let tree = MerkleTree(hasher: LogFixture.hasher, reader: LogFixture.tiles(server, treeSize: proofSize))
        let consistency = try tree.consistencyProof(from: held.size, to: proofSize)
        let proofRoot = try Checkpoint(text: proof.checkpoint.text).rootHash
        #expect(
            LogFixture.hasher.verifyConsistency(
                oldSize: held.size, newSize: proofSize, oldRoot: held.rootHash, newRoot: proofRoot,
                proof: consistency))
    }

    @Test func aProofAnswers304LikeItsDocument() throws {
        let server = try TestServer()
        try LogFixture.enableLog(server)
        #expect(try server.put("a.example", pinPair(1)).status == 201)
        let proof = try server.client.request("GET", "/pins/a.example/proof")
        let etag = try #require(proof.header("ETag"))
        let again = try server.client.request("GET", "/pins/a.example/proof", headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(try server.client.request("GET", "/pins/A.Example./proof").status == 200)
        let unknown = try server.client.request("GET", "/pins/unknown.example/proof")
        #expect(unknown.status == 404)
        #expect(unknown.header("Content-Type") == "application/problem+json")
        #expect(try server.client.request("GET", "/log/tile/0/999").status == 404)
        #expect(try server.client.request("GET", "/log/tile/entries/000.p/1").status == 200)
        #expect(try server.client.request("GET", "/admin/log").status == 401)
    }

    @Test func withoutALogThereIsNothingToServe() throws {
        let server = try TestServer()
        #expect(try server.put("a.example", pinPair(1)).status == 201)
        for path in ["/log/checkpoint", "/log/tile/0/000.p/1", "/pins/a.example/proof", "/trust/1/proof"] {
            let answer = try server.client.request("GET", path)
            #expect(answer.status == 404, "\(path)")
            #expect(answer.header("Content-Type") == "application/problem+json")
        }
        #expect(try server.client.request("GET", "/admin/log", headers: server.auth).status == 404)
    }

    @Test func startUpLogsWhatIsServedButNotLogged() throws {
        let server = try TestServer()
        #expect(try server.put("a.example", pinPair(1)).status == 201)
        #expect(try server.put("b.example", pinPair(2)).status == 201)
        let vkey = try LogFixture.enableLog(server)
        let policy = try LogFixture.policy(log: vkey, witnesses: [])
        #expect(try LogFixture.checkpoint(server).body.size == 2)
        try LogFixture.verifiedProof(server, "/pins/a.example", policy: policy)
        try LogFixture.verifiedProof(server, "/pins/b.example", policy: policy)

        // A restart logs nothing again; a document written while the log was off is logged at the next start.
        server.stop()
        try server.start()
        #expect(try LogFixture.checkpoint(server).body.size == 2)
        server.stop()
        server.configuration.log = nil
        try server.start()
        #expect(try server.put("a.example", pinPair(3)).status == 200)
        try LogFixture.enableLog(server)
        #expect(try LogFixture.checkpoint(server).body.size == 3)
        let proof = try LogFixture.verifiedProof(server, "/pins/a.example", policy: policy)
        #expect(proof.index == 2)
    }

    /// After a restart the log's hashes come from storage, its bundles are read from SQLite when asked for, and
    /// each proof is built when first asked for: byte for byte what was served before.
    @Test func aRestartServesTheSameFilesAndProofs() throws {
        let server = try TestServer()
        let vkey = try LogFixture.enableLog(server)
        let policy = try LogFixture.policy(log: vkey, witnesses: [])
        let sets = try (0..<300).map { ("h\($0).example", try SetRequest(json: Array(pinPair(UInt8($0 % 250)).utf8))) }
        #expect(try server.app!.service.replaceMany(sets, tokenName: "tester").count == 300)
        let paths = [
            "/log/checkpoint", "/log/tile/0/000", "/log/tile/entries/000", "/log/tile/0/001.p/44",
            "/log/tile/entries/001.p/44", "/log/tile/1/000.p/1", "/pins/h0.example/proof", "/pins/h299.example/proof",
        ]
        let before = try paths.map { try server.client.request("GET", $0) }
        #expect(before.allSatisfy { $0.status == 200 })
        server.stop()
        try server.start()
        for (path, served) in zip(paths, before) {
            let answer = try server.client.request("GET", path)
            #expect(answer.status == 200 && answer.body == served.body, "\(path)")
            #expect(answer.header("ETag") == served.header("ETag"), "\(path)")
        }
        let proof = try LogFixture.verifiedProof(server, "/pins/h7.example", policy: policy)
        #expect(proof.index == 7)
        let etag = try #require(try server.client.request("GET", "/pins/h8.example/proof").header("ETag"))
        #expect(
            try server.client.request("GET", "/pins/h8.example/proof", headers: ["If-None-Match": etag]).status == 304)
        #expect(try server.client.request("GET", "/log/tile/0/001").status == 404)
        #expect(try server.client.request("GET", "/log/tile/entries/002").status == 404)
        // A write after the restart replaces the proof built at the first request.
        #expect(try server.put("h7.example", pinPair(251)).status == 200)
        #expect(try LogFixture.verifiedProof(server, "/pins/h7.example", policy: policy).index == 300)
        #expect(try LogFixture.verifiedProof(server, "/pins/h9.example", policy: policy).index == 9)
    }

    @Test func trustDocumentsHaveProofs() throws {
        let root = try Ed25519SigningKey.generate()
        let server = try TestServer(rootKeys: [root.publicKey])
        let vkey = try LogFixture.enableLog(server)
        let serverKey = try Ed25519SigningKey.load(pemFile: server.keyPath).publicKey
        let v1 = ServerTrustForge.sign(version: 1, roots: [root], signing: [serverKey], by: [root])
        #expect(try server.client.request("PUT", "/admin/trust", headers: server.auth, body: v1).status == 201)
        let proof = try LogFixture.verifiedProof(
            server, "/trust/1", policy: LogFixture.policy(log: vkey, witnesses: []))
        #expect(proof.index == 0)
        #expect(try server.client.request("GET", "/trust/2/proof").status == 404)
        #expect(try server.client.request("GET", "/trust/0/proof").status == 400)
    }

    @Test func reSignaturesAreLogged() throws {
        let server = try TestServer(resignAfter: 1)
        let vkey = try LogFixture.enableLog(server)
        #expect(try server.put("a.example", pinPair(1)).status == 201)
        let first = try #require(try server.client.request("GET", "/pins/a.example").header("ETag"))
        Thread.sleep(forTimeInterval: 2.1)
        #expect(try server.app!.service.resignDue() == 1)
        // A re-signature is not waited for: it is served once the publisher signed a checkpoint for it.
        #expect(
            try LogFixture.eventually(5) {
                try server.client.request("GET", "/pins/a.example").header("ETag") != first
            })
        let proof = try LogFixture.verifiedProof(
            server, "/pins/a.example", policy: LogFixture.policy(log: vkey, witnesses: []))
        #expect(proof.index == 1)
    }
}
