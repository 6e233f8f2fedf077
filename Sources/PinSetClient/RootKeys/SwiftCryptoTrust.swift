import Crypto
import PinSetCore

/// ``TrustCrypto`` over swift-crypto: the client's SHA-256 and Ed25519 (no OpenSSL in the client).
struct SwiftCryptoTrust: TrustCrypto {
    func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(SHA256.hash(data: bytes)) }

    func isValidEd25519Signature(_ signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard signature.count == 64, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else {
            return false
        }
        return key.isValidSignature(signature, for: message)
    }
}
