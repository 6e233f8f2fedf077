import TransparencyLog

/// Entries a write transaction appended to the log: applied to ``LogState``'s memory once that transaction
/// committed (``LogState/didCommit(_:)``), dropped if it rolled back. Only their hashes: the entries themselves are
/// in SQLite.
package struct LogAppend: Sendable, Equatable {
    /// The leaf index of the first entry.
    package let firstIndex: Int
    /// The entries' RFC 6962 leaf hashes, in order.
    package let leafHashes: [TreeHash]

    /// The leaf indices taken.
    package var indices: Range<Int> { firstIndex..<(firstIndex + leafHashes.count) }
}
