import Foundation
import OpenSSLCrypto
import PinSetCore
import PinSetOpenSSL
import TestSupport
import Testing

@testable import PinSetServer

/// Signs trust documents with OpenSSL keys, as `pinset trust sign` does.
enum ServerTrustForge {
    static func sign(
        version: Int, roots: [Ed25519SigningKey], threshold: Int = 1, signing: [[UInt8]],
        by signers: [Ed25519SigningKey],
        issuedAt: Date = Date().addingTimeInterval(-60), lifetime: TimeInterval = 180 * 86_400
    ) -> [UInt8] {
        let crypto = OpenSSLTrustCrypto()
        let payload = TrustPayload(
            version: version, issuedAt: issuedAt, expiresAt: issuedAt.addingTimeInterval(lifetime),
            rootKeys: roots.map { TrustPayload.jwk(publicKey: $0.publicKey, kid: $0.kid) }, rootThreshold: threshold,
            signingKeys: signing.map { TrustPayload.jwk(publicKey: $0, kid: crypto.kid(publicKey: $0)) })
        var document = TrustDocument(payload: Base64URL.encode(payload.encodedJSON()), signatures: [])
        for key in signers {
            let protected = Base64URL.encode(TrustDocument.protectedHeader(kid: key.kid))
            document.signatures.append(
                TrustSignature(
                    protected: protected,
                    signature: Base64URL.encode(key.sign(document.signingInput(protected: protected)))))
        }
        return document.serialized
    }
}

@Suite(.blocking) struct TrustAPITests {
    let root = try! Ed25519SigningKey.generate()

    func makeServer() throws -> (TestServer, [UInt8]) {
        let server = try TestServer(rootKeys: [root.publicKey])
        let serverKey = try Ed25519SigningKey.load(pemFile: server.keyPath).publicKey
        return (server, serverKey)
    }

    func push(_ server: TestServer, _ body: [UInt8]) throws -> TestHTTPClient.Response {
        try server.client.request("PUT", "/admin/trust", headers: server.auth, body: body)
    }

    @Test func pushThenServeFromMemoryWithETags() throws {
        let (server, serverKey) = try makeServer()
        #expect(try server.client.request("GET", "/trust").status == 404)
        let v1 = ServerTrustForge.sign(version: 1, roots: [root], signing: [serverKey], by: [root])
        let pushed = try push(server, v1)
        #expect(pushed.status == 201)
        #expect(try pushed.json()["version"] as? Int == 1)
        #expect(try pushed.json()["tokenName"] as? String == "tester")

        let newest = try server.client.request("GET", "/trust")
        #expect(newest.status == 200)
        #expect(newest.body == v1)
        #expect(newest.header("Cache-Control") == "public, max-age=3600")
        let etag = try #require(newest.header("ETag"))
        #expect(try server.client.request("GET", "/trust", headers: ["If-None-Match": etag]).status == 304)
        let numbered = try server.client.request("GET", "/trust/1")
        #expect(numbered.status == 200)
        #expect(numbered.body == v1)
        #expect(numbered.header("Cache-Control") == TrustIndex.immutableCacheControl)
        #expect(try server.client.request("GET", "/trust/2").status == 404)
        #expect(try server.client.request("GET", "/trust/abc").status == 400)

        // Stored durably: a restart serves the same bytes.
        server.stop()
        try server.start()
        #expect(try server.client.request("GET", "/trust/1").body == v1)
        #expect(try server.client.request("GET", "/trust").body == v1)
    }

    @Test func refusesATrustDocumentWithoutTheServersSigningKey() throws {
        let (server, _) = try makeServer()
        let other = try Ed25519SigningKey.generate()
        let response = try push(
            server, ServerTrustForge.sign(version: 1, roots: [root], signing: [other.publicKey], by: [root]))
        #expect(response.status == 422)
        #expect(try response.json()["rule"] as? String == "signingKeyNotListed")
        #expect(try server.client.request("GET", "/trust").status == 404)
    }

