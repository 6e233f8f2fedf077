import Foundation
package import GRDB
import PinSetCore

/// SQL for the public keys the server signs or has signed with.
package enum SigningKeyTable {
    /// Records `kid` as the active key (inserting it with `firstUsedAt = now` if new); every other key
    /// becomes inactive but stays listed.
    package static func activate(_ db: Database, kid: String, publicKey: [UInt8], now: Date) throws {
        try db.execute(
            sql: """
                INSERT INTO signingKey (kid, publicKey, firstUsedAt, active) VALUES (?, ?, ?, 1)
                ON CONFLICT(kid) DO UPDATE SET active = 1
                """, arguments: [kid, Data(publicKey), StoredTime.seconds(now)])
        try db.execute(sql: "UPDATE signingKey SET active = 0 WHERE kid <> ?", arguments: [kid])
    }

    /// Every key ever used, oldest first, as (kid, raw public key, active).
    package static func all(_ db: Database) throws -> [(kid: String, publicKey: [UInt8], active: Bool)] {
        try Row.fetchAll(db, sql: "SELECT kid, publicKey, active FROM signingKey ORDER BY firstUsedAt, kid").map {
            row in
            (row["kid"], [UInt8](row["publicKey"] as Data), row["active"])
        }
    }

    /// The key ids that signed the stored documents, in order; empty for a database that has never published.
    package static func documentSigners(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT DISTINCT kid FROM document ORDER BY kid")
    }
}
