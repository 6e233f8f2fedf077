/// Where proof generation reads the hashes of complete subtrees: a server's stored tiles, or tiles a client
/// fetched. The subtree at `level` and `index` covers leaves `index · 2^level ..< (index + 1) · 2^level`.
public protocol SubtreeHashReader {
    /// The hash of the complete subtree at `level` (2^level leaves) and `index`.
    /// - Throws: ``LogErrorCode/missingHash`` when it is not available.
    func subtreeHash(level: Int, index: Int) throws(LogError) -> TreeHash
}
