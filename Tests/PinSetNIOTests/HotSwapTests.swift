import Foundation
import NIOCore
import PinSetClient
import PinSetCore
import PinSetNIO
import TestSupport
import Testing
import X509

/// Issue 38 item 2 on Linux: a swap that drops the served key closes the live pinned connection, and the next
/// handshake to a server that resumes sessions is evaluated again and refused.
@Suite(.serialized) struct HotSwapTests {
    func set(_ host: TLSTestHost, version: Int, _ keys: [String]) throws -> PinSet {
        PinSet(
            host: host.name, version: version, issuedAt: Date(), expiresAt: Date().addingTimeInterval(86_400),
            pins: try keys.enumerated().map { Pin(sha256: try host.pin($1), role: $0 == 0 ? .current : .backup) })
    }

    /// Waits (suspending) until `condition` holds or `seconds` pass.
    func eventually(_ seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test func aSwapThatDropsTheKeyClosesLiveConnectionsAndRefusesTheNextHandshake() async throws {
        let host = try TLSTestHost()
        defer { host.stop() }
        // The server resumes sessions: openssl s_client offering the first connection's session is "Reused".
        let target = "-connect \(host.ip):\(host.port) -servername \(host.name) -tls1_2"
        try host.shell("openssl s_client \(target) -sess_out session.pem </dev/null >first.txt 2>&1")
        let resumed = try host.shell("openssl s_client \(target) -sess_in session.pem </dev/null 2>&1")
        #expect(resumed.contains("Reused,"))

        let ca = try Certificate(pemEncoded: String(contentsOfFile: host.path("ca.pem"), encoding: .utf8))
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: []))
        #expect(manager.installCompiled(pinSet: try set(host, version: 1, ["current", "backup"])))
        let configuration = PinnedTLSConfiguration(trustManager: manager, trustRoots: CertificateStore([ca]))
        let context = try configuration.makeContext()
        let channel = try await PinSetNIO.connect(
            host: host.name, port: host.port, address: host.ip, configuration: configuration, context: context)
        #expect(manager.trackedConnectionCount == 1)

        // A set that keeps the served key (and adds one) leaves the live connection alone.
        #expect(manager.installCompiled(pinSet: try set(host, version: 2, ["current", "backup", "rogue"])))
        try? await Task.sleep(for: .milliseconds(200))
        #expect(channel.isActive)

        // A set that drops it closes it.
        #expect(manager.installCompiled(pinSet: try set(host, version: 3, ["backup", "rogue"])))
        #expect(await eventually { !channel.isActive })
        #expect(await eventually { manager.trackedConnectionCount == 0 })

        // The next handshake, same context, same server: evaluated against version 3 and refused.
        do {
            let again = try await PinSetNIO.connect(
                host: host.name, port: host.port, address: host.ip, configuration: configuration, context: context)
            again.close(promise: nil)
            Issue.record("a connection to a key the new set dropped was allowed")
        } catch let error as PinnedConnectionError {
            #expect(error.code == .pinningRefused)
        }
    }
}
