import Foundation
import GRDB
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

/// ``BackupCheck`` and ``DatabaseBackup`` in process, on real SQLite files: the schema rules and a document that
/// does not match its host row.
@Suite(.blocking) struct BackupCheckTests {
    @Test func backupOfALiveServerPassesAndSchemaProblemsAreRefused() throws {
        let server = try TestServer()
        #expect(try server.put("api.example.com", pinPair()).status == 201)
        let copy = server.directory.appendingPathComponent("copy/backup.sqlite").path
        let report = try DatabaseBackup.run(from: server.configuration.databasePath, to: copy)
        #expect(report.verifiedDocuments == 1 && report.hosts == 1 && report.keys == 1)
        #expect(report.migrations == PinDatabase.migrator.migrations && report.pendingMigrations.isEmpty)

        // A migration this pinset does not know: made by a newer pinset.
        let newer = server.directory.appendingPathComponent("newer.sqlite").path
        try FileManager.default.copyItem(atPath: copy, toPath: newer)
        let queue = try DatabaseQueue(path: newer)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')") }
        try queue.close()
        #expect(throws: BackupError.self) { try BackupCheck.run(path: newer) }
        do {
            _ = try BackupCheck.run(path: newer)
        } catch {
            #expect(error.code == .schema && error.detail.contains("v99-future"))
        }

        // An SQLite file that is not a pinset database.
        let other = server.directory.appendingPathComponent("other.sqlite").path
        let otherQueue = try DatabaseQueue(path: other)
        try otherQueue.write { db in try db.execute(sql: "CREATE TABLE t (x); INSERT INTO t VALUES (1)") }
        try otherQueue.close()
        do {
            _ = try BackupCheck.run(path: other)
            Issue.record("a non-pinset database passed")
        } catch {
            #expect(error.code == .schema)
        }

        // A document whose payload is for another version than its host row says.
        let mismatched = server.directory.appendingPathComponent("mismatched.sqlite").path
        try FileManager.default.copyItem(atPath: copy, toPath: mismatched)
        let mismatchQueue = try DatabaseQueue(path: mismatched)
        try mismatchQueue.write { db in try db.execute(sql: "UPDATE host SET version = version + 1") }
        try mismatchQueue.close()
        do {
            _ = try BackupCheck.run(path: mismatched)
            Issue.record("a mismatched document passed")
        } catch {
            #expect(error.code == .documents && error.detail.contains("api.example.com"))
        }

        // A failed check never replaces the target.
        #expect(throws: BackupError.self) { try DatabaseBackup.run(from: mismatched, to: copy) }
        #expect(try BackupCheck.run(path: copy).verifiedDocuments == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: server.directory.appendingPathComponent("copy").path)
        #expect(leftovers == ["backup.sqlite"])
    }
}
