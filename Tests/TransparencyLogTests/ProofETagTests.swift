import Foundation
import PinSetClient
import PinSetCore
import PinSetRules
import Testing

/// PROTOCOL §7.3/§7.4 (issue 35): a proof has an `ETag` of its own (it changes when cosignatures arrive), so the
/// client does not compare it with the document's; step 1 binds the proof to the exact bytes served. A proof for
/// other bytes (the document changed between the two requests, or a cache mixed them up) is refused, and the set
/// in force stays.
@Suite struct ProofETagTests {
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

    @Test func aProofUnderItsOwnETagIsAcceptedAndAProofOfOtherBytesIsRefused() async throws {
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

        // Version 2 is logged; its proof is still version 1's (a cache mixed them up): refused, step 1.
        let v2 = world.document(version: 2)
        #expect(try server.publish([String(decoding: v2, as: UTF8.self)]) == [200, 200])
        let v1Proof = try #require(transport.inner.bodies.withLock { $0["/pins/\(host)/proof"] })
        try transport.inner.serve(v2, host: host, index: 1, from: server)
        transport.inner.bodies.withLock { $0["/pins/\(host)/proof"] = v1Proof }
        let event = await updater.refreshNow(host: host)
        guard case .rejected(_, let rejection) = event else {
            Issue.record("a proof of other bytes was not refused: \(event)")
            return
        }
        #expect(rejection.code == .notLogged)
        #expect(manager.pinSet(for: host)?.version == 1)

        // Its own proof, under an ETag that is not the document's: accepted.
        try transport.inner.serve(v2, host: host, index: 1, from: server)
        transport.mismatch.withLock { $0 = true }
        guard case .updated(_, 2) = await updater.refreshNow(host: host) else {
            Issue.record("version 2 was not accepted with its proof's own ETag")
            return
        }
        #expect(manager.pinSet(for: host)?.version == 2)
    }
}
