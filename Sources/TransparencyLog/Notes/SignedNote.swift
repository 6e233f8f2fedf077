import PinSetCore

/// A C2SP signed note: a text ending in a newline, a blank line, and one or more signature lines.
///
/// ``text`` is exactly the bytes signed. Parsing checks the format only; ``verify(_:crypto:)`` checks signatures.
public struct SignedNote: Sendable, Equatable {
    /// The most signature lines accepted (the spec requires at least 16).
    public static let maxSignatures = 64
    /// The largest note accepted: room for 16 signatures of several kilobytes (post-quantum cosignatures), as
    /// C2SP signed-note asks verifiers to accept.
    public static let maxBytes = 128 * 1024

    /// The note text, final newline included: the signed message.
    public let text: [UInt8]
    /// The signature lines, in order.
    public private(set) var signatures: [NoteSignature]

    /// A note of `text` with `signatures`.
    /// - Precondition: `text` ends with a newline.
    public init(text: [UInt8], signatures: [NoteSignature]) {
        precondition(text.last == 0x0A, "a note text ends with a newline")
        self.text = text
        self.signatures = signatures
    }

    /// Parses a note.
    /// - Throws: ``LogErrorCode/malformed`` when it is not a signed note.
    public init(parsing bytes: some Collection<UInt8>) throws(LogError) {
        let raw = Array(bytes)
        guard raw.count <= Self.maxBytes else { throw LogError(.malformed, "the note is over \(Self.maxBytes) bytes") }
        guard NoteText.isCleanText(raw) else {
            throw LogError(.malformed, "the note is not UTF-8 text without control characters")
        }
        guard raw.last == 0x0A else { throw LogError(.malformed, "the note does not end with a newline") }
        // The text ends at the last blank line ("\n\n"): the signatures follow it.
        var split: Int? = nil
        var i = raw.count - 2
        while i >= 0 {
            if raw[i] == 0x0A && raw[i + 1] == 0x0A {
                split = i
                break
            }
            i -= 1
        }
        guard let split else { throw LogError(.malformed, "the note has no blank line before its signatures") }
        let text = Array(raw[...split])
        // The last element is the empty line after the final newline.
        let signatureLines = NoteText.lines(raw[(split + 2)...]).dropLast()
        guard !signatureLines.isEmpty else { throw LogError(.malformed, "the note has no signature") }
        guard signatureLines.count <= Self.maxSignatures else {
            throw LogError(.malformed, "the note has over \(Self.maxSignatures) signatures")
        }
        var signatures: [NoteSignature] = []
        for line in signatureLines { signatures.append(try NoteSignature(lineBytes: line)) }
        self.text = text
        self.signatures = signatures
    }

    /// The note's bytes: text, blank line, signature lines.
    public var bytes: [UInt8] {
        var out = text
        out.append(0x0A)
        for signature in signatures { out.append(contentsOf: Array(signature.line.utf8)) }
        return out
    }

    /// Adds signature lines (a log's cosignatures, say); a line already there is not repeated.
    public mutating func add(_ more: some Sequence<NoteSignature>) {
        for signature in more where !signatures.contains(signature) { signatures.append(signature) }
    }

    /// Checks the signatures by `keys`, as C2SP signed-note requires: a line whose name and key ID match no key
    /// is ignored; a line that matches a key must verify, or the whole note is refused.
    /// - Returns: the keys whose signature verified, each once, with the cosignature timestamp if it has one.
    /// - Throws: ``LogErrorCode/badSignature`` when a known key's signature fails.
    public func verify(_ keys: [VerifierKey], crypto: any TrustCrypto) throws(LogError) -> [VerifiedSignature] {
        var verified: [VerifiedSignature] = []
        for signature in signatures {
            guard let key = keys.first(where: { $0.name == signature.name && $0.keyID == signature.keyID }) else {
                continue
            }
            guard let timestamp = key.verify(signature, text: text, crypto: crypto) else {
                throw LogError(.badSignature, "the signature of \(key.name) does not verify")
            }
            if !verified.contains(where: { $0.key == key }) {
                verified.append(VerifiedSignature(key: key, timestamp: timestamp))
            }
        }
        return verified
    }
}

/// A signature ``SignedNote/verify(_:crypto:)`` found valid.
public struct VerifiedSignature: Sendable, Equatable {
    /// The key that made it.
    public let key: VerifierKey
    /// The cosignature's timestamp (type 0x04), `nil` for a plain Ed25519 note signature.
    public let timestamp: UInt64?
}
