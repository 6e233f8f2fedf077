import Foundation
import Testing
import TransparencyLog

/// The shared transparency-log vectors of Tests/Vectors/log (issue 24, PROTOCOL §7.4) through the Swift
/// TransparencyLog. The JVM client runs the very same manifest (clients/jvm's LogVectorTest), so both reach the same
/// decision on every case: accepted with the checkpoint to keep, refused with a ``LogError/Code``, or a fork.
@Suite struct LogVectorTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Vectors")

    struct Manifest: Decodable {
        let policy: String
        let cases: [Case]
    }

    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let name: String
        let document: String
        let proof: String
        var largest: String?
        var tiles: String?
        let expect: Expect

        var testDescription: String { name }
    }

    struct Expect: Decodable, Sendable {
        let decision: String
        var largestSize: Int?
        var code: String?
        var kept: String?
        var refused: String?
    }

    static func read(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(path)))
    }

    static let manifest: Manifest = {
        do {
            return try JSONDecoder().decode(Manifest.self, from: Data(read("log/manifest.json")))
        } catch {
            fatalError("Tests/Vectors/log/manifest.json: \(error)")
        }
    }()

    @Test func theManifestListsEveryCase() {
        #expect(Self.manifest.cases.count >= 18)
    }

    @Test(arguments: manifest.cases) func everyLogCase(_ vector: Case) throws {
        let verifier = LogProofVerifier(
            policy: try LogPolicy(parsing: Self.read(Self.manifest.policy), crypto: crypto), crypto: crypto)
        let entry = try Self.read(vector.document)
        let proofBytes = try Self.read(vector.proof)
        let proof: LogProof
        do {
            proof = try LogProof(parsing: proofBytes)
        } catch {
            #expect(vector.expect.decision == "refused" && vector.expect.code == error.code.rawValue)
            return
        }
        var largest: VerifiedCheckpoint? = nil
        var consistency: [TreeHash] = []
        var judged: Result<VerifiedCheckpoint, LogRejection>? = nil
        if let path = vector.largest, let tiles = vector.tiles {
            let kept = try verifier.verifyCheckpoint(try SignedNote(parsing: Self.read(path)))
            let sizes = [kept.checkpoint.size, try Checkpoint(text: proof.checkpoint.text).size]
            let folder = Self.root.appendingPathComponent(tiles)
            // The folder serves its tree's tiles only: an older partial tile is the first hashes of the full one.
            let reader = TileReader(treeSize: sizes.max()!, hasher: hasher) { tile in
                if let exact = try? Data(contentsOf: folder.appendingPathComponent(tile.path)) { return [UInt8](exact) }
                let full = try Data(
                    contentsOf: folder.appendingPathComponent(Tile(level: tile.level, index: tile.index).path))
                return [UInt8](full.prefix(tile.width * 32))
            }
            let tree = MerkleTree(hasher: hasher, reader: reader)
            // The tiles may not lead to the larger checkpoint (wrong or missing): no proof, the document is refused.
            consistency = (try? tree.consistencyProof(from: sizes.min()!, to: sizes.max()!)) ?? []
            largest = kept
            // PROTOCOL §7.4 from tiles (the clients' way): the same decision as from the proof, but a fork only when
            // the tiles lead to the larger root.
            judged = Result { () throws(LogRejection) in
                try verifier.verify(entry: entry, proof: proof, largest: kept, tiles: tree)
            }
        }
        let outcome =
            judged
            ?? Result { () throws(LogRejection) in
                try verifier.verify(entry: entry, proof: proof, largest: largest, consistencyProof: consistency)
            }
        switch outcome {
        case .success(let kept):
            #expect(vector.expect.decision == "accepted")
            #expect(kept.checkpoint.size == vector.expect.largestSize)
        case .failure(.refused(let error)):
            #expect(vector.expect.decision == "refused")
            #expect(error.code.rawValue == vector.expect.code)
        case .failure(.fork(let fork)):
            #expect(vector.expect.decision == "fork")
            #expect(try fork.kept.bytes == Self.read(vector.expect.kept ?? ""))
            #expect(try fork.refused.bytes == Self.read(vector.expect.refused ?? ""))
        }
    }
}
