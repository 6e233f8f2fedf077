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
