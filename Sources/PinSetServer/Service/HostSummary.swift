import Foundation
import PinSetCore

/// One line of `GET /admin/hosts`. Dates code as RFC 3339.
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

    private enum CodingKeys: String, CodingKey { case host, version, pinCount, updatedAt, expiresAt, etag, state }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        host = try c.decode(String.self, forKey: .host)
        version = try c.decode(Int.self, forKey: .version)
        pinCount = try c.decode(Int.self, forKey: .pinCount)
        updatedAt = try c.decode(RFC3339Date.self, forKey: .updatedAt).date
        expiresAt = try c.decode(RFC3339Date.self, forKey: .expiresAt).date
        etag = try c.decode(String.self, forKey: .etag)
        state = try c.decodeIfPresent(MonitorState.self, forKey: .state) ?? .unknown
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(host, forKey: .host)
        try c.encode(version, forKey: .version)
        try c.encode(pinCount, forKey: .pinCount)
        try c.encode(RFC3339Date(updatedAt), forKey: .updatedAt)
        try c.encode(RFC3339Date(expiresAt), forKey: .expiresAt)
        try c.encode(etag, forKey: .etag)
        try c.encode(state, forKey: .state)
    }
}
