import OpenSSLCrypto

/// The server's one signing abstraction: an Ed25519 key that signs documents, wherever its private half lives
/// (a PEM file loaded into OpenSSL, ``Ed25519SigningKey``; or a PKCS#11 token, ``TokenSigner``).
///
/// Open one with ``SignerLoader/open(_:pkcs11:logger:)``, which also runs the start-up checks.
public protocol DocumentSigner: AnyObject, Sendable {
    /// The raw 32-byte Ed25519 public key.
    var publicKey: [UInt8] { get }
    /// The RFC 7638 thumbprint of ``publicKey`` (the JWS `kid`).
    var kid: String { get }
    /// Signs `message` with pure Ed25519; 64 bytes. Thread-safe.
    /// - Throws: when the key cannot be used now (a hardware token gone); the caller answers 503 and retries later.
    func sign(_ message: [UInt8]) throws -> [UInt8]
}

extension Ed25519SigningKey: DocumentSigner {}
