import Foundation
import PinSetCore

/// An admin token's public facts (never the token or its hash). Dates code as RFC 3339 through ``AdminJSON``.
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
}
