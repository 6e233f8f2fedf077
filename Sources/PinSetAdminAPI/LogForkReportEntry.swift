import Foundation

/// A transparency-log fork a client reported (`POST /reports` with `"pinset-report":"log-fork"`, PROTOCOL §7.4,
/// docs/CLIENT-LOG.md), as `GET /admin/reports` lists it: identical reports share one entry with a counter.
///
/// A fork is evidence that someone holding the log key showed a client another history: both checkpoints are
/// the whole signed notes, so anyone with the log's public key can check that the log signed both.
public struct LogForkReportEntry: Codable, Sendable, Hashable {
    /// The host of the document whose proof carried the refused checkpoint (`/pins/<host>`); `nil` for a trust
    /// document.
    public var host: String?
    /// That document's path: `/pins/<host>` or `/trust/<version>`.
    public var document: String
    /// The log's origin line.
    public var logOrigin: String
    /// The checkpoint the client had accepted before and keeps (a signed note).
    public var keptCheckpoint: String
    /// The checkpoint the client refused (a signed note).
    public var refusedCheckpoint: String
    /// When the client saw the fork (its `date-time`, RFC 3339, as sent).
    public var reportedAt: String
    /// How many reports, duplicates included.
    public var count: Int
    /// The first report received.
    public var firstSeen: Date
    /// The latest report received.
    public var lastSeen: Date

    /// Creates an entry.
    public init(
        host: String?, document: String, logOrigin: String, keptCheckpoint: String, refusedCheckpoint: String,
        reportedAt: String, count: Int, firstSeen: Date, lastSeen: Date
    ) {
        self.host = host
        self.document = document
        self.logOrigin = logOrigin
        self.keptCheckpoint = keptCheckpoint
        self.refusedCheckpoint = refusedCheckpoint
        self.reportedAt = reportedAt
        self.count = count
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }
}
