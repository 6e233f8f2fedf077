import Foundation
import NIOCore
import NIOPosix
import PinSetClient
import PinSetCore
import PinSetNIO
import Synchronization
import TestSupport
import Testing
import X509

/// Issue 7, client side: pin failures are reported in the background to a real loopback HTTP listener,
/// rate-limited per identical report, without blocking the handshake.
@Suite(.serialized) struct PinFailureReporterTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let pki = try! TestPKI(name: "pinset e2e")

    static func randomPin(_ role: PinRole) -> Pin {
        Pin(sha256: Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }), role: role)
    }

    /// A manager holding a set for localhost that does not match, reporting to `reportUri`.
    static func manager(enforce: Bool, reportUri: String?, onFailure: @escaping @Sendable (PinFailure) -> Void)
        -> PinTrustManager
    {
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: []), onPinFailure: onFailure)
        manager.installCompiled(
            pinSet: PinSet(
                host: "localhost", version: 4, issuedAt: Date(), expiresAt: Date().addingTimeInterval(3600),
                enforce: enforce, pins: [randomPin(.current), randomPin(.backup)], reportUri: reportUri))
        return manager
    }

    @Test func reportOnlyFailureIsPostedAndTheConnectionGoesThrough() async throws {
        let listener = try await ReportListener(group: Self.group)
        defer { listener.channel.close(promise: nil) }
        let (leaf, key) = try Self.pki.makeLeaf()
        let tls = try await TLSServerFixture.start(leaf: leaf, key: key, pki: Self.pki, group: Self.group)
        defer { tls.channel.close(promise: nil) }
        let reporter = PinFailureReporter()
        let manager = Self.manager(enforce: false, reportUri: listener.url.absoluteString) {
            reporter.submit($0, port: tls.port)
        }
        let client = try PinnedNIOClient(
            group: Self.group,
            configuration: PinnedTLSConfiguration(trustManager: manager, trustRoots: CertificateStore([Self.pki.root])))

        #expect(try await client.connects(port: tls.port))
        #expect(await listener.waitFor(count: 1))
        let report = try JSONDecoder().decode(PinFailureReport.self, from: Data(listener.bodies[0]))
        #expect(report.hostname == "localhost")
        #expect(report.port == tls.port)
        #expect(report.enforcePinning == false)
        #expect(report.validatedCertificateChain.count == 3)
        #expect(report.knownPins.count == 2)

        // Same failure again: suppressed for 24 h.
        #expect(try await client.connects(port: tls.port))
        try await Task.sleep(for: .milliseconds(300))
        #expect(listener.bodies.count == 1)
    }

    @Test func enforcingFailureIsReportedOncePerIntervalAndBlocked() async throws {
        let listener = try await ReportListener(group: Self.group)
        defer { listener.channel.close(promise: nil) }
        let now = Mutex(Date())
        let reporter = PinFailureReporter(fallbackReportURI: listener.url, clock: { now.withLock { $0 } })
        let manager = Self.manager(enforce: true, reportUri: nil) { _ in }
        let (leaf, _) = try Self.pki.makeLeaf()
        let chain = [leaf.der, Self.pki.intermediate.der, Self.pki.root.der]
        guard case .pinMismatch(let failure) = manager.evaluate(chain: chain, host: "localhost", now: Date()) else {
            Issue.record("expected a pin mismatch")
            return
        }
        #expect(await reporter.submit(failure).value == .sent(status: 204))
        #expect(await reporter.submit(failure).value == .rateLimited)
        now.withLock { $0 += 86_401 }
        #expect(await reporter.submit(failure).value == .sent(status: 204))
        #expect(listener.bodies.count == 2)
        #expect(await PinFailureReporter().submit(failure).value == .noReportURI)
    }

    @Test func aListenerThatNeverAnswersDoesNotBlockTheCaller() async throws {
        let listener = try await ReportListener(group: Self.group, answers: false)
        defer { listener.channel.close(promise: nil) }
        let reporter = PinFailureReporter(fallbackReportURI: listener.url, timeout: 2)
        let manager = Self.manager(enforce: true, reportUri: nil) { _ in }
        let (leaf, _) = try Self.pki.makeLeaf()
        guard
            case .pinMismatch(let failure) = manager.evaluate(
                chain: [leaf.der, Self.pki.intermediate.der], host: "localhost", now: Date())
        else {
            Issue.record("expected a pin mismatch")
            return
        }
        let start = ContinuousClock.now
        let task = reporter.submit(failure)
        #expect(ContinuousClock.now - start < .milliseconds(100))
        #expect(await listener.waitFor(count: 1))
        task.cancel()
    }
}
