import PKCS11
import PinSetCore
import PinSetOpenSSL

/// A ``DocumentSigner`` whose private key stays on a PKCS#11 token (an HSM, a YubiHSM, a cloud KMS through its
/// PKCS#11 library, SoftHSM in tests): every signature is made there with `CKM_EDDSA`.
public final class TokenSigner: DocumentSigner {
    /// The key on the token.
    public let key: PKCS11Ed25519Key
    /// The URI the key was opened with (it holds no PIN).
    public let uri: PKCS11URI
    /// The RFC 7638 thumbprint of the key's public half.
    public let kid: String
    /// The raw 32-byte public key, read off the token's public key object.
    public var publicKey: [UInt8] { key.publicKey }

    /// Wraps `key`, opened from `uri`.
    public init(key: PKCS11Ed25519Key, uri: PKCS11URI) {
        self.key = key
        self.uri = uri
        self.kid = OpenSSLTrustCrypto().kid(publicKey: key.publicKey)
    }

    /// Signs on the token.
    /// - Throws: ``PKCS11Error`` (``PKCS11Error/Code/tokenUnavailable`` when the token is gone).
    public func sign(_ message: [UInt8]) throws(PKCS11Error) -> [UInt8] { try key.sign(message) }
}
