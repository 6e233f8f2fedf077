import Foundation
import Testing

@testable import OpenSSLCrypto

@Suite struct DigestAndRandomTests {
    @Test func sha256MatchesFIPSVectors() {
        #expect(
            SHA256Digest.hash(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256Digest.hash([UInt8]()).map { String(format: "%02x", $0) }.joined()
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.hash(Array("abc".utf8)[...]) == SHA256Digest.hash(Array("abc".utf8)))
    }

    @Test func randomBytesHaveTheLengthAndDiffer() {
        #expect(SecureRandom.bytes(count: 0).isEmpty)
        let a = SecureRandom.bytes(count: 32)
        let b = SecureRandom.bytes(count: 32)
        #expect(a.count == 32)
        #expect(a != b)
    }

    @Test func constantTimeEquals() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equals([], []))
    }

    @Test func thumbprintBase64URLMatchesReference() {
        for length in 0..<40 {
            let bytes = SecureRandom.bytes(count: length)
            #expect(Thumbprint.base64URL(bytes) == base64URLEncode(bytes))
        }
    }
}
