/// Whether a smaller checkpoint is a prefix of a held tree (PROTOCOL §7.4, §7.5): a stale copy, or a fork.
public enum PrefixJudgement: Sendable, Equatable {
    /// Its root is the held tree's root at its size: a stale copy of the same log.
    case prefix
    /// The held tree's root at its size, shown by hashes that lead to the held root, is another: a fork.
    case fork
    /// The hashes read do not lead to the held root (wrong or missing tiles): nothing can be told.
    case unknown
}

extension MerkleTree {
    /// Judges a checkpoint of `size` and `root` against the held checkpoint of `heldSize` ≥ `size` and `heldRoot`,
    /// from this tree's hashes (untrusted: tiles from anywhere). The hashes' root at `size` counts only if a
    /// consistency proof from the same hashes leads from it to `heldRoot` (RFC 9162: then it is the held tree's
    /// root at `size`, whoever served the hashes).
    /// - Throws: the reader's error when a hash is missing.
    public func judgePrefix(size: Int, root: TreeHash, heldSize: Int, heldRoot: TreeHash) throws(LogError)
        -> PrefixJudgement
    {
        guard size >= 0, size <= heldSize else { throw LogError(.outOfRange, "size \(size) is over \(heldSize)") }
        if size == heldSize { return root == heldRoot ? .prefix : .fork }
        if size == 0 { return root == hasher.emptyRoot ? .prefix : .fork }
        let proof = try consistencyProof(from: size, to: heldSize)
        let candidate = try rootHash(size: size)
        guard
            hasher.verifyConsistency(
                oldSize: size, newSize: heldSize, oldRoot: candidate, newRoot: heldRoot, proof: proof)
        else { return .unknown }
        return candidate == root ? .prefix : .fork
    }
}
