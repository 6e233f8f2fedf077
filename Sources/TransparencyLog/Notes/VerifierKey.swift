import PinSetCore

/// A C2SP signed-note verifier key ("vkey"): `<name>+<hex key ID>+base64(type || public key)`.
///
/// Two types are supported: ``SignatureType/ed25519`` (0x01, log checkpoints) and
/// ``SignatureType/cosignature`` (0x04, C2SP tlog-cosignature/v1 by witnesses).
public struct VerifierKey: Sendable, Hashable, CustomStringConvertible {
    /// The signature types this code knows.
    public enum SignatureType: UInt8, Sendable {
        /// Ed25519 over the note text.
        case ed25519 = 0x01
        /// Timestamped Ed25519 checkpoint cosignature (tlog-cosignature/v1).
        case cosignature = 0x04
    }

    /// The key name.
    public let name: String
    /// The key ID: the first four bytes of SHA-256(name || 0x0A || type || public key), big-endian.
    public let keyID: UInt32
    /// The signature type.
    public let type: SignatureType
    /// The raw 32-byte Ed25519 public key.
    public let publicKey: [UInt8]

    /// A key from its parts, with the key ID computed as the spec recommends.
    /// - Throws: ``LogErrorCode/malformed`` for an invalid name or a key that is not 32 bytes.
    public init(name: String, type: SignatureType, publicKey: [UInt8], crypto: any TrustCrypto) throws(LogError) {
        guard NoteText.isValidKeyName(name) else { throw LogError(.malformed, "\"\(name)\" is not a valid key name") }
        guard publicKey.count == 32 else { throw LogError(.malformed, "an Ed25519 public key is 32 bytes") }
        self.name = name
        self.type = type
        self.publicKey = publicKey
        self.keyID = Self.keyID(name: name, type: type, publicKey: publicKey, crypto: crypto)
    }

    /// Parses a vkey; its key ID must be the one computed from its name and key.
    /// - Throws: ``LogErrorCode/malformed``.
    public init(parsing text: String, crypto: any TrustCrypto) throws(LogError) {
        // Base64 has "+" too: only the first two separate (a key name has none).
        let parts = text.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].count == 8, let id = UInt32(parts[1], radix: 16),
            parts[1] == parts[1].lowercased(), let raw = NoteText.unbase64(parts[2]), raw.count == 33
        else {
            throw LogError(.malformed, "a verifier key is name+hexID+base64(type || 32-byte key)")
        }
        guard let type = SignatureType(rawValue: raw[0]) else {
            throw LogError(.malformed, "verifier key type 0x\(String(raw[0], radix: 16)) is not supported")
        }
        try self.init(name: String(parts[0]), type: type, publicKey: Array(raw[1...]), crypto: crypto)
        guard keyID == id else { throw LogError(.malformed, "the key ID of \(name) does not match its key") }
    }

    /// The vkey text.
    public var description: String {
        let hex = String(keyID, radix: 16)
        return
            "\(name)+\(String(repeating: "0", count: 8 - hex.count) + hex)+\(NoteText.base64([type.rawValue] + publicKey))"
    }

    /// SHA-256(name || 0x0A || type || public key)[:4], big-endian.
    public static func keyID(name: String, type: SignatureType, publicKey: [UInt8], crypto: any TrustCrypto) -> UInt32 {
        let digest = crypto.sha256(Array(name.utf8) + [0x0A, type.rawValue] + publicKey)
        return digest[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Verifies one signature line (already matched by name and key ID) over `text`.
    /// - Returns: `nil` when it does not verify; else the cosignature timestamp, or `nil` inside for type 0x01.
    func verify(_ signature: NoteSignature, text: [UInt8], crypto: any TrustCrypto) -> UInt64?? {
        switch type {
        case .ed25519:
            guard signature.signature.count == 64,
                crypto.isValidEd25519Signature(signature.signature, for: text, publicKey: publicKey)
            else { return nil }
            return .some(nil)
        case .cosignature:
            guard signature.signature.count == 72 else { return nil }
            let timestamp = signature.signature[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard timestamp <= UInt64(Int64.max) else { return nil }
            let message = Cosignature.message(timestamp: timestamp, checkpointText: text)
            guard crypto.isValidEd25519Signature(Array(signature.signature[8...]), for: message, publicKey: publicKey)
            else { return nil }
            return .some(timestamp)
        }
    }
}
