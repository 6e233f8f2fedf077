import Foundation
import PinSetClient
import PinSetCore
import Testing

/// Issue 38 item 6: `stopPinning` never overrides `unpinnedHosts: .deny`; compiled sets follow the version rules
/// of signed ones; and item 5's DEBUG-only extra root.
@Suite struct ClientHazardTests {
    let signer = TestSigner()
    let chain = testChain.map(\.der)

    @Test func aStaleSetThatStopsPinningIsStillDeniedWhenUnpinnedHostsAre() throws {
        let stale = makeSet(
            pins: [randomPin(role: .current), randomPin()], issuedAt: testNow.addingTimeInterval(-20 * 86_400),
            expiresAt: testNow.addingTimeInterval(-10 * 86_400))
        for (unpinned, allowed) in [(PinningOptions.UnpinnedHostPolicy.deny, false), (.allow, true)] {
            let manager = PinTrustManager(
                verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]),
                options: PinningOptions(unpinnedHosts: unpinned, staleSetPolicy: .stopPinning))
            _ = try manager.installTrusted(document: signer.sign(stale), for: "example.com").get()
            #expect(
                manager.evaluate(chain: chain, host: "example.com", now: testNow)
                    == .hostNotPinned(host: "example.com", allowed: allowed))
        }
    }

    @Test func aCompiledSetNeverBlocksASignedOne() throws {
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        // A compiled set with a high version: the next signed document (version 6) is not a rollback.
        #expect(manager.installCompiled(pinSet: makeSet(version: 1000, pins: [randomPin(role: .current)])))
        #expect(!manager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
        let signed = try manager.accept(
            signer.sign(makeSet(version: 6, pins: [.spki(testChain[0])])), for: "example.com", now: testNow
        ).get()
        #expect(signed.pinSet.version == 6)
        #expect(manager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
        // A compiled set never replaces a signed one, whatever its version; persisted documents load over it.
        #expect(!manager.installCompiled(pinSet: makeSet(version: 2000, pins: [randomPin(role: .current)])))
        #expect(manager.pinSet(for: "example.com")?.version == 6)
        let other = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        #expect(other.installCompiled(pinSet: makeSet(version: 1000)))
        _ = try other.installTrusted(document: signer.sign(makeSet(version: 3)), for: "example.com").get()
        #expect(other.pinSet(for: "example.com")?.version == 3)
        // Between compiled sets, the newer one wins.
        #expect(other.installCompiled(pinSet: makeSet(host: "code.example", version: 2)))
        #expect(!other.installCompiled(pinSet: makeSet(host: "code.example", version: 1)))
    }

    #if DEBUG
        @Test func theDebugRootOverridesThePinsInDebugBuildsOnly() {
            let manager = PinTrustManager(
                verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]),
                options: PinningOptions(unpinnedHosts: .deny))
            manager.installCompiled(pinSet: makeSet(pins: [randomPin(role: .current)]))
            #expect(!manager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
            manager.debugTrustExtraRoot(der: testChain[2].der)
            let decision = manager.evaluate(chain: chain, host: "example.com", now: testNow)
            #expect(decision == .trusted(pin: .spki(testChain[2]), notedHost: "example.com"))
            // A chain without that root is still refused.
            #expect(!manager.evaluate(chain: [chain[0]], host: "example.com", now: testNow).allowsConnection)
        }
    #endif
}
