import Foundation
internal import GRDB
import PinSetCore

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
        // Conflicting checkpoints signed by a followed log's key (PROTOCOL §7.2): evidence of a fork, never pruned
        // automatically; one row per offered checkpoint text (its cosignatures aside), at most 1,000 per origin.
        migrator.registerMigration("v2-witness-conflicts") { db in
            try db.execute(
                sql: """
                    CREATE TABLE witnessConflict (
                        id INTEGER PRIMARY KEY,
                        origin TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        heldNote BLOB NOT NULL,
                        offeredText BLOB NOT NULL,
                        offeredNote BLOB NOT NULL,
                        proof TEXT NOT NULL,
                        seenAt INTEGER NOT NULL,
                        UNIQUE (origin, offeredText)
                    );
                    """)
        }
        try migrator.migrate(queue)
    }

    /// The most conflicts kept per origin: only the log key's holder can make them, but a disk is finite.
    static let maxConflicts = 1_000

    /// The stored note for `origin`, if any.
    static func note(_ db: Database, origin: String) throws -> [UInt8]? {
        try Data.fetchOne(db, sql: "SELECT note FROM witnessedCheckpoint WHERE origin = ?", arguments: [origin])
            .map { [UInt8]($0) }
    }

    /// Keeps a conflict; `false` when this checkpoint text was kept before (or the origin holds the most).
    static func keepConflict(
        _ db: Database, origin: String, kind: String, held: [UInt8], offeredText: [UInt8], offered: [UInt8],
        proof: String, at: Date
    ) throws -> Bool {
        let count =
            try Int.fetchOne(db, sql: "SELECT count(*) FROM witnessConflict WHERE origin = ?", arguments: [origin])
            ?? 0
        guard count < maxConflicts else { return false }
        try db.execute(
            sql: """
                INSERT INTO witnessConflict (origin, kind, heldNote, offeredText, offeredNote, proof, seenAt)
                VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (origin, offeredText) DO NOTHING
                """,
            arguments: [origin, kind, Data(held), Data(offeredText), Data(offered), proof, StoredTime.seconds(at)])
        return db.changesCount > 0
    }

    /// The conflicts kept for `origin`, newest first.
    func conflicts(origin: String) throws -> [Witness.Conflict] {
        try queue.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT kind, heldNote, offeredNote, proof, seenAt FROM witnessConflict WHERE origin = ?
                    ORDER BY id DESC LIMIT 1000
                    """, arguments: [origin]
            ).map { row in
                Witness.Conflict(
                    origin: origin, kind: Witness.Conflict.Kind(rawValue: row["kind"]) ?? .inconsistent,
                    held: [UInt8](row["heldNote"] as Data), offered: [UInt8](row["offeredNote"] as Data),
                    proof: row["proof"], seenAt: Date(timeIntervalSince1970: TimeInterval(row["seenAt"] as Int64)),
                    isNew: false)
            }
        }
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
