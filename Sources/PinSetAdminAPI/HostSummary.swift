import Foundation
import PinSetCore

/// One line of `GET /admin/hosts`. Dates code as RFC 3339 through ``AdminJSON``.
public struct HostSummary: Codable, Sendable, Hashable {
    /// The normalised host.
    public var host: String
    /// The current version.
    public var version: Int
    /// How many pins the current set holds (0 when retired).
    public var pinCount: Int
    /// When the current version was written.
    public var updatedAt: Date
    /// When the current document expires.
    public var expiresAt: Date
    /// The ETag of the current document.
    public var etag: String
    /// The monitor's verdict (``MonitorState/unknown`` until probed, and for sets it does not watch).
    public var state: MonitorState = .unknown

    /// Creates a summary.
    public init(host: String, version: Int, pinCount: Int, updatedAt: Date, expiresAt: Date, etag: String) {
        self.host = host
        self.version = version
        self.pinCount = pinCount
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.etag = etag
    }
}
