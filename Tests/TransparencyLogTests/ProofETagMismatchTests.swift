import Foundation
import PinSetClient
import PinSetCore
import PinSetRules
import Testing

/// PROTOCOL §7.3/§7.4: a proof answers for the exact bytes served, with the same `ETag`. A proof whose `ETag` is
/// not the document's (the document changed between the two requests, or a cache mixed them up) is refused
/// before anything is checked, and the set in force stays.
@Suite struct ProofETagMismatchTests {
    /// Serves what ``UpdaterLogTests/LogTransport`` serves, but the proof of `/pins/<host>` under another `ETag`
    /// while `mismatch` is set.
    final class MismatchedProofTransport: PinSetTransport, @unchecked Sendable {
        let inner = UpdaterLogTests.LogTransport()
        let mismatch = Guarded(false)

        func get(_ url: URL, headers: [String: String]) async throws -> TransportResponse {
            let response = try await inner.get(url, headers: headers)
            guard url.path.hasSuffix("/proof"), mismatch.withLock({ $0 }), response.status == 200 else {
                return response
            }
            return TransportResponse(status: 200, headers: ["ETag": "\"another-document\""], body: response.body)
        }
    }

    @Test func aProofWithAnotherETagIsRefusedAndTheSetInForceStays() async throws {
        let world = try UpdaterLogTests.World()
        defer { try? FileManager.default.removeItem(at: world.directory) }
        let server = try LogServer(logKey: world.logKey, witnesses: world.witnesses)
        let transport = MismatchedProofTransport()
        let host = UpdaterLogTests.host

        let v1 = world.document(version: 1)
        #expect(try server.publish([String(decoding: v1, as: UTF8.self)]) == [200, 200])
        try transport.inner.serve(v1, host: host, index: 0, from: server)
        let manager = try world.manager()
        let updater = PinSetUpdater(
            configuration: .init(server: URL(string: "https://pins.example")!, hosts: [host]), trustManager: manager,
            transport: transport)
        guard case .updated(_, 1) = await updater.refreshNow(host: host) else {
            Issue.record("version 1 was not accepted")
            return
        }

        // Version 2 is logged and its proof is valid, but it comes under another ETag: refused as not logged.
        let v2 = world.document(version: 2)
        #expect(try server.publish([String(decoding: v2, as: UTF8.self)]) == [200, 200])
        try transport.inner.serve(v2, host: host, index: 1, from: server)
        transport.mismatch.withLock { $0 = true }
        let event = await updater.refreshNow(host: host)
        guard case .rejected(_, let rejection) = event else {
            Issue.record("a proof under another ETag was not refused: \(event)")
            return
        }
        #expect(rejection.code == .notLogged)
        #expect(rejection.detail.contains("ETag"))
        #expect(manager.pinSet(for: host)?.version == 1)

        // The same proof under the document's ETag: accepted (the refusal was the ETag, nothing else).
        transport.mismatch.withLock { $0 = false }
        guard case .updated(_, 2) = await updater.refreshNow(host: host) else {
            Issue.record("version 2 was not accepted with a matching ETag")
            return
        }
        #expect(manager.pinSet(for: host)?.version == 2)
    }
}
