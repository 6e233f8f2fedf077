import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import PinSetClient
import PinSetCore
import PinSetNIO
import TestSupport
import Testing
import X509

/// The NIO adapter against a real loopback TLS server serving root → intermediate → leaf.
@Suite(.serialized) struct PinSetVerificationCallbackTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let pki = try! TestPKI(name: "pinset test")
    static let otherPKI = try! TestPKI(name: "untrusted")

    /// A manager pinning `pins` for localhost (and 127.0.0.1 is left unpinned unless `pinIP`).
    func manager(pins: [Pin], host: String = "localhost", options: PinningOptions = PinningOptions()) -> PinTrustManager
    {
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: []), options: options)
        if !pins.isEmpty {
            manager.installCompiled(
                pinSet: PinSet(
                    host: host, version: 1, issuedAt: Date(), expiresAt: Date().addingTimeInterval(86_400), pins: pins))
        }
        return manager
    }

    func pin(_ certificate: Certificate, role: PinRole = .current) -> Pin {
        Pin(sha256: certificate.spkiPin, role: role)
    }

    func randomPin() -> Pin {
        Pin(sha256: Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }), role: .backup)
    }

    /// Starts a TLS server on 127.0.0.1 that sends `leaf` + `intermediate`; returns its port.
    func startServer(pki: TestPKI) async throws -> (Channel, Int, Certificate) {
        let (leaf, key) = try pki.makeLeaf()
        let server = try await TLSServerFixture.start(leaf: leaf, key: key, pki: pki, group: Self.group)
        return (server.channel, server.port, leaf)
    }

    /// Connects with the pinned handler; `true` when the handshake completes.
    func connect(port: Int, serverHostname: String, configuration: PinnedTLSConfiguration) async throws -> Bool {
        let handshake = Self.group.next().makePromise(of: Void.self)
        let channel = try await ClientBootstrap(group: Self.group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let tls = try PinSetNIO.makeClientHandler(
                        serverHostname: serverHostname, configuration: configuration)
                    try channel.pipeline.syncOperations.addHandlers([tls, HandshakeWaiter(promise: handshake)])
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        defer { channel.close(promise: nil) }
        do {
            try await handshake.futureResult.get()
            return true
        } catch {
            return false
        }
    }

    func configuration(_ manager: PinTrustManager) -> PinnedTLSConfiguration {
        PinnedTLSConfiguration(trustManager: manager, trustRoots: CertificateStore([Self.pki.root]))
    }

    @Test func pinnedKeyConnects() async throws {
        let (server, port, leaf) = try await startServer(pki: Self.pki)
        defer { server.close(promise: nil) }
        for pinned in [leaf, Self.pki.intermediate, Self.pki.root] {
            let manager = manager(pins: [pin(pinned), randomPin()])
            #expect(try await connect(port: port, serverHostname: "localhost", configuration: configuration(manager)))
        }
    }

    @Test func pinnedIPAddressConnects() async throws {
        let (server, port, leaf) = try await startServer(pki: Self.pki)
        defer { server.close(promise: nil) }
        let manager = manager(pins: [pin(leaf), randomPin()], host: "127.0.0.1")
        let callback = PinSetVerificationCallback(host: "127.0.0.1", configuration: configuration(manager))
        let outcome = await callback.evaluate(presentedChain: [leaf.der, Self.pki.intermediate.der])
        guard case .accepted(let chain, .trusted) = outcome else {
            Issue.record("expected acceptance, got \(outcome)")
            return
        }
        #expect(chain == [leaf.der, Self.pki.intermediate.der, Self.pki.root.der])
        #expect(try await connect(port: port, serverHostname: "127.0.0.1", configuration: configuration(manager)))
    }

    @Test func unpinnedKeyWithAValidChainIsRefused() async throws {
        let (server, port, leaf) = try await startServer(pki: Self.pki)
        defer { server.close(promise: nil) }
        let manager = manager(pins: [randomPin(), randomPin()])
        #expect(try await !connect(port: port, serverHostname: "localhost", configuration: configuration(manager)))
        let outcome = await PinSetVerificationCallback(host: "localhost", configuration: configuration(manager))
            .evaluate(presentedChain: [leaf.der, Self.pki.intermediate.der])
        guard case .pinningRefused(.pinMismatch(let failure)) = outcome else {
            Issue.record("expected a pin mismatch, got \(outcome)")
            return
        }
        #expect(failure.chainPins == [leaf.spkiPin, Self.pki.intermediate.spkiPin, Self.pki.root.spkiPin])
    }

    @Test func unpinnedHostWithAValidChainConnectsUnlessDenied() async throws {
        let (server, port, _) = try await startServer(pki: Self.pki)
        defer { server.close(promise: nil) }
        #expect(
            try await connect(port: port, serverHostname: "localhost", configuration: configuration(manager(pins: []))))
        let deny = manager(pins: [], options: PinningOptions(unpinnedHosts: .deny))
        #expect(try await !connect(port: port, serverHostname: "localhost", configuration: configuration(deny)))
    }

    @Test func wrongHostnameIsRefusedEvenWhenPinned() async throws {
        let (server, port, leaf) = try await startServer(pki: Self.pki)
        defer { server.close(promise: nil) }
        let manager = manager(pins: [pin(leaf), randomPin()], host: "example.com")
        #expect(try await !connect(port: port, serverHostname: "example.com", configuration: configuration(manager)))
        let outcome = await PinSetVerificationCallback(host: "example.com", configuration: configuration(manager))
            .evaluate(presentedChain: [leaf.der, Self.pki.intermediate.der])
        guard case .standardValidationFailed = outcome else {
            Issue.record("expected a standard validation failure, got \(outcome)")
            return
        }
    }

    @Test func untrustedRootIsRefusedEvenWhenPinned() async throws {
        let (server, port, leaf) = try await startServer(pki: Self.otherPKI)
        defer { server.close(promise: nil) }
        let manager = manager(pins: [pin(leaf), pin(Self.otherPKI.intermediate)])
        #expect(try await !connect(port: port, serverHostname: "localhost", configuration: configuration(manager)))
        let outcome = await PinSetVerificationCallback(host: "localhost", configuration: configuration(manager))
            .evaluate(presentedChain: [leaf.der, Self.otherPKI.intermediate.der])
        guard case .standardValidationFailed = outcome else {
            Issue.record("expected a standard validation failure, got \(outcome)")
            return
        }
    }

    @Test func stuffedPinnedCertificateDoesNotHelpAnUntrustedChain() async throws {
        // An attacker appends the genuine pinned intermediate to its own chain: pins see only the validated chain.
        let (attackerLeaf, _) = try Self.otherPKI.makeLeaf()
        let manager = manager(pins: [pin(Self.pki.intermediate), randomPin()])
        let outcome = await PinSetVerificationCallback(host: "localhost", configuration: configuration(manager))
            .evaluate(presentedChain: [attackerLeaf.der, Self.otherPKI.intermediate.der, Self.pki.intermediate.der])
        guard case .standardValidationFailed = outcome else {
            Issue.record("expected a standard validation failure, got \(outcome)")
            return
        }
    }
}
