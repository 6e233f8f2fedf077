import Foundation
import TestSupport
import Testing

@testable import PinSetStorage

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 41's file watch on a real SQLite file: with the server's watch on (an inotify queue for the folder, one
/// `stat` of the database path), every change the three-`stat` watch saw is still seen, and changes to other files
/// in the folder cost no `stat`.
@Suite(.blocking) struct DatabaseFilesTests {
    /// A fresh store in a temporary folder, watched as the server watches it.
    private static func watchedStore() throws -> (PinDatabase, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try PinDatabase(path: folder.appendingPathComponent("db.sqlite").path)
        store.watchContent()
        return (store, folder)
    }

    @Test func otherFilesInTheFolderAreNotAChangeButADeletedShmIsAndStaysOne() throws {
        let (store, folder) = try Self.watchedStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(store.files.changed() == nil)
        // A backup written beside the database, then removed: events, but not about the database's names.
        let other = folder.appendingPathComponent("backup.sqlite")
        try Data("x".utf8).write(to: other)
        try FileManager.default.removeItem(at: other)
        #expect(store.files.changed() == nil)
        try FileManager.default.removeItem(atPath: store.path + "-shm")
        #expect(store.files.changed()?.file == store.path + "-shm")
        #expect(store.files.changed()?.what == "deleted")
    }

    @Test func aWalRenamedOverAndADatabaseRenamedOverAreSeen() throws {
        let (store, folder) = try Self.watchedStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let other = folder.appendingPathComponent("other").path
        try Data("not a wal".utf8).write(to: URL(fileURLWithPath: other))
        #expect(rename(other, store.path + "-wal") == 0)
        #expect(store.files.changed()?.file == store.path + "-wal")
        #expect(store.files.changed()?.what == "replaced by another file")

        let (second, secondFolder) = try Self.watchedStore()
        defer { try? FileManager.default.removeItem(at: secondFolder) }
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: other))
        #expect(rename(other, second.path) == 0)
        #expect(second.files.changed()?.file == second.path)
    }

    @Test func aChangeBeforeTheWatchStartedIsSeenByItsFirstLook() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try PinDatabase(path: folder.appendingPathComponent("db.sqlite").path)
        // Recorded at open; deleted before the queue exists, so no event will ever say so.
        try FileManager.default.removeItem(atPath: store.path + "-shm")
        store.watchContent()
        #expect(store.files.changed()?.file == store.path + "-shm")
    }

    @Test func theFolderQueueTellsTheNamesItWatchesAndTheFolderMovingAway() throws {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)")
        let folder = parent.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let events = try #require(FolderEvents(folder: folder.path, names: ["db.sqlite-wal"]))
        #expect(!events.arrived())
        try Data().write(to: folder.appendingPathComponent("unrelated"))
        #expect(!events.arrived())
        try Data().write(to: folder.appendingPathComponent("db.sqlite-wal"))
        #expect(events.arrived())
        #expect(!events.arrived())
        #expect(rename(folder.path, parent.appendingPathComponent("moved").path) == 0)
        #expect(events.arrived())
    }
}
