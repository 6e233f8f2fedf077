import Crypto
import Foundation
import PinSetClient
import PinSetCore
import TestSupport
import Testing

/// SPKI pins equal what the openssl pipeline of FIELD-NOTES prints, for RSA, P-256 and Ed25519 keys.
@Suite(.blocking) struct SPKIPinTests {
    @Test(arguments: ["rsa", "p256", "ed25519"])
    func matchesTheOpenSSLPipeline(algorithm: String) throws {
        let directory = try makeTemporaryDirectory()
        let certificate = try OpenSSLCertificate(algorithm: algorithm, commonName: "pin-\(algorithm)", in: directory)
        #expect(try SPKIPin.sha256(ofCertificateDER: certificate.der) == certificate.opensslSPKIPin)
        let spki = try SPKIPin.spkiDER(ofCertificateDER: certificate.der)
        #expect(SPKIPin.sha256(ofSPKIDER: spki) == certificate.opensslSPKIPin)
        let expectedSize = ["rsa": 294, "p256": 91, "ed25519": 44][algorithm]!
        #expect(spki.count == expectedSize)
    }

    @Test func certificatePinIsTheHashOfTheWholeDER() throws {
        let certificate = testChain[0]
        let expected = String(
            decoding: try shell(
                "openssl x509 -in '\(certificate.path.path)' -outform der | openssl dgst -sha256 -binary | base64"),
            as: UTF8.self
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(SPKIPin.sha256(ofWholeCertificateDER: certificate.der) == expected)
    }

    @Test func refusesGarbage() {
        #expect(throws: SPKIPin.Error.self) { try SPKIPin.sha256(ofCertificateDER: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(throws: SPKIPin.Error.self) { try SPKIPin.sha256(ofCertificateDER: Array("hello".utf8)) }
    }
}
