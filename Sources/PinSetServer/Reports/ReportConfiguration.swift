import Foundation

/// Limits for `POST /reports`. Every field has a default; together they bound what strangers can store (issue 40).
///
/// Reports for hosts the server has a set for ("pinned hosts") and reports for any other name are kept apart:
/// each class has its own row cap, and a pinned host's reports are dropped by lowest count first, so a flood of
/// invented names or junk cannot push out the reports of a real interception.
package struct ReportConfiguration: Sendable {
    /// How long a report row is kept after it was last seen. Default 30 days.
    package var retention: TimeInterval
    /// The most distinct report rows kept in each class (pinned hosts, other names). Default 100,000 (the byte
    /// limit, ``rowsPerClass``, is the lower one with the defaults).
    package var maxRows: Int
    /// Reports accepted per source address per minute (a burst of this many, refilled evenly); IPv6 addresses
    /// count per /64. Default 30.
    package var perAddressPerMinute: Int
    /// Reports naming a host the server has no set for, accepted per minute from every address together (a burst
    /// of this many, refilled evenly). Default 120.
    package var otherHostsPerMinute: Int
    /// The most bytes one report may store (its host name, certificate chain and known pins); a larger report is
    /// refused with 413. Default 16 KiB.
    package var maxReportBytes: Int
    /// The most bytes all reports may store: each of the two classes gets half, as rows of at most
    /// ``maxReportBytes``. Default 64 MiB (so at most 2,048 rows per class with the defaults).
    package var maxTotalBytes: Int
    /// The addresses of reverse proxies whose `X-Forwarded-For` is believed: a report from one of them counts
    /// against the address the header names (the rightmost one that is not a trusted proxy). Default none: the
    /// header is ignored.
    package var trustedProxies: [String]
    /// The most reports checked or stored at once on the deferred pool; past it, 429 with `Retry-After` at once.
    /// Default 64: a quarter of the pool's 256 places, so that a flood of reports never takes those writes need.
    package var maxChecking: Int

    /// Creates a configuration; every parameter has the default documented on its property.
    package init(
        retention: TimeInterval = 30 * 86_400, maxRows: Int = 100_000, perAddressPerMinute: Int = 30,
        otherHostsPerMinute: Int = 120, maxReportBytes: Int = 16_384, maxTotalBytes: Int = 64 << 20,
        trustedProxies: [String] = [], maxChecking: Int = 64
    ) {
        self.retention = retention
        self.maxRows = maxRows
        self.perAddressPerMinute = perAddressPerMinute
        self.otherHostsPerMinute = otherHostsPerMinute
        self.maxReportBytes = maxReportBytes
        self.maxTotalBytes = maxTotalBytes
        self.trustedProxies = trustedProxies
        self.maxChecking = maxChecking
    }

    /// Whether `text` is an IPv4 or IPv6 address, as ``trustedProxies`` takes them.
    package static func isAddress(_ text: String) -> Bool { ReportClientAddress.bytes(text) != nil }

    /// The row cap of each class (pinned hosts, other names): half of ``maxTotalBytes`` in rows of
    /// ``maxReportBytes``, at most ``maxRows``; at least 1.
    package var rowsPerClass: Int {
        max(1, min(maxRows, maxTotalBytes / 2 / max(1, maxReportBytes)))
    }
}
