import TransparencyLog

/// Every complete subtree hash of the log at every level, kept as leaves are appended (one node hash per leaf,
/// amortised): a proof or a tree head then reads each complete subtree in one lookup. Reading them from the tile
/// levels instead (``TileHashes/Reader``) re-hashes up to 128 hashes per subtree between two tile levels, which
/// made each write's proof and each checkpoint's root cost hundreds of SHA-256s.
struct SubtreeHashes: SubtreeHashReader, Sendable {
    /// `levels[L][i]`: the hash of leaves `i · 2^L ..< (i + 1) · 2^L`.
    private var levels: [[TreeHash]] = [[]]

    /// Appends a leaf hash and the subtree hashes it completes.
    mutating func append(leafHash: TreeHash, hasher: MerkleHasher) {
        levels[0].append(leafHash)
        var level = 0
        while levels[level].count % 2 == 0 {
            let count = levels[level].count
            let parent = hasher.nodeHash(levels[level][count - 2], levels[level][count - 1])
            if levels.count == level + 1 { levels.append([]) }
            levels[level + 1].append(parent)
            level += 1
        }
    }

    func subtreeHash(level: Int, index: Int) throws(LogError) -> TreeHash {
        guard level >= 0, index >= 0, level < levels.count, index < levels[level].count else {
            throw LogError(.missingHash, "no complete subtree at level \(level), index \(index)")
        }
        return levels[level][index]
    }
}