    @Test func refusesDocumentsThatDoNotChain() throws {
        let (server, serverKey) = try makeServer()
        let stranger = try Ed25519SigningKey.generate()
        // The first version must verify against the start-up root keys.
        let notFromRoot = try push(
            server, ServerTrustForge.sign(version: 1, roots: [stranger], signing: [serverKey], by: [stranger]))
        #expect(notFromRoot.status == 422)
        #expect(try notFromRoot.json()["rule"] as? String == "thresholdNotMet")
        #expect(
            try push(server, ServerTrustForge.sign(version: 1, roots: [root], signing: [serverKey], by: [root])).status
                == 201)
        // v2 signed by a key that is not a root of v1.
        let v2Stranger = try push(
            server, ServerTrustForge.sign(version: 2, roots: [stranger], signing: [serverKey], by: [stranger]))
        #expect(try v2Stranger.json()["rule"] as? String == "thresholdNotMet")
        // A skipped version, and the same version again.
        let v3 = try push(server, ServerTrustForge.sign(version: 3, roots: [root], signing: [serverKey], by: [root]))
        #expect(v3.status == 422)
        #expect(try v3.json()["rule"] as? String == "versionNotNext")
        let again = try push(server, ServerTrustForge.sign(version: 1, roots: [root], signing: [serverKey], by: [root]))
        #expect(try again.json()["rule"] as? String == "rollback")
        // Expired.
        let expired = try push(
            server,
            ServerTrustForge.sign(
                version: 2, roots: [root], signing: [serverKey], by: [root],
                issuedAt: Date().addingTimeInterval(-90 * 86_400),
                lifetime: 30 * 86_400))
        #expect(expired.status == 422)
        #expect(try expired.json()["rule"] as? String == "expired")
        // Malformed, and without a token.
        #expect(try push(server, Array("{\"payload\":1}".utf8)).status == 400)
        #expect(try server.client.request("PUT", "/admin/trust", body: Array("{}".utf8)).status == 401)
        #expect(try server.client.request("GET", "/trust").header("ETag") != nil)
        #expect(try server.client.request("GET", "/trust/2").status == 404)
    }

    @Test func withoutRootKeysTheServerBehavesAsBefore() throws {
        let server = try TestServer()
        let serverKey = try Ed25519SigningKey.load(pemFile: server.keyPath).publicKey
        #expect(try server.client.request("GET", "/trust").status == 404)
        let response = try push(
            server, ServerTrustForge.sign(version: 1, roots: [root], signing: [serverKey], by: [root]))
        #expect(response.status == 409)
        #expect(try !server.client.request("GET", "/metrics").text.contains("pinset_signing_key_delegated"))
    }

    @Test func aServerWhoseKeyIsNotDelegatedStartsAndSaysSo() throws {
        let (server, serverKey) = try makeServer()
        #expect(
            try push(server, ServerTrustForge.sign(version: 1, roots: [root], signing: [serverKey], by: [root])).status
                == 201)
        #expect(try server.client.request("GET", "/metrics").text.contains("pinset_signing_key_delegated 1"))
        // The key leaks: restart with key B; v1 does not list B.
        server.stop()
        let keyB = server.directory.appendingPathComponent("key-b.pem").path
        try run("openssl", "genpkey", "-algorithm", "ed25519", "-out", keyB)
        try run("chmod", "600", keyB)
        server.configuration.keyPath = keyB
        try server.start()
        #expect(try server.app!.trust.delegation() == .notDelegated)
        #expect(try server.client.request("GET", "/metrics").text.contains("pinset_signing_key_delegated 0"))
        // A push that would drop the server's own key (naming A again) is refused; one naming B is accepted.
        let stillA = try push(
            server, ServerTrustForge.sign(version: 2, roots: [root], signing: [serverKey], by: [root]))
        #expect(try stillA.json()["rule"] as? String == "signingKeyNotListed")
        let b = try Ed25519SigningKey.load(pemFile: keyB).publicKey
        #expect(
            try push(server, ServerTrustForge.sign(version: 2, roots: [root], signing: [b], by: [root])).status == 201)
        #expect(try server.client.request("GET", "/metrics").text.contains("pinset_signing_key_delegated 1"))
    }
}
