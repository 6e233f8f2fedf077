import Foundation
internal import GRDB

/// A witness's own SQLite file: for each log origin, the newest checkpoint it cosigned (C2SP tlog-witness).
final class WitnessStore: Sendable {
    private let queue: DatabaseQueue

    /// Opens (creating if needed) the file at `path` and applies the schema.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        queue = try DatabaseQueue(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-witness") { db in
            try db.execute(
                sql: """
                    CREATE TABLE witnessedCheckpoint (
                        origin TEXT PRIMARY KEY,
                        treeSize INTEGER NOT NULL CHECK (treeSize >= 0),
                        rootHash BLOB NOT NULL CHECK (length(rootHash) = 32),
                        note BLOB NOT NULL,
                        updatedAt INTEGER NOT NULL
                    );
                    """)
        }
        try migrator.migrate(queue)
    }

    /// The stored size and root for `origin`, if any.
    struct Latest {
        let size: Int
        let rootHash: [UInt8]
    }

    /// Runs `body` in one write transaction: reading the latest checkpoint and storing the next are atomic,
    /// as the spec requires (no request can roll another one's size back).
    func update<T>(_ body: (Database) throws -> T) throws -> T {
        try queue.write(body)
    }

    static func latest(_ db: Database, origin: String) throws -> Latest? {
        try Row.fetchOne(
            db, sql: "SELECT treeSize, rootHash FROM witnessedCheckpoint WHERE origin = ?", arguments: [origin]
        )
        .map { Latest(size: $0["treeSize"], rootHash: [UInt8]($0["rootHash"] as Data)) }
    }

    static func save(_ db: Database, origin: String, size: Int, rootHash: [UInt8], note: [UInt8], at: Date) throws {
        try db.execute(
            sql: """
                INSERT INTO witnessedCheckpoint (origin, treeSize, rootHash, note, updatedAt) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (origin) DO UPDATE SET treeSize = excluded.treeSize, rootHash = excluded.rootHash,
                    note = excluded.note, updatedAt = excluded.updatedAt
                """,
            arguments: [origin, size, Data(rootHash), Data(note), StoredTime.seconds(at)])
    }

    /// The stored note (log signature and this witness's cosignature) of the log whose origin hashes to `hash`.
    func note(originHash hash: String, crypto: (String) -> String) throws -> [UInt8]? {
        try queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT origin, note FROM witnessedCheckpoint")
            return rows.first { crypto($0["origin"]) == hash }.map { [UInt8]($0["note"] as Data) }
        }
    }
}
