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
    /// Its role: `reader`, `writer` or `admin` (the role of every token made before roles).
    public var role: String
    /// The host patterns it covers (`api.example.com`, `*.example.com`); `nil` for every host.
    public var hosts: [String]?

    /// Creates a token info. Defaults: role `admin`, every host.
    public init(name: String, createdAt: Date, revokedAt: Date?, role: String = "admin", hosts: [String]? = nil) {
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.role = role
        self.hosts = hosts
    }
}
