import Foundation
import PinSetCore

/// An admin token's public facts (never the token or its hash). Dates code as RFC 3339.
public struct TokenInfo: Codable, Sendable, Hashable {
    /// The token's name, recorded in history.
    public var name: String
    /// When it was created.
    public var createdAt: Date
    /// When it was revoked, if it was.
    public var revokedAt: Date?

    /// Creates a token info.
    public init(name: String, createdAt: Date, revokedAt: Date?) {
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    private enum CodingKeys: String, CodingKey { case name, createdAt, revokedAt }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        createdAt = try c.decode(RFC3339Date.self, forKey: .createdAt).date
        revokedAt = try c.decodeIfPresent(RFC3339Date.self, forKey: .revokedAt)?.date
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(RFC3339Date(createdAt), forKey: .createdAt)
        try c.encodeIfPresent(revokedAt.map(RFC3339Date.init), forKey: .revokedAt)
    }
}
