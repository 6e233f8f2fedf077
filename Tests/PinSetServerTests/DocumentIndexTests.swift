import Foundation
import TestSupport
import Testing

@testable import MicroHTTPD
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

/// The response cache itself (``ResponseClock``), without a server: the bound, the CLOCK order, and what a
/// replaced or evicted resource's responses keep alive.
@Suite(.blocking) struct ResponseClockTests {
    private let template = ResponseTemplate(
        contentType: "application/json", cacheControl: "max-age=1", extraHeaders: [])

    private func resource(_ n: Int, version: Int = 1) -> ResourceBytes {
        ResourceBytes.make(key: "h\(n)".utf8, etag: "\"e\(n)\"".utf8, body: "body \(n)".utf8, version: version)
    }

    /// Looks `resource` up the way ``ResourceIndex`` does: a hit, or a build stored in the cache.
    private func serve(_ clock: inout ResponseClock, _ resource: ResourceBytes, notModified: Bool = false)
        -> PreparedResponse
    {
        if let hit = clock.response(of: resource, notModified: notModified) { return hit }
        return clock.store(
            template.response(resource, notModified: notModified), of: resource, notModified: notModified
        )
        .serve
    }

    @Test func keepsAtMostItsCapacityAndReusesWhatItKeeps() {
        var clock = ResponseClock(capacity: 4)
        let resources = (0..<50).map { resource($0) }
        for resource in resources {
            let ok = serve(&clock, resource)
            let notModified = serve(&clock, resource, notModified: true)
            #expect(ok.status == 200 && notModified.status == 304)
            let again = serve(&clock, resource)
            #expect(serve(&clock, resource) === again, "a kept answer is reused, not rebuilt")
            #expect(serve(&clock, resource, notModified: true) === serve(&clock, resource, notModified: true))
            #expect(clock.count <= 4)
        }
        #expect(clock.count == 4)
        #expect(resources.filter { $0.cacheSlot >= 0 }.count == 4)
    }

    @Test func aResourceUsedSinceTheLastSweepSurvivesOneThatWasNot() {
        var clock = ResponseClock(capacity: 2)
        let (a, b, c) = (resource(1), resource(2), resource(3))
        _ = serve(&clock, a)
        _ = serve(&clock, b)
        _ = serve(&clock, a)  // a hit: a's bit is set
        _ = serve(&clock, c)  // the cache is full: c is turned away once
        #expect(c.cacheSlot == ResourceBytes.notCached && b.cacheSlot >= 0)
        _ = serve(&clock, c)  // and twice
        #expect(c.cacheSlot == ResourceBytes.notCached && b.cacheSlot >= 0)
        _ = serve(&clock, c)  // asked again soon: let in; the hand passes a (clearing its bit) and evicts b
        #expect(a.cacheSlot >= 0 && c.cacheSlot >= 0)
        #expect(b.cacheSlot == ResourceBytes.notCached)
    }

    /// Requests that each ask for another host once (a scan, or uniformly random hosts over far more hosts than
    /// fit) are answered without evicting the hosts that are asked for again and again.
    @Test func hostsAskedForOnceDoNotEvictTheOnesAskedForOften() {
        var clock = ResponseClock(capacity: 4)
        let kept = (0..<4).map { resource($0) }
        for resource in kept { _ = serve(&clock, resource) }
        let answers = kept.map { serve(&clock, $0) }
        for n in 100..<1_100 {
            #expect(serve(&clock, resource(n)).status == 200)
            if n % 3 == 0 { _ = serve(&clock, kept[n % 4]) }
        }
        #expect(zip(kept, answers).allSatisfy { serve(&clock, $0) === $1 })
        #expect(clock.count == 4)
    }

    @Test func concurrentBuildsOfOneResourceAgreeOnOneResponse() {
        var clock = ResponseClock(capacity: 4)
        let a = resource(1)
        let first = clock.store(template.ok(a), of: a, notModified: false).serve
        let second = clock.store(template.ok(a), of: a, notModified: false).serve
        #expect(first === second)
    }

    @Test func aRetiredResourceIsNeverCachedAgain() {
        var clock = ResponseClock(capacity: 4)
        let a = resource(1)
        _ = serve(&clock, a)
        #expect(clock.retire(a) != nil && clock.count == 0)
        _ = serve(&clock, a)
        #expect(a.cacheSlot == ResourceBytes.retired && clock.count == 0)
    }

    @Test func nothingIsKeptWithCapacityZero() {
        var clock = ResponseClock(capacity: 0)
        let a = resource(1)
        #expect(serve(&clock, a).status == 200)
        #expect(clock.count == 0 && a.cacheSlot == ResourceBytes.notCached)
    }

    /// libmicrohttpd may still be sending a response after it was evicted (or its resource replaced): the
    /// response keeps the stored bytes alive until libmicrohttpd destroys it.
    @Test func anEvictedResponseKeepsItsBytesAlive() {
        var clock = ResponseClock(capacity: 1)
        weak var stored: ResourceBytes?
        var response: PreparedResponse?
        do {
            let a = resource(1)
            stored = a
            response = serve(&clock, a)
        }
        let b = resource(2)
        _ = serve(&clock, b)  // turned away once
        _ = serve(&clock, b)  // and twice
        _ = serve(&clock, b)  // let in: evicts a's responses
        #expect(stored != nil, "the evicted response still needs the bytes")
        #expect(response?.status == 200)
        response = nil
        #expect(stored == nil, "the bytes go with the last response")
    }
}
