import Foundation
import OpenSSLCrypto
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetServer

/// `pinset witness` as a real process on loopback, spoken to over HTTP as a log would (C2SP tlog-witness).
@Suite struct WitnessProcessTests {
    static let binary = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/debug/pinset").path

    /// A `pinset witness --port 0` subprocess; its URL and vkey are read from the banner.
    final class RunningWitness {
        let process: ChildProcess
        let url: String
        let vkey: String

        init(arguments: [String]) throws {
            process = try ProcessRunner.start(
                WitnessProcessTests.binary, ["witness", "--port", "0"] + arguments, stdout: .pipe)
            // Three banner lines; a process that dies gives an empty read and ends the loop.
            let lines = process.readStdout(lines: 3).split(separator: "\n").map(String.init)
            guard lines.count >= 2, let range = lines[0].range(of: "http://"), lines[1].hasPrefix("  vkey: ") else {
                process.terminate()
                throw LogError(.malformed, "no banner: \(lines)")
            }
            url = String(lines[0][range.lowerBound...])
            vkey = String(lines[1].dropFirst("  vkey: ".count))
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }

        func post(_ body: [UInt8]) throws -> (status: Int, type: String?, body: String) {
            answer(try TestHTTPClient(url: url).request("POST", "/add-checkpoint", body: body))
        }

        func get(_ path: String) throws -> (status: Int, type: String?, body: String) {
            answer(try TestHTTPClient(url: url).request("GET", path))
        }

        private func answer(_ response: TestHTTPClient.Response) -> (status: Int, type: String?, body: String) {
            (response.status, response.header("Content-Type"), response.text)
        }
    }

    /// A log: its entries' hashes and its key.
    struct Log {
        let signer: NoteSigner
        var hashes = TileHashes()

        mutating func grow(to size: Int, tag: String = "") {
            while hashes.treeSize < size {
                hashes.append(
                    leafHash: hasher.leafHash(Array("document \(hashes.treeSize)\(tag)".utf8)), hasher: hasher)
            }
        }

        var tree: MerkleTree<TileHashes.Reader> { MerkleTree(hasher: hasher, reader: hashes.reader(hasher: hasher)) }

        func request(old: Int, origin: String = LogServer.origin, proof: [TreeHash]? = nil) throws
            -> AddCheckpointRequest
        {
            let size = hashes.treeSize
            let text = try Checkpoint(origin: origin, size: size, rootHash: tree.rootHash(size: size)).text
            let note = SignedNote(text: text, signatures: [signer.signature(of: text, timestamp: 0)])
            return AddCheckpointRequest(
                oldSize: old, consistencyProof: try proof ?? tree.consistencyProof(from: old, to: size),
                checkpoint: note)
        }
    }

