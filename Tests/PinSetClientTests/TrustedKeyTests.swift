import Crypto
import Foundation
import PinSetClient
import PinSetCore
import Testing

@Suite struct TrustedKeyTests {
    @Test func rawJWKAndOpenSSLPEMGiveTheSameKid() throws {
        let directory = try makeTemporaryDirectory()
        let keyPath = directory.appendingPathComponent("signing.pem").path
        try shell("openssl genpkey -algorithm ed25519 -out '\(keyPath)'")
        let pem = String(decoding: try shell("openssl pkey -in '\(keyPath)' -pubout"), as: UTF8.self)
        let fromPEM = try TrustedKey(spkiPEM: pem)
        let fromRaw = try TrustedKey(rawRepresentation: fromPEM.rawRepresentation)
        let fromJWK = try TrustedKey(jwk: Ed25519JWK(publicKey: fromPEM.rawRepresentation))
        #expect(fromPEM == fromRaw)
        #expect(fromJWK.kid == fromPEM.kid)
        // RFC 7638: base64url(SHA-256 of the canonical JWK) is 43 characters.
        let expected = Base64URL.encode(
            SHA256.hash(data: Ed25519JWK.thumbprintInput(publicKey: fromPEM.rawRepresentation)))
        #expect(fromPEM.kid == expected)
        #expect(fromPEM.kid.count == 43)
    }

    @Test func rejectsOtherKeys() throws {
        let directory = try makeTemporaryDirectory()
        let keyPath = directory.appendingPathComponent("p256.pem").path
        try shell("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out '\(keyPath)'")
        let pem = String(decoding: try shell("openssl pkey -in '\(keyPath)' -pubout"), as: UTF8.self)
        #expect(throws: TrustedKey.Error.self) { try TrustedKey(spkiPEM: pem) }
        #expect(throws: TrustedKey.Error.self) { try TrustedKey(rawRepresentation: [UInt8](repeating: 1, count: 31)) }
        #expect(throws: TrustedKey.Error.self) { try TrustedKey(spkiPEM: "not a pem") }
    }

    @Test func aDocumentSignedWithAnOpenSSLKeyVerifies() throws {
        let directory = try makeTemporaryDirectory()
        let keyPath = directory.appendingPathComponent("signing.pem").path
        try shell("openssl genpkey -algorithm ed25519 -out '\(keyPath)'")
        let pem = String(decoding: try shell("openssl pkey -in '\(keyPath)' -pubout"), as: UTF8.self)
        let key = try TrustedKey(spkiPEM: pem)
        let protected = Base64URL.encode(SignedDocument.protectedHeader(kid: key.kid))
        let payload = Base64URL.encode(makeSet().encodedJSON())
        let input = directory.appendingPathComponent("input")
        try Data((protected + "." + payload).utf8).write(to: input)
        let signature = try shell("openssl pkeyutl -sign -inkey '\(keyPath)' -rawin -in '\(input.path)'")
        let document = SignedDocument(protected: protected, payload: payload, signature: Base64URL.encode(signature))
        let verifier = DocumentVerifier(trustedKeys: [key])
        let verified = try verifier.verify(document.serialized, host: "example.com", now: testNow, lastAccepted: nil)
            .get()
        #expect(verified.kid == key.kid)
    }
}
