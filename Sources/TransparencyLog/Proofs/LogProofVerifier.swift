import PinSetCore

/// The client's checks of PROTOCOL §7.4 under a C2SP tlog-policy: a document's proof leads to a checkpoint
/// signed by a policy log and cosigned by a quorum of its witnesses, and that checkpoint is consistent with the
/// largest one accepted before.
///
/// Pure: bytes in, a value out; no clock, no I/O. SHA-256 and Ed25519 are injected (``TrustCrypto``).
public struct LogProofVerifier: Sendable {
    /// The policy checkpoints are checked against.
    public let policy: LogPolicy
    private let crypto: any TrustCrypto
    private let hasher: MerkleHasher
    private let witnessKeys: [VerifierKey]

    /// Creates a verifier for `policy`.
    public init(policy: LogPolicy, crypto: any TrustCrypto) {
        self.policy = policy
        self.crypto = crypto
        self.hasher = MerkleHasher(crypto: crypto)
        self.witnessKeys = policy.witnesses.map(\.key)
    }

    /// Step 2: the checkpoint's origin is a policy log's, its signature by that log verifies, and the witnesses
    /// whose cosignatures verify meet the quorum. Unknown signatures are ignored; a known one that fails refuses
    /// the note.
    /// - Throws: ``LogError`` with ``LogError/Code/malformed``, ``LogError/Code/unknownOrigin``,
    ///   ``LogError/Code/badSignature``, ``LogError/Code/unsigned`` or ``LogError/Code/quorumNotMet``.
    public func verifyCheckpoint(_ note: SignedNote) throws(LogError) -> VerifiedCheckpoint {
        let checkpoint = try Checkpoint(text: note.text)
        let logKeys = policy.logs.map(\.key).filter { $0.name == checkpoint.origin }
        guard !logKeys.isEmpty else { throw LogError(.unknownOrigin, "the policy has no log \(checkpoint.origin)") }
        guard !(try note.verify(logKeys, crypto: crypto)).isEmpty else {
            throw LogError(.unsigned, "no signature of log \(checkpoint.origin) on the checkpoint")
        }
        let cosigned = try note.verify(witnessKeys, crypto: crypto)
        let names = Set(
            cosigned.compactMap { signature in policy.witnesses.first { $0.key == signature.key }?.name })
        guard policy.isQuorumMet(by: names) else {
            throw LogError(
                .quorumNotMet,
                "cosigned by \(names.count) witness(es) (\(names.sorted().joined(separator: ", "))), "
                    + "short of the quorum \(policy.quorum)")
        }
        return VerifiedCheckpoint(note: note, checkpoint: checkpoint, witnesses: names)
    }

    /// Steps 1 and 2: `entry` (the document's bytes as received) is leaf ``LogProof/index`` of the proof's
    /// checkpoint, and that checkpoint passes ``verifyCheckpoint(_:)``.
    public func verify(entry: some Collection<UInt8>, proof: LogProof) throws(LogError) -> VerifiedCheckpoint {
        let verified = try verifyCheckpoint(proof.checkpoint)
        let leaf = hasher.leafHash(entry)
        guard
            hasher.verifyInclusion(
                leaf: leaf, index: proof.index, size: verified.checkpoint.size, proof: proof.inclusionProof,
                root: verified.checkpoint.rootHash)
        else {
            throw LogError(
                .notIncluded, "the inclusion proof of leaf \(proof.index) does not lead to the checkpoint's root")
        }
        return verified
    }

    /// Step 3: `new` against `largest`, the largest checkpoint of the same log accepted before.
    /// - Parameters:
    ///   - new: a checkpoint that passed ``verifyCheckpoint(_:)``.
    ///   - largest: the largest accepted before (`nil`: none; `new` is taken).
    ///   - proof: the consistency proof from the smaller of the two sizes to the larger (empty for equal sizes).
    /// - Returns: the checkpoint to keep as the largest: the larger of the two.
    /// - Throws: ``LogFork`` with both notes when they are inconsistent, or of different logs.
    public func checkConsistency(_ new: VerifiedCheckpoint, with largest: VerifiedCheckpoint?, proof: [TreeHash])
        throws(LogFork) -> VerifiedCheckpoint
    {
        guard let largest else { return new }
        let (small, large) = new.checkpoint.size <= largest.checkpoint.size ? (new, largest) : (largest, new)
        guard new.checkpoint.origin == largest.checkpoint.origin,
            hasher.verifyConsistency(
                oldSize: small.checkpoint.size, newSize: large.checkpoint.size, oldRoot: small.checkpoint.rootHash,
                newRoot: large.checkpoint.rootHash, proof: proof)
        else {
            throw LogFork(kept: largest.note, refused: new.note)
        }
        return large
    }
}

/// A checkpoint that passed ``LogProofVerifier/verifyCheckpoint(_:)``.
public struct VerifiedCheckpoint: Sendable, Equatable {
    /// The signed note as received (log signature and cosignatures).
    public let note: SignedNote
    /// Its parsed body.
    public let checkpoint: Checkpoint
    /// The policy names of the witnesses whose cosignature verified.
    public let witnesses: Set<String>
}

/// Two signed checkpoints of one log that cannot both be true: proof that the log showed two histories (or, when
/// the sizes differ, that the consistency proof given was wrong). The client refuses ``refused``, keeps
/// ``kept``, and should report both.
public struct LogFork: Error, Sendable, Equatable, CustomStringConvertible {
    /// The checkpoint the client had accepted before, and keeps.
    public let kept: SignedNote
    /// The new checkpoint it refused.
    public let refused: SignedNote

    /// Creates a fork report.
    public init(kept: SignedNote, refused: SignedNote) {
        self.kept = kept
        self.refused = refused
    }

    public var description: String {
        "the log forked: the new checkpoint is inconsistent with the largest one accepted before\n"
            + String(decoding: kept.bytes, as: UTF8.self) + "\n" + String(decoding: refused.bytes, as: UTF8.self)
    }
}
