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

/// One version in `GET /admin/hosts/{host}/history`. `at` codes as RFC 3339 through ``AdminJSON``.
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
    /// `true` when the write overrode the pre-flight check with `"force": true` (``tokenName`` says who);
    /// absent otherwise.
    public var forced: Bool?

    /// Creates an entry.
    public init(version: Int, at: Date, tokenName: String, change: ChangeKind, added: [String], removed: [String]) {
        self.version = version
        self.at = at
        self.tokenName = tokenName
        self.change = change
        self.added = added
        self.removed = removed
    }
}
