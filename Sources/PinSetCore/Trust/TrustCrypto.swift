/// The two primitives the trust rules need, supplied by each side with its own library: swift-crypto in the
/// client, OpenSSL on the server and in the CLI. PinSetCore itself stays free of crypto code.
public protocol TrustCrypto: Sendable {
    /// SHA-256 of `bytes` (32 bytes), for RFC 7638 thumbprints.
    func sha256(_ bytes: [UInt8]) -> [UInt8]
    /// Whether `signature` is a valid pure Ed25519 (RFC 8032) signature of `message` by the raw 32-byte
    /// `publicKey`. Malformed inputs give `false`.
    func isValidEd25519Signature(_ signature: [UInt8], for message: [UInt8], publicKey: [UInt8]) -> Bool
}

extension TrustCrypto {
    /// The RFC 7638 thumbprint (`kid`) of a raw Ed25519 public key.
    public func kid(publicKey: [UInt8]) -> String {
        Base64URL.encode(sha256(Ed25519JWK.thumbprintInput(publicKey: publicKey)))
    }
}
