import Foundation
package import GRDB

/// SQL for which log entry holds each served document (PROTOCOL §7.3), so its proof can be built: the
/// `logIndex` column of `document` (pin documents) and `trustDocument`, set in the transaction that logs it.
package enum ServedLogIndexTable {
    /// A served document that has no log entry with its exact bytes (written before the log was configured,
    /// or while the server ran without one).
    package struct Unlogged {
        /// `document.hostId` for a pin document, `trustDocument.version` for a trust document.
        package let id: Int64
        package let body: [UInt8]
    }

    /// A served trust document and the log entry holding it.
    package struct Served {
        package let version: Int
        package let etag: String
        package let leafIndex: Int
    }

    /// Records that the current document of `hostId` is log entry `leafIndex`.
    package static func setHost(_ db: Database, hostId: Int64, leafIndex: Int) throws {
        try db.cachedStatement(sql: "UPDATE document SET logIndex = ? WHERE hostId = ?").execute(arguments: [
            leafIndex, hostId,
        ])
    }

    /// Records that trust document `version` is log entry `leafIndex`.
    package static func setTrust(_ db: Database, version: Int, leafIndex: Int) throws {
        try db.execute(
            sql: "UPDATE trustDocument SET logIndex = ? WHERE version = ?", arguments: [leafIndex, version])
    }

    /// The pin documents not logged yet (`logIndex` NULL: written while the server ran without a log, or before
    /// it had one), by host id: at most `limit` of them after host id `after`. Through the `documentUnlogged`
    /// index: no document is read that is logged.
    package static func unloggedHosts(_ db: Database, after: Int64, limit: Int) throws -> [Unlogged] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT hostId, body FROM document WHERE logIndex IS NULL AND hostId > ? ORDER BY hostId LIMIT ?
                    """),
            arguments: [after, limit]
        ).map { Unlogged(id: $0[0], body: [UInt8]($0[1] as Data)) }
    }

    /// The trust documents whose recorded entry is missing or holds other bytes (a few: each is compared with its
    /// entry), oldest first: at most `limit` of them after version `after`.
    package static func unloggedTrust(_ db: Database, after: Int64, limit: Int) throws -> [Unlogged] {
        try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT t.version, t.body FROM trustDocument t LEFT JOIN logEntry e ON e.leafIndex = t.logIndex
                    WHERE t.version > ? AND (e.body IS NULL OR e.body != t.body) ORDER BY t.version LIMIT ?
                    """),
            arguments: [after, limit]
        ).map { Unlogged(id: $0[0], body: [UInt8]($0[1] as Data)) }
    }

    /// Every trust document with its entry, oldest first.
    package static func servedTrust(_ db: Database) throws -> [Served] {
        try Row.fetchAll(
            db, sql: "SELECT version, body, logIndex FROM trustDocument WHERE logIndex IS NOT NULL ORDER BY version"
        ).map { row in
            let version: Int = row[0]
            return Served(
                version: version, etag: PublishedDocument.etag(for: [UInt8](row[1] as Data)), leafIndex: row[2])
        }
    }
}
