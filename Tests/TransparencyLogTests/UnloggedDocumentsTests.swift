import Foundation
import GRDB
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

/// Which pin documents start-up logs (PROTOCOL §7.1): those whose `logIndex` is NULL. A new document's is, until its
/// entry is recorded; the `v10-unlogged-documents` step clears it where an older server rewrote a document and left
/// the index of an entry with other bytes.
@Suite(.blocking) struct UnloggedDocumentsTests {
    @Test func documentsRewrittenBeforeTheRuleAreUnloggedAfterIt() throws {
        let directory = try makeTemporaryDirectory("pinset-unlogged")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("pinset.sqlite").path
        // A database as the server before this step left it: host 1 logged as entry 0, host 2 rewritten while the
        // log was off (entry 1 holds its old bytes), host 3 never logged.
        do {
            let pool = try DatabasePool(path: path)
            try PinDatabase.migrator.migrate(pool, upTo: "v9-log-fork-reports")
            try pool.write { db in
                for id in 1...3 {
                    try Self.insertLegacyHost(db, id: id, logIndex: id == 3 ? nil : id - 1)
                }
                for (index, body) in ["document 1", "document 2, before"].enumerated() {
                    try db.execute(
                        sql: "INSERT INTO logEntry (leafIndex, leafHash, body) VALUES (?, ?, ?)",
                        arguments: [index, Data(repeating: 0, count: 32), Data(body.utf8)])
                }
            }
        }
        let store = try PinDatabase(path: path)
        defer { try? store.close() }
        let unlogged = try store.pool.read { db in try ServedLogIndexTable.unloggedHosts(db, after: 0, limit: 10) }
        #expect(unlogged.map(\.id) == [2, 3])
        #expect(unlogged.map(\.body) == [Array("document 2".utf8), Array("document 3".utf8)])
        #expect(try store.pool.read { db in try ServedLogIndexTable.unloggedHosts(db, after: 2, limit: 10) }.count == 1)
        #expect(try store.pool.read { db in try ServedLogIndexTable.unloggedHosts(db, after: 0, limit: 1) }.count == 1)
        // Recording their entries takes them off the list.
        try store.pool.write { db in
            try ServedLogIndexTable.setHost(db, hostId: 2, leafIndex: 2)
            try db.execute(sql: "UPDATE document SET logIndex = 0 WHERE hostId = 3")
        }
        #expect(try store.pool.read { db in try ServedLogIndexTable.unloggedHosts(db, after: 0, limit: 10) }.isEmpty)
    }
}

extension UnloggedDocumentsTests {
    /// Inserts host `id` (`h<id>.example`, version 1) and its document (`document <id>`, `logIndex`) with the
    /// columns of the schema before `v10` (a database an older server left).
    static func insertLegacyHost(_ db: Database, id: Int, logIndex: Int?) throws {
        try db.execute(
            sql: """
                INSERT INTO host (id, name, version, includeSubdomains, enforce, createdAt, updatedAt)
                VALUES (?, ?, 1, 0, 1, 0, 0)
                """, arguments: [id, "h\(id).example"])
        try db.execute(
            sql: """
                INSERT INTO document (hostId, version, body, etag, kid, issuedAt, expiresAt, logIndex)
                VALUES (?, 1, ?, '"e"', 'k', 0, 0, ?)
                """, arguments: [id, Data("document \(id)".utf8), logIndex])
    }
}
