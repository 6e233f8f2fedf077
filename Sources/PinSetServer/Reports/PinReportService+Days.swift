import Foundation
internal import GRDB
import PinSetAdminAPI
import PinSetCore

/// Reports per host and UTC day (issue 15): the counts behind the console's 30-day chart.
///
/// `pinReport` keeps one row per distinct report with a counter and first/last times, which cannot say how
/// many arrived on a given day; `pinReportDay` counts them as they arrive, under the same retention and row
/// cap as the reports themselves (the host of an unauthenticated report is the sender's choice).
extension PinReportService {
    /// The day counts, oldest day first; `host` filters on the pinned host, `since` keeps the days from the
    /// UTC day of `since` on.
    public func days(host: String?, since: Date?) throws(ServiceError) -> [ReportDay] {
        try store.read { db in try ReportTable.days(db, host: host, since: since) }
    }

    /// Days since 1970-01-01 (UTC) of a time in seconds.
    static func day(_ seconds: Int64) -> Int64 {
        seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    }

    /// `YYYY-MM-DD` of a day number (proleptic Gregorian, UTC): the date part of ``RFC3339/format(_:)``.
    static func dayText(_ day: Int64) -> String {
        String(RFC3339.format(Date(timeIntervalSince1970: TimeInterval(day) * 86_400)).prefix(10))
    }
}
