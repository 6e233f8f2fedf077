import TransparencyLog

/// Entries a write transaction appended to the log: applied to ``LogState``'s memory once that transaction
/// committed (``LogState/didCommit(_:)``), dropped if it rolled back.
public struct LogAppend: Sendable, Equatable {
    /// The leaf index of the first entry.
    public let firstIndex: Int
    /// The entries, in order.
    public let entries: [[UInt8]]
    /// Their RFC 6962 leaf hashes.
    public let leafHashes: [TreeHash]

    /// The leaf indices taken.
    public var indices: Range<Int> { firstIndex..<(firstIndex + entries.count) }
}
