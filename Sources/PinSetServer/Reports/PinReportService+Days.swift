import Foundation
internal import GRDB
import PinSetAdminAPI

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

    /// `YYYY-MM-DD` of a day number (proleptic Gregorian, UTC).
    static func dayText(_ day: Int64) -> String {
        // Howard Hinnant's civil_from_days.
        let z = day + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(two(m))-\(two(d))"
    }
}
