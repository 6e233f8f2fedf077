/// A signed document in JWS flattened JSON serialization (RFC 7515 §7.2.2), as `GET /pins/{host}` serves it.
public struct SignedDocument: Codable, Sendable, Hashable {
    /// base64url of the protected header's exact bytes.
    public var protected: String
    /// base64url of the payload's exact bytes (a ``PinSet`` in JSON).
    public var payload: String
    /// base64url of the 64-byte Ed25519 signature over `protected + "." + payload`.
    public var signature: String

    /// Creates a document from its three members.
    public init(protected: String, payload: String, signature: String) {
        self.protected = protected
        self.payload = payload
        self.signature = signature
    }

    /// The bytes the signature covers: the ASCII of `protected + "." + payload`, exactly as sent.
    public var signingInput: [UInt8] {
        var input = [UInt8]()
        input.reserveCapacity(protected.utf8.count + 1 + payload.utf8.count)
        input.append(contentsOf: protected.utf8)
        input.append(UInt8(ascii: "."))
        input.append(contentsOf: payload.utf8)
        return input
    }

    /// The document's wire form: `{"protected":…,"payload":…,"signature":…}` with no whitespace.
    public var serialized: [UInt8] {
        Array("{\"protected\":\"\(protected)\",\"payload\":\"\(payload)\",\"signature\":\"\(signature)\"}".utf8)
    }

    /// The largest document a client accepts (PROTOCOL §5 step 1).
    public static let maxBytes = 64 * 1024

    /// The `typ` every pinset document carries.
    public static let type = "pinset+jws"
    /// The only `alg` a pinset document may carry.
    public static let algorithm = "EdDSA"

    /// The exact protected header bytes for a key id: `{"alg":"EdDSA","kid":"<kid>","typ":"pinset+jws"}`.
    public static func protectedHeader(kid: String) -> [UInt8] {
        Array("{\"alg\":\"\(algorithm)\",\"kid\":\"\(kid)\",\"typ\":\"\(type)\"}".utf8)
    }
}

/// The members of a document's protected header.
public struct JWSHeader: Codable, Sendable, Hashable {
    /// Must be `EdDSA`.
    public var alg: String
    /// The RFC 7638 thumbprint of the signing key.
    public var kid: String?
    /// Must be `pinset+jws`.
    public var typ: String?

    /// Creates a header.
    public init(alg: String, kid: String?, typ: String?) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }
}

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

/// A JSON Web Key Set of Ed25519 keys, as `GET /keys` serves it.
public struct JWKSet: Codable, Sendable, Hashable {
    /// The keys.
    public var keys: [Ed25519JWK]

    /// Creates a key set.
    public init(keys: [Ed25519JWK]) { self.keys = keys }
}
