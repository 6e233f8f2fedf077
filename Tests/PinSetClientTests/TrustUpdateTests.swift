import Foundation
import PinSetClient
import PinSetCore
import TestSupport
import Testing

@Suite struct TrustUpdateTests {
    @Test func rootRotationAClientAtVersion1WalksToVersion3() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        // v2 adds R2 and drops R1: both sign (R1 as the root in force, R2 to prove it is held).
        let v2 = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r2], signing: [client.a]), by: [client.r1, client.r2])
        // v3 is signed by R2 alone.
        let v3 = TrustForge.sign(
            TrustForge.payload(version: 3, roots: [client.r2], signing: [client.b]), by: [client.r2])
        client.server.serve("/trust/2", v2)
        client.server.serve("/trust/3", v3)
        client.server.serve("/trust", v3)
        #expect(await client.updater.refreshTrust())
        let state = client.store.current
        #expect(state.version == 3)
        #expect(state.rootKeys == [client.r2.trustedKey])
        #expect(Set(state.signingKeys.keys) == [client.b.kid])
        // R1 alone can no longer sign the next version.
        let byOldRoot = TrustForge.sign(
            TrustForge.payload(version: 4, roots: [client.r1], signing: [client.a]), by: [client.r1])
        guard case .failure(let rejection) = TrustDocumentVerifier().verifyNext(byOldRoot, after: state) else {
            Issue.record("the dropped root R1 signed version 4 alone and it was accepted")
            return
        }
        #expect(rejection.code == .thresholdNotMet)
        // The pure walk agrees with the updater.
        let walked = TrustDocumentVerifier().walk([client.v1, v2, v3], from: client.store.shipped, now: testNow)
        #expect((try? walked.get())?.version == 3)
    }

    @Test func aDroppedSigningKeyMakesItsHostsRefetchAtOnce() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let v2 = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r1], signing: [client.b]), by: [client.r1])
        client.server.serve("/trust", v2)
        client.server.serve("/pins/example.com", client.b.sign(makeSet(version: 5, issuedAt: testNow)))
        #expect(await client.updater.refreshTrust())
        #expect(client.manager.document(for: "example.com")?.kid == client.b.kid)
        let events = await client.updater.stopAndCollect()
        #expect(
            events.contains { if case .trustUpdated(2, let dropped) = $0 { dropped == [client.a.kid] } else { false } })
        #expect(
            events.contains { if case .signingKeyDropped("example.com", client.a.kid) = $0 { true } else { false } })
    }

    @Test func theOldSetStaysInForceUntilAListedKeySignsAReplacement() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let before = client.manager.pinSet(for: "example.com")
        let v2 = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r1], signing: [client.b]), by: [client.r1])
        client.server.serve("/trust", v2)
        // The server still serves A's document: refused (unknown kid), and the old set stays.
        #expect(await client.updater.refreshTrust())
        #expect(client.manager.pinSet(for: "example.com") == before)
        #expect(client.manager.document(for: "example.com")?.kid == client.a.kid)
        // A fresh document signed by A is now refused.
        let fresh = client.a.sign(makeSet(version: 6, issuedAt: testNow))
        guard case .failure(let rejection) = client.manager.accept(fresh, for: "example.com", now: testNow) else {
            Issue.record("a document signed by the dropped key A was accepted")
            return
        }
        #expect(rejection.code == .unknownKey)
    }

    @Test func freezeProtectionOnceTheTrustDocumentExpired() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let before = client.manager.pinSet(for: "example.com")
        let later = testNow.addingTimeInterval(100 * 86_400)
        let fresh = client.a.sign(makeSet(version: 6, issuedAt: later, expiresAt: later.addingTimeInterval(86_400)))
        guard case .failure(let rejection) = client.manager.accept(fresh, for: "example.com", now: later) else {
            Issue.record("a document signed by a delegated key was accepted after the trust document expired")
            return
        }
        #expect(rejection.code == .trustExpired)
        #expect(client.manager.pinSet(for: "example.com") == before)
        // Through the updater: the rejection fetches /trust, which offers nothing newer; still frozen.
        client.clock.advance(100 * 86_400)
        client.server.serve("/pins/example.com", fresh)
        guard case .rejected(_, let refused) = await client.updater.refreshNow(host: "example.com") else {
            Issue.record("the frozen client accepted the document")
            return
        }
        #expect(refused.code == .trustExpired)
        #expect(client.manager.pinSet(for: "example.com") == before)
    }

    @Test(.blocking) func keysShippedDirectlyKeepWorkingBesideRootKeys() throws {
        let shipped = TestSigner()
        let root = TestSigner()
        let store = try TrustStore(rootKeys: [root.trustedKey])
        let manager = PinTrustManager(trustStore: store, trustedKeys: [shipped.trustedKey])
        // No trust document at all (version 0), and long after any trust document would have expired.
        let later = testNow.addingTimeInterval(400 * 86_400)
        let document = shipped.sign(makeSet(version: 1, issuedAt: later, expiresAt: later.addingTimeInterval(86_400)))
        #expect((try? manager.accept(document, for: "example.com", now: later).get())?.kid == shipped.kid)
    }

    @Test func theTrustChainIsPersistedAndVerifiedAgainAfterARestart() async throws {
        let directory = try makeTemporaryDirectory()
        let storage = PinStorage(directory: directory)
        let r1 = TestSigner()
        let a = TestSigner()
        let b = TestSigner()
        let server = PathServer()
        let v1 = TrustForge.sign(TrustForge.payload(version: 1, roots: [r1], signing: [a]), by: [r1])
        let v2 = TrustForge.sign(TrustForge.payload(version: 2, roots: [r1], signing: [b]), by: [r1])
        server.serve("/trust/1", v1)
        server.serve("/trust", v2)
        server.serve("/pins/example.com", b.sign(makeSet(version: 3)))
        func makeUpdater() throws -> (TrustStore, PinTrustManager, PinSetUpdater) {
            let store = try TrustStore(rootKeys: [r1.trustedKey])
            let manager = PinTrustManager(trustStore: store)
            let updater = PinSetUpdater(
                configuration: .init(server: URL(string: "https://pins.test")!, hosts: ["example.com"]),
                trustManager: manager, transport: server, storage: storage, clock: { testNow })
            return (store, manager, updater)
        }
        let (store1, _, updater1) = try makeUpdater()
        guard case .updated(_, 3) = await updater1.refreshNow(host: "example.com") else {
            Issue.record("the set signed by B was not accepted")
            return
        }
        #expect(store1.current.version == 2)
        _ = await updater1.stopAndCollect()
        #expect(FileManager.default.fileExists(atPath: storage.trustFileURL(version: 1).path))
        #expect(FileManager.default.fileExists(atPath: storage.trustFileURL(version: 2).path))

        // A new process: the chain is walked again from the shipped root, then the set signed by B loads.
        server.serve("/trust", nil)
        let (store2, manager2, updater2) = try makeUpdater()
        await updater2.loadPersisted()
        #expect(store2.current.version == 2)
        #expect(manager2.document(for: "example.com")?.kid == b.kid)
        // An older trust document offered later is a rollback.
        server.serve("/trust", v1)
        #expect(!(await updater2.refreshTrust()))
        #expect(store2.current.version == 2)
        let events = await updater2.stopAndCollect()
        #expect(events.contains { if case .trustLoaded(2) = $0 { true } else { false } })
        #expect(events.trustRejections == [.rollback])
    }

    @Test(.blocking) func aBundledTrustDocumentIsAcceptedWithoutCheckingTime() throws {
        let r1 = TestSigner()
        let a = TestSigner()
        let old = TrustForge.sign(
            TrustForge.payload(
                version: 4, roots: [r1], signing: [a], issuedAt: testNow.addingTimeInterval(-400 * 86_400),
                expiresAt: testNow.addingTimeInterval(-200 * 86_400)), by: [r1])
        let store = try TrustStore(bundledDocument: old)
        #expect(store.current.version == 4)
        #expect(store.current.signingKeys[a.kid] != nil)
        // A bundled document its own roots did not sign is refused.
        let outsider = TestSigner()
        let unsigned = TrustForge.sign(TrustForge.payload(version: 4, roots: [r1], signing: [a]), by: [outsider])
        #expect(throws: TrustRejection.self) { try TrustStore(bundledDocument: unsigned) }
    }

    @Test func oneUpdateWalksAtMostOneThousandVersions() async throws {
        let root = TestSigner()
        let a = TestSigner()
        let server = PathServer()
        for version in 1...1_002 {
            server.serve(
                "/trust/\(version)",
                TrustForge.sign(TrustForge.payload(version: version, roots: [root], signing: [a]), by: [root]))
        }
        server.serve("/trust", server.bodies.withLock { $0["/trust/1002"] })
        let store = try TrustStore(rootKeys: [root.trustedKey])
        let updater = PinSetUpdater(
            configuration: .init(server: URL(string: "https://pins.test")!, hosts: []),
            trustManager: PinTrustManager(trustStore: store), transport: server, clock: { testNow })
        #expect(await updater.refreshTrust())
        #expect(store.current.version == 1_000)
        #expect(!server.requests.withLock { $0 }.contains("/trust/1001"))
        // The next update goes on from there.
        #expect(await updater.refreshTrust())
        #expect(store.current.version == 1_002)
        _ = await updater.stopAndCollect()
    }

    /// PROTOCOL §6.2: the version in force with other bytes, validly signed, is equivocation: refused, the trust in
    /// force kept, both documents handed to the application. Garbage with the same version number is just malformed.
    @Test func anotherDocumentWithTheVersionInForceIsEquivocation() async throws {
        let r1 = TestSigner()
        let a = TestSigner()
        let rogue = TestSigner()
        let server = PathServer()
        let honest = TrustForge.sign(TrustForge.payload(version: 1, roots: [r1], signing: [a]), by: [r1])
        let other = TrustForge.sign(TrustForge.payload(version: 1, roots: [r1], signing: [rogue]), by: [r1])
        server.serve("/trust", honest)
        let store = try TrustStore(rootKeys: [r1.trustedKey])
        let updater = PinSetUpdater(
            configuration: .init(server: URL(string: "https://pins.test")!, hosts: ["example.com"]),
            trustManager: PinTrustManager(trustStore: store), transport: server, clock: { testNow })
        #expect(await updater.refreshTrust())
        #expect(store.current.version == 1)
        // The same bytes again: nothing changes, nothing is reported.
        #expect(!(await updater.refreshTrust()))
        server.serve("/trust", other)
        #expect(!(await updater.refreshTrust()))
        #expect(store.current.document == honest)
        #expect(store.current.signingKeys[rogue.kid] == nil)
        server.serve("/trust", Array(honest.dropLast(3)) + Array("xx}".utf8))
        #expect(!(await updater.refreshTrust()))
        let events = await updater.stopAndCollect()
        let reported = events.compactMap { event -> ([UInt8], [UInt8])? in
            if case .trustEquivocation(1, let inForce, let offered) = event { (inForce, offered) } else { nil }
        }
        #expect(reported.count == 1)
        #expect(reported.first?.0 == honest && reported.first?.1 == other)
        #expect(events.trustRejections.first == .equivocation)
        #expect(events.trustRejections.count == 2)
        #expect(events.trustRejections.last != .equivocation)
    }
}
