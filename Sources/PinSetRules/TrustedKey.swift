import Foundation
import PinSetCore

/// An Ed25519 public key the app trusts to sign pin set documents (PROTOCOL §5).
///
/// Ship trusted keys inside the app. **Never** build one from a key fetched from the pin server (`GET /keys`
/// is for tooling only): a key that arrives over the network cannot vouch for documents from the same network.
public struct TrustedKey: Sendable, Hashable {
    /// The raw 32-byte Ed25519 public key.
    public let rawRepresentation: [UInt8]
    /// The RFC 7638 JWK thumbprint (SHA-256, base64url) that documents name in their `kid`.
    public let kid: String
    /// Checks signatures with this key: swift-crypto in apps (PinSetClient), OpenSSL in the CLI. No stored
    /// CryptoKit key: older Apple SDKs do not mark `Curve25519.Signing.PublicKey` as `Sendable`.
    package let crypto: any TrustCrypto

    /// Keys are equal when their bytes are.
    public static func == (lhs: TrustedKey, rhs: TrustedKey) -> Bool { lhs.rawRepresentation == rhs.rawRepresentation }

    /// Hashes the key bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawRepresentation) }

    /// Why a key could not be read.
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong with the key material (never echoes it).
        public let description: String
    }

    /// A key from its raw 32 bytes, checked with `crypto`. (PinSetClient adds the same initialisers without
    /// `crypto:`, using swift-crypto.)
    /// - Throws: ``Error`` when `raw` is not 32 bytes.
    public init(rawRepresentation raw: some Collection<UInt8>, crypto: any TrustCrypto) throws(Error) {
        let bytes = Array(raw)
        guard bytes.count == 32 else {
            throw Error(description: "an Ed25519 public key is 32 bytes, got \(bytes.count)")
        }
        rawRepresentation = bytes
        kid = crypto.kid(publicKey: bytes)
        self.crypto = crypto
    }

    /// A key from its public JWK (`{"kty":"OKP","crv":"Ed25519","x":…}`). A `kid` in the JWK is ignored:
    /// the thumbprint is always recomputed.
    /// - Throws: ``Error`` when the JWK is not an Ed25519 public key.
    public init(jwk: Ed25519JWK, crypto: any TrustCrypto) throws(Error) {
        guard let bytes = jwk.publicKeyBytes else {
            throw Error(description: "the JWK is not an Ed25519 public key (kty must be OKP, crv Ed25519, x 32 bytes)")
        }
        try self.init(rawRepresentation: bytes, crypto: crypto)
    }

    /// A key from a PEM `PUBLIC KEY` block (SPKI), as `openssl pkey -in key.pem -pubout` writes it.
    /// - Throws: ``Error`` when the PEM is not an Ed25519 SubjectPublicKeyInfo.
    public init(spkiPEM pem: String, crypto: any TrustCrypto) throws(Error) {
        let lines = pem.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = lines.firstIndex(of: "-----BEGIN PUBLIC KEY-----"),
            let end = lines.firstIndex(of: "-----END PUBLIC KEY-----"), begin < end
        else { throw Error(description: "expected a PEM block \"-----BEGIN PUBLIC KEY-----\"") }
        guard let der = Base64.decode(lines[(begin + 1)..<end].joined()) else {
            throw Error(description: "the PEM body is not valid base64")
        }
        try self.init(spkiDER: der, crypto: crypto)
    }

    /// A key from a DER Ed25519 SubjectPublicKeyInfo (44 bytes).
    /// - Throws: ``Error`` when the DER is not an Ed25519 SubjectPublicKeyInfo.
    public init(spkiDER der: [UInt8], crypto: any TrustCrypto) throws(Error) {
        guard der.count == 44, der.starts(with: Self.ed25519SPKIPrefix) else {
            throw Error(description: "the key is not an Ed25519 SubjectPublicKeyInfo (OID 1.3.101.112)")
        }
        try self.init(rawRepresentation: der.suffix(32), crypto: crypto)
    }

    /// `SEQUENCE { SEQUENCE { OID 1.3.101.112 } BIT STRING (0 unused bits) }` before the 32 key bytes.
    package static let ed25519SPKIPrefix: [UInt8] = [
        0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00,
    ]

    package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        crypto.isValidEd25519Signature(signature, for: message, publicKey: rawRepresentation)
    }
}
