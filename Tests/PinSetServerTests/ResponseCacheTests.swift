import Foundation
import Locking
import PinSetAdminAPI
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

/// The bounded response cache (`--response-cache`) on a real server: 50 hosts through a cache of 4, so
/// nearly every request evicts another host's answers while libmicrohttpd may still be sending them.
@Suite(.blocking) struct ResponseCacheTests {
    static let hosts = (0..<50).map { "h\($0).cache.example" }

    /// A server keeping the answers of 4 hosts, with the 50 ``hosts`` written in one transaction; their documents.
    private func server() throws -> (TestServer, [String: PublishedDocument]) {
        let server = try TestServer()
        server.stop()
        server.configuration.responseCache = 4
        try server.start()
        let outcomes = try server.app!.service.replaceMany(
            Self.hosts.enumerated().map { index, host in
                (
                    host,
                    SetRequest(pins: [PinInput(sha256: pin(UInt8(index))), PinInput(sha256: pin(200), role: .backup)])
                )
            }, tokenName: "tester")
        return (server, Dictionary(uniqueKeysWithValues: outcomes.map { ($0.document.host, $0.document) }))
    }

    private func builtHosts(_ server: TestServer) throws -> Int? {
        let metrics = try server.client.request("GET", "/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("pinset_response_cache_hosts ") }
        return line.flatMap { Int($0.split(separator: " ")[1]) }
    }

    @Test func everyHostGetsItsExactBytesAndETagThroughASmallCache() throws {
        let (server, documents) = try server()
        for pass in 0..<2 {
            for host in Self.hosts {
                let document = try #require(documents[host])
                let get = try server.client.request("GET", "/pins/\(host)")
                #expect(get.status == 200 && get.body == document.body, "pass \(pass) \(host)")
                #expect(get.header("ETag") == document.etag && get.header("Content-Type") == "application/json")
                let cached = try server.client.request(
                    "GET", "/pins/\(host)", headers: ["If-None-Match": document.etag])
                #expect(cached.status == 304 && cached.body.isEmpty && cached.header("ETag") == document.etag)
                let head = try server.client.request("HEAD", "/pins/\(host)")
                #expect(head.status == 200 && head.header("Content-Length") == String(document.body.count))
            }
        }
        // Not in normal form: the route's slow path answers from the same index.
        let upper = try server.client.request("GET", "/pins/H7.Cache.Example")
        #expect(upper.status == 200 && upper.body == documents["h7.cache.example"]?.body)
        #expect(try builtHosts(server) == 4)
    }

    @Test func aWriteReplacesAHostWhetherItsAnswersAreKeptOrEvicted() throws {
        let (server, documents) = try server()
        let kept = Self.hosts[0]
        let evicted = Self.hosts[1]
        _ = try server.client.request("GET", "/pins/\(evicted)")
        for host in Self.hosts[2..<12] { _ = try server.client.request("GET", "/pins/\(host)") }
        _ = try server.client.request("GET", "/pins/\(kept)")  // kept is among the last 4 asked for
        for host in [kept, evicted] {
            let old = try #require(documents[host])
            let put = try server.put(host, pinPair(77))
            #expect(put.status == 200, "\(put.text)")
            let newETag = try #require(put.header("ETag"))
            #expect(newETag != old.etag)
            let get = try server.client.request("GET", "/pins/\(host)", headers: ["If-None-Match": old.etag])
            #expect(get.status == 200 && get.header("ETag") == newETag, "\(host)")
            #expect(PublishedDocument.etag(for: get.body) == newETag)
            let document = try JSONDecoder().decode(SignedDocument.self, from: Data(get.body))
            let payload = try PinSet.decode(json: Base64URL.decode(document.payload)!)
            #expect(payload.host == host && payload.version == 2)
            let fresh = try server.client.request("GET", "/pins/\(host)", headers: ["If-None-Match": newETag])
            #expect(fresh.status == 304 && fresh.header("ETag") == newETag)
        }
    }

    /// Four clients ask for random hosts (half of them conditionally) while a writer replaces some: every
    /// answer is a whole document of the host asked for, with the ETag of its bytes, never torn or freed memory.
    @Test func concurrentRequestsUnderEvictionNeverGetAWrongBody() throws {
        let (server, documents) = try server()
        let client = server.client
        let failures = Locked<[String]>([])
        let bodies = Locked(documents.mapValues { Set([$0.body]) })
        let rounds = 150
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            var generator = SystemRandomNumberGenerator()
            for round in 0..<rounds {
                if worker == 4 {
                    // The writer: replaces a host now and then (each write is a durable commit).
                    guard round % 10 == 0 else { continue }
                    let host = Self.hosts[round / 10]
                    if let put = try? server.put(host, pinPair(UInt8(round / 10 + 100))), put.status == 200,
                        let body = try? client.request("GET", "/pins/\(host)").body
                    {
                        bodies.withLock { _ = $0[host, default: []].insert(body) }
                    }
                    continue
                }
                let host = Self.hosts[Int.random(in: 0..<Self.hosts.count, using: &generator)]
                let conditional = Bool.random(using: &generator)
                let headers = conditional ? ["If-None-Match": documents[host]!.etag] : [:]
                guard let answer = try? client.request("GET", "/pins/\(host)", headers: headers) else {
                    failures.withLock { $0.append("\(host): no answer") }
                    continue
                }
                let etag = answer.header("ETag") ?? ""
                switch answer.status {
                case 304 where conditional && etag == documents[host]!.etag && answer.body.isEmpty:
                    break
                case 200 where PublishedDocument.etag(for: answer.body) == etag:
                    let decoded = try? JSONDecoder().decode(SignedDocument.self, from: Data(answer.body))
                    let payload = decoded.flatMap { Base64URL.decode($0.payload) }.flatMap {
                        try? PinSet.decode(json: $0)
                    }
                    if payload?.host != host { failures.withLock { $0.append("\(host): a document for another host") } }
                default:
                    failures.withLock {
                        $0.append("\(host): \(answer.status) with ETag \(etag), \(answer.body.count) bytes")
                    }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        for host in Self.hosts {
            let get = try client.request("GET", "/pins/\(host)")
            #expect(get.status == 200 && bodies.withLock { $0[host]?.contains(get.body) } == true, "\(host)")
        }
        #expect(try builtHosts(server) ?? 99 <= 4)
    }
}
