import PinSetCore
@_exported import PinSetRules

// The verification rules live in PinSetRules, which takes its SHA-256 and Ed25519 as a `TrustCrypto` so that the
// `pinset` CLI checks documents with the system OpenSSL and links no swift-crypto. Apps import PinSetClient and
// get the same initialisers without `crypto:`, over swift-crypto.

extension TrustedKey {
    /// A key from its raw 32 bytes.
    /// - Throws: ``TrustedKey/Error`` when `raw` is not 32 bytes.
    public init(rawRepresentation raw: some Collection<UInt8>) throws(TrustedKey.Error) {
        try self.init(rawRepresentation: raw, crypto: SwiftCryptoTrust())
    }

    /// A key from its public JWK (`{"kty":"OKP","crv":"Ed25519","x":…}`); a `kid` in it is ignored.
    /// - Throws: ``TrustedKey/Error`` when the JWK is not an Ed25519 public key.
    public init(jwk: Ed25519JWK) throws(TrustedKey.Error) {
        try self.init(jwk: jwk, crypto: SwiftCryptoTrust())
    }

    /// A key from a PEM `PUBLIC KEY` block (SPKI), as `openssl pkey -in key.pem -pubout` writes it.
    /// - Throws: ``TrustedKey/Error`` when the PEM is not an Ed25519 SubjectPublicKeyInfo.
    public init(spkiPEM pem: String) throws(TrustedKey.Error) {
        try self.init(spkiPEM: pem, crypto: SwiftCryptoTrust())
    }

    /// A key from a DER Ed25519 SubjectPublicKeyInfo (44 bytes).
    /// - Throws: ``TrustedKey/Error`` when the DER is not an Ed25519 SubjectPublicKeyInfo.
    public init(spkiDER der: [UInt8]) throws(TrustedKey.Error) {
        try self.init(spkiDER: der, crypto: SwiftCryptoTrust())
    }
}

extension TrustState {
    /// Version 0: root public keys shipped in the app, and how many of them must sign trust version 1.
    /// - Throws: ``TrustRejectionCode/malformed`` when the threshold is out of range.
    public init(rootKeys: [TrustedKey], threshold: Int = 1) throws(TrustRejection) {
        try self.init(rootKeys: rootKeys, threshold: threshold, crypto: SwiftCryptoTrust())
    }

    /// A trust document shipped in the app, accepted without checking time (PROTOCOL §6.2).
    /// - Throws: the ``TrustRejection`` of the first rule it breaks.
    public init(bundledDocument bytes: some Collection<UInt8>) throws(TrustRejection) {
        try self.init(bundledDocument: bytes, crypto: SwiftCryptoTrust())
    }
}

extension TrustStore {
    /// Version 0 from root public keys shipped in the app. See ``TrustState/init(rootKeys:threshold:)``.
    public convenience init(rootKeys: [TrustedKey], threshold: Int = 1) throws(TrustRejection) {
        self.init(try TrustState(rootKeys: rootKeys, threshold: threshold))
    }

    /// A trust document shipped in the app. See ``TrustState/init(bundledDocument:)``.
    public convenience init(bundledDocument: some Collection<UInt8>) throws(TrustRejection) {
        self.init(try TrustState(bundledDocument: bundledDocument))
    }
}
