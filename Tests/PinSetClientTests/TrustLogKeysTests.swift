import Foundation
import PinSetClient
import PinSetCore
import Testing

/// `logKeys` in the trust payload (PROTOCOL §6.1, §7.1): optional, checked by the rules of `signingKeys`.
@Suite struct TrustLogKeysTests {
    let root = TestSigner()
    let signing = TestSigner()
    let log = TestSigner()

    private func payload(logKeys: [Ed25519JWK]?) -> TrustPayload {
        var payload = TrustForge.payload(version: 1, roots: [root], signing: [signing])
        payload.logKeys = logKeys
        return payload
    }

    @Test func aTrustDocumentWithoutLogKeysHasNoSuchMemberAndNoLogKeys() throws {
        let payload = payload(logKeys: nil)
        #expect(!String(decoding: payload.encodedJSON(), as: UTF8.self).contains("logKeys"))
        let state = try TrustState(bundledDocument: TrustForge.sign(payload, by: [root]))
        #expect(state.logKeys.isEmpty)
    }

    @Test func listedLogKeysAreInTheTrustState() throws {
        let jwk = TrustPayload.jwk(publicKey: log.trustedKey.rawRepresentation, kid: log.kid)
        let payload = payload(logKeys: [jwk])
        let decoded = try JSONDecoder().decode(TrustPayload.self, from: Data(payload.encodedJSON()))
        #expect(decoded.logKeys == [jwk])
        let state = try TrustState(bundledDocument: TrustForge.sign(payload, by: [root]))
        #expect(state.logKeys.keys.sorted() == [log.kid])
        #expect(state.logKeys[log.kid]?.rawRepresentation == log.trustedKey.rawRepresentation)
    }

    @Test func aLogKeyWhoseKidIsNotItsThumbprintIsRefused() {
        let jwk = TrustPayload.jwk(publicKey: log.trustedKey.rawRepresentation, kid: signing.kid)
        let bytes = TrustForge.sign(payload(logKeys: [jwk]), by: [root])
        #expect {
            _ = try TrustState(bundledDocument: bytes)
        } throws: { error in
            (error as? TrustRejection)?.code == .malformed && "\(error)".contains("logKeys")
        }
    }

    @Test func moreThan256LogKeysAreRefused() {
        let jwk = TrustPayload.jwk(publicKey: log.trustedKey.rawRepresentation, kid: log.kid)
        let bytes = TrustForge.sign(payload(logKeys: Array(repeating: jwk, count: 257)), by: [root])
        #expect {
            _ = try TrustState(bundledDocument: bytes)
        } throws: { error in
            (error as? TrustRejection)?.code == .malformed && "\(error)".contains("more than 256")
        }
    }
}