    @Test func aWitnessCosignsConsistentCheckpointsAndRefusesTheRest() async throws {
        let directory = try makeTemporaryDirectory("pinset-witness")
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("witness.pem").path
        try Ed25519SigningKey.generate().write(toNewFile: keyPath)
        var log = Log(
            signer: try NoteSigner(name: LogServer.origin, type: .ed25519, key: try Ed25519SigningKey.generate()))
        let arguments = [
            "--name", "w1.example", "--key", keyPath, "--log", "\(log.signer.key)", "--db",
            directory.appendingPathComponent("witness.sqlite").path,
        ]
        var witness = try RunningWitness(arguments: arguments)
        defer { witness.stop() }
        let witnessKey = try VerifierKey(parsing: witness.vkey, crypto: crypto)
        #expect(witnessKey.type == .cosignature && witnessKey.name == "w1.example")

        // The first checkpoint (old size 0, no proof), then one consistent with it.
        log.grow(to: 10)
        let first = try log.request(old: 0)
        var answer = try witness.post(first.bytes)
        #expect(answer.status == 200, "\(answer.body)")
        let cosignature = try NoteSignature(line: answer.body.dropLast())
        let cosigned = SignedNote(text: first.checkpoint.text, signatures: [cosignature])
        #expect(try cosigned.verify([witnessKey], crypto: crypto).first?.timestamp ?? 0 > 1_700_000_000)
        log.grow(to: 300)
        answer = try witness.post(try log.request(old: 10).bytes)
        #expect(answer.status == 200, "\(answer.body)")

        // A log that believes the witness is elsewhere learns the size it holds: 409, text/x.tlog.size.
        answer = try witness.post(try log.request(old: 10).bytes)
        #expect(answer.status == 409 && answer.type == "text/x.tlog.size" && answer.body == "300\n")

        // A split view: the same key signs another history. Same size, other root; larger, with its own proof.
        var rogue = Log(signer: log.signer)
        rogue.grow(to: 300, tag: " rogue")
        // tlog-witness: the same size with another root is a 409 with the size held; both are kept as evidence.
        answer = try witness.post(try rogue.request(old: 300, proof: []).bytes)
        #expect(answer.status == 409 && answer.type == "text/x.tlog.size" && answer.body == "300\n")
        rogue.grow(to: 310, tag: " rogue")
        answer = try witness.post(try rogue.request(old: 300).bytes)
        #expect(answer.status == 422)
        answer = try witness.post(try rogue.request(old: 300).bytes)  // the same again: kept once
        #expect(answer.status == 422)

        // Unknown origin 404; a key the witness does not trust 403; malformed 400; old size over the size 400.
        let stranger = Log(
            signer: try NoteSigner(name: "other.example/log", type: .ed25519, key: try Ed25519SigningKey.generate()))
        #expect(try witness.post(try stranger.request(old: 0, origin: "other.example/log").bytes).status == 404)
        var impostor = Log(
            signer: try NoteSigner(name: LogServer.origin, type: .ed25519, key: try Ed25519SigningKey.generate()))
        impostor.grow(to: 300)
        #expect(try witness.post(try impostor.request(old: 300, proof: []).bytes).status == 403)
        #expect(try witness.post(Array("old 300\n\nnot a checkpoint\n".utf8)).status == 400)
        let shrink = try log.request(old: 300, proof: [])
        let smaller = AddCheckpointRequest(oldSize: 301, consistencyProof: [], checkpoint: shrink.checkpoint)
        #expect(try witness.post(smaller.bytes).status == 400)

        // The monitoring API serves the cosigned checkpoint, under the SHA-256 of the origin.
        let originHash = crypto.sha256(Array(LogServer.origin.utf8)).map { String(format: "%02x", $0) }.joined()
        let served = try witness.get("/\(originHash)/checkpoint")
        #expect(served.status == 200)
        let note = try SignedNote(parsing: Array(served.body.utf8))
        #expect(try Checkpoint(text: note.text).size == 300)
        #expect(try note.verify([log.signer.key, witnessKey], crypto: crypto).count == 2)

        // The evidence: both conflicts, newest first, each with the held note and the offered one.
        let evidence = try witness.get("/\(originHash)/conflicts")
        #expect(evidence.status == 200 && evidence.type == "application/json")
        let kept = try Self.conflicts(evidence.body)
        #expect(kept.map(\.kind) == ["inconsistent", "same-size"])
        #expect(kept.allSatisfy { $0.held.contains("\n300\n") && $0.offered.contains(LogServer.origin) })
        #expect(kept.first?.offered.contains("\n310\n") == true && kept.first?.proof.isEmpty == false)
        #expect(try witness.get("/00/conflicts").status == 404)

        // The newest checkpoint and the evidence survive a restart.
        witness.stop()
        witness = try RunningWitness(arguments: arguments)
        #expect(try Self.conflicts(try witness.get("/\(originHash)/conflicts").body).count == 2)
        answer = try witness.post(try log.request(old: 0, proof: []).bytes)
        #expect(answer.status == 409 && answer.body == "300\n")
        log.grow(to: 301)
        #expect(try witness.post(try log.request(old: 300).bytes).status == 200)
    }

    @Test(.blocking) func aWitnessWithoutLogsOrNameDoesNotStart() throws {
        let output = try Self.run(["witness", "--name", "w", "--key", "/nonexistent"])
        #expect(output.status != 0 && output.stderr.contains("--log"))
        let bad = try Self.run(["witness", "--name", "w", "--log", "not-a-vkey"])
        #expect(bad.status != 0 && bad.stderr.contains("--log not-a-vkey"))
    }

    /// One conflict of `GET /<origin hash>/conflicts`.
    struct KeptConflict: Decodable {
        let kind: String
        let held: String
        let offered: String
        let proof: [String]
        let seenAt: String
    }

    static func conflicts(_ body: String) throws -> [KeptConflict] {
        try JSONDecoder().decode([KeptConflict].self, from: Data(body.utf8))
    }

    /// Runs `pinset` with `arguments` and no `PINSET_` variable from this process's environment.
    static func run(_ arguments: [String]) throws -> (status: Int32, stderr: String, stdout: String) {
        let unset = ProcessInfo.processInfo.environment.keys.filter { $0.hasPrefix("PINSET_") }
        let output = try ProcessRunner.run(
            binary, arguments, environment: Dictionary(uniqueKeysWithValues: unset.map { ($0, String?.none) }))
        return (output.status, output.errorText, output.text)
    }
}
