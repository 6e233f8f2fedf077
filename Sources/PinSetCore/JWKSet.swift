/// A JSON Web Key Set of Ed25519 keys, as `GET /keys` serves it.
public struct JWKSet: Codable, Sendable, Hashable {
    /// The keys.
    public var keys: [Ed25519JWK]

    /// Creates a key set.
    public init(keys: [Ed25519JWK]) { self.keys = keys }
}
