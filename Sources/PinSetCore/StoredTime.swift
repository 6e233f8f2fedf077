import Foundation

/// Conversions between `Date` and the integer seconds the databases store (the server's and the witness's): here,
/// not in PinSetStorage, so the witness needs no storage target for it. `package`: apps never see it.
package enum StoredTime {
    /// Whole seconds since 1970, rounded down (the protocol's precision).
    package static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
    /// The date for stored seconds.
    package static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
    /// `date` truncated to whole seconds.
    package static func truncate(_ date: Date) -> Date { Self.date(seconds(date)) }
}
