import Foundation
import NIOCore
import NIOPosix
import PinSetClient
import PinSetCore
import PinSetNIO
import TestSupport
import Testing
import X509

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 7, all real: a report-only set is published with the pin server's own `/reports` as its `reportUri`;
/// the NIO client connects to a TLS server whose key is not pinned, the connection goes through, and the
/// client's report shows up in `GET /admin/reports` with the served chain and the known pins.
@Suite(.serialized) struct ReportEndToEndTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    static let pki = try! TestPKI(name: "pinset e2e")

    @Test func reportOnlyFailureReachesTheServersReportList() async throws {
        let server = try TestServer(refreshInterval: 1)
        let (leaf, key) = try Self.pki.makeLeaf()
        let tls = try await TLSServerFixture.start(leaf: leaf, key: key, pki: Self.pki, group: Self.group)
        defer { tls.channel.close(promise: nil) }

        // Publish a report-only set for localhost that does not pin the served key.
        let pinned = PinRotationEndToEndTests.randomPin()
        let reportUri = server.baseURL.appendingPathComponent("reports").absoluteString
        let put = try server.put(
            "localhost", #"{"pins":[{"sha256":"\#(pinned)"}],"enforce":false,"reportUri":"\#(reportUri)"}"#)
        #expect(put.status == 201)

        let reporter = PinFailureReporter()
        let manager = PinTrustManager(
            verifier: DocumentVerifier(trustedKeys: [try server.trustedKey()]),
            onPinFailure: { reporter.submit($0, port: tls.port) })
        let updater = PinSetUpdater(
            configuration: .init(server: server.baseURL, hosts: ["localhost"], minimumRefreshInterval: 1, jitter: 0),
            trustManager: manager, transport: URLSessionTransport())
        let recorder = EventRecorder(updater.events)
        await updater.start()
        #expect(await recorder.waitForUpdate(host: "localhost", version: 1))
        #expect(manager.pinSet(for: "localhost")?.enforce == false)

        let client = try PinnedNIOClient(
            group: Self.group,
            configuration: PinnedTLSConfiguration(trustManager: manager, trustRoots: CertificateStore([Self.pki.root])))
        #expect(try await client.connects(port: tls.port), "report-only: the connection goes through")

        // The report arrives in the background; poll the admin view for it.
        var groups: [[String: Any]] = []
        for _ in 0..<50 where groups.isEmpty {
            try await Task.sleep(for: .milliseconds(100))
            let list = try server.client.request("GET", "/admin/reports?host=localhost", headers: server.auth)
            groups = try list.json()["groups"] as? [[String: Any]] ?? []
        }
        await updater.stop()
        let group = try #require(groups.first)
        #expect(group["host"] as? String == "localhost")
        #expect(group["leafPin"] as? String == leaf.spkiPin)
        #expect(group["count"] as? Int == 1)
        #expect(group["matchesCurrentPin"] as? Bool == false)
        let chain = try #require(group["chain"] as? [String])
        #expect(chain.count >= 2 && chain[0].hasPrefix("-----BEGIN CERTIFICATE-----"))
        let knownPins = try #require(group["knownPins"] as? [String])
        #expect(knownPins.count == 1 && knownPins[0].contains(pinned))
    }
}
