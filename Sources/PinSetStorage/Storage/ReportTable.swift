import Foundation
package import GRDB
import PinSetAdminAPI
import PinSetCore

/// SQL for pin failure reports: one row per distinct report (`pinReport`, with a counter and first/last times) and
/// the counts per host and UTC day (`pinReportDay`), both under the same retention and row cap.
package enum ReportTable {
    /// Deletes the rows of a report `table` (`pinReport`, `logForkReport`: `id`, `lastSeen`) last seen before
    /// `cutoff`, then all but the `maxRows` latest.
    package static func prune(_ db: Database, table: String, cutoff: Int64, maxRows: Int) throws {
        try db.execute(sql: "DELETE FROM \(table) WHERE lastSeen < ?", arguments: [cutoff])
        try db.execute(
            sql: """
                DELETE FROM \(table) WHERE id IN (
                    SELECT id FROM \(table) ORDER BY lastSeen DESC, id DESC LIMIT -1 OFFSET ?)
                """,
            arguments: [maxRows])
    }

    /// One received report, as stored.
    package struct NewReport: Sendable {
        package var fingerprint: [UInt8]
        package var host: String
        package var notedHost: String
        package var leafPin: String
        package var matchesCurrentPin: Bool
        package var enforce: Bool
        package var knownPins: [String]
        package var chain: [String]
        /// The server has a set for ``host``: the report is kept apart from reports for other names.
        package var pinned = false

        /// Creates a report to store (the memberwise initializer, for the server's report service).
        package init(
            fingerprint: [UInt8], host: String, notedHost: String, leafPin: String, matchesCurrentPin: Bool,
            enforce: Bool, knownPins: [String], chain: [String], pinned: Bool = false
        ) {
            self.fingerprint = fingerprint
            self.host = host
            self.notedHost = notedHost
            self.leafPin = leafPin
            self.matchesCurrentPin = matchesCurrentPin
            self.enforce = enforce
            self.knownPins = knownPins
            self.chain = chain
            self.pinned = pinned
        }
    }

    /// The rows of pin reports for hosts with a set (`pinned`) or for other names.
    private static func pinnedFilter(_ pinned: Bool) -> String {
        "host \(pinned ? "IN" : "NOT IN") (SELECT name FROM host)"
    }

    /// Drops pin reports last seen before `cutoff`, then the rows of the inserted report's class beyond `maxRows`:
    /// for other names the oldest; for pinned hosts the least counted, then the oldest (a real interception is
    /// reported by many clients, so junk for a pinned host goes first).
    private static func prunePinReports(_ db: Database, pinned: Bool, cutoff: Int64, maxRows: Int) throws {
        try db.execute(sql: "DELETE FROM pinReport WHERE lastSeen < ?", arguments: [cutoff])
        let order = pinned ? "count DESC, lastSeen DESC, id DESC" : "lastSeen DESC, id DESC"
        try db.execute(
            sql: """
                DELETE FROM pinReport WHERE id IN (
                    SELECT id FROM pinReport WHERE \(pinnedFilter(pinned)) ORDER BY \(order) LIMIT -1 OFFSET ?)
                """,
            arguments: [maxRows])
    }

    /// Stores `report` received at `seconds` (or counts it again when its fingerprint is known), counts it for its
    /// day, and drops what is older than `cutoff` or beyond `maxRows`. Runs inside the caller's transaction.
    package static func record(_ db: Database, _ report: NewReport, seconds: Int64, cutoff: Int64, maxRows: Int) throws
    {
        _ = try record(db, [(report, seconds)], cutoff: cutoff, maxRows: maxRows)
    }

    /// Stores a group of reports, each received at its `seconds`, as ``record(_:_:seconds:cutoff:maxRows:)`` does
    /// for one, then prunes once for the whole group (one transaction for many reports: the caller's). Returns,
    /// per report, whether it repeated an earlier identical report (only its counter went up).
    package static func record(
        _ db: Database, _ reports: [(report: NewReport, seconds: Int64)], cutoff: Int64, maxRows: Int
    ) throws -> [Bool] {
        var duplicates: [Bool] = []
        duplicates.reserveCapacity(reports.count)
        for (report, seconds) in reports {
            try db.execute(
                sql: """
                    INSERT INTO pinReport (fingerprint, host, notedHost, leafPin, matchesCurrentPin, enforce,
                        knownPins, chain, count, firstSeen, lastSeen)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
                    ON CONFLICT(fingerprint) DO UPDATE SET count = count + 1, lastSeen = excluded.lastSeen,
                        matchesCurrentPin = excluded.matchesCurrentPin
                    """,
                arguments: [
                    Data(report.fingerprint), report.host, report.notedHost, report.leafPin, report.matchesCurrentPin,
                    report.enforce, json(report.knownPins), json(report.chain), seconds, seconds,
                ])
            duplicates.append(try count(db, fingerprint: report.fingerprint) ?? 1 > 1)
            try db.execute(
                sql: """
                    INSERT INTO pinReportDay (host, day, count) VALUES (?, ?, 1)
                    ON CONFLICT(host, day) DO UPDATE SET count = count + 1
                    """,
                arguments: [report.host, ReportTable.day(seconds)])
        }
        for pinned in [true, false] where reports.contains(where: { $0.report.pinned == pinned }) {
            try prunePinReports(db, pinned: pinned, cutoff: cutoff, maxRows: maxRows)
        }
        if !reports.isEmpty { try pruneDays(db, cutoff: cutoff, maxRows: maxRows) }
        return duplicates
    }

    /// How many times the report with `fingerprint` arrived (`nil`: none kept).
    package static func count(_ db: Database, fingerprint: [UInt8]) throws -> Int? {
        try Int.fetchOne(db, sql: "SELECT count FROM pinReport WHERE fingerprint = ?", arguments: [Data(fingerprint)])
    }

    /// Drops days older than `cutoff` and, of the names without a set, the oldest day rows beyond `maxRows` (a
    /// pinned host's days are bounded by the retention: a flood of other names never drops them).
    private static func pruneDays(_ db: Database, cutoff: Int64, maxRows: Int) throws {
        try db.execute(sql: "DELETE FROM pinReportDay WHERE day < ?", arguments: [ReportTable.day(cutoff)])
        try db.execute(
            sql: """
                DELETE FROM pinReportDay WHERE (host, day) IN (
                    SELECT host, day FROM pinReportDay WHERE \(pinnedFilter(false))
                    ORDER BY day DESC, count DESC LIMIT -1 OFFSET ?)
                """,
            arguments: [maxRows])
    }

    /// Reports grouped by host and leaf pin, hosts with a set first, then latest first; `host` filters on the
    /// pinned or the connected host.
    package static func groups(_ db: Database, host: String?, since: Date?) throws -> [ReportGroup] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let host {
            conditions.append("(host = ? OR notedHost = ?)")
            _ = arguments.append(contentsOf: [host, host])
        }
        if let since {
            conditions.append("lastSeen >= ?")
            _ = arguments.append(contentsOf: [StoredTime.seconds(since)])
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        // With MAX(lastSeen), SQLite takes the bare columns from the latest row of each group.
        let sql = """
            SELECT host, leafPin, SUM(count) AS total, MIN(firstSeen) AS first, MAX(lastSeen) AS last,
                matchesCurrentPin, knownPins, chain
            FROM pinReport \(filter) GROUP BY host, leafPin
            ORDER BY \(pinnedFilter(true)) DESC, last DESC LIMIT 1000
            """
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            ReportGroup(
                host: row["host"], leafPin: row["leafPin"], count: row["total"],
                firstSeen: StoredTime.date(row["first"]), lastSeen: StoredTime.date(row["last"]),
                matchesCurrentPin: row["matchesCurrentPin"], knownPins: strings(row["knownPins"]),
                chain: strings(row["chain"]))
        }
    }

    /// The day counts, oldest day first; `host` filters on the pinned host, `since` keeps the days from the
    /// UTC day of `since` on.
    package static func days(_ db: Database, host: String?, since: Date?) throws -> [ReportDay] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let host {
            conditions.append("host = ?")
            _ = arguments.append(contentsOf: [host])
        }
        if let since {
            conditions.append("day >= ?")
            _ = arguments.append(contentsOf: [ReportTable.day(StoredTime.seconds(since))])
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT host, day, count FROM pinReportDay \(filter) ORDER BY day, host LIMIT 10000"
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            ReportDay(host: row["host"], day: ReportTable.dayText(row["day"]), count: row["count"])
        }
    }

    private static func json(_ strings: [String]) -> String {
        (try? JSONEncoder().encode(strings)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    private static func strings(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }
}

extension ReportTable {
    /// Days since 1970-01-01 (UTC) of a time in seconds.
    package static func day(_ seconds: Int64) -> Int64 {
        seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }

    /// `YYYY-MM-DD` of a day number (proleptic Gregorian, UTC): the date part of ``RFC3339/format(_:)``.
    package static func dayText(_ day: Int64) -> String {
        String(RFC3339.format(Date(timeIntervalSince1970: TimeInterval(day) * 86_400)).prefix(10))
    }
}
