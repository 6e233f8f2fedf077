import Foundation

/// Limits for `POST /reports`. Every field has a default.
public struct ReportConfiguration: Sendable {
    /// How long a report row is kept after it was last seen. Default 30 days.
    public var retention: TimeInterval
    /// The most distinct report rows kept; the oldest go first. Default 100,000.
    public var maxRows: Int
    /// Reports accepted per source address per minute (a burst of this many, refilled evenly). Default 30.
    public var perAddressPerMinute: Int

    /// Creates a configuration; every parameter has the default documented on its property.
    public init(retention: TimeInterval = 30 * 86_400, maxRows: Int = 100_000, perAddressPerMinute: Int = 30) {
        self.retention = retention
        self.maxRows = maxRows
        self.perAddressPerMinute = perAddressPerMinute
    }
}
