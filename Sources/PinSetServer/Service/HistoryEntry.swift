import Foundation
import PinSetCore

/// What kind of write made a version.
public enum ChangeKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// The first version of a host, or the first after it was retired.
    case create
    /// `PUT` over an existing set.
    case replace
    /// `POST …/pins`.
    case add
    /// `DELETE …/pins/{sha256}`.
    case remove
    /// `DELETE /admin/hosts/{host}`.
    case retire
}

/// One version in `GET /admin/hosts/{host}/history`. `at` codes as RFC 3339.
public struct HistoryEntry: Codable, Sendable, Hashable {
    /// The version this write produced.
    public var version: Int
    /// When it was written.
    public var at: Date
    /// The name of the admin token that wrote it.
    public var tokenName: String
    /// What kind of write it was.
    public var change: ChangeKind
    /// The `sha256` of every pin that is in this version but not in the previous one.
    public var added: [String]
    /// The `sha256` of every pin that was in the previous version but not in this one.
    public var removed: [String]

    /// Creates an entry.
    public init(version: Int, at: Date, tokenName: String, change: ChangeKind, added: [String], removed: [String]) {
        self.version = version
        self.at = at
        self.tokenName = tokenName
        self.change = change
        self.added = added
        self.removed = removed
    }

    private enum CodingKeys: String, CodingKey { case version, at, tokenName, change, added, removed }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decode(Int.self, forKey: .version)
        at = try c.decode(RFC3339Date.self, forKey: .at).date
        tokenName = try c.decode(String.self, forKey: .tokenName)
        change = try c.decode(ChangeKind.self, forKey: .change)
        added = try c.decode([String].self, forKey: .added)
        removed = try c.decode([String].self, forKey: .removed)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(RFC3339Date(at), forKey: .at)
        try c.encode(tokenName, forKey: .tokenName)
        try c.encode(change, forKey: .change)
        try c.encode(added, forKey: .added)
        try c.encode(removed, forKey: .removed)
    }
}
