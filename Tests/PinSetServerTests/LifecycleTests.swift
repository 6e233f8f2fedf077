import Foundation
import OpenSSLCrypto
import PinSetCore
import Synchronization
import TestSupport
import Testing

@Suite(.blocking) struct LifecycleTests {
    @Test func restartKeepsDocumentsAndVersions() throws {
        let server = try TestServer()
        _ = try server.put("a.example.com", pinPair(1))
        _ = try server.put("a.example.com", pinPair(2))
        _ = try server.put("b.example.com", pinPair(3))
        let before = try ["a", "b"].map { try server.client.request("GET", "/pins/\($0).example.com").body }
        server.stop()
        try server.start()
        let after = try ["a", "b"].map { try server.client.request("GET", "/pins/\($0).example.com").body }
        #expect(before == after, "startup serves the stored bytes, it does not re-sign")
        let next = try server.put("a.example.com", pinPair(4))
        #expect((try next.json())["version"] as? Int == 3)
    }

    @Test func restartServesTheSameETagsAndAnswers304() throws {
        let server = try TestServer()
        let hosts = (0..<40).map { "host-\($0).a-name-longer-than-fifteen-bytes.example" }
        for (i, host) in hosts.enumerated() { _ = try server.put(host, pinPair(UInt8(i))) }
        let before = try hosts.map { try server.client.request("GET", "/pins/\($0)") }
        server.stop()
        try server.start()
        for (host, old) in zip(hosts, before) {
            let get = try server.client.request("GET", "/pins/\(host)")
            #expect(get.status == 200 && get.body == old.body && get.header("ETag") == old.header("ETag"))
            #expect(get.header("Content-Type") == "application/json")
            #expect(get.header("Cache-Control") == "public, max-age=3600")
            let etag = try #require(old.header("ETag"))
            let cached = try server.client.request("GET", "/pins/\(host)", headers: ["If-None-Match": etag])
            #expect(cached.status == 304 && cached.body.isEmpty && cached.header("ETag") == etag)
            #expect(cached.header("Cache-Control") == "public, max-age=3600")
        }
    }

    @Test func documentsAreReSignedBeforeExpiry() throws {
        let server = try TestServer(lifetime: 600, resignAfter: 1, resignCheck: 0.2)
        _ = try server.put("api.example.com", pinPair())
        let first = try server.client.request("GET", "/pins/api.example.com")
        let firstPayload = try payload(first.body)
        var second = first
        for _ in 0..<40 where second.header("ETag") == first.header("ETag") {
            Thread.sleep(forTimeInterval: 0.25)
            second = try server.client.request("GET", "/pins/api.example.com")
        }
        let secondPayload = try payload(second.body)
        #expect(second.header("ETag") != first.header("ETag"))
        #expect(secondPayload.version == firstPayload.version)
        #expect(secondPayload.issuedAt > firstPayload.issuedAt)
        #expect(secondPayload.expiresAt > firstPayload.expiresAt)
        #expect(secondPayload.pins == firstPayload.pins)
    }

    @Test func readersNeverSeeAHalfWrittenOrOlderDocument() throws {
        let server = try TestServer()
        _ = try server.put("api.example.com", pinPair(0))
        let publicKey = try Ed25519SigningKey.load(pemFile: server.keyPath).publicKey
        let client = server.client
        let shared = SharedState()
        // Each worker gets its own thread: a busy reader must never keep the writer from being scheduled.
        let group = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread {
                body(); group.leave()
            }.start()
        }
        for _ in 0..<3 {
            spawn {
                var lastVersion = 0
                while !shared.stop.load(ordering: .relaxed) {
                    do {
                        let response = try client.request("GET", "/pins/api.example.com")
                        let set = try payload(response.body, verifyingWith: publicKey)
                        if set.version < lastVersion {
                            shared.failures.withLock { $0.append("version went back \(lastVersion)→\(set.version)") }
                        }
                        lastVersion = set.version
                        shared.reads.add(1, ordering: .relaxed)
                    } catch {
                        shared.failures.withLock { $0.append("unreadable or unverifiable document: \(error)") }
                    }
                }
            }
        }
        spawn {
            defer { shared.stop.store(true, ordering: .relaxed) }
            for round in 1...40 {
                guard (try? server.put("api.example.com", pinPair(UInt8(round))))?.status == 200 else {
                    shared.failures.withLock { $0.append("write \(round) failed") }
                    return
                }
            }
        }
        group.wait()
        #expect(shared.failures.withLock { $0 }.isEmpty, "\(shared.failures.withLock { $0 })")
        #expect(shared.reads.load(ordering: .relaxed) > 40)
        #expect(try payload(try server.client.request("GET", "/pins/api.example.com").body).version == 41)
    }
}

final class SharedState: Sendable {
    let stop = Atomic<Bool>(false)
    let failures = Mutex<[String]>([])
    let reads = Atomic<Int>(0)
}

/// Decodes a served document's payload, after checking its signature when a public key is given.
func payload(_ body: [UInt8], verifyingWith publicKey: [UInt8]? = nil) throws -> PinSet {
    let document = try JSONDecoder().decode(SignedDocument.self, from: Data(body))
    if let publicKey, let signature = Base64URL.decode(document.signature),
        !Ed25519.verify(signature: signature, message: document.signingInput, publicKey: publicKey)
    {
        throw PinSetError(.invalidDocument, "signature does not verify")
    }
    guard let bytes = Base64URL.decode(document.payload) else { throw PinSetError(.invalidDocument, "payload") }
    return try PinSet.decode(json: bytes)
}
