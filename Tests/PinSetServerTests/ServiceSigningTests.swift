import Foundation
import OpenSSLCrypto
import PinSetCore
import TestSupport
import Testing

@testable import PinSetServer
@testable import PinSetStorage

@Suite(.blocking) struct ServiceSigningTests {
    @Test func documentsVerifyWithTheOpenSSLCLI() throws {
        let f = try ServiceFixture()
        let outcome = try f.service.replace(
            host: "example.com", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        let jws = try JSONDecoder().decode(SignedDocument.self, from: Data(outcome.document.body))
        #expect(jws.serialized == outcome.document.body)
        try Data(jws.signingInput).write(to: f.directory.appendingPathComponent("input"))
        try Data(Base64URL.decode(jws.signature)!).write(to: f.directory.appendingPathComponent("sig"))
        try sh("openssl pkeyutl -verify -pubin -inkey key.pub.pem -rawin -in input -sigfile sig", in: f.directory)
        // A different payload does not verify.
        try Data(jws.signingInput + [0x41]).write(to: f.directory.appendingPathComponent("input"))
        #expect(throws: (any Error).self) {
            try sh("openssl pkeyutl -verify -pubin -inkey key.pub.pem -rawin -in input -sigfile sig", in: f.directory)
        }
    }

    @Test func headerETagAndKidFollowTheProtocol() throws {
        let f = try ServiceFixture()
        let document = try f.service.replace(
            host: "example.com", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t"
        ).document
        let jws = try JSONDecoder().decode(SignedDocument.self, from: Data(document.body))
        #expect(Base64URL.decode(jws.protected)! == SignedDocument.protectedHeader(kid: f.key.kid))
        #expect(
            f.key.kid == Base64URL.encode(SHA256Digest.hash(Ed25519JWK.thumbprintInput(publicKey: f.key.publicKey))))
        #expect(document.etag == "\"" + Base64URL.encode(SHA256Digest.hash(document.body).prefix(18)) + "\"")
        #expect(document.etag.count == 26)
        let payload = try verifiedPayload(document, publicKey: f.key.publicKey)
        #expect(payload.issuedAt == f.clock.now && RFC3339.format(payload.issuedAt).hasSuffix("Z"))
        #expect(
            String(decoding: Base64URL.decode(jws.payload)!, as: UTF8.self)
                == String(decoding: payload.encodedJSON(), as: UTF8.self))
    }

    @Test func resignDueKeepsTheVersionAndRenewsTheSignature() throws {
        let f = try ServiceFixture(configuration: ServiceConfiguration(documentLifetime: 1_000))
        let original = try f.service.replace(
            host: "example.com", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        _ = try f.service.replace(
            host: "other.example", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        f.clock.advance(499)
        #expect(try f.service.resignDue() == 0)
        f.clock.advance(1)
        #expect(try f.service.resignDue() == 2)
        let published = f.published.all
        #expect(published.count == 4)
        let renewed = try #require(
            published.first { $0.host == "example.com" && $0.issuedAt != original.document.issuedAt })
        #expect(renewed.version == 1)
        #expect(renewed.etag != original.document.etag)
        #expect(renewed.issuedAt == f.clock.now)
        #expect(renewed.expiresAt == f.clock.now.addingTimeInterval(1_000))
        let payload = try verifiedPayload(renewed, publicKey: f.key.publicKey)
        #expect(payload.version == 1 && payload.pins == original.detail.pins)
        let detail = try f.service.detail(host: "example.com")
        #expect(detail.version == 1 && detail.etag == renewed.etag && detail.issuedAt == renewed.issuedAt)
        #expect(detail.updatedAt == original.detail.updatedAt)
        #expect(try f.service.history(host: "example.com").count == 1)
        #expect(try PublishedDocuments.load(store: f.store).first { $0.host == "example.com" } == renewed)
        // Nothing is due right after.
        #expect(try f.service.resignDue() == 0)
        // The old ETag is now stale for writes.
        #expect(
            expectServiceError {
                try f.service.retire(host: "example.com", ifMatch: original.detail.etag, tokenName: "t")
            }?.status == 412)
    }

    @Test func keyRotationListsBothKeysAndResignsOldDocuments() throws {
        let f = try ServiceFixture()
        let oldKey = f.key
        let old = try f.service.replace(
            host: "example.com", request: ServiceFixture.validSet(), ifMatch: nil, tokenName: "t")
        #expect(f.service.keySet().keys.map(\.kid) == [oldKey.kid])

        f.clock.advance(10)
        let newKey = try ServiceFixture.makeKey(named: "key2", in: f.directory)
        try f.reopen(with: newKey)
        let keys = f.service.keySet().keys
        #expect(keys.map(\.kid) == [oldKey.kid, newKey.kid])
        #expect(keys.map(\.publicKeyBytes) == [oldKey.publicKey, newKey.publicKey])
        #expect(keys.allSatisfy { $0.alg == "EdDSA" && $0.use == "sig" && $0.kty == "OKP" && $0.crv == "Ed25519" })
        // Opening with the new key re-signs nothing by itself.
        #expect(try PublishedDocuments.load(store: f.store) == [old.document])

        #expect(try f.service.resignDue() == 1)
        let resigned = try #require(f.published.all.last)
        #expect(resigned.kid == newKey.kid && resigned.version == 1)
        _ = try verifiedPayload(resigned, publicKey: newKey.publicKey)
        let jws = try JSONDecoder().decode(SignedDocument.self, from: Data(resigned.body))
        #expect(
            !Ed25519.verify(
                signature: Base64URL.decode(jws.signature)!, message: jws.signingInput, publicKey: oldKey.publicKey))
        #expect(try f.service.detail(host: "example.com").kid == newKey.kid)

        // Back to the old key: it becomes active again and the list keeps both, in first-use order.
        try f.reopen(with: oldKey)
        #expect(f.service.keySet().keys.map(\.kid) == [oldKey.kid, newKey.kid])
        #expect(try f.service.resignDue() == 1)
    }
}
