/// Verification of RFC 6962 proofs with the algorithms of RFC 9162 §2.1.3.2 (inclusion) and §2.1.4.2
/// (consistency). Pure; bounded by the proof's length (at most 63 hashes are accepted).
extension MerkleHasher {
    /// The most hashes a proof of a tree below 2^63 leaves can hold.
    public static let maxProofLength = 63

    /// Whether `proof` shows that the leaf hash `leaf` is at `index` in the tree of `size` leaves with `root`.
    public func verifyInclusion(leaf: TreeHash, index: Int, size: Int, proof: [TreeHash], root: TreeHash) -> Bool {
        guard index >= 0, index < size, proof.count <= Self.maxProofLength else { return false }
        var fn = index
        var sn = size - 1
        var r = leaf
        for p in proof {
            if sn == 0 { return false }
            if fn & 1 == 1 || fn == sn {
                r = nodeHash(p, r)
                if fn & 1 == 0 { Self.shiftWhileEven(&fn, &sn) }
            } else {
                r = nodeHash(r, p)
            }
            fn >>= 1
            sn >>= 1
        }
        return sn == 0 && r == root
    }

    /// Whether `proof` shows that the tree of `oldSize` leaves with `oldRoot` is a prefix of the tree of
    /// `newSize` leaves with `newRoot`. Equal sizes need an empty proof and equal roots; an old size of 0
    /// needs an empty proof (the empty tree is a prefix of every tree), as C2SP tlog-witness has it.
    public func verifyConsistency(
        oldSize: Int, newSize: Int, oldRoot: TreeHash, newRoot: TreeHash, proof: [TreeHash]
    ) -> Bool {
        guard oldSize >= 0, oldSize <= newSize, proof.count <= Self.maxProofLength else { return false }
        if oldSize == newSize { return proof.isEmpty && oldRoot == newRoot }
        if oldSize == 0 { return proof.isEmpty }
        if proof.isEmpty { return false }
        var path = proof
        if MerkleMath.isPowerOfTwo(oldSize) { path.insert(oldRoot, at: 0) }
        var fn = oldSize - 1
        var sn = newSize - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var fr = path[0]
        var sr = path[0]
        for c in path.dropFirst() {
            if sn == 0 { return false }
            if fn & 1 == 1 || fn == sn {
                fr = nodeHash(c, fr)
                sr = nodeHash(c, sr)
                if fn & 1 == 0 { Self.shiftWhileEven(&fn, &sn) }
            } else {
                sr = nodeHash(sr, c)
            }
            fn >>= 1
            sn >>= 1
        }
        return fr == oldRoot && sr == newRoot && sn == 0
    }

    /// RFC 9162's "right-shift both fn and sn equally until either LSB(fn) is set or fn is 0".
    private static func shiftWhileEven(_ fn: inout Int, _ sn: inout Int) {
        while fn & 1 == 0 && fn != 0 {
            fn >>= 1
            sn >>= 1
        }
    }
}
