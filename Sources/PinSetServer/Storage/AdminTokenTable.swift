import Foundation
import GRDB
import PinSetAdminAPI

/// SQL for admin tokens. Only SHA-256 hashes of tokens are ever stored.
enum AdminTokenTable {
    /// Whether a non-revoked token is named `name`.
    static func activeNameExists(_ db: Database, name: String) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM adminToken WHERE name = ? AND revokedAt IS NULL)", arguments: [name])
            ?? false
    }

    /// Stores a new token's hash.
    static func insert(_ db: Database, name: String, hash: [UInt8], now: Date) throws {
        try db.execute(
            sql: "INSERT INTO adminToken (name, hash, createdAt) VALUES (?, ?, ?)",
            arguments: [name, Data(hash), StoredTime.seconds(now)])
    }

    /// Revokes the active token named `name`; `false` if there is none.
    static func revoke(_ db: Database, name: String, now: Date) throws -> Bool {
        try db.execute(
            sql: "UPDATE adminToken SET revokedAt = ? WHERE name = ? AND revokedAt IS NULL",
            arguments: [StoredTime.seconds(now), name])
        return db.changesCount > 0
    }

    /// Every token ever created, oldest first.
    static func all(_ db: Database) throws -> [TokenInfo] {
        try Row.fetchAll(db, sql: "SELECT name, createdAt, revokedAt FROM adminToken ORDER BY createdAt, id").map {
            row in
            TokenInfo(
                name: row["name"], createdAt: StoredTime.date(row["createdAt"]),
                revokedAt: (row["revokedAt"] as Int64?).map(StoredTime.date))
        }
    }

    /// The (name, hash) of every non-revoked token.
    static func activeHashes(_ db: Database) throws -> [(name: String, hash: [UInt8])] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT name, hash FROM adminToken WHERE revokedAt IS NULL")).map { row in
            (row["name"], [UInt8](row["hash"] as Data))
        }
    }
}
