import Foundation
import GRDB
import OpenSSLCrypto
import TestSupport
import Testing
import TransparencyLog

@testable import PinSetLogServer
@testable import PinSetServer
@testable import PinSetStorage

/// The `v12-log-leaf-hash-index` step (issue 36 item 6): start-up reads the log's leaf hashes from a covering index
/// instead of walking every entry's body, on a database made before the step as on a new one.
@Suite(.blocking) struct LogEntryIndexMigrationTests {
    /// The query ``LogTable/forEachLeafHash(_:from:_:)`` runs (start-up's preload and load).
    static let leafHashQuery = "SELECT leafIndex, leafHash FROM logEntry WHERE leafIndex >= ? ORDER BY leafIndex"

    /// Every row of every table the step could touch, in a fixed order, to compare before and after.
    static func contents(_ db: Database) throws -> [String: [Row]] {
        var tables: [String: [Row]] = [:]
        for (table, order) in [
            ("host", "id"), ("document", "hostId"), ("logEntry", "leafIndex"), ("logCheckpoint", "treeSize"),
        ] {
            tables[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY \(order)")
        }
        return tables
    }

    @Test func aDatabaseFromBeforeTheStepGetsTheIndexAndKeepsEveryByte() throws {
        let directory = try makeTemporaryDirectory("pinset-log-index")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("pinset.sqlite").path
        let signer = try NoteSigner(name: LogServer.origin, type: .ed25519, key: Ed25519SigningKey.generate())
        // A database as the server before this step left it: three hosts, 300 log entries and a checkpoint.
        let before: [String: [Row]]
        do {
            let pool = try DatabasePool(path: path)
            try PinDatabase.migrator.migrate(pool, upTo: "v11-log-forks")
            let log = try LogState(origin: LogServer.origin, signer: signer, crypto: crypto)
            try pool.write { db in
                for id in 1...3 {
                    try UnloggedDocumentsTests.insertLegacyHost(db, id: id, logIndex: id - 1)
                }
                log.didCommit(try log.append((0..<300).map { Array("entry \($0)".utf8) }, in: db))
                _ = try log.signCheckpoint(in: db, at: Date())
            }
            before = try pool.read { db in try Self.contents(db) }
            #expect(try pool.read { db in try db.indexes(on: "logEntry") }.isEmpty)
            try pool.close()
        }
        #expect(before["logEntry"]?.count == 300 && before["logCheckpoint"]?.count == 1)

        let store = try PinDatabase(path: path)
        defer { try? store.close() }
        try store.pool.read { db in
            #expect(try db.indexes(on: "logEntry").map(\.name) == ["logEntryLeafHash"])
            #expect(
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").last == "v12-log-leaf-hash-index"
            )
            #expect(try Self.contents(db) == before)
            // The preload and the load read the index only (SQLite's plan says so), from the start or from a leaf.
            for first in [0, 250] {
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + Self.leafHashQuery, arguments: [first])
                    .map { $0["detail"] as String }
                #expect(plan.count == 1 && plan[0].contains("COVERING INDEX logEntryLeafHash"), "\(plan)")
            }
        }
        // The stored checkpoint still matches the stored entries, read with the preload as at start-up.
        let restarted = try LogState(origin: LogServer.origin, signer: signer, crypto: crypto)
        try store.pool.read { db in
            try restarted.preload(from: db)
            try restarted.load(from: db)
        }
        #expect(restarted.treeSize == 300 && restarted.checkpoint != nil)
    }

    @Test func thePreloadStillRefusesAGapAndTheLoadThenReadsEverythingItself() throws {
        let server = try LogServer(logKey: Ed25519SigningKey.generate(), witnesses: [])
        try server.write((0..<40).map { "entry \($0)" })
        _ = try server.sign()
        try server.store.pool.write { db in try db.execute(sql: "DELETE FROM logEntry WHERE leafIndex = 17") }
        let restarted = try LogState(origin: LogServer.origin, signer: server.signer, crypto: crypto)
        #expect(throws: LogError.self) { try server.store.pool.read { db in try restarted.preload(from: db) } }
        #expect(throws: LogError.self) { try server.store.pool.read { db in try restarted.load(from: db) } }
    }
}
