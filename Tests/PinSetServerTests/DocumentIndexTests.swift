import Foundation
import Testing

@testable import MicroHTTPD
@testable import PinSetServer

@Suite struct DocumentIndexTests {
    private func document(_ host: String, version: Int = 1, body: String? = nil) -> PublishedDocument {
        PublishedDocument(
            host: host, version: version, body: Array((body ?? #"{"doc":"\#(host)","v":\#(version)}"#).utf8),
            kid: "kid", issuedAt: Date(timeIntervalSince1970: 0), expiresAt: Date(timeIntervalSince1970: 1))
    }

    private func lookup(_ snapshot: DocumentIndex, _ host: String) -> CachedResource? {
        snapshot.resource(host)
    }

    private func body(_ entry: CachedResource?) -> String? {
        entry.map { String(decoding: $0.body, as: UTF8.self) }
    }

    @Test func manyHostsWithLongNamesAreFoundByTheirBytes() {
        let snapshot = DocumentIndex(maxAge: 60)
        let hosts = (0..<2_000).map { "host-number-\($0).a-rather-long-zone.example" }
        snapshot.publish(hosts.map { document($0) })
        #expect(snapshot.count == hosts.count)
        for host in hosts {
            let entry = lookup(snapshot, host)
            #expect(body(entry) == #"{"doc":"\#(host)","v":1}"#)
            #expect(entry?.etag == PublishedDocument.etag(for: Array(#"{"doc":"\#(host)","v":1}"#.utf8)))
            #expect(snapshot.resource(host) === entry)
        }
        #expect(lookup(snapshot, "host-number-1.a-rather-long-zone.exampl") == nil)
        #expect(lookup(snapshot, "host-number-1.a-rather-long-zone.examplee") == nil)
        #expect(lookup(snapshot, "") == nil)
    }

    @Test func anOlderVersionNeverReplacesANewerOne() {
        let snapshot = DocumentIndex(maxAge: 60)
        snapshot.publish([document("a.example", version: 2)])
        snapshot.publish([document("a.example", version: 1)])
        #expect(lookup(snapshot, "a.example")?.version == 2)
        snapshot.publish([document("a.example", version: 3)])
        #expect(lookup(snapshot, "a.example")?.version == 3)
        #expect(snapshot.count == 1)
    }

    @Test func responsesAreBuiltOnceThenReused() throws {
        let snapshot = DocumentIndex(maxAge: 60)
        snapshot.publish([document("a.example")])
        let entry = try #require(lookup(snapshot, "a.example"))
        let ok = entry.okResponse
        let notModified = entry.notModifiedResponse
        #expect(ok.status == 200 && notModified.status == 304)
        #expect(entry.okResponse === ok)
        #expect(entry.notModifiedResponse === notModified)
    }

    @Test func concurrentFirstRequestsAgreeOnOneResponse() async throws {
        let snapshot = DocumentIndex(maxAge: 60)
        snapshot.publish([document("a.example")])
        let entry = try #require(lookup(snapshot, "a.example"))
        let built = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<16 {
                group.addTask { ObjectIdentifier(entry.okResponse) }
            }
            return await Set(group.reduce(into: []) { $0.append($1) })
        }
        #expect(built.count == 1)
    }

    /// libmicrohttpd may still be sending a response after a write replaced its entry: the response keeps
    /// the stored bytes alive until libmicrohttpd destroys it.
    @Test func aResponseKeepsItsBytesAliveAfterItsEntryIsReplaced() throws {
        let snapshot = DocumentIndex(maxAge: 60)
        snapshot.publish([document("a.example", version: 1)])
        weak var stored: AnyObject?
        var response: PreparedResponse?
        do {
            let entry = try #require(lookup(snapshot, "a.example"))
            stored = entry.bytes
            response = entry.okResponse
        }
        snapshot.publish([document("a.example", version: 2)])
        #expect(stored != nil, "the old response still needs the old bytes")
        #expect(response?.status == 200)
        response = nil
        #expect(stored == nil, "the bytes go with the last response")
    }
}
