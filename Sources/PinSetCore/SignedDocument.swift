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

    /// The largest document a client accepts (PROTOCOL §5 step 1): 65,535 bytes, a log entry bundle's limit (§7.1).
    public static let maxBytes = 65_535

    /// The largest document a server signs: 65,535 bytes, a log entry bundle's limit (PROTOCOL §7.1), below what
    /// every client accepts (``maxBytes``).
    public static let maxSignedBytes = 65_535

    /// The `typ` every pinset document carries.
    public static let type = "pinset+jws"
    /// The only `alg` a pinset document may carry.
    public static let algorithm = "EdDSA"
    /// The `alg` values a client accepts (PROTOCOL §5 step 2): `EdDSA`, which the server writes, and `Ed25519`, the
    /// fully specified name RFC 9864 gives the same algorithm.
    public static let acceptedAlgorithms: Set<String> = ["EdDSA", "Ed25519"]

    /// The exact protected header bytes for a key id: `{"alg":"EdDSA","kid":"<kid>","typ":"pinset+jws"}`.
    public static func protectedHeader(kid: String) -> [UInt8] {
        Array("{\"alg\":\"\(algorithm)\",\"kid\":\"\(kid)\",\"typ\":\"\(type)\"}".utf8)
    }
}
