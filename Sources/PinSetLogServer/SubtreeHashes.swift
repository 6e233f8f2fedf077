import TransparencyLog

/// Every complete subtree hash of the log at every level, kept as leaves are appended (one node hash per leaf,
/// amortised): a proof or a tree head then reads each complete subtree in one lookup, and a tile's bytes are a
/// slice of one level (tile level `L` is subtree level `8 · L`), so the log keeps its hashes once.
///
/// Each level is one contiguous buffer of 32-byte hashes: about 64 bytes a leaf in all, with no allocation per
/// hash (an array per hash cost 80 bytes each in malloc chunks, and the tile levels were a second copy).
/// Reading them from the tile levels only (``TileHashes/Reader``) would re-hash up to 128 hashes per subtree
/// between two tile levels, which made each write's proof and each checkpoint's root cost hundreds of SHA-256s.
package struct SubtreeHashes: SubtreeHashReader, Sendable {
    package static let hashBytes = 32
    /// `levels[L]`: the hashes of leaves `i · 2^L ..< (i + 1) · 2^L`, concatenated in order of `i`.
    private var levels: [[UInt8]] = [[]]

    /// The number of leaves.
    package var leafCount: Int { levels[0].count / Self.hashBytes }

    /// Reserves room for `leaves` leaves at every level (start-up, when the count is known).
    package mutating func reserve(leaves: Int) {
        var level = 0
        var count = leaves
        while count > 0 {
            if levels.count == level { levels.append([]) }
            levels[level].reserveCapacity(count * Self.hashBytes)
            count /= 2
            level += 1
        }
    }

    /// Appends a leaf hash (32 bytes) and the subtree hashes it completes.
    package mutating func append(leafHash: some Collection<UInt8>, hasher: MerkleHasher) {
        precondition(leafHash.count == Self.hashBytes, "a leaf hash is 32 bytes")
        levels[0].append(contentsOf: leafHash)
        var level = 0
        while (levels[level].count / Self.hashBytes) % 2 == 0 {
            let end = levels[level].count
            var message: [UInt8] = [1]
            message.reserveCapacity(1 + 2 * Self.hashBytes)
            message.append(contentsOf: levels[level][(end - 2 * Self.hashBytes)..<end])
            let parent = hasher.crypto.sha256(message)
            if levels.count == level + 1 { levels.append([]) }
            levels[level + 1].append(contentsOf: parent)
            level += 1
        }
    }

    package func subtreeHash(level: Int, index: Int) throws(LogError) -> TreeHash {
        guard level >= 0, index >= 0, level < levels.count, (index + 1) * Self.hashBytes <= levels[level].count else {
            throw LogError(.missingHash, "no complete subtree at level \(level), index \(index)")
        }
        return Array(levels[level][(index * Self.hashBytes)..<((index + 1) * Self.hashBytes)])
    }

    /// Leaf `index`'s hash.
    /// - Precondition: `index < leafCount`.
    package func leafHash(_ index: Int) -> ArraySlice<UInt8> {
        levels[0][(index * Self.hashBytes)..<((index + 1) * Self.hashBytes)]
    }

    /// The bytes of hash tile `tile` (its hashes concatenated), or `nil` when the log is too small for it.
    package func data(of tile: Tile) -> [UInt8]? {
        let level = tile.level * Tile.height
        let start = tile.index * Tile.fullWidth * Self.hashBytes
        let end = start + tile.width * Self.hashBytes
        guard level < levels.count, end <= levels[level].count else { return nil }
        return Array(levels[level][start..<end])
    }
}
