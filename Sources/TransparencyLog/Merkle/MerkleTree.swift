/// RFC 6962 §2.1 tree heads and proofs of a tree of `size` leaves, computed from complete-subtree hashes.
///
/// Generation only; `MerkleProofs` verifies. Each function reads at most about 2·log2(size) subtree hashes.
public struct MerkleTree<Reader: SubtreeHashReader> {
    /// How nodes are hashed.
    public let hasher: MerkleHasher
    /// Where complete-subtree hashes come from.
    public let reader: Reader

    /// Creates a tree over `reader`.
    public init(hasher: MerkleHasher, reader: Reader) {
        self.hasher = hasher
        self.reader = reader
    }

    /// The root hash of the first `size` leaves (``MerkleHasher/emptyRoot`` for 0).
    public func rootHash(size: Int) throws(LogError) -> TreeHash {
        guard size >= 0 else { throw LogError(.outOfRange, "negative tree size") }
        if size == 0 { return hasher.emptyRoot }
        return try hash(0, size)
    }

    /// RFC 6962 §2.1.1 PATH(index, D[0:size]): the inclusion proof of leaf `index`, from the leaf's sibling up.
    public func inclusionProof(index: Int, size: Int) throws(LogError) -> [TreeHash] {
        guard index >= 0, index < size else {
            throw LogError(.outOfRange, "leaf \(index) is not in a tree of \(size)")
        }
        var proof: [TreeHash] = []
        try path(index, 0, size, into: &proof)
        return proof
    }

    /// RFC 6962 §2.1.2 PROOF(old, D[0:new]): the consistency proof between two tree sizes; empty when `old` is
    /// 0 or equals `new`.
    public func consistencyProof(from old: Int, to new: Int) throws(LogError) -> [TreeHash] {
        guard old >= 0, old <= new else { throw LogError(.outOfRange, "no consistency proof from \(old) to \(new)") }
        if old == 0 || old == new { return [] }
        var proof: [TreeHash] = []
        try subproof(old, 0, new, complete: true, into: &proof)
        return proof
    }

    /// MTH(D[lo:hi]).
    private func hash(_ lo: Int, _ hi: Int) throws(LogError) -> TreeHash {
        let n = hi - lo
        if MerkleMath.isPowerOfTwo(n), lo % n == 0 {
            return try reader.subtreeHash(level: n.trailingZeroBitCount, index: lo / n)
        }
        let k = MerkleMath.largestPowerOfTwo(below: n)
        return hasher.nodeHash(try hash(lo, lo + k), try hash(lo + k, hi))
    }

    private func path(_ m: Int, _ lo: Int, _ hi: Int, into proof: inout [TreeHash]) throws(LogError) {
        let n = hi - lo
        if n == 1 { return }
        let k = MerkleMath.largestPowerOfTwo(below: n)
        if m < k {
            try path(m, lo, lo + k, into: &proof)
            proof.append(try hash(lo + k, hi))
        } else {
            try path(m - k, lo + k, hi, into: &proof)
            proof.append(try hash(lo, lo + k))
        }
    }

    private func subproof(_ m: Int, _ lo: Int, _ hi: Int, complete: Bool, into proof: inout [TreeHash])
        throws(LogError)
    {
        let n = hi - lo
        if m == n {
            if !complete { proof.append(try hash(lo, hi)) }
            return
        }
        let k = MerkleMath.largestPowerOfTwo(below: n)
        if m <= k {
            try subproof(m, lo, lo + k, complete: complete, into: &proof)
            proof.append(try hash(lo + k, hi))
        } else {
            try subproof(m - k, lo + k, hi, complete: false, into: &proof)
            proof.append(try hash(lo, lo + k))
        }
    }
}
