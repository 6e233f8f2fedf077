import Foundation
package import GRDB
import PinSetCore

/// SQL for the trust documents pushed with `PUT /admin/trust` (PROTOCOL §6.3). Rows are never changed.
package enum TrustTable {
    /// One stored trust document.
    package struct Row: Sendable {
        package let version: Int
        package let body: [UInt8]
        package let pushedAt: Date
        package let tokenName: String
    }

    /// Inserts version `version`; fails (constraint) if it exists.
    package static func insert(
        _ db: Database, version: Int, body: [UInt8], issuedAt: Date, expiresAt: Date, pushedAt: Date, tokenName: String
    )
        throws
    {
        try db.execute(
            sql: """
                INSERT INTO trustDocument (version, body, issuedAt, expiresAt, pushedAt, tokenName)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                version, Data(body), StoredTime.seconds(issuedAt), StoredTime.seconds(expiresAt),
                StoredTime.seconds(pushedAt), tokenName,
            ])
    }

    /// Every stored version, oldest first.
    package static func all(_ db: Database) throws -> [Row] {
        try GRDB.Row.fetchAll(db, sql: "SELECT version, body, pushedAt, tokenName FROM trustDocument ORDER BY version")
            .map { row in
                Row(
                    version: row["version"], body: [UInt8](row["body"] as Data),
                    pushedAt: Date(timeIntervalSince1970: TimeInterval(row["pushedAt"] as Int64)),
                    tokenName: row["tokenName"])
            }
    }

    /// The newest stored version, if any.
    package static func newest(_ db: Database) throws -> Row? {
        try GRDB.Row.fetchOne(
            db, sql: "SELECT version, body, pushedAt, tokenName FROM trustDocument ORDER BY version DESC LIMIT 1"
        ).map { row in
            Row(
                version: row["version"], body: [UInt8](row["body"] as Data),
                pushedAt: Date(timeIntervalSince1970: TimeInterval(row["pushedAt"] as Int64)),
                tokenName: row["tokenName"])
        }
    }
}
