import Testing
import TransparencyLog

/// PROTOCOL §7.4 with vectors made by the server-side code: a log of documents, its checkpoints signed by a
/// log key and cosigned by two witnesses, a 2-of-2 policy.
@Suite struct LogProofVerifierTests {
    struct World {
        let log: NoteSigner
        let witnesses: [NoteSigner]
        let verifier: LogProofVerifier
        var hashes = TileHashes()
        var entries: [[UInt8]] = []

        init(log: NoteSigner? = nil) throws {
            self.log = try log ?? makeSigner(name: "pins.example.com/log", type: .ed25519)
            witnesses = try [
                makeSigner(name: "w1.example", type: .cosignature), makeSigner(name: "w2.example", type: .cosignature),
            ]
            let policy = """
                log \(self.log.key)
                witness w1 \(witnesses[0].key)
                witness w2 \(witnesses[1].key)
                group both all w1 w2
                quorum both
                """
            verifier = LogProofVerifier(
                policy: try LogPolicy(parsing: Array(policy.utf8), crypto: crypto), crypto: crypto)
        }

        mutating func append(_ entry: String) {
            entries.append(Array(entry.utf8))
            hashes.append(leafHash: hasher.leafHash(Array(entry.utf8)), hasher: hasher)
        }

        var tree: MerkleTree<TileHashes.Reader> { MerkleTree(hasher: hasher, reader: hashes.reader(hasher: hasher)) }

        func checkpoint(cosigners: Int = 2) throws -> SignedNote {
            let text = try Checkpoint(
                origin: "pins.example.com/log", size: hashes.treeSize, rootHash: tree.rootHash(size: hashes.treeSize)
            ).text
            return SignedNote(
                text: text,
                signatures: [log.signature(of: text, timestamp: 0)]
                    + witnesses.prefix(cosigners).map { $0.signature(of: text, timestamp: 1_764_000_000) })
        }

        func proof(_ index: Int, cosigners: Int = 2) throws -> LogProof {
            LogProof(
                index: index, inclusionProof: try tree.inclusionProof(index: index, size: hashes.treeSize),
                checkpoint: try checkpoint(cosigners: cosigners))
        }
    }

    @Test func aLoggedDocumentIsAcceptedAndOthersAreNot() throws {
        var world = try World()
        for i in 0..<20 { world.append("{\"document\":\(i)}") }
        let proof = try LogProof(parsing: try world.proof(13).bytes)
        let verified = try world.verifier.verify(entry: world.entries[13], proof: proof)
        #expect(verified.checkpoint.size == 20 && verified.witnesses == ["w1", "w2"])
        #expect(throws: LogError.self) { try world.verifier.verify(entry: world.entries[12], proof: proof) }
        #expect(
            performing: { try world.verifier.verify(entry: Array("{\"document\":13} ".utf8), proof: proof) },
            throws: { ($0 as? LogError)?.code == .notIncluded })
        // One cosignature of two: the quorum is not met.
        #expect(
            performing: { try world.verifier.verify(entry: world.entries[13], proof: world.proof(13, cosigners: 1)) },
            throws: { ($0 as? LogError)?.code == .quorumNotMet })
        // A checkpoint of another origin, or signed by another key under the log's name.
        let stranger = try World()
        var other = try World(log: makeSigner(name: "pins.example.com/log", type: .ed25519))
        other.append("x")
        #expect(
            performing: { try world.verifier.verify(entry: other.entries[0], proof: other.proof(0)) },
            throws: { ($0 as? LogError)?.code == .unsigned })
        _ = stranger
        // A known signature that fails refuses the note.
        var tampered = try world.proof(3).checkpoint
        let bad = NoteSignature(
            name: world.witnesses[0].key.name, keyID: world.witnesses[0].key.keyID,
            signature: Array(repeating: 1, count: 72))
        tampered = SignedNote(text: tampered.text, signatures: tampered.signatures + [bad])
        #expect(
            performing: { try world.verifier.verifyCheckpoint(tampered) },
            throws: { ($0 as? LogError)?.code == .badSignature })
    }

    @Test func consistencyKeepsTheLargerAndAForkYieldsBothNotes() throws {
        var honest = try World()
        for i in 0..<10 { honest.append("doc \(i)") }
        let first = try honest.verifier.verifyCheckpoint(try honest.checkpoint())
        for i in 10..<300 { honest.append("doc \(i)") }
        let second = try honest.verifier.verifyCheckpoint(try honest.checkpoint())
        let proof = try honest.tree.consistencyProof(from: 10, to: 300)
        #expect(try honest.verifier.checkConsistency(second, with: first, proof: proof) == second)
        // An older checkpoint seen after a newer one: consistent, the larger is kept.
        #expect(try honest.verifier.checkConsistency(first, with: second, proof: proof) == second)
        #expect(try honest.verifier.checkConsistency(first, with: nil, proof: []) == first)

        // The same log key signs another history (a rogue document at 10): a split view.
        var rogue = World(copying: honest, keeping: 10)
        rogue.append("rogue document")
        for i in 11..<300 { rogue.append("doc \(i)") }
        let forked = try honest.verifier.verifyCheckpoint(try rogue.checkpoint())
        #expect(forked.checkpoint.size == 300 && forked.checkpoint.rootHash != second.checkpoint.rootHash)
        #expect(throws: LogFork(kept: second.note, refused: forked.note)) {
            try honest.verifier.checkConsistency(forked, with: second, proof: [])
        }
        // A rogue checkpoint larger than the honest one, with the rogue log's own consistency proof.
        rogue.append("one more")
        let larger = try honest.verifier.verifyCheckpoint(try rogue.checkpoint())
        #expect(throws: LogFork.self) {
            try honest.verifier.checkConsistency(
                larger, with: second, proof: try rogue.tree.consistencyProof(from: 300, to: 301))
        }
    }
}

extension LogProofVerifierTests.World {
    /// The same keys and the first `count` entries of `world`.
    init(copying world: Self, keeping count: Int) {
        log = world.log
        witnesses = world.witnesses
        verifier = world.verifier
        for entry in world.entries.prefix(count) {
            entries.append(entry)
            hashes.append(leafHash: hasher.leafHash(entry), hasher: hasher)
        }
    }
}
