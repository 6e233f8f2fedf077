import Foundation

/// A trust document in JWS **general** JSON serialization (RFC 7515 §7.2.1), as `GET /trust` serves it
/// (PROTOCOL §6.1): one payload, signed by one or more offline root keys.
public struct TrustDocument: Codable, Sendable, Hashable {
    /// base64url of the payload's exact bytes (a ``TrustPayload`` in JSON).
    public var payload: String
    /// One entry per root key that signed, each over its own `protected + "." + payload`.
    public var signatures: [TrustSignature]

    /// Creates a document from its members.
    public init(payload: String, signatures: [TrustSignature]) {
        self.payload = payload
        self.signatures = signatures
    }

    /// The largest trust document a client or the server accepts (PROTOCOL §6.2 step 1): 65,535 bytes, a log
    /// entry bundle's limit (§7.1).
    public static let maxBytes = 65_535
    /// The `typ` of every trust document signature header.
    public static let type = "pinset-trust+jws"
    /// The only `alg` a trust document signature may carry.
    public static let algorithm = "EdDSA"
    /// The most versions one update walks through (PROTOCOL §6.2 step 4).
    public static let maxWalkSteps = 1_000

    /// The exact protected header bytes for a root key id: `{"alg":"EdDSA","kid":"<kid>","typ":"pinset-trust+jws"}`.
    public static func protectedHeader(kid: String) -> [UInt8] {
        Array("{\"alg\":\"\(algorithm)\",\"kid\":\"\(kid)\",\"typ\":\"\(type)\"}".utf8)
    }

    /// The bytes one signature covers: the ASCII of `protected + "." + payload`, exactly as sent.
    public func signingInput(protected: String) -> [UInt8] {
        Array((protected + "." + payload).utf8)
    }

    /// The wire form: `{"payload":…,"signatures":[{"protected":…,"signature":…},…]}` with no whitespace.
    public var serialized: [UInt8] {
        let signatures = signatures.map { "{\"protected\":\"\($0.protected)\",\"signature\":\"\($0.signature)\"}" }
        return Array("{\"payload\":\"\(payload)\",\"signatures\":[\(signatures.joined(separator: ","))]}".utf8)
    }

    /// Decodes a document from JSON bytes: an object with a string `payload` and an array `signatures` of
    /// objects with string `protected` and `signature`. Other members are ignored.
    /// - Throws: the `JSONDecoder` error when the bytes are not such an object.
    public static func decode(json: some Collection<UInt8>) throws -> TrustDocument {
        try JSONDecoder().decode(TrustDocument.self, from: Data(json))
    }
}

/// One signature of a ``TrustDocument``: its protected header and the Ed25519 signature.
public struct TrustSignature: Codable, Sendable, Hashable {
    /// base64url of the protected header's exact bytes (``TrustDocument/protectedHeader(kid:)``).
    public var protected: String
    /// base64url of the 64-byte Ed25519 signature over `protected + "." + payload`.
    public var signature: String

    /// Creates a signature entry.
    public init(protected: String, signature: String) {
        self.protected = protected
        self.signature = signature
    }
}
