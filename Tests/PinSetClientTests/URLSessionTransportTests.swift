import Foundation
import PinSetClient
import PinSetCore
import TestSupport
import Testing

/// URLSessionTransport against a real loopback listener (`python3 -m http.server` serving a file).
@Suite struct URLSessionTransportTests {
    @Test func fetchesADocumentFromARealServer() async throws {
        let root = try makeTemporaryDirectory()
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("pins"), withIntermediateDirectories: true)
        let signer = TestSigner()
        let body = signer.sign(makeSet(version: 7))
        try Data(body).write(to: root.appendingPathComponent("pins/example.com"))

        // The system python directly: a wrapper script (pyenv shim) would outlive terminate().
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        let process = try ProcessRunner.start(
            python, ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root.path], stdout: .pipe)
        // SIGKILL: the server ignores the SIGTERM of Process.terminate() here, and waitUntilExit() would hang.
        defer { process.kill() }
        // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
        let banner = process.readStdout(chunks: .max)
        let port = try #require(
            banner.split(separator: " ").firstIndex(of: "port").map { Int(banner.split(separator: " ")[$0 + 1])! })

        let transport = URLSessionTransport(timeout: 10)
        let response = try await transport.get(
            URL(string: "http://127.0.0.1:\(port)/pins/example.com")!, headers: ["Accept": "application/json"])
        #expect(response.status == 200)
        #expect(response.body == body)
        let missing = try await transport.get(
            URL(string: "http://127.0.0.1:\(port)/pins/unknown.example")!, headers: [:])
        #expect(missing.status == 404)

        // And through the updater end to end.
        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [signer.trustedKey]))
        let updater = PinSetUpdater(
            configuration: .init(server: URL(string: "http://127.0.0.1:\(port)")!, hosts: ["example.com"]),
            trustManager: manager, transport: transport, clock: { testNow })
        guard case .updated(_, 7) = await updater.refreshNow(host: "example.com") else {
            Issue.record("the document was not accepted")
            return
        }
        await updater.stop()
    }

    @Test(.blocking) func parsesMaxAge() {
        #expect(TransportResponse(status: 200, headers: ["Cache-Control": "public, max-age=300"]).maxAge == 300)
        #expect(TransportResponse(status: 200, headers: ["cache-control": "no-cache"]).maxAge == nil)
        #expect(TransportResponse(status: 200, headers: ["Cache-Control": "max-age=-1"]).maxAge == nil)
    }
}
