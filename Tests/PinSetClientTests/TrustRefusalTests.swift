import Foundation
import PinSetClient
import PinSetCore
import Testing

/// A client with root key R1 (threshold 1 unless told otherwise) at trust version 1 (delegating A), with the set
/// of example.com signed by A in force; every refusal of PROTOCOL §6.2 is then tried against it.
struct TrustedClient {
    let r1 = TestSigner()
    let r2 = TestSigner()
    let r3 = TestSigner()
    let a = TestSigner()
    let b = TestSigner()
    let server = PathServer()
    let clock = TestClock()
    let store: TrustStore
    let manager: PinTrustManager
    let updater: PinSetUpdater
    let v1: [UInt8]

    /// `threeRoots`: version 1 names R1, R2 and R3 with threshold 2 (signed by R1 and R2); else R1 alone.
    init(threeRoots: Bool = false) throws {
        store = try TrustStore(rootKeys: [r1.trustedKey], threshold: 1)
        manager = PinTrustManager(trustStore: store)
        let clock = clock
        updater = PinSetUpdater(
            configuration: .init(server: URL(string: "https://pins.test")!, hosts: ["example.com"]),
            trustManager: manager, transport: server, clock: { clock() })
        let payload =
            threeRoots
            ? TrustForge.payload(version: 1, roots: [r1, r2, r3], threshold: 2, signing: [a])
            : TrustForge.payload(version: 1, roots: [r1], signing: [a])
        v1 = TrustForge.sign(payload, by: threeRoots ? [r1, r2] : [r1])
        server.serve("/trust", v1)
        server.serve("/trust/1", v1)
        server.serve("/pins/example.com", a.sign(makeSet(version: 5)))
    }

    /// Fetches the set: refused for an unknown kid, which fetches /trust, then accepted.
    func startAtVersion1() async throws {
        let event = await updater.refreshNow(host: "example.com")
        guard case .updated(_, 5) = event else { throw Failure("the set signed by A was not accepted: \(event)") }
        #expect(store.current.version == 1)
    }

    /// Serves `forged` as `/trust` (and `/trust/{version}` per `steps`), refreshes, and checks that nothing changed.
    func refuse(_ forged: [UInt8], steps: [Int: [UInt8]] = [:]) async -> [TrustRejection.Code] {
        let trustBefore = store.current
        let setBefore = manager.pinSet(for: "example.com")
        server.serve("/trust", forged)
        for (version, body) in steps { server.serve("/trust/\(version)", body) }
        let advanced = await updater.refreshTrust()
        #expect(!advanced)
        #expect(store.current == trustBefore, "the trust in force changed")
        #expect(manager.pinSet(for: "example.com") == setBefore, "the set in force changed")
        #expect(manager.document(for: "example.com")?.kid == a.kid)
        return await updater.stopAndCollect().trustRejections
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

@Suite struct TrustRefusalTests {
    @Test func signedByAKeyThatIsNotARoot() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let outsider = TestSigner()
        let forged = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [outsider], signing: [outsider]), by: [outsider])
        #expect(await client.refuse(forged) == [.thresholdNotMet])
    }

    @Test func twoOfThreeRequiredOneGiven() async throws {
        let client = try TrustedClient(threeRoots: true)
        try await client.startAtVersion1()
        #expect(client.store.current.rootThreshold == 2)
        let forged = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r1], signing: [client.b]), by: [client.r1])
        #expect(await client.refuse(forged) == [.thresholdNotMet])
    }

    @Test func theSameKeySigningTwiceCountsOnce() async throws {
        let client = try TrustedClient(threeRoots: true)
        try await client.startAtVersion1()
        let forged = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r1], signing: [client.b]), by: [client.r1, client.r1])
        #expect(await client.refuse(forged) == [.thresholdNotMet])
    }

    @Test func aSkippedVersion() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let v3 = TrustForge.sign(
            TrustForge.payload(version: 3, roots: [client.r1], signing: [client.b]), by: [client.r1])
        // A server that answers /trust/2 with version 3: the walk refuses it.
        #expect(await client.refuse(v3, steps: [2: v3]) == [.versionNotNext])
        // And the pure verifier refuses 1 → 3 directly.
        guard case .failure(let rejection) = TrustDocumentVerifier().verifyNext(v3, after: client.store.current) else {
            Issue.record("version 3 accepted after version 1")
            return
        }
        #expect(rejection.code == .versionNotNext)
    }

    @Test func aRollback() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let v2 = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r1], signing: [client.a]), by: [client.r1])
        client.server.serve("/trust", v2)
        #expect(await client.updater.refreshTrust())
        #expect(client.store.current.version == 2)
        #expect(await client.refuse(client.v1) == [.rollback])
        // The same document handed to the verifier directly is a rollback too.
        guard case .failure(let rejection) = TrustDocumentVerifier().verifyNext(client.v1, after: client.store.current)
        else {
            Issue.record("version 1 accepted over version 2")
            return
        }
        #expect(rejection.code == .rollback)
    }

    @Test func theNewestVersionExpired() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let expired = TrustForge.sign(
            TrustForge.payload(
                version: 2, roots: [client.r1], signing: [client.a],
                issuedAt: testNow.addingTimeInterval(-200 * 86_400),
                expiresAt: testNow.addingTimeInterval(-10 * 86_400)), by: [client.r1])
        #expect(await client.refuse(expired) == [.expired])
    }

    @Test func anExpiredIntermediateVersionIsFine() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let expiredV2 = TrustForge.sign(
            TrustForge.payload(
                version: 2, roots: [client.r1], signing: [client.a],
                issuedAt: testNow.addingTimeInterval(-200 * 86_400),
                expiresAt: testNow.addingTimeInterval(-10 * 86_400)), by: [client.r1])
        let v3 = TrustForge.sign(
            TrustForge.payload(version: 3, roots: [client.r1], signing: [client.a]), by: [client.r1])
        client.server.serve("/trust/2", expiredV2)
        client.server.serve("/trust", v3)
        #expect(await client.updater.refreshTrust())
        #expect(client.store.current.version == 3)
        #expect(client.server.requests.withLock { $0 }.contains("/trust/2"))
    }

    @Test func aNewRootKeyThatDoesNotCoSign() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        // R2 is added with threshold 2 but only R1 signed: R2 never proved it is held.
        let forged = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r1, client.r2], threshold: 2, signing: [client.b]),
            by: [client.r1])
        #expect(await client.refuse(forged) == [.newRootsDidNotSign])
    }

    @Test func overSixtyFourKiB() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let forged = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r1], signing: [client.b]), by: [client.r1], padding: 64 * 1024
        )
        #expect(await client.refuse(forged) == [.tooLarge])
    }

    @Test func anAlgOtherThanEdDSA() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let forged = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r1], signing: [client.b]), by: [client.r1], alg: "HS256")
        #expect(await client.refuse(forged) == [.unsupportedAlgorithm])
    }

    @Test func aWrongTyp() async throws {
        let client = try TrustedClient()
        try await client.startAtVersion1()
        let forged = TrustForge.sign(
            TrustForge.payload(version: 2, roots: [client.r1], signing: [client.b]), by: [client.r1], typ: "pinset+jws")
        #expect(await client.refuse(forged) == [.wrongType])
    }
}
