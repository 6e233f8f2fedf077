import Foundation
import PinSetClient
import PinSetCore
import Synchronization
import TestSupport
import Testing

/// Evaluation rules of PROTOCOL §5: policy lookup, chain positions, pin types, expiry, options.
@Suite struct PinTrustManagerTests {
    let signer = TestSigner()
    let chain = testChain.map(\.der)

    func manager(
        _ sets: [PinSet], options: PinningOptions = PinningOptions(),
        onPinFailure: (@Sendable (PinFailure) -> Void)? = nil
    ) -> PinTrustManager {
        let manager = PinTrustManager(
            verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]), options: options, onPinFailure: onPinFailure)
        for set in sets {
            if case .failure(let rejection) = manager.accept(signer.sign(set), for: set.host, now: testNow) {
                Issue.record("setup document refused: \(rejection)")
            }
        }
        return manager
    }

    @Test(.blocking, arguments: [0, 1, 2])
    func anyPositionOfTheChainMatches(position: Int) {
        let manager = manager([makeSet(pins: [.spki(testChain[position]), randomPin()])])
        let decision = manager.evaluate(chain: chain, host: "example.com", now: testNow)
        #expect(decision == .trusted(pin: .spki(testChain[position]), notedHost: "example.com"))
    }

    @Test(.blocking) func certificatePinsMatchTheWholeDERNotTheKey() throws {
        let certificatePin = Pin(
            sha256: SPKIPin.sha256(ofWholeCertificateDER: chain[1]), type: .certificate, role: .current)
        let manager = manager([makeSet(pins: [certificatePin, randomPin()])])
        #expect(
            manager.evaluate(chain: chain, host: "example.com", now: testNow)
                == .trusted(pin: certificatePin, notedHost: "example.com"))
        // The SPKI hash given as a certificate pin does not match, and vice versa.
        let wrongType = Pin(sha256: testChain[0].opensslSPKIPin, type: .certificate, role: .current)
        let wrongType2 = Pin(sha256: SPKIPin.sha256(ofWholeCertificateDER: chain[0]), type: .spki, role: .backup)
        let strict = self.manager([makeSet(pins: [wrongType, wrongType2])])
        #expect(!strict.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
    }

    @Test(.blocking) func mismatchCarriesTheChainPinsAndTheExpectedOnes() throws {
        let failures = Mutex<[PinFailure]>([])
        let expected = [randomPin(role: .current), randomPin()]
        let manager = manager(
            [makeSet(pins: expected)], onPinFailure: { failure in failures.withLock { $0.append(failure) } })
        let decision = manager.evaluate(chain: chain, host: "example.com", now: testNow)
        guard case .pinMismatch(let failure) = decision else {
            Issue.record("expected a mismatch, got \(decision)")
            return
        }
        #expect(!decision.allowsConnection)
        #expect(failure.chainPins == testChain.map { $0.opensslSPKIPin })
        #expect(failure.expectedPins == expected)
        #expect(failure.notedHost == "example.com" && failure.enforce && failure.version == 5)
        #expect(failure.chainPEM.count == 3 && failure.chainPEM[0].hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        let report = failure.report(port: 8443)
        #expect(report.knownPins == expected.map { "pin-sha256=\"\($0.sha256)\"" })
        #expect(failures.withLock { $0.count } == 1)
    }

    @Test(.blocking) func reportOnlySetLetsTheConnectionThrough() {
        let manager = manager([makeSet(enforce: false)])
        let decision = manager.evaluate(chain: chain, host: "example.com", now: testNow)
        guard case .reportOnlyMismatch(let failure) = decision else {
            Issue.record("expected report-only, got \(decision)")
            return
        }
        #expect(decision.allowsConnection)
        #expect(!failure.enforce)
    }

    @Test(.blocking) func subdomainResolution() {
        let parent = makeSet(host: "example.com", pins: [.spki(testChain[0]), randomPin()], includeSubdomains: true)
        let child = makeSet(host: "api.example.com", pins: [randomPin(role: .current), randomPin()])
        let noSubs = makeSet(host: "other.org", pins: [.spki(testChain[0]), randomPin()], includeSubdomains: false)
        let manager = manager([parent, child, noSubs])
        // The host's own set wins over its parent.
        #expect(!manager.evaluate(chain: chain, host: "api.example.com", now: testNow).allowsConnection)
        // Deeper names fall back to the nearest parent with includeSubdomains.
        let deep = manager.evaluate(chain: chain, host: "a.b.cdn.example.com", now: testNow)
        #expect(deep == .trusted(pin: .spki(testChain[0]), notedHost: "example.com"))
        // api.example.com has no includeSubdomains: v1.api.example.com goes on up to example.com.
        #expect(manager.evaluate(chain: chain, host: "v1.api.example.com", now: testNow).allowsConnection)
        // A parent without includeSubdomains does not cover its children.
        #expect(
            manager.evaluate(chain: chain, host: "www.other.org", now: testNow)
                == .hostNotPinned(host: "www.other.org", allowed: true))
        // Case and trailing dot are normalised.
        #expect(manager.evaluate(chain: chain, host: "WWW.Example.COM.", now: testNow).allowsConnection)
        // Suffix tricks: notexample.com is not below example.com.
        #expect(
            manager.evaluate(chain: chain, host: "notexample.com", now: testNow)
                == .hostNotPinned(host: "notexample.com", allowed: true))
    }

    @Test(.blocking) func expiredPinsAreIgnored() {
        let pins = [Pin.spki(testChain[0], expiresAt: testNow.addingTimeInterval(60)), randomPin()]
        let manager = manager([makeSet(pins: pins)])
        #expect(manager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
        let later = testNow.addingTimeInterval(61)
        guard case .pinMismatch(let failure) = manager.evaluate(chain: chain, host: "example.com", now: later) else {
            Issue.record("an expired pin still matched")
            return
        }
        #expect(failure.expectedPins == [pins[1]])
    }

    @Test(.blocking) func unpinnedHostsAllowedByDefaultDeniedOnRequest() {
        let allow = manager([makeSet()])
        #expect(
            allow.evaluate(chain: chain, host: "unknown.net", now: testNow)
                == .hostNotPinned(host: "unknown.net", allowed: true))
        let deny = manager([makeSet()], options: PinningOptions(unpinnedHosts: .deny))
        let decision = deny.evaluate(chain: chain, host: "unknown.net", now: testNow)
        #expect(decision == .hostNotPinned(host: "unknown.net", allowed: false))
        #expect(!decision.allowsConnection)
    }

    @Test(.blocking) func retiredSetUnpinsTheHost() {
        let manager = manager([makeSet(version: 5, pins: [randomPin(role: .current), randomPin()])])
        #expect(!manager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
        _ = manager.accept(signer.sign(makeSet(version: 6, pins: [])), for: "example.com", now: testNow)
        #expect(
            manager.evaluate(chain: chain, host: "example.com", now: testNow)
                == .hostNotPinned(host: "example.com", allowed: true))
    }

    @Test(.blocking) func staleSetKeepsEnforcingByDefaultOrStopsPinning() {
        let set = makeSet(pins: [randomPin(role: .current), randomPin()])
        let weekLater = testNow.addingTimeInterval(7 * 86_400)
        let keep = manager([set])
        #expect(!keep.evaluate(chain: chain, host: "example.com", now: weekLater).allowsConnection)
        let stop = manager([set], options: PinningOptions(staleSetPolicy: .stopPinning))
        #expect(!stop.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
        #expect(
            stop.evaluate(chain: chain, host: "example.com", now: weekLater)
                == .hostNotPinned(host: "example.com", allowed: true))
    }

    @Test(.blocking) func installingBundledDocumentsAndCompiledSets() throws {
        let manager = manager([])
        let expiredBundle = makeSet(
            version: 3, pins: [.spki(testChain[0]), randomPin()],
            issuedAt: testNow.addingTimeInterval(-90 * 86_400), expiresAt: testNow.addingTimeInterval(-80 * 86_400))
        _ = try manager.installTrusted(document: signer.sign(expiredBundle), for: "example.com").get()
        #expect(manager.evaluate(chain: chain, host: "example.com", now: testNow).allowsConnection)
        // Compiled-in sets do not roll a newer one back.
        #expect(!manager.installCompiled(pinSet: makeSet(version: 2, pins: [randomPin(role: .current), randomPin()])))
        #expect(
            manager.installCompiled(
                pinSet: makeSet(host: "code.example", version: 1, pins: [.spki(testChain[2]), randomPin()])))
        #expect(manager.evaluate(chain: chain, host: "code.example", now: testNow).allowsConnection)
        #expect(manager.pinnedHosts == ["code.example", "example.com"])
    }

    @Test func concurrentSwapsAreAtomic() async {
        // Version n pins leaf when n is even and nothing of the chain when odd; every decision must agree
        // with some installed version, never a mix (checked through the matched pin's comment).
        let manager = manager([])
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for version in 1...200 {
                    let pins =
                        version % 2 == 0
                        ? [
                            Pin(sha256: testChain[0].opensslSPKIPin, role: .current, comment: "v\(version)"),
                            randomPin(),
                        ]
                        : [randomPin(role: .current), randomPin()]
                    _ = manager.accept(
                        self.signer.sign(makeSet(version: version, pins: pins)), for: "example.com", now: testNow)
                }
            }
            for _ in 0..<2 {
                group.addTask {
                    for _ in 0..<500 {
                        let decision = manager.evaluate(chain: self.chain, host: "example.com", now: testNow)
                        if case .trusted(let pin, _) = decision {
                            #expect(Int(pin.comment!.dropFirst())! % 2 == 0)
                        }
                    }
                }
            }
        }
        #expect(manager.acceptedVersion(for: "example.com")?.version == 200)
    }
}
