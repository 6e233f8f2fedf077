import OpenSSLCrypto
import PinSetCore

/// ``TrustCrypto`` over the OpenSSL wrapper: how the server and the CLI check trust documents (the client uses
/// swift-crypto; both run the same ``TrustRules``).
public struct OpenSSLTrustCrypto: TrustCrypto {
    /// Creates the adapter (stateless).
    public init() {}

    /// SHA-256 through OpenSSL.
    public func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256Digest.hash(bytes) }

    /// Pure Ed25519 verification through OpenSSL.
    public func isValidEd25519Signature(_ signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) -> Bool {
        Ed25519.verify(signature: signature, message: message, publicKey: publicKey)
    }
}
