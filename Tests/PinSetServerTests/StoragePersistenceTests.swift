import Foundation
import GRDB
import OpenSSLCrypto
import PinSetAdminAPI
import PinSetCore
import Synchronization
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

@Suite(.blocking) struct StoragePersistenceTests {
    @Test func everyConnectionIsDurableWALWithForeignKeys() throws {
        let f = try ServiceFixture()
        #expect(f.store.isHealthy())
        let reader = try f.store.pool.read { db in
            [try Int.fetchOne(db, sql: "PRAGMA synchronous"), try Int.fetchOne(db, sql: "PRAGMA foreign_keys")]
        }
        #expect(reader == [2, 1])
        let writer = try f.store.pool.write { db in
            [try Int.fetchOne(db, sql: "PRAGMA synchronous"), try Int.fetchOne(db, sql: "PRAGMA foreign_keys")]
        }
        #expect(writer == [2, 1])
        #expect(try f.store.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
        let applied = try f.store.pool.read { db in try PinDatabase.migrator.appliedIdentifiers(db) }
        #expect(applied.contains("v1-initial"))
    }

    @Test func restartKeepsDocumentsVersionsHistoryAndTokens() throws {
        let f = try ServiceFixture()
        _ = try f.service.replace(host: "a.example", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        _ = try f.service.addPins(
            host: "a.example", request: PinsRequest(pins: [pin(.future)]), ifMatch: nil, tokenName: "t")
        _ = try f.service.replace(
            host: "b.example", request: SetRequest(pins: [pin()], enforce: false), ifMatch: nil, tokenName: "t")
        let token = try f.service.createToken(name: "ops")
        let before = try PublishedDocuments.load(store: f.store)
        let detailBefore = try f.service.detail(host: "a.example")
        let historyBefore = try f.service.history(host: "a.example")

        try f.reopen()
        let after = try PublishedDocuments.load(store: f.store)
        #expect(after == before)
        #expect(after.map(\.version) == [2, 1])
        #expect(after.map(\.body) == before.map(\.body))
        #expect(try f.service.detail(host: "a.example") == detailBefore)
        #expect(try f.service.history(host: "a.example") == historyBefore)
        #expect(f.service.authenticate(bearer: token) == "ops")
        // Versions continue after a restart.
        #expect(try f.service.retire(host: "a.example", ifMatch: detailBefore.etag, tokenName: "t").detail.version == 3)
    }

    @Test func unopenableDatabaseIsAnUnavailableError() throws {
        let error = expectServiceError { try PinDatabase(path: "/proc/pinset-cannot-exist/db.sqlite") }
        #expect(error?.code == .unavailable)
        #expect(error?.detail.contains("SQLITE") == false)
    }

    @Test func closedStoreIsNotHealthy() throws {
        let f = try ServiceFixture()
        try f.store.close()
        #expect(!f.store.isHealthy())
        let error = expectServiceError { try f.service.hosts() }
        #expect(error?.code == .storage && error?.status == 500)
        f.store = try PinDatabase(path: f.databasePath)
    }

    /// While start-up's integrity check runs, a write waits (nothing is written into a file it has not passed);
    /// once it passes the write goes on; once it found damage every write is refused with a 503 saying so.
    @Test func heldWritesWaitForTheIntegrityCheckAndAreRefusedWhenItFails() throws {
        let f = try ServiceFixture()
        f.store.holdWrites()
        let service = f.service
        let written = DispatchSemaphore(value: 0)
        let outcome = Mutex<Int?>(nil)
        Thread.detachNewThread {
            let write = Result {
                try service.replace(
                    host: "a.example", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
            }
            outcome.withLock { $0 = (try? write.get())?.detail.version }
            written.signal()
        }
        #expect(written.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(try f.store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM host") } == 0)
        f.store.openWrites()
        #expect(written.wait(timeout: .now() + 10) == .success)
        #expect(outcome.withLock { $0 } == 1)

        let g = try ServiceFixture()
        g.store.holdWrites()
        g.store.refuseWrites("the database x is damaged")
        let error = expectServiceError { try g.service.createToken(name: "late") }
        #expect(error?.status == 503 && error?.detail == "the database x is damaged")
    }

    /// `docker run` then `docker exec ... token create` (docs/CONFIGURATION.md): two openers migrate one new file at
    /// once. GRDB reads the applied steps once, then runs each in its own transaction, so the slower opener ran a step
    /// the other had just committed ("table pinReportDay already exists") and the server did not start.
    @Test func twoOpenersOfANewFileBothMigrateIt() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("pinset-race-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let failures = Mutex<[String]>([])
        for round in 0..<12 {
            let path = directory.appendingPathComponent("\(round).sqlite").path
            DispatchQueue.concurrentPerform(iterations: 2) { _ in
                do {
                    let store = try PinDatabase(path: path)
                    try store.close()
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            let store = try PinDatabase(path: path)
            let applied = try store.pool.read { db in try PinDatabase.migrator.appliedMigrations(db) }
            #expect(applied == PinDatabase.migrator.migrations)
            try store.close()
        }
        #expect(failures.withLock { $0 } == [])
    }
}
