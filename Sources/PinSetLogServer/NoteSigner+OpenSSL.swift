import OpenSSLCrypto
import PinSetOpenSSL
import TransparencyLog

extension NoteSigner {
    /// A signer over an OpenSSL Ed25519 key: the log key (type 0x01) or a witness key (type 0x04).
    /// - Throws: ``LogErrorCode/malformed`` for a key name with a space or a `+`.
    package init(name: String, type: VerifierKey.SignatureType, key: Ed25519SigningKey) throws(LogError) {
        self.init(
            key: try VerifierKey(name: name, type: type, publicKey: key.publicKey, crypto: OpenSSLTrustCrypto()),
            sign: { key.sign($0) })
    }
}
