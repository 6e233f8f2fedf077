import Foundation
import PinSetCore

/// A host's current set, decoded, as `GET /admin/hosts/{host}` answers it. Dates code as RFC 3339.
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

    private enum CodingKeys: String, CodingKey {
        case host, version, etag, issuedAt, expiresAt, updatedAt, includeSubdomains, enforce, pins, reportUri, kid
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        host = try c.decode(String.self, forKey: .host)
        version = try c.decode(Int.self, forKey: .version)
        etag = try c.decode(String.self, forKey: .etag)
        issuedAt = try c.decode(RFC3339Date.self, forKey: .issuedAt).date
        expiresAt = try c.decode(RFC3339Date.self, forKey: .expiresAt).date
        updatedAt = try c.decode(RFC3339Date.self, forKey: .updatedAt).date
        includeSubdomains = try c.decode(Bool.self, forKey: .includeSubdomains)
        enforce = try c.decode(Bool.self, forKey: .enforce)
        pins = try c.decode([Pin].self, forKey: .pins)
        reportUri = try c.decodeIfPresent(String.self, forKey: .reportUri)
        kid = try c.decode(String.self, forKey: .kid)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(host, forKey: .host)
        try c.encode(version, forKey: .version)
        try c.encode(etag, forKey: .etag)
        try c.encode(RFC3339Date(issuedAt), forKey: .issuedAt)
        try c.encode(RFC3339Date(expiresAt), forKey: .expiresAt)
        try c.encode(RFC3339Date(updatedAt), forKey: .updatedAt)
        try c.encode(includeSubdomains, forKey: .includeSubdomains)
        try c.encode(enforce, forKey: .enforce)
        try c.encode(pins, forKey: .pins)
        try c.encodeIfPresent(reportUri, forKey: .reportUri)
        try c.encode(kid, forKey: .kid)
    }

    /// The JSON answer of the admin API: byte for byte `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]`
    /// (``JSONWriter``), without its cost on the write path.
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
