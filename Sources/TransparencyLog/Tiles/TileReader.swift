/// Complete-subtree hashes read from tiles fetched one at a time (a client or monitor reading a log over HTTP,
/// or files on disk), for a tree of a known size. Each tile is fetched at most once per reader.
///
/// The tiles are not trusted: whatever they hold, a proof computed from them either verifies against signed
/// checkpoints or does not.
public final class TileReader: SubtreeHashReader {
    /// The tree size the tiles are read for (it decides which tiles are partial).
    public let treeSize: Int
    private let hasher: MerkleHasher
    private let fetch: (Tile) throws -> [UInt8]
    private var cache: [Tile: [UInt8]] = [:]

    /// Creates a reader.
    /// - Parameters:
    ///   - treeSize: the size of the checkpoint the tiles belong to.
    ///   - hasher: hashes the levels inside a tile.
    ///   - fetch: returns a tile's bytes; anything it throws becomes ``LogErrorCode/missingHash``.
    public init(treeSize: Int, hasher: MerkleHasher, fetch: @escaping (Tile) throws -> [UInt8]) {
        self.treeSize = treeSize
        self.hasher = hasher
        self.fetch = fetch
    }

    public func subtreeHash(level: Int, index: Int) throws(LogError) -> TreeHash {
        let tileLevel = level / Tile.height
        let span = 1 << (level % Tile.height)
        let first = index * span
        guard let tile = Tile.containing(level: tileLevel, position: first + span - 1, treeSize: treeSize) else {
            throw LogError(
                .missingHash, "a tree of \(treeSize) has no complete subtree at level \(level), index \(index)")
        }
        let data = try bytes(of: tile)
        let offset = first - tile.index * Tile.fullWidth
        let hashes = (offset..<(offset + span)).map { Array(data[($0 * 32)..<($0 * 32 + 32)]) }
        return hasher.perfectRoot(hashes[...])
    }

    private func bytes(of tile: Tile) throws(LogError) -> [UInt8] {
        if let cached = cache[tile] { return cached }
        let data: [UInt8]
        do {
            data = try fetch(tile)
        } catch {
            throw LogError(.missingHash, "\(tile.path) could not be read: \(error)")
        }
        guard data.count == tile.width * 32 else {
            throw LogError(.malformed, "\(tile.path) is \(data.count) bytes, not \(tile.width * 32)")
        }
        cache[tile] = data
        return data
    }
}
