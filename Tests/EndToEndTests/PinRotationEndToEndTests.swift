import Foundation
import NIOCore
import NIOPosix
import PinSetClient
import PinSetCore
import PinSetNIO
import TestSupport
import Testing
import X509

/// Issue 3, all real: pin server (libmicrohttpd + SQLite + OpenSSL key) → admin API → signed document →
/// PinSetUpdater over URLSession → PinTrustManager → NIO TLS client against a NIOSSL server with a test-CA
/// certificate. Rotations take effect in the same client process after the next poll.
@Suite(.serialized) struct PinRotationEndToEndTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let pki = try! TestPKI(name: "pinset e2e")

    static func randomPin() -> String { Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }) }

    /// Server, updater, trust manager and client wired together.
    struct Stack {
        let server: TestServer
        let manager: PinTrustManager
        let updater: PinSetUpdater
        let recorder: EventRecorder
        let client: PinnedNIOClient
    }

    func makeStack() throws -> Stack {
        let server = try TestServer(refreshInterval: 1)
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [try server.trustedKey()]))
        let updater = PinSetUpdater(
            configuration: .init(
                server: server.baseURL, hosts: ["localhost"], minimumRefreshInterval: 1, jitter: 0,
                initialBackoff: 1),
            trustManager: manager, transport: URLSessionTransport())
        let client = try PinnedNIOClient(
            group: Self.group,
            configuration: PinnedTLSConfiguration(trustManager: manager, trustRoots: CertificateStore([Self.pki.root])))
        return Stack(
            server: server, manager: manager, updater: updater, recorder: EventRecorder(updater.events), client: client)
    }

    @Test func rotationAwayFromTheServedKeyRefusesAndRotatingBackConnects() async throws {
        let (leafA, keyA) = try Self.pki.makeLeaf()
        let tls = try await TLSServerFixture.start(leaf: leafA, key: keyA, pki: Self.pki, group: Self.group)
        defer { tls.channel.close(promise: nil) }
        let stack = try makeStack()
        let pinA = leafA.spkiPin
        let backup = Self.randomPin()

        #expect(try stack.server.putSet("localhost", pins: [(pinA, "current"), (backup, "backup")]) == 201)
        await stack.updater.start()
        #expect(await stack.recorder.waitForUpdate(host: "localhost", version: 1))
        #expect(try await stack.client.connects(port: tls.port))

        // Rotate to a set without A: refused after the next poll, same process, same TLS context.
        let other = Self.randomPin()
        #expect(
            try stack.server.putSet("localhost", pins: [(backup, "current"), (other, "backup")]) == 200)
        #expect(await stack.recorder.waitForUpdate(host: "localhost", version: 2))
        #expect(stack.manager.pinSet(for: "localhost")?.version == 2)
        #expect(try await !stack.client.connects(port: tls.port))

        // Add A back: connects again.
        #expect(try stack.server.putSet("localhost", pins: [(pinA, "current"), (backup, "backup")]) == 200)
        #expect(await stack.recorder.waitForUpdate(host: "localhost", version: 3))
        #expect(try await stack.client.connects(port: tls.port))
        await stack.updater.stop()
    }

    @Test func validTestCACertificateWithAnUnpinnedKeyIsRefused() async throws {
        let (leafA, _) = try Self.pki.makeLeaf()
        let (leafD, keyD) = try Self.pki.makeLeaf()
        let tls = try await TLSServerFixture.start(leaf: leafD, key: keyD, pki: Self.pki, group: Self.group)
        defer { tls.channel.close(promise: nil) }
        let stack = try makeStack()

        let pins = [(leafA.spkiPin, "current"), (Self.randomPin(), "backup")]
        #expect(try stack.server.putSet("localhost", pins: pins) == 201)
        await stack.updater.start()
        #expect(await stack.recorder.waitForUpdate(host: "localhost", version: 1))
        #expect(try await !stack.client.connects(port: tls.port))

        // Refused by the pins, not by standard validation: the chain itself is valid for the test CA.
        let outcome = await PinSetVerificationCallback(host: "localhost", configuration: stack.client.configuration)
            .evaluate(presentedChain: [leafD.der, Self.pki.intermediate.der])
        guard case .pinningRefused(.pinMismatch(let failure)) = outcome else {
            Issue.record("expected a pin mismatch after standard validation passed, got \(outcome)")
            await stack.updater.stop()
            return
        }
        #expect(failure.chainPins.first == leafD.spkiPin)
        #expect(failure.version == 1)
        await stack.updater.stop()
    }
}
