import Foundation
import PinSetClient
import PinSetCore
import TestSupport
import Testing

/// Issue 18: an app ships the output of `pinset export` and installs it before the first fetch. The real CLI
/// exports from a real server's database; a tampered file is refused and does not stop the others.
@Suite struct BundledDocumentsEndToEndTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func randomPin() -> String { Base64.encode((0..<32).map { _ in UInt8.random(in: 0...255) }) }

    @Test func theRealExportInstallsAndATamperedFileIsRefusedAlone() async throws {
        let server = try TestServer(refreshInterval: 1)
        for host in ["a.example.com", "b.example.com", "c.example.com"] {
            #expect(
                try server.putSet(
                    host, pins: [(Self.randomPin(), "current"), (Self.randomPin(), "backup")]) == 201)
        }
        let out = server.directory.appendingPathComponent("export")
        try ProcessRunner.text(
            Self.packageRoot.appendingPathComponent(".build/debug/pinset").path, "export", "--db",
            server.directory.appendingPathComponent("pinset.sqlite").path, "--out", out.path)

        // Flip one character of b's signed payload.
        let tampered = out.appendingPathComponent("pins/b.example.com")
        var text = try String(contentsOf: tampered, encoding: .utf8)
        let range = try #require(text.range(of: "\"payload\":\"")).upperBound
        let index = text.index(range, offsetBy: 10)
        text.replaceSubrange(index...index, with: text[index] == "A" ? "B" : "A")
        try text.write(to: tampered, atomically: true, encoding: .utf8)

        let manager = PinTrustManager(verifier: DocumentVerifier(trustedKeys: [try server.trustedKey()]))
        manager.expectSets(for: ["a.example.com", "b.example.com", "c.example.com"])
        let outcomes = manager.installBundledDocuments(directory: out)
        #expect(outcomes.count == 3)
        guard case .failure(let rejection) = outcomes["b.example.com"] else {
            Issue.record("the tampered document was accepted")
            return
        }
        #expect([.badSignature, .malformedJSON].contains(rejection.code))
        for host in ["a.example.com", "c.example.com"] {
            guard case .success(let document) = outcomes[host] else {
                Issue.record("\(host) was refused: \(String(describing: outcomes[host]))")
                continue
            }
            #expect(document.pinSet.host == host)
            #expect(manager.pinSet(for: host)?.version == 1)
        }
        // The refused host stays without a set: the app pins it, so connections are refused until a fetch.
        #expect(manager.pinSet(for: "b.example.com") == nil)
        #expect(!manager.evaluate(chain: [], host: "b.example.com", now: Date()).allowsConnection)
    }
}
