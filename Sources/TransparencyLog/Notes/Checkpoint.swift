/// A C2SP tlog-checkpoint body: origin, tree size, base64 root hash, then optional extension lines.
public struct Checkpoint: Sendable, Equatable {
    /// The log's identity, e.g. `pins.example.com/log`.
    public let origin: String
    /// The number of leaves.
    public let size: Int
    /// The RFC 6962 root hash at ``size``.
    public let rootHash: TreeHash
    /// Opaque extension lines (not recommended; kept as they are).
    public let extensions: [String]

    /// Creates a checkpoint.
    /// - Throws: ``LogErrorCode/malformed`` for an empty origin or one with a newline, a negative size, a root
    ///   that is not 32 bytes, or an empty extension line.
    public init(origin: String, size: Int, rootHash: TreeHash, extensions: [String] = []) throws(LogError) {
        guard !origin.isEmpty, !origin.contains("\n") else {
            throw LogError(.malformed, "a checkpoint origin is one non-empty line")
        }
        guard size >= 0 else { throw LogError(.malformed, "a negative tree size") }
        guard rootHash.count == 32 else { throw LogError(.malformed, "a root hash is 32 bytes") }
        guard extensions.allSatisfy({ !$0.isEmpty && !$0.contains("\n") }) else {
            throw LogError(.malformed, "extension lines are non-empty lines")
        }
        self.origin = origin
        self.size = size
        self.rootHash = rootHash
        self.extensions = extensions
    }

    /// Parses a note text as a checkpoint.
    /// - Throws: ``LogErrorCode/malformed``.
    public init(text: [UInt8]) throws(LogError) {
        guard text.last == 0x0A else { throw LogError(.malformed, "a checkpoint ends with a newline") }
        let lines = NoteText.lines(text.dropLast())
        guard lines.count >= 3 else { throw LogError(.malformed, "a checkpoint has an origin, a size and a root hash") }
        guard let size = NoteText.decimal(lines[1]) else {
            throw LogError(.malformed, "the checkpoint size is not a decimal without leading zeroes")
        }
        guard let root = NoteText.unbase64(lines[2]), root.count == 32 else {
            throw LogError(.malformed, "the checkpoint root is not base64 of 32 bytes")
        }
        try self.init(
            origin: NoteText.string(lines[0]), size: size, rootHash: root,
            extensions: lines[3...].map { NoteText.string($0) })
    }

    /// The note text: each line followed by a newline.
    public var text: [UInt8] {
        let lines = [origin, String(size), NoteText.base64(rootHash)] + extensions
        return Array(lines.map { $0 + "\n" }.joined().utf8)
    }
}
