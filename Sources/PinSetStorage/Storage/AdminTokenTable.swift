import Foundation
package import GRDB
import PinSetAdminAPI
import PinSetCore

/// SQL for admin tokens. Only SHA-256 hashes of tokens are ever stored.
package enum AdminTokenTable {
    /// Whether a non-revoked token is named `name`.
    package static func activeNameExists(_ db: Database, name: String) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM adminToken WHERE name = ? AND revokedAt IS NULL)", arguments: [name])
            ?? false
    }

    /// Stores a new token's hash.
    package static func insert(_ db: Database, name: String, hash: [UInt8], now: Date, scope: TokenScope = .full) throws
    {
        try db.execute(
            sql: "INSERT INTO adminToken (name, hash, createdAt, role, hosts) VALUES (?, ?, ?, ?, ?)",
            arguments: [
                name, Data(hash), StoredTime.seconds(now), scope.role.rawValue,
                scope.hosts.map { $0.map(\.description).joined(separator: " ") },
            ])
    }

    /// Revokes the active token named `name`; `false` if there is none.
    package static func revoke(_ db: Database, name: String, now: Date) throws -> Bool {
        try db.execute(
            sql: "UPDATE adminToken SET revokedAt = ? WHERE name = ? AND revokedAt IS NULL",
            arguments: [StoredTime.seconds(now), name])
        return db.changesCount > 0
    }

    /// Every token ever created, oldest first.
    package static func all(_ db: Database) throws -> [TokenInfo] {
        try Row.fetchAll(
            db, sql: "SELECT name, createdAt, revokedAt, role, hosts FROM adminToken ORDER BY createdAt, id"
        )
        .map { row in
            let scope = scope(role: row["role"], hosts: row["hosts"])
            return TokenInfo(
                name: row["name"], createdAt: StoredTime.date(row["createdAt"]),
                revokedAt: (row["revokedAt"] as Int64?).map(StoredTime.date), role: scope.role.rawValue,
                hosts: scope.hosts?.map(\.description))
        }
    }

    /// The (name, hash, scope) of every non-revoked token.
    package static func activeHashes(_ db: Database) throws -> [(name: String, hash: [UInt8], scope: TokenScope)] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT name, hash, role, hosts FROM adminToken WHERE revokedAt IS NULL")
        ).map { row in
            (row["name"], [UInt8](row["hash"] as Data), scope(role: row["role"], hosts: row["hosts"]))
        }
    }

    /// A stored scope. An unknown role or a pattern that no longer parses gives the narrowest scope (a reader of
    /// no host) rather than more rights; the CHECK constraint and ``AdminTokens/create(name:scope:now:)`` keep
    /// both from happening.
    package static func scope(role: String?, hosts: String?) -> TokenScope {
        guard let role = role.flatMap(TokenRole.init(rawValue:)) else { return TokenScope(role: .reader, hosts: []) }
        guard let hosts else { return TokenScope(role: role, hosts: nil) }
        var patterns: [HostPattern] = []
        for text in hosts.split(separator: " ") {
            guard let pattern = try? HostPattern(String(text)) else { return TokenScope(role: .reader, hosts: []) }
            patterns.append(pattern)
        }
        return TokenScope(role: role, hosts: patterns)
    }
}
