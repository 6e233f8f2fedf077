import Foundation
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

/// One error mapping (issue 17 item 1): a constraint that a concurrent write broke first is a `409`, not a 500.
@Suite(.blocking) struct ConstraintRaceTests {
    @Test func aConstraintViolationIsAConflict() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pinset-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try PinDatabase(path: directory.appendingPathComponent("pinset.sqlite").path)
        let insert = """
            INSERT INTO host (name, version, includeSubdomains, enforce, createdAt, updatedAt)
            VALUES ('race.example.com', 1, 0, 1, 0, 0)
            """
        try store.serializedWrite { db in try db.execute(sql: insert) }
        do {
            // What the loser of two simultaneous creations of one host runs into.
            try store.serializedWrite { db in try db.execute(sql: insert) }
            Issue.record("the duplicate insert succeeded")
        } catch {
            #expect(error.code == .conflict)
            #expect(error.status == 409)
            #expect(!error.detail.contains("UNIQUE"), "SQLite details stay in the log")
        }
    }
}
