import Foundation

/// The payload of a trust document (PROTOCOL §6.1): which root keys may sign the next version and which
/// online keys may sign pin documents while this version is in force.
public struct TrustPayload: Codable, Sendable, Hashable {
    /// At least 1; each new trust document has the next version.
    public var version: Int
    /// When it was signed (offline).
    public var issuedAt: Date
    /// When it stops being fresh; re-sign (as the next version) before then.
    public var expiresAt: Date
    /// The root public keys that may sign the **next** version (each with its `kid`).
    public var rootKeys: [Ed25519JWK]
    /// How many distinct keys of ``rootKeys`` must sign the next version. At least 1.
    public var rootThreshold: Int
    /// The online keys whose pin documents clients accept while this version is in force.
    public var signingKeys: [Ed25519JWK]
    /// The transparency log keys (PROTOCOL §7.1) whose checkpoints clients accept while this version is in force,
    /// checked like ``signingKeys``; `nil` (the member absent) when the document names none. A client with a
    /// tlog-policy accepts each as an additional key of every log origin its policy names, so the log key rotates
    /// like a signing key.
    public var logKeys: [Ed25519JWK]?

    /// Creates a payload.
    /// - Parameter logKeys: default `nil`: the payload has no `logKeys` member.
    public init(
        version: Int, issuedAt: Date, expiresAt: Date, rootKeys: [Ed25519JWK], rootThreshold: Int,
        signingKeys: [Ed25519JWK], logKeys: [Ed25519JWK]? = nil
    ) {
        self.version = version
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.rootKeys = rootKeys
        self.rootThreshold = rootThreshold
        self.signingKeys = signingKeys
        self.logKeys = logKeys
    }

    private enum CodingKeys: String, CodingKey {
        case version, issuedAt, expiresAt, rootKeys, rootThreshold, signingKeys, logKeys
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        issuedAt = try container.decodeRFC3339(forKey: .issuedAt)
        expiresAt = try container.decodeRFC3339(forKey: .expiresAt)
        rootKeys = try container.decode([Ed25519JWK].self, forKey: .rootKeys)
        rootThreshold = try container.decode(Int.self, forKey: .rootThreshold)
        signingKeys = try container.decode([Ed25519JWK].self, forKey: .signingKeys)
        logKeys = try container.decodeIfPresent([Ed25519JWK].self, forKey: .logKeys)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(RFC3339Date(issuedAt), forKey: .issuedAt)
        try container.encode(RFC3339Date(expiresAt), forKey: .expiresAt)
        try container.encode(rootKeys, forKey: .rootKeys)
        try container.encode(rootThreshold, forKey: .rootThreshold)
        try container.encode(signingKeys, forKey: .signingKeys)
        try container.encodeIfPresent(logKeys, forKey: .logKeys)
    }

    /// The payload's JSON bytes as the CLI signs them: sorted keys, no escaped slashes.
    public func encodedJSON() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings, integers and arrays of them cannot fail.
        return (try? [UInt8](encoder.encode(self))) ?? []
    }

    /// A JWK for a trust payload: `{"crv":"Ed25519","kid":…,"kty":"OKP","x":…}` (no `alg`/`use`).
    public static func jwk(publicKey: [UInt8], kid: String) -> Ed25519JWK {
        var jwk = Ed25519JWK(publicKey: publicKey, kid: kid)
        jwk.alg = nil
        jwk.use = nil
        return jwk
    }
}
