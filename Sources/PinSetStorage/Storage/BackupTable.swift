import Foundation
package import GRDB

/// SQL for backups: the read-only questions ``BackupCheck`` asks a copy, and the copy's switch to a single-file
/// journal (``DatabaseBackup``).
package enum BackupTable {
    /// One host's row with its current document, if it has one.
    package struct HostDocument {
        package var host: String
        package var version: Int
        package var body: [UInt8]?
        package var kid: String?
    }

    /// SQLite's integrity check (at most 20 problems); `["ok"]` when the file is sound.
    package static func integrityCheck(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "PRAGMA integrity_check(20)")
    }

    /// Whether the tables every pinset database has exist.
    package static func hasPinSetTables(_ db: Database) throws -> Bool {
        try db.tableExists("grdb_migrations") && db.tableExists("host") && db.tableExists("document")
    }

    /// The identifiers of every migration the file records.
    package static func migrationIdentifiers(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
    }

    /// Every listed signing key: (kid, raw Ed25519 public key).
    package static func signingKeys(_ db: Database) throws -> [(kid: String, publicKey: [UInt8])] {
        try Row.fetchAll(db, sql: "SELECT kid, publicKey FROM signingKey").map {
            (kid: $0["kid"], publicKey: [UInt8]($0["publicKey"] as Data))
        }
    }

    /// Every host with its current document, by name.
    package static func hostDocuments(_ db: Database) throws -> [HostDocument] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT h.name, h.version, d.body, d.kid
                FROM host h LEFT JOIN document d ON d.hostId = h.id ORDER BY h.name
                """
        ).map {
            HostDocument(
                host: $0["name"], version: $0["version"], body: ($0["body"] as Data?).map { [UInt8]($0) },
                kid: $0["kid"])
        }
    }

    /// How many tokens are not revoked.
    package static func activeTokenCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM adminToken WHERE revokedAt IS NULL") ?? 0
    }

    /// How many trust documents are stored (0 in a database from before they existed).
    package static func trustDocumentCount(_ db: Database) throws -> Int {
        try db.tableExists("trustDocument") ? Int.fetchOne(db, sql: "SELECT count(*) FROM trustDocument") ?? 0 : 0
    }

    /// Switches a copy of a WAL database to a rollback journal, so the copy is one self-contained file.
    package static func useSingleFileJournal(_ db: Database) throws {
        _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
    }
}
