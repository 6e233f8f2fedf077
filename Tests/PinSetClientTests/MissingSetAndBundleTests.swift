import Foundation
import PinSetClient
import PinSetCore
import Testing

/// A host the app is configured to pin but holds no set for is its own outcome (issue 18), and bundled
/// documents are checked like persisted ones.
@Suite struct MissingSetAndBundleTests {
    let signer = TestSigner()
    let chain = testChain.map(\.der)

    @Test func aConfiguredHostWithoutASetIsRefusedByDefault() {
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        manager.expectSets(for: ["Example.COM"])
        #expect(
            manager.evaluate(chain: chain, host: "example.com", now: testNow)
                == .setMissing(host: "example.com", allowed: false))
        // A host nobody configured is still merely unpinned.
        #expect(
            manager.evaluate(chain: chain, host: "other.example", now: testNow)
                == .hostNotPinned(host: "other.example", allowed: true))
        // Once a set is in force, it decides.
        _ = manager.accept(
            signer.sign(makeSet(pins: [.spki(testChain[0]), randomPin()])), for: "example.com", now: testNow)
        #expect(manager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
    }

    @Test func theAppMayAllowAConfiguredHostWithoutASet() {
        let manager = PinTrustManager(
            verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]), options: PinningOptions(missingSets: .allow))
        manager.expectSets(for: ["example.com"])
        let decision = manager.evaluate(chain: chain, host: "example.com", now: testNow)
        #expect(decision == .setMissing(host: "example.com", allowed: true))
        #expect(decision.allowsConnection)
    }

    @Test func theUpdaterDeclaresItsHosts() {
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        _ = PinSetUpdater(
            configuration: .init(server: URL(string: "https://pins.test")!, hosts: ["api.example.com"]),
            trustManager: manager)
        #expect(!manager.evaluate(chain: chain, host: "api.example.com", now: testNow).allowsConnection)
    }

    @Test func bundledDocumentsAreCheckedButNotForTime() throws {
        let directory = try makeTemporaryDirectory()
        let pins = directory.appendingPathComponent("pins")
        try FileManager.default.createDirectory(at: pins, withIntermediateDirectories: true)
        // Expired long ago: still installed, as a stale set.
        let expired = makeSet(
            host: "old.example.com", issuedAt: testNow.addingTimeInterval(-90 * 86_400),
            expiresAt: testNow.addingTimeInterval(-60 * 86_400))
        try Data(signer.sign(expired)).write(to: pins.appendingPathComponent("old.example.com"))
        // Signed by a key the app does not trust.
        try Data(TestSigner().sign(makeSet(host: "rogue.example.com"))).write(
            to: pins.appendingPathComponent("rogue.example.com"))
        // Another host's document under this name.
        try Data(signer.sign(makeSet(host: "a.example.com"))).write(to: pins.appendingPathComponent("b.example.com"))

        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        let outcomes = manager.installBundledDocuments(directory: directory)
        #expect(manager.pinSet(for: "old.example.com")?.version == 5)
        guard case .failure(let unknown) = outcomes["rogue.example.com"],
            case .failure(let mismatch) = outcomes["b.example.com"]
        else {
            Issue.record("expected refusals, got \(outcomes)")
            return
        }
        #expect(unknown.code == .unknownKey)
        #expect(mismatch.code == .hostMismatch)
        #expect(manager.pinnedHosts == ["old.example.com"])

        // A bundled document older than the set in force is a rollback.
        _ = manager.accept(
            signer.sign(makeSet(host: "new.example.com", version: 9)), for: "new.example.com", now: testNow)
        try Data(signer.sign(makeSet(host: "new.example.com", version: 3))).write(
            to: pins.appendingPathComponent("new.example.com"))
        guard case .failure(let rollback) = manager.installBundledDocuments(directory: directory)["new.example.com"]
        else {
            Issue.record("an older bundled document replaced a newer set")
            return
        }
        #expect(rollback.code == .rollback)
        #expect(manager.pinSet(for: "new.example.com")?.version == 9)
    }
}
