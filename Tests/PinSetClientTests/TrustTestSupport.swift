import Crypto
import Foundation
import Locking
import PinSetClient
import PinSetCore

/// Forges trust documents (PROTOCOL §6.1) by hand with test keys, the way `pinset trust sign` does.
enum TrustForge {
    /// A payload valid around ``testNow`` unless told otherwise.
    static func payload(
        version: Int, roots: [TestSigner], threshold: Int = 1, signing: [TestSigner],
        issuedAt: Date = testNow.addingTimeInterval(-3600), expiresAt: Date = testNow.addingTimeInterval(90 * 86_400)
    ) -> TrustPayload {
        TrustPayload(
            version: version, issuedAt: issuedAt, expiresAt: expiresAt,
            rootKeys: roots.map { TrustPayload.jwk(publicKey: $0.trustedKey.rawRepresentation, kid: $0.kid) },
            rootThreshold: threshold,
            signingKeys: signing.map { TrustPayload.jwk(publicKey: $0.trustedKey.rawRepresentation, kid: $0.kid) })
    }

    /// The serialized document, signed by each of `signers` in order (a signer given twice signs twice).
    static func sign(
        _ payload: TrustPayload, by signers: [TestSigner], alg: String = "EdDSA", typ: String = "pinset-trust+jws",
        padding: Int = 0
    ) -> [UInt8] {
        let encoded = Base64URL.encode(payload.encodedJSON())
        let signatures = signers.map { signer in
            let header = "{\"alg\":\"\(alg)\",\"kid\":\"\(signer.kid)\",\"typ\":\"\(typ)\"}"
            let protected = Base64URL.encode(Array(header.utf8))
            let signature = try! signer.key.signature(for: Array((protected + "." + encoded).utf8))
            return TrustSignature(protected: protected, signature: Base64URL.encode(signature))
        }
        var bytes = TrustDocument(payload: encoded, signatures: signatures).serialized
        if padding > 0 { bytes.append(contentsOf: [UInt8](repeating: 0x20, count: padding)) }
        return bytes
    }
}

/// An in-memory pin server keyed by path (`/trust`, `/trust/2`, `/pins/example.com`), with ETags and
/// `Cache-Control` as the real server sends them, recording every request path.
final class PathServer: PinSetTransport, Sendable {
    let bodies = Locked<[String: [UInt8]]>([:])
    let requests = Locked<[String]>([])

    func serve(_ path: String, _ body: [UInt8]?) { bodies.withLock { $0[path] = body } }

    func get(_ url: URL, headers: [String: String]) async throws -> TransportResponse {
        requests.withLock { $0.append(url.path) }
        guard let body = bodies.withLock({ $0[url.path] }) else { return TransportResponse(status: 404) }
        let etag = ETag.of(sha256: SHA256.hash(data: body))
        let common = ["ETag": etag, "Cache-Control": "public, max-age=120"]
        if headers["If-None-Match"] == etag { return TransportResponse(status: 304, headers: common) }
        return TransportResponse(status: 200, headers: common, body: body)
    }
}

/// A clock tests can move.
final class TestClock: Sendable {
    let now = Locked(testNow)
    func callAsFunction() -> Date { now.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

extension PinSetUpdater {
    /// Stops the updater and returns every event it emitted.
    func stopAndCollect() async -> [UpdateEvent] {
        await stop()
        var events: [UpdateEvent] = []
        for await event in self.events { events.append(event) }
        return events
    }
}

extension [UpdateEvent] {
    /// The codes of every trust refusal, in order.
    var trustRejections: [TrustRejection.Code] {
        compactMap { if case .trustRejected(let rejection) = $0 { rejection.code } else { nil } }
    }
}
