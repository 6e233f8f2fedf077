import Foundation
package import GRDB
import PinSetAdminAPI
import PinSetCore

/// SQL for transparency-log fork reports (`logForkReport`): one row per distinct fork, with a counter and
/// first/last times, under the same retention and row cap as pin failure reports.
package enum LogForkReportTable {
    /// Stores `entry` received at `seconds` under `fingerprint` (or counts it again), and drops rows older than
    /// `cutoff` or beyond `maxRows`. Runs inside the caller's transaction. Returns the row's count.
    package static func record(
        _ db: Database, _ entry: LogForkReportEntry, fingerprint: [UInt8], seconds: Int64, cutoff: Int64, maxRows: Int
    ) throws -> Int {
        try db.execute(
            sql: """
                INSERT INTO logForkReport (fingerprint, host, document, logOrigin, keptCheckpoint, refusedCheckpoint,
                    reportedAt, count, firstSeen, lastSeen)
                VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                ON CONFLICT(fingerprint) DO UPDATE SET count = count + 1, lastSeen = excluded.lastSeen,
                    reportedAt = excluded.reportedAt
                """,
            arguments: [
                Data(fingerprint), entry.host, entry.document, entry.logOrigin, entry.keptCheckpoint,
                entry.refusedCheckpoint, entry.reportedAt, seconds, seconds,
            ])
        let count =
            try Int.fetchOne(
                db, sql: "SELECT count FROM logForkReport WHERE fingerprint = ?", arguments: [Data(fingerprint)]) ?? 1
        try ReportTable.prune(db, table: "logForkReport", cutoff: cutoff, maxRows: maxRows)
        return count
    }

    /// The reported forks, latest first, at most 1,000; `host` keeps those about that host's documents, `since`
    /// those seen since then.
    package static func all(_ db: Database, host: String?, since: Date?) throws -> [LogForkReportEntry] {
        let sql = """
            SELECT host, document, logOrigin, keptCheckpoint, refusedCheckpoint, reportedAt, count, firstSeen,
                lastSeen
            FROM logForkReport WHERE (?1 IS NULL OR host = ?1) AND (?2 IS NULL OR lastSeen >= ?2)
            ORDER BY lastSeen DESC, id DESC LIMIT 1000
            """
        let arguments: StatementArguments = [host, since.map(StoredTime.seconds)]
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            LogForkReportEntry(
                host: row["host"], document: row["document"], logOrigin: row["logOrigin"],
                keptCheckpoint: row["keptCheckpoint"], refusedCheckpoint: row["refusedCheckpoint"],
                reportedAt: row["reportedAt"], count: row["count"], firstSeen: StoredTime.date(row["firstSeen"]),
                lastSeen: StoredTime.date(row["lastSeen"]))
        }
    }
}
