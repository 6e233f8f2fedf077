import Foundation
import GRDB
import PinSetAdminAPI
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

/// Issue 41: downgrades refused, stored documents checked against their hashes, files replaced under the store.
@Suite(.blocking) struct StorageSafetyTests {
    @Test func storedDocumentCheckAcceptsEveryETagAndRefusesAChangedByte() {
        for size in [0, 1, 2, 3, 17, 700, 4_096] {
            var body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ size) }
            let etag = PublishedDocument.etag(for: body)
            #expect(StoredDocumentCheck.matches(body: body, etag: etag))
            guard size > 0 else { continue }
            body[size / 2] ^= 0x01
            #expect(!StoredDocumentCheck.matches(body: body, etag: etag))
        }
        #expect(!StoredDocumentCheck.matches(body: [1, 2, 3], etag: "\"short\""))
    }

    @Test func aDatabaseWithAMigrationFromTheFutureIsRefusedNamingBothVersions() throws {
        let f = try ServiceFixture()
        _ = try f.service.replace(host: "a.example", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        try f.store.close()
        let queue = try DatabaseQueue(path: f.databasePath)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        try queue.close()
        let error = expectServiceError { try PinDatabase(path: f.databasePath) }
        #expect(error?.code == .incompatibleDatabase)
        #expect(error?.detail.contains("v99-from-the-future") == true)
        #expect(error?.detail.contains(PinDatabase.migrator.migrations.last!) == true)
        // Refusing changed nothing: the rows are still there, and without the future step it opens again.
        let reopened = try DatabaseQueue(path: f.databasePath)
        try reopened.write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v99-from-the-future'")
        }
        try reopened.close()
        f.store = try PinDatabase(path: f.databasePath)
        #expect(try PublishedDocuments.load(store: f.store).map(\.host) == ["a.example"])
    }

    @Test func pinsetMarksItsDatabasesAndRefusesAnotherProgramsFile() throws {
        let f = try ServiceFixture()
        #expect(try f.store.pool.read { db in try Int32.fetchOne(db, sql: "PRAGMA application_id") } == 0x5049_4E53)
        try f.store.close()
        let queue = try DatabaseQueue(path: f.databasePath)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA application_id = 42") }
        try queue.close()
        let error = expectServiceError { try PinDatabase(path: f.databasePath) }
        #expect(error?.code == .incompatibleDatabase)
        let fixed = try DatabaseQueue(path: f.databasePath)
        try fixed.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA application_id = 0") }
        try fixed.close()
        f.store = try PinDatabase(path: f.databasePath)
    }

    @Test(arguments: ["-shm", "-wal", ""])
    func aFileReplacedUnderTheStoreRefusesWritesAndKeepsWhatWasAcknowledged(suffix: String) throws {
        let f = try ServiceFixture()
        var acknowledged: [String: Int] = [:]
        for index in 0..<20 {
            let host = "h\(index).example"
            acknowledged[host] = try f.service.replace(
                host: host, request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t"
            ).detail.version
        }
        let file = f.databasePath + suffix
        if suffix.isEmpty {
            // A careless restore: another file renamed over the database.
            let other = f.directory.appendingPathComponent("other.sqlite").path
            try Data("not the database".utf8).write(to: URL(fileURLWithPath: other))
            #expect(rename(other, file) == 0)
        } else {
            try FileManager.default.removeItem(atPath: file)
        }
        let error = expectServiceError {
            try f.service.replace(
                host: "late.example", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        }
        #expect(error?.code == .storageReplaced)
        #expect(error?.status == 503)
        #expect(error?.detail.contains(file) == true)
        #expect(f.store.health.problem?.kind == .fileReplaced)
        #expect(expectServiceError { try f.service.createToken(name: "late") }?.code == .storageReplaced)
        guard !suffix.isEmpty else { return }
        // The -wal or -shm is gone: the store checkpointed the WAL it still holds, so another process opening the
        // file anew (as a restart after kill -9 does) finds every acknowledged write.
        let rows = String(
            decoding: try sh("sqlite3 '\(f.databasePath)' 'SELECT name, version FROM host'", in: f.directory),
            as: UTF8.self)
        let stored = rows.split(separator: "\n").reduce(into: [String: Int]()) { stored, line in
            let fields = line.split(separator: "|")
            stored[String(fields[0])] = Int(fields[1])
        }
        #expect(stored == acknowledged)
    }
}
