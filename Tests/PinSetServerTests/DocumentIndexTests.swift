import Foundation
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
