/// The hashes of a log, level by level as its tiles hold them: `levels[L]` lists the hashes of every complete
/// subtree of 256^L leaves, in order. This is all a log must keep to serve its tiles and compute any proof.
///
/// A value type; appending never changes a hash already there (a log is append-only).
public struct TileHashes: Sendable, Equatable {
    /// The hashes at each tile level; `levels[0]` are the leaf hashes.
    public private(set) var levels: [[TreeHash]] = [[]]

    /// An empty log.
    public init() {}

    /// The log of these leaf hashes.
    public init(leafHashes: [TreeHash], hasher: MerkleHasher) {
        for leaf in leafHashes { append(leafHash: leaf, hasher: hasher) }
    }

    /// The number of leaves.
    public var treeSize: Int { levels[0].count }

    /// Appends one leaf hash, and the tile-level hashes it completes.
    public mutating func append(leafHash: TreeHash, hasher: MerkleHasher) {
        precondition(leafHash.count == 32, "a leaf hash is 32 bytes")
        levels[0].append(leafHash)
        var level = 0
        while levels[level].count % Tile.fullWidth == 0 {
            let full = levels[level].suffix(Tile.fullWidth)
            let root = hasher.perfectRoot(full)
            if levels.count == level + 1 { levels.append([]) }
            levels[level + 1].append(root)
            level += 1
        }
    }

    /// The bytes of `tile`: its hashes concatenated.
    /// - Throws: ``LogErrorCode/missingHash`` when the log is too small for it.
    public func data(of tile: Tile) throws(LogError) -> [UInt8] {
        let start = tile.index * Tile.fullWidth
        guard tile.level < levels.count, start + tile.width <= levels[tile.level].count else {
            throw LogError(.missingHash, "\(tile.path) is beyond a tree of \(treeSize)")
        }
        return Array(levels[tile.level][start..<(start + tile.width)].joined())
    }

    /// A reader of complete-subtree hashes for proofs. `hasher` hashes the levels a tile spans.
    public func reader(hasher: MerkleHasher) -> Reader { Reader(hashes: self, hasher: hasher) }

    /// Reads complete-subtree hashes out of ``TileHashes``.
    public struct Reader: SubtreeHashReader {
        let hashes: TileHashes
        let hasher: MerkleHasher

        public func subtreeHash(level: Int, index: Int) throws(LogError) -> TreeHash {
            let tileLevel = level / Tile.height
            let span = 1 << (level % Tile.height)
            let first = index * span
            guard tileLevel < hashes.levels.count, first + span <= hashes.levels[tileLevel].count else {
                throw LogError(.missingHash, "no complete subtree at level \(level), index \(index)")
            }
            return hasher.perfectRoot(hashes.levels[tileLevel][first..<(first + span)])
        }
    }
}
