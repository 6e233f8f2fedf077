/// An Ed25519 public key as a JWK (RFC 8037), with the helpers the protocol needs.
public struct Ed25519JWK: Codable, Sendable, Hashable {
    /// Always `OKP`.
    public var kty: String = "OKP"
    /// Always `Ed25519`.
    public var crv: String = "Ed25519"
    /// base64url of the 32-byte public key.
    public var x: String
    /// The RFC 7638 thumbprint, when listed in a JWKS.
    public var kid: String?
    /// `EdDSA` when listed in a JWKS.
    public var alg: String?
    /// `sig` when listed in a JWKS.
    public var use: String?

    /// A JWK for a raw 32-byte Ed25519 public key, with `kid`, `alg` and `use` filled in when `kid` is given.
    public init(publicKey: [UInt8], kid: String? = nil) {
        precondition(publicKey.count == 32, "an Ed25519 public key is 32 bytes")
        x = Base64URL.encode(publicKey)
        self.kid = kid
        alg = kid == nil ? nil : "EdDSA"
        use = kid == nil ? nil : "sig"
    }

    /// The exact bytes RFC 7638 hashes for an Ed25519 key: `{"crv":"Ed25519","kty":"OKP","x":"…"}`.
    /// The `kid` is base64url(SHA-256(these bytes)); each side hashes with its own crypto library.
    public static func thumbprintInput(publicKey: [UInt8]) -> [UInt8] {
        Array("{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"\(Base64URL.encode(publicKey))\"}".utf8)
    }

    /// The raw public key bytes, or `nil` if this is not a well-formed Ed25519 JWK.
    public var publicKeyBytes: [UInt8]? {
        guard kty == "OKP", crv == "Ed25519", let bytes = Base64URL.decode(x), bytes.count == 32 else { return nil }
        return bytes
    }
}
