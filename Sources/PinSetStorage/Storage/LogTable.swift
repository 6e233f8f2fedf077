import Foundation
package import GRDB
import GRDBSQLite
import PinSetCore

/// SQL for the transparency log (PROTOCOL §7.1): entries are appended, never changed; the latest signed checkpoint
/// is kept (a row's note is replaced only to add cosignatures).
package enum LogTable {
    /// The number of entries stored: the next leaf index.
    package static func size(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(MAX(leafIndex) + 1, 0) FROM logEntry")) ?? 0
    }

    /// Appends entries at `firstIndex`, `firstIndex + 1`, …; a constraint failure if an index is taken.
    package static func insert(_ db: Database, firstIndex: Int, entries: [[UInt8]], leafHashes: [[UInt8]]) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO logEntry (leafIndex, leafHash, body) VALUES (?, ?, ?)")
        for (offset, entry) in entries.enumerated() {
            try statement.execute(arguments: [firstIndex + offset, Data(leafHashes[offset]), Data(entry)])
        }
    }

    /// Calls `body` with every entry's index and leaf hash in index order (start-up), from index `first` on,
    /// without copying the entries' bodies; the hash is valid during the call only.
    ///
    /// The rows come from the covering index `logEntryLeafHash` (45 bytes a row, not the entries' bodies), and the
    /// two columns are read straight from SQLite's statement, as ``HostRecords/forEachDocument(_:_:)`` does: no
    /// `Data` per row (a third of the log's preload at a million entries).
    package static func forEachLeafHash(
        _ db: Database, from first: Int = 0, _ body: (Int, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let statement = try db.makeStatement(
            sql: "SELECT leafIndex, leafHash FROM logEntry WHERE leafIndex >= ? ORDER BY leafIndex")
        let row = statement.sqliteStatement
        let rows = try Row.fetchCursor(statement, arguments: [first])
        while try rows.next() != nil {
            try body(Int(sqlite3_column_int64(row, 0)), try statement.columnBytes(1))
        }
    }

    /// The entries at `indices`, in order (an entry bundle); fewer when some are not stored.
    package static func entries(_ db: Database, _ indices: Range<Int>) throws -> [[UInt8]] {
        let rows = try Row.fetchCursor(
            db.cachedStatement(
                sql: "SELECT body FROM logEntry WHERE leafIndex >= ? AND leafIndex < ? ORDER BY leafIndex"),
            arguments: [indices.lowerBound, indices.upperBound])
        var entries: [[UInt8]] = []
        entries.reserveCapacity(indices.count)
        while let row = try rows.next() {
            entries.append(try row.withUnsafeData(atIndex: 0) { $0.map { [UInt8]($0) } ?? [] })
        }
        return entries
    }

    /// Stores a signed checkpoint, or replaces the note of one of the same size (more cosignatures), and drops
    /// the smaller ones: only the latest is ever read (start-up, witnesses), and a busy log signs hundreds a second.
    package static func saveCheckpoint(_ db: Database, treeSize: Int, note: [UInt8], signedAt: Date) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO logCheckpoint (treeSize, note, signedAt) VALUES (?, ?, ?)
                ON CONFLICT (treeSize) DO UPDATE SET note = excluded.note
                """
        ).execute(arguments: [treeSize, Data(note), StoredTime.seconds(signedAt)])
        try db.cachedStatement(sql: "DELETE FROM logCheckpoint WHERE treeSize < ?").execute(arguments: [treeSize])
    }

    /// The note of the largest checkpoint signed, if any.
    package static func latestCheckpoint(_ db: Database) throws -> [UInt8]? {
        try Data.fetchOne(db, sql: "SELECT note FROM logCheckpoint ORDER BY treeSize DESC LIMIT 1").map { [UInt8]($0) }
    }
}
