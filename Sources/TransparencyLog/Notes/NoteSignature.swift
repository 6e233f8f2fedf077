/// One signature line of a C2SP signed note: `— <key name> base64(key ID || signature)`.
public struct NoteSignature: Sendable, Equatable {
    /// The key name.
    public let name: String
    /// The 32-bit key ID (the first four signature bytes, big-endian).
    public let keyID: UInt32
    /// The signature bytes after the key ID (for a cosignature: the 8-byte timestamp, then the signature).
    public let signature: [UInt8]

    /// Creates a signature line's content.
    public init(name: String, keyID: UInt32, signature: [UInt8]) {
        self.name = name
        self.keyID = keyID
        self.signature = signature
    }

    /// The line, newline included: `— name base64(keyID || signature)\n`.
    public var line: String {
        let id: [UInt8] = [
            UInt8(keyID >> 24), UInt8(keyID >> 16 & 0xFF), UInt8(keyID >> 8 & 0xFF), UInt8(keyID & 0xFF),
        ]
        return "\u{2014} \(name) \(NoteText.base64(id + signature))\n"
    }

    /// Parses one line, without its newline.
    /// - Throws: ``LogErrorCode/malformed``.
    public init(line: Substring) throws(LogError) {
        try self.init(lineBytes: Array(line.utf8)[...])
    }

    /// Parses one line's UTF-8, without its newline.
    init(lineBytes line: ArraySlice<UInt8>) throws(LogError) {
        guard let rest = NoteText.after("\u{2014} ", in: line) else {
            throw LogError(.malformed, "a signature line does not start with an em dash")
        }
        guard let space = rest.lastIndex(of: NoteText.space) else {
            throw LogError(.malformed, "a signature line has no key name and signature")
        }
        let name = NoteText.string(rest[..<space])
        guard NoteText.isValidKeyName(name) else { throw LogError(.malformed, "a signature's key name is not valid") }
        guard let raw = NoteText.unbase64(rest[(space + 1)...]), raw.count > 4 else {
            throw LogError(.malformed, "a signature of \(name) is not base64 of a key ID and a signature")
        }
        self.name = name
        self.keyID = raw[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
        self.signature = Array(raw[4...])
    }
}
