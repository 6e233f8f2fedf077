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
    /// - Throws: ``LogError`` with ``LogErrorCode/malformed``, ``LogErrorCode/unknownOrigin``,
    ///   ``LogErrorCode/badSignature``, ``LogErrorCode/unsigned`` or ``LogErrorCode/quorumNotMet``.
    public func verifyCheckpoint(_ note: SignedNote) throws(LogError) -> VerifiedCheckpoint {
        let verified = try signedByLog(note)
        try requireQuorum(verified)
        return verified
    }

    /// The checkpoint's origin is a policy log's and its signature verifies; the witnesses whose cosignatures
    /// verify are listed, the quorum is not checked (a monitor follows a log whose witnesses lag, and says so).
    /// - Throws: as ``verifyCheckpoint(_:)``, but never ``LogErrorCode/quorumNotMet``.
    public func signedByLog(_ note: SignedNote) throws(LogError) -> VerifiedCheckpoint {
        let checkpoint = try Checkpoint(text: note.text)
        let logKeys = policy.logs.map(\.key).filter { $0.name == checkpoint.origin }
        guard !logKeys.isEmpty else { throw LogError(.unknownOrigin, "the policy has no log \(checkpoint.origin)") }
        guard !(try note.verify(logKeys, crypto: crypto)).isEmpty else {
            throw LogError(.unsigned, "no signature of log \(checkpoint.origin) on the checkpoint")
        }
        let cosigned = try note.verify(witnessKeys, crypto: crypto)
        let names = Set(
            cosigned.compactMap { signature in policy.witnesses.first { $0.key == signature.key }?.name })
        return VerifiedCheckpoint(note: note, checkpoint: checkpoint, witnesses: names)
    }

    /// Whether the witnesses that cosigned `verified` meet the policy's quorum (step 2's last part).
    /// - Throws: ``LogErrorCode/quorumNotMet``.
    public func requireQuorum(_ verified: VerifiedCheckpoint) throws(LogError) {
        guard policy.isQuorumMet(by: verified.witnesses) else {
            throw LogError(
                .quorumNotMet,
                "cosigned by \(verified.witnesses.count) witness(es) (\(verified.witnesses.sorted().joined(separator: ", "))), "
                    + "short of the quorum \(policy.quorum)")
        }
    }

    /// Steps 1 and 2: `entry` (the document's bytes as received) is leaf ``LogProof/index`` of the proof's
    /// checkpoint, and that checkpoint passes ``verifyCheckpoint(_:)``.
    public func verify(entry: some Collection<UInt8>, proof: LogProof) throws(LogError) -> VerifiedCheckpoint {
        let verified = try included(entry, proof)
        try requireQuorum(verified)
        return verified
    }

    /// Step 1 and the log's signature of step 2, without the quorum: what a fork check needs (two checkpoints the
    /// log signed that disagree prove a split view whether or not witnesses cosigned them). Check the quorum with
    /// ``requireQuorum(_:)`` before accepting anything.
    public func verifyInclusion(entry: some Collection<UInt8>, proof: LogProof) throws(LogError) -> VerifiedCheckpoint {
        try included(entry, proof)
    }

    private func included(_ entry: some Collection<UInt8>, _ proof: LogProof) throws(LogError) -> VerifiedCheckpoint {
        let verified = try signedByLog(proof.checkpoint)
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

extension LogProofVerifier {
    /// Step 3 from tiles (PROTOCOL §7.4): `new` against `largest`, whichever is larger, judged from `tiles`, a tree
    /// of the larger size (hashes from anywhere, untrusted: ``MerkleTree/judgePrefix(size:root:heldSize:heldRoot:)``).
    /// - Returns: the checkpoint to keep as the largest: the larger of the two.
    /// - Throws: ``LogRejection/fork(_:)`` with both notes when the tiles lead to the larger root and give another
    ///   root at the smaller size (or the origins differ); ``LogRejection/refused(_:)`` with
    ///   ``LogErrorCode/missingHash`` when the tiles cannot show either (missing, or not leading to the larger
    ///   root): no consistency proof can be had, so the document is refused.
    public func checkConsistency<Reader>(
        _ new: VerifiedCheckpoint, with largest: VerifiedCheckpoint?, tiles: MerkleTree<Reader>
    ) throws(LogRejection) -> VerifiedCheckpoint {
        guard let largest else { return new }
        guard new.checkpoint.origin == largest.checkpoint.origin else {
            throw .fork(LogFork(kept: largest.note, refused: new.note))
        }
        let (small, large) = new.checkpoint.size <= largest.checkpoint.size ? (new, largest) : (largest, new)
        let judgement: PrefixJudgement
        do {
            judgement = try tiles.judgePrefix(
                size: small.checkpoint.size, root: small.checkpoint.rootHash, heldSize: large.checkpoint.size,
                heldRoot: large.checkpoint.rootHash)
        } catch {
            throw .refused(LogError(.missingHash, "no consistency proof could be read: \(error.detail)"))
        }
        switch judgement {
        case .prefix: return large
        case .fork: throw .fork(LogFork(kept: largest.note, refused: new.note))
        case .unknown:
            throw .refused(
                LogError(
                    .missingHash,
                    "the tiles do not lead to the checkpoint of size \(large.checkpoint.size): no consistency proof "
                        + "from size \(small.checkpoint.size) can be had"))
        }
    }

    /// PROTOCOL §7.4 steps 1 to 3 with the consistency judged from `tiles` (a tree of the larger of the two sizes;
    /// ignored when `largest` is `nil`), then the quorum. See ``checkConsistency(_:with:tiles:)``.
    public func verify<Reader>(
        entry: some Collection<UInt8>, proof: LogProof, largest: VerifiedCheckpoint?, tiles: MerkleTree<Reader>
    ) throws(LogRejection) -> VerifiedCheckpoint {
        try verify(entry: entry, proof: proof) { verified throws(LogRejection) in
            try checkConsistency(verified, with: largest, tiles: tiles)
        }
    }

    /// PROTOCOL §7.4 steps 1 to 3 at once, for a document fetched with its proof: inclusion and the log's
    /// signature, then consistency with `largest` (a fork needs no witness to be proven), then the quorum.
    /// - Parameters:
    ///   - entry: the document's bytes as received.
    ///   - proof: its C2SP tlog-proof.
    ///   - largest: the largest checkpoint of this log accepted before (`nil`: none).
    ///   - consistencyProof: between `largest` and the proof's checkpoint, smaller size first (from the log's
    ///     tiles); ignored when `largest` is `nil`.
    /// - Returns: the checkpoint to keep as the largest from now on.
    /// - Throws: ``LogRejection/refused(_:)`` when the proof or checkpoint does not verify (nothing changes),
    ///   ``LogRejection/fork(_:)`` with both notes when the checkpoint is inconsistent with `largest`.
    public func verify(
        entry: some Collection<UInt8>, proof: LogProof, largest: VerifiedCheckpoint?, consistencyProof: [TreeHash]
    ) throws(LogRejection) -> VerifiedCheckpoint {
        try verify(entry: entry, proof: proof) { verified throws(LogRejection) in
            do throws(LogFork) {
                return try checkConsistency(verified, with: largest, proof: consistencyProof)
            } catch {
                throw .fork(error)
            }
        }
    }

    /// Steps 1 to 3 in their order, `consistent` judging step 3. The fork check needs only the log's signature:
    /// two checkpoints it signed that disagree are proof of a split view whether or not witnesses cosigned the new
    /// one. The quorum is checked after it.
    private func verify(
        entry: some Collection<UInt8>, proof: LogProof,
        consistent: (VerifiedCheckpoint) throws(LogRejection) -> VerifiedCheckpoint
    ) throws(LogRejection) -> VerifiedCheckpoint {
        let verified: VerifiedCheckpoint
        do {
            verified = try included(entry, proof)
        } catch {
            throw .refused(error)
        }
        let kept = try consistent(verified)
        do {
            try requireQuorum(verified)
        } catch {
            throw .refused(error)
        }
        return kept
    }
}

/// Why ``LogProofVerifier/verify(entry:proof:largest:consistencyProof:)`` refused a document.
public enum LogRejection: Error, Sendable, Equatable {
    /// The proof, the log signature or the quorum failed: the document is not shown to be in the log.
    case refused(LogError)
    /// The checkpoint is inconsistent with the largest accepted before: the log forked; report both notes.
    case fork(LogFork)
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
