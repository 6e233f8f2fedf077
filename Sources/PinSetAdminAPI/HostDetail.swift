import Foundation
import PinSetCore

/// A host's current set, decoded, as `GET /admin/hosts/{host}` answers it. Dates code as RFC 3339 through ``AdminJSON``.
public struct HostDetail: Codable, Sendable, Hashable {
    /// The normalised host.
    public var host: String
    /// The current version.
    public var version: Int
    /// The ETag of the current document (use it in `If-Match`).
    public var etag: String
    /// When the current document was signed (changes on re-signing).
    public var issuedAt: Date
    /// When the current document expires.
    public var expiresAt: Date
    /// When the current version was written.
    public var updatedAt: Date
    /// Whether the set covers subdomains.
    public var includeSubdomains: Bool
    /// Whether the set is enforcing (`false` = report-only).
    public var enforce: Bool
    /// The pins; empty for a retired host.
    public var pins: [Pin]
    /// Where clients report failures.
    public var reportUri: String?
    /// The kid of the key that signed the current document.
    public var kid: String

    /// Creates a detail.
    public init(
        host: String, version: Int, etag: String, issuedAt: Date, expiresAt: Date, updatedAt: Date,
        includeSubdomains: Bool, enforce: Bool, pins: [Pin], reportUri: String?, kid: String
    ) {
        self.host = host
        self.version = version
        self.etag = etag
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.updatedAt = updatedAt
        self.includeSubdomains = includeSubdomains
        self.enforce = enforce
        self.pins = pins
        self.reportUri = reportUri
        self.kid = kid
    }
}

extension HostDetail: JSONMembers {
    /// Encodes the members of ``writeMembers(to:)`` (dates as RFC 3339, whatever the encoder's strategy).
    public func encode(to encoder: any Encoder) throws { try encodeMembers(to: encoder) }

    /// The detail's members, in sorted order: the one list both its `Encodable` and ``encodedJSON()`` write.
    public func writeMembers<Sink: JSONMemberSink>(to sink: inout Sink) throws(Sink.Failure) {
        try sink.member("enforce", enforce)
        try sink.member("etag", etag)
        try sink.member("expiresAt", expiresAt)
        try sink.member("host", host)
        try sink.member("includeSubdomains", includeSubdomains)
        try sink.member("issuedAt", issuedAt)
        try sink.member("kid", kid)
        try sink.member("pins", pins)
        if let reportUri { try sink.member("reportUri", reportUri) }
        try sink.member("updatedAt", updatedAt)
        try sink.member("version", version)
    }

    /// The JSON answer of the admin API: byte for byte what ``AdminJSON``'s encoder writes for it (sorted keys,
    /// no escaped slashes; ``JSONWriter``), without its cost on the write path.
    public func encodedJSON() -> [UInt8] {
        var writer = JSONWriter(capacity: 384 + 160 * pins.count)
        writer.members(of: self)
        return writer.bytes
    }
}
