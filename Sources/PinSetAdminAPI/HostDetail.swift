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

extension HostDetail {
    /// The JSON answer of the admin API: byte for byte what ``AdminJSON``'s encoder writes for it (sorted keys,
    /// no escaped slashes; ``JSONWriter``), without its cost on the write path. Kept beside the `Codable`
    /// conformance it must match: a new member goes into both.
    public func encodedJSON() -> [UInt8] {
        var writer = JSONWriter(capacity: 384 + 160 * pins.count)
        writer.object { json in
            json.key("enforce")
            json.bool(enforce)
            json.key("etag")
            json.string(etag)
            json.key("expiresAt")
            json.date(expiresAt)
            json.key("host")
            json.string(host)
            json.key("includeSubdomains")
            json.bool(includeSubdomains)
            json.key("issuedAt")
            json.date(issuedAt)
            json.key("kid")
            json.string(kid)
            json.key("pins")
            json.pins(pins)
            if let reportUri {
                json.key("reportUri")
                json.string(reportUri)
            }
            json.key("updatedAt")
            json.date(updatedAt)
            json.key("version")
            json.int(version)
        }
        return writer.bytes
    }
}
