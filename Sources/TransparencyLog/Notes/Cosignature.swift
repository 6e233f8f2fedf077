/// C2SP tlog-cosignature/v1 (signature type 0x04): a witness's timestamped Ed25519 signature of a checkpoint.
public enum Cosignature {
    /// The signed message: `cosignature/v1\ntime <t>\n` followed by the checkpoint's note text.
    public static func message(timestamp: UInt64, checkpointText: [UInt8]) -> [UInt8] {
        Array("cosignature/v1\ntime \(timestamp)\n".utf8) + checkpointText
    }
}

/// Makes note signature lines with a private key held elsewhere (OpenSSL on the server, a PKCS#11 token): the
/// key never enters this module, only a function that signs with it.
public struct NoteSigner: Sendable {
    /// The public side: name, key ID, type and public key.
    public let key: VerifierKey
    private let sign: @Sendable ([UInt8]) -> [UInt8]

    /// Creates a signer.
    /// - Parameters:
    ///   - key: the verifier key of the private key `sign` uses.
    ///   - sign: pure Ed25519 (RFC 8032) over a message, giving 64 bytes.
    public init(key: VerifierKey, sign: @escaping @Sendable ([UInt8]) -> [UInt8]) {
        self.key = key
        self.sign = sign
    }

    /// The signature line of `text` (a checkpoint's note text). A cosigner (type 0x04) signs
    /// ``Cosignature/message(timestamp:checkpointText:)`` with `timestamp`, which must not be 0.
    public func signature(of text: [UInt8], timestamp: UInt64) -> NoteSignature {
        switch key.type {
        case .ed25519:
            return NoteSignature(name: key.name, keyID: key.keyID, signature: sign(text))
        case .cosignature:
            precondition(timestamp > 0 && timestamp <= UInt64(Int64.max), "a cosignature has a timestamp")
            let stamp = (0..<8).map { UInt8(timestamp >> (56 - 8 * $0) & 0xFF) }
            let signed = sign(Cosignature.message(timestamp: timestamp, checkpointText: text))
            return NoteSignature(name: key.name, keyID: key.keyID, signature: stamp + signed)
        }
    }
}
