import Foundation
internal import GRDB
import PinSetAdminAPI
import PinSetCore
import PinSetStorage

/// Reports per host and UTC day (issue 15): the counts behind the console's 30-day chart.
///
/// `pinReport` keeps one row per distinct report with a counter and first/last times, which cannot say how
/// many arrived on a given day; `pinReportDay` counts them as they arrive, under the same retention and row
/// cap as the reports themselves (the host of an unauthenticated report is the sender's choice).
extension PinReportService {
    /// The day counts, oldest day first; `host` filters on the pinned host, `since` keeps the days from the
    /// UTC day of `since` on.
    package func days(host: String?, since: Date?) throws(ServiceError) -> [ReportDay] {
        try store.read { db in try ReportTable.days(db, host: host, since: since) }
    }
}
