import Foundation
import GRDB
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

@Suite(.blocking) struct DocumentIndexTests {
    private func document(_ host: String, version: Int = 1, body: String? = nil) -> PublishedDocument {
        PublishedDocument(
            host: host, version: version, body: Array((body ?? #"{"doc":"\#(host)","v":\#(version)}"#).utf8),
            kid: "kid", issuedAt: Date(timeIntervalSince1970: 0), expiresAt: Date(timeIntervalSince1970: 1))
    }

    private func body(_ snapshot: DocumentIndex, _ host: String) -> String? {
        snapshot.document(host).map { String(decoding: $0.body, as: UTF8.self) }
    }

    @Test func manyHostsWithLongNamesAreFoundByTheirBytes() {
        let snapshot = DocumentIndex(maxAge: 60)
        let hosts = (0..<2_000).map { "host-number-\($0).a-rather-long-zone.example" }
        snapshot.publish(hosts.map { document($0) })
        #expect(snapshot.count == hosts.count)
        for host in hosts {
            #expect(body(snapshot, host) == #"{"doc":"\#(host)","v":1}"#)
            #expect(
                snapshot.document(host)?.etag == PublishedDocument.etag(for: Array(#"{"doc":"\#(host)","v":1}"#.utf8)))
            #expect(snapshot.contains(host))
        }
        #expect(body(snapshot, "host-number-1.a-rather-long-zone.exampl") == nil)
        #expect(body(snapshot, "host-number-1.a-rather-long-zone.examplee") == nil)
        #expect(body(snapshot, "") == nil)
    }

    @Test func anOlderVersionNeverReplacesANewerOne() {
        let snapshot = DocumentIndex(maxAge: 60)
        snapshot.publish([document("a.example", version: 2)])
        snapshot.publish([document("a.example", version: 1)])
        #expect(snapshot.document("a.example")?.version == 2)
        snapshot.publish([document("a.example", version: 3)])
        #expect(snapshot.document("a.example")?.version == 3)
        #expect(snapshot.count == 1)
        let copy = snapshot.resource("a.example")
        #expect(copy?.version == 3 && copy?.body == document("a.example", version: 3).body)
        #expect(copy?.etag == document("a.example", version: 3).etag)
    }
}

/// The start-up load (``DocumentIndex/load(from:)``) from a real SQLite file, over several of its batches: every
/// sound document served, every damaged one named and not served.
@Suite(.blocking) struct DocumentIndexLoadTests {
    @Test func loadsEveryDocumentAcrossBatchesAndNamesTheDamagedOnes() throws {
        let fixture = try ServiceFixture()
        let hosts = (0..<9_000).map { "h\($0).load.example" }
        for start in stride(from: 0, to: hosts.count, by: 1_000) {
            _ = try fixture.service.replaceMany(
                hosts[start..<start + 1_000].map { ($0, ServiceFixture.validSet()) }, tokenName: "tester")
        }
        // One damaged document in the first batch, two in later ones (the reading thread hands over 4,096 at once).
        let damaged = ["h17.load.example", "h5000.load.example", "h8999.load.example"]
        try fixture.store.serializedWrite { db in
            for host in damaged {
                try db.execute(
                    sql: """
                        UPDATE document SET body = CAST(replace(CAST(body AS TEXT), 'ey', 'eX') AS BLOB)
                        WHERE hostId = (SELECT id FROM host WHERE name = ?)
                        """, arguments: [host])
            }
        }
        let snapshot = DocumentIndex(maxAge: 60)
        let loaded = try snapshot.load(from: fixture.store)
        #expect(loaded.hosts == hosts.count - damaged.count)
        #expect(loaded.damaged == damaged.sorted())
        #expect(loaded.storeCPUSeconds > 0)
        #expect(loaded.newestIssuedAt == (try fixture.store.read { db in try HostRecords.newestIssuedAt(db) }))
        #expect(loaded.newestIssuedAt != nil)
        for host in damaged {
            #expect(!snapshot.contains(host) && snapshot.isDamaged(host))
        }
        for host in ["h0.load.example", "h4095.load.example", "h4096.load.example", "h8998.load.example"] {
            let served = try #require(snapshot.document(host), "\(host)")
            #expect(served.etag == PublishedDocument.etag(for: served.body))
            #expect(!snapshot.isDamaged(host))
        }
    }

    /// The load reads the host name, ETag and body as three columns straight from SQLite: an empty body (SQLite
    /// hands over no buffer at all) or an empty ETag is a damaged document, named, never a crash or a document
    /// served; a body stored as text (the same bytes) is served as it is.
    @Test func emptyOrRetypedColumnsAreDamagedDocuments() throws {
        let fixture = try ServiceFixture()
        let hosts = (0..<5).map { "h\($0).columns.example" }
        _ = try fixture.service.replaceMany(hosts.map { ($0, ServiceFixture.validSet()) }, tokenName: "tester")
        try fixture.store.serializedWrite { db in
            for (host, change) in [
                ("h1.columns.example", "body = X''"), ("h2.columns.example", "etag = ''"),
                ("h3.columns.example", "body = CAST(body AS TEXT)"),
            ] {
                try db.execute(
                    sql: "UPDATE document SET \(change) WHERE hostId = (SELECT id FROM host WHERE name = ?)",
                    arguments: [host])
            }
        }
        let snapshot = DocumentIndex(maxAge: 60)
        let loaded = try snapshot.load(from: fixture.store)
        #expect(loaded.damaged == ["h1.columns.example", "h2.columns.example"])
        #expect(loaded.hosts == 3)
        let stored = try fixture.store.read { db in
            try String.fetchOne(
                db,
                sql:
                    "SELECT typeof(body) FROM document WHERE hostId = (SELECT id FROM host WHERE name = 'h3.columns.example')"
            )
        }
        #expect(stored == "text")
        for host in ["h0.columns.example", "h3.columns.example", "h4.columns.example"] {
            let served = try #require(snapshot.document(host), "\(host)")
            #expect(served.etag == PublishedDocument.etag(for: served.body))
            #expect(served.version == 1)
        }
    }
}
